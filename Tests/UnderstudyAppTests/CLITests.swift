import Testing
import UnderstudyJOSE
import UnderstudyJSON
@testable import UnderstudyApp

final class CapturedOutput: CommandOutput {
    var stdout = ""
    var stderr = ""
    func out(_ text: String) { stdout += text }
    func err(_ text: String) { stderr += text }
}

func runCLI(_ arguments: [String], environment: [String: String] = [:]) -> (status: Int32, out: String, err: String) {
    let output = CapturedOutput()
    let status = UnderstudyCLI.run(arguments, environment: environment, output: output)
    return (status, output.stdout, output.stderr)
}

@Suite struct CLITests {
    @Test func versionAndHelp() {
        let v = runCLI(["--version"])
        #expect(v.status == 0 && v.out == "understudy \(UnderstudyCLI.version)\n")
        for command in [["--help"], ["serve", "--help"], ["mint", "--help"], ["keys", "--help"], ["keys", "list", "--help"],
                        ["keys", "generate", "--help"]] {
            let r = runCLI(command)
            #expect(r.status == 0, "\(command)")
            #expect(r.out.hasPrefix("OVERVIEW: "), "\(command)")
            #expect(r.out.contains("USAGE: understudy"), "\(command)")
        }
        #expect(runCLI(["serve", "--help"]).out.contains("--apple-team-id"))
        #expect(runCLI(["serve", "--help"]).out.contains("UNDERSTUDY_APPLE_TEAM_ID"))
    }

    @Test(arguments: [
        (["mnit"], "did you mean 'mint'?"),
        (["mint"], "name the provider"),
        (["mint", "facebook"], "name the provider"),
        (["mint", "apple", "--ttl", "soon"], "--ttl takes a whole number"),
        (["mint", "apple", "--ttl", "0"], "ttl must be"),
        (["mint", "apple", "--claim", "novalue"], "--claim takes key=value"),
        (["mint", "apple", "--audd", "x"], "Did you mean --aud?"),
        (["mint", "apple", "--aud"], "--aud needs a value"),
        (["mint", "apple", "--platform", "tv"], "platform must be one of"),
        (["mint", "apple", "--nonce", "a", "--raw-nonce", "b"], "either nonce"),
        (["serve", "extra"], "serve takes no arguments"),
        (["keys", "generate"], "understudy keys generate --out"),
        (["keys", "rotate"], "unknown keys subcommand"),
    ])
    func usageErrorsExit64(_ arguments: [String], _ message: String) {
        let r = runCLI(arguments)
        #expect(r.status == 64, "\(arguments): \(r.err)")
        #expect(r.err.contains(message), "\(arguments): \(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test func configurationErrorsExit1() {
        let r = runCLI(["mint", "apple"], environment: ["UNDERSTUDY_APPLE_TOKEN_LIFETIME": "forever"])
        #expect(r.status == 1)
        #expect(r.err.contains("UNDERSTUDY_APPLE_TOKEN_LIFETIME"))
    }

    @Test func mintPrintsAVerifiableToken() throws {
        let r = runCLI(["mint", "apple", "--aud", "com.cli.app", "--email", "cli@example.com", "--raw-nonce", "r",
                        "--claim", "custom=1", "--claim", "label=hello", "--ttl", "90"])
        #expect(r.status == 0, "\(r.err)")
        let token = r.out.trimmingSpaces()
        #expect(token.split(separator: ".").count == 3)
        #expect(r.out.hasSuffix("\n") && !token.contains("\n"))
        let decoded = try JWS.decode(token)
        let claims = try #require(decoded.claims)
        #expect(claims["aud"] == "com.cli.app")
        #expect(claims["email"] == "cli@example.com")
        #expect(claims["custom"] == 1)
        #expect(claims["label"] == "hello")
        #expect((claims["exp"]?.intValue ?? 0) - (claims["iat"]?.intValue ?? 0) == 90)
        // Signed with an embedded Apple key.
        let kid = try #require(decoded.header["kid"]?.stringValue)
        let pem = try #require(EmbeddedDefaults.appleKeys.first { $0.kid == kid }?.pem)
        _ = try JWS.verify(token, key: .rs256(JWS.RS256.PrivateKey(pemRepresentation: pem).publicKey))
    }

    @Test func mintJSONAndSettingsFlags() throws {
        let r = runCLI(["mint", "google", "--platform", "ios", "--json", "--google-web-client-id", "server-id"])
        #expect(r.status == 0, "\(r.err)")
        let json = try JSONValue.parse(r.out.trimmingSpaces())
        #expect(json["claims"]?["aud"] == "server-id")
        #expect(json["claims"]?["azp"] == "123456789012-understudyios.apps.googleusercontent.com")
        #expect(json["header"]?["typ"] == "JWT")
    }

    @Test func keysGenerateThenList() throws {
        let dir = String(temporaryFile("x", "").dropLast(2)) + "/keys"
        let g = runCLI(["keys", "generate", "--out", dir])
        #expect(g.status == 0, "\(g.err)")
        #expect(g.out.split(separator: "\n").count == 5)
        let l = runCLI(["keys", "list", "--keys", dir])
        #expect(l.status == 0, "\(l.err)")
        let rows = l.out.split(separator: "\n").dropFirst().map { $0.split(separator: "\t") }
        #expect(rows.count == 5)
        #expect(rows.filter { $0[0] == "apple" }.allSatisfy { $0[1].count == 10 })
        #expect(rows.filter { $0[0] == "google" }.allSatisfy { $0[1].count == 40 })
        // Minting with the new folder signs with one of its keys.
        let m = runCLI(["mint", "google", "--keys", dir, "--json"])
        let kid = try JSONValue.parse(m.out.trimmingSpaces())["header"]?["kid"]?.stringValue
        #expect(rows.contains { $0[1] == Substring(kid ?? "") })
        #expect(runCLI(["keys", "list", "--keys", "/nonexistent"]).status == 1)
    }

    @Test func embeddedKeysAreListed() {
        let l = runCLI(["keys", "list"])
        #expect(l.status == 0)
        #expect(l.out.split(separator: "\n").count == 6)
    }
}
