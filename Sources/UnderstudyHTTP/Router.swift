public typealias HTTPHandler = @Sendable (HTTPRequest, RouteParameters) -> HTTPReply

/// Writes the router's own errors (404, 405) in a shape: `HTTPResponse.problem` by default, or a
/// provider's OAuth shape for the paths it owns (see `Router.setProblemResponder(under:_:)`).
public typealias ProblemResponder = @Sendable (_ status: HTTPStatus, _ error: String, _ message: String) -> HTTPResponse

/// Routes built once at start-up, then frozen into an immutable responder (Hummingbird style).
///
/// Patterns are paths whose segments are literals or `:name` parameters:
/// `/apple/auth/keys`, `/api/messages/:id/parts/:n`. Matching is per segment on the raw request
/// path, and each segment is percent-decoded after splitting, so `%2F` inside a parameter stays in
/// the value. A literal segment beats a parameter; when the literal branch has no route for the
/// method, parameter branches are tried next. A parameter never matches an empty segment. A trailing
/// slash is significant: `/a/` is not `/a` (register both if both should work).
public struct Router: Sendable {
    struct Node: Sendable {
        var literals: [String: Node] = [:]
        /// Zero or one node for a parameter segment (an array so the struct can recurse).
        var parameter: [Node] = []
        var handlers: [HTTPMethod: Route] = [:]
    }

    struct Route: Sendable {
        var parameterNames: [String]
        var handler: HTTPHandler
    }

    private var root = Node()
    private var registered: [(method: HTTPMethod, pattern: String)] = []
    private var problemResponders: [(segments: [String], responder: ProblemResponder)] = []

    public init() {}

    /// Answers the router's own errors for paths under `prefix` (`/google`: `/google` and
    /// `/google/...`) with `responder`; the longest matching prefix wins, other paths get
    /// `HTTPResponse.problem`.
    public mutating func setProblemResponder(under prefix: String, _ responder: @escaping ProblemResponder) {
        precondition(prefix.utf8.first == UInt8(ascii: "/"), "problem prefix `\(prefix)` must start with /")
        let segments = Router.segments(of: Substring(prefix).utf8).map(String.init).filter { !$0.isEmpty }
        problemResponders.removeAll { $0.segments == segments }
        problemResponders.append((segments: segments, responder: responder))
        problemResponders.sort { $0.segments.count > $1.segments.count }
    }

    /// Registers `handler` for `method` and `pattern`. A malformed or duplicate pattern is a
    /// programming error and traps at start-up.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
        precondition(pattern.utf8.first == UInt8(ascii: "/"), "route pattern `\(pattern)` must start with /")
        let segments = Router.segments(of: Substring(pattern).utf8)
        var names: [String] = []
        for segment in segments where segment.first == ":" {
            let name = String(segment.dropFirst())
            precondition(!name.isEmpty, "route pattern `\(pattern)` has a parameter without a name")
            precondition(!names.contains(name), "route pattern `\(pattern)` repeats parameter `:\(name)`")
            names.append(name)
        }
        Router.insert(Route(parameterNames: names, handler: handler), for: method, at: segments[...],
                      into: &root, pattern: pattern)
        registered.append((method: method, pattern: pattern))
    }

    /// Every route in registration order (for the OpenAPI sync test).
    public var routes: [(method: HTTPMethod, pattern: String)] { registered }

    public func freeze() -> FrozenRouter {
        FrozenRouter(root: root, problemResponders: problemResponders)
    }

    private static func insert(_ route: Route, for method: HTTPMethod, at segments: ArraySlice<Substring>,
                               into node: inout Node, pattern: String) {
        guard let segment = segments.first else {
            precondition(node.handlers[method] == nil, "route \(method) \(pattern) is registered twice")
            node.handlers[method] = route
            return
        }
        if segment.first == ":" {
            if node.parameter.isEmpty { node.parameter.append(Node()) }
            insert(route, for: method, at: segments.dropFirst(), into: &node.parameter[0], pattern: pattern)
        } else {
            insert(route, for: method, at: segments.dropFirst(), into: &node.literals[String(segment), default: Node()],
                   pattern: pattern)
        }
    }

    /// "/" -> [""], "/a/b" -> ["a", "b"], "/a/" -> ["a", ""].
    static func segments(of path: Substring.UTF8View) -> [Substring] {
        Substring(path).dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    }
}
