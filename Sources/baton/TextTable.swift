/// Prints rows as left-aligned columns under a header, as `ps` and `ls -l` do; each cell
/// is made printable first (``TerminalText``).
enum TextTable {
    static func print(header: [String], rows: [[String]]) {
        let all = [header] + rows.map { $0.map(TerminalText.printable) }
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            Swift.print(cells.joined(separator: "  "))
        }
    }
}
