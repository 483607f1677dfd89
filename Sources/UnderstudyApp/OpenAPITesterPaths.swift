import UnderstudyJSON

/// The routes for testers: scenarios, keys and rotation, faults, the inspector, Apple's notifications.
extension OpenAPIDocument {
    static var providerParameter: JSONValue {
        parameter("provider", in: "path", "apple or google", schema: ["type": "string", "enum": ["apple", "google"]])
    }

    static var testerPaths: JSONObject {
        [
            "/api/scenarios": [
                "get": [
                    "summary": "The token scenarios, each with its expected verdict and reason", "operationId": "listScenarios",
                    "parameters": [parameter("provider", in: "query", "Only scenarios for apple or google"),
                                   parameter("profile", in: "query", "Add this verifier profile's verdict (needs provider)")],
                    "responses": ["200": json("Scenarios and profiles", ["type": "object"]), "400": problem("Unknown provider or profile")],
                ],
            ],
            "/api/keys": [
                "get": ["summary": "Every signing key with its state (active, published, grace, retired)", "operationId": "listKeys",
                        "responses": ["200": json("Keys by provider", ["type": "object"])]],
            ],
            "/api/keys/{provider}/rotate": [
                "post": [
                    "summary": "Make a new active key; the previous one stays published for tokens.rotationGrace seconds",
                    "operationId": "rotateKey", "parameters": [providerParameter],
                    "responses": ["200": json("The new and the previous kid", ["type": "object"]), "404": problem("Unknown provider")],
                ],
            ],
        ]
    }
}
