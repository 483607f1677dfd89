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

/// Exit statuses: 0 success, 1 failure (for `otp`/`link`: nothing arrived), 64 usage error
/// (sysexits EX_USAGE), 69 the server could not be reached (EX_UNAVAILABLE).
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
    public static let unavailable: Int32 = 69

    /// The lines `--help` shows for commands that talk to a running server.
    static let serverHelp = "\nEXIT STATUS: 0 success, 1 failure (otp, link: nothing arrived), 64 usage error, "
        + "69 server unreachable.\n"
}

/// The `understudy` command: `serve` (the default), `mint`, `keys`, plus the mail commands.
public enum UnderstudyCLI {
    public static let version = "0.1.0"

    static let subcommands: [(String, String)] = [
        ("serve", "Run the server (the default when no subcommand is given)."),
        ("mint", "Print a signed Apple or Google ID token (offline, or through a server with --server)."),
        ("keys", "List the signing keys or generate a new set."),
        ("scenarios", "List the token scenarios with the verdict a correct verifier gives each."),
        ("fault", "Make the keys, discovery or token endpoint misbehave on the running server."),
        ("inspect", "Take a token apart: claims, times, key, signature, nonce and the scenario it matches."),
        ("notify", "Send an Apple server-to-server notification (consent-revoked, account-delete...) to an app."),
        ("audit", "Send every scenario's token to your verifier and report what it accepted that it must not, and the reverse."),
        ("otp", "Print the one-time code just sent to an address (waits with --wait)."),
        ("link", "Print the sign-in, verification or reset link just sent to an address."),
        ("inbox", "List caught messages."),
        ("send", "Send a test email to the sink."),
        ("ca", "Print the local CA's certificate or its path, and how to trust it."),
        ("env", "Print the proxy and CA variables that point a stack at Understudy."),
        ("hosts", "Print the /etc/hosts and Docker extra_hosts lines for the provider hosts."),
        ("login", "Sign in through the web flow of a running server and print the callback parameters."),
    ]

    /// Runs the command line and returns the exit status.
    public static func run(_ arguments: [String], environment: [String: String],
                           output: CommandOutput = StandardOutput(), input: CommandInput = StandardInput()) -> Int32 {
        let log = Logger(output: output)
        do {
            return try dispatch(arguments, environment: environment, output: output, input: input)
        } catch let error as UsageError {
            log.error(error.description)
            return ExitCode.usage
        } catch let error as BlockingSocket.Failure {
            // Connecting, sending or reading: the server is not there or went away.
            log.error(error.description)
            return ExitCode.unavailable
        } catch {
            log.error("\(error)")
            return ExitCode.failure
        }
    }

