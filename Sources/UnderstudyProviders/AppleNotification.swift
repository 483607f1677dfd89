import UnderstudyJOSE
import UnderstudyJSON

/// A Sign in with Apple server-to-server notification: an events JWT signed with Apple's keys, as
/// Apple POSTs it to an app's notification endpoint in `{"payload": "<jwt>"}`.
public struct AppleNotification: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case emailDisabled = "email-disabled"
        case emailEnabled = "email-enabled"
        case consentRevoked = "consent-revoked"
        case accountDelete = "account-delete"

        /// Apple names the address only in the email events.
        var carriesEmail: Bool { self == .emailDisabled || self == .emailEnabled }
    }

    public var kind: Kind
    public var email: String?
    public var sub: String?
    public var aud: String?
    /// Where to POST it: `http://host:port/path`.
    public var url: String

    /// Reads `{"type", "email" | "sub", "url", "aud"?}`, naming the field in every error.
    public init(json: JSONValue) throws(MintError) {
        guard let o = json.objectValue else {
            throw .invalidField("body", "must be a JSON object like {\"type\": \"consent-revoked\", \"email\": \"alice@example.com\", \"url\": \"http://127.0.0.1:3000/apple/notifications\"}")
        }
        for key in o.keys where !["type", "email", "sub", "url", "aud"].contains(key) {
            throw .invalidField(key, "is not a known field; known fields: type, email, sub, url, aud")
        }
        guard let t = o["type"]?.stringValue, let kind = Kind(rawValue: t) else {
            throw .invalidField("type", "must be one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        func string(_ key: String) throws(MintError) -> String? {
            guard let v = o[key], !v.isNull else { return nil }
            guard let s = v.stringValue, !s.isEmpty, s.utf8.count <= 2048 else { throw .invalidField(key, "must be a non-empty string of at most 2048 bytes") }
            return s
        }
        email = try string("email")
        sub = try string("sub")
        aud = try string("aud")
        guard let url = try string("url") else { throw .invalidField("url", "is required: the app's notification endpoint, http://host:port/path") }
        guard url.hasPrefix("http://") else {
            throw .invalidField("url", "must be an http:// URL (https is not supported; point it at the app's plain HTTP port), got '\(url.prefix(80))'")
        }
        self.url = url
        self.kind = kind
        if email == nil && sub == nil { throw .invalidField("email", "or sub is required: whose account the event is about") }
        if kind.carriesEmail && email == nil { throw .invalidField("email", "is required for \(kind.rawValue): Apple names the address in it") }
    }

    /// The signed events JWT: header `{kid, alg}`, claims iss, aud, iat, jti and `events`, a JSON
    /// string with type, sub, event_time (milliseconds) and, for the email events, email and is_private_email.
    public func sign(with apple: AppleProvider, now: Int64, jti: String) throws(MintError) -> MintedToken {
        let key = try apple.keyRing.key(kid: nil)
        let sub = self.sub ?? apple.subject(forEmail: email!)
        var event: JSONObject = ["type": .string(kind.rawValue), "sub": .string(sub)]
        if kind.carriesEmail, let email {
            event["email"] = .string(email)
            event["is_private_email"] = .string(email.lowercased().hasSuffix("@privaterelay.appleid.com") ? "true" : "false")
        }
        event["event_time"] = .integer(now * 1000)
        let settings = apple.settings
        let claims: JSONObject = [
            "iss": .string(settings.issuer),
            "aud": .string(aud ?? settings.bundleIDs.first ?? settings.servicesIDs.first ?? "com.example.app"),
            "iat": .integer(now),
            "jti": .string(jti),
            "events": .string(JSONValue.object(event).serialized()),
        ]
        return try apple.keyRing.sign(header: ["kid": .string(key.kid), "alg": "RS256"], claims: claims, key: key)
    }
}
