import UnderstudyJSON

/// `otp`, `link`, `inbox` and `send`: the mail sink from the command line, talking to a running server.
enum MailCommands {
    static let serverOption = OptionSpec("--server", "URL", "Understudy's HTTP address (default: from the configuration, http://127.0.0.1:7080).")

    static func server(_ parsed: ParsedArguments, environment: [String: String]) throws -> SimpleHTTPClient {
        if let s = parsed.value("--server") { return try SimpleHTTPClient(server: s) }
        let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
        return try SimpleHTTPClient(server: configuration.publicURL ?? configuration.http)
    }

    static func problemMessage(_ r: SimpleHTTPClient.Response) -> String {
        r.json?["message"]?.stringValue ?? "HTTP \(r.status): \(r.text)"
    }

    static func wait(_ kind: String, _ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        var options = [
            OptionSpec("--to", "ADDR", "Recipient address to wait for."),
            OptionSpec("--wait", "SECONDS", "How long to wait for a message (0-300, default 0: only what is there)."),
            OptionSpec("--after", "ID|TIME", "Only messages after this message id or RFC 3339 time."),
            serverOption,
        ]
        if kind == "link" {
            options.insert(OptionSpec("--purpose", "P", "verify-email, magic-link, reset-password, unsubscribe or other."), at: 1)
        }
        let all = options + [OptionSpec("--config", "FILE", "Configuration file, to find the server's address.")]
        if arguments.contains("--help") {
            output.out(helpText(overview: kind == "otp"
                                ? "Print the newest one-time code sent to an address, waiting for it if needed."
                                : "Print the newest link sent to an address, waiting for it if needed.",
                                usage: "understudy \(kind) --to <addr> [--wait <seconds>] [--after <id>]" + (kind == "link" ? " [--purpose <p>]" : ""),
                                options: all))
            return ExitCode.success
        }
        let parsed = try ParsedArguments.parse(arguments, options: all, command: "understudy \(kind)")
        guard let to = parsed.value("--to"), parsed.positionals.isEmpty else {
            throw UsageError("say whose mail to read: understudy \(kind) --to alice@example.com --wait 30")
        }
        let wait = parsed.value("--wait") ?? "0"
        guard let seconds = Int(wait), (0...300).contains(seconds) else { throw UsageError("--wait takes 0 to 300 seconds, got '\(wait)'") }
        var query = "to=\(URLEncoding.queryComponent(to))&wait=\(seconds)"
        if let after = parsed.value("--after") { query += "&after=\(URLEncoding.queryComponent(after))" }
        if let purpose = parsed.value("--purpose") { query += "&purpose=\(URLEncoding.queryComponent(purpose))" }
        let client = try server(parsed, environment: environment)
        let response = try client.get("/api/\(kind == "otp" ? "otp" : "links")?\(query)", readTimeout: seconds + 10)
        guard response.status == 200, let value = response.json?[kind == "otp" ? "code" : "url"]?.stringValue else {
            output.err("error: \(problemMessage(response))\n")
            return ExitCode.failure
        }
        output.out(value + "\n")
        return ExitCode.success
    }

