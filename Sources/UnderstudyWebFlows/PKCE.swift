import UnderstudyJOSE

/// Proof Key for Code Exchange (RFC 7636): the challenge an authorize request carries and the
/// verifier the token request proves it with.
public enum PKCE {
    public enum Method: String, Sendable { case s256 = "S256", plain }

    /// A verifier or challenge is 43 to 128 characters of `[A-Za-z0-9-._~]` (RFC 7636 section 4.1).
    public static func isWellFormed(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count) && value.utf8.allSatisfy { b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
        }
    }

    /// The challenge a verifier gives under `method`.
    public static func challenge(for verifier: String, method: Method) -> String {
        switch method {
        case .plain: return verifier
        case .s256: return Base64URL.encode(SHA256.hash(Array(verifier.utf8)))
        }
    }

    /// Whether `verifier` proves `challenge`, compared in constant time.
    public static func verify(_ verifier: String, challenge: String, method: Method) -> Bool {
        guard isWellFormed(verifier) else { return false }
        return HMACSHA256.constantTimeEquals(Array(Self.challenge(for: verifier, method: method).utf8), Array(challenge.utf8))
    }
}
