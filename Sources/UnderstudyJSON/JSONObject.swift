/// A JSON object: members in insertion order, keys unique. Lookups are linear, which is the fastest
/// choice for the small objects JSON documents here are made of (claims, headers, JWKs).
public struct JSONObject: Sendable, Hashable {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init() { members = [] }

    /// Later duplicates replace earlier values, keeping the first position. Linear time.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        members = []
        setEach(pairs.lazy.map { (key: $0.0, value: $0.1) })
    }

    /// Builds from parsed members in linear time: a later duplicate key replaces the earlier value.
    init(parsedMembers: [(key: String, value: JSONValue)]) {
        members = []
        setEach(parsedMembers)
    }

    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// Setting nil removes the member; setting an existing key keeps its position.
    public subscript(key: String) -> JSONValue? {
        get {
            for m in members where m.key == key { return m.value }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// Members of `other` override ours, new ones appended in their order. Linear in both sizes
    /// (a key-to-position table), so a request with thousands of members cannot make it quadratic.
    public mutating func merge(_ other: JSONObject) {
        setEach(other.members)
    }

    /// Sets each pair in turn: an existing key keeps its position, a new one is appended.
    private mutating func setEach(_ pairs: some Sequence<(key: String, value: JSONValue)>) {
        var position: [String: Int] = [:]
        position.reserveCapacity(members.count + pairs.underestimatedCount)
        for (i, m) in members.enumerated() { position[m.key] = i }
        members.reserveCapacity(members.count + pairs.underestimatedCount)
        for (k, v) in pairs {
            if let p = position[k] {
                members[p].value = v
            } else {
                position[k] = members.count
                members.append((k, v))
            }
        }
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        if a.members.count <= 16 {
            for (k, v) in a.members where b[k] != v { return false }
            return true
        }
        var values: [String: JSONValue] = [:]
        values.reserveCapacity(b.members.count)
        for m in b.members { values[m.key] = m.value }
        for (k, v) in a.members where values[k] != v { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, consistent with ==.
        var acc = 0
        for (k, v) in members {
            var h = Hasher()
            h.combine(k)
            h.combine(v)
            acc ^= h.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(acc)
    }
}

extension JSONObject: Sequence {
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }
}
