import Testing
import UnderstudyJOSE
import UnderstudyJSON
@testable import UnderstudyApp

/// Standard input for a test: a terminal (nothing piped) unless bytes are given.
final class CapturedInput: CommandInput {
    let bytes: [UInt8]?
    init(_ bytes: [UInt8]? = nil) { self.bytes = bytes }
    var isTerminal: Bool { bytes == nil }
    func readAll(limit: Int) throws -> [UInt8] { bytes ?? [] }
}

final class CapturedOutput: CommandOutput {
    var stdout = ""
    var stderr = ""
    func out(_ text: String) { stdout += text }
    func err(_ text: String) { stderr += text }
}

func runCLI(_ arguments: [String], environment: [String: String] = [:],
            stdin: [UInt8]? = nil) -> (status: Int32, out: String, err: String) {
    let output = CapturedOutput()
    let status = UnderstudyCLI.run(arguments, environment: environment, output: output, input: CapturedInput(stdin))
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

    /// Each command's help lists its own flags: `mint` the settings that change a token, `keys list`
    /// only --keys, `serve` every setting and --ready-file.
    @Test func helpListsEachCommandsOwnFlags() {
        let serve = runCLI(["serve", "--help"]).out
        for flag in ["--http <", "--public-url <", "UNDERSTUDY_PUBLIC_URL", "--ready-file <", "--mail-max-message-size <"] {
            #expect(serve.contains(flag), "\(flag)")
        }
        #expect(!serve.contains("-u-r-l") && !serve.contains("_U_R_L"))
        let mint = runCLI(["mint", "--help"]).out
        for flag in ["--keys <", "--google-issuer <", "--apple-issuer <", "--identity-seed <", "--google-web-client-id <",
                     "--apple-bundle-ids <", "--config <", "--server <", "UNDERSTUDY_KEYS", "EXIT STATUS"] {
            #expect(mint.contains(flag), "\(flag)")
        }
        for flag in ["--http <", "--smtp <", "--public-url <", "--threads <", "--mail-", "--ready-file"] {
            #expect(!mint.contains(flag), "\(flag)")
        }
        let keys = runCLI(["keys", "list", "--help"]).out
        #expect(keys.contains("--keys <") && keys.contains("--config <"))
        for flag in ["--http <", "--google-issuer <", "--mail-"] { #expect(!keys.contains(flag), "\(flag)") }
        let otp = runCLI(["otp", "--help"]).out
        #expect(otp.contains("69 server unreachable") && otp.contains("1 failure (otp, link: nothing arrived)"))
        #expect(runCLI(["send", "--help"]).out.contains("-t "))
    }

    /// Offline minting says on stderr which keys and issuer signed, and takes the server's flags
    /// and UNDERSTUDY_* variables for them; stdout holds only the token.
    @Test func mintSaysWhichKeysAndIssuerSigned() throws {
        let r = runCLI(["mint", "google", "--google-issuer", "http://127.0.0.1:7080/google"])
        #expect(r.status == 0, "\(r.err)")
        let claims = try #require(try JWS.decode(r.out.trimmingSpaces()).claims)
        #expect(claims["iss"] == "http://127.0.0.1:7080/google")
        #expect(r.err.hasPrefix("understudy: info: signed offline with google key "))
        #expect(r.err.contains("(embedded development keys), iss http://127.0.0.1:7080/google"))
        let e = runCLI(["mint", "apple"], environment: ["UNDERSTUDY_APPLE_ISSUER": "https://issuer.test"])
        #expect(try JWS.decode(e.out.trimmingSpaces()).claims?["iss"] == "https://issuer.test")
        #expect(e.err.contains("iss https://issuer.test"))
        // --help says what a mint without flags would sign with, under the variables in effect.
        let help = runCLI(["mint", "--help"], environment: ["UNDERSTUDY_GOOGLE_ISSUER": "https://g.test", "UNDERSTUDY_KEYS": "/my/keys"])
        #expect(help.out.contains("SIGNS WITH: the keys in /my/keys; apple iss https://appleid.apple.com; google iss https://g.test"))
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
        (["mint", "apple", "--nonce", "a", "--raw-nonce", "b"], "rawNonce cannot be combined with nonce: give nonce"),
        (["mint", "apple", "--kid", "nope"], "kid nope is not one of this provider's keys"),
        (["mint", "apple", "--server", "http://127.0.0.1:1", "--keys", "/k"], "drop --keys"),
        (["mint", "apple", "--server", "nowhere"], "--server must look like"),
        (["mint", "apple", "--http", "127.0.0.1:0"], "unknown option --http for 'understudy mint'"),
        (["keys", "list", "--google-issuer", "x"], "unknown option --google-issuer"),
        (["send", "-t", "--smtp", "127.0.0.1:1"], "standard input has no headers"),
        (["send", "--smtp", "127.0.0.1:1"], "name a recipient"),
        (["serve", "extra"], "serve takes no arguments"),
        (["keys", "generate"], "understudy keys generate --out"),
        (["keys", "spin"], "unknown keys subcommand"),
        (["keys", "rotate"], "name the provider"),
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
        // Minting with the new folder signs with one of its keys, by flag or by variable, and says so.
        let m = runCLI(["mint", "google", "--keys", dir, "--json"])
        let kid = try JSONValue.parse(m.out.trimmingSpaces())["header"]?["kid"]?.stringValue
        #expect(rows.contains { $0[1] == Substring(kid ?? "") })
        #expect(m.err.contains("key \(kid ?? "-") (from \(dir))"))
        let v = runCLI(["mint", "apple", "--json"], environment: ["UNDERSTUDY_KEYS": dir])
        let appleKid = try JSONValue.parse(v.out.trimmingSpaces())["header"]?["kid"]?.stringValue
        #expect(rows.contains { $0[0] == "apple" && $0[1] == Substring(appleKid ?? "") })
        #expect(runCLI(["keys", "list", "--keys", "/nonexistent"]).status == 1)
    }

    @Test func embeddedKeysAreListed() {
        let l = runCLI(["keys", "list"])
        #expect(l.status == 0)
        #expect(l.out.split(separator: "\n").count == 6)
    }
}
