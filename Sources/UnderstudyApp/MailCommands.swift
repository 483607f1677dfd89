import UnderstudyJSON
import UnderstudyMIME

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
        let help = HelpText(overview: kind == "otp"
                            ? "Print the newest one-time code sent to an address, waiting for it if needed."
                            : "Print the newest link sent to an address, waiting for it if needed.",
                            usage: "understudy \(kind) --to <addr> [--wait <seconds>] [--after <id>]" + (kind == "link" ? " [--purpose <p>]" : ""),
                            epilogue: ExitCode.serverHelp)
        guard let parsed = try ParsedArguments.parse(arguments, options: all, command: "understudy \(kind)",
                                                     output: output, help: help) else { return ExitCode.success }
        guard let to = parsed.value("--to"), parsed.positionals.isEmpty else {
            throw UsageError("say whose mail to read: understudy \(kind) --to alice@example.com --wait 30")
        }
        let wait = parsed.value("--wait") ?? "0"
        guard let seconds = Int(wait), (0...300).contains(seconds) else { throw UsageError("--wait takes 0 to 300 seconds, got '\(wait)'") }
        var query = "to=\(URLEncoding.queryComponent(to))&wait=\(seconds)"
        if let after = parsed.value("--after") { query += "&after=\(URLEncoding.queryComponent(after))" }
        let purpose = parsed.value("--purpose")
        if let purpose { query += "&purpose=\(URLEncoding.queryComponent(purpose))" }
        let client = try server(parsed, environment: environment)
        let response = try client.get("/api/\(kind == "otp" ? "otp" : "links")?\(query)", readTimeout: seconds + 10)
        let log = Logger(output: output)
        guard response.status == 200, let value = response.json?[kind == "otp" ? "code" : "url"]?.stringValue else {
            if response.status == 404, response.json?["error"]?.stringValue == "nothing_arrived" {
                // The API's message names its query parameter; the command has a flag.
                let what = kind == "otp" ? "one-time code" : purpose.map { "\($0) link" } ?? "link"
                log.error("no \(what) for \(to) arrived" + (seconds > 0 ? " within \(seconds) s" : "")
                          + "; check the address, or wait longer with --wait SECONDS (at most 300)")
            } else if response.status == 404, let error = response.json?["error"]?.stringValue,
                      error == "no_code_found" || error == "no_link_found" {
                // Mail arrived, but without what was asked for: the API's message names the messages.
                log.error(problemMessage(response))
            } else if response.status == 400 {
                throw UsageError(problemMessage(response))
            } else {
                log.error(problemMessage(response))
            }
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
        let help = HelpText(overview: "List caught messages, newest first: id, time, recipient, codes, subject (tab-separated). "
                            + "An empty inbox prints nothing and says so on standard error.",
                            usage: "understudy inbox [--to <addr>] [--query <text>] [--limit <n>] [--json]",
                            epilogue: ExitCode.serverHelp)
        guard let parsed = try ParsedArguments.parse(arguments, options: options, command: "understudy inbox",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals.isEmpty else { throw UsageError("inbox takes no arguments; filter with --to ADDR or --query TEXT") }
        var query = "limit=\(URLEncoding.queryComponent(parsed.value("--limit") ?? "20"))"
        if let to = parsed.value("--to") { query += "&to=\(URLEncoding.queryComponent(to))" }
        if let q = parsed.value("--query") { query += "&q=\(URLEncoding.queryComponent(q))" }
        let response = try server(parsed, environment: environment).get("/api/messages?\(query)")
        guard response.status == 200, let json = response.json else {
            if response.status == 400 { throw UsageError(problemMessage(response)) }
            Logger(output: output).error(problemMessage(response))
            return ExitCode.failure
        }
        if parsed.has("--json") {
            output.out(json.serialized() + "\n")
            return ExitCode.success
        }
        let messages = json["messages"]?.arrayValue ?? []
        if messages.isEmpty {
            Logger(output: output).info("no messages" + (parsed.value("--to").map { " to \($0)" } ?? "")
                                        + (parsed.value("--query").map { " matching '\($0)'" } ?? ""))
        }
        for m in messages {
            let to = m["to"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? ""
            let codes = m["codes"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? ""
            let fields = [m["id"]?.stringValue ?? "", m["receivedAt"]?.stringValue ?? "", to, codes.isEmpty ? "-" : codes,
                          m["subject"]?.stringValue ?? ""]
            output.out(fields.map { $0.replacingOccurrences("\t", " ") }.joined(separator: "\t") + "\n")
        }
        return ExitCode.success
    }

    /// The most `send` reads from standard input; the sink refuses more than its configured size anyway.
    static let maximumInput = 64 * 1024 * 1024

    static func send(_ arguments: [String], environment: [String: String], output: CommandOutput,
                     input: CommandInput) throws -> Int32 {
        let options = [
            OptionSpec("--to", "ADDR", repeatable: true, "Recipient (repeat for several; bare arguments are recipients too)."),
            OptionSpec("--from", "ADDR", "Envelope sender and From (default: the message's From, else understudy@localhost)."),
            OptionSpec("-f", "ADDR", "Same as --from (sendmail)."),
            OptionSpec("-t", nil, "Also send to the To, Cc and Bcc addresses of the message on standard input (sendmail); Bcc is removed."),
            OptionSpec("-i", nil, "Ignored (sendmail: a lone dot does not end the message; it never does here)."),
            OptionSpec("-oi", nil, "Same as -i."),
            OptionSpec("--subject", "TEXT", "Subject (default: a test message)."),
            OptionSpec("--body", "TEXT", "Plain-text body (default: standard input when it is not a terminal)."),
            OptionSpec("--smtp", "ADDR", "The sink's SMTP address (default: from the configuration)."),
            OptionSpec("--config", "FILE", "Configuration file, to find the SMTP address."),
        ]
        let help = HelpText(overview: "Send a test email to the sink over SMTP; prints the stored message's id. "
                            + "Without --body it reads standard input when that is not a terminal: a whole RFC 5322 message "
                            + "if it starts with headers, else the body (so give --body, or </dev/null, when standard input is a pipe "
                            + "that never closes). With -t, -f, -i and -oi it stands in for sendmail.",
                            usage: "understudy send --to <addr> [--subject <s>] [--body <b>] | understudy send [-t] [-f <addr>] [<addr>...] < message.eml",
                            epilogue: ExitCode.serverHelp)
        guard let parsed = try ParsedArguments.parse(arguments, options: options, command: "understudy send",
                                                     output: output, help: help) else { return ExitCode.success }
        if parsed.has("--from") && parsed.has("-f") { throw UsageError("give the sender once, with --from or -f") }
        var stdin: [UInt8] = []
        if !parsed.has("--body") && !input.isTerminal {
            stdin = try input.readAll(limit: maximumInput)
        }
        let headers = stdin.isEmpty ? nil : MessageHeaders(stdin)
        var to = parsed.all("--to") + parsed.positionals
        var message: [UInt8]
        var from = parsed.value("--from") ?? parsed.value("-f")
        if let headers {
            if parsed.has("--subject") {
                throw UsageError("the message on standard input has its own headers; drop --subject (or pipe just the body)")
            }
            if parsed.has("-t") {
                for name in ["To", "Cc", "Bcc"] {
                    to += headers.values(name).flatMap { MIMEAddress.parseList($0).map(\.address) }
                }
                message = headers.removing("Bcc")
            } else {
                message = stdin
            }
            if from == nil { from = headers.values("From").first.flatMap { MIMEAddress.parseList($0).first?.address } }
        } else {
            if parsed.has("-t") {
                throw UsageError("-t takes the recipients from the message's To/Cc/Bcc headers, but standard input has no headers; "
                                 + "pipe a whole message, or name the recipients with --to")
            }
            message = []
        }
        guard !to.isEmpty else {
            throw UsageError("name a recipient: understudy send --to alice@example.com --subject 'Your code is 123456' "
                             + "(or pipe a message with To: headers to understudy send -t)")
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
        let sender = from ?? "understudy@localhost"
        for a in to + [sender] where a.isEmpty || a.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "<" || $0 == ">" || $0 == " " }) {
            throw UsageError("'\(a)' is not a plain address; give it as user@example.com")
        }
        if headers == nil {
            let subject = parsed.value("--subject") ?? "Understudy test message"
            let body = parsed.value("--body") ?? (stdin.isEmpty ? "This is a test message sent by `understudy send`." : String(decoding: stdin, as: UTF8.self))
            message = MessageBuilder.plainText(from: sender, to: to, subject: subject, body: body, date: Application.milliseconds())
        }
        let reply = try SimpleSMTPClient(host: address.host, port: address.port).send(from: sender, to: to, message: message)
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
