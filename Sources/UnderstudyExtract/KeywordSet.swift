/// A set of lowercase phrases matched against `TextDocument.folded`, indexed by first scalar.
///
/// Phrases that start (end) with a letter of an alphabetic script must start (end) at a word
/// boundary, so `code` does not match inside `barcode` or `codec`; CJK phrases match anywhere.
struct KeywordSet: Sendable {
    struct Match {
        var start: Int
        var end: Int
    }

    private struct Phrase: Sendable {
        var scalars: [Unicode.Scalar]
        var leftBoundary: Bool
        var rightBoundary: Bool
    }

    /// Phrases by first scalar: a direct table for ASCII, a dictionary for the rest.
    private let ascii: [[Phrase]]
    private let others: [UInt32: [Phrase]]
    private let longest: Int

    /// - Parameter wordPrefixes: when true, phrases may end inside a word (`confirm` matches
    ///   `confirmation`); they must still start at a word boundary.
    init(_ words: [String], wordPrefixes: Bool = false) {
        var phrases: [UInt32: [Phrase]] = [:]
        var longest = 0
        for word in words {
            let scalars = word.unicodeScalars.map(TextDocument.fold)
            guard let first = scalars.first, let last = scalars.last else { continue }
            longest = max(longest, scalars.count)
            phrases[first.value, default: []].append(
                Phrase(scalars: scalars, leftBoundary: Self.isWordScalar(first), rightBoundary: !wordPrefixes && Self.isWordScalar(last)))
        }
        // Longest first, so "code postal" wins over "code" at the same start.
        let sorted = phrases.mapValues { $0.sorted { $0.scalars.count > $1.scalars.count } }
        self.ascii = (0..<128).map { sorted[UInt32($0)] ?? [] }
        self.others = sorted.filter { $0.key >= 128 }
        self.longest = longest
    }

    /// Every match that starts inside `range` (and may end up to the phrase length past it).
    func matches(in text: [Unicode.Scalar], _ range: Range<Int>) -> [Match] {
        var found: [Match] = []
        var i = max(range.lowerBound, 0)
        let upper = min(range.upperBound, text.count)
        while i < upper {
            let value = text[i].value
            let candidates = value < 128 ? ascii[Int(value)] : (others.isEmpty ? [] : others[value] ?? [])
            for phrase in candidates where matches(phrase, in: text, at: i) {
                found.append(Match(start: i, end: i + phrase.scalars.count))
                break
            }
            i += 1
        }
        return found
    }

    private func matches(_ phrase: Phrase, in text: [Unicode.Scalar], at start: Int) -> Bool {
        let end = start + phrase.scalars.count
        guard end <= text.count else { return false }
        if phrase.leftBoundary, start > 0, Self.isWordScalar(text[start - 1]) { return false }
        if phrase.rightBoundary, end < text.count, Self.isWordScalar(text[end]) { return false }
        var k = 0
        while k < phrase.scalars.count {
            if text[start + k] != phrase.scalars[k] { return false }
            k += 1
        }
        return true
    }

    /// Letters of alphabetic scripts and digits; CJK ideographs, kana and hangul are not word
    /// scalars here because those scripts do not separate words with spaces.
    static func isWordScalar(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        if v < 0x80 {
            return (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v)
        }
        if v >= 0x1100 { return false }
        return c.properties.isAlphabetic
    }
}
