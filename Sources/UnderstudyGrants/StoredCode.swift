import UnderstudyStore

/// An authorization code as stored.
public struct StoredCode: Sendable, RowDecodable {
    public var code: String
    public var provider: String
    public var clientID: String
    public var subject: String
    public var redirectURI: String
    public var scope: String
    public var nonce: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var identity: String
    public var issuesRefresh: Bool
    public var createdAt: Int64
    public var expiresAt: Int64
    public var usedAt: Int64?

    static let select = """
        SELECT code, provider, client_id, subject, redirect_uri, scope, nonce, code_challenge, code_challenge_method,
          identity, issues_refresh, created_at, expires_at, used_at FROM codes
        """

    public init(row: Row) throws {
        code = try row.value(at: 0)
        provider = try row.value(at: 1)
        clientID = try row.value(at: 2)
        subject = try row.value(at: 3)
        redirectURI = try row.value(at: 4)
        scope = try row.value(at: 5)
        nonce = try row.value(at: 6)
        codeChallenge = try row.value(at: 7)
        codeChallengeMethod = try row.value(at: 8)
        identity = try row.value(at: 9)
        issuesRefresh = try row.value(at: 10)
        createdAt = try row.value(at: 11)
        expiresAt = try row.value(at: 12)
        usedAt = try row.value(at: 13)
    }
}
