/// Decoding of HTML character references (`&amp;`, `&#1234;`, `&#x4E2D;`) for the names mail uses.
enum HTMLEntities {
    /// Decodes the reference starting at `input[start]` (which must be `&`).
    /// Returns the scalar and the index after the reference, or nil when it is not a reference.
    static func decode(_ input: [Unicode.Scalar], at start: Int) -> (Unicode.Scalar, Int)? {
        var i = start + 1
        guard i < input.count else { return nil }
        if input[i] == "#" {
            i += 1
            var hex = false
            if i < input.count, input[i] == "x" || input[i] == "X" {
                hex = true
                i += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while i < input.count, digits < 8, let digit = digitValue(input[i], hex: hex) {
                value = value &* (hex ? 16 : 10) &+ digit
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if i < input.count, input[i] == ";" { i += 1 }
            if value == 0 || value > 0x10FFFF { return ("\u{FFFD}", i) }
            // Windows-1252 code points that senders write as numeric references.
            if value >= 0x80, value <= 0x9F { return (windows1252[Int(value - 0x80)], i) }
            return (Unicode.Scalar(value) ?? "\u{FFFD}", i)
        }
        let nameStart = i
        while i < input.count, i - nameStart < 10, ("a"..."z").contains(input[i]) || ("A"..."Z").contains(input[i])
                || ("0"..."9").contains(input[i]) {
            i += 1
        }
        guard i > nameStart else { return nil }
        let name = TextDocument.makeString(input[nameStart..<i])
        guard let scalar = named[name] ?? named[name.lowercased()] else { return nil }
        if i < input.count, input[i] == ";" { i += 1 }
        return (scalar, i)
    }

    /// Decodes every reference in `text` (used for attribute values such as `href`).
    static func decode(_ text: some Sequence<Unicode.Scalar>) -> String {
        let input = Array(text)
        guard input.contains("&") else { return TextDocument.makeString(input) }
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(input.count)
        var i = 0
        while i < input.count {
            if input[i] == "&", let (scalar, next) = decode(input, at: i) {
                output.append(scalar)
                i = next
            } else {
                output.append(input[i])
                i += 1
            }
        }
        return TextDocument.makeString(output)
    }

    private static func digitValue(_ scalar: Unicode.Scalar, hex: Bool) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: return scalar.value - 0x30
        case 0x41...0x46 where hex: return scalar.value - 0x41 + 10
        case 0x61...0x66 where hex: return scalar.value - 0x61 + 10
        default: return nil
        }
    }

    private static let windows1252: [Unicode.Scalar] = [
        "\u{20AC}", "\u{FFFD}", "\u{201A}", "\u{0192}", "\u{201E}", "\u{2026}", "\u{2020}", "\u{2021}",
        "\u{02C6}", "\u{2030}", "\u{0160}", "\u{2039}", "\u{0152}", "\u{FFFD}", "\u{017D}", "\u{FFFD}",
        "\u{FFFD}", "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "\u{2022}", "\u{2013}", "\u{2014}",
        "\u{02DC}", "\u{2122}", "\u{0161}", "\u{203A}", "\u{0153}", "\u{FFFD}", "\u{017E}", "\u{0178}",
    ]

    private static let named: [String: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        "ensp": "\u{2002}", "emsp": "\u{2003}", "thinsp": "\u{2009}", "zwnj": "\u{200C}", "zwj": "\u{200D}",
        "shy": "\u{AD}", "copy": "©", "reg": "®", "trade": "™", "hellip": "…", "mdash": "—", "ndash": "–",
        "lsquo": "‘", "rsquo": "’", "sbquo": "‚", "ldquo": "“", "rdquo": "”", "bdquo": "„",
        "laquo": "«", "raquo": "»", "lsaquo": "‹", "rsaquo": "›", "bull": "•", "middot": "·",
        "euro": "€", "pound": "£", "yen": "¥", "cent": "¢", "curren": "¤", "sect": "§", "para": "¶",
        "deg": "°", "plusmn": "±", "times": "×", "divide": "÷", "micro": "µ", "iexcl": "¡", "iquest": "¿",
        "ordf": "ª", "ordm": "º", "sup1": "¹", "sup2": "²", "sup3": "³", "frac12": "½", "frac14": "¼",
        "frac34": "¾", "larr": "←", "rarr": "→", "uarr": "↑", "darr": "↓", "dagger": "†", "Dagger": "‡",
        "Agrave": "À", "Aacute": "Á", "Acirc": "Â", "Atilde": "Ã", "Auml": "Ä", "Aring": "Å", "AElig": "Æ",
        "Ccedil": "Ç", "Egrave": "È", "Eacute": "É", "Ecirc": "Ê", "Euml": "Ë", "Igrave": "Ì", "Iacute": "Í",
        "Icirc": "Î", "Iuml": "Ï", "Ntilde": "Ñ", "Ograve": "Ò", "Oacute": "Ó", "Ocirc": "Ô", "Otilde": "Õ",
        "Ouml": "Ö", "Oslash": "Ø", "Ugrave": "Ù", "Uacute": "Ú", "Ucirc": "Û", "Uuml": "Ü", "Yacute": "Ý",
        "szlig": "ß", "agrave": "à", "aacute": "á", "acirc": "â", "atilde": "ã", "auml": "ä", "aring": "å",
        "aelig": "æ", "ccedil": "ç", "egrave": "è", "eacute": "é", "ecirc": "ê", "euml": "ë", "igrave": "ì",
        "iacute": "í", "icirc": "î", "iuml": "ï", "ntilde": "ñ", "ograve": "ò", "oacute": "ó", "ocirc": "ô",
        "otilde": "õ", "ouml": "ö", "oslash": "ø", "ugrave": "ù", "uacute": "ú", "ucirc": "û", "uuml": "ü",
        "yacute": "ý", "yuml": "ÿ", "OElig": "Œ", "oelig": "œ", "Scaron": "Š", "scaron": "š",
    ]
}
