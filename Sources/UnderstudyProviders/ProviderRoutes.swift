import UnderstudyHTTP
import UnderstudyJOSE
import UnderstudyJSON

/// The provider endpoints, path-routed on the HTTP port: Apple under `/apple`, Google under `/google`,
/// and the minting API under `/api/tokens`. Documents that do not change are serialized once here.
public struct ProviderRoutes: Sendable {
    /// Both providers' keys; every request reads the current snapshot, so a rotation shows at once.
    public let keys: KeyStore
    let clock: UnixClock
    /// Last jti per provider and the stand-in retired keys, for scenarios.
    public let scenarioMemory = ScenarioMemory()
    /// Discovery documents serialized once when the public URL is configured.
    private let fixedDiscovery: (apple: HTTPResponse, google: HTTPResponse)?
    /// Discovery as the real hosts publish it (`https://appleid.apple.com/auth/keys`...), for
    /// requests routed as one of those hosts.
    private let realDiscovery: (apple: HTTPResponse, google: HTTPResponse)
    /// Answers `tokeninfo?access_token=` (the web flows' access tokens live in their grant store).
    public var accessTokenInfo: (@Sendable (String) -> HTTPResponse)?

    /// The providers over the keys published now.
    public var apple: AppleProvider { keys.snapshot(now: clock()).apple }
    public var google: GoogleProvider { keys.snapshot(now: clock()).google }

    /// Routes over fixed key rings (the first key of each signs).
    public init(apple: AppleProvider, google: GoogleProvider, clock: @escaping UnixClock) {
        let now = clock()
        let store = try! KeyStore(settings: apple.provider, apple: ProviderKeySet(keys: apple.keyRing.keys, created: now),
                                  google: ProviderKeySet(keys: google.keyRing.keys, created: now), now: now)
        self.init(keys: store, clock: clock)
    }

