import COpenSSL

extension JWS {
    /// ECDSA on P-256 with SHA-256 (RFC 7518 section 3.4): Apple's client secrets and "Sign in with
    /// Apple" keys (.p8). Signatures are the raw 64-byte r || s JOSE uses; the DER form OpenSSL
    /// produces and expects is converted inside.
    public enum ES256 {
        static let coordinateSize = 32
        public static let signatureSize = 64

        public struct PrivateKey: Sendable {
            let backing: EVPKey

            /// Generates a new P-256 key.
            public init() throws(JOSEError) {
                let generated = EVPKey.generate(type: .ec) { ctx in
                    EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1
                }
                guard let generated else { throw .cryptoFailure("P-256 key generation") }
                backing = generated
            }

            /// Reads an unencrypted PKCS#8 ("PRIVATE KEY", as in Apple's .p8 files) or SEC 1
            /// ("EC PRIVATE KEY") PEM block.
            public init(pemRepresentation: String) throws(JOSEError) {
                guard let key = EVPKey.readPrivateKey(pem: pemRepresentation) else {
                    throw .invalidPEM("P-256 private key", "expected one unencrypted \"-----BEGIN PRIVATE KEY-----\" (PKCS#8, e.g. Apple's .p8 file) or \"-----BEGIN EC PRIVATE KEY-----\" block of at most 64 KiB")
                }
                try ES256.validate(key)
                backing = key
            }

            /// Reads a private EC JWK with crv "P-256" and x, y, d.
            public init(jwk: JWK) throws(JOSEError) {
                let (x, y) = try ES256.coordinates(of: jwk)
                guard let d = try jwk.bytes("d"), d.count == coordinateSize else {
                    throw .invalidKey("the P-256 JWK needs a 32-byte private \"d\"")
                }
                guard let builder = OSSLParamBuilder() else { throw .cryptoFailure("OSSL_PARAM_BLD_new") }
                builder.pushUTF8("group", "prime256v1")
                builder.pushOctets("pub", [0x04] + x + y)
                builder.pushBigNumber("priv", d)
                guard let key = builder.makeKey(type: .ec, selection: OpenSSL.selectKeyPair), key.pairwiseCheck() else {
                    OpenSSL.clearErrors()
                    throw .invalidKey("the P-256 JWK's d does not match its x and y, or the point is not on the curve")
                }
                backing = key
            }

            /// PKCS#8 "-----BEGIN PRIVATE KEY-----" PEM (the format of Apple's .p8 files).
            public var pemRepresentation: String {
                guard let pem = backing.privateKeyPEM() else {
                    fatalError("OpenSSL could not write an EC private key as PEM (\(OpenSSL.drainErrors()))")
                }
                return pem
            }

            public var publicKey: PublicKey { PublicKey(backing: backing) }

            /// A raw r || s signature (64 bytes); randomized.
            public func signature(for message: some Sequence<UInt8>) throws(JOSEError) -> [UInt8] {
                let der = withContiguousBytes(of: message) { bytes in
                    OpenSSL.digestSign(key: backing, digest: OpenSSL.sha256, message: bytes)
                }
                guard let der, let raw = ECDSASignature.rawFromDER(der, coordinateSize: coordinateSize) else {
                    throw .cryptoFailure("ECDSA signing")
                }
                return raw
            }
        }

        public struct PublicKey: Sendable {
            let backing: EVPKey

            init(backing: EVPKey) {
                self.backing = backing
            }

            /// Reads a SubjectPublicKeyInfo ("-----BEGIN PUBLIC KEY-----") PEM block of a P-256 key.
            public init(pemRepresentation: String) throws(JOSEError) {
                guard let key = EVPKey.readPublicKey(pem: pemRepresentation) else {
                    throw .invalidPEM("P-256 public key", "expected one \"-----BEGIN PUBLIC KEY-----\" (SubjectPublicKeyInfo) block of at most 64 KiB")
                }
                try ES256.validate(key)
                backing = key
            }

            /// Reads the public part of an EC JWK with crv "P-256".
            public init(jwk: JWK) throws(JOSEError) {
                if let use = jwk.use, use != "sig" { throw .invalidKey("the EC JWK has \"use\":\"\(use.prefix(16))\"; only signature keys (\"sig\") verify signatures") }
                let (x, y) = try ES256.coordinates(of: jwk)
                try self.init(x: x, y: y)
            }

            /// Builds a key from its affine coordinates (32 bytes each); the point must be on P-256.
            public init(x: [UInt8], y: [UInt8]) throws(JOSEError) {
                guard x.count == coordinateSize, y.count == coordinateSize else {
                    throw .invalidKey("P-256 coordinates must be 32 bytes each, got \(x.count) and \(y.count)")
                }
                guard let builder = OSSLParamBuilder() else { throw .cryptoFailure("OSSL_PARAM_BLD_new") }
                builder.pushUTF8("group", "prime256v1")
                builder.pushOctets("pub", [0x04] + x + y)
                guard let key = builder.makeKey(type: .ec, selection: OpenSSL.selectPublicKey), key.publicCheck() else {
                    OpenSSL.clearErrors()
                    throw .invalidKey("the point (x, y) is not on the P-256 curve")
                }
                backing = key
            }

