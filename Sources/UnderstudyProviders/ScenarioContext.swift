/// What a scenario's edits draw on besides the provider: the nonce, the previous jti, a retired key.
public struct ScenarioContext: Sendable {
    /// The raw nonce the client holds; the token's nonce claim is its hex SHA-256 unless a scenario says otherwise.
    public var rawNonce: String
    /// The jti this token gets.
    public var jti: String
    /// The jti of the previous scenario token (for `replayed-jti`); nil uses `jti`.
    public var previousJTI: String?
    /// A key that is no longer published (for `signed-with-retired-key`).
    public var retiredKey: ProviderKey?

    public init(rawNonce: String, jti: String, previousJTI: String? = nil, retiredKey: ProviderKey? = nil) {
        self.rawNonce = rawNonce
        self.jti = jti
        self.previousJTI = previousJTI
        self.retiredKey = retiredKey
    }

    /// A fresh random nonce and jti.
    public static func fresh(previousJTI: String? = nil, retiredKey: ProviderKey? = nil) -> ScenarioContext {
        ScenarioContext(rawNonce: ScenarioMinter.randomHex(16), jti: ScenarioMinter.randomHex(20),
                        previousJTI: previousJTI, retiredKey: retiredKey)
    }
}
