/// A `multipart/form-data` body (RFC 7578) split into its fields: pure and bounded. Each part's
/// headers are read for `Content-Disposition` (`name`, `filename`) and `Content-Type`; its
/// content is kept as bytes. The body is already bounded by the server's body limit; on top,
/// a body may hold at most `maximumParts` parts, each with at most `maximumHeaderBytes` of
/// headers. A malformed body is an `HTTPBodyError` (400) that says what was wrong.
public struct MultipartFormData: Sendable {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var filename: String?
        public var contentType: String?
        public var content: [UInt8]
        public var text: String { String(decoding: content, as: UTF8.self) }
    }

    public var fields: [Field]

    public static let maximumParts = 1000
    public static let maximumHeaderBytes = 8 * 1024
    /// Longest boundary RFC 2046 allows.
    static let maximumBoundary = 70

    /// All values named `name`, in order.
    public func values(_ name: String) -> [Field] { fields.filter { $0.name == name } }
    public func first(_ name: String) -> Field? { fields.first { $0.name == name } }

    /// The body of `request`, whose Content-Type must be `multipart/form-data` with a boundary.
    public init(request: HTTPRequest) throws(HTTPBodyError) {
        guard request.mediaType == "multipart/form-data", let type = request.headers["Content-Type"],
              let boundary = Self.parameter("boundary", in: type) else {
            throw .unsupportedMediaType(got: request.headers["Content-Type"], expected: "multipart/form-data; boundary=...")
        }
        try self.init(body: request.body, boundary: boundary)
    }

    public init(body: [UInt8], boundary: String) throws(HTTPBodyError) {
        guard (1...Self.maximumBoundary).contains(boundary.utf8.count) else {
            throw .invalidForm("the multipart boundary must be 1 to 70 characters")
        }
        let delimiter = Array(("--" + boundary).utf8)
        // The first delimiter may start the body; every later one follows a CRLF.
        guard var position = Self.find(delimiter, in: body, from: 0), position == 0 || Self.find([0x0D, 0x0A] + delimiter, in: body, from: 0) == position - 2 else {
            throw .invalidForm("the body has no '--\(boundary)' line")
        }
        let next = [0x0D, 0x0A] + delimiter
        var fields: [Field] = []
        while true {
            position += delimiter.count
            // After a delimiter: "--" ends the body, else optional white space then CRLF.
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") { break }
            while position < body.count, body[position] == 0x20 || body[position] == 0x09 { position += 1 }
            guard body.count >= position + 2, body[position] == 0x0D, body[position + 1] == 0x0A else {
                throw .invalidForm("a boundary line is not followed by CRLF")
            }
            position += 2
            // A line that only starts like the delimiter is content (RFC 2046 delimiters end in
            // "--", or white space and CRLF).
            var searchFrom = position
            var found: Int?
            while let candidate = Self.find(next, in: body, from: searchFrom) {
                if Self.endsDelimiter(body, at: candidate + next.count) { found = candidate; break }
                searchFrom = candidate + 1
            }
            guard let end = found else {
                throw .invalidForm("the last part is not closed by '--\(boundary)--'")
            }
            guard fields.count < Self.maximumParts else { throw .invalidForm("more than \(Self.maximumParts) parts") }
            fields.append(try Self.field(body[position..<end]))
            position = end + 2
        }
        self.fields = fields
    }

    static func endsDelimiter(_ body: [UInt8], at index: Int) -> Bool {
        var i = index
        if body.count >= i + 2, body[i] == UInt8(ascii: "-"), body[i + 1] == UInt8(ascii: "-") { return true }
        while i < body.count, body[i] == 0x20 || body[i] == 0x09 { i += 1 }
        return body.count >= i + 2 && body[i] == 0x0D && body[i + 1] == 0x0A
    }

    static func field(_ part: ArraySlice<UInt8>) throws(HTTPBodyError) -> Field {
        let start = part.startIndex
        let headerEnd: Int
        if part.starts(with: [0x0D, 0x0A]) {
            headerEnd = start  // no headers
        } else if let blank = find([0x0D, 0x0A, 0x0D, 0x0A], in: Array(part.prefix(maximumHeaderBytes + 4)), from: 0) {
            headerEnd = start + blank + 2
        } else {
            throw .invalidForm("a part's headers are longer than \(maximumHeaderBytes) bytes or never end")
        }
        let headerText = String(decoding: part[start..<headerEnd], as: UTF8.self)
        var name: String?
        var filename: String?
        var contentType: String?
        for line in headerText.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            if field == "content-disposition" {
                name = parameter("name", in: value)
                filename = parameter("filename", in: value)
            } else if field == "content-type" {
                contentType = value
            }
        }
        guard let name else { throw .invalidForm("a part has no Content-Disposition name") }
        return Field(name: name, filename: filename, contentType: contentType, content: Array(part[(headerEnd + 2)...]))
    }

    /// `name=value` or `name="quoted \" value"` from a header's parameters, name ignoring case.
    static func parameter(_ name: String, in header: String) -> String? {
        var rest = Substring(header)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = rest[..<equals].trimmingCharacters()
            var value = rest[rest.index(after: equals)...]
            var parsed = ""
            if value.first == "\"" {
                value = value.dropFirst()
                var escaped = false
                var closed = false
                while let c = value.first {
                    value = value.dropFirst()
                    if escaped { parsed.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { closed = true; break } else { parsed.append(c) }
                }
                guard closed else { return nil }
                rest = value
            } else {
                let end = value.firstIndex(of: ";") ?? value.endIndex
                parsed = String(value[..<end]).trimmingCharacters()
                rest = value[end...]
            }
            if key.lowercased() == name.lowercased() { return parsed }
        }
        return nil
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var i = from
        let last = bytes.count - needle.count
        while i <= last {
            if bytes[i] == first {
                var j = 1
                while j < needle.count, bytes[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
