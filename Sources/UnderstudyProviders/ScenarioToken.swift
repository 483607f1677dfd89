import UnderstudyJSON

/// A scenario's token with what the verifier under test needs besides it.
public struct ScenarioToken: Sendable {
    public var token: MintedToken
    public var scenario: Scenario
    /// The raw nonce the client would give the verifier, and the nonce it sent the provider (its hex SHA-256).
    public var rawNonce: String?
    public var nonce: String?

    public var idToken: String { token.idToken }

    /// The token as the mint API answers it: idToken, header, claims, then the scenario and the nonces.
    public var minted: MintedToken {
        var m = token
        var o = JSONObject()
        o["scenario"] = ["name": .string(scenario.name), "expected": .string(scenario.expected.rawValue), "reason": .string(scenario.reason)]
        if let rawNonce { o["rawNonce"] = .string(rawNonce) }
        if let nonce { o["nonce"] = .string(nonce) }
        m.extras = o
        return m
    }
}
