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

    /// Builds a document from plain text, keeping its line structure. The same rules as `append`,
    /// in one tight loop over local arrays: this runs on every message the sink ingests.
    init(plainText: String) {
        let limit = Self.maximumScalars
        var out: [Unicode.Scalar] = []
        var lower: [Unicode.Scalar] = []
        out.reserveCapacity(min(plainText.utf8.count, limit))
        lower.reserveCapacity(min(plainText.utf8.count, limit))
        var pendingSpace = false
        var pendingNewline = false
        scan: for scalar in plainText.unicodeScalars {
            switch Self.kind(of: scalar) {
            case .lineBreak: pendingNewline = true
            case .space: pendingSpace = true
            case .invisible: break
            case .visible:
                if out.count >= limit { break scan }
                if let last = out.last, last != "\n", pendingNewline || pendingSpace {
                    let separator: Unicode.Scalar = pendingNewline ? "\n" : " "
                    out.append(separator)
                    lower.append(separator)
                }
                pendingNewline = false
                pendingSpace = false
                out.append(scalar)
                lower.append(Self.fold(scalar))
            }
        }
        scalars = out
        folded = lower
        flags = [UInt8](repeating: 0, count: out.count)
        self.pendingSpace = pendingSpace
        self.pendingNewline = pendingNewline
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
            if isFull { return }
            if pendingNewline {
                if let last = scalars.last, last != "\n" { push("\n", flags: 0) }
            } else if pendingSpace, let last = scalars.last, last != "\n" {
                push(" ", flags: 0)
            }
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
