/// The `BODY=` parameter of MAIL (RFC 6152). BINARYMIME is not offered.
public enum SMTPBodyType: String, Sendable, Hashable {
    case sevenBit = "7BIT"
    case eightBitMIME = "8BITMIME"
}
