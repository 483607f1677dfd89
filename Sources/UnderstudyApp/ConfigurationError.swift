/// A configuration problem found at start-up. The message names the key and where it came from.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable { case unknownKey, wrongType, outOfRange, unreadable, invalid }
    private let code: Code
    public let message: String

    static func unknownKey(_ key: String, suggestion: String?, source: String) -> Self {
        let hint = suggestion.map { "; did you mean \($0)?" } ?? "; see `understudy serve --help` for the settings"
        return .init(code: .unknownKey, message: "\(source): unknown setting '\(key)'\(hint)")
    }
    static func wrongType(key: String, expected: String, got: String, source: String) -> Self {
        .init(code: .wrongType, message: "\(source): '\(key)' must be \(expected), got \(got)")
    }
    static func outOfRange(key: String, expected: String, got: Int64, source: String) -> Self {
        .init(code: .outOfRange, message: "\(source): '\(key)' must be \(expected), got \(got)")
    }
    static func unreadable(_ path: String, _ reason: String) -> Self {
        .init(code: .unreadable, message: "cannot read \(path): \(reason)")
    }
    static func invalid(_ key: String, _ problem: String) -> Self {
        .init(code: .invalid, message: "'\(key)' \(problem)")
    }

    public var description: String { message }
}
