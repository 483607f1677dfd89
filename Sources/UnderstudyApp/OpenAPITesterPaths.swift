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
            "/api/tokens/inspect": [
                "post": [
                    "summary": "Take a token apart: header, claims, times, key, signature, time status, nonce, scenario",
                    "operationId": "inspectToken",
                    "requestBody": ["required": true, "content": ["application/json": ["schema": [
                        "type": "object", "required": ["token"],
                        "properties": ["token": ["type": "string"], "rawNonce": ["type": "string"]]]]]],
                    "responses": ["200": json("The report", ["type": "object"]),
                                  "400": problem("Not a compact JWS; the message says what is wrong")],
                ],
            ],
            "/api/apple/notifications": [
                "post": [
                    "summary": "Sign an Apple server-to-server notification and POST it to the app as {\"payload\": jwt}",
                    "operationId": "sendAppleNotification",
                    "requestBody": ["required": true, "content": ["application/json": ["schema": [
                        "type": "object", "required": ["type", "url"],
                        "properties": [
                            "type": ["type": "string", "enum": ["email-disabled", "email-enabled", "consent-revoked", "account-delete"]],
                            "email": ["type": "string"], "sub": ["type": "string"], "aud": ["type": "string"],
                            "url": ["type": "string", "description": "The app's endpoint, http://host:port/path"],
                        ]]]]],
                    "responses": ["200": json("The app's status and body, and the payload sent", ["type": "object"]),
                                  "400": problem("A field is invalid"), "502": problem("The app could not be reached")],
                ],
            ],
            "/api/faults": [
                "get": ["summary": "The endpoint faults in force", "operationId": "listFaults",
                        "responses": ["200": json("Faults", ["type": "object"])]],
                "post": [
                    "summary": "Make the keys, discovery or token endpoint misbehave", "operationId": "addFault",
                    "requestBody": ["required": true, "content": ["application/json": ["schema": [
                        "type": "object", "required": ["target", "fault"],
                        "properties": [
                            "target": ["type": "string", "enum": ["keys", "discovery", "token"]],
                            "fault": ["type": "string", "enum": ["500", "503", "hang", "empty-keys", "drop-key", "malformed-json"]],
                            "provider": ["type": "string", "enum": ["apple", "google"]],
                            "retryAfter": ["type": "integer"], "seconds": ["type": "integer"],
                            "count": ["type": "integer", "description": "Only the next N requests"],
                            "duration": ["type": "integer", "description": "Only for this many seconds"],
                        ]]]]],
                    "responses": ["201": json("The fault as set, with its id", ["type": "object"]), "400": problem("A field is invalid")],
                ],
                "delete": ["summary": "Clear every fault", "operationId": "clearFaults",
                           "responses": ["200": json("No faults", ["type": "object"])]],
            ],
        ]
    }
}
