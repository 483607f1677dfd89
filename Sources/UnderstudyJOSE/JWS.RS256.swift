import COpenSSL

extension JWS {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 section 3.3): what Apple and Google sign ID tokens with.
    public enum RS256 {
        /// RFC 7518 section 3.3: keys of 2048 bits or larger MUST be used.
        public static let minimumKeyBits = 2048
        /// Larger keys are refused so that hostile PEM or JWK input cannot make verification slow.
        public static let maximumKeyBits = 8192

        public struct PrivateKey: Sendable {
            let backing: EVPKey

            /// Generates a new key pair with public exponent 65537.
            public init(bits: Int = 2048) throws(JOSEError) {
                guard bits >= RS256.minimumKeyBits, bits <= RS256.maximumKeyBits, bits % 8 == 0 else {
                    throw .invalidKey("RSA key size \(bits) is not supported; use a multiple of 8 from \(RS256.minimumKeyBits) to \(RS256.maximumKeyBits) bits (2048 is what Apple and Google use)")
                }
                let generated = EVPKey.generate(type: .rsa) { ctx in
                    EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1
                }
                guard let generated else { throw .cryptoFailure("RSA key generation") }
                backing = generated
            }

            /// Reads an unencrypted PKCS#8 ("PRIVATE KEY") or PKCS#1 ("RSA PRIVATE KEY") PEM block.
            public init(pemRepresentation: String) throws(JOSEError) {
                guard let key = EVPKey.readPrivateKey(pem: pemRepresentation) else {
                    throw .invalidPEM("RSA private key", "expected one unencrypted \"-----BEGIN PRIVATE KEY-----\" (PKCS#8) or \"-----BEGIN RSA PRIVATE KEY-----\" (PKCS#1) block of at most 64 KiB; convert encrypted keys with `openssl pkcs8 -topk8 -nocrypt`")
                }
                try RS256.validate(key)
                backing = key
            }

            /// Reads a private RSA JWK (RFC 7518 section 6.3.2: n, e, d, p, q, dp, dq, qi).
            public init(jwk: JWK) throws(JOSEError) {
                guard jwk.kty == "RSA" else { throw .invalidKey("the JWK has kty \(jwk.kty.map { "\"\($0)\"" } ?? "missing"), an RSA key needs kty \"RSA\"") }
                let names = ["n", "e", "d", "p", "q", "dp", "dq", "qi"]
                var values: [[UInt8]] = []
                for name in names {
                    guard let value = try jwk.bytes(name) else {
                        throw .invalidKey("the RSA JWK has no \"\(name)\" member; a private key needs n, e, d, p, q, dp, dq and qi (multi-prime \"oth\" keys are not supported)")
                    }
                    values.append(value)
                }
                guard jwk.members["oth"] == nil else { throw .invalidKey("multi-prime RSA keys (\"oth\") are not supported") }
                guard let builder = OSSLParamBuilder() else { throw .cryptoFailure("OSSL_PARAM_BLD_new") }
                let osslNames = ["n", "e", "d", "rsa-factor1", "rsa-factor2", "rsa-exponent1", "rsa-exponent2", "rsa-coefficient1"]
                for (name, value) in zip(osslNames, values) { builder.pushBigNumber(name, value) }
                guard let key = builder.makeKey(type: .rsa, selection: OpenSSL.selectKeyPair) else {
                    throw .invalidKey("OpenSSL refused the RSA JWK parameters")
                }
                try RS256.validate(key)
                guard key.pairwiseCheck() else {
                    OpenSSL.clearErrors()
                    throw .invalidKey("the RSA JWK's private parameters do not belong together (p*q != n or d, dp, dq, qi inconsistent)")
                }
                backing = key
            }

            /// PKCS#8 "-----BEGIN PRIVATE KEY-----" PEM.
            public var pemRepresentation: String {
                guard let pem = backing.privateKeyPEM() else {
                    fatalError("OpenSSL could not write an RSA private key as PEM (\(OpenSSL.drainErrors()))")
                }
                return pem
            }

            public var publicKey: PublicKey { PublicKey(backing: backing) }

            /// Size of the modulus in bits (2048 for a default key).
            public var keySizeInBits: Int { backing.bits }

            /// An RS256 (PKCS#1 v1.5) signature; deterministic for a given key and message.
            public func signature(for message: some Sequence<UInt8>) throws(JOSEError) -> [UInt8] {
                try sign(message, padding: .pkcs1)
            }

            /// A PS256 (RSASSA-PSS, SHA-256, MGF1 SHA-256, salt 32) signature; randomized.
            public func pssSignature(for message: some Sequence<UInt8>) throws(JOSEError) -> [UInt8] {
                try sign(message, padding: .pss)
            }

            func sign(_ message: some Sequence<UInt8>, padding: OpenSSL.Padding) throws(JOSEError) -> [UInt8] {
                let signature = withContiguousBytes(of: message) { bytes in
                    OpenSSL.digestSign(key: backing, digest: OpenSSL.sha256, padding: padding, message: bytes)
                }
                guard let signature else { throw .cryptoFailure(padding == .pss ? "RSA-PSS signing" : "RSA signing") }
                return signature
            }
        }

        public struct PublicKey: Sendable {
            let backing: EVPKey

            init(backing: EVPKey) {
                self.backing = backing
            }

            /// Reads a SubjectPublicKeyInfo ("-----BEGIN PUBLIC KEY-----") PEM block.
            public init(pemRepresentation: String) throws(JOSEError) {
                guard let key = EVPKey.readPublicKey(pem: pemRepresentation) else {
                    throw .invalidPEM("RSA public key", "expected one \"-----BEGIN PUBLIC KEY-----\" (SubjectPublicKeyInfo) block of at most 64 KiB")
                }
                try RS256.validate(key)
                backing = key
            }

            /// Reads the public part of an RSA JWK (n and e; private members are ignored).
            public init(jwk: JWK) throws(JOSEError) {
                guard jwk.kty == "RSA" else { throw .invalidKey("the JWK has kty \(jwk.kty.map { "\"\($0)\"" } ?? "missing"), an RSA key needs kty \"RSA\"") }
                if let use = jwk.use, use != "sig" { throw .invalidKey("the RSA JWK has \"use\":\"\(use.prefix(16))\"; only signature keys (\"sig\") verify signatures") }
                guard let n = try jwk.bytes("n"), let e = try jwk.bytes("e") else {
                    throw .invalidKey("the RSA JWK needs both \"n\" and \"e\"")
                }
                try self.init(modulus: n, exponent: e)
            }

            /// Builds a key from the big-endian modulus and public exponent.
            public init(modulus: [UInt8], exponent: [UInt8]) throws(JOSEError) {
                let n = Array(modulus.drop(while: { $0 == 0 }))
                let e = Array(exponent.drop(while: { $0 == 0 }))
                guard n.count * 8 >= RS256.minimumKeyBits - 7, n.count * 8 <= RS256.maximumKeyBits else {
                    throw .invalidKey("the RSA modulus is \(n.count * 8) bits; it must be \(RS256.minimumKeyBits) to \(RS256.maximumKeyBits) bits")
                }
                guard !e.isEmpty, e.count <= 8, e.last! & 1 == 1, e != [1] else {
                    throw .invalidKey("the RSA public exponent must be an odd number greater than 1 of at most 64 bits (usually 65537, \"AQAB\")")
                }
                guard let builder = OSSLParamBuilder() else { throw .cryptoFailure("OSSL_PARAM_BLD_new") }
                builder.pushBigNumber("n", n)
                builder.pushBigNumber("e", e)
                guard let key = builder.makeKey(type: .rsa, selection: OpenSSL.selectPublicKey) else {
                    throw .invalidKey("OpenSSL refused the RSA modulus and exponent")
                }
                try RS256.validate(key)
                backing = key
            }

            /// SubjectPublicKeyInfo "-----BEGIN PUBLIC KEY-----" PEM.
            public var pemRepresentation: String {
                guard let pem = backing.publicKeyPEM() else {
                    fatalError("OpenSSL could not write an RSA public key as PEM (\(OpenSSL.drainErrors()))")
                }
                return pem
            }

            /// Big-endian modulus without leading zeros (the JWK "n").
            public var modulus: [UInt8] { backing.bigNumberParameter("n") ?? [] }
            /// Big-endian public exponent without leading zeros (the JWK "e", usually 01 00 01).
            public var exponent: [UInt8] { backing.bigNumberParameter("e") ?? [] }

            public var keySizeInBits: Int { backing.bits }

            /// Whether `signature` is a valid RS256 (PKCS#1 v1.5 SHA-256) signature of `message`.
            public func isValidSignature(_ signature: [UInt8], for message: some Sequence<UInt8>) -> Bool {
                verify(signature, message, padding: .pkcs1)
            }

            /// Whether `signature` is a valid PS256 (RSASSA-PSS SHA-256, salt 32) signature of `message`.
            public func isValidPSSSignature(_ signature: [UInt8], for message: some Sequence<UInt8>) -> Bool {
                verify(signature, message, padding: .pss)
            }

            func verify(_ signature: [UInt8], _ message: some Sequence<UInt8>, padding: OpenSSL.Padding) -> Bool {
                guard signature.count == (backing.bits + 7) / 8 else { return false }
                return withContiguousBytes(of: message) { bytes in
                    OpenSSL.digestVerify(key: backing, digest: OpenSSL.sha256, padding: padding,
                                         signature: signature, message: bytes)
                }
            }

            /// Whether both keys have the same modulus and exponent.
            public func hasSameKey(as other: PublicKey) -> Bool {
                EVP_PKEY_eq(backing.pointer, other.backing.pointer) == 1
            }
        }

        static func validate(_ key: EVPKey) throws(JOSEError) {
            guard key.baseID == EVP_PKEY_RSA else {
                throw .invalidKey("the key is not an RSA key (RS256 and PS256 need RSA; use JWS.ES256 for EC keys)")
            }
            guard key.bits >= minimumKeyBits, key.bits <= maximumKeyBits else {
                throw .invalidKey("the RSA key has \(key.bits) bits; RS256 needs \(minimumKeyBits) to \(maximumKeyBits) bits")
            }
        }
    }

    /// RSASSA-PSS with SHA-256, MGF1 SHA-256 and a 32-byte salt (RFC 7518 section 3.5), over the
    /// same RSA keys as RS256. Sign with `pssSignature(for:)`, verify with `isValidPSSSignature`;
    /// `JWS.sign` and `JWS.verify` pick the right one from `SigningKey.ps256` / `VerificationKey.ps256`.
    public enum PS256 {
        public typealias PrivateKey = RS256.PrivateKey
        public typealias PublicKey = RS256.PublicKey
    }
}
