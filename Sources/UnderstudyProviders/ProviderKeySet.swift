/// One provider's keys through rotations: pure, so rotation and grace expiry are tested without time passing.
public struct ProviderKeySet: Sendable {
    /// Published keys first (the active one leading), then retired ones, oldest first.
    public private(set) var keys: [ManagedKey]

    /// A configured set: the first key signs, the others are published beside it.
    public init(keys: [ProviderKey], created: Int64) {
        precondition(!keys.isEmpty, "a key set needs at least one key")
        self.keys = keys.enumerated().map { ManagedKey(key: $1, state: $0 == 0 ? .active : .published, created: created) }
    }

    /// A set as persisted, states included.
    public init(managed: [ManagedKey]) {
        precondition(managed.contains { $0.state == .active }, "a key set needs an active key")
        keys = managed
    }

    public var active: ProviderKey { keys.first { $0.state == .active }!.key }
    /// What the JWKS serves: the active key first, then the other published and grace keys.
    public var published: [ProviderKey] {
        [active] + keys.filter { $0.state.isPublished && $0.state != .active }.map(\.key)
    }
    /// Retired keys, the longest retired first.
    public var retired: [ProviderKey] { retiredKeys.map(\.key) }

    var retiredKeys: [ManagedKey] {
        keys.filter { !$0.state.isPublished }.sorted { Self.since($0) < Self.since($1) }
    }

    static func since(_ k: ManagedKey) -> Int64 { if case .retired(let s) = k.state { return s } else { return 0 } }

    /// Every key as listed: the published ones (active first), then the retired ones.
    public var listed: [ManagedKey] {
        keys.filter { $0.state == .active } + keys.filter { $0.state.isPublished && $0.state != .active } + retiredKeys
    }

    /// At most this many keys published at once (rotations faster than the grace pile them up).
    public static let publishedLimit = 12
    /// Retired keys kept for the inspector beyond this many are forgotten, oldest first.
    public static let retiredLimit = 16

    public var canRotate: Bool { published.count < Self.publishedLimit }

    /// Makes `newKey` the active key; the previous one stays published until `now + grace`
    /// (retired at once when grace is 0).
    public mutating func rotate(to newKey: ProviderKey, now: Int64, grace: Int64) {
        for i in keys.indices where keys[i].state == .active {
            keys[i].state = grace > 0 ? .grace(until: now + grace) : .retired(since: now)
        }
        keys.insert(ManagedKey(key: newKey, state: .active, created: now), at: 0)
        forgetOldRetired()
    }

    private mutating func forgetOldRetired() {
        let retired = retiredKeys
        guard retired.count > Self.retiredLimit else { return }
        let forget = Set(retired.prefix(retired.count - Self.retiredLimit).map(\.key.kid))
        keys.removeAll { forget.contains($0.key.kid) }
    }

    /// Retires the keys whose grace has ended; true when anything changed.
    @discardableResult
    public mutating func settle(now: Int64) -> Bool {
        var changed = false
        for i in keys.indices {
            if case .grace(let until) = keys[i].state, until <= now {
                keys[i].state = .retired(since: until)
                changed = true
            }
        }
        if changed { forgetOldRetired() }
        return changed
    }

    /// When the next grace period ends, if one is running.
    public var nextTransition: Int64? {
        keys.compactMap { if case .grace(let until) = $0.state { return until } else { return nil } }.min()
    }

    /// The ring mint and the endpoints use: published keys (active first), plus the retired ones.
    public func ring() throws -> KeyRing { try KeyRing(keys: published, retired: retired) }
}
