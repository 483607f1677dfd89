/// Why the local CA could not be opened, created or could not issue. Messages name the file and
/// say how to fix it; they never contain key material.
public struct CertificateAuthorityError: Error, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Code: String, Hashable, Sendable {
            case unusableDirectory, directoryNotEmpty, incomplete, invalidPrivateKey, privateKeyReadableByOthers
            case invalidCertificate, expired, fileSystem, invalidServerName, issuanceFailed
        }
        private let code: Code
        private init(_ code: Code) { self.code = code }

        /// The path is not a directory, or it cannot be created or locked.
        public static let unusableDirectory = Kind(.unusableDirectory)
        /// The directory holds other files and no CA.
        public static let directoryNotEmpty = Kind(.directoryNotEmpty)
        /// One of ca.key and ca.pem is there without the other.
        public static let incomplete = Kind(.incomplete)
        /// ca.key is not an unencrypted P-256 private key in PEM.
        public static let invalidPrivateKey = Kind(.invalidPrivateKey)
        /// ca.key may be read by the group or others.
        public static let privateKeyReadableByOthers = Kind(.privateKeyReadableByOthers)
        /// ca.pem is not a CA certificate of ca.key.
        public static let invalidCertificate = Kind(.invalidCertificate)
        /// The CA certificate is past its end of validity.
        public static let expired = Kind(.expired)
        /// A read or write failed.
        public static let fileSystem = Kind(.fileSystem)
        /// A leaf was asked for a name that is not a DNS name or IP address.
        public static let invalidServerName = Kind(.invalidServerName)
        /// Making a leaf certificate failed (OpenSSL).
        public static let issuanceFailed = Kind(.issuanceFailed)

        public var description: String { code.rawValue }
    }

    public let kind: Kind
    /// The file or directory concerned, if any.
    public let path: String?
    private let message: String

    private init(_ kind: Kind, path: String?, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { message }

    private static func remake(_ directory: String) -> String {
        "delete \(directory) to make a new CA there (then trust the new ca.pem again)"
    }

    static func unusableDirectory(_ path: String, _ why: String) -> CertificateAuthorityError {
        CertificateAuthorityError(.unusableDirectory, path: path, "Cannot use \(path) for the local CA: \(why). Pass a directory this user can create and write (--ca DIR).")
    }

    static func directoryNotEmpty(_ directory: String, entries: [String]) -> CertificateAuthorityError {
        let shown = entries.prefix(3).joined(separator: ", ") + (entries.count > 3 ? ", ..." : "")
        return CertificateAuthorityError(.directoryNotEmpty, path: directory, "\(directory) holds other files (\(shown)) and no CA (ca.key, ca.pem). Pass a new or empty directory for the CA (--ca DIR).")
    }

    static func incomplete(_ directory: String, present: String, missing: String) -> CertificateAuthorityError {
        CertificateAuthorityError(.incomplete, path: directory + "/" + missing, "\(directory) holds \(present) but no \(missing): the CA is incomplete. Restore \(missing), or \(remake(directory)).")
    }

    static func invalidPrivateKey(_ path: String, directory: String, _ why: String) -> CertificateAuthorityError {
        CertificateAuthorityError(.invalidPrivateKey, path: path, "\(path) is not the CA's private key: \(why). Restore it, or \(remake(directory)).")
    }

    static func privateKeyReadableByOthers(_ path: String, mode: UInt32) -> CertificateAuthorityError {
        CertificateAuthorityError(.privateKeyReadableByOthers, path: path, "\(path) is readable by other users (mode \(String(mode & 0o777, radix: 8))): anyone who reads it can impersonate any site to this machine. Run `chmod 600 \(path)`.")
    }

    static func invalidCertificate(_ path: String, directory: String, _ why: String) -> CertificateAuthorityError {
        CertificateAuthorityError(.invalidCertificate, path: path, "\(path) is not the CA certificate of ca.key: \(why). Restore it, or \(remake(directory)).")
    }

    static func expired(_ path: String, directory: String, notAfter: Int64) -> CertificateAuthorityError {
        CertificateAuthorityError(.expired, path: path, "The CA certificate \(path) expired (validity ended at \(notAfter) s since 1970). To go on, \(remake(directory)).")
    }

    static func fileSystem(_ call: String, _ path: String, errno: Int32, _ strerror: String) -> CertificateAuthorityError {
        CertificateAuthorityError(.fileSystem, path: path, "\(call) \(path) failed: \(strerror) (errno \(errno)). Check the directory's permissions and free space.")
    }

    static func invalidServerName(_ name: String) -> CertificateAuthorityError {
        CertificateAuthorityError(.invalidServerName, path: nil, "\"\(name.prefix(80))\" is not a DNS name (letters, digits, '-', '.', at most 253 bytes) or an IP address; no certificate is issued for it.")
    }

    static func issuanceFailed(_ name: String, _ why: String) -> CertificateAuthorityError {
        CertificateAuthorityError(.issuanceFailed, path: nil, "Could not issue a certificate for \"\(name.prefix(80))\": \(why).")
    }
}
