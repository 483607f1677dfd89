import UnderstudyJSON

/// A misbehaviour of a provider endpoint, switched on at run time (`POST /api/faults`) or in the
/// configuration (`faults`): what it hits, what it does, and for how long.
public struct Fault: Sendable, Hashable {
    /// Which endpoints misbehave.
    public enum Target: String, Sendable, CaseIterable {
        /// `/apple/auth/keys`, `/google/oauth2/v3/certs`, `/google/oauth2/v1/certs`.
        case keys
        /// Both `/.well-known/openid-configuration` documents.
        case discovery
        /// `/apple/auth/token`, `/google/token`.
        case token
    }

    /// What the endpoint does instead of answering normally.
    public enum Kind: Sendable, Hashable {
        case serverError
        case unavailable(retryAfter: Int64)
        /// Answers normally, but only after this many seconds (a timer; the loop keeps serving).
        case hang(seconds: Int64)
        /// `{"keys": []}` (v1: `{}`).
        case emptyKeySet
        /// The key set without the key that signs.
        case dropKey
        /// A JSON body cut short.
        case malformedJSON

        public var name: String {
            switch self {
            case .serverError: return "500"
            case .unavailable: return "503"
            case .hang: return "hang"
            case .emptyKeySet: return "empty-keys"
            case .dropKey: return "drop-key"
            case .malformedJSON: return "malformed-json"
            }
        }

        public static let names = ["500", "503", "hang", "empty-keys", "drop-key", "malformed-json"]
    }

    public var id: Int = 0
    public var target: Target
    /// nil: both providers.
    public var provider: ProviderName?
    public var kind: Kind
    /// Applies to this many more requests; nil: any number.
    public var remaining: Int64?
    /// Applies until this Unix time; nil: until cleared.
    public var until: Int64?

    public init(target: Target, provider: ProviderName? = nil, kind: Kind, remaining: Int64? = nil, until: Int64? = nil) {
        self.target = target
        self.provider = provider
        self.kind = kind
        self.remaining = remaining
        self.until = until
    }

    /// The longest hang: a client's timeout is what is being tested, not the server's patience.
    public static let maximumHang: Int64 = 300

    /// Reads `{"target": "keys", "fault": "503", "provider"?: "apple", "retryAfter"?: 30, "seconds"?: 5,
    /// "count"?: 3, "duration"?: 60}`, naming the field in every error. `duration` counts from `now`.
    public init(json: JSONValue, now: Int64) throws(FaultError) {
        guard let o = json.objectValue else {
            throw .invalid("body", "must be a JSON object like {\"target\": \"keys\", \"fault\": \"503\", \"count\": 2}")
        }
        let known = ["target", "fault", "provider", "retryAfter", "seconds", "count", "duration"]
        for key in o.keys where !known.contains(key) {
            throw .invalid(key, "is not a known field; known fields: \(known.joined(separator: ", "))")
        }
        guard let t = o["target"]?.stringValue, let target = Target(rawValue: t) else {
            throw .invalid("target", "must be one of \(Target.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var provider: ProviderName?
        if let p = o["provider"], !p.isNull {
            guard let name = p.stringValue.flatMap(ProviderName.init(rawValue:)) else { throw .invalid("provider", "must be apple or google (or absent for both)") }
            provider = name
        }
        func number(_ key: String, _ range: ClosedRange<Int64>) throws(FaultError) -> Int64? {
            guard let v = o[key], !v.isNull else { return nil }
            guard let n = v.intValue, range.contains(n) else {
                throw .invalid(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
        let kind: Kind
        switch o["fault"]?.stringValue {
        case "500": kind = .serverError
        case "503": kind = .unavailable(retryAfter: try number("retryAfter", 0...86_400) ?? 30)
        case "hang":
            guard let s = try number("seconds", 1...Self.maximumHang) else { throw .invalid("seconds", "is required for hang: how long to wait before answering, 1 to \(Self.maximumHang)") }
            kind = .hang(seconds: s)
        case "empty-keys": kind = .emptyKeySet
        case "drop-key": kind = .dropKey
        case "malformed-json": kind = .malformedJSON
        default: throw .invalid("fault", "must be one of \(Kind.names.joined(separator: ", "))")
        }
        if (kind == .emptyKeySet || kind == .dropKey) && target != .keys {
            throw .invalid("fault", "\(kind.name) applies to the keys target only")
        }
        self.init(target: target, provider: provider, kind: kind, remaining: try number("count", 1...1_000_000),
                  until: try number("duration", 1...31_622_400).map { now + $0 })
    }

    public var json: JSONValue {
        var o: JSONObject = ["id": .integer(Int64(id)), "target": .string(target.rawValue), "fault": .string(kind.name)]
        o["provider"] = provider.map { .string($0.rawValue) } ?? .null
        switch kind {
        case .unavailable(let r): o["retryAfter"] = .integer(r)
        case .hang(let s): o["seconds"] = .integer(s)
        default: break
        }
        if let remaining { o["remaining"] = .integer(remaining) }
        if let until { o["until"] = .integer(until) }
        return .object(o)
    }
}
