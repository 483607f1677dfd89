import Testing
@testable import UnderstudyWebFlows

@Suite struct PKCETests {
    /// RFC 7636 Appendix B.
    @Test func theRFCExampleVerifies() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(for: verifier, method: .s256) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", method: .s256))
        #expect(!PKCE.verify(verifier + "x", challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", method: .s256))
        #expect(PKCE.verify(verifier, challenge: verifier, method: .plain))
    }

    @Test func malformedVerifiersAreRefused() {
        #expect(!PKCE.isWellFormed("short"))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 129)))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 42) + "/"))
        #expect(PKCE.isWellFormed(String(repeating: "a", count: 43)))
    }

    /// OpenID Connect Core A.3's example access token and at_hash.
    @Test func atHashMatchesTheOpenIDExample() {
        #expect(TokenHash.of("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y") == "77QmUPtjPfzWtF2AnpK9RQ")
    }
}
