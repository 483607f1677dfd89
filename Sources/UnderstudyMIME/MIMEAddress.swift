/// One mailbox from an address header: the decoded display name (nil when there is none) and the
/// address as written ("local@domain", without angle brackets).
public struct MIMEAddress: Sendable, Hashable, CustomStringConvertible {
    public let name: String?
    public let address: String

    public init(name: String?, address: String) {
        self.name = name
        self.address = address
    }

    public var description: String {
        guard let name else { return address }
        return "\(name) <\(address)>"
    }

    /// Parses an RFC 5322 address-list (raw header value, encoded words not yet decoded): display
    /// names with quoted strings, comments and RFC 2047 words, angle addresses with obsolete routes,
    /// groups (flattened into their members), and the sloppy forms real mail uses. Never fails; items
    /// with nothing usable are skipped.
    public static func parseList(_ raw: String) -> [MIMEAddress] {
        var tokens = Tokenizer(Array(raw.utf8)).tokens()
        tokens.append(.special(UInt8(ascii: ",")))
        var result: [MIMEAddress] = []
        var item: [Token] = []
        var angleDepth = 0
        for token in tokens {
            switch token {
            case .special(UInt8(ascii: "<")): angleDepth += 1; item.append(token)
            case .special(UInt8(ascii: ">")): angleDepth = max(0, angleDepth - 1); item.append(token)
            case .special(UInt8(ascii: ",")) where angleDepth == 0, .special(UInt8(ascii: ";")) where angleDepth == 0:
                if let a = mailbox(item) { result.append(a) }
                item.removeAll(keepingCapacity: true)
            case .special(UInt8(ascii: ":")) where angleDepth == 0:
                // "group-name:" starts a group; its name is not a mailbox. Keep the tokens when it is
                // not followed by mailboxes, i.e. when there is no phrase (a stray colon).
                if item.contains(where: { if case .comment = $0 { return false }; return true }) {
                    item.removeAll(keepingCapacity: true)
                } else {
                    item.append(token)
                }
            default:
                item.append(token)
            }
        }
        return result
    }

    enum Token {
        case atom([UInt8])
        case quoted([UInt8])
        case comment([UInt8])
        case literal([UInt8])  // [domain literal], brackets included
        case special(UInt8)
    }

    static func mailbox(_ tokens: [Token]) -> MIMEAddress? {
        if let open = tokens.firstIndex(where: { if case .special(UInt8(ascii: "<")) = $0 { return true }; return false }) {
            let close = tokens[open...].firstIndex { if case .special(UInt8(ascii: ">")) = $0 { return true }; return false }
                ?? tokens.endIndex
            var inner = Array(tokens[(open + 1)..<close])
            // Obsolete route "@a,@b:" before the address.
            if let colon = inner.firstIndex(where: { if case .special(UInt8(ascii: ":")) = $0 { return true }; return false }) {
                inner.removeSubrange(...colon)
            }
            let address = addrSpec(inner[...])
            var name = phrase(tokens[..<open])
            if name == nil, close < tokens.endIndex { name = phrase(tokens[(close + 1)...]) }
            if address.isEmpty && name == nil { return nil }
            return MIMEAddress(name: name, address: address)
        }
        let address = addrSpec(tokens[...])
        guard !address.isEmpty else { return nil }
        // "addr@example.com (Display Name)": the comment is the name.
        var name: String? = nil
        for t in tokens { if case .comment(let c) = t { name = decodedName(c); if name != nil { break } } }
        return MIMEAddress(name: name, address: address)
    }

    static func addrSpec(_ tokens: ArraySlice<Token>) -> String {
        var out = [UInt8]()
        for t in tokens {
            switch t {
            case .atom(let a): out.append(contentsOf: a)
            case .quoted(let q):
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: q)
                out.append(UInt8(ascii: "\""))
            case .literal(let l): out.append(contentsOf: l)
            case .special(let s) where s == UInt8(ascii: "@") || s == UInt8(ascii: "."): out.append(s)
            default: break
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Display name: atoms and quoted strings joined by single spaces, then RFC 2047 decoded.
    static func phrase(_ tokens: ArraySlice<Token>) -> String? {
        var out = [UInt8]()
        for t in tokens {
            switch t {
            case .atom(let w), .quoted(let w):
                if !out.isEmpty && !w.isEmpty { out.append(0x20) }
                out.append(contentsOf: w)
            case .special(let s) where s == UInt8(ascii: ".") || s == UInt8(ascii: "@"):
                out.append(s)
            default: break
            }
        }
        return decodedName(out)
    }

    static func decodedName(_ bytes: [UInt8]) -> String? {
        let s = RFC2047.decode(String(decoding: bytes, as: UTF8.self))
        let trimmed = s.trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }

    struct Tokenizer {
        let u: [UInt8]
        init(_ u: [UInt8]) { self.u = u }

        func tokens() -> [Token] {
            var out: [Token] = []
            var i = 0
            let n = u.count
            while i < n {
                let b = u[i]
                switch b {
                case 0x20, 0x09, 0x0D, 0x0A: i += 1
                case UInt8(ascii: "\""):
                    var q = [UInt8]()
                    i += 1
                    while i < n, u[i] != UInt8(ascii: "\"") {
                        if u[i] == UInt8(ascii: "\\"), i + 1 < n { i += 1 }
                        q.append(u[i])
                        i += 1
                    }
                    i += 1
                    out.append(.quoted(q))
                case UInt8(ascii: "("):
                    let end = MIMEParameters.skipComment(u, i)
                    let closed = end > i + 1 && u[end - 1] == UInt8(ascii: ")")
                    let inner = u[(i + 1)..<(closed ? end - 1 : end)]
                    var c = [UInt8]()
                    var k = inner.startIndex
                    while k < inner.endIndex {
                        if inner[k] == UInt8(ascii: "\\"), k + 1 < inner.endIndex { k += 1 }
                        c.append(inner[k])
                        k += 1
                    }
                    out.append(.comment(c))
                    i = end
                case UInt8(ascii: "["):
                    var j = i
                    while j < n, u[j] != UInt8(ascii: "]") { j += 1 }
                    j = min(j + 1, n)
                    out.append(.literal(Array(u[i..<j])))
                    i = j
                case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: ";"),
                     UInt8(ascii: "@"):
                    out.append(.special(b))
                    i += 1
                default:
                    var j = i
                    while j < n, !Tokenizer.isDelimiter(u[j]) { j += 1 }
                    out.append(.atom(Array(u[i..<j])))
                    i = j
                }
            }
            return out
        }

        static func isDelimiter(_ b: UInt8) -> Bool {
            switch b {
            case 0x20, 0x09, 0x0D, 0x0A, UInt8(ascii: "\""), UInt8(ascii: "("), UInt8(ascii: "["),
                 UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: ";"),
                 UInt8(ascii: "@"):
                return true
            default: return false
            }
        }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" || f == "\n" || f == "\r\n" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" || l == "\r\n" { s = s.dropLast() }
        return String(s)
    }
}
