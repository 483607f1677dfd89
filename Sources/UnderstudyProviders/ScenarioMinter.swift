import UnderstudyJOSE
import UnderstudyJSON

/// Mints a scenario's token: the provider drafts a correct token, then the scenario's edits change
/// the request, claims, header, signing and serialization, in that order. Pure given its inputs.
public struct ScenarioMinter: Sendable {
    public let apple: AppleProvider
    public let google: GoogleProvider

    public init(apple: AppleProvider, google: GoogleProvider) {
        self.apple = apple
        self.google = google
    }

    public func mint(_ scenario: Scenario, provider: ProviderName, request: MintRequest, context: ScenarioContext,
                     now: Int64) throws(MintError) -> ScenarioToken {
        guard scenario.applies(to: provider) else {
            throw .invalidField("scenario", "\(scenario.name) applies to \(scenario.providers.map(\.rawValue).joined(separator: " and ")) tokens only, not \(provider.rawValue)")
        }
        var request = request
        request.scenario = nil
        var booleans: AppleBooleanStyle?
        for edit in scenario.edits {
            switch edit {
            case .platform(let p): request.platform = p
            case .booleans(let style): booleans = style
            default: break
            }
        }
        // Every scenario token carries a nonce: the client's, else the context's.
        var rawNonce = request.rawNonce
        if request.nonce == nil && rawNonce == nil {
            rawNonce = context.rawNonce
            request.rawNonce = rawNonce
        }
        var draft = provider == .apple ? try apple.draft(request, now: now) : try google.draft(request, now: now)
        let nonce = draft.claims["nonce"]?.stringValue
        if draft.claims["jti"] == nil { draft.claims["jti"] = .string(context.jti) }

        var signing = ScenarioSigning.normal
        var malformation: ScenarioMalformation?
        for edit in scenario.edits {
            switch edit {
            case .times(let iat, let exp, let nbf):
                if let iat {
                    draft.claims["iat"] = .integer(now + iat)
                    if draft.claims["auth_time"] != nil { draft.claims["auth_time"] = .integer(now + iat) }
                }
                if let exp { draft.claims["exp"] = .integer(now + exp) }
                if let nbf { draft.claims["nbf"] = .integer(now + nbf) }
            case .setClaim(let name, let source):
                draft.claims[name] = value(source, provider: provider, claims: draft.claims, rawNonce: rawNonce ?? nonce ?? "",
                                           context: context)
            case .removeClaim(let name): draft.claims[name] = nil
            case .setHeader(let name, let value): draft.header[name] = value
            case .removeHeader(let name): draft.header[name] = nil
            case .signing(let s): signing = s
            case .malformation(let m): malformation = m
            case .platform, .booleans: break
            }
        }
        if let booleans {
            for name in ["email_verified", "is_private_email"] {
                guard let b = draft.claims[name].flatMap(Self.truth) else { continue }
                draft.claims[name] = booleans == .string ? .string(b ? "true" : "false") : .bool(b)
            }
        }
        var token = try sign(&draft, signing: signing, provider: provider, context: context)
        if let malformation { token = Self.malform(token, malformation) }
        return ScenarioToken(token: MintedToken(idToken: token, header: draft.header, claims: draft.claims),
                             scenario: scenario, rawNonce: rawNonce, nonce: nonce)
    }

    static func truth(_ v: JSONValue) -> Bool? {
        if let b = v.boolValue { return b }
        return ["true": true, "false": false][v.stringValue ?? ""]
    }

    func value(_ source: ClaimSource, provider: ProviderName, claims: JSONObject, rawNonce: String,
               context: ScenarioContext) -> JSONValue {
        switch source {
        case .literal(let v): return v
        case .rawNonce: return .string(rawNonce)
        case .hashedNonce: return .string(Hex.encode(SHA256.hash(Array(rawNonce.utf8))))
        case .otherNonce: return .string(Hex.encode(SHA256.hash(Array(("other-" + rawNonce).utf8))))
        case .previousJTI: return .string(context.previousJTI ?? context.jti)
        case .foreignAudience:
            return provider == .apple ? "com.example.someone-else" : "999999999999-someoneelse.apps.googleusercontent.com"
        case .foreignIssuer:
            return provider == .apple ? "https://appleid.apple.com.evil.example" : "https://accounts.google.com.evil.example"
        case .privateRelayEmail:
            let email = claims["email"]?.stringValue ?? "alice@example.com"
            return .string(Hex.encode(SHA256.hash(Array(email.utf8)).prefix(5)) + "@privaterelay.appleid.com")
        case .iosClientID: return .string(google.settings.iosClientID)
        case .foreignClientID: return "999999999999-someoneelse.apps.googleusercontent.com"
        }
    }

    func sign(_ draft: inout UnsignedToken, signing: ScenarioSigning, provider: ProviderName,
              context: ScenarioContext) throws(MintError) -> String {
        let payload = JSONValue.object(draft.claims).serializedBytes()
        do {
            switch signing {
            case .normal:
                return try JWS.sign(header: draft.header, payload: payload, key: .rs256(draft.key.privateKey))
            case .corruptedSignature:
                let good = try JWS.sign(header: draft.header, payload: payload, key: .rs256(draft.key.privateKey))
                let dot = good.lastIndex(of: ".")!
                var signature = Base64URL.decode(String(good[good.index(after: dot)...])) ?? []
                for i in signature.indices where i % 7 == 0 { signature[i] ^= 0x5A }
                return String(good[...dot]) + Base64URL.encode(signature)
            case .unsigned:
                draft.header["alg"] = "none"
                return Base64URL.encode(JSONValue.object(draft.header).serializedBytes()) + "." + Base64URL.encode(payload) + "."
            case .hmacWithPublicKey:
                draft.header["alg"] = "HS256"
                let secret = Array(draft.key.privateKey.publicKey.pemRepresentation.utf8)
                return try JWS.sign(header: draft.header, payload: payload, key: .hs256(secret))
            case .retiredKey:
                guard let retired = context.retiredKey else { throw MintError.signingFailed("no retired key is known; rotate the keys first") }
                draft.key = retired
                draft.header["kid"] = .string(retired.kid)
                return try JWS.sign(header: draft.header, payload: payload, key: .rs256(retired.privateKey))
            case .unknownKeyID:
                draft.header["kid"] = .string(Self.keyID(for: provider))
                return try JWS.sign(header: draft.header, payload: payload, key: .rs256(draft.key.privateKey))
            }
        } catch let error as MintError {
            throw error
        } catch {
            throw .signingFailed("\(error)")
        }
    }

    static func malform(_ token: String, _ how: ScenarioMalformation) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch how {
        case .segmentCount: return parts[0] + "." + parts[1]
        case .badBase64:
            let payload = parts[1]
            // One data character past a multiple of four cannot decode, even in decoders that skip the "*".
            return parts[0] + "." + payload.dropLast(payload.count % 4) + "A*." + parts[2]
        case .headerNotJSON: return Base64URL.encode(Array("kid=1;alg=RS256".utf8)) + "." + parts[1] + "." + parts[2]
        case .trailingDot: return token + "."
        }
    }

    /// A kid in the provider's shape: 10 letters and digits for Apple, 40 hex digits for Google.
    public static func keyID(for provider: ProviderName) -> String {
        switch provider {
        case .apple:
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            return String(SecureRandom.bytes(10).map { alphabet[Int($0) % alphabet.count] })
        case .google:
            return Hex.encode(SecureRandom.bytes(20))
        }
    }

    static func randomHex(_ bytes: Int) -> String { Hex.encode(SecureRandom.bytes(bytes)) }
}
