/// A JSON object: members in insertion order, keys unique. Lookups are linear, which is the fastest
/// choice for the small objects JSON documents here are made of (claims, headers, JWKs).
public struct JSONObject: Sendable, Hashable {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init() { members = [] }

    /// Later duplicates replace earlier values, keeping the first position.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        members = []
        for (k, v) in pairs { self[k] = v }
    }

    /// Builds from parsed members in linear time: a later duplicate key replaces the earlier value.
    init(parsedMembers: [(key: String, value: JSONValue)]) {
        var position: [String: Int] = [:]
        position.reserveCapacity(parsedMembers.count)
        members = []
        members.reserveCapacity(parsedMembers.count)
        for m in parsedMembers {
            if let p = position[m.key] {
                members[p].value = m.value
            } else {
                position[m.key] = members.count
                members.append(m)
            }
        }
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

    /// Members of `other` override ours, new ones appended in their order.
    public mutating func merge(_ other: JSONObject) {
        for (k, v) in other.members { self[k] = v }
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        for (k, v) in a.members where b[k] != v { return false }
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
