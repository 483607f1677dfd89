import UnderstudyJSON

/// Which kind of client a token is for; picks `aud` and `azp` from the configured client ids the
/// way the real provider does for native apps.
public enum ClientPlatform: String, Sendable, CaseIterable {
    case web, ios, android
}

/// A request to mint an ID token, as the HTTP API (`POST /api/tokens/{provider}`) and the CLI
/// (`understudy mint`) both take it. Absent fields default from the configuration.
public struct MintRequest: Sendable, Hashable {
    public var aud: JSONValue?
    public var email: String?
    public var sub: String?
    public var nonce: String?
    public var rawNonce: String?
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    public var picture: String?
    public var azp: String?
    public var hd: String?
    public var locale: String?
    public var platform: ClientPlatform?
    public var emailVerified: Bool?
    public var isPrivateEmail: Bool?
    public var realUserStatus: Int64?
    public var ttl: Int64?
    public var kid: String?
    /// Extra or overriding claims, applied last: they can replace anything, `iss` and `exp` included.
    public var claims = JSONObject()

    public init() {}

    /// The longest lifetime accepted, one year: longer is almost certainly a mistake.
    public static let maximumTTL: Int64 = 366 * 24 * 3600
    /// The most extra claims a request may carry (real tokens have a dozen or two).
    public static let maximumExtraClaims = 256
    /// The longest token minted, in bytes (verifiers and headers choke well before megabytes).
    public static let maximumTokenBytes = 64 * 1024

    /// Refuses a request over the bounds above (the token size is checked once signed).
    public func checkLimits() throws(MintError) {
        if claims.count > Self.maximumExtraClaims {
            throw .invalidField("claims", "has \(claims.count) members; at most \(Self.maximumExtraClaims) extra claims are accepted")
        }
    }

    static let stringFields = ["email", "sub", "nonce", "rawNonce", "name", "givenName", "familyName",
                               "picture", "azp", "hd", "locale", "kid"]
    public static let fieldNames = ["aud"] + stringFields + ["platform", "emailVerified", "isPrivateEmail",
                                                             "realUserStatus", "ttl", "claims"]

    /// Reads a request from JSON, naming the field in every error.
    public init(json: JSONValue) throws(MintError) {
        guard case .object(let object) = json else {
            throw .invalidField("body", "must be a JSON object, e.g. {\"aud\": \"com.example.app\", \"email\": \"alice@example.com\"}")
        }
        for (key, value) in object {
            switch key {
            case "aud":
                switch value {
                case .string(let s) where !s.isEmpty: aud = value
                case .array(let items) where !items.isEmpty && items.allSatisfy({ $0.stringValue != nil }): aud = value
                case .null: break
                default: throw .invalidField("aud", "must be a non-empty string or an array of strings, got \(value.typeName)")
                }
            case "platform":
                guard let s = value.stringValue, let p = ClientPlatform(rawValue: s) else {
                    throw .invalidField("platform", "must be one of \(ClientPlatform.allCases.map(\.rawValue).joined(separator: ", ")), got \(value)")
                }
                platform = p
            case "emailVerified", "isPrivateEmail":
                guard let b = value.boolValue else { throw .invalidField(key, "must be true or false, got \(value.typeName)") }
                if key == "emailVerified" { emailVerified = b } else { isPrivateEmail = b }
            case "realUserStatus":
                guard let n = value.intValue, (0...2).contains(n) else {
                    throw .invalidField("realUserStatus", "must be 0 (unsupported), 1 (unknown) or 2 (likely real), got \(value)")
                }
                realUserStatus = n
            case "ttl":
                guard let n = value.intValue, n > 0, n <= Self.maximumTTL else {
                    throw .invalidField("ttl", "must be a whole number of seconds from 1 to \(Self.maximumTTL), got \(value)")
                }
                ttl = n
            case "claims":
                guard let o = value.objectValue else { throw .invalidField("claims", "must be a JSON object of claims, got \(value.typeName)") }
                claims = o
                try checkLimits()
            default:
                guard Self.stringFields.contains(key) else {
                    throw .invalidField(key, "is not a known field; known fields: \(Self.fieldNames.joined(separator: ", "))")
                }
                if value.isNull { continue }
                guard let s = value.stringValue else { throw .invalidField(key, "must be a string, got \(value.typeName)") }
                switch key {
                case "email": email = s
                case "sub": sub = s
                case "nonce": nonce = s
                case "rawNonce": rawNonce = s
                case "name": name = s
                case "givenName": givenName = s
                case "familyName": familyName = s
                case "picture": picture = s
                case "azp": azp = s
                case "hd": hd = s
                case "locale": locale = s
                default: kid = s
                }
            }
        }
        if nonce != nil && rawNonce != nil {
            throw .invalidField("rawNonce", "cannot be combined with nonce: give nonce (copied as is) or rawNonce (hashed with SHA-256), not both")
        }
    }
}

/// Why a mint request was refused. The HTTP API answers 400 with this message.
public struct MintError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable { case invalidField, unknownKey, signingFailed, tooLarge }
    private let code: Code
    /// The request field at fault, if any.
    public let field: String?
    public let message: String

    public static func invalidField(_ field: String, _ problem: String) -> MintError {
        MintError(code: .invalidField, field: field, message: "\(field) \(problem)")
    }
    public static func unknownKey(_ kid: String, known: [String]) -> MintError {
        MintError(code: .unknownKey, field: "kid", message: "kid \(kid) is not one of this provider's keys; use one of \(known.joined(separator: ", "))")
    }
    public static func tokenTooLarge(_ bytes: Int, limit: Int) -> MintError {
        MintError(code: .tooLarge, field: "claims",
                  message: "the token would be \(bytes) bytes, over the limit of \(limit) bytes (64 KiB); send smaller claims")
    }
    public static func signingFailed(_ reason: String) -> MintError {
        MintError(code: .signingFailed, field: nil, message: "signing failed: \(reason)")
    }

    public var description: String { message }
}

/// A minted token with its decoded parts, as the API answers it.
public struct MintedToken: Sendable {
    public var idToken: String
    public var header: JSONObject
    public var claims: JSONObject

    public var json: JSONValue {
        ["idToken": .string(idToken), "header": .object(header), "claims": .object(claims)]
    }
}
