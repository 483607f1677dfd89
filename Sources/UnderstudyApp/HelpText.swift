/// What a command's `--help` prints besides its options: see `ParsedArguments.parse(_:options:command:output:help:)`.
struct HelpText {
    let overview: String
    let usage: String
    var subcommands: [(String, String)] = []
    /// Printed after the options (exit statuses, what mint signs with...); made only for --help.
    let epilogue: () -> String

    init(overview: String, usage: String, subcommands: [(String, String)] = [],
         epilogue: @escaping @autoclosure () -> String = "") {
        self.overview = overview
        self.usage = usage
        self.subcommands = subcommands
        self.epilogue = epilogue
    }

    func render(options: [OptionSpec]) -> String {
        helpText(overview: overview, usage: usage, options: options, subcommands: subcommands) + epilogue()
    }
}

extension ParsedArguments {
    /// Every command's start: with `--help` or `-h` among `arguments`, prints the help and returns
    /// nil (the command then exits 0); else parses them against `options`.
    static func parse(_ arguments: [String], options: [OptionSpec], command: String, output: CommandOutput,
                      help: HelpText) throws(UsageError) -> ParsedArguments? {
        if arguments.contains("--help") || arguments.contains("-h") {
            output.out(help.render(options: options))
            return nil
        }
        return try parse(arguments, options: options, command: command)
    }
}
