/// Where a provider key is in its life: signing, published beside the signer, kept published after a
/// rotation until a time, or retired (no longer published; the inspector still knows it).
public enum KeyState: Sendable, Hashable {
    case active
    case published
    case grace(until: Int64)
    case retired(since: Int64)

    public var name: String {
        switch self {
        case .active: return "active"
        case .published: return "published"
        case .grace: return "grace"
        case .retired: return "retired"
        }
    }

    public var isPublished: Bool {
        if case .retired = self { return false }
        return true
    }
}
