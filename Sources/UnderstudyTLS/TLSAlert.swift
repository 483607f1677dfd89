/// A TLS alert (RFC 8446 section 6), as sent or received.
public struct TLSAlert: Hashable, Sendable, CustomStringConvertible {
    public enum Direction: Hashable, Sendable { case sent, received }

    /// The AlertDescription byte (70 is protocol_version).
    public let code: UInt8
    public let direction: Direction

    public init(code: UInt8, direction: Direction) {
        self.code = code
        self.direction = direction
    }

    public static let closeNotify: UInt8 = 0
    public static let unexpectedMessage: UInt8 = 10
    public static let badRecordMAC: UInt8 = 20
    public static let handshakeFailure: UInt8 = 40
    public static let badCertificate: UInt8 = 42
    public static let certificateUnknown: UInt8 = 46
    public static let unknownCA: UInt8 = 48
    public static let decodeError: UInt8 = 50
    public static let protocolVersion: UInt8 = 70
    public static let internalError: UInt8 = 80
    public static let unrecognizedName: UInt8 = 112
    public static let noApplicationProtocol: UInt8 = 120

    /// The RFC name of the alert ("protocol_version"), or "alert_<code>".
    public var name: String {
        switch code {
        case 0: return "close_notify"
        case 10: return "unexpected_message"
        case 20: return "bad_record_mac"
        case 22: return "record_overflow"
        case 40: return "handshake_failure"
        case 42: return "bad_certificate"
        case 43: return "unsupported_certificate"
        case 44: return "certificate_revoked"
        case 45: return "certificate_expired"
        case 46: return "certificate_unknown"
        case 47: return "illegal_parameter"
        case 48: return "unknown_ca"
        case 49: return "access_denied"
        case 50: return "decode_error"
        case 51: return "decrypt_error"
        case 70: return "protocol_version"
        case 71: return "insufficient_security"
        case 80: return "internal_error"
        case 86: return "inappropriate_fallback"
        case 90: return "user_canceled"
        case 100: return "no_renegotiation"
        case 109: return "missing_extension"
        case 110: return "unsupported_extension"
        case 112: return "unrecognized_name"
        case 116: return "certificate_required"
        case 120: return "no_application_protocol"
        default: return "alert_\(code)"
        }
    }

    public var description: String { "\(name) (\(direction == .sent ? "sent" : "received"))" }
}
