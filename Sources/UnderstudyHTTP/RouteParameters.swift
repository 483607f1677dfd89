/// The `:name` segments a route matched, percent-decoded.
public struct RouteParameters: Sendable {
    private var pairs: [(name: String, value: String)]

    public init(_ pairs: [(name: String, value: String)] = []) {
        self.pairs = pairs
    }

    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    public var count: Int { pairs.count }
}
