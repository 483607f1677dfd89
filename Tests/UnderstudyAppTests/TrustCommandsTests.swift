import Testing
import UnderstudyTestSupport
import UnderstudyTLS
@testable import UnderstudyApp

/// `understudy ca`, `hosts` and `env`: what a user pastes to point a stack at the real-hostname modes.
@Suite struct TrustCommandsTests {
    @Test func caPathMakesTheCAOnFirstUseAndSaysHowToTrustIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["XDG_DATA_HOME": folder.path]
        let first = runCLI(["ca", "path"], environment: environment)
        #expect(first.status == 0)
        #expect(first.out == folder.path + "/understudy/ca/ca.pem\n")
        #expect(first.err.contains("made a new local CA"))
        for hint in ["NODE_EXTRA_CA_CERTS=", "REQUESTS_CA_BUNDLE=", "SSL_CERT_FILE=", "--cacert", "update-ca-certificates",
                     "add-trusted-cert", "Docker"] {
            #expect(first.err.contains(hint), "\(hint)")
        }
        // The second time it is the same CA, and `show` prints it.
        let again = runCLI(["ca", "path"], environment: environment)
        #expect(again.out == first.out && !again.err.contains("made a new"))
        let shown = runCLI(["ca", "show"], environment: environment)
        let certificate = try TLSCertificate(pemRepresentation: shown.out)
        #expect(certificate.isCertificateAuthority)
        // --ca names another folder.
        let other = runCLI(["ca", "path", "--ca", folder.path + "/elsewhere"], environment: environment)
        #expect(other.out == folder.path + "/elsewhere/ca.pem\n")
    }

    @Test func caWithoutAFolderOrSubcommandSaysWhatToDo() {
        let none = runCLI(["ca", "path"], environment: [:])
        #expect(none.status == 1 && none.err.contains("--ca DIR"))
        #expect(runCLI(["ca"]).status == 64)
        let unknown = runCLI(["ca", "rotate"])
        #expect(unknown.status == 64 && unknown.err.contains("understudy ca path"))
    }

    @Test func hostsNamesEveryProviderHostAndWarnsOffPort443() {
        let lines = runCLI(["hosts"])
        #expect(lines.status == 0)
        #expect(lines.out.contains("127.0.0.1 appleid.apple.com account.apple.com accounts.google.com www.googleapis.com "
                                   + "oauth2.googleapis.com openidconnect.googleapis.com\n"))
        #expect(lines.out.contains("  - \"oauth2.googleapis.com:host-gateway\"\n"))
        // The email APIs on a line of their own, and in extra_hosts.
        #expect(lines.out.contains("\n127.0.0.1 api.resend.com api.sendgrid.com api.postmarkapp.com api.mailgun.net api.eu.mailgun.net email.us-east-1.amazonaws.com"))
        #expect(lines.out.contains("  - \"api.postmarkapp.com:host-gateway\"\n"))
        #expect(lines.err.contains("--https 127.0.0.1:443"))
        #expect(!runCLI(["hosts", "--https", "127.0.0.1:443"]).err.contains("warning"))
    }

    @Test func envPrintsWhatEachStackReads() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["XDG_DATA_HOME": folder.path]
        let ca = folder.path + "/understudy/ca/ca.pem"
        let python = runCLI(["env", "--stack", "python", "--http", "127.0.0.1:9080"], environment: environment)
        #expect(python.status == 0)
        #expect(python.out.contains("export HTTPS_PROXY=http://127.0.0.1:9080\n"))
        #expect(python.out.contains("export REQUESTS_CA_BUNDLE=\(ca)\n"))
        #expect(runCLI(["env", "--stack", "go"], environment: environment).out.contains("export SSL_CERT_FILE=\(ca)\n"))
        #expect(runCLI(["env", "--stack", "node"], environment: environment).out.contains("NODE_EXTRA_CA_CERTS=\(ca)"))
        let docker = runCLI(["env", "--stack", "docker"], environment: environment).out
        #expect(docker.contains("\(ca):/understudy-ca.pem:ro") && docker.contains("host.docker.internal:7080"))
        let bad = runCLI(["env", "--stack", "perl"], environment: environment)
        #expect(bad.status == 64 && bad.err.contains("node, python, go"))
    }
}
