import BatonBus
import XCTest

/// Device names from other devices: taken without invisible characters or white space at
/// either end, and compared by what they look like, so a look-alike of a name is caught
/// whatever script, invisible character or case it uses.
final class DeviceNameSkeletonTests: XCTestCase {
    private func assertConfusable(_ name: String, _ other: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(DeviceNameSkeleton(name), DeviceNameSkeleton(other),
                       "\(name.debugDescription) passes for \(other.debugDescription)", file: file, line: line)
    }

    private func assertDistinct(_ name: String, _ other: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotEqual(DeviceNameSkeleton(name), DeviceNameSkeleton(other),
                          "\(name.debugDescription) is told from \(other.debugDescription)", file: file, line: line)
    }

    func testLookAlikeLettersOfOtherScriptsPassForLatinOnes() {
        assertConfusable("\u{0395}vil", "Evil")          // Greek capital Epsilon
        assertConfusable("\u{0412}eta", "Beta")          // Cyrillic capital Ve, whose lowercase в is no b
        assertConfusable("b\u{0435}t\u{0430}", "beta")   // Cyrillic small ie and a
        assertConfusable("\u{0421}\u{041E}\u{0420}\u{0415}", "cope") // Cyrillic С О Р Е
        assertConfusable("\u{0399}\u{039F}\u{03A4}\u{0391}", "iota") // Greek Ι Ο Τ Α
        assertConfusable("\u{0445}\u{0443}\u{0455}\u{0458}\u{0456}", "xysji") // Cyrillic х у ѕ ј і
        assertConfusable("\u{039C}\u{0397}\u{039A}\u{03A7}\u{039D}\u{03A1}\u{0396}\u{03A5}\u{0392}", "mhkxnpzyb")
        assertConfusable("\u{03BF}\u{03BD}", "ov")       // Greek small omicron, nu
        assertConfusable("\u{041A}\u{041C}\u{041D}\u{0422}\u{0425}", "kmhtx")
    }

    func testCaseCompatibilityFormsDigitsAndStrokesAreFolded() {
        assertConfusable("EVIL", "evil")
        assertConfusable("\u{FF25}vil", "Evil")           // full-width E
        assertConfusable("\u{1D404}vil", "Evil")          // mathematical bold E
        assertConfusable("EviI", "Evil")                  // capital I for small l
        assertConfusable("B1ll", "Bill")
        assertConfusable("B0B", "BOB")
        assertConfusable("Ca\u{0301}fe", "Cáfe")          // decomposed and precomposed
        assertConfusable("modern", "modem")               // rn for m
    }

    func testInvisibleCharactersAndWhiteSpaceAreIgnored() {
        for invisible in ["\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}", "\u{00AD}", "\u{FE0F}",
                          "\u{E0100}", "\u{034F}", "\u{180E}", "\u{3164}", "\u{2800}", "\u{200E}", "\u{202E}"] {
            assertConfusable("Ev\(invisible)il", "Evil")
            assertConfusable("Evil\(invisible)", "Evil")
        }
        assertConfusable("Evil ", "Evil")
        assertConfusable("  Evil\u{00A0}", "Evil")
        assertConfusable("Study \u{3000}\t laptop", "Study laptop")
        assertConfusable("Evil\n", "Evil")
    }

    func testDifferentNamesStayDifferent() {
        assertDistinct("Évil", "Evil")
        assertDistinct("Eva", "Evil")
        assertDistinct("\u{0432}eta", "beta")             // a small Cyrillic в looks like no b
        assertDistinct("Study laptop", "Studylaptop")
        assertDistinct("laptop 2", "laptop")
        XCTAssertEqual(DeviceNameSkeleton("\u{200B} \u{FEFF}").text, "", "nothing visible: an empty skeleton")
    }

    func testANameIsTakenWithoutInvisibleCharactersNorSurroundingWhiteSpace() {
        XCTAssertEqual(DeviceNameSkeleton.cleaned("Evil\u{200B}"), "Evil")
        XCTAssertEqual(DeviceNameSkeleton.cleaned("  Evil \u{00A0}"), "Evil")
        XCTAssertEqual(DeviceNameSkeleton.cleaned("Study\u{2060}  laptop"), "Study laptop")
        XCTAssertEqual(DeviceNameSkeleton.cleaned("two\nlines"), "two lines")
        XCTAssertEqual(DeviceNameSkeleton.cleaned("\u{00AD}\u{FEFF}"), "")
        XCTAssertEqual(DeviceNameSkeleton.cleaned("\u{0395}vil"), "\u{0395}vil", "look-alikes are kept: they are compared, not rewritten")
        // The invisible characters that shape an emoji stay.
        XCTAssertEqual(DeviceNameSkeleton.cleaned("\u{1F469}\u{200D}\u{1F4BB} desk"), "\u{1F469}\u{200D}\u{1F4BB} desk")
        XCTAssertEqual(DeviceNameSkeleton.cleaned("\u{2764}\u{FE0F} home"), "\u{2764}\u{FE0F} home")
        XCTAssertEqual(DeviceNameSkeleton.cleaned("\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}"), "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}")
        XCTAssertEqual(DeviceNameSkeleton.cleaned("a\u{200D}b"), "ab", "a joiner between letters is dropped")
        XCTAssertEqual(InvisibleCharacters.removing(from: "1\u{FE0F}\u{200D}2"), "12")
    }
}