            public var pemRepresentation: String {
                guard let pem = backing.publicKeyPEM() else {
                    fatalError("OpenSSL could not write an EC public key as PEM (\(OpenSSL.drainErrors()))")
                }
                return pem
            }

            /// The affine x coordinate, 32 bytes big-endian (the JWK "x").
            public var x: [UInt8] { backing.paddedBigNumberParameter("qx", size: coordinateSize) ?? [] }
            /// The affine y coordinate, 32 bytes big-endian (the JWK "y").
            public var y: [UInt8] { backing.paddedBigNumberParameter("qy", size: coordinateSize) ?? [] }

            /// Whether `signature` (raw r || s, 64 bytes) is a valid ES256 signature of `message`.
            public func isValidSignature(_ signature: [UInt8], for message: some Sequence<UInt8>) -> Bool {
                guard let der = ECDSASignature.derFromRaw(signature, coordinateSize: coordinateSize) else { return false }
                return withContiguousBytes(of: message) { bytes in
                    OpenSSL.digestVerify(key: backing, digest: OpenSSL.sha256, signature: der, message: bytes)
                }
            }

            public func hasSameKey(as other: PublicKey) -> Bool {
                EVP_PKEY_eq(backing.pointer, other.backing.pointer) == 1
            }
        }

        static func validate(_ key: EVPKey) throws(JOSEError) {
            guard key.baseID == EVP_PKEY_EC else {
                throw .invalidKey("the key is not an EC key (ES256 needs a P-256 key; use JWS.RS256 for RSA keys)")
            }
            let group = key.groupName()
            guard group == "prime256v1" || group == "P-256" else {
                throw .invalidKey("the EC key is on curve \(group ?? "unknown"), ES256 needs P-256 (prime256v1)")
            }
        }

        static func coordinates(of jwk: JWK) throws(JOSEError) -> ([UInt8], [UInt8]) {
            guard jwk.kty == "EC" else { throw .invalidKey("the JWK has kty \(jwk.kty.map { "\"\($0)\"" } ?? "missing"), a P-256 key needs kty \"EC\"") }
            guard jwk.members["crv"]?.stringValue == "P-256" else { throw .invalidKey("the EC JWK must have \"crv\":\"P-256\" for ES256") }
            guard let x = try jwk.bytes("x"), let y = try jwk.bytes("y"), x.count == coordinateSize, y.count == coordinateSize else {
                throw .invalidKey("the P-256 JWK needs \"x\" and \"y\" of 32 bytes each")
            }
            return (x, y)
        }
    }
}

/// Conversion between OpenSSL's DER ECDSA-Sig-Value and JOSE's fixed-size r || s.
enum ECDSASignature {
    static func rawFromDER(_ der: [UInt8], coordinateSize: Int) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                OpenSSL.clearErrors()
                return nil
            }
            defer { ECDSA_SIG_free(sig) }
            var r: OpaquePointer? = nil
            var s: OpaquePointer? = nil
            ECDSA_SIG_get0(sig, &r, &s)
            guard let r, let s else { return nil }
            var raw = [UInt8](repeating: 0, count: 2 * coordinateSize)
            let ok = raw.withUnsafeMutableBufferPointer { out in
                BN_bn2binpad(r, out.baseAddress, Int32(coordinateSize)) == Int32(coordinateSize)
                    && BN_bn2binpad(s, out.baseAddress! + coordinateSize, Int32(coordinateSize)) == Int32(coordinateSize)
            }
            return ok ? raw : nil
        }
    }

    static func derFromRaw(_ raw: [UInt8], coordinateSize: Int) -> [UInt8]? {
        guard raw.count == 2 * coordinateSize else { return nil }
        return raw.withUnsafeBufferPointer { buffer -> [UInt8]? in
            guard let r = BN_bin2bn(buffer.baseAddress, Int32(coordinateSize), nil) else { return nil }
            guard let s = BN_bin2bn(buffer.baseAddress! + coordinateSize, Int32(coordinateSize), nil) else {
                BN_free(r)
                return nil
            }
            guard let sig = ECDSA_SIG_new() else {
                BN_free(r)
                BN_free(s)
                return nil
            }
            defer { ECDSA_SIG_free(sig) }
            guard ECDSA_SIG_set0(sig, r, s) == 1 else {
                BN_free(r)
                BN_free(s)
                return nil
            }
            let length = i2d_ECDSA_SIG(sig, nil)
            guard length > 0 else { return nil }
            var der = [UInt8](repeating: 0, count: Int(length))
            let written = der.withUnsafeMutableBufferPointer { out -> Int32 in
                var cursor: UnsafeMutablePointer<UInt8>? = out.baseAddress
                return i2d_ECDSA_SIG(sig, &cursor)
            }
            return written == length ? der : nil
        }
    }
}
