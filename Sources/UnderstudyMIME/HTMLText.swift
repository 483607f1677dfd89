/// Converts HTML mail bodies to readable plain text: script, style, head, title and template
/// contents dropped, comments dropped, block elements turned into line breaks (paragraphs and
/// headings into blank lines), table cells separated by spaces, named and numeric character
/// references decoded, whitespace collapsed (kept as is inside <pre>), link text kept. Linear time.
public enum HTMLText {
    public static func plainText(fromHTML html: String) -> String {
        var c = Converter(Array(html.utf8))
        c.run()
        return String(decoding: c.out, as: UTF8.self)
    }

    static let skipped: Set<String> = ["script", "style", "head", "title", "template", "noembed", "xml"]
    static let paragraphs: Set<String> = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "ul",
                                          "ol", "dl", "pre", "hr", "address", "figure", "form", "fieldset"]
    static let blocks: Set<String> = ["div", "li", "tr", "dt", "dd", "section", "article", "header", "footer",
                                      "nav", "aside", "main", "center", "caption", "figcaption", "tbody",
                                      "thead", "tfoot", "body", "html", "legend", "details", "summary",
                                      "option", "menu"]
    static let cells: Set<String> = ["td", "th"]

    static let entities: [String: UInt32] = [
        "amp": 38, "lt": 60, "gt": 62, "quot": 34, "apos": 39, "nbsp": 32, "ensp": 32, "emsp": 32,
        "thinsp": 32, "zwnj": 0x200C, "zwj": 0x200D, "shy": 0xAD, "copy": 0xA9, "reg": 0xAE, "trade": 0x2122,
        "hellip": 0x2026, "mdash": 0x2014, "ndash": 0x2013, "lsquo": 0x2018, "rsquo": 0x2019,
        "sbquo": 0x201A, "ldquo": 0x201C, "rdquo": 0x201D, "bdquo": 0x201E, "bull": 0x2022,
        "middot": 0xB7, "euro": 0x20AC, "pound": 0xA3, "yen": 0xA5, "cent": 0xA2, "sect": 0xA7,
        "para": 0xB6, "deg": 0xB0, "plusmn": 0xB1, "times": 0xD7, "divide": 0xF7, "laquo": 0xAB,
        "raquo": 0xBB, "lsaquo": 0x2039, "rsaquo": 0x203A, "iexcl": 0xA1, "iquest": 0xBF, "dagger": 0x2020,
        "Dagger": 0x2021, "permil": 0x2030, "prime": 0x2032, "larr": 0x2190, "rarr": 0x2192,
        "uarr": 0x2191, "darr": 0x2193, "harr": 0x2194, "hearts": 0x2665, "check": 0x2713,
        "frac12": 0xBD, "frac14": 0xBC, "frac34": 0xBE, "sup1": 0xB9, "sup2": 0xB2, "sup3": 0xB3,
        "micro": 0xB5, "ordf": 0xAA, "ordm": 0xBA, "not": 0xAC, "macr": 0xAF, "acute": 0xB4,
        "cedil": 0xB8, "uml": 0xA8, "curren": 0xA4, "brvbar": 0xA6,
        "Agrave": 0xC0, "Aacute": 0xC1, "Acirc": 0xC2, "Atilde": 0xC3, "Auml": 0xC4, "Aring": 0xC5,
        "AElig": 0xC6, "Ccedil": 0xC7, "Egrave": 0xC8, "Eacute": 0xC9, "Ecirc": 0xCA, "Euml": 0xCB,
        "Igrave": 0xCC, "Iacute": 0xCD, "Icirc": 0xCE, "Iuml": 0xCF, "ETH": 0xD0, "Ntilde": 0xD1,
        "Ograve": 0xD2, "Oacute": 0xD3, "Ocirc": 0xD4, "Otilde": 0xD5, "Ouml": 0xD6, "Oslash": 0xD8,
        "Ugrave": 0xD9, "Uacute": 0xDA, "Ucirc": 0xDB, "Uuml": 0xDC, "Yacute": 0xDD, "THORN": 0xDE,
        "szlig": 0xDF, "agrave": 0xE0, "aacute": 0xE1, "acirc": 0xE2, "atilde": 0xE3, "auml": 0xE4,
        "aring": 0xE5, "aelig": 0xE6, "ccedil": 0xE7, "egrave": 0xE8, "eacute": 0xE9, "ecirc": 0xEA,
        "euml": 0xEB, "igrave": 0xEC, "iacute": 0xED, "icirc": 0xEE, "iuml": 0xEF, "eth": 0xF0,
        "ntilde": 0xF1, "ograve": 0xF2, "oacute": 0xF3, "ocirc": 0xF4, "otilde": 0xF5, "ouml": 0xF6,
        "oslash": 0xF8, "ugrave": 0xF9, "uacute": 0xFA, "ucirc": 0xFB, "uuml": 0xFC, "yacute": 0xFD,
        "thorn": 0xFE, "yuml": 0xFF, "OElig": 0x152, "oelig": 0x153, "Scaron": 0x160, "scaron": 0x161,
        "Yuml": 0x178, "fnof": 0x192, "circ": 0x2C6, "tilde": 0x2DC, "Alpha": 0x391, "alpha": 0x3B1,
        "beta": 0x3B2, "gamma": 0x3B3, "delta": 0x3B4, "pi": 0x3C0, "mu": 0x3BC, "sigma": 0x3C3,
        "omega": 0x3C9, "infin": 0x221E, "ne": 0x2260, "le": 0x2264, "ge": 0x2265, "minus": 0x2212,
        "asymp": 0x2248, "star": 0x2606, "starf": 0x2605,
    ]

    struct Converter {
        let u: [UInt8]
        var out: [UInt8] = []
        var pendingBreaks = 0
        var pendingSpace = false
        var preDepth = 0
        var missingClose: Set<String> = []  // close tags already searched for in vain (keeps it linear)
        static let maxTagScan = 256

        init(_ u: [UInt8]) {
            self.u = u
            out.reserveCapacity(u.count / 2)
        }

        mutating func emit(_ bytes: some Collection<UInt8>) {
            if !out.isEmpty {
                if pendingBreaks > 0 {
                    while let l = out.last, l == 0x20 { out.removeLast() }
                    var have = 0
                    var k = out.count - 1
                    while k >= 0, out[k] == 0x0A, have < 2 { have += 1; k -= 1 }
                    for _ in have..<max(have, pendingBreaks) { out.append(0x0A) }
                } else if pendingSpace, let l = out.last, l != 0x20, l != 0x0A {
                    out.append(0x20)
                }
            }
            pendingBreaks = 0
            pendingSpace = false
            out.append(contentsOf: bytes)
        }

        mutating func breakLine(_ n: Int) { pendingBreaks = min(2, max(pendingBreaks, n)) }

        mutating func run() {
            let n = u.count
            var i = 0
            while i < n {
                let b = u[i]
                if b == UInt8(ascii: "<") {
                    if let next = tag(at: i) { i = next; continue }
                    emit(CollectionOfOne(b))
                    i += 1
                } else if b == UInt8(ascii: "&") {
                    i = entity(at: i)
                } else if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C {
                    if preDepth > 0 {
                        if b == 0x0A { out.append(0x0A) } else if b != 0x0D { emit(CollectionOfOne(b)) }
                    } else {
                        pendingSpace = true
                    }
                    i += 1
                } else {
                    var j = i + 1
                    while j < n, u[j] != UInt8(ascii: "<"), u[j] != UInt8(ascii: "&"), u[j] > 0x20 { j += 1 }
                    emit(u[i..<j])
                    i = j
                }
            }
            while let l = out.last, l == 0x20 || l == 0x0A { out.removeLast() }
        }

        /// Handles a tag, comment or declaration at `i`; returns the index after it, or nil when the
        /// "<" is literal text.
        mutating func tag(at start: Int) -> Int? {
            let n = u.count
            var i = start + 1
            guard i < n else { return nil }
            if u[i] == UInt8(ascii: "!") {
                if i + 2 < n, u[i + 1] == UInt8(ascii: "-"), u[i + 2] == UInt8(ascii: "-") {
                    return find([0x2D, 0x2D, 0x3E], from: i + 3).map { $0 + 3 } ?? n
                }
                return (find([0x3E], from: i) ?? (n - 1)) + 1
            }
            if u[i] == UInt8(ascii: "?") { return (find([0x3E], from: i) ?? (n - 1)) + 1 }
            var closing = false
            if u[i] == UInt8(ascii: "/") { closing = true; i += 1 }
            guard i < n, isLetter(u[i]) else { return nil }
            let nameStart = i
            while i < n, isLetter(u[i]) || (u[i] >= 0x30 && u[i] <= 0x39) || u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: ":") { i += 1 }
            let name = String(decoding: u[nameStart..<i], as: UTF8.self).lowercased()
            let end = tagEnd(from: i)
            if !closing && HTMLText.skipped.contains(name) {
                // Skip to the matching close tag ("</head" may be missing: then stop at "<body").
                if !missingClose.contains(name) {
                    if let close = findCloseTag(name, from: end) { return close }
                    missingClose.insert(name)
                }
                if name == "head", !missingClose.contains("<body") {
                    if let body = findCloseTag("body", from: end, opening: true) { return body }
                    missingClose.insert("<body")
                }
                if name == "head" || name == "html" { return end }
                return n
            }
            if name == "br" { pendingBreaks = min(2, pendingBreaks + 1); if out.isEmpty { pendingBreaks = 0 } }
            else if HTMLText.paragraphs.contains(name) { breakLine(2) }
            else if HTMLText.blocks.contains(name) { breakLine(1) }
            else if HTMLText.cells.contains(name) { pendingSpace = true }
            else if name == "img" || name == "input" { pendingSpace = true }
            if name == "pre" { preDepth = max(0, preDepth + (closing ? -1 : 1)) }
            return end
        }

        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }

        /// Index after the ">" closing the tag, quote-aware for a bounded distance.
        func tagEnd(from start: Int) -> Int {
            let n = u.count
            var i = start
            var quote: UInt8 = 0
            let limit = min(n, start + Converter.maxTagScan)
            while i < limit {
                let b = u[i]
                if quote != 0 { if b == quote { quote = 0 } } else if b == 0x22 || b == 0x27 { quote = b } else if b == 0x3E { return i + 1 }
                i += 1
            }
            return (find([0x3E], from: start) ?? (n - 1)) + 1
        }

        func find(_ needle: [UInt8], from start: Int) -> Int? {
            let n = u.count
            guard !needle.isEmpty, start < n else { return nil }
            var i = start
            while i + needle.count <= n {
                if u[i] == needle[0] {
                    var k = 1
                    while k < needle.count, u[i + k] == needle[k] { k += 1 }
                    if k == needle.count { return i }
                }
                i += 1
            }
            return nil
        }

        /// Index after "</name ...>" (case-insensitive) or, with `opening`, the index of "<name".
        func findCloseTag(_ name: String, from start: Int, opening: Bool = false) -> Int? {
            let nameBytes = Array(name.utf8)
            let n = u.count
            var i = start
            while i < n {
                guard let lt = find([0x3C], from: i) else { return nil }
                var k = lt + 1
                if !opening {
                    guard k < n, u[k] == UInt8(ascii: "/") else { i = lt + 1; continue }
                    k += 1
                }
                var m = 0
                while m < nameBytes.count, k + m < n, u[k + m] | 0x20 == nameBytes[m] { m += 1 }
                if m == nameBytes.count, k + m >= n || !isLetter(u[k + m]) {
                    if opening { return lt }
                    return (find([0x3E], from: k + m) ?? (n - 1)) + 1
                }
                i = lt + 1
            }
            return nil
        }

        mutating func entity(at start: Int) -> Int {
            let n = u.count
            var i = start + 1
            var scalar: UInt32? = nil
            if i < n, u[i] == UInt8(ascii: "#") {
                i += 1
                var hex = false
                if i < n, u[i] | 0x20 == UInt8(ascii: "x") { hex = true; i += 1 }
                var v: UInt32 = 0
                let digitsStart = i
                while i < n, i - digitsStart < 8 {
                    let b = u[i]
                    if let d = QuotedPrintable.hexValue(b), hex || (b >= 0x30 && b <= 0x39) {
                        v = v * (hex ? 16 : 10) + UInt32(d)
                        i += 1
                    } else { break }
                }
                if i > digitsStart {
                    if v >= 0x80 && v < 0xA0 {
                        scalar = Charset.windows1252Scalar(UInt8(v)).value  // as browsers read &#150;
                    } else {
                        scalar = Unicode.Scalar(v) != nil && v != 0 ? v : 0xFFFD
                    }
                    if i < n, u[i] == UInt8(ascii: ";") { i += 1 }
                }
            } else {
                let nameStart = i
                while i < n, i - nameStart < 32, isLetter(u[i]) || (u[i] >= 0x30 && u[i] <= 0x39) { i += 1 }
                let name = String(decoding: u[nameStart..<i], as: UTF8.self)
                if let v = HTMLText.entities[name] {
                    let terminated = i < n && u[i] == UInt8(ascii: ";")
                    if terminated || ["amp", "lt", "gt", "quot", "nbsp"].contains(name) {
                        scalar = v
                        if terminated { i += 1 }
                    }
                }
            }
            guard let scalar, let s = Unicode.Scalar(scalar) else {
                emit(CollectionOfOne(UInt8(ascii: "&")))
                return start + 1
            }
            if s == " " && preDepth == 0 {
                emit(EmptyCollection())
                out.append(0x20)
            } else {
                emit(Array(String(Character(s)).utf8))
            }
            return i
        }
    }
}
