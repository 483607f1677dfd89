import UnderstudyHTTP
import UnderstudyHTTPServer
import UnderstudyJSON
import UnderstudyProviders

/// `POST /api/apple/notifications`: sign an Apple server-to-server notification and deliver it to the app.
enum NotificationRoutes {
    static func register(on router: inout Router, providers: ProviderRoutes, loops: OutboundLoops, clock: @escaping UnixClock) {
        // Signing on the worker pool; then the POST to the app on a loop (resolve, connect and read
        // without blocking), answered when the app answers.
        router.add(.post, "/api/apple/notifications") { request, _ in
            .blocking { deliver(request, providers: providers, loops: loops, clock: clock) }
        }
    }

    static func deliver(_ request: HTTPRequest, providers: ProviderRoutes, loops: OutboundLoops, clock: UnixClock) -> HTTPReply {
        let body: JSONValue
        do { body = try request.jsonBody() } catch { return .response(error.response) }
        let notification: AppleNotification
        do { notification = try AppleNotification(json: body) } catch {
            return .response(.problem(.badRequest, error: "invalid_request", message: error.message))
        }
        let sender = NotificationSender(apple: providers.apple, now: clock())
        guard let loop = loops.next() else { return .response(sendBlocking(sender, notification)) }
        let prepared: NotificationSender.Prepared
        do { prepared = try sender.prepare(notification) } catch {
            return .response(.problem(.badRequest, error: "invalid_request", message: "\(error)"))
        }
        return .deferred { promise in
            HTTPClient.send(method: "POST", host: prepared.host, port: prepared.port, target: prepared.path,
                            headers: [("Content-Type", "application/json")], body: prepared.body, on: loop,
                            maximumBody: 1 << 20) { result in
                switch result {
                case .success(let response):
                    promise.succeed(.json(NotificationSender.report(prepared, status: response.status.code, body: response.body)))
                case .failure(let failure):
                    promise.succeed(.problem(.badGateway, error: "delivery_failed",
                                             message: "could not deliver the notification to \(prepared.url): \(failure)"))
                }
            }
        }
    }

    static func sendBlocking(_ sender: NotificationSender, _ notification: AppleNotification) -> HTTPResponse {
        do {
            return .json(try sender.send(notification))
        } catch let error as UsageError {
            return .problem(.badGateway, error: "delivery_failed", message: error.description)
        } catch {
            return .problem(.internalServerError, error: "notification_failed", message: "\(error)")
        }
    }
}
