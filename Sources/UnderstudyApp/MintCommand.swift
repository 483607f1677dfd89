import UnderstudyJSON
import UnderstudyProviders

/// `understudy mint`: a signed ID token, offline with the keys and settings given to it (the same
/// flags, file and `UNDERSTUDY_*` variables as `serve`), or through a running server with `--server`.
enum MintCommand {
    static let options: [OptionSpec] = [
        OptionSpec("--aud", "AUD", "Audience (default: the configured bundle id / web client id)."),
        OptionSpec("--email", "EMAIL", "Email claim (default: the first configured identity)."),
        OptionSpec("--nonce", "NONCE", "Nonce claim, copied as is."),
        OptionSpec("--raw-nonce", "RAW", "Raw nonce: the claim gets its hex SHA-256, as native Apple clients send."),
        OptionSpec("--sub", "SUB", "Subject (default: derived from the email and the identity seed)."),
        OptionSpec("--platform", "PLATFORM", "web, ios or android: picks aud and azp like the provider does."),
        OptionSpec("--name", "NAME", "Full name (Google)."),
        OptionSpec("--given-name", "NAME", "Given name (Google)."),
        OptionSpec("--family-name", "NAME", "Family name (Google)."),
        OptionSpec("--picture", "URL", "Picture URL (Google)."),
        OptionSpec("--azp", "AZP", "Authorized party (Google)."),
        OptionSpec("--hd", "DOMAIN", "Hosted domain (Google Workspace)."),
        OptionSpec("--locale", "LOCALE", "Locale (Google)."),
        OptionSpec("--kid", "KID", "Sign with this key (default: the provider's first key)."),
        OptionSpec("--scenario", "NAME", "A token wrong in one named way (expired, alg-none, ...); see `understudy scenarios`."),
        OptionSpec("--email-verified", "BOOL", "email_verified (default true)."),
        OptionSpec("--private-email", "BOOL", "is_private_email (Apple; default: true for @privaterelay.appleid.com)."),
        OptionSpec("--real-user-status", "N", "real_user_status 0, 1 or 2 (Apple)."),
        OptionSpec("--claim", "KEY=VALUE", repeatable: true, "Extra or overriding claim; VALUE is JSON if it parses, else a string."),
        OptionSpec("--ttl", "SECONDS", "Lifetime in seconds."),
        OptionSpec("--json", nil, "Print {idToken, header, claims} instead of the token alone."),
        OptionSpec("--server", "URL", "Mint through the running server at URL (POST /api/tokens/{provider}), with its keys and settings."),
    ]

    /// The settings that change what an offline mint signs: keys, issuers, client ids, subjects, lifetimes.
    static let settingKeys: Set<String> = [
        "keys", "data", "tokens.rotationGrace", "identitySeed", "identities", "tokens.iatBackdate",
        "apple.issuer", "apple.teamId", "apple.bundleIds", "apple.servicesIds", "apple.tokenLifetime", "apple.booleanStyle",
        "google.issuer", "google.webClientId", "google.iosClientId", "google.androidClientId", "google.tokenLifetime",
    ]

    static var settingOptions: [OptionSpec] { UnderstudyCLI.settingOptions(where: { settingKeys.contains($0) }) }