    static func inbox(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let options = [
            OptionSpec("--to", "ADDR", "Only messages to this address."),
            OptionSpec("--query", "TEXT", "Full-text search."),
            OptionSpec("--limit", "N", "At most N messages (default 20)."),
            OptionSpec("--json", nil, "Print the API's JSON instead of a table."),
            serverOption, OptionSpec("--config", "FILE", "Configuration file, to find the server's address."),
        ]
        if arguments.contains("--help") {
            output.out(helpText(overview: "List caught messages, newest first: id, time, recipient, codes, subject (tab-separated).",
                                usage: "understudy inbox [--to <addr>] [--query <text>] [--limit <n>] [--json]", options: options))
            return ExitCode.success
        }
        let parsed = try ParsedArguments.parse(arguments, options: options, command: "understudy inbox")
        guard parsed.positionals.isEmpty else { throw UsageError("inbox takes no arguments; filter with --to ADDR or --query TEXT") }
        var query = "limit=\(URLEncoding.queryComponent(parsed.value("--limit") ?? "20"))"
        if let to = parsed.value("--to") { query += "&to=\(URLEncoding.queryComponent(to))" }
        if let q = parsed.value("--query") { query += "&q=\(URLEncoding.queryComponent(q))" }
        let response = try server(parsed, environment: environment).get("/api/messages?\(query)")
        guard response.status == 200, let json = response.json else {
            output.err("error: \(problemMessage(response))\n")
            return ExitCode.failure
        }
        if parsed.has("--json") {
            output.out(json.serialized() + "\n")
            return ExitCode.success
        }
        for m in json["messages"]?.arrayValue ?? [] {
            let to = m["to"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? ""
            let codes = m["codes"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? ""
            let fields = [m["id"]?.stringValue ?? "", m["receivedAt"]?.stringValue ?? "", to, codes.isEmpty ? "-" : codes,
                          m["subject"]?.stringValue ?? ""]
            output.out(fields.map { $0.replacingOccurrences("\t", " ") }.joined(separator: "\t") + "\n")
        }
        return ExitCode.success
    }

    static func send(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let options = [
            OptionSpec("--to", "ADDR", repeatable: true, "Recipient (repeat for several)."),
            OptionSpec("--from", "ADDR", "Sender (default understudy@localhost)."),
            OptionSpec("--subject", "TEXT", "Subject (default: a test message)."),
            OptionSpec("--body", "TEXT", "Plain-text body."),
            OptionSpec("--smtp", "ADDR", "The sink's SMTP address (default: from the configuration)."),
            OptionSpec("--config", "FILE", "Configuration file, to find the SMTP address."),
        ]
        if arguments.contains("--help") {
            output.out(helpText(overview: "Send a test email to the sink over SMTP; prints the stored message's id.",
                                usage: "understudy send --to <addr> [--subject <s>] [--body <b>]", options: options))
            return ExitCode.success
        }
        let parsed = try ParsedArguments.parse(arguments, options: options, command: "understudy send")
        let to = parsed.all("--to")
        guard !to.isEmpty, parsed.positionals.isEmpty else {
            throw UsageError("name a recipient: understudy send --to alice@example.com --subject 'Your code is 123456'")
        }
        let smtp: String
        if let s = parsed.value("--smtp") {
            smtp = s
        } else {
            var flags = ParsedArguments()
            flags.values["--config"] = parsed.values["--config"]
            smtp = try UnderstudyCLI.configuration(flags, environment: environment).smtp
        }
        guard let address = ListenAddress(smtp) else { throw UsageError("--smtp must be host:port, got '\(smtp)'") }
        let from = parsed.value("--from") ?? "understudy@localhost"
        for a in to + [from] where a.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "<" || $0 == ">" }) {
            throw UsageError("'\(a)' is not a plain address; give it as user@example.com")
        }
        let subject = parsed.value("--subject") ?? "Understudy test message"
        let body = parsed.value("--body") ?? "This is a test message sent by `understudy send`."
        let message = MessageBuilder.plainText(from: from, to: to, subject: subject, body: body, date: Application.milliseconds())
        let reply = try SimpleSMTPClient(host: address.host, port: address.port).send(from: from, to: to, message: message)
        // "2.0.0 Ok: queued as <id>": print the id alone.
        output.out((reply.split(separator: " ").last.map(String.init) ?? reply) + "\n")
        return ExitCode.success
    }
}

/// Builds small RFC 5322 messages: UTF-8 text, with RFC 2047 subjects when they are not ASCII.
enum MessageBuilder {
    static func plainText(from: String, to: [String], subject: String, body: String, date: Int64) -> [UInt8] {
        let encodedSubject = subject.utf8.allSatisfy { $0 < 0x80 } ? subject : "=?UTF-8?B?\(Base64.encode(subject.utf8))?="
        let unix = date / 1000
        var lines = [
            "From: \(from)",
            "To: \(to.joined(separator: ", "))",
            "Subject: \(encodedSubject)",
            "Date: \(rfc5322Date(unix))",
            "Message-ID: <\(date).\(UInt32.random(in: 0...UInt32.max))@understudy.local>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64",
            "",
        ]
        let encoded = Base64.encode(body.utf8)
        var i = encoded.startIndex
        while i < encoded.endIndex {
            let j = encoded.index(i, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[i..<j]))
            i = j
        }
        return Array(lines.joined(separator: "\r\n").utf8) + [13, 10]
    }

    /// RFC 5322 date-time in UTC ("Wed, 02 Dec 2026 16:40:05 +0000").
    static func rfc5322Date(_ unix: Int64) -> String {
        String(HTTPDate.format(epochSeconds: unix).dropLast(4)) + " +0000"
    }
}

import UnderstudyHTTP
import UnderstudyJOSE
