/// Visible text of one message part, as lines of Unicode scalars, with per-scalar flags.
///
/// Whitespace is collapsed inside a line; lines are separated by a single `\n`.
/// `folded` (filled by `finish()`) is a parallel array with ASCII, Latin-1 and Cyrillic letters lowercased and
/// fullwidth digits and letters mapped to ASCII, so keyword matching is a plain scalar compare.
struct TextDocument {
    static let emphasis: UInt8 = 1
    static let insideAnchor: UInt8 = 2

    /// Largest number of scalars kept from one part (about 256 KiB of ASCII).
    static let maximumScalars = 256 * 1024

    private(set) var scalars: [Unicode.Scalar] = []
    private(set) var folded: [Unicode.Scalar] = []
    private(set) var flags: [UInt8] = []
    private var pendingSpace = false
    private var pendingNewline = false

    var count: Int { scalars.count }
    var isFull: Bool { scalars.count >= Self.maximumScalars }

    init(expectedCount: Int = 1024) {
        let capacity = min(max(expectedCount, 64), Self.maximumScalars)
        scalars.reserveCapacity(capacity)
        flags.reserveCapacity(capacity)
    }

    /// Builds a document from plain text, keeping its line structure: the same rules as `append`,
    /// in one loop over the text's UTF-8 straight into the two arrays. This runs on every message
    /// the sink ingests; printable ASCII, nearly all of a typical message, takes a short path.
    init(plainText: String) {
        var text = plainText
        let capacity = min(text.utf8.count, Self.maximumScalars + 1)
        var lowered: [Unicode.Scalar] = []
        var endsPendingSpace = false
        var endsPendingNewline = false
        let original = [Unicode.Scalar](unsafeUninitializedCapacity: capacity) { out, outCount in
            lowered = [Unicode.Scalar](unsafeUninitializedCapacity: capacity) { lower, lowerCount in
                let n = text.withUTF8 { bytes in
                    Self.fill(out: out, lower: lower, from: bytes,
                              pendingSpace: &endsPendingSpace, pendingNewline: &endsPendingNewline)
                }
                lowerCount = n
            }
            outCount = lowered.count
        }
        scalars = original
        folded = lowered
        flags = [UInt8](repeating: 0, count: original.count)
        pendingSpace = endsPendingSpace
        pendingNewline = endsPendingNewline
    }

    /// The loop of `init(plainText:)`. `bytes` is valid UTF-8 (it comes from a String); `out` and
    /// `lower` hold at least min(bytes.count, maximumScalars + 1) scalars, which is enough: every
    /// scalar written, separators included, consumed at least one byte. Returns the count written.
    private static func fill(out: UnsafeMutableBufferPointer<Unicode.Scalar>,
                             lower: UnsafeMutableBufferPointer<Unicode.Scalar>,
                             from bytes: UnsafeBufferPointer<UInt8>,
                             pendingSpace: inout Bool, pendingNewline: inout Bool) -> Int {
        let limit = maximumScalars
        var n = 0
        var atLineStart = true  // nothing written yet, or the last scalar written is "\n"
        var space = false
        var newline = false
        var i = 0
        let end = bytes.count
        /// Before a visible scalar: writes the pending separator, if any; false when the scalar
        /// (and its separator) would not fit under the cap.
        @inline(__always) func beginVisible() -> Bool {
            let separated = !atLineStart && (newline || space)
            if n + (separated ? 2 : 1) > limit { return false }
            if separated {
                let separator: Unicode.Scalar = newline ? "\n" : " "
                out[n] = separator
                lower[n] = separator
                n += 1
            }
            newline = false
            space = false
            atLineStart = false
            return true
        }
        scan: while i < end {
            let byte = bytes[i]
            if byte &- 0x21 < 0x5E {
                // A run of printable ASCII: one separator check, then a tight copy loop.
                guard beginVisible() else { break scan }
                let stop = i + min(end - i, limit - n)
                var j = i
                while j < stop {
                    let b = bytes[j]
                    if b &- 0x21 >= 0x5E { break }
                    out[n] = Unicode.Scalar(b)
                    lower[n] = Unicode.Scalar(b &- 0x41 < 26 ? b | 0x20 : b)
                    n &+= 1
                    j &+= 1
                }
                i = j
                continue
            }
            if byte < 0x80 {
                i += 1
                switch byte {
                case 0x0A, 0x0B, 0x0C: newline = true
                case 0x09, 0x0D, 0x20: space = true
                default: break  // C0 controls and DEL are invisible
                }
                continue
            }
            // A multi-byte sequence: the lead byte gives its length; the text is valid UTF-8.
            var value: UInt32
            let length: Int
            if byte >= 0xF0 { value = UInt32(byte & 0x07); length = 4 }
            else if byte >= 0xE0 { value = UInt32(byte & 0x0F); length = 3 }
            else { value = UInt32(byte & 0x1F); length = 2 }
            let stop = min(i + length, end)
            i += 1
            while i < stop { value = value << 6 | UInt32(bytes[i] & 0x3F); i += 1 }
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            switch kind(of: scalar) {
            case .lineBreak: newline = true
            case .space: space = true
            case .invisible: break
            case .visible:
                guard beginVisible() else { break scan }
                out[n] = scalar
                lower[n] = fold(scalar)
                n += 1
            }
        }
        pendingSpace = space
        pendingNewline = newline
        return n
    }

