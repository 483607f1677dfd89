/// RFC 4648 section 5 base64url, written without padding as JOSE requires (RFC 7515 section 2).
/// Decoding is strict (no whitespace, canonical trailing bits) and accepts input with or without
/// padding; the JWS parser separately refuses padding inside tokens.
public enum Base64URL {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Base64Codec.encode(bytes, alphabet: Base64Codec.urlAlphabet, pad: false)
    }

    public static func decode(_ string: String) -> [UInt8]? {
        Base64Codec.decode(string.utf8, table: Base64Codec.urlTable, allowPadding: true)
    }

    /// Strict JOSE form: no padding at all.
    static func decodeUnpadded(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        Base64Codec.decode(bytes, table: Base64Codec.urlTable, allowPadding: false)
    }
}
