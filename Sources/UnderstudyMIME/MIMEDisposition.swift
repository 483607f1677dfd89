import Glibc

/// How a part asks to be shown (Content-Disposition).
public enum MIMEDisposition: String, Sendable, Hashable {
    case inline, attachment
}