    enum ScalarKind { case lineBreak, space, invisible, visible }

    @inline(__always)
    static func kind(of scalar: Unicode.Scalar) -> ScalarKind {
        switch scalar.value {
        case 0x0A, 0x0B, 0x0C, 0x2028, 0x2029: return .lineBreak
        case 0x09, 0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: return .space
        case 0x00...0x08, 0x0E...0x1F, 0x7F, 0xAD, 0x34F, 0x200B...0x200D, 0x2060, 0xFEFF: return .invisible
        default: return .visible
        }
    }

    /// Computes `folded` once all scalars are in; call when the document is complete.
    mutating func finish() {
        folded = scalars.map(Self.fold)
    }

    /// Appends one visible scalar; whitespace is deferred and collapsed.
    mutating func append(_ scalar: Unicode.Scalar, flags: UInt8) {
        switch Self.kind(of: scalar) {
        case .lineBreak:
            breakLine()
        case .space:
            pendingSpace = true
        case .invisible:
            return // control and invisible characters (preheader padding, soft hyphens)
        case .visible:
            let separated = (pendingNewline || pendingSpace) && scalars.last.map { $0 != "\n" } == true
            if scalars.count + (separated ? 2 : 1) > Self.maximumScalars { return }
            if separated { push(pendingNewline ? "\n" : " ", flags: 0) }
            pendingNewline = false
            pendingSpace = false
            push(scalar, flags: flags)
        }
    }

    /// Ends the current line (a block boundary in HTML, a newline in text).
    mutating func breakLine() {
        pendingNewline = true
    }

    /// Adds deferred whitespace as a word boundary (used between table cells and inline blocks).
    mutating func breakWord() {
        pendingSpace = true
    }

    private mutating func push(_ scalar: Unicode.Scalar, flags: UInt8) {
        scalars.append(scalar)
        self.flags.append(flags)
    }

    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let value = scalar.value
        switch value {
        case 0x41...0x5A, 0xC0...0xD6, 0xD8...0xDE:
            return Unicode.Scalar(value + 0x20)!
        case 0x410...0x42F:
            return Unicode.Scalar(value + 0x20)!
        case 0x401:
            return "ё"
        case 0xFF10...0xFF19:
            return Unicode.Scalar(value - 0xFF10 + 0x30)!
        case 0xFF21...0xFF3A:
            return Unicode.Scalar(value - 0xFF21 + 0x61)!
        case 0xFF41...0xFF5A:
            return Unicode.Scalar(value - 0xFF41 + 0x61)!
        case 0xFF1A:
            return ":"
        default:
            return scalar
        }
    }

    /// `scalars[index]` with fullwidth digits and letters mapped to ASCII, case kept.
    func narrow(_ index: Int) -> Unicode.Scalar {
        let value = scalars[index].value
        switch value {
        case 0xFF10...0xFF19: return Unicode.Scalar(value - 0xFF10 + 0x30)!
        case 0xFF21...0xFF3A: return Unicode.Scalar(value - 0xFF21 + 0x41)!
        case 0xFF41...0xFF5A: return Unicode.Scalar(value - 0xFF41 + 0x61)!
        default: return scalars[index]
        }
    }

    /// Start of the line holding `index`.
    func lineStart(_ index: Int) -> Int {
        var i = min(index, scalars.count)
        while i > 0, scalars[i - 1] != "\n" { i -= 1 }
        return i
    }

    /// End (exclusive, at the `\n` or the end) of the line holding `index`.
    func lineEnd(_ index: Int) -> Int {
        var i = index
        while i < scalars.count, scalars[i] != "\n" { i += 1 }
        return i
    }

    func string(_ range: Range<Int>) -> String {
        Self.makeString(scalars[range])
    }

    /// Builds a String from scalars through UTF-8 (much faster than appending to a scalar view).
    static func makeString(_ scalars: some Collection<Unicode.Scalar>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count)
        for scalar in scalars {
            if scalar.value < 0x80 {
                bytes.append(UInt8(scalar.value))
            } else {
                UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
