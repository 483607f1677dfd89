import Testing
#if canImport(Glibc)
import Glibc
#endif
import UnderstudyJOSE
import UnderstudyProviders
@testable import UnderstudyApp

@Suite struct KeyFilesTests {
    @Test func rotatedSetsRoundTripWithTheirStates() throws {
        var template = [CChar]("/tmp/understudy-keyfiles-XXXXXX".utf8CString)
        let dir = String(cString: try #require(mkdtemp(&template)))
        defer { _ = try? ProcessRunner.run("rm -rf '\(dir)'", timeout: 30) }
        var configuration = Configuration()
        configuration.dataPath = dir + "/store"
        let files = try #require(KeyFiles(configuration))
        #expect(try files.load() == nil, "nothing rotated yet")
        let keys = (0..<2).map { ProviderKey(kid: "KEY0\($0)", privateKey: try! JWS.RS256.PrivateKey()) }
        var apple = ProviderKeySet(keys: [keys[0]], created: 10)
        apple.rotate(to: keys[1], now: 20, grace: 100)
        var google = ProviderKeySet(keys: [keys[0]], created: 10)
        google.rotate(to: keys[1], now: 20, grace: 0)
        try files.save(apple: apple, google: google)
        let loaded = try #require(try files.load())
        #expect(loaded.apple.listed.map(\.state) == [.active, .grace(until: 120)])
        #expect(loaded.google.listed.map(\.state) == [.active, .retired(since: 20)])
        #expect(loaded.apple.active.kid == "KEY01" && loaded.apple.active.privateKey.publicKey.hasSameKey(as: keys[1].privateKey.publicKey))
    }
}
