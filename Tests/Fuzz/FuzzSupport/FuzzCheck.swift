/// Differential checks: a mismatch traps, so libFuzzer reports the input as a crash.
public enum FuzzCheck {
    /// Traps when the transcript of feeding `variant` differs from that of feeding the input whole.
    public static func same<T: Equatable>(_ whole: T, _ other: T, _ variant: String) {
        guard whole != other else { return }
        fatalError("""
            differential mismatch: fed \(variant), the parser did not do what it did with the input whole
            whole:  \(excerpt(whole))
            \(variant): \(excerpt(other))
            """)
    }

    /// Traps with `message` unless `condition` holds.
    public static func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("invariant broken: \(message())") }
    }

    private static func excerpt(_ value: some Any) -> String {
        let text = String(describing: value)
        return text.count > 2000 ? String(text.prefix(2000)) + "..." : text
    }
}
