/// A known verifier library and the verdict it gives on the scenarios that `depend`, from its
/// documented rules and source (see the README's section for testers).
public struct VerifierProfile: Sendable {
    public struct Verdict: Sendable {
        public let verdict: ScenarioVerdict
        public let reason: String
    }

    public let name: String
    public let description: String
    /// By scenario name, or `name/provider` where the library treats the providers differently.
    let verdicts: [String: Verdict]

    init(_ name: String, _ description: String, _ verdicts: [String: (ScenarioVerdict, String)]) {
        self.name = name
        self.description = description
        self.verdicts = verdicts.mapValues { Verdict(verdict: $0.0, reason: $0.1) }
    }

    public func verdict(scenario: String, provider: ProviderName) -> Verdict? {
        verdicts[scenario + "/" + provider.rawValue] ?? verdicts[scenario]
    }

    public static func named(_ name: String) -> VerifierProfile? { all.first { $0.name == name } }
    public static var names: [String] { all.map(\.name) }
}
