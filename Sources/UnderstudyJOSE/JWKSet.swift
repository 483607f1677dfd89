import UnderstudyJSON

/// A JWK Set (RFC 7517 section 5): `{"keys":[...]}`.
public struct JWKSet: Sendable {
    /// Key sets larger than this are refused (real provider sets hold 2-3 keys).
    public static let maximumKeyCount = 100

    public var keys: [JWK]

    public init(keys: [JWK]) {
        self.keys = keys
    }

    /// Reads a JWK Set. Keys with a "kty" this module does not know are skipped, as RFC 7517
    /// section 5 asks; malformed keys of a known type are errors.
    public init(json: JSONValue) throws(JOSEError) {
        guard let object = json.objectValue else { throw .invalidJWK("a JWK Set must be a JSON object, got \(json.typeName)") }
        guard let keysValue = object["keys"] else { throw .invalidJWK("the JWK Set has no \"keys\" member") }
        guard let items = keysValue.arrayValue else { throw .invalidJWK("\"keys\" is \(keysValue.typeName), not an array") }
        guard items.count <= JWKSet.maximumKeyCount else {
            throw .invalidJWK("the JWK Set has \(items.count) keys, more than the limit of \(JWKSet.maximumKeyCount)")
        }
        var keys: [JWK] = []
        for item in items {
            guard let member = item.objectValue else { throw .invalidJWK("a member of \"keys\" is \(item.typeName), not an object") }
            if let kty = member["kty"]?.stringValue, !["RSA", "EC", "OKP", "oct"].contains(kty) { continue }
            keys.append(try JWK(json: member))
        }
        self.keys = keys
    }

    public var json: JSONValue { ["keys": .array(keys.map(\.json))] }

    /// The first key whose "kid" is `kid`.
    public func key(withID kid: String) -> JWK? {
        keys.first { $0.kid == kid }
    }
}
