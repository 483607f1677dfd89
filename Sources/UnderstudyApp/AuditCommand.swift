import UnderstudyJSON
import UnderstudyProviders

/// `understudy audit`: sends every scenario's token to the user's own verifier (an HTTP endpoint
/// or a command) and reports, per scenario, whether it did what a correct verifier must.
enum AuditCommand {
    static let options: [OptionSpec] = [
        OptionSpec("--provider", "PROVIDER", "apple or google: whose tokens to send."),
        OptionSpec("--url", "URL", "The verifier's endpoint, http://host:port/path (placeholders allowed)."),
        OptionSpec("--method", "METHOD", "HTTP method (default POST)."),
        OptionSpec("--header", "'K: V'", repeatable: true, "A request header (placeholders allowed)."),
        OptionSpec("--body", "BODY", "The request body, e.g. '{\"idToken\":\"{{token}}\",\"nonce\":\"{{rawNonce}}\"}'."),
        OptionSpec("--accept-status", "STATUSES", "Statuses that mean accepted: 2xx (default), 200, 200,201, 200-204."),
        OptionSpec("--command", "CMD", "Instead of --url: a shell command; exit 0 means accepted, e.g. 'node verify.js {{token}}'."),
        OptionSpec("--timeout", "SECONDS", "How long one verification may take (default 30)."),
        OptionSpec("--profile", "NAME", "Verdicts for the depends rows from a known library: \(VerifierProfile.names.joined(separator: ", "))."),
        OptionSpec("--only", "NAME", repeatable: true, "Run only these scenarios."),
        OptionSpec("--json", nil, "Print the results as JSON."),
        OptionSpec("--junit", "FILE", "Also write the results as JUnit XML to FILE."),
        OptionSpec("--server", "URL", "Mint through the running server at URL (its keys, rotations included) instead of offline."),
    ]

