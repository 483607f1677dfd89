#if canImport(Glibc)
import Glibc
#endif
import UnderstudyIO
import UnderstudyJSON

enum ServeCommand {
    static let readyFileOption = OptionSpec("--ready-file", "FILE",
        "Once every listener is bound, write {\"http\": ADDR, \"smtp\": ADDR, \"pid\": N} to FILE (atomically; removed at exit).")

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let started = monotonicNanoseconds()
        let options = UnderstudyCLI.settingOptions + [readyFileOption]
        if arguments.contains("--help") || arguments.contains("-h") {
            output.out(helpText(overview: "Run Understudy: Apple and Google endpoints over HTTP, and the mail sink over SMTP. "
                                + "Every setting also reads from the configuration file and from its UNDERSTUDY_* variable. "
                                + "Diagnostics go to standard error.",
                                usage: "understudy serve [--config <file>] [--http <addr>] [--smtp <addr>] [--data <path>] [--ready-file <file>] [<setting flags>]",
                                options: options))
            return ExitCode.success
        }
        let parsed = try ParsedArguments.parse(arguments, options: options, command: "understudy serve")
        guard parsed.positionals.isEmpty else {
            throw UsageError("serve takes no arguments, got '\(parsed.positionals[0])'; settings are flags, e.g. --http 127.0.0.1:7080")
        }
        let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
        // Signals are taken by sigwait below: block them before any loop thread starts.
        TerminationSignal.blockInCurrentThread()
        let app = try Application(configuration: configuration)
        let log = Logger(output: output)
        for address in app.httpAddresses { log.info("http listening on http://\(address)") }
        log.info("smtp listening on \(app.smtpAddress)")
        log.info("inbox store \(configuration.dataPath ?? "temporary (removed at exit; keep one with --data PATH)")")
        let readyFile = parsed.value("--ready-file")
        if let readyFile {
            let ready: JSONValue = ["http": .string(app.httpAddresses.first ?? ""), "smtp": .string(app.smtpAddress),
                                    "pid": .integer(Int64(getpid()))]
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
