import Synchronization

/// The faults in force. Each request to a provider endpoint asks `take`, which counts the request
/// against the first matching fault and drops faults that are used up or past their time.
public final class FaultBoard: Sendable {
    private struct State {
        var faults: [Fault] = []
        var nextID = 1
    }
    private let state = Mutex(State())
    /// Lets requests skip the lock while no fault is set (the usual case).
    private let count = Atomic<Int>(0)

    public init(_ faults: [Fault] = []) {
        for f in faults { add(f) }
    }

    /// At most this many faults at once.
    public static let limit = 64

    /// Adds a fault; nil when `limit` are already in force.
    @discardableResult
    public func add(_ fault: Fault) -> Fault? {
        state.withLock { s in
            guard s.faults.count < Self.limit else { return nil }
            var f = fault
            f.id = s.nextID
            s.nextID += 1
            s.faults.append(f)
            count.store(s.faults.count, ordering: .relaxed)
            return f
        }
    }

    public func clear() {
        state.withLock { s in
            s.faults.removeAll()
            count.store(0, ordering: .relaxed)
        }
    }

    public func list(now: Int64) -> [Fault] {
        state.withLock { s in
            prune(&s, now: now)
            return s.faults
        }
    }

    /// The fault this request meets, if any (counted against its `remaining`).
    public func take(_ target: Fault.Target, provider: ProviderName, now: Int64) -> Fault? {
        guard count.load(ordering: .relaxed) > 0 else { return nil }
        return state.withLock { s in
            prune(&s, now: now)
            guard let i = s.faults.firstIndex(where: { $0.target == target && ($0.provider == nil || $0.provider == provider) }) else { return nil }
            let fault = s.faults[i]
            if let r = fault.remaining {
                if r <= 1 { s.faults.remove(at: i) } else { s.faults[i].remaining = r - 1 }
            }
            count.store(s.faults.count, ordering: .relaxed)
            return fault
        }
    }

    private func prune(_ s: inout State, now: Int64) {
        s.faults.removeAll { f in f.until.map { $0 <= now } ?? false }
        count.store(s.faults.count, ordering: .relaxed)
    }

    /// Which endpoint a path-routed path is, if any.
    public static func classify(path: String) -> (Fault.Target, ProviderName)? {
        switch path {
        case "/apple/auth/keys": return (.keys, .apple)
        case "/google/oauth2/v3/certs", "/google/oauth2/v1/certs": return (.keys, .google)
        case "/apple/.well-known/openid-configuration": return (.discovery, .apple)
        case "/google/.well-known/openid-configuration": return (.discovery, .google)
        case "/apple/auth/token": return (.token, .apple)
        case "/google/token": return (.token, .google)
        default: return nil
        }
    }
}
