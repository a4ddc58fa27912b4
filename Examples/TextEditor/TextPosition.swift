import Baton

/// Where the person is in a document, as its window adds it to the document's activity:
/// the cursor's line and column, and the line in the middle of the view (lines and columns
/// count from 1, columns in characters), so the other device shows the same place whatever
/// its window's size or font.
struct TextPosition: Equatable {
    static let cursorLineKey = "cursorLine"
    static let cursorColumnKey = "cursorColumn"
    static let middleLineKey = "middleLine"

    var cursorLine = 1
    var cursorColumn = 1
    var middleLine = 1

    /// The entries the window adds to the activity's `userInfo`.
    var userInfo: [String: UserInfoValue] {
        [Self.cursorLineKey: .int(cursorLine), Self.cursorColumnKey: .int(cursorColumn),
         Self.middleLineKey: .int(middleLine)]
    }

    /// The position `userInfo` holds. An entry that is missing, not a whole number or below
    /// 1 reads as 1 (the start): a position cannot lose anything, so it never fails.
    init(userInfo: [String: UserInfoValue]) {
        cursorLine = Self.count(userInfo[Self.cursorLineKey])
        cursorColumn = Self.count(userInfo[Self.cursorColumnKey])
        middleLine = Self.count(userInfo[Self.middleLineKey])
    }

    init(cursorLine: Int, cursorColumn: Int, middleLine: Int) {
        self.cursorLine = cursorLine
        self.cursorColumn = cursorColumn
        self.middleLine = middleLine
    }

    private static func count(_ value: UserInfoValue?) -> Int {
        guard case .int(let number)? = value, number >= 1 else { return 1 }
        return number
    }
}
