import UnderstudyJSON
import UnderstudyProviders

/// `understudy fault add|list|clear`: endpoint faults on the running server (`/api/faults`).
enum FaultCommand {
    static let addOptions: [OptionSpec] = [
        OptionSpec("--provider", "PROVIDER", "apple or google (default: both)."),
        OptionSpec("--retry-after", "SECONDS", "Retry-After of a 503 (default 30)."),
        OptionSpec("--seconds", "SECONDS", "How long a hang lasts before the normal answer (1 to \(Fault.maximumHang))."),
        OptionSpec("--count", "N", "Only the next N requests."),
        OptionSpec("--duration", "SECONDS", "Only for this many seconds."),
        MailCommands.serverOption,
        OptionSpec("--config", "FILE", "Configuration file, to find the server's address."),
    ]

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let sub = arguments.first
        let rest = Array(arguments.dropFirst())
        let serverOnly = [MailCommands.serverOption, OptionSpec("--config", "FILE", "Configuration file, to find the server's address.")]
        switch sub {
        case "add":
            let help = HelpText(overview: "Make a provider endpoint misbehave: TARGET is keys, discovery or token; FAULT is "
                                + "\(Fault.Kind.names.joined(separator: ", ")) (empty-keys and drop-key for keys only). "
                                + "Without --count or --duration it lasts until `understudy fault clear`.",
                                usage: "understudy fault add TARGET FAULT [--provider apple|google] [--count N] [--duration S] [--retry-after S] [--seconds S]")
            guard let parsed = try ParsedArguments.parse(rest, options: addOptions, command: "understudy fault add",
                                                         output: output, help: help) else { return ExitCode.success }
            guard parsed.positionals.count == 2 else {
                throw UsageError("name the target and the fault: understudy fault add keys 503 --count 2 (targets: keys, discovery, token; faults: \(Fault.Kind.names.joined(separator: ", ")))")
            }
            var body: JSONObject = ["target": .string(parsed.positionals[0]), "fault": .string(parsed.positionals[1])]
            if let p = parsed.value("--provider") { body["provider"] = .string(p) }
            for (flag, field) in [("--retry-after", "retryAfter"), ("--seconds", "seconds"), ("--count", "count"), ("--duration", "duration")] {
                guard let v = parsed.value(flag) else { continue }
                guard let n = Int64(v) else { throw UsageError("\(flag) takes a whole number of \(flag == "--count" ? "requests" : "seconds"), got '\(v)'") }
                body[field] = .integer(n)
            }
            // Checked here first, so a mistake is a usage error naming the flag's field.
            do { _ = try Fault(json: .object(body), now: 0) } catch { throw UsageError(error.description) }
            let response = try MailCommands.server(parsed, environment: environment).postJSON("/api/faults", .object(body))
            guard response.status == 201, let json = response.json else {
                Logger(output: output).error("the server did not set the fault: \(MailCommands.problemMessage(response))")
                return ExitCode.failure
            }
            output.out(line(json))
            return ExitCode.success
        case "list", "clear":
            let help = HelpText(overview: sub == "list" ? "List the faults in force." : "Clear every fault.",
                                usage: "understudy fault \(sub!) [--server <url>]")
            guard let parsed = try ParsedArguments.parse(rest, options: serverOnly, command: "understudy fault \(sub!)",
                                                         output: output, help: help) else { return ExitCode.success }
            guard parsed.positionals.isEmpty else { throw UsageError("fault \(sub!) takes no arguments") }
            let client = try MailCommands.server(parsed, environment: environment)
            let response = sub == "list" ? try client.get("/api/faults") : try client.request("DELETE", "/api/faults")
            guard response.status == 200, let json = response.json else {
                Logger(output: output).error("the server answered \(response.status): \(MailCommands.problemMessage(response))")
                return ExitCode.failure
            }
            let faults = json["faults"]?.arrayValue ?? []
            for fault in faults { output.out(line(fault)) }
            if faults.isEmpty { output.out("no faults in force\n") }
            return ExitCode.success
        case "--help", "-h", nil:
            output.out(helpText(overview: "Make Apple's and Google's endpoints misbehave on the running server.",
                                usage: "understudy fault add|list|clear [<options>]", options: [],
                                subcommands: [("add", "Set a fault: understudy fault add keys 503 --count 2."),
                                              ("list", "List the faults in force."), ("clear", "Clear every fault.")]))
            return sub == nil ? ExitCode.usage : ExitCode.success
        default:
            throw UsageError("unknown fault subcommand '\(sub!)'; use `understudy fault add TARGET FAULT`, `fault list` or `fault clear`")
        }
    }

    /// `id  target  fault  provider  [remaining N] [until T]`.
    static func line(_ fault: JSONValue) -> String {
        var cells = [String(fault["id"]?.intValue ?? 0), fault["target"]?.stringValue ?? "", fault["fault"]?.stringValue ?? "",
                     fault["provider"]?.stringValue ?? "both"]
        if let r = fault["remaining"]?.intValue { cells.append("remaining \(r)") }
        if let u = fault["until"]?.intValue { cells.append("until \(u)") }
        return cells.joined(separator: "\t") + "\n"
    }
}
