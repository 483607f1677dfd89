import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyProviders

/// Signs an Apple server-to-server notification and POSTs it to the app, reporting what the app
/// answered. Blocking (a socket with timeouts): run it on the worker pool or in the CLI.
struct NotificationSender {
    /// How much of the app's answer is reported.
    static let reportedBodyLimit = 4096

    let apple: AppleProvider
    let now: Int64

    /// What to send: the signed notification, where, and the request body.
    struct Prepared {
        var minted: MintedToken
        var url: String
        var host: String
        var port: Int
        var path: String
        var body: [UInt8]
    }

    func prepare(_ notification: AppleNotification) throws -> Prepared {
        let minted = try notification.sign(with: apple, now: now, jti: Hex.encode(SecureRandom.bytes(16)))
        let (hostPort, path) = try Self.split(notification.url)
        let client = try SimpleHTTPClient(server: hostPort)
        let body: JSONValue = ["payload": .string(minted.idToken)]
        return Prepared(minted: minted, url: notification.url, host: client.host, port: client.port, path: path,
                        body: body.serializedBytes())
    }

    /// Sends it with the blocking client (the CLI; the server without loops).
    func send(_ notification: AppleNotification) throws -> JSONValue {
        let prepared = try prepare(notification)
        let response: SimpleHTTPClient.Response
        do {
            response = try SimpleHTTPClient(server: "\(prepared.host.contains(":") ? "[\(prepared.host)]" : prepared.host):\(prepared.port)")
                .request("POST", prepared.path, headers: [("Content-Type", "application/json")], body: prepared.body)
        } catch {
            throw UsageError("could not deliver the notification to \(notification.url): \(error)")
        }
        return Self.report(prepared, status: response.status, body: response.body)
    }

    /// What the app answered, with what was sent.
    static func report(_ prepared: Prepared, status: Int, body: [UInt8]) -> JSONValue {
        let minted = prepared.minted
        let text = String(decoding: body.prefix(Self.reportedBodyLimit), as: UTF8.self)
        return [
            "url": .string(prepared.url),
            "status": .integer(Int64(status)),
            "body": .string(text),
            "payload": .string(minted.idToken),
            "claims": .object(minted.claims),
            "events": (try? JSONValue.parse(Array(minted.claims["events"]?.stringValue?.utf8 ?? "".utf8))) ?? .null,
        ]
    }

    /// `http://host:port/path?q` -> ("host:port", "/path?q"); port 80 when absent.
    static func split(_ url: String) throws(UsageError) -> (String, String) {
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        var path = String(rest.dropFirst(authority.count))
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        guard !authority.isEmpty, !authority.contains("@"), path.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw UsageError("url must look like http://127.0.0.1:3000/apple/notifications, got '\(url.prefix(80))'")
        }
        let hasPort = authority.hasPrefix("[") ? authority.contains("]:") : authority.contains(":")
        return (hasPort ? String(authority) : authority + ":80", path)
    }
}
