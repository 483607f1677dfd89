import UnderstudyProviders

/// `understudy scenarios`: the catalogue as a table (or JSON), optionally for one provider and with a
/// verifier profile's verdicts for the `depends` rows.
enum ScenariosCommand {
    static let options: [OptionSpec] = [
        OptionSpec("--provider", "PROVIDER", "apple or google: only the scenarios for that provider."),
        OptionSpec("--profile", "NAME", "Show this verifier's verdict for the depends rows: \(VerifierProfile.names.joined(separator: ", "))."),
        OptionSpec("--json", nil, "Print the catalogue as GET /api/scenarios answers it."),
    ]

    static func run(_ arguments: [String], output: CommandOutput) throws -> Int32 {
        let help = HelpText(overview: "List the token scenarios (`understudy mint apple --scenario NAME`): provider, expected verdict "
                            + "(accept, reject, or depends on the verifier) and why.",
                            usage: "understudy scenarios [--provider apple|google] [--profile <name>] [--json]")
        guard let parsed = try ParsedArguments.parse(arguments, options: options, command: "understudy scenarios",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals.isEmpty else { throw UsageError("scenarios takes no arguments; see `understudy scenarios --help`") }
        var provider: ProviderName?
        if let p = parsed.value("--provider") {
            guard let name = ProviderName(rawValue: p) else { throw UsageError("--provider takes apple or google, got '\(p)'") }
            provider = name
        }
        var profile: VerifierProfile?
        if let p = parsed.value("--profile") {
            guard let named = VerifierProfile.named(p) else {
                throw UsageError("--profile takes one of \(VerifierProfile.names.joined(separator: ", ")), got '\(p)'")
            }
            profile = named
        }
        if parsed.has("--json") {
            let listing = Scenario.listing(provider: provider, profile: provider == nil ? nil : profile)
            output.out(listing.serialized() + "\n")
            return ExitCode.success
        }
        var rows: [[String]] = [["scenario", "providers", "expected", profile.map { $0.name } ?? "what it is; why"]]
        for s in Scenario.all where provider == nil || s.applies(to: provider!) {
            var last = s.description + " " + s.expected.rawValue.capitalizedFirst + ": " + s.reason + "."
            if let profile {
                let verdicts = s.providers.filter { provider == nil || $0 == provider }.compactMap { p -> String? in
                    guard s.expected == .depends, let v = profile.verdict(scenario: s.name, provider: p) else { return nil }
                    return (s.providers.count > 1 && provider == nil ? p.rawValue + ": " : "") + v.verdict.rawValue + " (" + v.reason + ")"
                }
                last = verdicts.isEmpty ? s.expected.rawValue : verdicts.joined(separator: "; ")
            }
            rows.append([s.name, s.providers.map(\.rawValue).joined(separator: ","), s.expected.rawValue, last])
        }
        output.out(Table.render(rows))
        return ExitCode.success
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
