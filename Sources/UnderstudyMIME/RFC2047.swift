/// RFC 2047 encoded words ("=?charset?B|Q?text?=") in header text.
///
/// Adjacent encoded words (separated only by whitespace) are joined and the whitespace between them
/// dropped; consecutive words in the same charset are decoded as one byte string, so a character split
/// across two words survives. Anything that does not parse as an encoded word stays as literal text.
/// Lenient where senders are sloppy: no 75-character limit (up to 4096), lowercase "b"/"q", an RFC 2231
/// language suffix ("utf-8*en"), encoded words glued to surrounding text.
public enum RFC2047 {
    static let maxWordText = 4096

    public static func decode(_ text: String) -> String {
        guard text.utf8.count >= 8, containsMarker(text.utf8) else { return text }
        let u = Array(text.utf8)
        let scan = Scan(u)
        var out = [UInt8]()
        out.reserveCapacity(u.count)
        // Bytes of the pending run of adjacent encoded words in one charset.
        var pending = [UInt8]()
        var pendingCharset: String? = nil
        var afterWordWhitespace: Range<Int>? = nil  // whitespace after the last encoded word, not yet emitted
        var lastWasWord = false

        func flushPending() {
            if let cs = pendingCharset {
                out.append(contentsOf: Charset.decode(pending, label: cs).utf8)
                pending.removeAll(keepingCapacity: true)
                pendingCharset = nil
            }
        }

        var i = 0
        let n = u.count
        while i < n {
            if u[i] == UInt8(ascii: "="), i + 1 < n, u[i + 1] == UInt8(ascii: "?"),
               let word = parseWord(u, at: i, scan) {
                if lastWasWord {
                    afterWordWhitespace = nil  // whitespace between adjacent words is dropped
                    if let cs = pendingCharset, Charset.Kind(label: cs) != Charset.Kind(label: word.charset) {
                        flushPending()
                    }
                } else {
                    flushPending()
                }
                if pendingCharset == nil { pendingCharset = word.charset }
                pending.append(contentsOf: word.bytes)
                lastWasWord = true
                i = word.end
                continue
            }
            if lastWasWord, u[i] == 0x20 || u[i] == 0x09 || u[i] == 0x0D || u[i] == 0x0A {
                var j = i
                while j < n, u[j] == 0x20 || u[j] == 0x09 || u[j] == 0x0D || u[j] == 0x0A { j += 1 }
                afterWordWhitespace = i..<j
                // Keep lastWasWord: the next token decides whether this whitespace is dropped.
                if j < n, u[j] == UInt8(ascii: "="), j + 1 < n, u[j + 1] == UInt8(ascii: "?"),
                   parseWord(u, at: j, scan) != nil {
                    i = j
                    continue
                }
                flushPending()
                out.append(contentsOf: u[i..<j])
                afterWordWhitespace = nil
                lastWasWord = false
                i = j
                continue
            }
            if lastWasWord {
                flushPending()
                lastWasWord = false
            }
            out.append(u[i])
            i += 1
        }
        flushPending()
        if let ws = afterWordWhitespace { out.append(contentsOf: u[ws]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func containsMarker(_ u: String.UTF8View) -> Bool {
        var previous: UInt8 = 0
        for b in u {
            if b == UInt8(ascii: "?") && previous == UInt8(ascii: "=") { return true }
            previous = b
        }
        return false
    }

    /// For each position, where the next "?=" and the next whitespace are: keeps failed word parses O(1)
    /// so hostile headers full of "=?" stay linear.
    struct Scan {
        var nextTerminator: [Int]
        var nextWhitespace: [Int]

        init(_ u: [UInt8]) {
            let n = u.count
            nextTerminator = [Int](repeating: n, count: n + 1)
            nextWhitespace = [Int](repeating: n, count: n + 1)
            var i = n - 1
            while i >= 0 {
                let c = u[i]
                nextTerminator[i] = c == UInt8(ascii: "?") && i + 1 < n && u[i + 1] == UInt8(ascii: "=")
                    ? i : nextTerminator[i + 1]
                nextWhitespace[i] = c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A ? i : nextWhitespace[i + 1]
                i -= 1
            }
        }
    }

    struct Word {
        var charset: String
        var bytes: [UInt8]
        var end: Int
    }

    /// Parses "=?charset?enc?text?=" at `start`.
    static func parseWord(_ u: [UInt8], at start: Int, _ scan: Scan) -> Word? {
        let n = u.count
        var i = start + 2
        let csStart = i
        while i < n, i - csStart <= 64, isCharsetByte(u[i]) { i += 1 }
        guard i < n, u[i] == UInt8(ascii: "?"), i > csStart, i - csStart <= 64 else { return nil }
        let charset = String(decoding: u[csStart..<i], as: UTF8.self)
        i += 1
        guard i + 1 < n, u[i + 1] == UInt8(ascii: "?") else { return nil }
        let enc = u[i] | 0x20
        guard enc == UInt8(ascii: "b") || enc == UInt8(ascii: "q") else { return nil }
        i += 2
        let textStart = i
        guard textStart < n else { return nil }
        i = scan.nextTerminator[textStart]
        guard i < n, i <= scan.nextWhitespace[textStart], i - textStart <= maxWordText else { return nil }
        let text = u[textStart..<i]
        let bytes = enc == UInt8(ascii: "b") ? MIMEBase64.decode(text) : QuotedPrintable.decodeHeaderQ(text)
        return Word(charset: charset, bytes: bytes, end: i + 2)
    }

    @inline(__always)
    static func isCharsetByte(_ b: UInt8) -> Bool {
        b > 0x20 && b < 0x7F && b != UInt8(ascii: "?") && b != UInt8(ascii: "=")
    }
}