    static let overview = """
        Print a signed ID token. Offline (the default) it signs with the keys and settings given here, \
        from the flags below, the configuration file or the UNDERSTUDY_* variables, exactly as `serve` reads them: \
        a server started with --keys DIR or --google-issuer X verifies only tokens minted with the same. \
        Or mint through the running server with --server URL. Standard error says which keys and issuer signed.
        """

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let all = options + settingOptions
        let help = HelpText(overview: overview,
                            usage: "understudy mint apple|google [--aud <aud>] [--email <email>] [--nonce <n> | --raw-nonce <r>] [--claim key=value]... [--ttl <s>] [--json] [--server <url> | <setting flags>]",
                            epilogue: signsWith(environment) + ExitCode.serverHelp)
        guard let parsed = try ParsedArguments.parse(arguments, options: all, command: "understudy mint",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals.count == 1, let provider = parsed.positionals.first, ["apple", "google"].contains(provider) else {
            throw UsageError("name the provider: understudy mint apple --aud com.example.app (or: understudy mint google ...)")
        }
        let (body, request) = try mintRequest(parsed)
        let log = Logger(output: output)
        let token: JSONValue
        if let server = parsed.value("--server") {
            let given = settingOptions.map(\.name).filter { parsed.has($0) }
            guard given.isEmpty else {
                throw UsageError("--server mints with the server's own keys and settings; drop \(given.joined(separator: ", ")) (or drop --server to mint offline with them)")
            }
            let client = try SimpleHTTPClient(server: server)
            let response = try client.postJSON("/api/tokens/\(provider)", .object(body))
            guard response.status == 200, let json = response.json, json["idToken"]?.stringValue != nil else {
                let message = MailCommands.problemMessage(response)
                if response.status == 400 { throw UsageError(message) }
                log.error("the server at \(server) refused to mint: \(message)")
                return ExitCode.failure
            }
            token = json
            log.info("minted by the server at \(server): \(provider) key \(json["header"]?["kid"]?.stringValue ?? "?"), iss \(json["claims"]?["iss"]?.stringValue ?? "?")")
        } else {
            let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
            let routes = try Assembly.providerRoutes(configuration)
            let minted: MintedToken
            do {
                minted = try routes.mint(provider: provider, request)
            } catch let error as MintError where error.field != nil {
                throw UsageError(error.message)
            }
            token = minted.json
            let keys = configuration.keysDirectory.map { "from \($0)" } ?? "embedded development keys"
            log.info("signed offline with \(provider) key \(minted.header["kid"]?.stringValue ?? "?") (\(keys)), "
                     + "iss \(minted.claims["iss"]?.stringValue ?? "?"); a server with other keys or issuer needs the same "
                     + "--keys/--\(provider)-issuer here, or --server URL")
        }
        output.out((parsed.has("--json") ? token.serialized() : token["idToken"]?.stringValue ?? "") + "\n")
        return ExitCode.success
    }

    /// What an offline mint would sign with under the configuration file and variables now in effect.
    static func signsWith(_ environment: [String: String]) -> String {
        guard let c = try? Configuration.load(configFile: nil, environment: environment, flags: [:]) else { return "" }
        return "\nOFFLINE, WITHOUT FLAGS, SIGNS WITH: \(c.keysDirectory.map { "the keys in \($0)" } ?? "the embedded development keys"); "
            + "apple iss \(c.providers.apple.issuer); google iss \(c.providers.google.issuer)\n"
    }

    /// Flags to the same JSON request the HTTP API takes, so both are validated by one parser.
    static func mintRequest(_ parsed: ParsedArguments) throws -> (JSONObject, MintRequest) {
        var body = JSONObject()
        let strings: [(String, String)] = [
            ("--aud", "aud"), ("--email", "email"), ("--nonce", "nonce"), ("--raw-nonce", "rawNonce"), ("--sub", "sub"),
            ("--platform", "platform"), ("--name", "name"), ("--given-name", "givenName"), ("--family-name", "familyName"),
            ("--picture", "picture"), ("--azp", "azp"), ("--hd", "hd"), ("--locale", "locale"), ("--kid", "kid"), ("--scenario", "scenario"),
        ]
        for (flag, field) in strings { if let v = parsed.value(flag) { body[field] = .string(v) } }
        for (flag, field) in [("--email-verified", "emailVerified"), ("--private-email", "isPrivateEmail")] {
            guard let v = parsed.value(flag) else { continue }
            guard let b = ["true": true, "false": false][v.lowercased()] else { throw UsageError("\(flag) takes true or false, got '\(v)'") }
            body[field] = .bool(b)
        }
        for (flag, field) in [("--ttl", "ttl"), ("--real-user-status", "realUserStatus")] {
            guard let v = parsed.value(flag) else { continue }
            guard let n = Int64(v) else { throw UsageError("\(flag) takes a whole number, got '\(v)'") }
            body[field] = .integer(n)
        }
        var claims = JSONObject()
        for claim in parsed.all("--claim") {
            guard let eq = claim.firstIndex(of: "="), eq != claim.startIndex else {
                throw UsageError("--claim takes key=value, e.g. --claim locale=fr or --claim 'roles=[\"admin\"]'; got '\(claim)'")
            }
            let key = String(claim[..<eq])
            let text = String(claim[claim.index(after: eq)...])
            claims[key] = (try? JSONValue.parse(text)) ?? .string(text)
        }
        if !claims.isEmpty { body["claims"] = .object(claims) }
        do {
            return (body, try MintRequest(json: .object(body)))
        } catch {
            throw UsageError(error.message)
        }
    }
}
