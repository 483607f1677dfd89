#if canImport(Glibc)
import Glibc
#endif
import UnderstudyIO
import UnderstudyJSON

enum ServeCommand {
    static let readyFileOption = OptionSpec("--ready-file", "FILE",
        "Once every listener is bound, write {\"http\": ADDR, \"smtp\": ADDR, \"https\": ADDR, \"ca\": PEM path, \"pid\": N} to FILE (atomically; removed at exit; https and ca only when HTTPS is on).")

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let started = monotonicNanoseconds()
        let options = UnderstudyCLI.settingOptions + [readyFileOption]
        let help = HelpText(overview: "Run Understudy: Apple and Google endpoints over HTTP, and the mail sink over SMTP. "
                            + "Every setting also reads from the configuration file and from its UNDERSTUDY_* variable. "
                            + "Diagnostics go to standard error.",
                            usage: "understudy serve [--config <file>] [--http <addr>] [--smtp <addr>] [--data <path>] [--ready-file <file>] [<setting flags>]")
        guard let parsed = try ParsedArguments.parse(arguments, options: options, command: "understudy serve",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals.isEmpty else {
            throw UsageError("serve takes no arguments, got '\(parsed.positionals[0])'; settings are flags, e.g. --http 127.0.0.1:7080")
        }
        let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
        // Signals are taken by sigwait below: block them before any loop thread starts.
        TerminationSignal.blockInCurrentThread()
        let app = try Application(configuration: configuration)
        let log = Logger(output: output)
        for listener in Application.remoteListeners(configuration) {
            log.warning("\(listener) listens beyond loopback; anyone who can reach it can "
                        + (configuration.server.apiToken == nil ? "read the inbox and mint tokens (no API token is set)"
                                                               : "send mail and fetch keys (/api needs the API token)"))
        }
        for address in app.httpAddresses { log.info("http listening on http://\(address)") }
        if let https = app.httpsAddress, let ca = app.certificateAuthority {
            log.info("https listening on https://\(https) as \(VirtualHosts.hosts.joined(separator: ", ")) and localhost")
            log.info("local CA \(ca.certificatePath)\(ca.wasCreated ? " (made now)" : ""): trust it to reach the HTTPS port; see `understudy ca`")
        }
        log.info("smtp listening on \(app.smtpAddress)\(configuration.mail.startTLS && app.certificateAuthority != nil ? " (STARTTLS offered)" : "")")
        if let smtps = app.smtpsAddress { log.info("smtps listening on \(smtps) (implicit TLS)") }
        log.info("inbox store \(configuration.dataPath ?? "temporary (removed at exit; keep one with --data PATH)")")
        let readyFile = parsed.value("--ready-file")
        if let readyFile {
            var fields: [(String, JSONValue)] = [("http", .string(app.httpAddresses.first ?? "")), ("smtp", .string(app.smtpAddress))]
            if let https = app.httpsAddress { fields.append(("https", .string(https))) }
            if let smtps = app.smtpsAddress { fields.append(("smtps", .string(smtps))) }
            if let ca = app.certificateAuthority { fields.append(("ca", .string(ca.certificatePath))) }
            fields.append(("pid", .integer(Int64(getpid()))))
            let ready = JSONValue.object(JSONObject(fields))
            do {
                try FileIO.write(ready.serializedBytes() + [10], to: readyFile)
            } catch {
                app.shutdown()
                throw StartupError("cannot write the ready file: \(error.description); choose another path with --ready-file FILE")
            }
        }
        let elapsed = Double(monotonicNanoseconds() - started) / 1_000_000
        log.info("ready in \(Int(elapsed.rounded())) ms (understudy \(UnderstudyCLI.version))")
        let signal = TerminationSignal.wait()
        log.info("\(signal), shutting down")
        app.shutdown()
        if let readyFile { unlink(readyFile) }
        log.info("stopped")
        return ExitCode.success
    }
}

func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
