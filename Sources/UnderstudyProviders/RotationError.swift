/// Why a rotation was refused.
public struct RotationError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable { case tooManyKeys }
    private let code: Code
    public let description: String

    public static func tooManyKeys(_ provider: ProviderName) -> RotationError {
        RotationError(code: .tooManyKeys, description: "\(ProviderKeySet.publishedLimit) \(provider.rawValue) keys are published already; "
            + "wait for a grace period to end, or set a shorter tokens.rotationGrace")
    }
}
