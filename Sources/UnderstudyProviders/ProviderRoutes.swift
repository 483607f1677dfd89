import UnderstudyHTTP
import UnderstudyJOSE
import UnderstudyJSON

/// The provider endpoints, path-routed on the HTTP port: Apple under `/apple`, Google under `/google`,
/// and the minting API under `/api/tokens`. Documents that do not change are serialized once here.
public struct ProviderRoutes: Sendable {
    public let apple: AppleProvider
    public let google: GoogleProvider
    let clock: UnixClock
    /// Discovery documents serialized once when the public URL is configured.
    private let fixedDiscovery: (apple: HTTPResponse, google: HTTPResponse)?
    /// Discovery as the real hosts publish it (`https://appleid.apple.com/auth/keys`...), for
    /// requests routed as one of those hosts.
    private let realDiscovery: (apple: HTTPResponse, google: HTTPResponse)
    /// Apple's JWKS in every order of its keys (or just one when shuffling is off).
    private let appleKeyOrders: [HTTPResponse]
    private let googleJWKS: [UInt8]
    private let googleCerts: [UInt8]
    /// Answers `tokeninfo?access_token=` (the web flows' access tokens live in their grant store).
    public var accessTokenInfo: (@Sendable (String) -> HTTPResponse)?

    public init(apple: AppleProvider, google: GoogleProvider, clock: @escaping UnixClock) {
        self.apple = apple
        self.google = google
        self.clock = clock
        fixedDiscovery = apple.provider.publicURL.map {
            (.json(apple.discoveryDocument(baseURL: $0)), .json(google.discoveryDocument(baseURL: $0)))
        }
        realDiscovery = (.json(apple.discoveryDocument(endpointBase: AppleProvider.realBase)),
                         .json(google.discoveryDocument(hosts: .real)))
        let indices = Array(apple.keyRing.jwks.indices)
        let orders = apple.settings.shuffleKeys ? Self.permutations(indices) : [indices]
        appleKeyOrders = orders.map { .json(apple.jwksDocument(order: $0)) }
        googleJWKS = google.jwksDocument().serializedBytes()
        googleCerts = google.certificatesDocument().serializedBytes()
    }

