import UnderstudyJSON
import UnderstudyProviders

/// The OpenAPI 3.1 description of the admin API (`/api/...`), served at `/api/openapi.json`.
/// `OpenAPIDocumentTests` checks that every `/api` route is described and every described path routed.
enum OpenAPIDocument {
    static func problem(_ description: String) -> JSONValue {
        ["description": .string(description),
         "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Problem"]]]]
    }

    static func json(_ description: String, _ schema: JSONValue) -> JSONValue {
        ["description": .string(description), "content": ["application/json": ["schema": schema]]]
    }

    static func parameter(_ name: String, in location: String, _ description: String, required: Bool = false,
                          schema: JSONValue = ["type": "string"]) -> JSONValue {
        ["name": .string(name), "in": .string(location), "required": .bool(required || location == "path"),
         "description": .string(description), "schema": schema]
    }

    static var mintRequestSchema: JSONValue {
        let strings = ["aud": "Audience; a string or an array of strings. Default: the configured bundle id (Apple) or web client id (Google).",
                       "email": "Email claim. Default: the first configured identity.",
                       "sub": "Subject. Default: derived from the email and the identity seed, in the provider's shape.",
                       "nonce": "Copied into the nonce claim as is.",
                       "rawNonce": "The nonce claim gets its hex SHA-256, as native Apple clients send.",
                       "name": "Full name (Google).", "givenName": "Given name (Google).", "familyName": "Family name (Google).",
                       "picture": "Picture URL (Google).", "azp": "Authorized party (Google).", "hd": "Hosted domain (Google Workspace).",
                       "locale": "Locale (Google).", "kid": "Sign with this key id."]
        var properties = JSONObject()
        for name in MintRequest.fieldNames {
            if let d = strings[name] {
                properties[name] = name == "aud"
                    ? ["description": .string(d), "oneOf": [["type": "string"], ["type": "array", "items": ["type": "string"]]]]
                    : ["type": "string", "description": .string(d)]
            }
        }
        properties["platform"] = ["type": "string", "enum": ["web", "ios", "android"], "description": "Picks aud and azp from the configured client ids."]
        properties["emailVerified"] = ["type": "boolean", "default": true]
        properties["isPrivateEmail"] = ["type": "boolean", "description": "Apple; default true for @privaterelay.appleid.com addresses."]
        properties["realUserStatus"] = ["type": "integer", "minimum": 0, "maximum": 2, "description": "Apple real_user_status."]
        properties["ttl"] = ["type": "integer", "minimum": 1, "maximum": .integer(MintRequest.maximumTTL), "description": "Lifetime in seconds."]
        properties["claims"] = ["type": "object", "description": "Extra or overriding claims, applied last."]
        return ["type": "object", "additionalProperties": false, "properties": .object(properties)]
    }

    static var paths: JSONObject {
        [
            "/api/tokens/{provider}": [
                "post": [
                    "summary": "Mint a signed ID token",
                    "operationId": "mintToken",
                    "parameters": [parameter("provider", in: "path", "apple or google", schema: ["type": "string", "enum": ["apple", "google"]])],
                    "requestBody": ["required": true, "content": ["application/json": ["schema": mintRequestSchema]]],
                    "responses": [
                        "200": json("The token and its decoded parts", [
                            "type": "object",
                            "properties": ["idToken": ["type": "string"], "header": ["type": "object"], "claims": ["type": "object"]],
                            "required": ["idToken", "header", "claims"],
                        ]),
                        "400": problem("A field is invalid; the message names it"),
                        "404": problem("Unknown provider"),
                        "415": problem("The body is not JSON"),
                    ],
                ],
            ],
            "/api/openapi.json": [
                "get": ["summary": "This document", "operationId": "openAPI",
                        "responses": ["200": json("OpenAPI 3.1 document", ["type": "object"])]],
            ],
        ]
    }

    static var document: JSONValue {
        [
            "openapi": "3.1.0",
            "info": ["title": "Understudy admin API", "version": .string(UnderstudyCLI.version),
                     "description": "Mint ID tokens and read the mail sink. Errors are JSON problems {error, message}."],
            "paths": .object(paths),
            "components": ["schemas": ["Problem": [
                "type": "object",
                "properties": ["error": ["type": "string"], "message": ["type": "string"]],
                "required": ["error", "message"],
            ]]],
        ]
    }
}
