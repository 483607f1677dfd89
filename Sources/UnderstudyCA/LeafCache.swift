import UnderstudyTLS

/// Issued leaf identities by name, at most `capacity` of them; the least recently used goes first.
/// An entry is reissued once past its renewal time, well before the certificate expires.
struct LeafCache: Sendable {
    struct Entry: Sendable {
        let identity: TLSIdentity
        let renewAfter: Int64
        var lastUse: UInt64
    }

    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var tick: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    mutating func lookup(_ key: String, now: Int64) -> TLSIdentity? {
        guard var entry = entries[key], now < entry.renewAfter else { return nil }
        tick += 1
        entry.lastUse = tick
        entries[key] = entry
        return entry.identity
    }

    mutating func insert(_ key: String, identity: TLSIdentity, renewAfter: Int64) {
        if entries[key] == nil, entries.count >= capacity,
           let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
        tick += 1
        entries[key] = Entry(identity: identity, renewAfter: renewAfter, lastUse: tick)
    }
}
