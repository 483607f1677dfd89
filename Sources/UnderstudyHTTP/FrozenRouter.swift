/// The immutable form of `Router`. Unknown paths get a 404 problem; a known path with another method
/// gets 405 with an `Allow` header; HEAD uses the GET route when there is no HEAD route (the server
/// sends no body for HEAD). Both are written by the problem responder set for the path's prefix.
public struct FrozenRouter: HTTPResponder {
    private let root: Router.Node
    /// Longest prefix first.
    private let problemResponders: [(segments: [String], responder: ProblemResponder)]

    init(root: Router.Node, problemResponders: [(segments: [String], responder: ProblemResponder)] = []) {
        self.root = root
        self.problemResponders = problemResponders
    }

    /// The responder for the router's own errors on a path (its decoded segments).
    private func problem(for segments: [String]) -> ProblemResponder {
        for entry in problemResponders where entry.segments.count <= segments.count
            && zip(entry.segments, segments).allSatisfy({ $0 == $1 }) {
            return entry.responder
        }
        return { HTTPResponse.problem($0, error: $1, message: $2) }
    }

    public func respond(to request: HTTPRequest) -> HTTPReply {
        let parts = RequestTargetParts(request.target)
        let raw = Router.segments(of: parts.rawPath)
        var segments: [String] = []
        segments.reserveCapacity(raw.count)
        for segment in raw {
            segments.append(URLEncoding.percentDecoded(segment.utf8)
                            ?? URLEncoding.leniently(segment.utf8, plusIsSpace: false))
        }
        var allowed: Set<HTTPMethod> = []
        var values: [String] = []
        if parts.form != .asterisk,
           let (route, parameters) = FrozenRouter.match(request.method, segments[...], node: root,
                                                        values: &values, allowed: &allowed) {
            return route.handler(request, parameters)
        }
        let problem = problem(for: segments)
        if allowed.isEmpty {
            return .response(problem(.notFound, "not_found",
                "no route for \(request.path); check the URL against the API documentation"))
        }
        if allowed.contains(.get) { allowed.insert(.head) }
        let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        var response = problem(.methodNotAllowed, "method_not_allowed",
            "\(request.path) does not accept \(request.method); use one of: \(allow)")
        response.headers.add(name: "Allow", value: allow)
        return .response(response)
    }

    /// Depth-first, literal before parameter. Collects the methods of every path-matching node in
    /// `allowed` so a 405 can list them.
    private static func match(_ method: HTTPMethod, _ segments: ArraySlice<String>, node: Router.Node,
                              values: inout [String], allowed: inout Set<HTTPMethod>)
        -> (Router.Route, RouteParameters)? {
        guard let segment = segments.first else {
            guard !node.handlers.isEmpty else { return nil }
            if let route = node.handlers[method] ?? (method == .head ? node.handlers[.get] : nil) {
                return (route, RouteParameters(Array(zip(route.parameterNames, values)).map {
                    (name: $0.0, value: $0.1)
                }))
            }
            allowed.formUnion(node.handlers.keys)
            return nil
        }
        let rest = segments.dropFirst()
        if let literal = node.literals[segment],
           let found = match(method, rest, node: literal, values: &values, allowed: &allowed) {
            return found
        }
        if let parameter = node.parameter.first, !segment.isEmpty {
            values.append(segment)
            if let found = match(method, rest, node: parameter, values: &values, allowed: &allowed) {
                return found
            }
            values.removeLast()
        }
        return nil
    }
}
