/// Parses the paths and parameters of MAIL FROM and RCPT TO (RFC 5321 4.1.2, RFC 1869 parameters,
/// RFC 6531 UTF-8 mailboxes).
///
/// Deliberately tolerant where real clients err and a sink loses nothing by accepting: a space after the
/// colon, a source route (ignored, as 4.1.1.3 requires), consecutive dots in a local part, UTF-8 in a
/// mailbox without the SMTPUTF8 parameter. Strict where a real server would refuse the message: the angle
/// brackets, an empty local part or domain, invalid UTF-8, a local part over 64 octets or a domain over
/// 255 (4.5.3.1.1, 4.5.3.1.2).
enum SMTPPathParser {
    struct Path: Equatable {
        /// `local@domain`, or empty for the null path `<>`.
        var mailbox: String
        var containsNonASCII: Bool
    }

    enum Role {
        case sender, recipient

        var badSyntax: String { self == .sender ? "5.1.7" : "5.1.3" }
        var keyword: String { self == .sender ? "FROM:" : "TO:" }
        var usage: String { self == .sender ? "Syntax: MAIL FROM:<address> [parameters]" : "Syntax: RCPT TO:<address> [parameters]" }
    }

    /// Splits `FROM:<path> params` into the path and the parameter list.
    static func parse(_ argument: ArraySlice<UInt8>, role: Role) throws(SMTPReply) -> (Path, [(key: String, value: [UInt8]?)]) {
        let keyword = Array(role.keyword.utf8)
        guard argument.count >= keyword.count,
              zip(argument.prefix(keyword.count), keyword).allSatisfy({ asciiUpper($0) == $1 })
        else { throw SMTPReply(501, "5.5.4", role.usage) }
        var index = argument.startIndex + keyword.count
        while index < argument.endIndex && argument[index] == UInt8(ascii: " ") { index += 1 }
        let path = try parsePath(argument, at: &index, role: role)
        var parameters: [(key: String, value: [UInt8]?)] = []
        while index < argument.endIndex {
            guard argument[index] == UInt8(ascii: " ") else {
                throw SMTPReply(501, role.badSyntax, "Unexpected characters after the address")
            }
            while index < argument.endIndex && argument[index] == UInt8(ascii: " ") { index += 1 }
            if index == argument.endIndex { break }
            var end = index
            while end < argument.endIndex && argument[end] != UInt8(ascii: " ") { end += 1 }
            parameters.append(try parseParameter(argument[index..<end]))
            index = end
        }
        return (path, parameters)
    }