    static let overview = """
        Audit a verifier: send it each scenario's token (`understudy scenarios`) and check it accepts every token it must \
        accept and rejects every token it must reject. Placeholders in --url, --header, --body and --command: \
        {{token}}, {{nonce}} (the nonce the app sent the provider: hex SHA-256 of the raw nonce), {{rawNonce}}, {{aud}}, {{email}}. \
        Tokens are minted offline with the keys and settings given here (as `mint` does), or by --server. \
        Exit 0 only when every judged row passes; 1 otherwise.
        """

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let all = options + MintCommand.settingOptions
        let help = HelpText(overview: overview,
                            usage: "understudy audit --provider apple|google (--url <url> [--method M] [--header 'K: V']... [--body <body>] [--accept-status 2xx] | --command <cmd>) [--profile <name>] [--json] [--junit <file>]")
        guard let parsed = try ParsedArguments.parse(arguments, options: all, command: "understudy audit",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals.isEmpty else { throw UsageError("audit takes no arguments; see `understudy audit --help`") }
        guard let p = parsed.value("--provider"), let provider = ProviderName(rawValue: p) else {
            throw UsageError("say whose tokens to send: --provider apple or --provider google")
        }
        let url = parsed.value("--url"), command = parsed.value("--command")
        guard (url == nil) != (command == nil) else {
            throw UsageError("give the verifier as --url http://127.0.0.1:3000/verify (with --body) or as --command 'CMD {{token}}', one of the two")
        }
        var profile: VerifierProfile?
        if let name = parsed.value("--profile") {
            guard let named = VerifierProfile.named(name) else { throw UsageError("--profile takes one of \(VerifierProfile.names.joined(separator: ", ")), got '\(name)'") }
            profile = named
        }
        let templates = [url, command, parsed.value("--body")].compactMap { $0 } + parsed.all("--header")
        for t in templates {
            if let bad = AuditTemplate.unknownPlaceholders(in: t).first {
                throw UsageError("{{\(bad)}} is not a placeholder; use \(AuditTemplate.placeholders.map { "{{\($0)}}" }.joined(separator: ", "))")
            }
        }
        var headers: [(String, String)] = []
        for h in parsed.all("--header") {
            guard let colon = h.firstIndex(of: ":"), colon != h.startIndex else { throw UsageError("--header takes 'Name: value', got '\(h)'") }
            headers.append((String(h[..<colon]).trimmingSpaces(), String(h[h.index(after: colon)...]).trimmingSpaces()))
        }
        let accept = try AcceptStatus(parsed.value("--accept-status") ?? "2xx")
        let method = parsed.value("--method")?.uppercased() ?? "POST"
        let timeout = try parsed.value("--timeout").map { v throws(UsageError) -> Int in
            guard let n = Int(v), (1...600).contains(n) else { throw UsageError("--timeout takes 1 to 600 seconds, got '\(v)'") }
            return n
        } ?? 30
        if let url { _ = try NotificationSender.split(AuditTemplate.fill(url, [:])) }
        let only = parsed.all("--only")
        for name in only where Scenario.named(name) == nil { throw UsageError("--only: '\(name)' is not a scenario; see `understudy scenarios`") }

        let mint = try minter(parsed, environment: environment, provider: provider)
        var report = AuditReport(provider: provider, profile: profile?.name)
        for scenario in Scenario.all where scenario.applies(to: provider) && (only.isEmpty || only.contains(scenario.name)) {
            let token = try mint(scenario)
            var values = ["token": token.idToken, "nonce": token.nonce ?? "", "rawNonce": token.rawNonce ?? ""]
            let aud = token.claims["aud"]
            values["aud"] = aud?.stringValue ?? aud?[0]?.stringValue ?? ""
            values["email"] = token.claims["email"]?.stringValue ?? ""
            let (observed, detail): (AuditReport.Observed, String)
            if let command {
                let outcome = try ProcessRunner.run(AuditTemplate.fill(command, values), timeout: timeout)
                if outcome.timedOut { (observed, detail) = (.error, "timed out after \(timeout) s") }
                else if let status = outcome.status { (observed, detail) = (status == 0 ? .accepted : .rejected, "exit \(status)") }
                else { (observed, detail) = (.error, "killed by a signal") }
            } else {
                let (hostPort, path) = try NotificationSender.split(AuditTemplate.fill(url!, values))
                let body = parsed.value("--body").map { Array(AuditTemplate.fill($0, values).utf8) } ?? []
                do {
                    let response = try SimpleHTTPClient(server: hostPort).request(
                        method, path, headers: headers.map { ($0.0, AuditTemplate.fill($0.1, values)) }, body: body, readTimeout: timeout)
                    (observed, detail) = (accept.accepts(response.status) ? .accepted : .rejected, "\(response.status)")
                } catch {
                    (observed, detail) = (.error, "\(error)")
                }
            }
            report.rows.append(.init(scenario: scenario.name, expected: scenario.verdict(for: provider, profile: profile),
                                     observed: observed, detail: detail, reason: scenario.reason))
        }
        if let file = parsed.value("--junit") { try FileIO.write(Array(report.junit.utf8), to: file) }
        output.out(parsed.has("--json") ? report.json.serialized() + "\n" : report.table)
        return report.passed ? ExitCode.success : ExitCode.failure
    }

    /// Mints a scenario's token offline (the keys and settings given) or through `--server`.
    static func minter(_ parsed: ParsedArguments, environment: [String: String],
                       provider: ProviderName) throws -> (Scenario) throws -> MintedTokenForAudit {
        if let server = parsed.value("--server") {
            let client = try SimpleHTTPClient(server: server)
            return { scenario in
                let response = try client.postJSON("/api/tokens/\(provider.rawValue)", ["scenario": .string(scenario.name)])
                guard response.status == 200, let json = response.json, let token = json["idToken"]?.stringValue else {
                    throw UsageError("the server at \(server) did not mint \(scenario.name): \(MailCommands.problemMessage(response))")
                }
                return MintedTokenForAudit(idToken: token, claims: json["claims"]?.objectValue ?? [:],
                                           nonce: json["nonce"]?.stringValue, rawNonce: json["rawNonce"]?.stringValue)
            }
        }
        let routes = try Assembly.providerRoutes(try UnderstudyCLI.configuration(parsed, environment: environment))
        return { scenario in
            let t = try routes.mintScenario(scenario, provider: provider, request: MintRequest())
            return MintedTokenForAudit(idToken: t.idToken, claims: t.token.claims, nonce: t.nonce, rawNonce: t.rawNonce)
        }
    }
}
