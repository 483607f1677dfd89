#if canImport(Glibc)
import Glibc
#endif
import UnderstudyIO

enum ServeCommand {
    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let started = monotonicNanoseconds()
        let options = UnderstudyCLI.settingOptions
        if arguments.contains("--help") || arguments.contains("-h") {
            output.out(helpText(overview: "Run Understudy: Apple and Google endpoints over HTTP, and the mail sink over SMTP. "
                                + "Every setting also reads from the configuration file and from its UNDERSTUDY_* variable.",
                                usage: "understudy serve [--config <file>] [--http <addr>] [--smtp <addr>] [--data <path>] [<setting flags>]",
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
        let prefix = "understudy \(UnderstudyCLI.version):"
        for address in app.httpAddresses { output.out("\(prefix) http listening on http://\(address)\n") }
        output.out("\(prefix) smtp listening on \(app.smtpAddress)\n")
        output.out("\(prefix) inbox store \(configuration.dataPath ?? "temporary (removed at exit; keep one with --data PATH)")\n")
        let elapsed = Double(monotonicNanoseconds() - started) / 1_000_000
        output.out("\(prefix) ready in \(Int(elapsed.rounded())) ms\n")
        let signal = TerminationSignal.wait()
        output.err("\(prefix) \(signal), shutting down\n")
        app.shutdown()
        return ExitCode.success
    }
}

func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
