/// A parsed Content-Type: lowercased type and subtype plus parameters (names lowercased, values
/// decoded from RFC 2231 / RFC 2047). Unparseable or missing values read as text/plain (RFC 2045 5.2).
public struct MIMEContentType: Sendable, Hashable {
    public let type: String
    public let subtype: String
    public let parameters: [String: String]

    public var mimeType: String { type + "/" + subtype }
    public var charset: String? { parameters["charset"] }
    public var boundary: String? { parameters["boundary"] }

    public init(type: String, subtype: String, parameters: [String: String] = [:]) {
        self.type = type
        self.subtype = subtype
        self.parameters = parameters
    }

    public init(parsing value: String) {
        let (main, params) = MIMEParameters.parse(value)
        parameters = params
        if let slash = main.firstIndex(of: "/") {
            let t = main[..<slash]
            let s = main[main.index(after: slash)...]
            if !t.isEmpty && !s.isEmpty {
                type = String(t)
                subtype = String(s)
                return
            }
        }
        // "text" alone or garbage: RFC 2045 says treat as text/plain.
        type = "text"
        subtype = "plain"
    }

    static let defaultText = MIMEContentType(type: "text", subtype: "plain", parameters: [:])
    static let defaultDigestChild = MIMEContentType(type: "message", subtype: "rfc822", parameters: [:])
}
