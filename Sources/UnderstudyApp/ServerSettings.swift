#if canImport(Glibc)
import Glibc
#endif

/// Who may talk to the server: the hosts it answers for, and whether it may listen beyond loopback.
public struct ServerSettings: Sendable {
    /// Extra Host names accepted (`--allow-host`); `*` accepts any, `*.example.test` its subdomains.
    public var allowHosts: [String] = []
    /// Listening on a non-loopback address is allowed without an API token.
    public var allowRemote = false
    /// When set, `/api/*` requires `Authorization: Bearer <token>`.
    public var apiToken: String?
    public init() {}

    /// `127.0.0.0/8`, `::1` and `localhost`: the listen hosts that need no `--allow-remote`.
    static func isLoopback(listenHost host: String) -> Bool {
        HostAllowList.isLoopback(host.lowercased())
    }
}