    static func dispatch(_ arguments: [String], environment: [String: String], output: CommandOutput,
                         input: CommandInput) throws -> Int32 {
        guard let first = arguments.first else {
            return try ServeCommand.run([], environment: environment, output: output)
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "serve": return try ServeCommand.run(rest, environment: environment, output: output)
        case "mint": return try MintCommand.run(rest, environment: environment, output: output)
        case "keys": return try KeysCommand.run(rest, environment: environment, output: output)
        case "scenarios": return try ScenariosCommand.run(rest, output: output)
        case "fault": return try FaultCommand.run(rest, environment: environment, output: output)
        case "inspect": return try InspectCommand.run(rest, environment: environment, output: output)
        case "notify": return try NotifyCommand.run(rest, environment: environment, output: output)
        case "audit": return try AuditCommand.run(rest, environment: environment, output: output)
        case "otp", "link": return try MailCommands.wait(first, rest, environment: environment, output: output)
        case "inbox": return try MailCommands.inbox(rest, environment: environment, output: output)
        case "send": return try MailCommands.send(rest, environment: environment, output: output, input: input)
        case "ca": return try TrustCommands.ca(rest, environment: environment, output: output)
        case "env": return try TrustCommands.env(rest, environment: environment, output: output)
        case "hosts": return try TrustCommands.hosts(rest, environment: environment, output: output)
        case "login": return try LoginCommand.run(rest, environment: environment, output: output)
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

    /// The setting flags (`--http`, `--apple-team-id`, ...) `serve` accepts.
    static var settingOptions: [OptionSpec] { settingOptions(where: { _ in true }) }

    /// `--config` and the flags of the settings `included` picks (by dotted key), for commands that
    /// use only some of them (`mint`: keys, issuers, client ids...; `keys list`: keys).
    static func settingOptions(where included: (String) -> Bool) -> [OptionSpec] {
        [OptionSpec("--config", "FILE", "Configuration file (JSON); default the embedded Config/understudy.json. [UNDERSTUDY_CONFIG]")]
            + Configuration.settings.filter { included($0.key) }.flatMap { spec in
                // A list setting's flags repeat (values add up); a boolean's alias is a bare switch.
                [OptionSpec(spec.flag, spec.kind == .boolean ? "BOOL" : "VALUE", repeatable: spec.kind == .stringList,
                            "\(spec.help) [\(spec.environmentVariable)]")]
                    + (spec.alias.map { [OptionSpec($0, spec.kind == .boolean ? nil : "VALUE", repeatable: spec.kind == .stringList,
                                                    "Same as \(spec.flag).")] } ?? [])
            }
    }

    /// Loads the configuration from `--config`, the environment and the setting flags in `parsed`
    /// (those the command accepted; the environment can set any setting).
    static func configuration(_ parsed: ParsedArguments, environment: [String: String]) throws -> Configuration {
        var flags: [String: String] = [:]
        for spec in Configuration.settings {
            for flag in [spec.flag] + (spec.alias.map { [$0] } ?? []) where parsed.has(flag) {
                flags[flag] = spec.kind == .stringList ? parsed.all(flag).joined(separator: ",") : parsed.value(flag)
            }
        }
        return try Configuration.load(configFile: parsed.value("--config"), environment: environment, flags: flags)
    }
}

enum KeysCommand {
    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let sub = arguments.first
        let rest = Array(arguments.dropFirst())
        switch sub {
        case "list":
            let options = UnderstudyCLI.settingOptions(where: { $0 == "keys" || $0 == "data" })
                + [OptionSpec("--server", "URL", "List the keys of the running server at URL (GET /api/keys), rotations included.")]
            let help = HelpText(overview: "List the signing keys: provider, kid, state (active, published, grace, retired) and RFC 7638 thumbprint. "
                                + "With --data, the keys rotated into that store supersede the configured ones.",
                                usage: "understudy keys list [--keys <dir>] [--data <path>] [--config <file>] [--server <url>]")
            guard let parsed = try ParsedArguments.parse(rest, options: options, command: "understudy keys list",
                                                         output: output, help: help) else { return ExitCode.success }
            guard parsed.positionals.isEmpty else { throw UsageError("keys list takes no arguments; see `understudy keys list --help`") }
            let listing: JSONValue
            if let server = parsed.value("--server") {
                let response = try SimpleHTTPClient(server: server).get("/api/keys")
                guard response.status == 200, let json = response.json else {
                    Logger(output: output).error("the server at \(server) did not list its keys: \(MailCommands.problemMessage(response))")
                    return ExitCode.failure
                }
                listing = json
            } else {
                let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
                listing = try Assembly.providerRoutes(configuration).keyListing()
            }
            output.out("provider\tkid\tstate\talg\tthumbprint\n")
            for provider in ["apple", "google"] {
                for key in listing[provider]?.arrayValue ?? [] {
                    output.out("\(provider)\t\(key["kid"]?.stringValue ?? "")\t\(key["state"]?.stringValue ?? "")\tRS256\t\(key["thumbprint"]?.stringValue ?? "")\n")
                }
            }
            return ExitCode.success
        case "rotate":
            let options = [MailCommands.serverOption]
                + UnderstudyCLI.settingOptions(where: { ["keys", "data", "tokens.rotationGrace"].contains($0) })
            let help = HelpText(overview: "Make a new active key for a provider; the previous key stays published for tokens.rotationGrace "
                                + "seconds, then is retired. On the running server (--server, default from the configuration), or, "
                                + "with --data PATH and no --server, in the store's key files while no server runs.",
                                usage: "understudy keys rotate apple|google [--server <url> | --data <path>]")
            guard let parsed = try ParsedArguments.parse(rest, options: options, command: "understudy keys rotate",
                                                         output: output, help: help) else { return ExitCode.success }
            guard parsed.positionals.count == 1, let provider = parsed.positionals.first, let name = ProviderName(rawValue: provider) else {
                throw UsageError("name the provider: understudy keys rotate apple (or google)")
            }
            let json: JSONValue
            if parsed.has("--data") && !parsed.has("--server") {
                let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
                let routes = try Assembly.providerRoutes(configuration)
                let now = systemUnixClock()
                let (new, previous) = try routes.keys.rotate(name, now: now)
                let grace = routes.keys.settings.rotationGrace
                json = ["active": .string(new.kid), "previous": .string(previous.kid),
                        "previousState": .string(grace > 0 ? "grace" : "retired"), "graceUntil": .integer(now + grace)]
            } else {
                let response = try MailCommands.server(parsed, environment: environment).postJSON("/api/keys/\(provider)/rotate", [:])
                guard response.status == 200, let answer = response.json else {
                    Logger(output: output).error("the server did not rotate the \(provider) keys: \(MailCommands.problemMessage(response))")
                    return ExitCode.failure
                }
                json = answer
            }
            output.out("\(provider)\tactive\t\(json["active"]?.stringValue ?? "")\n")
            output.out("\(provider)\t\(json["previousState"]?.stringValue ?? "grace")\t\(json["previous"]?.stringValue ?? "")\tuntil \(json["graceUntil"]?.intValue ?? 0)\n")
            return ExitCode.success
        case "generate":
            let options = [OptionSpec("--out", "DIR", "Folder to write apple/<kid>.pem and google/<kid>.pem into.")]
            let help = HelpText(overview: "Generate a fresh key set: three Apple and two Google RSA-2048 keys.",
                                usage: "understudy keys generate --out <dir>")
            guard let parsed = try ParsedArguments.parse(rest, options: options, command: "understudy keys generate",
                                                         output: output, help: help) else { return ExitCode.success }
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
            Logger(output: output).info("use them with: understudy serve --keys \(out) (and understudy mint --keys \(out))")
            return ExitCode.success
        case "--help", "-h", nil:
            output.out(helpText(overview: "Manage signing keys.", usage: "understudy keys list|rotate|generate [<options>]",
                                options: [], subcommands: [("list", "List the keys in use."), ("rotate", "Rotate a provider's key on the running server."),
                                                           ("generate", "Write a fresh key set.")]))
            return sub == nil ? ExitCode.usage : ExitCode.success
        default:
            throw UsageError("unknown keys subcommand '\(sub!)'; use `understudy keys list`, `understudy keys rotate apple|google` or `understudy keys generate --out DIR`")
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
