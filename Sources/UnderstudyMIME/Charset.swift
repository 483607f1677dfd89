import CLinux
import Glibc
import Synchronization

/// Decodes text in any charset a mail can be labelled with, through glibc's iconv.
///
/// Decoding never fails and never drops ASCII text. The policy for bytes that do not fit:
/// - Labels for UTF-8, US-ASCII and unknown or unusable labels are decoded as UTF-8; each byte that is
///   not part of a valid UTF-8 sequence is read as Windows-1252 (a superset of Latin-1 for printable
///   characters; undefined positions map to the C1 control of the same value). Mislabelled Latin-1 or
///   Windows text therefore stays readable, and no byte is lost.
/// - ISO-8859-1, Latin-1 and Windows-1252 labels decode as Windows-1252 (as browsers do).
/// - Other known charsets decode through iconv; a byte sequence iconv rejects becomes U+FFFD, one per
///   byte skipped, and a truncated sequence at the end becomes one U+FFFD.
/// Label aliases are normalised: GB2312/GBK become GB18030 (a superset), Shift_JIS variants become CP932,
/// EUC-KR and ks_c_5601-1987 become CP949, ISO-2022-JP becomes ISO-2022-JP-2, Big5 becomes Big5-HKSCS.
public enum Charset {
    /// Decodes `bytes` labelled `label` (a MIME charset name, case-insensitive; nil means US-ASCII).
    public static func decode(_ bytes: some Collection<UInt8>, label: String?) -> String {
        switch Kind(label: label) {
        case .utf8: return decodeUTF8Lenient(bytes)
        case .windows1252: return decodeWindows1252(bytes)
        case .iconv(let name): return decodeWithIconv(bytes, name: name) ?? decodeUTF8Lenient(bytes)
        }
    }

    /// The charset name `label` decodes as ("UTF-8", "WINDOWS-1252", or the iconv name used), or nil when
    /// the label is unknown and the UTF-8 fallback applies.
    public static func canonicalName(for label: String) -> String? {
        switch Kind(label: label) {
        case .utf8:
            let key = normalizedKey(label)
            return key == "utf-8" || asciiAliases.contains(key) || key == "utf8" || key == "unicode-1-1-utf-8"
                ? "UTF-8" : nil
        case .windows1252: return "WINDOWS-1252"
        case .iconv(let name): return IconvPool.shared.isAvailable(name) ? name : nil
        }
    }

    enum Kind: Equatable {
        case utf8, windows1252, iconv(String)

        init(label: String?) {
            guard let label else { self = .utf8; return }
            let key = Charset.normalizedKey(label)
            if key.isEmpty || key == "utf-8" || key == "utf8" || key == "unicode-1-1-utf-8"
                || key == "x-unicode20utf8" || Charset.asciiAliases.contains(key) {
                self = .utf8
            } else if Charset.windows1252Aliases.contains(key) {
                self = .windows1252
            } else if let name = Charset.iconvAliases[key] {
                self = .iconv(name)
            } else if let name = Charset.patternName(key) {
                self = name == "CP1252" ? .windows1252 : .iconv(name)
            } else if Charset.isSafeLabel(key) {
                self = .iconv(key.uppercased())
            } else {
                self = .utf8
            }
        }
    }

    /// Lowercased label without quotes, surrounding whitespace or an RFC 2231 "*language" suffix.
    static func normalizedKey(_ label: String) -> String {
        var s = Substring(label)
        while let f = s.first, f == " " || f == "\t" || f == "\"" || f == "'" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\"" || l == "'" || l == ";" { s = s.dropLast() }
        if let star = s.firstIndex(of: "*") { s = s[..<star] }
        return s.lowercased()
    }

