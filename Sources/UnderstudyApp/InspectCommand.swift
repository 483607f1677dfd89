import UnderstudyJSON
import UnderstudyProviders

/// `understudy inspect TOKEN`: the inspector's report, offline with the configured keys (and those
/// rotated into `--data`), or from the running server with `--server`.
enum InspectCommand {
    static let options: [OptionSpec] = [
        OptionSpec("--raw-nonce", "RAW", "Check the nonce claim against this raw nonce (as is, or its hex SHA-256)."),
        OptionSpec("--json", nil, "Print the report as JSON (as POST /api/tokens/inspect answers)."),
        OptionSpec("--server", "URL", "Inspect with the running server's keys (POST /api/tokens/inspect), rotations included."),
    ]

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let all = options + MintCommand.settingOptions
        let help = HelpText(overview: "Take a token apart: header and claims, times (ISO 8601 and relative), the provider and key it names, "
                            + "whether Understudy's keys (current or retired) verify it, time status, nonce, and the scenario it matches. "
                            + "Exit 1 when it is not a JWT at all.",
                            usage: "understudy inspect TOKEN [--raw-nonce <raw>] [--json] [--server <url> | <setting flags>]")
        guard let parsed = try ParsedArguments.parse(arguments, options: all, command: "understudy inspect",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals.count == 1 else { throw UsageError("give one token: understudy inspect eyJhbGciOi...") }
        let token = parsed.positionals[0]
        let report: JSONValue
        if let server = parsed.value("--server") {
            var body: JSONObject = ["token": .string(token)]
            if let raw = parsed.value("--raw-nonce") { body["rawNonce"] = .string(raw) }
            let response = try SimpleHTTPClient(server: server).postJSON("/api/tokens/inspect", .object(body))
            guard response.status == 200, let json = response.json else {
                Logger(output: output).error(MailCommands.problemMessage(response))
                return ExitCode.failure
            }
            report = json
        } else {
            let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
            do {
                report = try Assembly.providerRoutes(configuration).inspector()
                    .inspect(token, rawNonce: parsed.value("--raw-nonce"), now: systemUnixClock())
            } catch let error as InspectionError {
                Logger(output: output).error(error.message + (error.scenario.map { " (looks like the \($0) scenario)" } ?? ""))
                return ExitCode.failure
            }
        }
        if parsed.has("--json") {
            output.out(report.serialized() + "\n")
            return ExitCode.success
        }
        output.out(render(report))
        return ExitCode.success
    }

    /// The report as `name: value` lines, claims one per line.
    static func render(_ r: JSONValue) -> String {
        var out = ""
        func line(_ k: String, _ v: String) { out += k.padding(12) + v + "\n" }
        line("scenario", r["scenario"]?.stringValue ?? "?")
        if let also = r["scenarios"]?.arrayValue, also.count > 1 { line("also", also.dropFirst().compactMap(\.stringValue).joined(separator: ", ")) }
        line("provider", r["provider"]?.stringValue ?? "unknown")
        line("key", "\(r["key"]?["kid"]?.stringValue ?? "(none)") (\(r["key"]?["state"]?.stringValue ?? "?"))")
        line("signature", "\(r["signature"]?["valid"]?.boolValue == true ? "valid" : "INVALID"): \(r["signature"]?["detail"]?.stringValue ?? "")")
        line("time", r["timeStatus"]?.stringValue ?? "?")
        line("nonce", r["nonce"]?["matches"]?.stringValue ?? "?")
        line("header", r["header"]?.serialized() ?? "{}")
        for (name, value) in r["claims"]?.objectValue ?? [:] {
            var text = value.serialized()
            if let t = r["times"]?[name] { text += "  (\(t["iso8601"]?.stringValue ?? ""), \(t["relative"]?.stringValue ?? ""))" }
            line("  " + name, text)
        }
        return out
    }
}
