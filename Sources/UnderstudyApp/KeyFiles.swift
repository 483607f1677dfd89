import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyProviders

/// Rotated keys kept beside the store (`<data>-keys/`): `apple/<kid>.pem`, `google/<kid>.pem` and
/// `keys.json` with each key's state. Once it exists it supersedes the configured keys, for `serve`
/// and for the offline commands given the same `--data`.
struct KeyFiles {
    let directory: String

    init?(_ configuration: Configuration) {
        guard let data = configuration.dataPath else { return nil }
        directory = data + "-keys"
    }

    var stateFile: String { directory + "/keys.json" }
    var exists: Bool { FileIO.exists(stateFile) }

    /// The persisted sets, or nil when nothing was rotated yet.
    func load() throws -> (apple: ProviderKeySet, google: ProviderKeySet)? {
        guard exists else { return nil }
        let state: JSONValue
        do {
            state = try JSONValue.parse(try FileIO.read(stateFile, limit: 1 << 20))
        } catch {
            throw ConfigurationError.invalid("data", "rotated keys in \(stateFile) cannot be read (\(error)); move \(directory) away to start from the configured keys")
        }
        func set(_ provider: ProviderName) throws -> ProviderKeySet {
            guard let rows = state[provider.rawValue]?.arrayValue, !rows.isEmpty else {
                throw ConfigurationError.invalid("data", "\(stateFile) lists no \(provider.rawValue) keys; move \(directory) away to start from the configured keys")
            }
            var managed: [ManagedKey] = []
            for row in rows {
                guard let kid = row["kid"]?.stringValue, kid.allSatisfy({ $0.isLetter || $0.isNumber }),
                      let stateName = row["state"]?.stringValue else {
                    throw ConfigurationError.invalid("data", "\(stateFile) has a \(provider.rawValue) key without a kid or state")
                }
                let path = "\(directory)/\(provider.rawValue)/\(kid).pem"
                let key: JWS.RS256.PrivateKey
                do { key = try JWS.RS256.PrivateKey(pemRepresentation: try FileIO.readString(path, limit: 64 * 1024)) } catch {
                    throw ConfigurationError.invalid("data", "rotated key \(path) cannot be read: \(error)")
                }
                let at = row["until"]?.intValue ?? row["since"]?.intValue ?? 0
                let keyState: KeyState
                switch stateName {
                case "active": keyState = .active
                case "published": keyState = .published
                case "grace": keyState = .grace(until: at)
                default: keyState = .retired(since: at)
                }
                managed.append(ManagedKey(key: ProviderKey(kid: kid, privateKey: key), state: keyState, created: row["created"]?.intValue ?? 0))
            }
            guard managed.contains(where: { $0.state == .active }) else {
                throw ConfigurationError.invalid("data", "\(stateFile) has no active \(provider.rawValue) key")
            }
            return ProviderKeySet(managed: managed)
        }
        return (try set(.apple), try set(.google))
    }

    /// Writes both sets: the new PEMs first, then the state file that names them.
    func save(apple: ProviderKeySet, google: ProviderKeySet) throws {
        var state = JSONObject()
        for (provider, set) in [(ProviderName.apple, apple), (.google, google)] {
            let folder = directory + "/" + provider.rawValue
            try FileIO.makeDirectory(folder)
            var rows: [JSONValue] = []
            for managed in set.keys {
                let path = "\(folder)/\(managed.key.kid).pem"
                if !FileIO.exists(path) { try FileIO.write(Array(managed.key.privateKey.pemRepresentation.utf8), to: path, mode: 0o600) }
                var row: JSONObject = ["kid": .string(managed.key.kid), "state": .string(managed.state.name), "created": .integer(managed.created)]
                switch managed.state {
                case .grace(let until): row["until"] = .integer(until)
                case .retired(let since): row["since"] = .integer(since)
                default: break
                }
                rows.append(.object(row))
            }
            state[provider.rawValue] = .array(rows)
        }
        try FileIO.write(Array(JSONValue.object(state).serialized().utf8), to: stateFile, mode: 0o600)
    }
}
