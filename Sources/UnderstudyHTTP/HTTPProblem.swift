/// An error that is an answer: what a handler throws when the request gets `response`
/// (a 400 naming the parameter, a 404 naming the id...).
public struct HTTPProblem: Error {
    public var response: HTTPResponse

    public init(response: HTTPResponse) {
        self.response = response
    }
}
