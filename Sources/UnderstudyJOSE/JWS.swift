import UnderstudyJSON

/// JSON Web Signature, compact serialization (RFC 7515 section 7.1).
public enum JWS {
    /// Tokens longer than this are refused before any decoding (real ID tokens are 1-2 KiB).
    public static let maximumTokenLength = 64 * 1024

    /// Signs a compact JWS. `header` is written as given (member order kept); its "alg" must be
    /// the key's algorithm.
    public static func sign(header: JSONObject, payload: [UInt8], key: SigningKey) throws(JOSEError) -> String {
        guard let alg = header["alg"]?.stringValue else { throw .missingAlgorithm() }
        guard alg == key.algorithm.rawValue else { throw .algorithmMismatch(header: alg, key: key.algorithm) }
        var signingInput = Base64URL.encode(JSONValue.object(header).serializedBytes())
        signingInput += "."
        signingInput += Base64URL.encode(payload)
        let signature = try key.signature(for: signingInput.utf8)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Signs `claims` as a JWT payload.
    public static func sign(header: JSONObject, claims: JSONObject, key: SigningKey) throws(JOSEError) -> String {
        try sign(header: header, payload: JSONValue.object(claims).serializedBytes(), key: key)
    }

    /// Verifies a compact JWS. The algorithm comes from the key, never from the token: a header
    /// "alg" that is not the key's (including "none") is an error, as is any "crit" header.
    public static func verify(_ compact: String, key: VerificationKey) throws(JOSEError) -> DecodedJWS {
        let decoded = try decode(compact)
        guard let alg = decoded.header["alg"]?.stringValue else { throw .missingAlgorithm() }
        guard alg == key.algorithm.rawValue else { throw .algorithmMismatch(header: alg, key: key.algorithm) }
        guard decoded.header["crit"] == nil else { throw .unsupportedCritical() }
        guard key.isValidSignature(decoded.signature, for: decoded.signingInput.utf8) else {
            throw .invalidSignature(key.algorithm)
        }
        return decoded
    }

    /// Decodes a compact JWS without verifying it (for tokeninfo errors and debugging).
    public static func decode(_ compact: String) throws(JOSEError) -> DecodedJWS {
        let bytes = compact.utf8
        guard bytes.count <= maximumTokenLength else {
            throw .tokenTooLarge(length: bytes.count, limit: maximumTokenLength)
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            if parts.count == 5 { throw .malformedToken("it has 5 parts, which is an encrypted JWE; only signed JWS is supported") }
            throw .malformedToken("it has \(parts.count) part\(parts.count == 1 ? "" : "s") separated by \".\" instead of 3")
        }
        guard !parts[0].isEmpty else { throw .malformedToken("the header part is empty") }
        guard let headerBytes = Base64URL.decodeUnpadded(parts[0]) else {
            throw .malformedToken("the header part is not base64url")
        }
        guard let payload = Base64URL.decodeUnpadded(parts[1]) else {
            throw .malformedToken("the payload part is not base64url")
        }
        guard let signature = Base64URL.decodeUnpadded(parts[2]) else {
            throw .malformedToken("the signature part is not base64url")
        }
        let headerValue: JSONValue
        do {
            headerValue = try JSONValue.parse(headerBytes)
        } catch {
            throw .malformedToken("the header is not JSON (\(error))")
        }
        guard case .object(let header) = headerValue else {
            throw .malformedToken("the header is \(headerValue.typeName), not a JSON object")
        }
        var claims: JSONObject? = nil
        if case .object(let object)? = try? JSONValue.parse(payload) {
            claims = object
        }
        let signingInput = String(decoding: bytes[parts[0].startIndex..<parts[1].endIndex], as: UTF8.self)
        return DecodedJWS(header: header, payload: payload, claims: claims, signingInput: signingInput, signature: signature)
    }
}

extension JWS {
    /// Whether a decoded token's signature is HMAC-SHA-256 of its signing input under `secret`,
    /// whatever its header says: for naming the key-confusion attack, never for accepting a token.
    public static func verifyHMAC(_ decoded: DecodedJWS, secret: [UInt8]) -> Bool {
        VerificationKey.hs256(secret).isValidSignature(decoded.signature, for: decoded.signingInput.utf8)
    }
}
