import UnderstudyHTTP
import UnderstudyJOSE
import UnderstudyJSON

/// Takes a token apart for a tester: header and claims, times as ISO 8601 and relative to now,
/// which provider and key it claims, whether Understudy's keys (current or retired) verify it, its
/// time status, its nonce against a raw nonce, and the catalogue scenario it looks like.
public struct TokenInspector: Sendable {
    /// A key Understudy knows, with where it is in its life.
    public struct KnownKey: Sendable {
        public var provider: ProviderName
        public var key: ProviderKey
        public var state: String
        public init(provider: ProviderName, key: ProviderKey, state: String) {
            self.provider = provider; self.key = key; self.state = state
        }
    }

    public let settings: ProviderSettings
    public let keys: [KnownKey]

    public init(settings: ProviderSettings, keys: [KnownKey]) {
        self.settings = settings
        self.keys = keys
    }

    /// The report, or an error saying what is wrong with text that is not a compact JWS.
    public func inspect(_ token: String, rawNonce: String?, now: Int64) throws(InspectionError) -> JSONValue {
        let trimmed = token.trimmingWhitespace()
        let decoded: DecodedJWS
        do {
            decoded = try JWS.decode(trimmed)
        } catch {
            throw InspectionError(message: "not a signed JWT: \(error.description)", scenario: Self.malformation(of: trimmed))
        }
        guard let claims = decoded.claims else {
            throw InspectionError(message: "not a signed JWT: the payload is not a JSON object of claims", scenario: "malformed-base64")
        }
        var report: JSONObject = ["header": .object(decoded.header), "claims": .object(claims)]
        var times = JSONObject()
        for name in ["iat", "nbf", "exp", "auth_time"] {
            guard let t = claims[name]?.intValue else { continue }
            times[name] = ["value": .integer(t), "iso8601": .string(Self.iso8601(t)), "relative": .string(Self.relative(t - now))]
        }
        report["times"] = .object(times)

        let iss = claims["iss"]?.stringValue
        let kid = decoded.keyID
        let known = kid.flatMap { k in keys.first { $0.key.kid == k } }
        let provider: ProviderName? = Self.provider(issuer: iss) ?? known?.provider
        report["provider"] = provider.map { .string($0.rawValue) } ?? .null

        // Signature, against the key the header names, with the algorithm the key has (RS256).
        var matches: [String] = []
        let alg = decoded.algorithm ?? ""
        var signature: JSONObject = ["alg": .string(alg)]
        var signatureValid = false
        switch alg {
        case "none":
            signature["valid"] = false
            signature["detail"] = "unsigned (alg none): a verifier must refuse it"
            matches.append("alg-none")
        case "HS256":
            signature["valid"] = false
            let confused = (known.map { [$0] } ?? keys).contains { k in
                JWS.verifyHMAC(decoded, secret: Array(k.key.privateKey.publicKey.pemRepresentation.utf8))
            }
            signature["detail"] = .string(confused
                ? "HS256 keyed with an RSA public key's PEM: the key-confusion attack; a verifier must refuse it"
                : "HS256: not an algorithm Apple or Google sign with")
            matches.append("hs256-key-confusion")
        default:
            let candidates = kid == nil ? keys.filter { provider == nil || $0.provider == provider } : (known.map { [$0] } ?? [])
            let verifier = candidates.first { k in (try? JWS.verify(trimmed, key: .rs256(k.key.privateKey.publicKey))) != nil }
            signatureValid = verifier != nil
            signature["valid"] = .bool(signatureValid)
            if let v = verifier {
                signature["detail"] = .string("verifies with the \(v.state) \(v.provider.rawValue) key \(v.key.kid)")
            } else if kid == nil {
                signature["detail"] = "no kid in the header, and none of Understudy's keys verifies it"
            } else if known == nil {
                signature["detail"] = .string("kid \(kid!) is none of Understudy's keys")
            } else {
                signature["detail"] = .string("the signature does not verify with \(known!.provider.rawValue) key \(kid!)")
            }
        }
        report["signature"] = .object(signature)
        var key: JSONObject = ["kid": kid.map { .string($0) } ?? .null]
        key["state"] = .string(known?.state ?? (kid == nil ? "missing" : "unknown"))
        if let known { key["provider"] = .string(known.provider.rawValue) }
        report["key"] = .object(key)
        if alg != "none" && alg != "HS256" {
            if kid == nil { matches.append("missing-kid") }
            else if known == nil { matches.append("unknown-kid") }
            else if known!.state == "retired" { matches.append("signed-with-retired-key") }
            else if !signatureValid { matches.append("bad-signature") }
        }

        // Times.
        let iat = claims["iat"]?.intValue, exp = claims["exp"]?.intValue, nbf = claims["nbf"]?.intValue
        var status = "valid"
        if let exp, exp <= now {
            status = "expired"
            matches.append(iat.map { exp - $0 } == 599 ? "expired-by-one-second" : "expired")
        } else if let nbf, nbf > now {
            status = "not-yet-valid"
            matches.append("not-yet-valid")
        } else if let iat, iat > now {
            status = "issued-in-the-future"
            matches.append(iat - now > 60 ? "clock-skew-10m" : "clock-skew-30s")
        } else if let iat, now - iat > 3600 {
            status = "valid (issued over an hour ago)"
            matches.append("issued-long-ago")
        }
        if exp == nil { status = "no exp" }
        if iat == nil { matches.append("missing-iat") }
        report["timeStatus"] = .string(status)

        // Issuer and audience against the configuration.
        if let provider {
            let issuer = provider == .apple ? settings.apple.issuer : settings.google.issuer
            if iss == "https://account.apple.com" && provider == .apple { matches.append("account-apple-issuer") }
            else if iss == "accounts.google.com" && provider == .google { matches.append("schemeless-google-issuer") }
            else if iss != issuer { matches.append("wrong-issuer") }
            let audiences = claims["aud"].map { $0.stringValue.map { [$0] } ?? ($0.arrayValue ?? []).compactMap(\.stringValue) } ?? []
            let azp = claims["azp"]?.stringValue
            if provider == .apple {
                if !audiences.contains(where: { settings.apple.bundleIDs.contains($0) || settings.apple.servicesIDs.contains($0) }) {
                    matches.append("wrong-audience")
                }
            } else {
                let g = settings.google
                if audiences == [g.iosClientID] && azp == g.iosClientID { matches.append("ios-native-no-server-client") }
                else if !audiences.contains(g.webClientID) { matches.append("wrong-audience") }
                else if let azp, ![g.webClientID, g.iosClientID, g.androidClientID].contains(azp) { matches.append("azp-mismatch") }
                else if azp == g.androidClientID { matches.append("android-native") }
            }
        }

        // Nonce.
        let claimNonce = claims["nonce"]?.stringValue
        if let rawNonce {
            let hashed = Hex.encode(SHA256.hash(Array(rawNonce.utf8)))
            let how: String
            switch claimNonce {
            case nil: how = "missing"; matches.append("missing-nonce")
            case hashed: how = "hashed"
            case rawNonce: how = "raw"; matches.append("raw-nonce-in-claim")
            default: how = "mismatch"; matches.append("nonce-mismatch")
            }
            report["nonce"] = ["claim": claimNonce.map { .string($0) } ?? .null, "rawNonce": .string(rawNonce),
                               "sha256": .string(hashed), "matches": .string(how)]
        } else {
            report["nonce"] = ["claim": claimNonce.map { .string($0) } ?? .null, "matches": "not checked (give rawNonce)"]
        }
        if claims["email"] == nil { matches.append("missing-email") }
        else if let v = claims["email_verified"], ScenarioMinter.truth(v) == false { matches.append("unverified-email") }
        if claims["email"]?.stringValue?.lowercased().hasSuffix("@privaterelay.appleid.com") == true { matches.append("private-relay-email") }

        report["scenarios"] = .array(matches.map { .string($0) })
        report["scenario"] = .string(matches.first ?? (signatureValid ? "valid" : "unknown"))
        return .object(report)
    }

