/// Which provider a web flow plays. Their flows differ in parameters, response modes, error
/// codes and error shapes.
public enum FlowProvider: String, Sendable, CaseIterable {
    case apple, google

    /// The error code a Cancel on the sign-in page answers with.
    public var cancelError: String {
        switch self {
        case .apple: return "user_cancelled_authorize"
        case .google: return "access_denied"
        }
    }
}
