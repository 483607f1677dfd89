#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import UnderstudyApp

/// A file in a fresh temporary folder, removed by the caller.
func temporaryFile(_ name: String, _ contents: String) -> String {
    var template = Array("/tmp/understudy-test-XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    let path = dir + "/" + name
    try! FileIO.write(Array(contents.utf8), to: path)
    return path
}

@Suite struct ConfigurationTests {
    @Test func embeddedDefaults() throws {
        let c = try Configuration.load(configFile: nil, environment: [:], flags: [:])
        #expect(c.http == "127.0.0.1:7080")
        #expect(c.smtp == "127.0.0.1:7025")
        #expect(c.dataPath == nil)
        #expect(c.providers.apple.issuer == "https://appleid.apple.com")
        #expect(c.providers.google.issuer == "https://accounts.google.com")
        #expect(c.providers.apple.tokenLifetime == 600)
        #expect(c.providers.google.tokenLifetime == 3600)
        #expect(c.providers.identities.first?.email == "alice@example.com")
        #expect(c.mail.maxMessages == 5000)
    }

    @Test func precedenceIsFileThenEnvironmentThenFlags() throws {
        let file = temporaryFile("c.json", #"{"http": "127.0.0.1:1111", "apple": {"teamId": "FILETEAM01"}, "mail": {"maxMessages": 7}}"#)
        var c = try Configuration.load(configFile: file, environment: [:], flags: [:])
        #expect(c.http == "127.0.0.1:1111" && c.providers.apple.teamID == "FILETEAM01" && c.mail.maxMessages == 7)
        // Untouched keys keep their defaults.
        #expect(c.providers.apple.bundleIDs == ["com.example.app"])
        c = try Configuration.load(configFile: file, environment: ["UNDERSTUDY_HTTP": "127.0.0.1:2222", "UNDERSTUDY_APPLE_TEAM_ID": "ENVTEAM001"], flags: [:])
        #expect(c.http == "127.0.0.1:2222" && c.providers.apple.teamID == "ENVTEAM001")
        c = try Configuration.load(configFile: file, environment: ["UNDERSTUDY_HTTP": "127.0.0.1:2222"],
                                   flags: ["--http": "127.0.0.1:3333", "--apple-bundle-ids": "a.b, c.d", "--apple-shuffle-keys": "false"])
        #expect(c.http == "127.0.0.1:3333")
        #expect(c.providers.apple.bundleIDs == ["a.b", "c.d"])
        #expect(c.providers.apple.shuffleKeys == false)
        c = try Configuration.load(configFile: nil, environment: [:], flags: ["--max-messages": "42"])
        #expect(c.mail.maxMessages == 42)
        // UNDERSTUDY_CONFIG names the file when --config does not.
        c = try Configuration.load(configFile: nil, environment: ["UNDERSTUDY_CONFIG": file], flags: [:])
        #expect(c.http == "127.0.0.1:1111")
    }

    @Test(arguments: [
        (#"{"htp": "127.0.0.1:1"}"#, "unknown setting 'htp'; did you mean http?"),
        (#"{"apple": {"teamID": "X"}}"#, "unknown setting 'apple.teamID'; did you mean apple.teamId?"),
        (#"{"apple": {"tokenLifetime": "600"}}"#, "'apple.tokenLifetime' must be a whole number"),
        (#"{"apple": {"tokenLifetime": -1}}"#, "'apple.tokenLifetime' must be a whole number from 1"),
        (#"{"apple": 5}"#, "'apple' must be an object"),
        (#"{"apple": {"booleanStyle": "yes"}}"#, "'apple.booleanStyle' must be one of string, bool"),
        (#"{"http": "nonsense"}"#, "'http' must be host:port"),
        (#"{"identities": [{"name": "no email"}]}"#, "'identities[0].email' is required"),
        (#"{"mail": {"username": "u"}}"#, "'mail.username' and mail.password must be set together"),
        (#"{"http": "#, "invalid JSON"),
        (#"[]"#, "must be a JSON object"),
    ])
    func fileErrorsNameTheKey(_ contents: String, _ expected: String) {
        let file = temporaryFile("bad.json", contents)
        do {
            _ = try Configuration.load(configFile: file, environment: [:], flags: [:])
            Issue.record("expected an error for \(contents)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test func environmentAndFlagErrorsNameTheirSource() {
        #expect(throws: ConfigurationError.self) {
            try Configuration.load(configFile: nil, environment: ["UNDERSTUDY_MAIL_MAX_MESSAGES": "lots"], flags: [:])
        }
        do {
            _ = try Configuration.load(configFile: nil, environment: [:], flags: ["--apple-team": "X"])
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("did you mean --apple-team-id?"))
        }
        #expect(throws: ConfigurationError.self) { try Configuration.load(configFile: "/nonexistent/understudy.json", environment: [:], flags: [:]) }
    }

    @Test func namesDerivedFromTheTable() {
        let spec = SettingSpec("google.webClientId", .string, "x")
        #expect(spec.flag == "--google-web-client-id")
        #expect(spec.environmentVariable == "UNDERSTUDY_GOOGLE_WEB_CLIENT_ID")
        // A run of capitals is one word, wherever it stands.
        for (key, flag, variable) in [("publicURL", "--public-url", "UNDERSTUDY_PUBLIC_URL"),
                                      ("mail.smtpURLPath", "--mail-smtp-url-path", "UNDERSTUDY_MAIL_SMTP_URL_PATH"),
                                      ("apple.teamId", "--apple-team-id", "UNDERSTUDY_APPLE_TEAM_ID")] {
            let s = SettingSpec(key, .string, "x")
            #expect(s.flag == flag)
            #expect(s.environmentVariable == variable)
        }
        #expect(Configuration.spec(forFlag: "--public-url")?.key == "publicURL")
        #expect(throws: Never.self) {
            let c = try Configuration.load(configFile: nil, environment: ["UNDERSTUDY_PUBLIC_URL": "http://a:1"], flags: [:])
            #expect(c.publicURL == "http://a:1")
        }
        // Every flag and variable is unique.
        #expect(Set(Configuration.settings.map(\.flag)).count == Configuration.settings.count)
    }

    @Test func listenAddresses() {
        #expect(ListenAddress("127.0.0.1:0") == ListenAddress("127.0.0.1:0"))
        #expect(ListenAddress("[::1]:7080")?.host == "::1")
        #expect(ListenAddress(":25")?.host == "127.0.0.1")
        #expect(ListenAddress("localhost:99999") == nil)
        #expect(ListenAddress("host") == nil)
    }
}

/// The binary embeds Config/ and Keys/ so it runs from any directory; this keeps the copies in step.
@Test func embeddedDefaultsMatchTheFiles() throws {
    let root = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/"))
    let config = try FileIO.readString(root + "/Config/understudy.json")
    #expect(config.hasPrefix(EmbeddedDefaults.configuration), "run Tests/Scripts/embed-defaults.sh")
    for (provider, embedded) in [("apple", EmbeddedDefaults.appleKeys), ("google", EmbeddedDefaults.googleKeys)] {
        let files = try FileIO.list(root + "/Keys/" + provider).filter { $0.hasSuffix(".pem") }
        #expect(files.map { String($0.dropLast(4)) } == embedded.map(\.kid), "run Tests/Scripts/embed-defaults.sh")
        for (kid, pem) in embedded {
            let file = try FileIO.readString(root + "/Keys/\(provider)/\(kid).pem")
            #expect(file.hasPrefix(pem), "run Tests/Scripts/embed-defaults.sh")
        }
    }
}
