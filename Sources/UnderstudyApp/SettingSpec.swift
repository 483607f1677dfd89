import UnderstudyJSON

/// One configuration setting: its place in `understudy.json`, its type, and the flag and environment
/// variable that also set it. The whole configuration surface is this one table, so the file, the
/// flags, the environment and `--help` can never disagree.
struct SettingSpec: Sendable {
    enum Kind: Sendable, Equatable {
        case string, integer(ClosedRange<Int64>), boolean, stringList, json, choice([String])
    }
    let path: [String]
    let kind: Kind
    let nullable: Bool
    let help: String
    /// A shorter flag that also sets it (`--max-messages` for `mail.maxMessages`).
    let alias: String?

    init(_ dotted: String, _ kind: Kind, nullable: Bool = false, alias: String? = nil, _ help: String) {
        self.path = dotted.split(separator: ".").map(String.init)
        self.kind = kind
        self.nullable = nullable
        self.alias = alias
        self.help = help
    }

    var key: String { path.joined(separator: ".") }

    /// `apple.teamId` -> `--apple-team-id`.
    var flag: String { "--" + path.map(Self.kebab).joined(separator: "-") }

    /// `apple.teamId` -> `UNDERSTUDY_APPLE_TEAM_ID`.
    var environmentVariable: String {
        "UNDERSTUDY_" + path.map { Self.kebab($0).replacingOccurrences("-", "_").uppercased() }.joined(separator: "_")
    }

    /// `teamId` -> `team-id`; a run of capitals is one word: `publicURL` -> `public-url`,
    /// `URLPath` -> `url-path` (the last capital of a run starts the next word when a lowercase follows).
    static func kebab(_ s: String) -> String {
        let chars = Array(s)
        var out = ""
        for (i, c) in chars.enumerated() {
            if c.isUppercase {
                let afterLower = i > 0 && !chars[i - 1].isUppercase
                let endsAcronym = i > 0 && chars[i - 1].isUppercase && i + 1 < chars.count && chars[i + 1].isLowercase
                if afterLower || endsAcronym { out += "-" }
                out += c.lowercased()
            } else {
                out.append(c)
            }
        }
        return out
    }

    var typeDescription: String {
        let base: String
        switch kind {
        case .string: base = "a string"
        case .integer(let r): base = "a whole number from \(r.lowerBound) to \(r.upperBound)"
        case .boolean: base = "true or false"
        case .stringList: base = "a list of strings"
        case .json: base = "JSON"
        case .choice(let c): base = "one of " + c.joined(separator: ", ")
        }
        return nullable ? base + " or null" : base
    }

    /// Checks a value from the configuration file, naming the key in the error.
    func validate(_ value: JSONValue, source: String) throws(ConfigurationError) {
        if value.isNull {
            if nullable { return }
            throw .wrongType(key: key, expected: typeDescription, got: "null", source: source)
        }
        switch kind {
        case .string:
            guard value.stringValue != nil else { throw .wrongType(key: key, expected: typeDescription, got: value.typeName, source: source) }
        case .integer(let range):
            guard let n = value.intValue else { throw .wrongType(key: key, expected: typeDescription, got: value.typeName, source: source) }
            guard range.contains(n) else { throw .outOfRange(key: key, expected: typeDescription, got: n, source: source) }
        case .boolean:
            guard value.boolValue != nil else { throw .wrongType(key: key, expected: typeDescription, got: value.typeName, source: source) }
        case .stringList:
            guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw .wrongType(key: key, expected: typeDescription, got: value.typeName, source: source)
            }
        case .json:
            break
        case .choice(let choices):
            guard let s = value.stringValue, choices.contains(s) else {
                throw .wrongType(key: key, expected: typeDescription, got: value.description, source: source)
            }
        }
    }

    /// Reads a flag or environment value given as text.
    func parse(_ text: String, source: String) throws(ConfigurationError) -> JSONValue {
        if nullable && (text.isEmpty || text == "null") { return .null }
        let value: JSONValue
        switch kind {
        case .string, .choice: value = .string(text)
        case .integer:
            guard let n = Int64(text) else { throw .wrongType(key: key, expected: typeDescription, got: "'\(text)'", source: source) }
            value = .integer(n)
        case .boolean:
            switch text.lowercased() {
            case "true", "1", "yes", "on": value = .bool(true)
            case "false", "0", "no", "off": value = .bool(false)
            default: throw .wrongType(key: key, expected: typeDescription, got: "'\(text)'", source: source)
            }
        case .stringList:
            value = .array(text.split(separator: ",").map { .string(String($0).trimmingSpaces()) })
        case .json:
            do { value = try JSONValue.parse(text) } catch {
                throw .wrongType(key: key, expected: "JSON (\(error.description))", got: "'\(text)'", source: source)
            }
        }
        try validate(value, source: source)
        return value
    }
}

extension String {
    func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }

    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
