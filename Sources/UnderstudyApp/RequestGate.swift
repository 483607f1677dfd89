import UnderstudyHTTP
import UnderstudyJSON

/// What every request passes before routing, in one place: its Host must be one Understudy serves
/// (421 otherwise), and when an API token is configured, `/api/*` and `/view/*` need it (401 otherwise).
/// `/healthz` and the provider routes stay open: real verifiers fetch JWKS, discovery, certs and
/// tokeninfo without a token.
struct RequestGate: HTTPResponder {
    let next: any HTTPResponder
    let hosts: HostAllowList
    let apiToken: String?

    func respond(to request: HTTPRequest) -> HTTPReply {
        let host = request.headers["Host"]
        guard hosts.allows(host) else { return .response(Self.misdirected(host ?? "")) }
        if let apiToken, Self.needsToken(request.path), !Self.authorized(request, token: apiToken) {
            var response = HTTPResponse.problem(.unauthorized, error: "unauthorized",
                message: "this server requires an API token for /api; send `Authorization: Bearer <token>` with the value "
                    + "of --api-token (UNDERSTUDY_SERVER_API_TOKEN)")
            response.headers.add(name: "WWW-Authenticate", value: "Bearer")
            return .response(response)
        }
        return next.respond(to: request)
    }

    /// `/api` (Mailpit's `/api/v1` with it) and Mailpit's `/view/{ID}.html`, which shows mail too.
    static func needsToken(_ path: String) -> Bool {
        path == "/api" || path.hasPrefix("/api/") || path.hasPrefix("/view/")
    }

    static func misdirected(_ host: String) -> HTTPResponse {
        let shown = String(host.unicodeScalars.prefix(100).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
        let name = HostAllowList.hostname(ofHeader: host) ?? shown
        return .problem(HTTPStatus(code: 421), error: "unknown_host",
                        message: "Host '\(shown)' is not one Understudy serves; allow it with --allow-host \(name) "
                            + "(or UNDERSTUDY_SERVER_ALLOW_HOSTS=\(name))")
    }

    /// `Authorization: Bearer <token>`, compared in time independent of where they differ.
    static func authorized(_ request: HTTPRequest, token: String) -> Bool {
        guard let value = request.headers["Authorization"] else { return false }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let given = Array(parts[1].utf8), expected = Array(token.utf8)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<given.count { difference |= given[i] ^ expected[i] }
        return difference == 0
    }
}
