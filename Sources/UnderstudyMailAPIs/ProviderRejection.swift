import UnderstudyHTTP

/// A request the provider would refuse, answered in the provider's own error shape.
struct ProviderRejection: Error {
    var response: HTTPResponse
}
