/// A plain text table: columns padded to their widest cell, the last column left ragged.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max(), columns > 0 else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() where i < columns - 1 { widths[i] = max(widths[i], cell.count) } }
        var out = ""
        for row in rows {
            for (i, cell) in row.enumerated() {
                out += i == row.count - 1 ? cell : cell.padding(widths[i] + 2)
            }
            out += "\n"
        }
        return out
    }
}
