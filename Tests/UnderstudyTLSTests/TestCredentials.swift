import Foundation
import UnderstudyTLS

/// The test-only certificates under Fixtures/ (see its README): a CA, another CA, and leaves.
enum TestCredentials {
    static func text(_ name: String) throws -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw MissingFixture(name: name)
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    struct MissingFixture: Error { let name: String }

    static func certificate(_ name: String) throws -> TLSCertificate {
        try TLSCertificate(pemRepresentation: text(name + ".pem"))
    }

    /// The leaf `name` with the test CA after it.
    static func identity(_ name: String) throws -> TLSIdentity {
        try TLSIdentity(certificateChain: [certificate(name), certificate("test-ca")],
                        privateKey: TLSPrivateKey(pemRepresentation: text(name + ".key")))
    }

    static func serverContext(_ leaf: String = "apple", configure: (inout TLSConfiguration) -> Void = { _ in }) throws -> TLSContext {
        var configuration = TLSConfiguration.server(identity: try identity(leaf))
        configure(&configuration)
        return try TLSContext(configuration: configuration)
    }

    static func clientContext(trusting ca: String = "test-ca", configure: (inout TLSConfiguration) -> Void = { _ in }) throws -> TLSContext {
        var configuration = TLSConfiguration.client(trustRoots: [try certificate(ca)])
        configure(&configuration)
        return try TLSContext(configuration: configuration)
    }
}
