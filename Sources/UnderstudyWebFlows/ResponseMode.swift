/// How the authorization response travels back to the redirect URI.
public enum ResponseMode: String, Sendable {
    case query, fragment
    case formPost = "form_post"
}
