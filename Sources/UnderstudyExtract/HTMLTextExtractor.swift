/// An `<a href>` found while reading HTML.
struct HTMLAnchor {
    /// The href with entities decoded and surrounding whitespace removed.
    var href: String
    /// Visible text, whitespace collapsed; the `alt` of an image when the anchor holds only an image.
    var text: String?
    /// Offset in the document where the anchor's text starts.
    var position: Int
}

/// The visible text of an HTML part plus its anchors.
struct HTMLText {
    var document: TextDocument
    var anchors: [HTMLAnchor]
}

/// A small, forgiving HTML reader: no DOM, one pass, bounded stack. It drops `<style>`,
/// `<script>`, `<title>` and comments, decodes entities, turns block elements into line breaks,
/// and marks text inside emphasised elements (`<strong>`, `<b>`, `<code>`, headings, large or
/// letter-spaced or bold styles).
enum HTMLTextExtractor {
    /// Largest number of HTML scalars read (markup is bulky; the text kept is capped separately).
    static let maximumInputScalars = 1024 * 1024
    private static let maximumDepth = 256

    private struct OpenElement {
        var name: String
        var emphasised: Bool
    }

    static func extract(_ html: String) -> HTMLText {
        var input: [Unicode.Scalar] = []
        input.reserveCapacity(min(html.utf8.count, maximumInputScalars))
        for scalar in html.unicodeScalars {
            if input.count >= maximumInputScalars { break }
            input.append(scalar)
        }

        var document = TextDocument(expectedCount: input.count / 2)
        var anchors: [HTMLAnchor] = []
        var stack: [OpenElement] = []
        var emphasisDepth = 0
        var openAnchor: (href: String, position: Int, alt: String?)?

        func closeAnchor(_ document: TextDocument) {
            guard let anchor = openAnchor else { return }
            openAnchor = nil
            var text = collapse(document.string(anchor.position..<document.count))
            if text.isEmpty, let alt = anchor.alt { text = collapse(alt) }
            anchors.append(HTMLAnchor(href: anchor.href, text: text.isEmpty ? nil : text, position: anchor.position))
        }

        var i = 0
        let n = input.count
        while i < n, !document.isFull {
            let c = input[i]
            if c == "<", i + 1 < n {
                let next = input[i + 1]
                if next == "!" {
                    if i + 3 < n, input[i + 2] == "-", input[i + 3] == "-" {
                        i = find(input, ["-", "-", ">"], from: i + 4).map { $0 + 3 } ?? n
                    } else {
                        i = find(input, [">"], from: i + 2).map { $0 + 1 } ?? n
                    }
                    continue
                }
                if next == "?" {
                    i = find(input, [">"], from: i + 2).map { $0 + 1 } ?? n
                    continue
                }
                if next == "/" || isASCIILetter(next) {
                    let tag = parseTag(input, at: i)
                    i = tag.end
                    if tag.closing {
                        if tag.name == "a" { closeAnchor(document) }
                        if let index = stack.lastIndex(where: { $0.name == tag.name }), stack.count - index <= 32 {
                            for element in stack[index...] where element.emphasised { emphasisDepth -= 1 }
                            stack.removeSubrange(index...)
                        }
                        if blockElements.contains(tag.name) { document.breakLine() }
                        if cellElements.contains(tag.name) { document.breakWord() }
                        continue
                    }
                    switch tag.name {
                    case "style", "script", "title", "template", "xml", "svg", "noscript":
                        if !tag.selfClosing {
                            i = skipRawText(input, name: tag.name, from: i)
                        }
                        continue
                    case "br", "hr":
                        document.breakLine()
                        continue
                    case "img":
                        if var anchor = openAnchor, anchor.alt == nil, let alt = tag.alt {
                            anchor.alt = alt
                            openAnchor = anchor
                        }
                        continue
                    case "a", "area":
                        if tag.name == "a" { closeAnchor(document) }
                        if let href = tag.href {
                            if tag.name == "a", !tag.selfClosing {
                                document.breakWord()
                                openAnchor = (href, document.count, nil)
                            } else {
                                anchors.append(HTMLAnchor(href: href, text: tag.alt.map(collapse), position: document.count))
                            }
                        }
                    default:
                        break
                    }
                    if blockElements.contains(tag.name) { document.breakLine() }
                    if cellElements.contains(tag.name) { document.breakWord() }
                    if !tag.selfClosing, !voidElements.contains(tag.name), stack.count < maximumDepth {
                        let emphasised = emphasisElements.contains(tag.name)
                            || (tag.name == "font" && (tag.fontSize ?? 0) >= 5)
                            || tag.emphasisedStyle
                        stack.append(OpenElement(name: tag.name, emphasised: emphasised))
                        if emphasised { emphasisDepth += 1 }
                    }
                    continue
                }
            }
            var scalar = c
            if c == "&", let (decoded, next) = HTMLEntities.decode(input, at: i) {
                scalar = decoded
                i = next
            } else {
                i += 1
            }
            // In HTML, a newline in the source is only a space.
            if scalar == "\n" || scalar == "\r" { scalar = " " }
            var flags: UInt8 = emphasisDepth > 0 ? TextDocument.emphasis : 0
            if openAnchor != nil { flags |= TextDocument.insideAnchor }
            document.append(scalar, flags: flags)
        }
        closeAnchor(document)
        document.finish()
        return HTMLText(document: document, anchors: anchors)
    }

