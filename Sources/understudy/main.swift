#if canImport(Glibc)
import Glibc
#endif
import UnderstudyApp

// The executable is only this: everything else lives in UnderstudyApp, where tests can reach it.
var environment: [String: String] = [:]
var entry = environ
while let pointer = entry.pointee {
    let pair = String(cString: pointer)
    if let eq = pair.firstIndex(of: "=") {
        environment[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
    }
    entry += 1
}
exit(UnderstudyCLI.run(Array(CommandLine.arguments.dropFirst()), environment: environment))
