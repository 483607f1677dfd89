/// A provider key with its state and when it was made.
public struct ManagedKey: Sendable {
    public var key: ProviderKey
    public var state: KeyState
    public var created: Int64

    public init(key: ProviderKey, state: KeyState, created: Int64) {
        self.key = key
        self.state = state
        self.created = created
    }
}