    // MARK: Tags

    private struct Tag {
        var name = ""
        var closing = false
        var selfClosing = false
        var end = 0
        var href: String?
        var emphasisedStyle = false
        var alt: String?
        var fontSize: Int?
    }

    /// Parses the tag starting at `input[start] == "<"`; attribute values may hold `>` inside quotes.
    private static func parseTag(_ input: [Unicode.Scalar], at start: Int) -> Tag {
        var tag = Tag()
        let n = input.count
        var i = start + 1
        if i < n, input[i] == "/" {
            tag.closing = true
            i += 1
        }
        let nameStart = i
        while i < n, i - nameStart < 32, isASCIILetter(input[i]) || ("0"..."9").contains(input[i]) || input[i] == "-" {
            i += 1
        }
        tag.name = asciiLowercased(input[nameStart..<i])
        var attributes = 0
        while i < n {
            let c = input[i]
            if c == ">" {
                tag.end = i + 1
                return tag
            }
            if c == "/" {
                if i + 1 < n, input[i + 1] == ">" { tag.selfClosing = true }
                i += 1
                continue
            }
            if isSpace(c) {
                i += 1
                continue
            }
            // Attribute name.
            let attributeStart = i
            while i < n, !isSpace(input[i]), input[i] != "=", input[i] != ">", input[i] != "/" || i == attributeStart {
                i += 1
            }
            let attributeLength = i - attributeStart
            let attributeName = input[attributeStart..<min(i, attributeStart + 8)]
            while i < n, isSpace(input[i]) { i += 1 }
            var value: ArraySlice<Unicode.Scalar> = []
            if i < n, input[i] == "=" {
                i += 1
                while i < n, isSpace(input[i]) { i += 1 }
                if i < n, input[i] == "\"" || input[i] == "'" {
                    let quote = input[i]
                    let valueStart = i + 1
                    var j = valueStart
                    while j < n, input[j] != quote { j += 1 }
                    value = input[valueStart..<j]
                    i = min(j + 1, n)
                } else {
                    let valueStart = i
                    while i < n, !isSpace(input[i]), input[i] != ">" { i += 1 }
                    value = input[valueStart..<i]
                }
            }
            attributes += 1
            if attributes > 64 { continue }
            switch attributeLength <= 8 ? asciiLowercased(attributeName) : "" {
            case "href": tag.href = trimmed(HTMLEntities.decode(value))
            case "style": tag.emphasisedStyle = styleIsEmphasised(value)
            case "alt": tag.alt = HTMLEntities.decode(value)
            case "size": tag.fontSize = Int(String(String.UnicodeScalarView(value)).filter(\.isNumber).prefix(3))
            default: break
            }
        }
        tag.end = n
        return tag
    }

    private static func skipRawText(_ input: [Unicode.Scalar], name: String, from start: Int) -> Int {
        let closing: [Unicode.Scalar] = ["<", "/"] + Array(name.unicodeScalars)
        var i = start
        while let found = find(input, closing, from: i, caseInsensitive: true) {
            let after = found + closing.count
            if after >= input.count || !isASCIILetter(input[after]) {
                return find(input, [">"], from: after).map { $0 + 1 } ?? input.count
            }
            i = after
        }
        return input.count
    }

