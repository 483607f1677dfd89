#if canImport(Glibc)
import Glibc
#endif

/// Where a command reads standard input from: the real stream, or a buffer in tests.
public protocol CommandInput: AnyObject {
    /// True when input is a terminal (nothing piped in): commands then do not read it.
    var isTerminal: Bool { get }
    /// Everything up to end of input; more than `limit` bytes is an error.
    func readAll(limit: Int) throws -> [UInt8]
}

public final class StandardInput: CommandInput {
    public init() {}
    public var isTerminal: Bool { isatty(0) == 1 }
    public func readAll(limit: Int) throws -> [UInt8] {
        try FileIO.read("/dev/stdin", limit: limit)
    }
}
