import UnderstudyHTTP
import UnderstudyHTTPServer
import UnderstudyIO

/// Which CONNECT tunnels the HTTP port opens, so that `HTTPS_PROXY=http://127.0.0.1:7080` plus the
/// local CA is all a Python or Go service needs: to the provider hosts Understudy answers as, TLS
/// is terminated here with that host's certificate and the requests inside are served like any
/// other (nothing is dialled out); every other host is refused, since Understudy is offline by
/// design.
struct ConnectPolicy: Sendable {
    /// TLS for the tunnels; nil when HTTPS is off (no certificates to serve).
    let tls: ConnectionLayer?
    /// `--proxy-passthrough`: other hosts are tunnelled to, not refused.
    var passThrough = false

    func decide(_ request: HTTPRequest) -> HTTPConnectDecision {
        let host = VirtualHosts.hostname(request.target)
        guard VirtualHosts.prefix(for: host) != nil else {
            if passThrough, let colon = request.target.lastIndex(of: ":"),
               let port = Int(request.target[request.target.index(after: colon)...]), (1...65535).contains(port) {
                return .passThrough(host: host, port: port)
            }
            return .refuse(.problem(.forbidden, error: "offline_by_design",
                message: "Understudy does not connect to other hosts: CONNECT to '\(Self.shown(request.target))' refused. "
                    + "Through this proxy it answers only as \(VirtualHosts.hosts.joined(separator: ", ")); "
                    + "exempt other hosts from the proxy with NO_PROXY, or start Understudy with --proxy-passthrough true"))
        }
        guard let tls else {
            return .refuse(.problem(.serviceUnavailable, error: "https_off",
                message: "HTTPS is turned off (--https null), so there are no certificates to answer \(host) with; "
                    + "start Understudy with --https HOST:PORT"))
        }
        return .serve(tls)
    }

    /// The target as text safe to echo: printable ASCII, at most 100 characters.
    static func shown(_ target: String) -> String {
        String(target.unicodeScalars.prefix(100).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    }
}
