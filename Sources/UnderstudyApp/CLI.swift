#if canImport(Glibc)
import Glibc
#endif
import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyProviders

/// Where a command writes: the real streams, or buffers in tests.
public protocol CommandOutput: AnyObject {
    func out(_ text: String)
    func err(_ text: String)
}

public final class StandardOutput: CommandOutput {
    public init() {}
    public func out(_ text: String) { Self.write(1, text) }
    public func err(_ text: String) { Self.write(2, text) }
    static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
        bytes.removeAll()
    }
}

/// Exit statuses: 0 success, 1 failure, 64 usage error (sysexits EX_USAGE).
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
}

/// The `understudy` command: `serve` (the default), `mint`, `keys`, plus the mail commands.
public enum UnderstudyCLI {
    public static let version = "0.1.0"

    static let subcommands: [(String, String)] = [
        ("serve", "Run the server (the default when no subcommand is given)."),
        ("mint", "Print a signed Apple or Google ID token, offline."),
        ("keys", "List the signing keys or generate a new set."),
        ("otp", "Print the one-time code just sent to an address (waits with --wait)."),
        ("link", "Print the sign-in, verification or reset link just sent to an address."),
        ("inbox", "List caught messages."),
        ("send", "Send a test email to the sink."),
    ]

    /// Runs the command line and returns the exit status.
    public static func run(_ arguments: [String], environment: [String: String],
                           output: CommandOutput = StandardOutput()) -> Int32 {
        do {
            return try dispatch(arguments, environment: environment, output: output)
        } catch let error as UsageError {
            output.err("error: \(error.description)\n")
            return ExitCode.usage
        } catch {
            output.err("error: \(error)\n")
            return ExitCode.failure
        }
    }

    static func dispatch(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        guard let first = arguments.first else {
            return try ServeCommand.run([], environment: environment, output: output)
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "serve": return try ServeCommand.run(rest, environment: environment, output: output)
        case "mint": return try MintCommand.run(rest, environment: environment, output: output)
        case "keys": return try KeysCommand.run(rest, environment: environment, output: output)
        case "otp", "link": return try MailCommands.wait(first, rest, environment: environment, output: output)
        case "inbox": return try MailCommands.inbox(rest, environment: environment, output: output)
        case "send": return try MailCommands.send(rest, environment: environment, output: output)
        case "--version", "version":
            output.out("understudy \(version)\n")
            return ExitCode.success
        case "--help", "-h", "help":
            output.out(helpText(overview: "A local stand-in for Sign in with Apple, Google Sign-In and the mail server.",
                                usage: "understudy [<subcommand>] [<options>]",
                                options: [OptionSpec("--version", nil, "Show the version.")], subcommands: subcommands))
            return ExitCode.success
        default:
            if first.hasPrefix("-") {
                // Options without a subcommand belong to `serve`.
                return try ServeCommand.run(arguments, environment: environment, output: output)
            }
            let hint = Configuration.suggestion(first, among: subcommands.map(\.0)).map { "did you mean '\($0)'? " } ?? ""
            throw UsageError("unknown subcommand '\(first)'; \(hint)subcommands: \(subcommands.map(\.0).joined(separator: ", ")). See `understudy --help`.")
        }
    }

    /// The setting flags (`--http`, `--apple-team-id`, ...) every server-side command accepts.
    static var settingOptions: [OptionSpec] {
        [OptionSpec("--config", "FILE", "Configuration file (JSON); default the embedded Config/understudy.json.")]
            + Configuration.settings.flatMap { spec in
                [OptionSpec(spec.flag, spec.kind == .boolean ? "BOOL" : "VALUE", "\(spec.help) [\(spec.environmentVariable)]")]
                    + (spec.alias.map { [OptionSpec($0, "VALUE", "Same as \(spec.flag).")] } ?? [])
            }
    }

