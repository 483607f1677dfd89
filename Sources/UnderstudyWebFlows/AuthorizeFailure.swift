/// Why an authorize request was refused, and whether the answer may go to its redirect URI.
/// A request without a trustworthy client and redirect URI is answered on the provider's own
/// page (a redirect would hand the error to whoever wrote the URL); any later fault goes back to
/// the client with `error` and `state`, as OAuth says.
public struct AuthorizeFailure: Error, Sendable {
    public let error: FlowError
    /// Where to send the error; nil: answer with an error page.
    public let redirect: (uri: String, mode: ResponseMode, state: String?)?

    static func page(_ error: FlowError) -> AuthorizeFailure { AuthorizeFailure(error: error, redirect: nil) }
    static func redirect(_ error: FlowError, to uri: String, mode: ResponseMode, state: String?) -> AuthorizeFailure {
        AuthorizeFailure(error: error, redirect: (uri, mode, state))
    }
}
