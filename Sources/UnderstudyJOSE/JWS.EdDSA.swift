import COpenSSL

extension JWS {
    /// EdDSA with Ed25519 (RFC 8037). Signatures are 64 bytes and deterministic.
    public enum EdDSA {
        static let keySize = 32
        public static let signatureSize = 64

        public struct PrivateKey: Sendable {
            let backing: EVPKey

            public init() throws(JOSEError) {
                guard let generated = EVPKey.generate(type: .ed25519, configure: { _ in true }) else {
                    throw .cryptoFailure("Ed25519 key generation")
                }
                backing = generated
            }

            /// Reads an unencrypted PKCS#8 ("PRIVATE KEY") PEM block of an Ed25519 key.
            public init(pemRepresentation: String) throws(JOSEError) {
                guard let key = EVPKey.readPrivateKey(pem: pemRepresentation) else {
                    throw .invalidPEM("Ed25519 private key", "expected one unencrypted \"-----BEGIN PRIVATE KEY-----\" (PKCS#8) block of at most 64 KiB")
                }
                try EdDSA.validate(key)
                backing = key
            }

            /// The 32-byte seed (the JWK "d").
            public init(rawRepresentation: [UInt8]) throws(JOSEError) {
                guard rawRepresentation.count == keySize else {
                    throw .invalidKey("an Ed25519 private key is 32 bytes, got \(rawRepresentation.count)")
                }
                let key = rawRepresentation.withUnsafeBufferPointer {
                    EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
                }
                guard let key else { throw .cryptoFailure("EVP_PKEY_new_raw_private_key") }
                backing = EVPKey(takingOwnershipOf: key)
            }

            /// Reads a private OKP JWK with crv "Ed25519" (d, and x which must match it).
            public init(jwk: JWK) throws(JOSEError) {
                let x = try EdDSA.publicBytes(of: jwk)
                guard let d = try jwk.bytes("d") else { throw .invalidKey("the Ed25519 JWK has no private \"d\"") }
                try self.init(rawRepresentation: d)
                guard backing.rawPublicKey() == x else {
                    throw .invalidKey("the Ed25519 JWK's \"x\" is not the public key of its \"d\"")
                }
            }

            public var pemRepresentation: String {
                guard let pem = backing.privateKeyPEM() else {
                    fatalError("OpenSSL could not write an Ed25519 private key as PEM (\(OpenSSL.drainErrors()))")
                }
                return pem
            }

            public var publicKey: PublicKey { PublicKey(backing: backing) }

            public func signature(for message: some Sequence<UInt8>) throws(JOSEError) -> [UInt8] {
                let signature = withContiguousBytes(of: message) { bytes in
                    OpenSSL.digestSign(key: backing, digest: nil, message: bytes)
                }
                guard let signature, signature.count == signatureSize else { throw .cryptoFailure("Ed25519 signing") }
                return signature
            }
        }

        public struct PublicKey: Sendable {
            let backing: EVPKey

            init(backing: EVPKey) {
                self.backing = backing
            }

            public init(pemRepresentation: String) throws(JOSEError) {
                guard let key = EVPKey.readPublicKey(pem: pemRepresentation) else {
                    throw .invalidPEM("Ed25519 public key", "expected one \"-----BEGIN PUBLIC KEY-----\" (SubjectPublicKeyInfo) block of at most 64 KiB")
                }
                try EdDSA.validate(key)
                backing = key
            }

            /// The 32-byte public key (the JWK "x").
            public init(rawRepresentation: [UInt8]) throws(JOSEError) {
                guard rawRepresentation.count == keySize else {
                    throw .invalidKey("an Ed25519 public key is 32 bytes, got \(rawRepresentation.count)")
                }
                let key = rawRepresentation.withUnsafeBufferPointer {
                    EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
                }
                guard let key else {
                    OpenSSL.clearErrors()
                    throw .invalidKey("OpenSSL refused the Ed25519 public key")
                }
                backing = EVPKey(takingOwnershipOf: key)
            }

            public init(jwk: JWK) throws(JOSEError) {
                if let use = jwk.use, use != "sig" { throw .invalidKey("the OKP JWK has \"use\":\"\(use.prefix(16))\"; only signature keys (\"sig\") verify signatures") }
                try self.init(rawRepresentation: EdDSA.publicBytes(of: jwk))
            }

            public var pemRepresentation: String {
                guard let pem = backing.publicKeyPEM() else {
                    fatalError("OpenSSL could not write an Ed25519 public key as PEM (\(OpenSSL.drainErrors()))")
                }
                return pem
            }

            public var rawRepresentation: [UInt8] { backing.rawPublicKey() ?? [] }

            public func isValidSignature(_ signature: [UInt8], for message: some Sequence<UInt8>) -> Bool {
                guard signature.count == signatureSize else { return false }
                return withContiguousBytes(of: message) { bytes in
                    OpenSSL.digestVerify(key: backing, digest: nil, signature: signature, message: bytes)
                }
            }
        }

        static func validate(_ key: EVPKey) throws(JOSEError) {
            guard key.baseID == EVP_PKEY_ED25519 else {
                throw .invalidKey("the key is not an Ed25519 key (EdDSA here means Ed25519)")
            }
        }

        static func publicBytes(of jwk: JWK) throws(JOSEError) -> [UInt8] {
            guard jwk.kty == "OKP" else { throw .invalidKey("the JWK has kty \(jwk.kty.map { "\"\($0)\"" } ?? "missing"), an Ed25519 key needs kty \"OKP\"") }
            guard jwk.members["crv"]?.stringValue == "Ed25519" else { throw .invalidKey("the OKP JWK must have \"crv\":\"Ed25519\" for EdDSA") }
            guard let x = try jwk.bytes("x"), x.count == keySize else { throw .invalidKey("the Ed25519 JWK needs an \"x\" of 32 bytes") }
            return x
        }
    }
}