    static func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        guard items.count <= 5 else {
            // 120 orders is plenty; beyond that rotate instead of enumerating n! orders.
            return items.indices.map { Array(items[$0...] + items[..<$0]) }
        }
        var out: [[Int]] = []
        for (i, first) in items.enumerated() {
            var rest = items
            rest.remove(at: i)
            for tail in permutations(rest) { out.append([first] + tail) }
        }
        return out
    }

    /// An error in the shape Google's and Apple's endpoints answer and OAuth clients read:
    /// `{"error": "<code>", "error_description": "<text>"}`. Every error under `/apple` and
    /// `/google` uses it (the router's 404 and 405 included); `/api` keeps `HTTPResponse.problem`.
    public static func oauthProblem(_ status: HTTPStatus, error: String, description: String) -> HTTPResponse {
        .json(["error": .string(error), "error_description": .string(description)], status: status)
    }

    public func register(on router: inout Router) {
        for prefix in ["/apple", "/google"] {
            router.setProblemResponder(under: prefix) { Self.oauthProblem($0, error: $1, description: $2) }
        }
        router.add(.get, "/apple/.well-known/openid-configuration") { [self] request, _ in
            if request.context.virtualHost != nil { return .response(realDiscovery.apple) }
            return .response(fixedDiscovery?.apple ?? .json(apple.discoveryDocument(baseURL: Self.baseURL(of: request))))
        }
        router.add(.get, "/apple/auth/keys") { [appleKeyOrders] _, _ in
            .response(appleKeyOrders[Int.random(in: 0..<appleKeyOrders.count)])
        }
        router.add(.get, "/google/.well-known/openid-configuration") { [self] request, _ in
            if request.context.virtualHost != nil { return .response(realDiscovery.google) }
            return .response(fixedDiscovery?.google ?? .json(google.discoveryDocument(baseURL: Self.baseURL(of: request))))
        }
        router.add(.get, "/google/oauth2/v3/certs") { [self] _, _ in .response(certsResponse(googleJWKS)) }
        router.add(.get, "/google/oauth2/v1/certs") { [self] _, _ in .response(certsResponse(googleCerts)) }
        // Verifying a signature is CPU work too.
        router.add(.get, "/google/tokeninfo") { [self] request, _ in
            if let access = request.queryValue("access_token"), let accessTokenInfo {
                return .blocking { .response(accessTokenInfo(access)) }
            }
            return .blocking { .response(tokenInfo(request.queryValue("id_token"))) }
        }
        router.add(.post, "/google/tokeninfo") { [self] request, _ in
            let form = (try? request.formBody()) ?? []
            if let access = form.first(where: { $0.name == "access_token" })?.value ?? request.queryValue("access_token"),
               let accessTokenInfo {
                return .blocking { .response(accessTokenInfo(access)) }
            }
            let token = form.first { $0.name == "id_token" }?.value ?? request.queryValue("id_token")
            return .blocking { .response(tokenInfo(token)) }
        }
        // RSA signing takes about a third of a millisecond of CPU: off the loops.
        router.add(.post, "/api/tokens/:provider") { [self] request, params in
            .blocking { .response(mint(provider: params["provider"] ?? "", request: request)) }
        }
    }

    /// `http://<Host header>` (`https` over TLS): the address the client used to reach us.
    static func baseURL(of request: HTTPRequest) -> String {
        let host = request.headers["Host"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        // A Host header is attacker-controlled text: keep only what a host:port can contain.
        let safe = host.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || ".-:[]_".unicodeScalars.contains($0)) }
        return request.context.scheme + "://" + (safe ? host : "127.0.0.1")
    }

    /// Google's caching headers on its certificate endpoints.
    func certsResponse(_ body: [UInt8]) -> HTTPResponse {
        let now = clock()
        let maxAge = google.settings.certsMaxAge
        return HTTPResponse(status: .ok, headers: [
            "Content-Type": "application/json; charset=UTF-8",
            "Cache-Control": "public, max-age=\(maxAge), must-revalidate, no-transform",
            "Expires": HTTPDate.format(epochSeconds: now + maxAge),
            "Date": HTTPDate.format(epochSeconds: now),
        ], body: body)
    }

    func tokenInfo(_ token: String?) -> HTTPResponse {
        guard let token, let info = google.tokenInfo(token, now: clock()) else {
            // Google's answer for a missing, malformed, expired or foreign token.
            return Self.oauthProblem(.badRequest, error: "invalid_token", description: "Invalid Value")
        }
        return .json(info)
    }

    func mint(provider: String, request: HTTPRequest) -> HTTPResponse {
        guard provider == "apple" || provider == "google" else {
            return .problem(.notFound, error: "unknown_provider", message: UnknownProviderError(name: provider).description)
        }
        let body: JSONValue
        do {
            body = try request.jsonBody()
        } catch {
            return error.response
        }
        do {
            let mintRequest = try MintRequest(json: body)
            return .json(try mint(provider: provider, mintRequest).json)
        } catch let error as MintError {
            return .problem(.badRequest, error: "invalid_request", message: error.message)
        } catch {
            return .problem(.internalServerError, error: "mint_failed", message: "\(error)")
        }
    }

    /// Mints for a provider by name ("apple" or "google"): the CLI and the API share this.
    public func mint(provider: String, _ request: MintRequest) throws -> MintedToken {
        switch provider {
        case "apple": return try apple.mint(request, now: clock())
        case "google": return try google.mint(request, now: clock())
        default: throw UnknownProviderError(name: provider)
        }
    }
}

public struct UnknownProviderError: Error, CustomStringConvertible {
    public let name: String
    public var description: String { "unknown provider '\(name)'; use apple or google" }
}
