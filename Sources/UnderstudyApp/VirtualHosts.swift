import UnderstudyHTTP
import UnderstudyMailAPIs

/// Host routing: a request for one of the provider hosts Understudy stands in for is answered by
/// the routes under that provider's prefix, on the real paths: `appleid.apple.com/auth/keys` is
/// `/apple/auth/keys`, `www.googleapis.com/oauth2/v3/certs` is `/google/oauth2/v3/certs`. The host
/// The HTTP email APIs are routed the same way: `api.resend.com/emails` is `/resend/emails`, and
/// `email.<any region>.amazonaws.com` goes to `/ses`. The host
/// comes from the Host header (the absolute-form target of a proxy request carries it too), else
/// the TLS server name. Any other host keeps the path-routed API of localhost.
struct VirtualHosts: HTTPResponder {
    /// Each provider host and the prefix its routes live under.
    static let prefixes: [String: String] = [
        "appleid.apple.com": "/apple",
        "account.apple.com": "/apple",
        "accounts.google.com": "/google",
        "www.googleapis.com": "/google",
        "oauth2.googleapis.com": "/google",
        "openidconnect.googleapis.com": "/google",
    ].merging(EmailAPIRoutes.prefixes.flatMap { entry in entry.hosts.map { ($0, entry.prefix) } }) { first, _ in first }

    static var hosts: [String] { prefixes.keys.sorted() }

    /// The prefix a host's routes live under: a listed host, or SES in any region.
    static func prefix(for host: String) -> String? {
        prefixes[host] ?? (EmailAPIRoutes.isSESHost(host) ? "/ses" : nil)
    }

    let next: any HTTPResponder

    func respond(to request: HTTPRequest) -> HTTPReply {
        guard let host = Self.host(of: request), let prefix = Self.prefix(for: host) else {
            return next.respond(to: request)
        }
        var routed = HTTPRequest(method: request.method, target: prefix + Self.originForm(request.target),
                                 version: request.version, headers: request.headers, body: request.body)
        routed.keepAlive = request.keepAlive
        routed.context = request.context
        routed.context.virtualHost = host
        return next.respond(to: routed)
    }

    /// The host a request is for, lowercased, without port or trailing dot.
    static func host(of request: HTTPRequest) -> String? {
        if let header = request.headers["Host"], let first = header.utf8.first {
            // The hot path (every JWKS fetch on localhost): IP literals, [v6] and localhost are
            // never provider hosts, so no lowercased copy is made for them.
            if first == UInt8(ascii: "[") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
                || header.utf8.starts(with: "localhost".utf8) { return nil }
            return hostname(header)
        }
        if let authority = authority(ofAbsolute: request.target) { return hostname(authority) }
        return request.context.serverName
    }

    /// `/a?b` from `http://host/a?b` (or `/` when it has no path); an origin-form target as is.
    static func originForm(_ target: String) -> String {
        guard let rest = afterScheme(target) else { return target }
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let tail = rest[slash...]
        return tail.hasPrefix("?") ? "/" + tail : String(tail)
    }

    static func authority(ofAbsolute target: String) -> String? {
        afterScheme(target).map { String($0.prefix { $0 != "/" && $0 != "?" }) }
    }

    /// What follows `http://` or `https://` in an absolute-form target.
    private static func afterScheme(_ target: String) -> Substring? {
        guard target.first != "/" else { return nil }
        for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
            return target.dropFirst(scheme.count)
        }
        return nil
    }

    /// `AppleID.Apple.com.:443` -> `appleid.apple.com`, `[::1]:7443` -> `::1`; "" when it is not
    /// `host[:port]` (one parser for routing, the allow-list and CONNECT: `HostAllowList.hostname`).
    static func hostname(_ authority: String) -> String {
        HostAllowList.hostname(ofHeader: authority) ?? ""
    }
}
