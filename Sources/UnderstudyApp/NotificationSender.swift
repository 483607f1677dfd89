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

    func send(_ notification: AppleNotification) throws -> JSONValue {
        let minted = try notification.sign(with: apple, now: now, jti: Hex.encode(SecureRandom.bytes(16)))
        let (hostPort, path) = try Self.split(notification.url)
        let client = try SimpleHTTPClient(server: hostPort)
        let body: JSONValue = ["payload": .string(minted.idToken)]
        let response: SimpleHTTPClient.Response
        do {
            response = try client.request("POST", path, headers: [("Content-Type", "application/json")], body: body.serializedBytes())
        } catch {
            throw UsageError("could not deliver the notification to \(notification.url): \(error.description)")
        }
        let text = String(decoding: response.body.prefix(Self.reportedBodyLimit), as: UTF8.self)
        return [
            "url": .string(notification.url),
            "status": .integer(Int64(response.status)),
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
