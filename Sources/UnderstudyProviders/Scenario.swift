import UnderstudyJSON

/// A named token that is right, or wrong in exactly one way, with what a correct verifier must do
/// with it. The catalogue is `Scenario.all`; minting one applies its `edits` (see `ScenarioMinter`).
public struct Scenario: Sendable {
    public let name: String
    /// The providers whose tokens it applies to.
    public let providers: [ProviderName]
    public let description: String
    public let expected: ScenarioVerdict
    /// Why: what a verifier checks to reach `expected`, or, for `depends`, what it turns on.
    public let reason: String
    public let edits: [TokenEdit]

    init(_ name: String, _ expected: ScenarioVerdict, _ description: String, reason: String, edits: [TokenEdit]) {
        self.init(name, ProviderName.allCases, expected, description, reason: reason, edits: edits)
    }

    init(_ name: String, _ providers: [ProviderName], _ expected: ScenarioVerdict,
         _ description: String, reason: String, edits: [TokenEdit]) {
        self.name = name
        self.providers = providers
        self.description = description
        self.expected = expected
        self.reason = reason
        self.edits = edits
    }

    public func applies(to provider: ProviderName) -> Bool { providers.contains(provider) }

    /// The verdict to expect from a verifier: `expected`, or the profile's for a `depends` row
    /// (nil when the profile says nothing about it).
    public func verdict(for provider: ProviderName, profile: VerifierProfile?) -> ScenarioVerdict {
        guard expected == .depends, let profile, let v = profile.verdict(scenario: name, provider: provider) else { return expected }
        return v.verdict
    }

    public static func named(_ name: String) -> Scenario? { all.first { $0.name == name } }

    /// The catalogue as `GET /api/scenarios` lists it, optionally for one provider and with a
    /// profile's verdicts for the `depends` rows.
    public static func listing(provider: ProviderName?, profile: VerifierProfile?) -> JSONValue {
        let rows = all.filter { provider == nil || $0.applies(to: provider!) }.map { s -> JSONValue in
            var o: JSONObject = [
                "name": .string(s.name),
                "providers": .array(s.providers.map { .string($0.rawValue) }),
                "description": .string(s.description),
                "expected": .string(s.expected.rawValue),
                "reason": .string(s.reason),
            ]
            if s.expected == .depends {
                var profiles = JSONObject()
                for p in VerifierProfile.all {
                    var byProvider = JSONObject()
                    for provider in s.providers {
                        if let v = p.verdict(scenario: s.name, provider: provider) {
                            byProvider[provider.rawValue] = ["verdict": .string(v.verdict.rawValue), "reason": .string(v.reason)]
                        }
                    }
                    if !byProvider.isEmpty { profiles[p.name] = .object(byProvider) }
                }
                o["profiles"] = .object(profiles)
            }
            if let profile, let provider {
                let v = s.verdict(for: provider, profile: profile)
                o["verdict"] = .string(v.rawValue)
            }
            return .object(o)
        }
        return [
            "scenarios": .array(rows),
            "profiles": .array(VerifierProfile.all.map { ["name": .string($0.name), "description": .string($0.description)] }),
        ]
    }
}
