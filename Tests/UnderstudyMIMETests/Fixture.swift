import Foundation

/// Reads files from the copied `Fixtures` directory.
enum Fixture {
    static func bytes(_ name: String) throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw FixtureMissing(name: name)
        }
        return [UInt8](try Data(contentsOf: url))
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self)
    }

    /// Blocks separated by blank lines, each split into lines.
    static func blocks(_ name: String) throws -> [[String]] {
        try text(name).components(separatedBy: "\n\n").map {
            $0.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        }.filter { !$0.isEmpty }
    }

    struct FixtureMissing: Error { var name: String }
}

/// Turns "\n" line endings into "\r\n" (idempotent for text that already has CRLF).
func crlf(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count + bytes.count / 20)
    var previous: UInt8 = 0
    for b in bytes {
        if b == 0x0A && previous != 0x0D { out.append(0x0D) }
        out.append(b)
        previous = b
    }
    return out
}

func lf(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
        if bytes[i] == 0x0D, i + 1 < bytes.count, bytes[i + 1] == 0x0A { i += 1; continue }
        out.append(bytes[i])
        i += 1
    }
    return out
}

