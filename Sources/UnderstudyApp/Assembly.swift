#if canImport(Glibc)
import Glibc
#endif
import UnderstudyGrants
import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyJOSE
import UnderstudyMailAPIs
import UnderstudyMailpit
import UnderstudyProviders
import UnderstudyWebFlows
import UnderstudyWebUI

/// Builds the parts of the application from a configuration: shared by `serve` and the offline commands.
enum Assembly {
    struct Keys {
        var apple: KeyRing
        var google: KeyRing
    }

    /// The configured key folder, or the embedded development keys.
    static func loadKeys(_ configuration: Configuration) throws -> Keys {
        func ring(_ provider: String, embedded: [(kid: String, pem: String)]) throws -> KeyRing {
            var keys: [ProviderKey] = []
            if let dir = configuration.keysDirectory {
                let folder = dir + "/" + provider
                let names: [String]
                do { names = try FileIO.list(folder).filter { $0.hasSuffix(".pem") } } catch {
                    throw ConfigurationError.invalid("keys", "must be a folder with \(provider)/<kid>.pem files (\(error.description)); make one with `understudy keys generate --out \(dir)`")
                }
                guard !names.isEmpty else {
                    throw ConfigurationError.invalid("keys", "folder \(folder) has no <kid>.pem files; make one with `understudy keys generate --out \(dir)`")
                }
                for name in names {
                    let path = folder + "/" + name
                    let pem = try FileIO.readString(path, limit: 64 * 1024)
                    do {
                        keys.append(ProviderKey(kid: String(name.dropLast(4)), privateKey: try JWS.RS256.PrivateKey(pemRepresentation: pem)))
                    } catch {
                        throw ConfigurationError.invalid("keys", "file \(path) is not an RSA private key in PEM form: \(error)")
                    }
                }
            } else {
                for (kid, pem) in embedded {
                    keys.append(ProviderKey(kid: kid, privateKey: try JWS.RS256.PrivateKey(pemRepresentation: pem)))
                }
            }
            return try KeyRing(keys: keys)
        }
        return Keys(apple: try ring("apple", embedded: EmbeddedDefaults.appleKeys),
                    google: try ring("google", embedded: EmbeddedDefaults.googleKeys))
    }

    static func providerRoutes(_ configuration: Configuration,
                               clock: @escaping UnixClock = systemUnixClock) throws -> ProviderRoutes {
        var settings = configuration.providers
        settings.publicURL = configuration.normalizedPublicURL
        let now = clock()
        let files = KeyFiles(configuration)
        let sets: (apple: ProviderKeySet, google: ProviderKeySet)
        if let persisted = try files?.load() {
            sets = persisted
        } else {
            let keys = try loadKeys(configuration)
            sets = (ProviderKeySet(keys: keys.apple.keys, created: now), ProviderKeySet(keys: keys.google.keys, created: now))
        }
        let store = try KeyStore(settings: settings, apple: sets.apple, google: sets.google, now: now) { apple, google in
            guard let files else { return }
            do { try files.save(apple: apple, google: google) } catch {
                Logger(output: StandardOutput()).error("cannot save the rotated keys in \(files.directory): \(error); they last until the server stops")
            }
        }
        return ProviderRoutes(keys: store, clock: clock)
    }

    /// Every HTTP route of the server.
    @discardableResult
    static func registerRoutes(on router: inout Router, configuration: Configuration, inbox: Inbox, grants: GrantStore,
                               faults: FaultBoard = FaultBoard(), loops: OutboundLoops = OutboundLoops(),
                               clock: @escaping UnixClock = systemUnixClock,
                               listening: ListenInfo = ListenInfo()) throws -> ProviderRoutes {
        var providers = try providerRoutes(configuration, clock: clock)
        let current = providers
        let flows = WebFlowRoutes(apple: { current.apple }, google: { current.google }, grants: grants,
                                  settings: configuration.signIn, clock: clock)
        providers.accessTokenInfo = { flows.accessTokenInfo($0) }
        providers.register(on: &router)
        flows.register(on: &router)
        FaultRoutes(board: faults, clock: clock).register(on: &router)
        NotificationRoutes.register(on: &router, providers: providers, loops: loops, clock: clock)
        InboxRoutes(inbox: inbox).register(on: &router)
        MailpitRoutes(inbox: inbox, version: "understudy \(UnderstudyCLI.version)", clock: inbox.clock).register(on: &router)
        EmailAPIRoutes(inbox: inbox, apiKey: configuration.mail.apiKey, clock: inbox.clock).register(on: &router)
        SystemRoutes.register(on: &router)
        SystemRoutes.registerInfo(on: &router, configuration: configuration, listening: listening)
        WebUI().register(on: &router)
        return providers
    }

    /// The configured faults, their durations counted from `now`.
    static func faultBoard(_ configuration: Configuration, now: Int64) -> FaultBoard {
        FaultBoard(configuration.faults.compactMap { try? Fault(json: $0, now: now) })
    }

}
