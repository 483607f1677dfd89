/// Finds bare `http://` and `https://` URLs in visible text.
enum URLScanner {
    struct Found {
        var url: String
        var position: Int
    }

    /// Longest URL kept; longer ones are cut off at this many scalars.
    static let maximumLength = 4096

    static func scan(_ document: TextDocument, skippingAnchors: Bool) -> [Found] {
        var found: [Found] = []
        let folded = document.folded
        let n = folded.count
        var i = 0
        while i + 8 <= n {
            i = nextH(in: folded, from: i, to: n - 8)
            guard i + 8 <= n else { break }
            guard folded[i + 1] == "t", folded[i + 2] == "t", folded[i + 3] == "p" else {  // folded[i] is "h"
                i += 1
                continue
            }
            var j = i + 4
            if folded[j] == "s" { j += 1 }
            guard j + 3 <= n, folded[j] == ":", folded[j + 1] == "/", folded[j + 2] == "/" else {
                i += 1
                continue
            }
            if i > 0, KeywordSet.isWordScalar(folded[i - 1]) {
                i = j
                continue
            }
            var end = j + 3
            while end < n, end - i < maximumLength, isURLScalar(document.scalars[end]) { end += 1 }
            let hostStart = j + 3
            // Trailing punctuation belongs to the sentence; a closing bracket only when unbalanced.
            while end > hostStart {
                let last = document.scalars[end - 1]
                if ".,;:!?'*\"".unicodeScalars.contains(last) {
                    end -= 1
                } else if let open = openingBracket(for: last), count(open, in: document, i..<end) < count(last, in: document, i..<end) {
                    end -= 1
                } else {
                    break
                }
            }
            if end > hostStart, !(skippingAnchors && document.flags[i] & TextDocument.insideAnchor != 0) {
                found.append(Found(url: document.string(i..<end), position: i))
            }
            i = max(end, i + 1)
        }
        return found
    }

    /// The first index in `from...last` holding "h", or `last + 1`: the scan's inner loop, over
    /// a plain buffer since it reads every scalar of every ingested message.
    private static func nextH(in folded: [Unicode.Scalar], from start: Int, to last: Int) -> Int {
        folded.withUnsafeBufferPointer { buffer in
            var k = start
            while k <= last, buffer[k] != "h" { k &+= 1 }
            return k
        }
    }

    private static func isURLScalar(_ c: Unicode.Scalar) -> Bool {
        c.value > 0x20 && c.value < 0x7F && !"<>\"`{}|\\^".unicodeScalars.contains(c)
    }

    private static func openingBracket(for c: Unicode.Scalar) -> Unicode.Scalar? {
        switch c {
        case ")": return "("
        case "]": return "["
        default: return nil
        }
    }

    private static func count(_ c: Unicode.Scalar, in document: TextDocument, _ range: Range<Int>) -> Int {
        var total = 0
        for i in range where document.scalars[i] == c { total += 1 }
        return total
    }
}
