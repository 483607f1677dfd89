/// What a verifier should do with a scenario's token.
public enum ScenarioVerdict: String, Sendable, CaseIterable {
    /// A correct verifier accepts it.
    case accept
    /// A correct verifier rejects it.
    case reject
    /// Verifiers differ (leeway, nonce handling, replay memory...): a profile says which way a known library goes.
    case depends
}
