/// Why a fault description was refused.
public struct FaultError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable { case invalid }
    private let code: Code
    public let field: String
    public let description: String

    public static func invalid(_ field: String, _ problem: String) -> FaultError {
        FaultError(code: .invalid, field: field, description: "\(field) \(problem)")
    }
}
