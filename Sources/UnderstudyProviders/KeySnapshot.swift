import UnderstudyHTTP

/// The providers over the keys published right now, with the key documents serialized once.
/// A rotation or an ended grace period replaces the whole snapshot.
public struct KeySnapshot: Sendable {
    public let apple: AppleProvider
    public let google: GoogleProvider
    /// Apple's JWKS in every order of its keys (or one when shuffling is off).
    let appleKeyOrders: [HTTPResponse]
    let googleJWKS: [UInt8]
    let googleCerts: [UInt8]
    /// When the snapshot goes stale (a grace period ends).
    let validUntil: Int64?

    init(apple: AppleProvider, google: GoogleProvider, validUntil: Int64?) {
        self.apple = apple
        self.google = google
        self.validUntil = validUntil
        let indices = Array(apple.keyRing.jwks.indices)
        let orders = apple.settings.shuffleKeys ? ProviderRoutes.permutations(indices) : [indices]
        appleKeyOrders = orders.map { .json(apple.jwksDocument(order: $0)) }
        googleJWKS = google.jwksDocument().serializedBytes()
        googleCerts = google.certificatesDocument().serializedBytes()
    }
}
