import UnderstudyJSON

/// A JSON Web Key (RFC 7517): all members kept in order, so keys are served exactly as built
/// (Apple's order is kty, kid, use, alg, n, e).
public struct JWK: Sendable, Hashable {
    public var members: JSONObject

    public var kty: String? {
        get { members["kty"]?.stringValue }
        set { members["kty"] = newValue.map { .string($0) } }
    }
    public var kid: String? {
        get { members["kid"]?.stringValue }
        set { members["kid"] = newValue.map { .string($0) } }
    }
    public var use: String? {
        get { members["use"]?.stringValue }
        set { members["use"] = newValue.map { .string($0) } }
    }
    public var alg: String? {
        get { members["alg"]?.stringValue }
        set { members["alg"] = newValue.map { .string($0) } }
    }

    /// Members that hold private or secret key material (RFC 7518 section 6).
    static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Validates "kty" and the members it requires (RFC 7518 section 6), and the types of the
    /// common members (kid, use, alg strings; key_ops and x5c arrays of strings).
    public init(json: JSONObject) throws(JOSEError) {
        guard let kty = json["kty"] else { throw .invalidJWK("no \"kty\" member") }
        guard case .string(let type) = kty else { throw .invalidJWK("\"kty\" is \(kty.typeName), not a string") }
        for name in ["kid", "use", "alg", "x5u", "x5t", "x5t#S256"] {
            if let value = json[name], value.stringValue == nil {
                throw .invalidJWK("\"\(name)\" is \(value.typeName), not a string")
            }
        }
        for name in ["key_ops", "x5c"] {
            if let value = json[name] {
                guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                    throw .invalidJWK("\"\(name)\" must be an array of strings")
                }
            }
        }
        let required: [String]
        switch type {
        case "RSA": required = ["n", "e"]
        case "EC": required = ["crv", "x", "y"]
        case "OKP": required = ["crv", "x"]
        case "oct": required = ["k"]
        default: throw .invalidJWK("\"kty\":\"\(type.prefix(16))\" is not a known key type (RSA, EC, OKP, oct)")
        }
        for name in required {
            guard let value = json[name]?.stringValue else {
                throw .invalidJWK("a \(type) key needs a string \"\(name)\" member")
            }
            if name != "crv", Base64URL.decodeUnpadded(value.utf8) == nil {
                throw .invalidJWK("\"\(name)\" is not base64url without padding")
            }
        }
        for name in JWK.privateMembers where name != "oth" && name != "k" {
            if let value = json[name] {
                guard let s = value.stringValue, Base64URL.decodeUnpadded(s.utf8) != nil else {
                    throw .invalidJWK("\"\(name)\" is not a base64url string")
                }
            }
        }
        members = json
    }

    /// Validates a parsed JSON value that should be a JWK object.
    public init(jsonValue json: JSONValue) throws(JOSEError) {
        guard case .object(let object) = json else { throw .invalidJWK("a JWK must be a JSON object, got \(json.typeName)") }
        try self.init(json: object)
    }

    /// The public RSA key as served by Apple's and Google's key endpoints: kty, kid, use, alg, n, e.
    public init(publicKey: JWS.RS256.PublicKey, kid: String?, alg: String? = "RS256", use: String? = "sig") {
        var m = JSONObject()
        m["kty"] = "RSA"
        if let kid { m["kid"] = .string(kid) }
        if let use { m["use"] = .string(use) }
        if let alg { m["alg"] = .string(alg) }
        m["n"] = .string(Base64URL.encode(publicKey.modulus))
        m["e"] = .string(Base64URL.encode(publicKey.exponent))
        members = m
    }

    /// The public P-256 key: kty, kid, use, alg, crv, x, y.
    public init(publicKey: JWS.ES256.PublicKey, kid: String?, alg: String? = "ES256", use: String? = "sig") {
        var m = JSONObject()
        m["kty"] = "EC"
        if let kid { m["kid"] = .string(kid) }
        if let use { m["use"] = .string(use) }
        if let alg { m["alg"] = .string(alg) }
        m["crv"] = "P-256"
        m["x"] = .string(Base64URL.encode(publicKey.x))
        m["y"] = .string(Base64URL.encode(publicKey.y))
        members = m
    }

    /// The public Ed25519 key: kty, kid, use, alg, crv, x.
    public init(publicKey: JWS.EdDSA.PublicKey, kid: String?, alg: String? = "EdDSA", use: String? = "sig") {
        var m = JSONObject()
        m["kty"] = "OKP"
        if let kid { m["kid"] = .string(kid) }
        if let use { m["use"] = .string(use) }
        if let alg { m["alg"] = .string(alg) }
        m["crv"] = "Ed25519"
        m["x"] = .string(Base64URL.encode(publicKey.rawRepresentation))
        members = m
    }

    public var json: JSONValue { .object(members) }

    /// Whether the key carries private or secret material ("d", "k", RSA primes...).
    public var isPrivate: Bool { members.contains { JWK.privateMembers.contains($0.key) } }

    /// The same key without private members, safe to publish in a JWK Set.
    public var publicJWK: JWK {
        var copy = self
        for name in JWK.privateMembers where name != "k" { copy.members[name] = nil }
        return copy
    }

    /// RFC 7638 thumbprint: base64url SHA-256 of the required members in lexicographic order,
    /// without whitespace.
    public func thumbprint() throws(JOSEError) -> String {
        let required: [String]
        switch kty {
        case "RSA": required = ["e", "kty", "n"]
        case "EC": required = ["crv", "kty", "x", "y"]
        case "OKP": required = ["crv", "kty", "x"]
        case "oct": required = ["k", "kty"]
        default: throw .invalidJWK("cannot compute a thumbprint for kty \(kty.map { "\"\($0.prefix(16))\"" } ?? "missing")")
        }
        var canonical = JSONObject()
        for name in required {
            guard let value = members[name], value.stringValue != nil else {
                throw .invalidJWK("a thumbprint needs the string member \"\(name)\"")
            }
            canonical[name] = value
        }
        return Base64URL.encode(SHA256.hash(JSONValue.object(canonical).serializedBytes(sortedKeys: true)))
    }

    /// The base64url-decoded member `name`: nil when absent, an error when not base64url.
    func bytes(_ name: String) throws(JOSEError) -> [UInt8]? {
        guard let value = members[name] else { return nil }
        guard let string = value.stringValue, let bytes = Base64URL.decodeUnpadded(string.utf8) else {
            throw .invalidJWK("\"\(name)\" is not a base64url string")
        }
        return bytes
    }
}
