import Testing
import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyProviders
import Synchronization

@Suite struct KeyRotationTests {
    static let spare = (0..<2).map { ProviderKey(kid: "SPAREKEY0\($0)", privateKey: try! JWS.RS256.PrivateKey()) }

    @Test func rotationKeepsThePreviousKeyPublishedForTheGraceThenRetiresIt() throws {
        var set = ProviderKeySet(keys: Array(ProviderFixture.appleKeys.keys.prefix(2)), created: 0)
        let first = set.active.kid
        set.rotate(to: Self.spare[0], now: 1000, grace: 60)
        #expect(set.active.kid == "SPAREKEY00")
        #expect(set.published.map(\.kid) == ["SPAREKEY00", first, ProviderFixture.appleKeys.keys[1].kid])
        #expect(set.nextTransition == 1060)
        let early = set.settle(now: 1059)
        #expect(!early && set.retired.isEmpty)
        let due = set.settle(now: 1060)
        #expect(due)
        #expect(set.retired.map(\.kid) == [first] && !set.published.contains { $0.kid == first })
        set.rotate(to: Self.spare[1], now: 2000, grace: 0)
        #expect(set.retired.map(\.kid) == [first, "SPAREKEY00"], "grace 0 retires at once")
        #expect(try set.ring().retired.count == 2)
    }

    @Test func rotationsAreBoundedInPublishedAndRetiredKeys() {
        var set = ProviderKeySet(keys: [Self.spare[0].self], created: 0)
        var n = 0
        while set.canRotate {
            n += 1
            set.rotate(to: ProviderKey(kid: "K\(n)", privateKey: Self.spare[1].privateKey), now: Int64(n), grace: 1000)
        }
        #expect(set.published.count == ProviderKeySet.publishedLimit)
        for i in 0..<40 { set.rotate(to: ProviderKey(kid: "R\(i)", privateKey: Self.spare[1].privateKey), now: 2000 + Int64(i), grace: 0) }
        set.settle(now: 10_000)
        #expect(set.retired.count == ProviderKeySet.retiredLimit && set.retired.last?.kid == "R38")
        #expect(set.active.kid == "R39")
    }

    /// A clock tests move by hand.
    final class Clock: Sendable {
        let now = Mutex<Int64>(ProviderFixture.now)
        var read: UnixClock { { [self] in now.withLock { $0 } } }
        func advance(_ s: Int64) { now.withLock { $0 += s } }
    }

    @Test func theEndpointsFollowARotationAtOnceAndAfterTheGrace() throws {
        let clock = Clock()
        var settings = ProviderSettings()
        settings.rotationGrace = 600
        settings.apple.shuffleKeys = false
        let saved = Mutex(0)
        let store = try KeyStore(settings: settings, apple: ProviderKeySet(keys: ProviderFixture.appleKeys.keys, created: 0),
                                 google: ProviderKeySet(keys: ProviderFixture.googleKeys.keys, created: 0), now: clock.read()) { _, _ in
            saved.withLock { $0 += 1 }
        }
        let routes = ProviderRoutes(keys: store, clock: clock.read)
        let before = routes.google.keyRing.kids
        let (new, previous) = try store.rotate(.google, now: clock.read())
        let savedOnce = saved.withLock { $0 }
        #expect(savedOnce == 1)
        #expect(previous.kid == before[0])
        #expect(routes.google.keyRing.kids == [new.kid] + before)
        let v1 = routes.google.certificatesDocument()
        #expect(v1[new.kid]?.stringValue?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
        let minted = try routes.mint(provider: "google", MintRequest())
        #expect(minted.header["kid"]?.stringValue == new.kid, "the new key signs at once")
        #expect(routes.keyListing()["google"]?[1]?["state"] == "grace")
        clock.advance(600)
        #expect(!routes.google.keyRing.kids.contains(previous.kid))
        #expect(routes.google.certificatesDocument()[previous.kid] == nil)
        #expect(routes.keyListing()["google"]?.arrayValue?.last?["state"] == "retired")
        let savedTwice = saved.withLock { $0 }
        #expect(savedTwice == 2, "the grace's end is persisted too")
        // The retired key now signs the signed-with-retired-key scenario.
        let retired = try routes.mintScenario(Scenario.named("signed-with-retired-key")!, provider: .google, request: MintRequest())
        #expect(retired.token.header["kid"]?.stringValue == previous.kid)
    }

    @Test func certsMaxAgeNeverOutlastsAGracePeriod() throws {
        let clock = Clock()
        var settings = ProviderSettings()
        settings.rotationGrace = 120
        let store = try KeyStore(settings: settings, apple: ProviderKeySet(keys: ProviderFixture.appleKeys.keys, created: 0),
                                 google: ProviderKeySet(keys: ProviderFixture.googleKeys.keys, created: 0), now: clock.read())
        let routes = ProviderRoutes(keys: store, clock: clock.read)
        #expect(routes.certsCacheControl().contains("max-age=21600"))
        try store.rotate(.google, now: clock.read())
        #expect(routes.certsCacheControl().contains("max-age=120,"))
    }
}
