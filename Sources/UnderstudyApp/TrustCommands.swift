import UnderstudyCA
import UnderstudyMailAPIs

/// What pointing a stack at Understudy's real-hostname modes needs: the local CA (`understudy ca`),
/// the hosts lines (`understudy hosts`) and the variables (`understudy env`). Each reads the same
/// `--config`, `--ca`, `--http`, `--https` settings (flags, file, `UNDERSTUDY_*`) as `serve`.
enum TrustCommands {
    static let settingKeys: Set<String> = ["ca", "http", "https"]
    static var settingOptions: [OptionSpec] { UnderstudyCLI.settingOptions(where: { settingKeys.contains($0) }) }

    /// The provider host names, in the order people read them.
    static let hostNames = ["appleid.apple.com", "account.apple.com", "accounts.google.com", "www.googleapis.com",
                            "oauth2.googleapis.com", "openidconnect.googleapis.com"]

    static func openAuthority(_ configuration: Configuration) throws -> CertificateAuthority {
        try Application.openAuthority(configuration)
    }

    // MARK: understudy ca

    static func ca(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let sub = arguments.first
        let rest = Array(arguments.dropFirst())
        switch sub {
        case "path", "show":
            let help = HelpText(overview: sub == "path"
                                ? "Print the path of the local CA's certificate (PEM), making the CA on first use."
                                : "Print the local CA's certificate (PEM), making the CA on first use.",
                                usage: "understudy ca \(sub!) [--ca <dir>] [--config <file>]")
            guard let parsed = try ParsedArguments.parse(rest, options: settingOptions, command: "understudy ca \(sub!)",
                                                         output: output, help: help) else { return ExitCode.success }
            guard parsed.positionals.isEmpty else { throw UsageError("ca \(sub!) takes no arguments; see `understudy ca \(sub!) --help`") }
            let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
            let authority = try openAuthority(configuration)
            output.out(sub == "path" ? authority.certificatePath + "\n" : authority.certificatePEM)
            let log = Logger(output: output)
            if authority.wasCreated { log.info("made a new local CA in \(authority.directory) (its key never leaves this machine)") }
            output.err(trustInstructions(authority.certificatePath))
            return ExitCode.success
        case "--help", "-h", nil:
            output.out(helpText(overview: "The local certificate authority the HTTPS port's certificates come from.",
                                usage: "understudy ca path|show [<options>]", options: [],
                                subcommands: [("path", "Print the CA certificate's path."), ("show", "Print the CA certificate (PEM).")]))
            return sub == nil ? ExitCode.usage : ExitCode.success
        default:
            throw UsageError("unknown ca subcommand '\(sub!)'; use `understudy ca path` or `understudy ca show`")
        }
    }

    /// How each runtime is told to trust the CA.
    static func trustInstructions(_ path: String) -> String {
        """
        Trust it where the client runs (only there: it is made for this machine):
          Node            NODE_EXTRA_CA_CERTS=\(path)
          Python requests REQUESTS_CA_BUNDLE=\(path)
          Go, OpenSSL, Python ssl/urllib  SSL_CERT_FILE=\(path)
          curl            curl --cacert \(path) ...
          Debian/Ubuntu   sudo cp \(path) /usr/local/share/ca-certificates/understudy.crt && sudo update-ca-certificates
          macOS           sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(path)
          Docker          mount it (-v \(path):/understudy-ca.pem:ro) and set the variable above to /understudy-ca.pem

        """
    }

    // MARK: understudy hosts

