/// Parses "value; name=token; name=\"quoted\"" header values (Content-Type, Content-Disposition) with
/// RFC 2231 continuations ("name*0*", "name*1") and charset'language'percent-encoded values, plus the
/// common non-standard RFC 2047 encoded words inside quoted values. Parameter names are lowercased.
public enum MIMEParameters {
    static let maxSections = 1000

    /// Splits a header value into its lowercased main value and its parameters.
    public static func parse(_ text: String) -> (value: String, parameters: [String: String]) {
        let u = Array(text.utf8)
        let n = u.count
        var i = 0
        // The main value, up to the first ';', without comments.
        var main = [UInt8]()
        while i < n, u[i] != UInt8(ascii: ";") {
            if u[i] == UInt8(ascii: "(") { i = skipComment(u, i); continue }
            if u[i] != 0x20 && u[i] != 0x09 { main.append(u[i]) }
            i += 1
        }
        var plain: [String: String] = [:]
        // name -> (section -> (extended, bytes))
        var sections: [String: [Int: (extended: Bool, bytes: [UInt8])]] = [:]
        while i < n {
            while i < n, u[i] == UInt8(ascii: ";") || isSpace(u[i]) { i += 1 }
            let nameStart = i
            while i < n, u[i] != UInt8(ascii: "="), u[i] != UInt8(ascii: ";") { i += 1 }
            var nameEnd = i
            while nameEnd > nameStart, isSpace(u[nameEnd - 1]) { nameEnd -= 1 }
            guard i < n, u[i] == UInt8(ascii: "=") else { continue }
            i += 1
            while i < n, isSpace(u[i]) { i += 1 }
            var value = [UInt8]()
            if i < n, u[i] == UInt8(ascii: "\"") {
                i += 1
                while i < n, u[i] != UInt8(ascii: "\"") {
                    if u[i] == UInt8(ascii: "\\"), i + 1 < n { i += 1 }
                    value.append(u[i])
                    i += 1
                }
                i += 1
                while i < n, u[i] != UInt8(ascii: ";") { i += 1 }  // junk after the closing quote
            } else {
                while i < n, u[i] != UInt8(ascii: ";") { value.append(u[i]); i += 1 }
                while let l = value.last, isSpace(l) { value.removeLast() }
            }
            let name = String(decoding: u[nameStart..<nameEnd], as: UTF8.self).lowercased()
            guard !name.isEmpty else { continue }
            if let star = name.firstIndex(of: "*") {
                let base = String(name[..<star])
                var rest = name[name.index(after: star)...]
                let extended = rest.hasSuffix("*") || rest.isEmpty
                if rest.hasSuffix("*") { rest = rest.dropLast() }
                let section: Int
                if rest.isEmpty { section = 0 } else if let s = Int(rest), s >= 0, s < maxSections { section = s } else { continue }
                if sections[base, default: [:]][section] == nil {
                    sections[base, default: [:]][section] = (extended, value)
                }
            } else if plain[name] == nil {
                plain[name] = String(decoding: value, as: UTF8.self)
            }
        }
        var params: [String: String] = [:]
        for (name, value) in plain {
            params[name] = value.utf8.count >= 8 ? RFC2047.decode(value) : value
        }
        for (name, parts) in sections {
            var charset: String? = nil
            var bytes = [UInt8]()
            for section in parts.keys.sorted() {
                let (extended, sectionBytes) = parts[section]!
                var raw = sectionBytes[...]
                if extended && section == 0 {
                    // charset'language'value
                    if let q1 = raw.firstIndex(of: UInt8(ascii: "'")),
                       let q2 = raw[raw.index(after: q1)...].firstIndex(of: UInt8(ascii: "'")) {
                        let cs = String(decoding: raw[raw.startIndex..<q1], as: UTF8.self)
                        charset = cs.isEmpty ? nil : cs
                        raw = raw[raw.index(after: q2)...]
                    }
                }
                if extended { bytes.append(contentsOf: percentDecode(raw)) } else { bytes.append(contentsOf: raw) }
            }
            params[name] = Charset.decode(bytes, label: charset)
        }
        return (String(decoding: main, as: UTF8.self).lowercased(), params)
    }

    static func percentDecode(_ s: ArraySlice<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(s.count)
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: "%"), i + 2 < s.endIndex,
               let h = QuotedPrintable.hexValue(s[i + 1]), let l = QuotedPrintable.hexValue(s[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return out
    }

    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }

    /// Index just past the comment starting at `start` (nested parentheses, backslash escapes).
    static func skipComment(_ u: [UInt8], _ start: Int) -> Int {
        var depth = 0
        var i = start
        while i < u.count {
            switch u[i] {
            case UInt8(ascii: "\\"): i += 1
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return i + 1 }
            default: break
            }
            i += 1
        }
        return u.count
    }
}
