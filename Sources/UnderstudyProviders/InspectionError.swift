/// Why a token could not be inspected: what is wrong with it, and the malformed scenario it looks like.
public struct InspectionError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let scenario: String?
    public var description: String { message }
}
