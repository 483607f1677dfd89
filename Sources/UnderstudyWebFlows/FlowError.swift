import UnderstudyHTTP
import UnderstudyJSON

/// An OAuth error as a provider answers it: an `error` code with a description, and the HTTP
/// status of the token, userinfo and revoke endpoints. Built by the static constructors, which
/// carry Google's and Apple's exact codes.
public struct FlowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The OAuth `error` code (`invalid_grant`, `invalid_client`...).
    public let code: String
    /// What was wrong and what to do; never contains a secret.
    public let message: String
    public let status: HTTPStatus

    init(_ code: String, _ message: String, status: HTTPStatus = .badRequest) {
        self.code = code; self.message = message; self.status = status
    }

    public static func invalidRequest(_ message: String) -> FlowError { FlowError("invalid_request", message) }
    public static func invalidGrant(_ message: String) -> FlowError { FlowError("invalid_grant", message) }
    /// Google answers an unknown client or a wrong secret with 401; Apple with 400.
    public static func invalidClient(_ message: String, provider: FlowProvider) -> FlowError {
        FlowError("invalid_client", message, status: provider == .google ? .unauthorized : .badRequest)
    }
    public static func unsupportedGrantType(_ grant: String) -> FlowError {
        FlowError("unsupported_grant_type", "grant_type \(grant.isEmpty ? "(missing)" : grant) is not supported; use authorization_code or refresh_token")
    }
    public static func unsupportedResponseType(_ message: String) -> FlowError { FlowError("unsupported_response_type", message) }
    public static func invalidScope(_ message: String) -> FlowError { FlowError("invalid_scope", message) }
    public static func redirectURIMismatch(_ message: String) -> FlowError { FlowError("redirect_uri_mismatch", message) }
    public static func loginRequired() -> FlowError {
        FlowError("login_required", "prompt=none, but no identity is signed in for this client; drop prompt=none or pass a login_hint that has consented")
    }
    public static func consentRequired() -> FlowError {
        FlowError("consent_required", "prompt=none, but this identity has not consented to this client yet; sign in once without prompt=none")
    }
    public static func invalidToken(_ message: String) -> FlowError { FlowError("invalid_token", message, status: .unauthorized) }
    public static func cancelled(_ provider: FlowProvider) -> FlowError {
        FlowError(provider.cancelError, "the user cancelled the sign-in")
    }

    /// `{"error": .., "error_description": ..}`, the shape both providers' JSON endpoints use and
    /// OAuth clients read.
    public var response: HTTPResponse {
        .json(["error": .string(code), "error_description": .string(message)], status: status,
              headers: ["Cache-Control": "no-store", "Pragma": "no-cache"])
    }

    public var description: String { "\(code): \(message)" }
}
