import UnderstudyJSON
import UnderstudyProviders

/// `understudy notify apple --type T --email E|--sub S --url URL`: an Apple server-to-server
/// notification, signed offline with the configured keys (or by the running server with `--server`),
/// POSTed to the app; prints the app's status and body.
enum NotifyCommand {
    static let options: [OptionSpec] = [
        OptionSpec("--type", "TYPE", "email-disabled, email-enabled, consent-revoked or account-delete."),
        OptionSpec("--email", "EMAIL", "Whose account (its sub is derived as for tokens); required for the email events."),
        OptionSpec("--sub", "SUB", "The account's subject, instead of deriving it from --email."),
        OptionSpec("--aud", "AUD", "aud of the events JWT (default: the configured bundle id)."),
        OptionSpec("--url", "URL", "The app's notification endpoint, http://host:port/path."),
        OptionSpec("--json", nil, "Print the whole report: status, body, the payload and its claims."),
        OptionSpec("--server", "URL", "Have the running server sign and send it (POST /api/apple/notifications)."),
    ]

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let all = options + MintCommand.settingOptions
        let help = HelpText(overview: "Send a Sign in with Apple server-to-server notification to an app: an events JWT signed with "
                            + "Apple's keys, POSTed as {\"payload\": \"<jwt>\"}. Prints the app's status and body; exit 1 unless it answered 2xx.",
                            usage: "understudy notify apple --type <type> (--email <email> | --sub <sub>) --url <url> [--json] [--server <url>]")
        guard let parsed = try ParsedArguments.parse(arguments, options: all, command: "understudy notify",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals == ["apple"] else {
            throw UsageError("only Apple sends server-to-server notifications: understudy notify apple --type consent-revoked --email alice@example.com --url http://127.0.0.1:3000/apple/notifications")
        }
        var body = JSONObject()
        for (flag, field) in [("--type", "type"), ("--email", "email"), ("--sub", "sub"), ("--aud", "aud"), ("--url", "url")] {
            if let v = parsed.value(flag) { body[field] = .string(v) }
        }
        let notification: AppleNotification
        do { notification = try AppleNotification(json: .object(body)) } catch {
            throw UsageError("--" + error.message)
        }
        let report: JSONValue
        if let server = parsed.value("--server") {
            let response = try SimpleHTTPClient(server: server).postJSON("/api/apple/notifications", .object(body))
            guard response.status == 200, let json = response.json else {
                Logger(output: output).error(MailCommands.problemMessage(response))
                return ExitCode.failure
            }
            report = json
        } else {
            let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
            report = try NotificationSender(apple: Assembly.providerRoutes(configuration).apple, now: systemUnixClock()).send(notification)
        }
        let status = report["status"]?.intValue ?? 0
        if parsed.has("--json") {
            output.out(report.serialized() + "\n")
        } else {
            output.out("\(status)\n\(report["body"]?.stringValue ?? "")\n")
        }
        return (200..<300).contains(status) ? ExitCode.success : ExitCode.failure
    }
}
