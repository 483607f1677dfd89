import UnderstudyHTTP
import UnderstudyJSON

/// Health and self-description.
enum SystemRoutes {
    static func register(on router: inout Router) {
        let health = HTTPResponse.json(["status": "ok"])
        router.add(.get, "/healthz") { _, _ in .response(health) }
        let openAPI = HTTPResponse.json(OpenAPIDocument.document)
        router.add(.get, "/api/openapi.json") { _, _ in .response(openAPI) }
    }

    /// `GET /api/info`: the bound addresses, the client ids and the configured identities: what
    /// the web UI's start page shows someone pointing an app at the server.
    static func registerInfo(on router: inout Router, configuration: Configuration, listening: ListenInfo) {
        let providers = configuration.providers
        let identities: [JSONValue] = providers.identities.map { identity in
            ["email": .string(identity.email), "name": JSONValue(identity.name), "givenName": JSONValue(identity.givenName),
             "familyName": JSONValue(identity.familyName), "sub": JSONValue(identity.sub)]
        }
        let fixed: JSONValue = [
            "version": .string(UnderstudyCLI.version),
            "apple": ["issuer": .string(providers.apple.issuer), "teamId": .string(providers.apple.teamID),
                      "bundleIds": JSONValue(providers.apple.bundleIDs), "servicesIds": JSONValue(providers.apple.servicesIDs)],
            "google": ["issuer": .string(providers.google.issuer), "webClientId": .string(providers.google.webClientID),
                       "iosClientId": .string(providers.google.iosClientID),
                       "androidClientId": .string(providers.google.androidClientID)],
            "identities": .array(identities),
        ]
        router.add(.get, "/api/info") { _, _ in
            let a = listening.addresses
            var info = fixed
            info["http"] = JSONValue(a.http)
            info["https"] = JSONValue(a.https)
            info["smtp"] = JSONValue(a.smtp)
            info["smtps"] = JSONValue(a.smtps)
            info["caCertificate"] = JSONValue(a.caCertificate)
            return .response(.json(info))
        }
    }
}