    /// Labels passed to iconv as they are: short, and only characters charset names use (no "/", so no
    /// "//TRANSLIT" suffixes or paths).
    static func isSafeLabel(_ key: String) -> Bool {
        guard !key.isEmpty, key.utf8.count <= 40 else { return false }
        return key.utf8.allSatisfy { b in
            (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F || b == 0x2E
                || b == 0x3A || b == 0x2B || b == 0x28 || b == 0x29
        }
    }

    static let asciiAliases: Set<String> = [
        "us-ascii", "ascii", "us", "ansi_x3.4-1968", "ansi_x3.4-1986", "iso646-us", "iso_646.irv:1991",
        "cp367", "ibm367", "646", "iso-ir-6", "csascii", "x-unknown", "unknown", "default", "unknown-8bit",
        "x-user-defined",
    ]
    static let windows1252Aliases: Set<String> = [
        "iso-8859-1", "iso8859-1", "iso_8859-1", "iso88591", "8859-1", "iso_8859-1:1987", "latin1", "latin-1",
        "l1", "iso-ir-100", "cp819", "ibm819", "csisolatin1", "windows-1252", "cp1252", "x-cp1252",
        "win-1252", "ms-1252", "ansi", "ansi_1252",
    ]
    static let iconvAliases: [String: String] = {
        var map: [String: String] = [:]
        func add(_ name: String, _ labels: [String]) { for l in labels { map[l] = name } }
        add("GB18030", ["gb2312", "gbk", "gb18030", "gb_2312-80", "gb_2312", "gb2312-80", "x-gbk", "cp936",
                        "ms936", "windows-936", "euc-cn", "euccn", "x-euc-cn", "chinese", "csgb2312",
                        "iso-ir-58", "csiso58gb231280", "x-gb2312", "gb18030-2000", "gb18030-2005",
                        "eucgb2312_cn", "eucgb2312-cn"])  // eucgb2312_cn: what Python's email package writes
        add("BIG5-HKSCS", ["big5", "big-5", "big5_tw", "big5-tw", "big5-hkscs", "big5hkscs", "cn-big5", "x-x-big5", "csbig5",
                           "x-big5", "big5-eten", "cp950", "x-windows-950", "windows-950"])
        add("CP932", ["shift_jis", "shift-jis", "sjis", "x-sjis", "ms_kanji", "csshiftjis", "windows-31j",
                      "cp932", "ms932", "x-ms-cp932", "shift_jisx0213", "x-shift_jis", "shiftjis"])
        add("EUC-JP-MS", ["euc-jp", "eucjp", "x-euc-jp", "cseucpkdfmtjapanese", "ujis", "x-euc", "euc-jp-ms"])
        add("ISO-2022-JP-2", ["iso-2022-jp", "iso2022jp", "csiso2022jp", "iso-2022-jp-1", "iso-2022-jp-2",
                              "csiso2022jp2", "jis", "x-iso-2022-jp"])
        add("CP949", ["euc-kr", "euckr", "x-euc-kr", "ks_c_5601-1987", "ks_c_5601-1989", "ks_c_5601",
                      "ksc5601", "ksc_5601", "korean", "csksc56011987", "iso-ir-149", "cp949", "uhc",
                      "windows-949", "x-windows-949", "cseuckr", "ks_x_1001", "x-uhc"])
        add("KOI8-R", ["koi8-r", "koi8r", "koi8_r", "cskoi8r", "koi", "koi8"])
        add("KOI8-U", ["koi8-u", "koi8u", "koi8-ru"])
        add("UTF-16", ["utf-16", "utf16", "ucs-2", "ucs2", "unicode", "csunicode", "iso-10646-ucs-2"])
        add("UTF-16LE", ["utf-16le", "utf16le", "ucs-2le"])
        add("UTF-16BE", ["utf-16be", "utf16be", "ucs-2be"])
        add("UTF-32", ["utf-32", "utf32", "ucs-4", "ucs4"])
        add("UTF-32LE", ["utf-32le"])
        add("UTF-32BE", ["utf-32be"])
        add("UTF-7", ["utf-7", "utf7", "unicode-1-1-utf-7", "csunicode11utf7", "x-utf-7"])
        add("TIS-620", ["tis-620", "tis620", "iso-8859-11", "iso8859-11"])
        add("CP874", ["windows-874", "cp874", "x-cp874", "dos-874"])
        add("MACINTOSH", ["macintosh", "mac", "x-mac-roman", "macroman", "csmacintosh"])
        add("ISO-8859-2", ["latin2", "l2", "csisolatin2"])
        add("ISO-8859-3", ["latin3", "l3"])
        add("ISO-8859-4", ["latin4", "l4"])
        add("ISO-8859-5", ["cyrillic", "csisolatincyrillic"])
        add("ISO-8859-6", ["arabic", "iso-8859-6-i", "iso-8859-6-e", "asmo-708"])
        add("ISO-8859-7", ["greek", "greek8", "elot_928", "ecma-118"])
        add("ISO-8859-8", ["hebrew", "iso-8859-8-i", "iso-8859-8-e", "visual", "logical"])
        add("ISO-8859-9", ["latin5", "l5"])
        add("ISO-8859-10", ["latin6", "l6"])
        add("ISO-8859-13", ["latin7", "l7"])
        add("ISO-8859-14", ["latin8", "l8"])
        add("ISO-8859-15", ["latin9", "latin-9", "l9", "latin0"])
        add("ISO-8859-16", ["latin10", "l10"])
        add("IBM866", ["cp866", "ibm866", "866", "csibm866"])
        return map
    }()

    /// "iso-8859-N" / "iso8859_N" / "windows-125N" / "cp125N" families.
    static func patternName(_ key: String) -> String? {
        var k = Substring(key)
        if k.hasPrefix("x-") { k = k.dropFirst(2) }
        for prefix in ["iso-8859-", "iso8859-", "iso_8859-", "iso_8859_", "iso8859_", "iso8859", "8859-"]
        where k.hasPrefix(prefix) {
            let rest = k.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
            if let n = Int(rest), (1...16).contains(n), n != 12 {
                return n == 1 ? "CP1252" : (n == 11 ? "TIS-620" : "ISO-8859-\(n)")
            }
        }
        for prefix in ["windows-", "win-", "cp-", "cp", "ms-"] where k.hasPrefix(prefix) {
            if let n = Int(k.dropFirst(prefix.count)), (1250...1258).contains(n) { return "CP\(n)" }
        }
        return nil
    }

    // MARK: UTF-8 and Windows-1252, decoded natively

    static let windows1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
        0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    @inline(__always)
    static func windows1252Scalar(_ b: UInt8) -> Unicode.Scalar {
        if b >= 0x80 && b < 0xA0 { return Unicode.Scalar(windows1252High[Int(b - 0x80)])! }
        return Unicode.Scalar(b)
    }

    static func decodeWindows1252(_ bytes: some Collection<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for b in bytes {
            if b < 0x80 { out.append(b) } else { appendUTF8(windows1252Scalar(b), to: &out) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// UTF-8 with each invalid byte read as Windows-1252.
    static func decodeUTF8Lenient(_ bytes: some Collection<UInt8>) -> String {
        if let s = bytes.withContiguousStorageIfAvailable({ decodeUTF8Lenient(buffer: $0) }) { return s }
        return Array(bytes).withUnsafeBufferPointer { decodeUTF8Lenient(buffer: $0) }
    }

    static func decodeUTF8Lenient(buffer: UnsafeBufferPointer<UInt8>) -> String {
        if let valid = String(validating: buffer, as: UTF8.self) { return valid }
        var out = [UInt8]()
        out.reserveCapacity(buffer.count + 16)
        var i = 0
        let n = buffer.count
        while i < n {
            let b = buffer[i]
            if b < 0x80 { out.append(b); i += 1; continue }
            let len = validUTF8SequenceLength(buffer, at: i)
            if len > 0 {
                out.append(contentsOf: buffer[i..<(i + len)])
                i += len
            } else {
                appendUTF8(windows1252Scalar(b), to: &out)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Length of the well-formed UTF-8 sequence starting at `i` (lead byte >= 0x80), or 0.
    static func validUTF8SequenceLength(_ p: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let n = p.count
        let b0 = p[i]
        func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
            i + k < n && p[i + k] >= lo && p[i + k] <= hi
        }
        switch b0 {
        case 0xC2...0xDF: return cont(1) ? 2 : 0
        case 0xE0: return cont(1, 0xA0) && cont(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return cont(1) && cont(2) ? 3 : 0
        case 0xED: return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0
        case 0xF0: return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : 0
        case 0xF4: return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0
        default: return 0
        }
    }

    @inline(__always)
    static func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        for u in UTF8.encode(scalar)! { out.append(u) }
    }

    // MARK: iconv

    static func decodeWithIconv(_ bytes: some Collection<UInt8>, name: String) -> String? {
        guard let converter = IconvPool.shared.take(name) else { return nil }
        defer { IconvPool.shared.give(converter, name) }
        var input = Array(bytes)
        return converter.convert(&input)
    }
}

/// Owns one iconv conversion descriptor (to UTF-8). Used by one thread at a time: the pool hands it out.
private final class IconvConverter: @unchecked Sendable {
    private let handle: iconv_t

    init?(from name: String) {
        let h = iconv_open("UTF-8", name)
        guard let h, Int(bitPattern: h) != -1 else { return nil }
        handle = h
    }

    deinit { iconv_close(handle) }

    /// Converts all of `input`; rejected bytes become U+FFFD (see `Charset`).
    func convert(_ input: inout [UInt8]) -> String {
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        var out = [UInt8]()
        out.reserveCapacity(input.count * 2 + 16)
        var chunk = [UInt8](repeating: 0, count: max(256, min(input.count * 3 + 16, 1 << 16)))
        input.withUnsafeMutableBufferPointer { inBuf in
            chunk.withUnsafeMutableBufferPointer { outBuf in
                let inBase = UnsafeMutableRawPointer(inBuf.baseAddress)?.assumingMemoryBound(to: CChar.self)
                let outBase = UnsafeMutableRawPointer(outBuf.baseAddress!).assumingMemoryBound(to: CChar.self)
                var inPtr = inBase
                var inLeft = inBuf.count
                func drain(_ outPtr: UnsafeMutablePointer<CChar>) {
                    let produced = outBase.distance(to: outPtr)
                    out.append(contentsOf: UnsafeRawBufferPointer(start: outBase, count: produced))
                }
                while inLeft > 0 {
                    var outPtr: UnsafeMutablePointer<CChar>? = outBase
                    var outLeft = outBuf.count
                    let r = iconv(handle, &inPtr, &inLeft, &outPtr, &outLeft)
                    drain(outPtr!)
                    if r != -1 { break }
                    let err = errno
                    if err == E2BIG { continue }
                    out.append(contentsOf: replacement)
                    if err == EILSEQ, inLeft > 0 {
                        inPtr = inPtr! + 1
                        inLeft -= 1
                    } else {
                        break  // EINVAL: truncated sequence at the end
                    }
                }
                var outPtr: UnsafeMutablePointer<CChar>? = outBase
                var outLeft = outBuf.count
                _ = iconv(handle, nil, nil, &outPtr, &outLeft)
                drain(outPtr!)
                _ = iconv(handle, nil, nil, nil, nil)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A few open converters per charset, reused across messages (iconv_open costs far more than a
/// conversion of a typical header). Bounded: at most `maxNames` charsets and `perName` converters each.
private final class IconvPool: Sendable {
    static let shared = IconvPool()
    private let state = Mutex<(free: [String: [IconvConverter]], unknown: Set<String>)>(([:], []))
    private let maxNames = 64
    private let perName = 4

    func take(_ name: String) -> IconvConverter? {
        let cached: IconvConverter?? = state.withLock { s in
            if s.unknown.contains(name) { return .some(nil) }
            return s.free[name]?.popLast().map { .some($0) } ?? nil
        }
        switch cached {
        case .some(.some(let c)): return c
        case .some(.none): return nil
        case .none:
            if let c = IconvConverter(from: name) { return c }
            state.withLock { s in if s.unknown.count < 256 { s.unknown.insert(name) } }
            return nil
        }
    }

    func give(_ converter: IconvConverter, _ name: String) {
        state.withLock { s in
            if s.free[name] == nil && s.free.count >= maxNames { return }
            if s.free[name, default: []].count < perName { s.free[name, default: []].append(converter) }
        }
    }

    func isAvailable(_ name: String) -> Bool {
        guard let c = take(name) else { return false }
        give(c, name)
        return true
    }
}
