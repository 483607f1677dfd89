/// Header fields in the order they were received or added. Names compare ASCII case-insensitively;
/// the spelling given is kept for output.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public typealias Element = (name: String, value: String)

    @usableFromInline var fields: [(name: String, value: String)]

    public init() {
        fields = []
    }

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of the field `name`, or nil.
    public subscript(name: String) -> String? {
        for field in fields where HTTPHeaders.namesEqual(field.name, name) {
            return field.value
        }
        return nil
    }

    /// Every value of the field `name`, in order (each header line separately; no comma splitting).
    public func values(for name: String) -> [String] {
        fields.compactMap { HTTPHeaders.namesEqual($0.name, name) ? $0.value : nil }
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { HTTPHeaders.namesEqual($0.name, name) }
    }

    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces the first field `name` and removes any others, or appends it.
    public mutating func replaceOrAdd(name: String, value: String) {
        if let index = fields.firstIndex(where: { HTTPHeaders.namesEqual($0.name, name) }) {
            fields[index].value = value
            var next = index + 1
            while next < fields.count {
                if HTTPHeaders.namesEqual(fields[next].name, name) {
                    fields.remove(at: next)
                } else {
                    next += 1
                }
            }
        } else {
            fields.append((name: name, value: value))
        }
    }

    public mutating func remove(name: String) {
        fields.removeAll { HTTPHeaders.namesEqual($0.name, name) }
    }

    /// The comma-separated list elements of every field `name` (RFC 9110 §5.6.1), trimmed, empty
    /// elements dropped, e.g. `Connection: close, Upgrade` -> ["close", "Upgrade"].
    public func tokens(for name: String) -> [Substring] {
        var result: [Substring] = []
        for field in fields where HTTPHeaders.namesEqual(field.name, name) {
            for element in field.value.split(separator: ",") {
                let trimmed = element.trimmingOWS()
                if !trimmed.isEmpty { result.append(trimmed) }
            }
        }
        return result
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// ASCII case-insensitive comparison without allocating.
    @inlinable
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for i in 0..<x.count where x[i] != y[i] {
                    if (x[i] | 0x20) != (y[i] | 0x20) { return false }
                    let lower = x[i] | 0x20
                    if lower < UInt8(ascii: "a") || lower > UInt8(ascii: "z") { return false }
                }
                return true
            }
        }
    }
}

extension Substring {
    /// Drops leading and trailing optional whitespace (SP / HTAB).
    func trimmingOWS() -> Substring {
        var s = self
        while let first = s.utf8.first, first == 0x20 || first == 0x09 { s = s.dropFirst() }
        while let last = s.utf8.last, last == 0x20 || last == 0x09 { s = s.dropLast() }
        return s
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality with a lowercase ASCII literal.
    func equalsLowercased(_ lowercase: String) -> Bool {
        guard utf8.count == lowercase.utf8.count else { return false }
        for (x, y) in zip(utf8, lowercase.utf8) {
            let folded = (x >= 0x41 && x <= 0x5A) ? x | 0x20 : x
            if folded != y { return false }
        }
        return true
    }
}