    static func provider(issuer: String?) -> ProviderName? {
        switch issuer {
        case "https://appleid.apple.com", "https://account.apple.com": return .apple
        case "https://accounts.google.com", "accounts.google.com": return .google
        default: return nil
        }
    }

    /// Which malformed scenario a token that does not decode looks like.
    static func malformation(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4 && parts[3].isEmpty { return "malformed-trailing-dot" }
        if parts.count != 3 { return "malformed" }
        guard let header = Base64URL.decode(String(parts[0])) else { return "malformed-header" }
        if (try? JSONValue.parse(header))?.objectValue == nil { return "malformed-header" }
        return "malformed-base64"
    }

    /// `2026-12-03T14:05:00Z`.
    public static func iso8601(_ t: Int64) -> String {
        let days = CivilCalendar.days(fromEpochSeconds: t)
        let (y, m, d) = CivilCalendar.date(fromDays: days)
        let s = t - days * 86_400
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(two(m))-\(two(d))T\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))Z"
    }

    /// "in 10 minutes", "5 seconds ago", "now".
    public static func relative(_ delta: Int64) -> String {
        if delta == 0 { return "now" }
        let a = delta.magnitude
        let text: String
        switch a {
        case ..<120: text = "\(a) second\(a == 1 ? "" : "s")"
        case ..<7200: text = "\(a / 60) minutes"
        case ..<172_800: text = "\(a / 3600) hours"
        default: text = "\(a / 86_400) days"
        }
        return delta > 0 ? "in " + text : text + " ago"
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
