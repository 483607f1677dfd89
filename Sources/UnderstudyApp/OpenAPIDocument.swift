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
            "/api/messages": [
                "get": [
                    "summary": "List messages, newest first", "operationId": "listMessages",
                    "parameters": [
                        parameter("to", in: "query", "Only messages to this address (envelope, To or Cc)"),
                        parameter("from", in: "query", "Only messages from this address"),
                        parameter("subject", in: "query", "Subject contains this text"),
                        parameter("q", in: "query", "Full-text search over subject, addresses and text"),
                        parameter("after", in: "query", "Only messages after this message id or RFC 3339 time"),
                        parameter("limit", in: "query", "Page size, 1-1000 (default 50)", schema: ["type": "integer"]),
                        parameter("offset", in: "query", "Messages to skip", schema: ["type": "integer"]),
                    ],
                    "responses": ["200": json("A page of summaries", ["$ref": "#/components/schemas/MessageList"]),
                                  "400": problem("A parameter is invalid")],
                ],
                "delete": ["summary": "Delete every message", "operationId": "deleteMessages",
                           "responses": ["200": json("How many were deleted", ["type": "object", "properties": ["deleted": ["type": "integer"]]])]],
            ],
            "/api/messages/{id}": [
                "get": ["summary": "One decoded message", "operationId": "getMessage",
                        "parameters": [parameter("id", in: "path", "Message id")],
                        "responses": ["200": json("The message", ["$ref": "#/components/schemas/Message"]), "404": problem("No such message")]],
                "delete": ["summary": "Delete one message", "operationId": "deleteMessage",
                           "parameters": [parameter("id", in: "path", "Message id")],
                           "responses": ["204": ["description": "Deleted"], "404": problem("No such message")]],
            ],
            "/api/messages/{id}/raw": [
                "get": ["summary": "The message exactly as received", "operationId": "getRawMessage",
                        "parameters": [parameter("id", in: "path", "Message id")],
                        "responses": ["200": ["description": "RFC 5322 bytes", "content": ["message/rfc822": ["schema": ["type": "string"]]]],
                                      "404": problem("No such message")]],
            ],
            "/api/messages/{id}/parts/{n}": [
                "get": ["summary": "One MIME part, decoded", "operationId": "getMessagePart",
                        "parameters": [parameter("id", in: "path", "Message id"), parameter("n", in: "path", "Part number, IMAP style: 1, 2.1"),
                                       parameter("view", in: "query", "1: show an HTML/SVG/XML part inline (still sandboxed) instead of as an attachment"),
                                       parameter("images", in: "query", "1: let a viewed part load images")],
                        "responses": ["200": ["description": "The part's bytes with its content type, under a sandbox Content-Security-Policy"],
                                      "404": problem("No such message or part")]],
            ],
            "/api/otp": [
                "get": [
                    "summary": "The newest one-time code sent to an address, waiting for it", "operationId": "waitForCode",
                    "parameters": [
                        parameter("to", in: "query", "Recipient address", required: true),
                        parameter("wait", in: "query", "Seconds to wait when none is there yet (0-300, default 0)", schema: ["type": "integer"]),
                        parameter("after", in: "query", "Only messages after this message id or RFC 3339 time"),
                    ],
                    "responses": [
                        "200": json("The code", ["type": "object", "properties": [
                            "code": ["type": "string"], "messageId": ["type": "string"], "subject": ["type": ["string", "null"]],
                            "receivedAt": ["type": "string", "format": "date-time"]]]),
                        "400": problem("A parameter is invalid"),
                        "404": problem("Nothing arrived within the wait"),
                    ],
                ],
            ],
            "/api/links": [
                "get": [
                    "summary": "The newest link sent to an address, waiting for it", "operationId": "waitForLink",
                    "parameters": [
                        parameter("to", in: "query", "Recipient address", required: true),
                        parameter("purpose", in: "query", "verify-email, magic-link, reset-password, unsubscribe or other",
                                  schema: ["type": "string", "enum": ["verify-email", "magic-link", "reset-password", "unsubscribe", "other"]]),
                        parameter("wait", in: "query", "Seconds to wait when none is there yet (0-300, default 0)", schema: ["type": "integer"]),
                        parameter("after", in: "query", "Only messages after this message id or RFC 3339 time"),
                    ],
                    "responses": [
                        "200": json("The link", ["type": "object", "properties": [
                            "url": ["type": "string"], "text": ["type": ["string", "null"]], "purpose": ["type": "string"],
                            "messageId": ["type": "string"]]]),
                        "400": problem("A parameter is invalid"),
                        "404": problem("Nothing arrived within the wait"),
                    ],
                ],
            ],
            "/api/events": [
                "get": ["summary": "Server-sent events: message, deleted, cleared", "operationId": "events",
                        "responses": ["200": ["description": "An event stream", "content": ["text/event-stream": ["schema": ["type": "string"]]]]]],
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
            "components": ["schemas": [
                "Problem": [
                    "type": "object",
                    "properties": ["error": ["type": "string"], "message": ["type": "string"]],
                    "required": ["error", "message"],
                ],
                "MessageSummary": [
                    "type": "object",
                    "properties": [
                        "id": ["type": "string"], "messageId": ["type": ["string", "null"]], "from": ["type": ["string", "null"]],
                        "to": ["type": "array", "items": ["type": "string"]], "cc": ["type": "array", "items": ["type": "string"]],
                        "subject": ["type": ["string", "null"]], "receivedAt": ["type": "string", "format": "date-time"],
                        "size": ["type": "integer"], "snippet": ["type": "string"],
                        "codes": ["type": "array", "items": ["type": "string"]], "attachments": ["type": "integer"],
                        "source": ["type": "string", "description": "smtp, or the HTTP API it came through: resend, sendgrid, postmark, mailgun, ses, mailpit"],
                    ],
                ],
                "MessageList": [
                    "type": "object",
                    "properties": ["total": ["type": "integer"],
                                   "messages": ["type": "array", "items": ["$ref": "#/components/schemas/MessageSummary"]]],
                ],
                "Message": [
                    "type": "object",
                    "properties": [
                        "id": ["type": "string"], "messageId": ["type": ["string", "null"]], "from": ["type": ["string", "null"]],
                        "fromName": ["type": ["string", "null"]], "to": ["type": "array", "items": ["type": "string"]],
                        "cc": ["type": "array", "items": ["type": "string"]], "subject": ["type": ["string", "null"]],
                        "date": ["type": ["string", "null"]], "receivedAt": ["type": "string", "format": "date-time"],
                        "headers": ["type": "object", "additionalProperties": ["type": "array", "items": ["type": "string"]]],
                        "text": ["type": ["string", "null"]], "html": ["type": ["string", "null"]],
                        "attachments": ["type": "array", "items": ["type": "object", "properties": [
                            "part": ["type": "string"], "name": ["type": ["string", "null"]], "type": ["type": "string"],
                            "size": ["type": "integer"], "contentId": ["type": ["string", "null"]], "inline": ["type": "boolean"]]]],
                        "codes": ["type": "array", "items": ["type": "string"]],
                        "links": ["type": "array", "items": ["type": "object", "properties": [
                            "url": ["type": "string"], "text": ["type": ["string", "null"]],
                            "purpose": ["type": "string", "enum": ["verify-email", "magic-link", "reset-password", "unsubscribe", "other"]]]]],
                        "source": ["type": "string", "description": "smtp, or the HTTP API it came through: resend, sendgrid, postmark, mailgun, ses, mailpit"],
                    ],
                ],
            ]],
        ]
    }
}
