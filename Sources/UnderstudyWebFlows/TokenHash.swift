import UnderstudyJOSE

/// `at_hash` and `c_hash` (OpenID Connect Core 3.1.3.6, 3.3.2.11): the base64url of the left half
/// of the SHA-256 of the token or code's ASCII, for RS256 ID tokens.
public enum TokenHash {
    public static func of(_ value: String) -> String {
        Base64URL.encode(SHA256.hash(Array(value.utf8)).prefix(16))
    }
}
