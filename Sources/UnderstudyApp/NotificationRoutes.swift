import UnderstudyHTTP
import UnderstudyJSON
import UnderstudyProviders

/// `POST /api/apple/notifications`: sign an Apple server-to-server notification and deliver it to the app.
enum NotificationRoutes {
    static func register(on router: inout Router, providers: ProviderRoutes, clock: @escaping UnixClock) {
        // Signing and a blocking POST to the app: on the worker pool.
        router.add(.post, "/api/apple/notifications") { request, _ in
            .blocking { .response(deliver(request, providers: providers, clock: clock)) }
        }
    }

    static func deliver(_ request: HTTPRequest, providers: ProviderRoutes, clock: UnixClock) -> HTTPResponse {
        let body: JSONValue
        do { body = try request.jsonBody() } catch { return error.response }
        let notification: AppleNotification
        do { notification = try AppleNotification(json: body) } catch {
            return .problem(.badRequest, error: "invalid_request", message: error.message)
        }
        do {
            return .json(try NotificationSender(apple: providers.apple, now: clock()).send(notification))
        } catch let error as UsageError {
            return .problem(.badGateway, error: "delivery_failed", message: error.description)
        } catch {
            return .problem(.internalServerError, error: "notification_failed", message: "\(error)")
        }
    }
}
