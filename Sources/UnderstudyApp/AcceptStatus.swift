/// Which HTTP statuses mean the verifier accepted the token: `2xx`, `200`, `200,201`, `200-204`.
struct AcceptStatus {
    let ranges: [ClosedRange<Int>]

    init(_ text: String) throws(UsageError) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",").map({ String($0).trimmingSpaces() }) {
            if part.count == 3, part.hasSuffix("xx"), let d = Int(part.prefix(1)), (1...5).contains(d) {
                ranges.append(d * 100...d * 100 + 99)
            } else if let dash = part.firstIndex(of: "-"), let a = Int(part[..<dash]), let b = Int(part[part.index(after: dash)...]), a <= b {
                ranges.append(a...b)
            } else if let n = Int(part), (100...599).contains(n) {
                ranges.append(n...n)
            } else {
                throw UsageError("--accept-status takes statuses like 2xx, 200, 200,201 or 200-204; got '\(text)'")
            }
        }
        guard !ranges.isEmpty else { throw UsageError("--accept-status needs at least one status, e.g. 2xx") }
        self.ranges = ranges
    }

    func accepts(_ status: Int) -> Bool { ranges.contains { $0.contains(status) } }
}
