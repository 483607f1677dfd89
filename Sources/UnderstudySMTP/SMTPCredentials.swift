/// The one username and password an SMTP session accepts for `AUTH PLAIN` and `AUTH LOGIN`.
///
/// Printing a value never shows the password.
public struct SMTPCredentials: Sendable, Hashable, CustomStringConvertible {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    public var description: String { "SMTPCredentials(username: \(username), password: <redacted>)" }

    /// Compares in time that depends only on the lengths, so a wrong password does not leak how much of it matched.
    func matches(username: [UInt8], password: [UInt8]) -> Bool {
        let usernameMatches = Self.constantTimeEqual(Array(self.username.utf8), username)
        let passwordMatches = Self.constantTimeEqual(Array(self.password.utf8), password)
        return usernameMatches && passwordMatches
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
