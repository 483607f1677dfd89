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
}
