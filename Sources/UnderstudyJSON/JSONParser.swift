
extension JSONValue {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 256

    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let array = Array(bytes)
        var parser = JSONParser(bytes: array)
        return try parser.parseDocument()
    }

    public static func parse(_ string: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(string.utf8))
    }
}

struct JSONParser {
    let bytes: [UInt8]
    var i = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let v = try parseValue()
        skipWhitespace()
        if i != bytes.count { throw .trailingData(at: i) }
        return v
    }

    mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0a, 0x0d: i += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard i < bytes.count else { throw .unexpectedEnd(at: i) }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw .unexpectedByte(bytes[i], at: i)
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        let start = word.utf8Start
        for k in 0..<n {
            guard i + k < bytes.count else { throw .unexpectedEnd(at: i + k) }
            guard bytes[i + k] == start[k] else { throw .unexpectedByte(bytes[i + k], at: i + k) }
        }
        i += n
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONValue.maximumDepth { throw .tooDeep(JSONValue.maximumDepth, at: i) }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        i += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1; depth -= 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            guard i < bytes.count else { throw .unexpectedEnd(at: i) }
            guard bytes[i] == UInt8(ascii: "\"") else { throw .unexpectedByte(bytes[i], at: i) }
            let key = try parseString()
            skipWhitespace()
            guard i < bytes.count else { throw .unexpectedEnd(at: i) }
            guard bytes[i] == UInt8(ascii: ":") else { throw .unexpectedByte(bytes[i], at: i) }
            i += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key, value))
            skipWhitespace()
            guard i < bytes.count else { throw .unexpectedEnd(at: i) }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw .unexpectedByte(bytes[i], at: i)
        }
        depth -= 1
        return .object(JSONObject(parsedMembers: members))
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        i += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1; depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard i < bytes.count else { throw .unexpectedEnd(at: i) }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            throw .unexpectedByte(bytes[i], at: i)
        }
        depth -= 1
        return .array(items)
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = i
        var isInteger = true
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count else { throw .invalidNumber(at: start) }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[i]) {
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
        } else {
            throw .invalidNumber(at: start)
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            let digits = i
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            if i == digits { throw .invalidNumber(at: start) }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            let digits = i
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            if i == digits { throw .invalidNumber(at: start) }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if isInteger, let v = Int64(text) { return .integer(v) }
        guard let d = Double(text) else { throw .invalidNumber(at: start) }
        return .double(d)
    }

    mutating func parseString() throws(JSONParseError) -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        var runStart = i
        while true {
            guard i < bytes.count else { throw .unexpectedEnd(at: i) }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                out.append(contentsOf: bytes[runStart..<i])
                i += 1
                break
            }
            if b < 0x20 { throw .controlCharacter(at: i) }
            if b != UInt8(ascii: "\\") { i += 1; continue }
            out.append(contentsOf: bytes[runStart..<i])
            i += 1
            guard i < bytes.count else { throw .unexpectedEnd(at: i) }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5c)
            case UInt8(ascii: "/"): out.append(0x2f)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate must be followed by an escaped low surrogate.
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u")
                    else { throw .invalidEscape(at: i) }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw .invalidEscape(at: i) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw .invalidEscape(at: i)
                }
                guard let u = Unicode.Scalar(scalar) else { throw .invalidEscape(at: i) }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw .invalidEscape(at: i - 1)
            }
            runStart = i
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw .invalidUTF8(at: i) }
        return s
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw .unexpectedEnd(at: i) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw .invalidEscape(at: i)
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }
}