    private static func parsePath(_ bytes: ArraySlice<UInt8>, at index: inout Int, role: Role) throws(SMTPReply) -> Path {
        let bad = { (why: String) in SMTPReply(501, role.badSyntax, why) }
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "<") else {
            throw bad("The address must be in angle brackets: <user@example.com>")
        }
        index += 1
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: ">") {
            index += 1
            guard role == .sender else { throw bad("The null path <> is allowed only in MAIL FROM") }
            return Path(mailbox: "", containsNonASCII: false)
        }
        // Source route "@a,@b:" (RFC 5321 4.1.1.3, appendix C): accepted and ignored.
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "@") {
            while index < bytes.endIndex && bytes[index] != UInt8(ascii: ":") {
                guard bytes[index] != UInt8(ascii: ">") else { throw bad("Malformed source route") }
                index += 1
            }
            guard index < bytes.endIndex else { throw bad("Malformed source route") }
            index += 1
        }
        // Local part: dot-string or quoted-string.
        let localStart = index
        var nonASCII = false
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            var closed = false
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard index < bytes.endIndex, bytes[index] >= 0x20 || bytes[index] == 9 else { throw bad("Malformed quoted local part") }
                    if bytes[index] >= 0x80 { nonASCII = true }
                } else if byte == UInt8(ascii: "\"") {
                    index += 1
                    closed = true
                    break
                } else if byte < 0x20 || byte == 0x7F {
                    throw bad("Control character in the address")
                } else if byte >= 0x80 {
                    nonASCII = true
                }
                index += 1
            }
            guard closed else { throw bad("Unterminated quoted local part") }
        } else {
            while index < bytes.endIndex, isAtext(bytes[index]) || bytes[index] == UInt8(ascii: ".") {
                if bytes[index] >= 0x80 { nonASCII = true }
                index += 1
            }
        }
        let local = bytes[localStart..<index]
        guard !local.isEmpty else { throw bad("The address has no local part") }
        guard local.count <= 64 else { throw bad("The local part is longer than 64 octets") }
        guard index < bytes.endIndex else { throw bad("Missing closing angle bracket") }
        var mailboxEnd = index
        if bytes[index] == UInt8(ascii: ">") {
            // Only "Postmaster" may go without a domain (RFC 5321 4.1.1.3).
            guard role == .recipient, String(decoding: local, as: UTF8.self).lowercased() == "postmaster" else {
                throw bad("The address has no domain: use user@example.com")
            }
        } else {
            guard bytes[index] == UInt8(ascii: "@") else { throw bad("Invalid character in the local part") }
            index += 1
            let domainStart = index
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "[") {
                while index < bytes.endIndex && bytes[index] != UInt8(ascii: "]") {
                    let byte = bytes[index]
                    guard byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "[") || index == domainStart else {
                        throw bad("Malformed address literal")
                    }
                    index += 1
                }
                guard index < bytes.endIndex else { throw bad("Malformed address literal") }
                index += 1
            } else {
                var previous: UInt8 = UInt8(ascii: ".")
                while index < bytes.endIndex && bytes[index] != UInt8(ascii: ">") {
                    let byte = bytes[index]
                    let isLetterDigitHyphen = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                        || byte == UInt8(ascii: "_")
                    if byte == UInt8(ascii: ".") {
                        guard previous != UInt8(ascii: ".") else { throw bad("Empty label in the domain") }
                    } else if byte >= 0x80 {
                        nonASCII = true
                    } else if !isLetterDigitHyphen {
                        throw bad("Invalid character in the domain")
                    }
                    previous = byte
                    index += 1
                }
                guard index > domainStart else { throw bad("The address has no domain: use user@example.com") }
                guard previous != UInt8(ascii: ".") else { throw bad("The domain ends with a dot") }
            }
            guard index - domainStart <= 255 else { throw bad("The domain is longer than 255 octets") }
            mailboxEnd = index
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: ">") else { throw bad("Missing closing angle bracket") }
        }
        index += 1
        guard let mailbox = String(validating: bytes[localStart..<mailboxEnd], as: UTF8.self) else {
            throw bad("The address is not valid UTF-8")
        }
        return Path(mailbox: mailbox, containsNonASCII: nonASCII)
    }

    /// `keyword[=value]`: keyword is letters, digits and hyphens; the value is printable (UTF-8 allowed, RFC 6531).
    private static func parseParameter(_ bytes: ArraySlice<UInt8>) throws(SMTPReply) -> (key: String, value: [UInt8]?) {
        let equals = bytes.firstIndex(of: UInt8(ascii: "="))
        let keyBytes = bytes[bytes.startIndex..<(equals ?? bytes.endIndex)]
        guard !keyBytes.isEmpty, keyBytes.count <= 64, keyBytes.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") }) else {
            throw SMTPReply(501, "5.5.4", "Malformed parameter")
        }
        let key = String(decoding: keyBytes.map(asciiUpper), as: UTF8.self)
        guard let equals else { return (key, nil) }
        let value = bytes[(equals + 1)...]
        guard !value.isEmpty, value.allSatisfy({ $0 > 0x20 && $0 != UInt8(ascii: "=") && $0 != 0x7F }) else {
            throw SMTPReply(501, "5.5.4", "Malformed value for parameter \(key)")
        }
        return (key, Array(value))
    }

    static func asciiUpper(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// RFC 5322 atext, plus any octet of a UTF-8 sequence (RFC 6531).
    private static func isAtext(_ byte: UInt8) -> Bool {
        if isAlphanumeric(byte) || byte >= 0x80 { return true }
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "/"),
             UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
             UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
