import UnderstudyStore

/// An access or refresh token as stored. Tokens from one code share its `grantID`, so revoking
/// one revokes them all.
public struct IssuedToken: Sendable, RowDecodable {
    public enum Kind: String, Sendable { case access, refresh }
    public var token: String
    public var kind: Kind
    public var grantID: String
    public var provider: String
    public var clientID: String
    public var subject: String
    public var scope: String
    public var identity: String
    public var createdAt: Int64
    /// Nil for refresh tokens, which live until revoked.
    public var expiresAt: Int64?
    public var revokedAt: Int64?

    public init(token: String, kind: Kind, grantID: String, provider: String, clientID: String, subject: String,
                scope: String, identity: String, createdAt: Int64, expiresAt: Int64?) {
        self.token = token; self.kind = kind; self.grantID = grantID; self.provider = provider; self.clientID = clientID
        self.subject = subject; self.scope = scope; self.identity = identity; self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    static let select = """
        SELECT token, kind, grant_id, provider, client_id, subject, scope, identity, created_at, expires_at, revoked_at FROM tokens
        """

    public init(row: Row) throws {
        token = try row.value(at: 0)
        kind = Kind(rawValue: try row.value(at: 1)) ?? .access
        grantID = try row.value(at: 2)
        provider = try row.value(at: 3)
        clientID = try row.value(at: 4)
        subject = try row.value(at: 5)
        scope = try row.value(at: 6)
        identity = try row.value(at: 7)
        createdAt = try row.value(at: 8)
        expiresAt = try row.value(at: 9)
        revokedAt = try row.value(at: 10)
    }
}
