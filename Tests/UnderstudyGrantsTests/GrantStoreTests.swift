import Testing
import UnderstudyStore
@testable import UnderstudyGrants

@Suite struct GrantStoreTests {
    func record(_ code: String, subject: String = "sub-1", provider: String = "google", now: Int64 = 1000) -> AuthorizationRecord {
        AuthorizationRecord(provider: provider, clientID: "client", subject: subject, code: code,
                            redirectURI: "https://app.example.com/cb", scope: "openid email", identity: "{}", now: now)
    }

    @Test func aCodeIsRedeemedOnceAndASecondRedemptionRevokesItsTokens() throws {
        let store = try GrantStore(location: .temporary)
        defer { store.close() }
        _ = try store.authorize(record("c1"))
        guard case .valid(let code) = try store.redeem(code: "c1", provider: "google", now: 1010) else {
            Issue.record("the first redemption should be valid"); return
        }
        #expect(code.clientID == "client" && code.scope == "openid email")
        try store.insert([IssuedToken(token: "at", kind: .access, grantID: "c1", provider: "google", clientID: "client",
                                      subject: "sub-1", scope: "openid", identity: "{}", createdAt: 1010, expiresAt: 4610)])
        #expect(try store.liveToken("at", now: 1020) != nil)
        guard case .alreadyUsed = try store.redeem(code: "c1", provider: "google", now: 1030) else {
            Issue.record("a second redemption must be refused"); return
        }
        #expect(try store.liveToken("at", now: 1040) == nil)
        guard case .unknown = try store.redeem(code: "c1", provider: "apple", now: 1030) else {
            Issue.record("a code of the other provider is unknown"); return
        }
    }

    @Test func aCodeExpiresAfterItsLifetime() throws {
        let store = try GrantStore(location: .temporary)
        defer { store.close() }
        _ = try store.authorize(record("c2"))
        guard case .expired = try store.redeem(code: "c2", provider: "google", now: 1300) else {
            Issue.record("a code 300 s old has expired"); return
        }
    }

    @Test func refreshTokensFollowGooglesRules() throws {
        let store = try GrantStore(location: .temporary)
        defer { store.close() }
        var online = record("a")
        #expect(try store.authorize(online).issuesRefresh == false)
        var offline = record("b")
        offline.offline = true
        #expect(try store.authorize(offline).issuesRefresh == true)
        offline.code = "c"
        #expect(try store.authorize(offline).issuesRefresh == false)   // again only with prompt=consent
        offline.code = "d"
        offline.forceConsent = true
        #expect(try store.authorize(offline).issuesRefresh == true)
        online.code = "e"
        online.subject = "sub-2"
        online.offline = true
        #expect(try store.authorize(online).issuesRefresh == true)      // another identity's first consent
    }

    @Test func applesUserGoesWithTheFirstConsentOnly() throws {
        let store = try GrantStore(location: .temporary)
        defer { store.close() }
        var r = record("x", provider: "apple")
        r.wantsAppleUser = true
        #expect(try store.authorize(r).sendsAppleUser == true)
        r.code = "y"
        #expect(try store.authorize(r).sendsAppleUser == false)
        r.code = "z"
        r.subject = "sub-other"
        #expect(try store.authorize(r).sendsAppleUser == true)
    }

    @Test func includeGrantedScopesUnitesWithEarlierConsents() throws {
        let store = try GrantStore(location: .temporary)
        defer { store.close() }
        _ = try store.authorize(record("p"))
        var more = record("q")
        more.scope = "openid profile"
        more.includeGrantedScopes = true
        #expect(try store.authorize(more).scope == "openid email profile")
    }

    @Test func revokingOneTokenRevokesItsGrant() throws {
        let store = try GrantStore(location: .temporary)
        defer { store.close() }
        try store.insert([
            IssuedToken(token: "r1", kind: .refresh, grantID: "g", provider: "google", clientID: "c", subject: "s", scope: "", identity: "{}", createdAt: 1, expiresAt: nil),
            IssuedToken(token: "a1", kind: .access, grantID: "g", provider: "google", clientID: "c", subject: "s", scope: "", identity: "{}", createdAt: 1, expiresAt: 9999),
        ])
        #expect(try store.revoke(token: "r1", provider: "google", now: 5) == true)
        #expect(try store.liveToken("a1", now: 6) == nil)
        #expect(try store.revoke(token: "r1", provider: "google", now: 7) == false)
        #expect(try store.revoke(token: "nope", provider: "google", now: 7) == false)
    }

    @Test func grantsSurviveReopeningTheFile() throws {
        let folder = "/tmp/understudy-grants-\(UInt64.random(in: 0...UInt64.max))"
        #expect(mkdirOK(folder))
        let path = folder + "/grants.sqlite"
        do {
            let store = try GrantStore(location: .file(path))
            var r = record("persist")
            r.recentEmail = "alice@example.com"
            r.recentGivenName = "Alice"
            _ = try store.authorize(r)
            store.close()
        }
        let again = try GrantStore(location: .file(path))
        defer { again.close() }
        #expect(try again.recentIdentities().map(\.email) == ["alice@example.com"])
        #expect(try again.consent(provider: "google", clientID: "client", subject: "sub-1") != nil)
        guard case .valid = try again.redeem(code: "persist", provider: "google", now: 1001) else {
            Issue.record("the code should survive a restart"); return
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
func mkdirOK(_ path: String) -> Bool { mkdir(path, 0o700) == 0 }

@Suite struct GrantStoreLimitTests {
    @Test func theTokenTableIsBounded() throws {
        let store = try GrantStore(location: .temporary)
        defer { store.close() }
        for n in 0..<12 {
            try store.insert([IssuedToken(token: "t\(n)", kind: .refresh, grantID: "g\(n)", provider: "apple", clientID: "c",
                                          subject: "s", scope: "", identity: "{}", createdAt: Int64(n), expiresAt: nil)], limit: 5)
        }
        #expect(try store.liveToken("t11", now: 20) != nil)
        #expect(try store.liveToken("t6", now: 20) == nil)
        #expect(try store.pool.read { try $0.fetchScalar(Int.self, "SELECT count(*) FROM tokens") } == 5)
    }
}
