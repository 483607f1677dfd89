/// What `Extractor` found in one message: one-time codes (best first) and links (in order of appearance).
public struct Extraction: Sendable, Hashable {
    public var codes: [ExtractedCode]
    public var links: [ExtractedLink]

    public init(codes: [ExtractedCode] = [], links: [ExtractedLink] = []) {
        self.codes = codes
        self.links = links
    }

    /// The most likely one-time code, if any.
    public var bestCode: ExtractedCode? { codes.first }

    /// The first link with the given purpose, if any.
    public func firstLink(_ purpose: LinkPurpose) -> ExtractedLink? {
        links.first { $0.purpose == purpose }
    }
}

/// Which part of the message a code was read from.
public enum CodeSource: String, Sendable, Hashable, CaseIterable {
    case subject
    case text
    case html
}

/// A one-time code candidate.
public struct ExtractedCode: Sendable, Hashable {
    /// The code without separators (`D2KQ7XHP` for `D2KQ-7XHP`, `641028` for `641 028`).
    public var value: String
    /// The code as written in the message.
    public var raw: String
    /// Relative score; higher is more likely. Announced codes score 40 and more.
    public var score: Int
    /// The part of the message the best occurrence came from.
    public var source: CodeSource

    public init(value: String, raw: String, score: Int, source: CodeSource) {
        self.value = value
        self.raw = raw
        self.score = score
        self.source = source
    }

    /// `score` mapped onto 0...1.
    public var confidence: Double { Double(min(max(score, 0), 100)) / 100 }
}

/// A run of a message that looked like a code but was not taken, and why
/// (`Extractor.rejectedCandidates`): "looks like a year", "no announcing word"...
public struct RejectedCode: Sendable, Hashable {
    /// The run as written in the message.
    public var raw: String
    /// Why it is not a code, in words for a person.
    public var reason: String
    public var source: CodeSource

    public init(raw: String, reason: String, source: CodeSource) {
        self.raw = raw
        self.reason = reason
        self.source = source
    }
}

/// What a link in a message is for.
public enum LinkPurpose: String, Sendable, Hashable, CaseIterable {
    case verifyEmail = "verify-email"
    case magicLink = "magic-link"
    case resetPassword = "reset-password"
    case unsubscribe
    case other
}

/// An http(s) link found in a message.
public struct ExtractedLink: Sendable, Hashable {
    /// The URL with HTML entities decoded.
    public var url: String
    /// The visible anchor text, whitespace collapsed; nil for bare URLs in plain text.
    public var text: String?
    public var purpose: LinkPurpose

    public init(url: String, text: String?, purpose: LinkPurpose) {
        self.url = url
        self.text = text
        self.purpose = purpose
    }
}
