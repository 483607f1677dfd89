/// A command-line option a command accepts.
struct OptionSpec: Sendable {
    let name: String          // "--aud"
    let valueName: String?    // "AUD"; nil for a flag that takes no value
    let repeatable: Bool
    let help: String

    init(_ name: String, _ valueName: String?, repeatable: Bool = false, _ help: String) {
        self.name = name; self.valueName = valueName; self.repeatable = repeatable; self.help = help
    }
}

/// A usage error: exit 64 with a message that says what to type instead.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// Parsed arguments of one command.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var positionals: [String] = []

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { values[name] != nil }

    /// Parses `--name value`, `--name=value` and bare flags against `options`; `--` ends options.
    static func parse(_ arguments: [String], options: [OptionSpec], command: String) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            var name = argument
            var inlineValue: String?
            if let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inlineValue = String(argument[argument.index(after: eq)...])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                let hint = Configuration.suggestion(name, among: options.map(\.name)).map { " Did you mean \($0)?" } ?? ""
                throw UsageError("unknown option \(name) for '\(command)'.\(hint) See `\(command) --help`.")
            }
            let value: String
            if spec.valueName == nil {
                if inlineValue != nil { throw UsageError("\(name) takes no value; write just \(name)") }
                value = "true"
            } else if let inlineValue {
                value = inlineValue
            } else {
                guard i < arguments.count else {
                    throw UsageError("\(name) needs a value: \(name) \(spec.valueName!)")
                }
                value = arguments[i]
                i += 1
            }
            if !spec.repeatable, parsed.values[name] != nil {
                throw UsageError("\(name) given twice; give it once")
            }
            parsed.values[name, default: []].append(value)
        }
        return parsed
    }
}

/// Help text in the shape of swift-argument-parser's.
func helpText(overview: String, usage: String, options: [OptionSpec], subcommands: [(String, String)] = []) -> String {
    var out = "OVERVIEW: \(overview)\n\nUSAGE: \(usage)\n"
    if !subcommands.isEmpty {
        out += "\nSUBCOMMANDS:\n"
        let width = (subcommands.map(\.0.count).max() ?? 0) + 2
        for (name, help) in subcommands { out += "  " + name.padding(width) + help + "\n" }
    }
    let all = options + [OptionSpec("--help", nil, "Show help information.")]
    out += "\nOPTIONS:\n"
    let labels = all.map { $0.name + ($0.valueName.map { " <\($0)>" } ?? "") }
    let width = min(34, (labels.map(\.count).max() ?? 0) + 2)
    for (label, spec) in zip(labels, all) {
        if label.count + 2 > width {
            out += "  \(label)\n  " + "".padding(width) + spec.help + "\n"
        } else {
            out += "  " + label.padding(width) + spec.help + "\n"
        }
    }
    return out
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
