import Testing
import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyProviders

@Suite struct TokenInspectorTests {
    static let routes = ProviderFixture().routes

    /// Scenarios whose tokens look exactly like another's: a replayed jti needs the previous token,
    /// and the nonce and boolean forms of a valid token are valid.
    static let lookValid: Set<String> = ["replayed-jti", "hashed-nonce-in-claim", "string-booleans", "bool-booleans"]

    static func pairs() -> [(String, ProviderName)] {
        Scenario.all.flatMap { s in s.providers.map { (s.name, $0) } }
    }

    @Test(arguments: pairs())
    func eachScenarioIsRecognised(_ name: String, _ provider: ProviderName) throws {
        let minted = try Self.routes.mintScenario(Scenario.named(name)!, provider: provider, request: MintRequest(),
                                                  context: ScenarioContext(rawNonce: "raw-1", jti: "j-1"))
        let inspector = Self.routes.inspector()
        if name.hasPrefix("malformed") {
            #expect { try inspector.inspect(minted.idToken, rawNonce: "raw-1", now: ProviderFixture.now) } throws: { error in
                (error as? InspectionError)?.scenario == name
            }
            return
        }
        let report = try inspector.inspect(minted.idToken, rawNonce: "raw-1", now: ProviderFixture.now)
        #expect(report["scenario"]?.stringValue == (Self.lookValid.contains(name) ? "valid" : name),
                "\(name): \(report["scenarios"]?.serialized() ?? "")")
        #expect(report["provider"]?.stringValue == provider.rawValue || name == "wrong-issuer")
    }

    @Test func theReportShowsTimesKeyAndNonce() throws {
        let minted = try Self.routes.mint(provider: "apple", MintRequest(json: ["rawNonce": "abc"]))
        let r = try Self.routes.inspector().inspect(minted.idToken, rawNonce: "abc", now: ProviderFixture.now)
        #expect(r["signature"]?["valid"] == true)
        #expect(r["key"]?["state"] == "active" && r["key"]?["provider"] == "apple")
        #expect(r["timeStatus"] == "valid" && r["nonce"]?["matches"] == "hashed")
        let exp = try #require(r["times"]?["exp"])
        #expect(exp["relative"]?.stringValue == "in 9 minutes" || exp["relative"]?.stringValue == "in 595 seconds")
        #expect(exp["iso8601"]?.stringValue == TokenInspector.iso8601(ProviderFixture.now - 5 + 600))
        #expect(TokenInspector.iso8601(1_800_000_000) == "2027-01-15T08:00:00Z")
        #expect(TokenInspector.relative(-5) == "5 seconds ago" && TokenInspector.relative(7200) == "in 2 hours")
    }

    @Test(arguments: [
        ("", "1 part"), ("hello", "1 part"), ("a.b", "2 parts"), ("!!!.e30.", "header part is not base64url"),
        ("e30.e30.e30.e30.e30", "encrypted JWE"), ("bm90IGpzb24.e30.", "header is not JSON"),
    ])
    func garbageIsRefusedSayingWhatIsWrong(_ text: String, _ says: String) {
        #expect { try Self.routes.inspector().inspect(text, rawNonce: nil, now: 0) } throws: { error in
            (error as? InspectionError)?.message.contains(says) == true
        }
    }
}
