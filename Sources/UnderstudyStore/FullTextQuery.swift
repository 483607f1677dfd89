/// Full-text search: how text is prepared for the index, and how a user's words become a safe
/// FTS5 query.
///
/// The index uses FTS5's `unicode61 remove_diacritics 2` tokenizer, so "cafe" finds "café" and
/// case does not matter. That tokenizer splits on spaces and punctuation only, and Chinese or
/// Japanese text has no spaces: "您的验证码是" would be one token, and "验证码" would not find it.
/// The `trigram` tokenizer finds substrings, but (in the SQLite 3.40 Debian ships) it cannot
/// remove diacritics and cannot match queries shorter than three characters. So instead the store
/// puts a space around every CJK character (Han, kana, Hangul, CJK punctuation) before indexing,
/// and does the same to queries, where a run of CJK characters becomes a phrase: "验证码" is the
/// phrase "验 证 码", matching those characters in that order anywhere, and two-character words
/// such as "验证" work too.
///
/// The preparation must stay deterministic: the index is contentless and a delete re-derives the
/// tokens it removes. Changing `indexText` requires a migration that rebuilds the index.
public struct FullTextQuery: Sendable, Equatable {
    /// The FTS5 MATCH expression.
    public let expression: String

    /// Longest accepted query, in UTF-8 bytes.
    public static let maximumLength = 1024
    /// Most terms (words, phrases, exclusions) in one query.
    public static let maximumTerms = 32

    /// Reads a user's query: words separated by spaces must all appear (in any field, in any order);
    /// "double quoted words" must appear as a phrase; `word*` matches a prefix; `-word` excludes
    /// (when something else is required). Any other punctuation (`foo-bar`, `o'reilly`, `a:b`,
    /// FTS5 operators like `NEAR(` or `OR`) is taken literally as word separators, so no input
    /// can produce an FTS5 syntax error.
    public init(_ userInput: String) throws(MessageStoreError) {
        guard userInput.utf8.count <= Self.maximumLength else {
            throw .invalidQuery("the search text is \(userInput.utf8.count) bytes long; the limit is \(Self.maximumLength)")
        }
        var required: [String] = []
        var excluded: [String] = []
        for term in Self.terms(of: userInput) {
            guard let phrase = Self.phrase(term.text, prefix: term.isPrefix) else { continue }
            if term.isExcluded { excluded.append(phrase) } else { required.append(phrase) }
        }
        guard required.count + excluded.count <= Self.maximumTerms else {
            throw .invalidQuery("the search has \(required.count + excluded.count) terms; the limit is \(Self.maximumTerms)")
        }
        if required.isEmpty {
            // "-word" alone has nothing to subtract from: treat exclusions as plain words.
            required = excluded
            excluded = []
        }
        guard !required.isEmpty else {
            throw .invalidQuery("the search text has no letters or digits to look for; type at least one word")
        }
        var expression = required.count == 1 ? required[0] : "(" + required.joined(separator: " AND ") + ")"
        for phrase in excluded { expression += " NOT " + phrase }
        self.expression = expression
    }

    private struct Term {
        var text: String
        var isPrefix = false
        var isExcluded = false
    }

    /// Splits on whitespace, keeping "quoted phrases" together (an unclosed quote runs to the end).
    private static func terms(of input: String) -> [Term] {
        var terms: [Term] = []
        var current = Term(text: "")
        var inQuotes = false
        func flush() {
            var term = current
            current = Term(text: "")
            if !term.isExcluded && term.text.hasPrefix("-") && term.text.count > 1 && !inQuotes {
                term.isExcluded = true
                term.text.removeFirst()
            }
            if term.text.hasSuffix("*") {
                term.isPrefix = true
                while term.text.hasSuffix("*") { term.text.removeLast() }
            }
            if !term.text.isEmpty { terms.append(term) }
        }
        for character in input {
            if character == "\"" {
                if inQuotes {
                    inQuotes = false
                    flush()
                } else {
                    // `-"a phrase"` excludes the phrase.
                    let excluded = current.text == "-"
                    if !excluded { flush() }
                    current = Term(text: "", isExcluded: excluded)
                    inQuotes = true
                }
            } else if character.isWhitespace && !inQuotes {
                flush()
            } else {
                current.text.append(character)
            }
        }
        inQuotes = false
        flush()
        return terms
    }

    /// One FTS5 string (`"..."`, inner quotes doubled), or nil when the text holds nothing the
    /// tokenizer would index.
    static func phrase(_ text: String, prefix: Bool) -> String? {
        guard text.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil })
        else { return nil }
        let prepared = indexText(text)
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in prepared.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                quoted.append(" ")  // control characters (NUL included) only separate words
            } else {
                quoted.append(scalar)
                if scalar == "\"" { quoted.append("\"") }
            }
        }
        quoted.append("\"")
        let phrase = String(quoted)
        return prefix ? phrase + "*" : phrase
    }

    /// The text as handed to the tokenizer: every CJK character set apart by spaces. Returns the
    /// input unchanged (no copy of its contents) when it holds no CJK character.
    public static func indexText(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isCJK) else { return text }
        var out = String.UnicodeScalarView()
        out.reserveCapacity(text.utf8.count + 16)
        var previousWasCJK = false
        for scalar in text.unicodeScalars {
            let cjk = isCJK(scalar)
            if cjk || previousWasCJK { out.append(" ") }
            out.append(scalar)
            previousWasCJK = cjk
        }
        return String(out)
    }

    /// Scripts written without spaces between words.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2E80...0x2FDF,  // CJK radicals, Kangxi radicals
             0x3000...0x303F,  // CJK symbols and punctuation
             0x3040...0x30FF,  // Hiragana, Katakana
             0x3100...0x31FF,  // Bopomofo, Hangul compatibility jamo, Katakana extensions
             0x3400...0x4DBF,  // CJK extension A
             0x4E00...0x9FFF,  // CJK unified ideographs
             0xA960...0xA97F,  // Hangul jamo extended A
             0xAC00...0xD7AF,  // Hangul syllables
             0xF900...0xFAFF,  // CJK compatibility ideographs
             0xFF61...0xFF9F,  // Halfwidth katakana
             0x20000...0x3FFFF:  // CJK extensions B and later
            return true
        default:
            return false
        }
    }
}
