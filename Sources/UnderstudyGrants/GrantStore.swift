import UnderstudyStore

/// The web sign-in flows' state in SQLite: authorization codes, access and refresh tokens,
/// consents (with whether a refresh token and Apple's `user` were already given to that client),
/// and the identities recently signed in with. Its own database file and schema, beside the mail
/// store's (`<data>-grants.sqlite` with `--data`, a temporary file otherwise).
///
/// Every method blocks on SQLite: call them from worker threads (`HTTPReply.blocking`), never
/// from a loop thread. Values such as the signed-in identity are opaque text to the store.
public final class GrantStore: Sendable {
    let pool: DatabasePool

    /// Codes and tokens past their expiry by more than this are deleted (seconds).
    static let retention: Int64 = 24 * 3600
    /// Recent identities kept for the sign-in page.
    public static let recentLimit = 20
    /// Tokens kept at most; past it the oldest are dropped (refresh tokens otherwise live until
    /// revoked, and a load test would grow the file without end).
    public static let tokenLimit = 100_000

    public init(location: DatabasePool.Location) throws {
        pool = try DatabasePool(location: location, migrator: Self.migrator)
    }

    /// The database file.
    public var path: String { pool.path }

    /// Closes the connections; a temporary store also deletes its file.
    public func close() { pool.close() }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("grants") { db in
            try db.execute("""
                CREATE TABLE codes (
                  code TEXT PRIMARY KEY,
                  provider TEXT NOT NULL,
                  client_id TEXT NOT NULL,
                  subject TEXT NOT NULL,
                  redirect_uri TEXT NOT NULL,
                  scope TEXT NOT NULL,
                  nonce TEXT,
                  code_challenge TEXT,
                  code_challenge_method TEXT,
                  identity TEXT NOT NULL,
                  issues_refresh INTEGER NOT NULL,
                  created_at INTEGER NOT NULL,
                  expires_at INTEGER NOT NULL,
                  used_at INTEGER
                ) WITHOUT ROWID;
                CREATE INDEX codes_by_expiry ON codes(expires_at);
                CREATE TABLE tokens (
                  token TEXT PRIMARY KEY,
                  kind TEXT NOT NULL,
                  grant_id TEXT NOT NULL,
                  provider TEXT NOT NULL,
                  client_id TEXT NOT NULL,
                  subject TEXT NOT NULL,
                  scope TEXT NOT NULL,
                  identity TEXT NOT NULL,
                  created_at INTEGER NOT NULL,
                  expires_at INTEGER,
                  revoked_at INTEGER
                ) WITHOUT ROWID;
                CREATE INDEX tokens_by_grant ON tokens(grant_id);
                CREATE INDEX tokens_by_age ON tokens(created_at);
                CREATE TABLE consents (
                  provider TEXT NOT NULL,
                  client_id TEXT NOT NULL,
                  subject TEXT NOT NULL,
                  scope TEXT NOT NULL,
                  refresh_issued INTEGER NOT NULL DEFAULT 0,
                  apple_user_sent INTEGER NOT NULL DEFAULT 0,
                  updated_at INTEGER NOT NULL,
                  PRIMARY KEY (provider, client_id, subject)
                ) WITHOUT ROWID;
                CREATE TABLE recent_identities (
                  email TEXT PRIMARY KEY,
                  given_name TEXT,
                  family_name TEXT,
                  used_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX recent_by_use ON recent_identities(used_at);
                """)
        }
        return migrator
    }

    // MARK: Authorization

    /// Records a completed authorization in one transaction: the consent (and whether this one
    /// gets a refresh token and Apple's `user`), the code, and the identity as recently used.
    public func authorize(_ request: AuthorizationRecord) throws -> AuthorizationOutcome {
        try pool.write { db in
            let previous = try db.fetchOne(Consent.self, Consent.select + " WHERE provider = ? AND client_id = ? AND subject = ?",
                                           arguments: [.text(request.provider), .text(request.clientID), .text(request.subject)])
            let issuesRefresh = request.offline && (previous?.refreshIssued != true || request.forceConsent)
            let sendsAppleUser = request.wantsAppleUser && previous?.appleUserSent != true
            var scope = request.scope
            if request.includeGrantedScopes, let old = previous?.scope {
                scope = Self.union(old, request.scope)
            }
            try db.execute("""
                INSERT INTO consents (provider, client_id, subject, scope, refresh_issued, apple_user_sent, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (provider, client_id, subject) DO UPDATE SET
                  scope = excluded.scope, refresh_issued = max(refresh_issued, excluded.refresh_issued),
                  apple_user_sent = max(apple_user_sent, excluded.apple_user_sent), updated_at = excluded.updated_at
                """, arguments: [.text(request.provider), .text(request.clientID), .text(request.subject),
                                 .text(Self.union(previous?.scope ?? "", scope)), .integer(issuesRefresh ? 1 : 0),
                                 .integer(sendsAppleUser ? 1 : 0), .integer(request.now)])
            try db.execute("DELETE FROM codes WHERE expires_at < ?", arguments: [.integer(request.now - Self.retention)])
            try db.execute("""
                INSERT INTO codes (code, provider, client_id, subject, redirect_uri, scope, nonce, code_challenge,
                  code_challenge_method, identity, issues_refresh, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [.text(request.code), .text(request.provider), .text(request.clientID), .text(request.subject),
                                 .text(request.redirectURI), .text(scope), DatabaseValue(request.nonce),
                                 DatabaseValue(request.codeChallenge), DatabaseValue(request.codeChallengeMethod),
                                 .text(request.identity), .integer(issuesRefresh ? 1 : 0), .integer(request.now),
                                 .integer(request.now + request.codeLifetime)])
            if let email = request.recentEmail {
                try db.execute("""
                    INSERT INTO recent_identities (email, given_name, family_name, used_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (email) DO UPDATE SET given_name = excluded.given_name,
                      family_name = excluded.family_name, used_at = excluded.used_at
                    """, arguments: [.text(email), DatabaseValue(request.recentGivenName),
                                     DatabaseValue(request.recentFamilyName), .integer(request.now)])
                try db.execute("""
                    DELETE FROM recent_identities WHERE email NOT IN
                      (SELECT email FROM recent_identities ORDER BY used_at DESC, email LIMIT ?)
                    """, arguments: [.integer(Int64(Self.recentLimit))])
            }
            return AuthorizationOutcome(scope: scope, issuesRefresh: issuesRefresh, sendsAppleUser: sendsAppleUser)
        }
    }

    /// The consent an identity gave a client, if any.
    public func consent(provider: String, clientID: String, subject: String) throws -> Consent? {
        try pool.read { db in
            try db.fetchOne(Consent.self, Consent.select + " WHERE provider = ? AND client_id = ? AND subject = ?",
                            arguments: [.text(provider), .text(clientID), .text(subject)])
        }
    }

    /// Redeems a code: valid once, before it expires. A second redemption revokes every token the
    /// first one issued (RFC 6749 section 4.1.2), and answers `.alreadyUsed`.
    public func redeem(code: String, provider: String, now: Int64) throws -> CodeRedemption {
        try pool.write { db in
            guard let stored = try db.fetchOne(StoredCode.self, StoredCode.select + " WHERE code = ? AND provider = ?",
                                               arguments: [.text(code), .text(provider)]) else { return .unknown }
            if stored.usedAt != nil {
                try db.execute("UPDATE tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
                               arguments: [.integer(now), .text(code)])
                return .alreadyUsed
            }
            try db.execute("UPDATE codes SET used_at = ? WHERE code = ?", arguments: [.integer(now), .text(code)])
            if stored.expiresAt <= now { return .expired }
            return .valid(stored)
        }
    }

    // MARK: Tokens

    /// Stores issued tokens.
    public func insert(_ tokens: [IssuedToken]) throws {
        try insert(tokens, limit: Self.tokenLimit)
    }

    /// `insert` with another bound on the table (tests), checked on every call then.
    func insert(_ tokens: [IssuedToken], limit: Int) throws {
        try pool.write { db in
            if let now = tokens.first?.createdAt {
                try db.execute("DELETE FROM tokens WHERE expires_at < ? OR revoked_at < ?",
                               arguments: [.integer(now - Self.retention), .integer(now - Self.retention)])
            }
            for token in tokens {
                try db.execute("""
                    INSERT INTO tokens (token, kind, grant_id, provider, client_id, subject, scope, identity, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [.text(token.token), .text(token.kind.rawValue), .text(token.grantID), .text(token.provider),
                                     .text(token.clientID), .text(token.subject), .text(token.scope), .text(token.identity),
                                     .integer(token.createdAt), DatabaseValue(token.expiresAt)])
            }
            // Counting on every insert would cost a scan; one insert in 256 checks the bound.
            if UInt8.random(in: 0...255) == 0 || limit != Self.tokenLimit {
                let count = try db.fetchScalar(Int.self, "SELECT count(*) FROM tokens") ?? 0
                if count > limit {
                    try db.execute("DELETE FROM tokens WHERE token IN (SELECT token FROM tokens ORDER BY created_at LIMIT ?)",
                                   arguments: [.integer(Int64(count - limit))])
                }
            }
        }
    }

    /// A token that is live: known, not revoked, not expired.
    public func liveToken(_ value: String, now: Int64) throws -> IssuedToken? {
        try pool.read { db in
            guard let token = try db.fetchOne(IssuedToken.self, IssuedToken.select + " WHERE token = ?",
                                              arguments: [.text(value)]) else { return nil }
            guard token.revokedAt == nil, token.expiresAt.map({ $0 > now }) ?? true else { return nil }
            return token
        }
    }

    /// Revokes a token and every token of its grant (revoking either Google token revokes both).
    /// False when the token is unknown or already revoked.
    public func revoke(token value: String, provider: String, now: Int64) throws -> Bool {
        try pool.write { db in
            guard let token = try db.fetchOne(IssuedToken.self, IssuedToken.select + " WHERE token = ? AND provider = ?",
                                              arguments: [.text(value), .text(provider)]), token.revokedAt == nil
            else { return false }
            try db.execute("UPDATE tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
                           arguments: [.integer(now), .text(token.grantID)])
            return true
        }
    }

    // MARK: Recent identities

    /// The identities most recently signed in with, newest first.
    public func recentIdentities(limit: Int = GrantStore.recentLimit) throws -> [RecentIdentity] {
        try pool.read { db in
            try db.fetchAll(RecentIdentity.self,
                            "SELECT email, given_name, family_name, used_at FROM recent_identities ORDER BY used_at DESC, email LIMIT ?",
                            arguments: [.integer(Int64(limit))])
        }
    }

    /// Space-separated scopes of `a` then those of `b` not already in `a`.
    static func union(_ a: String, _ b: String) -> String {
        var seen: [Substring] = []
        for word in (a.split(separator: " ") + b.split(separator: " ")) where !seen.contains(word) { seen.append(word) }
        return seen.joined(separator: " ")
    }
}
