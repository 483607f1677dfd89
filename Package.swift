// swift-tools-version:6.0
// Understudy: a local stand-in for Sign in with Apple, Google Sign-In and the mail server.
// Modules follow the dependency direction (lowest first):
//   C libraries -> I/O -> protocol cores -> features -> app assembly -> executable.
import PackageDescription

let package = Package(
    name: "Understudy",
    products: [
        .executable(name: "understudy", targets: ["understudy"]),
    ],
    targets: [
        // MARK: C libraries
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        // Linux headers Glibc does not export: epoll, eventfd, timerfd, signalfd, iconv.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        // Real C functions for macros Swift cannot import (OpenSSL, SQLite, errno).
        .target(name: "CShims", path: "Sources/CShims",
                linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto"), .linkedLibrary("sqlite3")]),

        // MARK: Foundations with no I/O
        .target(name: "UnderstudyJSON", path: "Sources/UnderstudyJSON"),

        // MARK: I/O (event loop, sockets, TLS)
        .target(name: "UnderstudyIO", dependencies: ["CLinux", "CShims"], path: "Sources/UnderstudyIO"),
        // TLS over memory buffers (OpenSSL 3): bytes in, bytes out, no sockets.
        .target(name: "UnderstudyTLS", dependencies: ["COpenSSL", "CShims"], path: "Sources/UnderstudyTLS"),

        // MARK: Protocol cores (pure: bytes in, events out)
        .target(name: "UnderstudyHTTP", dependencies: ["UnderstudyJSON"], path: "Sources/UnderstudyHTTP"),
        .target(name: "UnderstudySMTP", path: "Sources/UnderstudySMTP"),
        .target(name: "UnderstudyMIME", dependencies: ["CLinux"], path: "Sources/UnderstudyMIME"),
        .target(name: "UnderstudyJOSE", dependencies: ["COpenSSL", "CShims", "UnderstudyJSON"],
                path: "Sources/UnderstudyJOSE"),

        // MARK: Servers: protocol cores on the event loop
        // TLS as a transport layer between a socket and a protocol handler (HTTPS, STARTTLS, CONNECT).
        .target(name: "UnderstudyTLSTransport", dependencies: ["UnderstudyIO", "UnderstudyTLS"],
                path: "Sources/UnderstudyTLSTransport"),
        .target(name: "UnderstudyHTTPServer", dependencies: ["UnderstudyIO", "UnderstudyHTTP"],
                path: "Sources/UnderstudyHTTPServer"),
        .target(name: "UnderstudySMTPServer", dependencies: ["UnderstudyIO", "UnderstudySMTP"],
                path: "Sources/UnderstudySMTPServer"),

        // MARK: Features
        .target(name: "UnderstudyExtract", path: "Sources/UnderstudyExtract"),
        .target(name: "UnderstudyStore", dependencies: ["CSQLite", "CShims", "UnderstudyJSON"],
                path: "Sources/UnderstudyStore"),
        .target(name: "UnderstudyProviders",
                dependencies: ["UnderstudyJOSE", "UnderstudyHTTP", "UnderstudyJSON"],
                path: "Sources/UnderstudyProviders"),
        // The web sign-in flows' grants (codes, tokens, consents) in their own SQLite schema.
        .target(name: "UnderstudyGrants", dependencies: ["UnderstudyStore"], path: "Sources/UnderstudyGrants"),
        // Authorize, sign-in page, token, userinfo, revoke for both providers; pure flow logic plus its routes.
        .target(name: "UnderstudyWebFlows",
                dependencies: ["UnderstudyProviders", "UnderstudyGrants", "UnderstudyHTTP", "UnderstudyJOSE", "UnderstudyJSON"],
                path: "Sources/UnderstudyWebFlows"),
        .target(name: "UnderstudyInbox",
                dependencies: ["UnderstudyStore", "UnderstudyMIME", "UnderstudyExtract", "UnderstudyHTTP", "UnderstudyJSON"],
                path: "Sources/UnderstudyInbox"),
        // Mailpit's API v1 over the inbox, for test suites written against Mailpit.
        .target(name: "UnderstudyMailpit",
                dependencies: ["UnderstudyInbox", "UnderstudyStore", "UnderstudyMIME", "UnderstudyHTTP", "UnderstudyJSON"],
                path: "Sources/UnderstudyMailpit"),
        // The HTTP email APIs (Resend, SendGrid, Postmark, Mailgun, SES) captured into the inbox.
        .target(name: "UnderstudyMailAPIs",
                dependencies: ["UnderstudyInbox", "UnderstudyMIME", "UnderstudyHTTP", "UnderstudyJSON"],
                path: "Sources/UnderstudyMailAPIs"),
        // The web UI at `/`: a page, a script and a style sheet embedded as constants, over the /api.
        .target(name: "UnderstudyWebUI", dependencies: ["UnderstudyHTTP"], path: "Sources/UnderstudyWebUI"),
        // The local CA: issues the leaf certificates (JOSE's X.509) the TLS engine serves by SNI.
        .target(name: "UnderstudyCA", dependencies: ["UnderstudyTLS", "UnderstudyJOSE"], path: "Sources/UnderstudyCA"),

        // MARK: Application assembly and executables
        .target(name: "UnderstudyApp",
                dependencies: ["UnderstudyHTTPServer", "UnderstudySMTPServer", "UnderstudyProviders",
                               "UnderstudyInbox", "UnderstudyMailpit", "UnderstudyMailAPIs", "UnderstudyWebUI", "UnderstudyJOSE", "UnderstudyJSON",
                               "UnderstudyGrants", "UnderstudyWebFlows", "UnderstudyTLS", "UnderstudyTLSTransport", "UnderstudyCA"],
                path: "Sources/UnderstudyApp"),
        .executableTarget(name: "understudy", dependencies: ["UnderstudyApp"], path: "Sources/understudy"),

        // MARK: Tests, one per module
        // Shared by the live tests of the I/O layer and the two servers: a blocking socket client
        // and small concurrency helpers. Not part of any product.
        .target(name: "UnderstudyTestSupport", dependencies: ["UnderstudyIO", "UnderstudyTLS", "UnderstudyHTTP", "UnderstudyJSON"], path: "Tests/UnderstudyTestSupport"),
        .testTarget(name: "UnderstudyJSONTests", dependencies: ["UnderstudyJSON"]),
        .testTarget(name: "UnderstudyIOTests", dependencies: ["UnderstudyIO", "UnderstudyTestSupport"]),
        .testTarget(name: "UnderstudyHTTPTests", dependencies: ["UnderstudyHTTP", "UnderstudyJSON"]),
        .testTarget(name: "UnderstudyHTTPServerTests", dependencies: ["UnderstudyHTTPServer", "UnderstudyTestSupport"]),
        .testTarget(name: "UnderstudySMTPTests", dependencies: ["UnderstudySMTP"]),
        .testTarget(name: "UnderstudySMTPServerTests", dependencies: ["UnderstudySMTPServer", "UnderstudyTestSupport"]),
        .testTarget(name: "UnderstudyMIMETests", dependencies: ["UnderstudyMIME"], resources: [.copy("Fixtures")]),
        .testTarget(name: "UnderstudyJOSETests", dependencies: ["UnderstudyJOSE"], resources: [.copy("Vectors")]),
        .testTarget(name: "UnderstudyExtractTests", dependencies: ["UnderstudyExtract"], resources: [.copy("Corpus")]),
        .testTarget(name: "UnderstudyStoreTests", dependencies: ["UnderstudyStore"]),
        .testTarget(name: "UnderstudyProvidersTests", dependencies: ["UnderstudyProviders", "UnderstudyJOSE", "UnderstudyJSON"]),
        .testTarget(name: "UnderstudyGrantsTests", dependencies: ["UnderstudyGrants", "UnderstudyStore"]),
        .testTarget(name: "UnderstudyWebFlowsTests",
                    dependencies: ["UnderstudyWebFlows", "UnderstudyGrants", "UnderstudyProviders", "UnderstudyHTTP", "UnderstudyJOSE", "UnderstudyJSON"]),
        .testTarget(name: "UnderstudyInboxTests", dependencies: ["UnderstudyInbox", "UnderstudyHTTP"]),
        .testTarget(name: "UnderstudyMailAPIsTests",
                    dependencies: ["UnderstudyMailAPIs", "UnderstudyInbox", "UnderstudyStore", "UnderstudyMIME", "UnderstudyHTTP", "UnderstudyJSON",
                                   "UnderstudyTestSupport"]),
        .testTarget(name: "UnderstudyMailpitTests",
                    dependencies: ["UnderstudyMailpit", "UnderstudyInbox", "UnderstudyStore", "UnderstudyMIME", "UnderstudyHTTP", "UnderstudyJSON",
                                   "UnderstudyTestSupport"]),
        .testTarget(name: "UnderstudyWebUITests", dependencies: ["UnderstudyWebUI", "UnderstudyHTTP"]),
        .testTarget(name: "UnderstudyAppTests",
                    dependencies: ["UnderstudyApp", "UnderstudyHTTP", "UnderstudyInbox", "UnderstudyMailAPIs", "UnderstudyStore", "UnderstudyJOSE", "UnderstudyJSON",
                                   "UnderstudyWebFlows", "UnderstudyGrants",
                                   "UnderstudyTLS", "UnderstudyCA", "UnderstudyTestSupport"]),
        .testTarget(name: "UnderstudyTLSTests", dependencies: ["UnderstudyTLS", "COpenSSL", "CShims"], resources: [.copy("Fixtures")]),
        .testTarget(name: "UnderstudyTLSTransportTests",
                    dependencies: ["UnderstudyTLSTransport", "UnderstudyTLS", "UnderstudyCA", "UnderstudyTestSupport"]),
        .testTarget(name: "UnderstudyCATests", dependencies: ["UnderstudyCA", "UnderstudyTLS", "UnderstudyJOSE"]),

        // MARK: libFuzzer targets, one per parser (Tests/Scripts/fuzz.sh builds and runs them)
        // A plain build links each as a replayer of the files it is given; see FuzzReplay.swift.
        .target(name: "FuzzSupport", path: "Tests/Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzHTTP", dependencies: ["FuzzSupport", "UnderstudyHTTP"], path: "Tests/Fuzz/FuzzHTTP"),
        .executableTarget(name: "FuzzSMTP", dependencies: ["FuzzSupport", "UnderstudySMTP"], path: "Tests/Fuzz/FuzzSMTP"),
        .executableTarget(name: "FuzzMIME", dependencies: ["FuzzSupport", "UnderstudyMIME"], path: "Tests/Fuzz/FuzzMIME"),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzSupport", "UnderstudyJSON"], path: "Tests/Fuzz/FuzzJSON"),
        .executableTarget(name: "FuzzJOSE", dependencies: ["FuzzSupport", "UnderstudyJOSE", "UnderstudyJSON"],
                          path: "Tests/Fuzz/FuzzJOSE"),
        .executableTarget(name: "FuzzExtract", dependencies: ["FuzzSupport", "UnderstudyExtract"], path: "Tests/Fuzz/FuzzExtract"),
    ]
)
