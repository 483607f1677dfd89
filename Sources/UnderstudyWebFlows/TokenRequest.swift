import UnderstudyJOSE

/// A token-endpoint request, read from its form and Authorization header (pure).
public struct TokenRequest: Sendable {
    public enum Grant: Sendable, Equatable {
        case authorizationCode(code: String, redirectURI: String?, codeVerifier: String?)
        case refreshToken(String)
    }
    public var grant: Grant
    public var clientID: String
    public var clientSecret: String?
    /// The secret came in an HTTP Basic header (`client_secret_basic`).
    public var usedBasic: Bool

    public static func parse(form: [(name: String, value: String)], authorization: String?,
                             provider: FlowProvider) throws(FlowError) -> TokenRequest {
        var values: [String: String] = [:]
        for (name, value) in form {
            guard values[name] == nil else { throw .invalidRequest("parameter \(name) is given more than once") }
            guard value.utf8.count <= 16 * 1024 else { throw .invalidRequest("parameter \(name) is longer than 16 KiB") }
            values[name] = value
        }
        var clientID = values["client_id"]
        var secret = values["client_secret"]
        var usedBasic = false
        if let authorization, authorization.lowercased().hasPrefix("basic ") {
            guard provider == .google else {
                throw .invalidClient("Apple takes client_secret_post only: send client_id and client_secret in the form", provider: provider)
            }
            guard let decoded = Base64.decode(String(authorization.dropFirst(6)).trimmingSpaces()),
                  let text = String(validating: decoded, as: UTF8.self), let colon = text.firstIndex(of: ":") else {
                throw .invalidClient("the Authorization header is not Basic base64(client_id:client_secret)", provider: provider)
            }
            let id = Self.formDecoded(String(text[..<colon])), pass = Self.formDecoded(String(text[text.index(after: colon)...]))
            if let clientID, clientID != id {
                throw .invalidClient("client_id in the form differs from the one in the Authorization header", provider: provider)
            }
            guard secret == nil else {
                throw .invalidRequest("send the client secret once: in the Authorization header or in the form, not both")
            }
            clientID = id
            secret = pass
            usedBasic = true
        }
        guard let clientID, !clientID.isEmpty else {
            throw .invalidClient("client_id is missing; send it in the form (or, for Google, in a Basic Authorization header)", provider: provider)
        }
        let grantType = values["grant_type"] ?? ""
        let grant: Grant
        switch grantType {
        case "authorization_code":
            guard let code = values["code"], !code.isEmpty else { throw .invalidRequest("code is missing for grant_type authorization_code") }
            grant = .authorizationCode(code: code, redirectURI: values["redirect_uri"], codeVerifier: values["code_verifier"])
        case "refresh_token":
            guard let token = values["refresh_token"], !token.isEmpty else { throw .invalidRequest("refresh_token is missing for grant_type refresh_token") }
            grant = .refreshToken(token)
        case "":
            throw .invalidRequest("grant_type is missing; use authorization_code or refresh_token")
        default:
            throw .unsupportedGrantType(grantType)
        }
        return TokenRequest(grant: grant, clientID: clientID, clientSecret: secret, usedBasic: usedBasic)
    }

    /// RFC 6749 2.3.1: the Basic credentials are form-urlencoded before base64.
    static func formDecoded(_ s: String) -> String {
        guard s.contains("%") || s.contains("+") else { return s }
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "+") { bytes.append(UInt8(ascii: " ")); continue }
            if b == UInt8(ascii: "%"), it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v); it = it.dropFirst(2); continue
            }
            bytes.append(b)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
