/// The two identity providers Understudy stands in for.
public enum ProviderName: String, Sendable, CaseIterable, Hashable {
    case apple, google

    /// Reads "apple" or "google", naming both in the error.
    public init(parsing text: String) throws(UnknownProviderError) {
        guard let p = ProviderName(rawValue: text) else { throw UnknownProviderError(name: text) }
        self = p
    }
}
