import UnderstudyJOSE

/// Derives stable subjects from the configured seed: the same email gives the same `sub` on every
/// machine and across restarts, in each provider's shape, without storing anything.
public struct IdentityDeriver: Sendable {
    public let seed: String

    public init(seed: String) { self.seed = seed }

    private func mac(_ label: String) -> [UInt8] {
        HMACSHA256.authenticationCode(for: Array(label.utf8), key: Array(seed.utf8))
    }

    /// Apple's shape: `<6 digits>.<32 hex>.<4 digits>`, e.g. `000544.5e201aec537347aeb79d23cbc345170a.1321`.
    /// The outer digits are fixed per team, as Apple's are.
    public func appleSubject(email: String, teamID: String) -> String {
        let team = mac("apple-team\u{0}\(teamID)")
        let head = Self.number(team.prefix(8)) % 1_000_000
        let tail = Self.number(team.suffix(8)) % 10_000
        let user = mac("apple-user\u{0}\(teamID)\u{0}\(email.lowercased())")
        return Self.padded(head, 6) + "." + Hex.encode(user.prefix(16)) + "." + Self.padded(tail, 4)
    }

    /// Google's shape: 21 decimal digits starting with 1.
    public func googleSubject(email: String) -> String {
        let m = mac("google-user\u{0}\(email.lowercased())")
        let a = Self.number(m.prefix(8)) % 10_000_000_000
        let b = Self.number(m.dropFirst(8).prefix(8)) % 10_000_000_000
        return "1" + Self.padded(a, 10) + Self.padded(b, 10)
    }

    static func number(_ bytes: some Collection<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func padded(_ n: UInt64, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