    static func hosts(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let help = HelpText(overview: "Print the /etc/hosts and Docker extra_hosts lines that send the provider hosts to Understudy.",
                            usage: "understudy hosts [--https <addr>] [--config <file>]")
        guard let parsed = try ParsedArguments.parse(arguments, options: settingOptions, command: "understudy hosts",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals.isEmpty else { throw UsageError("hosts takes no arguments; see `understudy hosts --help`") }
        let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
        let https = configuration.https.flatMap(ListenAddress.init)
        let ip = https.map { $0.host == "0.0.0.0" || $0.host == "localhost" ? "127.0.0.1" : $0.host } ?? "127.0.0.1"
        // The email APIs on a line of their own: a stack may want the providers without them.
        let emailHosts = EmailAPIRoutes.prefixes.flatMap(\.hosts)
        output.out("# /etc/hosts\n\(ip) \(hostNames.joined(separator: " "))\n\(ip) \(emailHosts.joined(separator: " "))\n\n")
        output.out("# docker compose (service section): the host's Understudy\nextra_hosts:\n")
        for name in hostNames + emailHosts { output.out("  - \"\(name):host-gateway\"\n") }
        let log = Logger(output: output)
        if let https, https.port != 443 {
            log.warning("clients connect to port 443 for these names, but HTTPS listens on \(https.port): run with --https \(https.host):443 "
                        + "(root or CAP_NET_BIND_SERVICE), or use the proxy instead (`understudy env`)")
        } else if https == nil {
            log.warning("HTTPS is off (--https null): turn it on for these names to be answered")
        }
        return ExitCode.success
    }

    // MARK: understudy env

    static let stacks = ["shell", "node", "python", "go", "docker"]

    static func env(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let options = settingOptions + [OptionSpec("--stack", "STACK", "One of \(stacks.joined(separator: ", ")) (default shell: every variable).")]
        let help = HelpText(overview: "Print ready-to-paste lines that point a stack at Understudy: the proxy, the CA, the hosts.",
                            usage: "understudy env [--stack node|python|go|docker] [--config <file>]")
        guard let parsed = try ParsedArguments.parse(arguments, options: options, command: "understudy env",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals.isEmpty else { throw UsageError("env takes no arguments; see `understudy env --help`") }
        let stack = parsed.value("--stack") ?? "shell"
        guard stacks.contains(stack) else {
            throw UsageError("--stack must be one of \(stacks.joined(separator: ", ")), got '\(stack)'")
        }
        let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
        let ca = try openAuthority(configuration).certificatePath
        let http = ListenAddress(configuration.http) ?? ListenAddress("127.0.0.1:7080")!
        let proxy = "http://\(http.host == "0.0.0.0" ? "127.0.0.1" : http.host):\(http.port)"
        let noProxy = "localhost,127.0.0.1,::1"
        switch stack {
        case "python":
            output.out("""
                # Python (requests, google-auth, PyJWT, django-allauth): the proxy and the CA
                export HTTPS_PROXY=\(proxy)
                export NO_PROXY=\(noProxy)
                export REQUESTS_CA_BUNDLE=\(ca)
                export SSL_CERT_FILE=\(ca)

                """)
        case "go":
            output.out("""
                # Go (net/http, go-oidc in Supabase Auth): the proxy and the CA
                export HTTPS_PROXY=\(proxy)
                export NO_PROXY=\(noProxy)
                export SSL_CERT_FILE=\(ca)

                """)
        case "node":
            output.out("""
                # Node (Better Auth, jose, google-auth-library): fetch ignores HTTPS_PROXY, so resolve the
                # provider names to Understudy (see `understudy hosts`, HTTPS on port 443) and trust the CA
                export NODE_EXTRA_CA_CERTS=\(ca)

                """)
        case "docker":
            output.out("""
                # docker compose, in the app's service: Understudy on the host, its CA mounted
                environment:
                  HTTPS_PROXY: http://host.docker.internal:\(http.port)
                  NO_PROXY: \(noProxy)
                  REQUESTS_CA_BUNDLE: /understudy-ca.pem
                  SSL_CERT_FILE: /understudy-ca.pem
                  NODE_EXTRA_CA_CERTS: /understudy-ca.pem
                volumes:
                  - \(ca):/understudy-ca.pem:ro
                extra_hosts:
                  - "host.docker.internal:host-gateway"
                # (Understudy must listen beyond loopback for this: --http 0.0.0.0:\(http.port) with --allow-remote)

                """)
        default:
            output.out("""
                export HTTPS_PROXY=\(proxy)
                export NO_PROXY=\(noProxy)
                export SSL_CERT_FILE=\(ca)
                export REQUESTS_CA_BUNDLE=\(ca)
                export NODE_EXTRA_CA_CERTS=\(ca)

                """)
        }
        return ExitCode.success
    }
}