    private static func find(_ input: [Unicode.Scalar], _ needle: [Unicode.Scalar], from start: Int,
                             caseInsensitive: Bool = false) -> Int? {
        guard let first = needle.first, input.count >= needle.count else { return nil }
        var i = start
        let last = input.count - needle.count
        while i <= last {
            let c = caseInsensitive ? TextDocument.fold(input[i]) : input[i]
            if c == first {
                var k = 1
                while k < needle.count,
                      (caseInsensitive ? TextDocument.fold(input[i + k]) : input[i + k]) == needle[k] { k += 1 }
                if k == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    // MARK: Styles

    /// True for inline styles that make a code stand out: large font, letter spacing, bold, monospace.
    static func styleIsEmphasised(_ style: String) -> Bool {
        styleIsEmphasised(ArraySlice(style.unicodeScalars))
    }

    static func styleIsEmphasised(_ style: ArraySlice<Unicode.Scalar>) -> Bool {
        var i = style.startIndex
        while i < style.endIndex {
            let end = style[i...].firstIndex(of: ";") ?? style.endIndex
            defer { i = end + 1 }
            var p = i
            while p < end, isSpace(style[p]) { p += 1 }
            // Only `font*` and `letter-spacing` matter; skip colours, padding and borders cheaply.
            guard p < end, style[p] == "f" || style[p] == "F" || style[p] == "l" || style[p] == "L",
                  let colon = style[p..<end].firstIndex(of: ":") else { continue }
            let property = TextDocument.makeString(style[p..<colon].map(TextDocument.fold)).trimmingSpaces
            var value = TextDocument.makeString(style[(colon + 1)..<end].map(TextDocument.fold)).trimmingSpaces
            if let bang = value.firstIndex(of: "!") { value = value[..<bang].trimmingSpaces } // !important
            switch property {
            case "letter-spacing":
                if value != "0", value != "normal", !value.hasPrefix("0px"), !value.hasPrefix("-") { return true }
            case "font-weight":
                if value.hasPrefix("bold") || ["600", "700", "800", "900"].contains(where: value.hasPrefix) { return true }
            case "font-family":
                if value.contains("mono") || value.contains("courier") || value.contains("consolas") { return true }
            case "font-size":
                let number = Double(value.prefix { $0.isNumber || $0 == "." }) ?? 0
                if value.hasSuffix("px"), number >= 20 { return true }
                if value.hasSuffix("pt"), number >= 15 { return true }
                if value.hasSuffix("em") || value.hasSuffix("rem"), number >= 1.4 { return true }
                if value.hasPrefix("x-large") || value.hasPrefix("xx-large") || value.hasPrefix("larger") { return true }
            case "font":
                if value.contains("bold") || value.contains("mono") { return true }
            default:
                continue
            }
        }
        return false
    }

    // MARK: Helpers

    private static let blockElements: Set<String> = [
        "p", "div", "tr", "table", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre",
        "section", "article", "header", "footer", "center", "dd", "dt", "dl", "form", "address",
        "main", "nav", "aside", "figure", "figcaption", "caption", "body", "html", "tbody", "thead", "tfoot",
    ]
    /// Cells of one table row stay on one line, so a label and its value read together.
    private static let cellElements: Set<String> = ["span", "label", "button", "a", "td", "th"]
    private static let emphasisElements: Set<String> = [
        "strong", "b", "code", "kbd", "samp", "tt", "pre", "h1", "h2", "h3", "big", "mark",
    ]
    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
        "track", "wbr",
    ]

    /// ASCII-lowercased name; short names stay in the String's inline storage (no allocation).
    private static func asciiLowercased(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        guard scalars.allSatisfy(\.isASCII) else { return TextDocument.makeString(scalars.map(TextDocument.fold)) }
        return String(unsafeUninitializedCapacity: scalars.count) { buffer in
            var k = 0
            for scalar in scalars {
                let byte = UInt8(scalar.value)
                buffer[k] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                k += 1
            }
            return k
        }
    }

    static func isASCIILetter(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c)
    }

    private static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\n" || c == "\t" || c == "\r" || c == "\u{0C}"
    }

    private static func trimmed(_ s: String) -> String {
        var scalars = Array(s.unicodeScalars)
        while let last = scalars.last, isSpace(last) { scalars.removeLast() }
        let start = scalars.firstIndex { !isSpace($0) } ?? scalars.count
        return String(String.UnicodeScalarView(scalars[start...]))
    }

    /// Whitespace (including line breaks) collapsed to single spaces, trimmed.
    static func collapse(_ s: String) -> String {
        var output: [Unicode.Scalar] = []
        var space = false
        for scalar in s.unicodeScalars {
            if scalar.properties.isWhitespace {
                space = !output.isEmpty
            } else {
                if space { output.append(" ") }
                space = false
                output.append(scalar)
            }
        }
        return TextDocument.makeString(output)
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" || s.first == "\n" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" || s.last == "\n" { s = s.dropLast() }
        return String(s)
    }
}
