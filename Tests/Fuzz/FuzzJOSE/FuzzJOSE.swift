import FuzzSupport
import UnderstudyJOSE
import UnderstudyJSON

/// libFuzzer target for JWS compact decoding and JWK / JWK Set parsing.
///
/// The input as a whole is decoded as a compact JWS and parsed as JSON. A JSON input is searched
/// (a few levels deep) for JWKs, JWK Sets, compact tokens, PEM strings and `x5c` certificates, as
/// the test vectors hold them: each key is read as a verification key and as a private key, its
/// thumbprint taken, and each token decoded and verified with each key (bounded in number). Then
/// the input is cut where it says: the first piece is decoded as a token, the second read as a
/// JWK Set. Bad input must come back as a `JOSEError`, never a trap, and a verification must never
/// succeed with a key for another algorithm than the header's.
enum FuzzJOSE {
    static let maximumItems = 4

    static func run(_ bytes: [UInt8]) {
        let input = FuzzInput(bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        var found = Found()
        found.tokens.append(text)
        if let json = try? JSONValue.parse(bytes) {
            found.search(json, depth: 0)
        }
        let halves = input.halves
        found.tokens.append(String(decoding: halves[0], as: UTF8.self))
        if let json = try? JSONValue.parse(halves[1]) { found.search(json, depth: 0) }

        var keys: [VerificationKey] = [.hs256(Array("fuzz-secret".utf8))]
        for jwk in found.jwks.prefix(maximumItems) {
            _ = try? jwk.thumbprint()
            _ = jwk.publicJWK.isPrivate
            _ = try? JWS.RS256.PrivateKey(jwk: jwk)
            _ = try? JWS.ES256.PrivateKey(jwk: jwk)
            _ = try? JWS.EdDSA.PrivateKey(jwk: jwk)
            if let key = try? VerificationKey(jwk: jwk) { keys.append(key) }
        }
        for pem in found.pems.prefix(maximumItems) {
            _ = try? JWS.RS256.PublicKey(pemRepresentation: pem)
            _ = try? JWS.ES256.PublicKey(pemRepresentation: pem)
            _ = try? JWS.EdDSA.PublicKey(pemRepresentation: pem)
            _ = try? JWS.RS256.PrivateKey(pemRepresentation: pem)
            _ = try? JWS.ES256.PrivateKey(pemRepresentation: pem)
            _ = try? JWS.EdDSA.PrivateKey(pemRepresentation: pem)
            _ = try? X509Certificate(pemRepresentation: pem)
        }
        for der in found.certificates.prefix(maximumItems) {
            if let certificate = try? X509Certificate(derRepresentation: der) {
                _ = certificate.serialNumber
                _ = try? certificate.publicKey
            }
        }
        for token in found.tokens.prefix(maximumItems) {
            guard let decoded = try? JWS.decode(token) else { continue }
            _ = decoded.algorithm
            _ = decoded.keyID
            for key in keys.prefix(maximumItems) {
                if (try? JWS.verify(token, key: key)) != nil {
                    FuzzCheck.expect(decoded.algorithm == key.algorithm.rawValue,
                                     "a token with alg \(decoded.algorithm ?? "none") verified with a \(key.algorithm) key")
                }
            }
        }
    }
}

/// What a JSON input holds that the JOSE readers take.
struct Found {
    var jwks: [JWK] = []
    var tokens: [String] = []
    var pems: [String] = []
    var certificates: [[UInt8]] = []

    mutating func search(_ value: JSONValue, depth: Int) {
        guard depth < 4 else { return }
        switch value {
        case .object(let object):
            if let jwk = try? JWK(json: object) { jwks.append(jwk) }
            if let set = try? JWKSet(json: value) {
                jwks += set.keys
                if let kid = set.keys.first?.kid { _ = set.key(withID: kid) }
            }
            if let chain = object["x5c"]?.arrayValue {
                certificates += chain.compactMap { $0.stringValue.flatMap(Base64.decode) }
            }
            for member in object.members.prefix(16) { search(member.value, depth: depth + 1) }
        case .array(let items):
            for item in items.prefix(16) { search(item, depth: depth + 1) }
        case .string(let string):
            if string.hasPrefix("-----BEGIN") {
                pems.append(string)
            } else if string.utf8.contains(UInt8(ascii: ".")) {
                tokens.append(string)
            }
        default:
            break
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzJOSE.run(FuzzInput(data, size).bytes)
    return 0
}

#if !FUZZING
/// Without libFuzzer (a plain `swift build`) the target replays the files it is given; see `FuzzReplay`.
@main enum FuzzJOSEReplay {
    static func main() { FuzzReplay.main(FuzzJOSE.run) }
}
#endif
