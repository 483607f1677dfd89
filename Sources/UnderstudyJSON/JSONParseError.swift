/// Why a JSON text was refused, with the byte offset where the parser stopped.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case unexpectedEnd, unexpectedByte(UInt8), invalidNumber, invalidEscape, invalidUTF8
        case controlCharacter, tooDeep(Int), trailingData
    }
    private let code: Code
    /// Byte offset into the input.
    public let offset: Int

    static func unexpectedEnd(at o: Int) -> Self { .init(code: .unexpectedEnd, offset: o) }
    static func unexpectedByte(_ b: UInt8, at o: Int) -> Self { .init(code: .unexpectedByte(b), offset: o) }
    static func invalidNumber(at o: Int) -> Self { .init(code: .invalidNumber, offset: o) }
    static func invalidEscape(at o: Int) -> Self { .init(code: .invalidEscape, offset: o) }
    static func invalidUTF8(at o: Int) -> Self { .init(code: .invalidUTF8, offset: o) }
    static func controlCharacter(at o: Int) -> Self { .init(code: .controlCharacter, offset: o) }
    static func tooDeep(_ limit: Int, at o: Int) -> Self { .init(code: .tooDeep(limit), offset: o) }
    static func trailingData(at o: Int) -> Self { .init(code: .trailingData, offset: o) }

    public var description: String {
        let what: String
        switch code {
        case .unexpectedEnd: what = "the JSON text ends too early"
        case .unexpectedByte(let b):
            let shown = (0x20..<0x7f).contains(b) ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
            what = "unexpected \(shown)"
        case .invalidNumber: what = "malformed number"
        case .invalidEscape: what = "malformed escape in a string"
        case .invalidUTF8: what = "the text is not valid UTF-8"
        case .controlCharacter: what = "unescaped control character in a string"
        case .tooDeep(let limit): what = "nesting deeper than \(limit) levels"
        case .trailingData: what = "data after the JSON value"
        }
        return "invalid JSON at byte \(offset): \(what)"
    }
}