    /// Loads the configuration from `--config`, the environment and the setting flags in `parsed`.
    static func configuration(_ parsed: ParsedArguments, environment: [String: String]) throws -> Configuration {
        var flags: [String: String] = [:]
        for spec in Configuration.settings {
            for flag in [spec.flag] + (spec.alias.map { [$0] } ?? []) { if let v = parsed.value(flag) { flags[flag] = v } }
        }
        return try Configuration.load(configFile: parsed.value("--config"), environment: environment, flags: flags)
    }
}

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
        OptionSpec("--email-verified", "BOOL", "email_verified (default true)."),
        OptionSpec("--private-email", "BOOL", "is_private_email (Apple; default: true for @privaterelay.appleid.com)."),
        OptionSpec("--real-user-status", "N", "real_user_status 0, 1 or 2 (Apple)."),
        OptionSpec("--claim", "KEY=VALUE", repeatable: true, "Extra or overriding claim; VALUE is JSON if it parses, else a string."),
        OptionSpec("--ttl", "SECONDS", "Lifetime in seconds."),
        OptionSpec("--json", nil, "Print {idToken, header, claims} instead of the token alone."),
    ]

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let all = options + UnderstudyCLI.settingOptions
        if arguments.contains("--help") || arguments.contains("-h") {
            output.out(helpText(overview: "Print a signed ID token, offline, with the server's keys and configuration.",
                                usage: "understudy mint apple|google [--aud <aud>] [--email <email>] [--nonce <n> | --raw-nonce <r>] [--claim key=value]... [--ttl <s>] [--json]",
                                options: all))
            return ExitCode.success
        }
        let parsed = try ParsedArguments.parse(arguments, options: all, command: "understudy mint")
        guard parsed.positionals.count == 1, let provider = parsed.positionals.first, ["apple", "google"].contains(provider) else {
            throw UsageError("name the provider: understudy mint apple --aud com.example.app (or: understudy mint google ...)")
        }
        let request = try mintRequest(parsed)
        let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
        let routes = try Assembly.providerRoutes(configuration)
        let token = try routes.mint(provider: provider, request)
        output.out((parsed.has("--json") ? token.json.serialized() : token.idToken) + "\n")
        return ExitCode.success
    }

    /// Flags to the same JSON request the HTTP API takes, so both are validated by one parser.
    static func mintRequest(_ parsed: ParsedArguments) throws -> MintRequest {
        var body = JSONObject()
        let strings: [(String, String)] = [
            ("--aud", "aud"), ("--email", "email"), ("--nonce", "nonce"), ("--raw-nonce", "rawNonce"), ("--sub", "sub"),
            ("--platform", "platform"), ("--name", "name"), ("--given-name", "givenName"), ("--family-name", "familyName"),
            ("--picture", "picture"), ("--azp", "azp"), ("--hd", "hd"), ("--locale", "locale"), ("--kid", "kid"),
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
            return try MintRequest(json: .object(body))
        } catch {
            throw UsageError(error.message)
        }
    }
}

enum KeysCommand {
    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let sub = arguments.first
        let rest = Array(arguments.dropFirst())
        switch sub {
        case "list":
            let options = UnderstudyCLI.settingOptions
            if rest.contains("--help") {
                output.out(helpText(overview: "List the signing keys: provider, kid, algorithm and RFC 7638 thumbprint.",
                                    usage: "understudy keys list [--keys <dir>] [--config <file>]", options: options))
                return ExitCode.success
            }
            let parsed = try ParsedArguments.parse(rest, options: options, command: "understudy keys list")
            guard parsed.positionals.isEmpty else { throw UsageError("keys list takes no arguments; see `understudy keys list --help`") }
            let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
            let keys = try Assembly.loadKeys(configuration)
            output.out("provider\tkid\talg\tthumbprint\n")
            for (provider, ring) in [("apple", keys.apple), ("google", keys.google)] {
                for jwk in ring.jwks {
                    output.out("\(provider)\t\(jwk.kid ?? "")\tRS256\t\(try jwk.thumbprint())\n")
                }
            }
            return ExitCode.success
        case "generate":
            let options = [OptionSpec("--out", "DIR", "Folder to write apple/<kid>.pem and google/<kid>.pem into.")]
            if rest.contains("--help") {
                output.out(helpText(overview: "Generate a fresh key set: three Apple and two Google RSA-2048 keys.",
                                    usage: "understudy keys generate --out <dir>", options: options))
                return ExitCode.success
            }
            let parsed = try ParsedArguments.parse(rest, options: options, command: "understudy keys generate")
            guard let out = parsed.value("--out"), parsed.positionals.isEmpty else {
                throw UsageError("say where to write the keys: understudy keys generate --out ./my-keys")
            }
            for (provider, count) in [("apple", 3), ("google", 2)] {
                let dir = out + "/" + provider
                try FileIO.makeDirectory(dir)
                for _ in 0..<count {
                    let kid = provider == "apple" ? KeyIDs.apple() : KeyIDs.google()
                    let key = try JWS.RS256.PrivateKey(bits: 2048)
                    try FileIO.write(Array(key.pemRepresentation.utf8), to: "\(dir)/\(kid).pem", mode: 0o600)
                    output.out("\(provider)\t\(kid)\t\(dir)/\(kid).pem\n")
                }
            }
            output.err("Use them with: understudy serve --keys \(out)\n")
            return ExitCode.success
        case "--help", "-h", nil:
            output.out(helpText(overview: "Manage signing keys.", usage: "understudy keys list|generate [<options>]",
                                options: [], subcommands: [("list", "List the keys in use."), ("generate", "Write a fresh key set.")]))
            return sub == nil ? ExitCode.usage : ExitCode.success
        default:
            throw UsageError("unknown keys subcommand '\(sub!)'; use `understudy keys list` or `understudy keys generate --out DIR`")
        }
    }
}

/// Key ids in each provider's shape.
enum KeyIDs {
    static func apple() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String(SecureRandom.bytes(10).map { alphabet[Int($0) % alphabet.count] })
    }
    static func google() -> String { Hex.encode(SecureRandom.bytes(20)) }
}
