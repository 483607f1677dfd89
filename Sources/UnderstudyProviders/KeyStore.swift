import Synchronization
import UnderstudyJOSE

/// Both providers' keys through rotations, shared by the endpoints, minting and the key API. Reads
/// take the current snapshot; a rotation or an ended grace period builds the next one, and the
/// `onChange` hook persists the sets (`--data`).
public final class KeyStore: Sendable {
    /// Called with both sets after a rotation or an ended grace period.
    public typealias ChangeHandler = @Sendable (_ apple: ProviderKeySet, _ google: ProviderKeySet) -> Void

    private struct State {
        var apple: ProviderKeySet
        var google: ProviderKeySet
        var snapshot: KeySnapshot
        /// v1 certificates by kid, made once per key.
        var certificates: [String: String]
    }

    public let settings: ProviderSettings
    private let state: Mutex<State>
    private let onChange: ChangeHandler

    public init(settings: ProviderSettings, apple: ProviderKeySet, google: ProviderKeySet, now: Int64,
                onChange: @escaping ChangeHandler = { _, _ in }) throws {
        self.settings = settings
        self.onChange = onChange
        var apple = apple, google = google
        apple.settle(now: now)
        google.settle(now: now)
        var certificates: [String: String] = [:]
        for key in google.published { certificates[key.kid] = try GoogleProvider.certificate(for: key, now: now) }
        let snapshot = try Self.snapshot(settings: settings, apple: apple, google: google, certificates: certificates)
        state = Mutex(State(apple: apple, google: google, snapshot: snapshot, certificates: certificates))
    }

    static func snapshot(settings: ProviderSettings, apple: ProviderKeySet, google: ProviderKeySet,
                         certificates: [String: String]) throws -> KeySnapshot {
        let googleRing = try google.ring()
        let certs = googleRing.keys.compactMap { key in certificates[key.kid].map { (kid: key.kid, pem: $0) } }
        let until = [apple.nextTransition, google.nextTransition].compactMap { $0 }.min()
        return KeySnapshot(apple: AppleProvider(settings: settings, keys: try apple.ring()),
                           google: GoogleProvider(settings: settings, keys: googleRing, certificates: certs), validUntil: until)
    }

    /// The providers over the keys published at `now` (retiring keys whose grace has ended first).
    public func snapshot(now: Int64) -> KeySnapshot {
        let (snapshot, changed) = state.withLock { s -> (KeySnapshot, (ProviderKeySet, ProviderKeySet)?) in
            guard let until = s.snapshot.validUntil, until <= now else { return (s.snapshot, nil) }
            let a = s.apple.settle(now: now)
            let g = s.google.settle(now: now)
            let changed = a || g ? (s.apple, s.google) : nil
            // Only keys leave here, so every certificate needed already exists.
            if let next = try? Self.snapshot(settings: settings, apple: s.apple, google: s.google, certificates: s.certificates) {
                s.snapshot = next
            }
            return (s.snapshot, changed)
        }
        if let (apple, google) = changed { onChange(apple, google) }
        return snapshot
    }

    public func keySet(_ provider: ProviderName, now: Int64) -> ProviderKeySet {
        _ = snapshot(now: now)
        return state.withLock { provider == .apple ? $0.apple : $0.google }
    }

    /// Makes a new active key for `provider`; the previous one stays published for `grace` seconds
    /// (the configured `rotationGrace` by default). Generates an RSA key: call it off the loops.
    @discardableResult
    public func rotate(_ provider: ProviderName, now: Int64, grace: Int64? = nil) throws -> (new: ProviderKey, previous: ProviderKey) {
        guard keySet(provider, now: now).canRotate else { throw RotationError.tooManyKeys(provider) }
        let key = ProviderKey(kid: ScenarioMinter.keyID(for: provider), privateKey: try JWS.RS256.PrivateKey(bits: 2048))
        let certificate = provider == .google ? try GoogleProvider.certificate(for: key, now: now) : nil
        let grace = grace ?? settings.rotationGrace
        let (previous, apple, google) = try state.withLock { s throws -> (ProviderKey, ProviderKeySet, ProviderKeySet) in
            var apple = s.apple, google = s.google
            let previous = provider == .apple ? apple.active : google.active
            if provider == .apple { apple.rotate(to: key, now: now, grace: grace) } else { google.rotate(to: key, now: now, grace: grace) }
            apple.settle(now: now)
            google.settle(now: now)
            var certificates = s.certificates
            if let certificate { certificates[key.kid] = certificate }
            s.snapshot = try Self.snapshot(settings: settings, apple: apple, google: google, certificates: certificates)
            s.apple = apple
            s.google = google
            s.certificates = certificates
            return (previous, apple, google)
        }
        onChange(apple, google)
        return (key, previous)
    }
}
