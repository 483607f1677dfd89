import Foundation

/// Runs the `openssl` command-line tool, as an independent check of what this module writes.
enum OpenSSLCommand {
    static var path: String? {
        ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The tool's stdout, or nil if it exits non-zero.
    static func run(_ arguments: [String], input: String) -> String? {
        guard let path else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: output, as: UTF8.self)
    }
}

extension OpenSSLCommand {
    /// Whether `openssl dgst -sha256 -verify` accepts `signature` (as OpenSSL encodes it) over
    /// `message` with `publicKeyPEM`, using files in a fresh temporary directory.
    static func verify(publicKeyPEM: String, message: [UInt8], signature: [UInt8], extraArguments: [String] = []) throws -> Bool? {
        guard path != nil else { return nil }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-jose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("key.pem")
        let signatureFile = directory.appendingPathComponent("sig.bin")
        let messageFile = directory.appendingPathComponent("message.bin")
        try Data(publicKeyPEM.utf8).write(to: keyFile)
        try Data(signature).write(to: signatureFile)
        try Data(message).write(to: messageFile)
        let output = run(["dgst", "-sha256", "-verify", keyFile.path, "-signature", signatureFile.path] + extraArguments + [messageFile.path],
                         input: "")
        return output?.contains("Verified OK") == true
    }
}

extension OpenSSLCommand {
    /// Writes `files` into a fresh temporary directory and runs the tool with arguments built
    /// from that directory; nil when the tool is missing or exits non-zero.
    static func run(files: [String: String], arguments: (String) -> [String]) throws -> String? {
        guard path != nil else { return nil }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-jose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, contents) in files {
            try Data(contents.utf8).write(to: directory.appendingPathComponent(name))
        }
        return run(arguments(directory.path), input: "")
    }
}

extension PEMTests {
    static func pkcs1(fromPKCS8 pem: String) -> String? {
        OpenSSLCommand.run(["rsa", "-traditional"], input: pem)
    }
}
