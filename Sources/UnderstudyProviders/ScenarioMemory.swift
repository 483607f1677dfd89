import Synchronization
import UnderstudyJOSE

/// What scenario minting remembers between tokens: each provider's last jti (for `replayed-jti`) and,
/// until a rotation retires a real one, a stand-in retired key made on first use.
public final class ScenarioMemory: Sendable {
    private struct State {
        var lastJTI: [ProviderName: String] = [:]
        var standInRetired: [ProviderName: ProviderKey] = [:]
    }
    private let state = Mutex(State())

    public init() {}

    public func lastJTI(_ provider: ProviderName) -> String? { state.withLock { $0.lastJTI[provider] } }

    public func remember(jti: String, for provider: ProviderName) { state.withLock { $0.lastJTI[provider] = jti } }

    /// A key that was never published, standing in for a retired one. RSA generation: call off the loops.
    public func standInRetiredKey(_ provider: ProviderName) throws(MintError) -> ProviderKey {
        if let key = state.withLock({ $0.standInRetired[provider] }) { return key }
        let key: ProviderKey
        do {
            key = ProviderKey(kid: ScenarioMinter.keyID(for: provider), privateKey: try JWS.RS256.PrivateKey(bits: 2048))
        } catch {
            throw .signingFailed("cannot generate a stand-in retired key: \(error)")
        }
        return state.withLock { s in
            if let existing = s.standInRetired[provider] { return existing }
            s.standInRetired[provider] = key
            return key
        }
    }

    public func standInRetiredKeys() -> [ProviderName: ProviderKey] { state.withLock { $0.standInRetired } }
}