    public init(keys: KeyStore, clock: @escaping UnixClock) {
        self.keys = keys
        self.clock = clock
        let snapshot = keys.snapshot(now: clock())
        let apple = snapshot.apple, google = snapshot.google
        fixedDiscovery = apple.provider.publicURL.map {
            (.json(apple.discoveryDocument(baseURL: $0)), .json(google.discoveryDocument(baseURL: $0)))
        }
        realDiscovery = (.json(apple.discoveryDocument(endpointBase: AppleProvider.realBase)),
                         .json(google.discoveryDocument(hosts: .real)))
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
        router.add(.get, "/apple/auth/keys") { [self] _, _ in
            let orders = keys.snapshot(now: clock()).appleKeyOrders
            return .response(orders[Int.random(in: 0..<orders.count)])
        }
        router.add(.get, "/google/.well-known/openid-configuration") { [self] request, _ in
            if request.context.virtualHost != nil { return .response(realDiscovery.google) }
            return .response(fixedDiscovery?.google ?? .json(google.discoveryDocument(baseURL: Self.baseURL(of: request))))
        }
        router.add(.get, "/google/oauth2/v3/certs") { [self] _, _ in .response(certsResponse(keys.snapshot(now: clock()).googleJWKS)) }
        router.add(.get, "/google/oauth2/v1/certs") { [self] _, _ in .response(certsResponse(keys.snapshot(now: clock()).googleCerts)) }
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
        router.add(.get, "/api/keys") { [self] _, _ in .response(.json(keyListing())) }
        // Generating an RSA key takes tens of milliseconds: off the loops.
        router.add(.post, "/api/keys/:provider/rotate") { [self] _, params in
            .blocking { .response(rotate(params["provider"] ?? "")) }
        }
        router.add(.get, "/api/scenarios") { request, _ in
            .response(Self.scenarioListing(request))
        }
        // Verifying is CPU work too.
        router.add(.post, "/api/tokens/inspect") { [self] request, _ in .blocking { .response(inspect(request)) } }
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

    /// `GET /api/keys`: every key of both providers with its state.
    public func keyListing() -> JSONValue {
        let now = clock()
        var out = JSONObject()
        for provider in ProviderName.allCases {
            let set = keys.keySet(provider, now: now)
            out[provider.rawValue] = .array(set.listed.map { managed in
                var o: JSONObject = ["kid": .string(managed.key.kid), "state": .string(managed.state.name),
                                     "created": .integer(managed.created)]
                switch managed.state {
                case .grace(let until): o["until"] = .integer(until)
                case .retired(let since): o["since"] = .integer(since)
                default: break
                }
                o["thumbprint"] = .string((try? JWK(publicKey: managed.key.privateKey.publicKey, kid: managed.key.kid).thumbprint()) ?? "")
                return .object(o)
            })
        }
        out["rotationGrace"] = .integer(keys.settings.rotationGrace)
        return .object(out)
    }

    func rotate(_ provider: String) -> HTTPResponse {
        guard let name = ProviderName(rawValue: provider) else {
            return .problem(.notFound, error: "unknown_provider", message: UnknownProviderError(name: provider).description)
        }
        do {
            let now = clock()
            let (new, previous) = try keys.rotate(name, now: now)
            let grace = keys.settings.rotationGrace
            return .json(["provider": .string(name.rawValue), "active": .string(new.kid), "previous": .string(previous.kid),
                          "previousState": .string(grace > 0 ? "grace" : "retired"), "graceUntil": .integer(now + grace)])
        } catch let error as RotationError {
            return .problem(.conflict, error: "too_many_keys", message: error.description)
        } catch {
            return .problem(.internalServerError, error: "rotation_failed", message: "could not rotate the \(provider) keys: \(error)")
        }
    }

    /// Google's caching headers on its certificate endpoints.
    func certsResponse(_ body: [UInt8]) -> HTTPResponse {
        let now = clock()
        let maxAge = certsMaxAge(now: now)
        return HTTPResponse(status: .ok, headers: [
            "Content-Type": "application/json; charset=UTF-8",
            "Cache-Control": "public, max-age=\(maxAge), must-revalidate, no-transform",
            "Expires": HTTPDate.format(epochSeconds: now + maxAge),
            "Date": HTTPDate.format(epochSeconds: now),
        ], body: body)
    }

    /// The configured max-age, cut short so no client caches past the end of a grace period (a
    /// retired key leaves clients' caches with it).
    func certsMaxAge(now: Int64) -> Int64 {
        let maxAge = keys.settings.google.certsMaxAge
        guard let until = keys.snapshot(now: now).validUntil else { return maxAge }
        return max(0, min(maxAge, until - now))
    }

    /// The Cache-Control the certs endpoints answer with now.
    public func certsCacheControl() -> String {
        "public, max-age=\(certsMaxAge(now: clock())), must-revalidate, no-transform"
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

    /// `GET /api/scenarios[?provider=apple|google][&profile=NAME]`.
    static func scenarioListing(_ request: HTTPRequest) -> HTTPResponse {
        var provider: ProviderName?
        if let p = request.queryValue("provider") {
            guard let name = ProviderName(rawValue: p) else {
                return .problem(.badRequest, error: "invalid_request", message: "provider must be apple or google, got '\(p.prefix(40))'")
            }
            provider = name
        }
        var profile: VerifierProfile?
        if let p = request.queryValue("profile") {
            guard let named = VerifierProfile.named(p) else {
                return .problem(.badRequest, error: "invalid_request", message: "profile '\(p.prefix(40))' is not known; use one of \(VerifierProfile.names.joined(separator: ", "))")
            }
            guard provider != nil else {
                return .problem(.badRequest, error: "invalid_request", message: "profile needs a provider: add &provider=apple or &provider=google")
            }
            profile = named
        }
        return .json(Scenario.listing(provider: provider, profile: profile))
    }

    /// An inspector over every key Understudy knows: published, retired, and the scenarios' stand-ins.
    public func inspector() -> TokenInspector {
        let now = clock()
        var known: [TokenInspector.KnownKey] = []
        for provider in ProviderName.allCases {
            for managed in keys.keySet(provider, now: now).listed {
                known.append(.init(provider: provider, key: managed.key, state: managed.state.name))
            }
        }
        for (provider, key) in scenarioMemory.standInRetiredKeys() {
            known.append(.init(provider: provider, key: key, state: "retired"))
        }
        return TokenInspector(settings: keys.settings, keys: known)
    }

    func inspect(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONValue
        do { body = try request.jsonBody() } catch { return error.response }
        guard let token = body["token"]?.stringValue else {
            return .problem(.badRequest, error: "invalid_request", message: "give the token as {\"token\": \"eyJ...\"} (and optionally \"rawNonce\")")
        }
        if let raw = body["rawNonce"], raw.stringValue == nil, !raw.isNull {
            return .problem(.badRequest, error: "invalid_request", message: "rawNonce must be a string")
        }
        do {
            return .json(try inspector().inspect(token, rawNonce: body["rawNonce"]?.stringValue, now: clock()))
        } catch {
            var response = HTTPResponse.problem(.badRequest, error: "invalid_token", message: error.message)
            if let scenario = error.scenario, case .object(var o)? = try? JSONValue.parse(response.body) {
                o["scenario"] = .string(scenario)
                response.body = JSONValue.object(o).serializedBytes()
            }
            return response
        }
    }

    /// Mints a scenario's token for a provider, with a fresh nonce and jti unless `context` is given.
    public func mintScenario(_ scenario: Scenario, provider: ProviderName, request: MintRequest,
                             context: ScenarioContext? = nil) throws(MintError) -> ScenarioToken {
        let snapshot = keys.snapshot(now: clock())
        let ring = provider == .apple ? snapshot.apple.keyRing : snapshot.google.keyRing
        var context = context ?? .fresh()
        if context.previousJTI == nil { context.previousJTI = scenarioMemory.lastJTI(provider) }
        if context.retiredKey == nil, scenario.edits.contains(.signing(.retiredKey)) {
            if let last = ring.retired.last { context.retiredKey = last } else { context.retiredKey = try scenarioMemory.standInRetiredKey(provider) }
        }
        let token = try ScenarioMinter(apple: snapshot.apple, google: snapshot.google).mint(scenario, provider: provider, request: request,
                                                                           context: context, now: clock())
        if let jti = token.token.claims["jti"]?.stringValue { scenarioMemory.remember(jti: jti, for: provider) }
        return token
    }

    /// Mints for a provider by name ("apple" or "google"): the CLI and the API share this.
    public func mint(provider: String, _ request: MintRequest) throws -> MintedToken {
        if let name = request.scenario, let scenario = Scenario.named(name) {
            return try mintScenario(scenario, provider: try ProviderName(parsing: provider), request: request).minted
        }
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
