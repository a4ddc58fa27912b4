import Crypto
import Foundation
import SwiftASN1
import X509

/// This device's identity on the network: a P-256 key pair and a self-signed certificate,
/// and the opaque device id derived from the public key.
///
/// Made on first run and kept in one PEM file (key, then certificate), readable by the
/// user alone (0600) in a folder only the user can enter (0700).
public struct DeviceIdentity: Sendable {
    /// 32 lowercase hex digits: the start of the SHA-256 of the public key (its DER
    /// `SubjectPublicKeyInfo`). Peers check it against the certificate presented.
    public let deviceID: String
    /// The certificate, DER-encoded: what a peer pins.
    public let certificateDER: [UInt8]
    /// The public key as a DER `SubjectPublicKeyInfo`.
    public let publicKeyInfo: [UInt8]
    /// Private key and certificate in PEM, as GIO's `GTlsCertificate` reads them.
    public let pem: String

    /// The file name of the identity in its folder.
    public static let fileName = "identity.pem"

    /// A new identity with a fresh key.
    public static func generate() throws -> DeviceIdentity {
        let key = P256.Signing.PrivateKey()
        let certificateKey = Certificate.PrivateKey(key)
        let publicKeyInfo = try PeerCertificate.publicKeyInfo(of: certificateKey.publicKey)
        let deviceID = PeerCertificate.deviceID(publicKeyInfo: publicKeyInfo)
        let name = try DistinguishedName { CommonName(deviceID) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: certificateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(30 * 365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
            issuerPrivateKey: certificateKey)
        let pem = key.pemRepresentation + "\n" + (try certificate.serializeAsPEM().pemString) + "\n"
        return try DeviceIdentity(pem: pem)
    }

    /// Reads an identity: a private key and the certificate of its public key, in PEM.
    ///
    /// - Throws: ``IdentityError`` when either is missing or they do not belong together.
    public init(pem: String) throws {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: pem)
        } catch {
            throw IdentityError("not PEM: \(error)")
        }
        guard let keyDocument = documents.first(where: { $0.discriminator.hasSuffix("PRIVATE KEY") }),
              let certificateDocument = documents.first(where: { $0.discriminator == "CERTIFICATE" }) else {
            throw IdentityError("a private key and a certificate are both needed")
        }
        let key: Certificate.PrivateKey
        let certificate: Certificate
        do {
            key = try Certificate.PrivateKey(pemDocument: keyDocument)
            certificate = try Certificate(pemDocument: certificateDocument)
        } catch {
            throw IdentityError("unreadable key or certificate: \(error)")
        }
        guard key.publicKey == certificate.publicKey else {
            throw IdentityError("the certificate is not for this private key")
        }
        publicKeyInfo = try PeerCertificate.publicKeyInfo(of: certificate.publicKey)
        deviceID = PeerCertificate.deviceID(publicKeyInfo: publicKeyInfo)
        certificateDER = certificateDocument.derBytes
        self.pem = pem
    }

    /// The identity kept in `directory`, made and saved there first if there is none.
    ///
    /// The folder and the file are read through ``PrivateFiles``: neither may be a symbolic
    /// link or another user's, and they are made 0700 and 0600.
    ///
    /// - Returns: the identity, and whether it was made now.
    /// - Throws: ``PrivateFileError`` for a folder or file that cannot be used,
    ///   ``IdentityError`` for an unreadable identity (it is never replaced), or the file
    ///   system's error.
    public static func loadOrCreate(in directory: URL) throws -> (identity: DeviceIdentity, created: Bool) {
        let file = directory.appendingPathComponent(fileName)
        try PrivateFiles.makeDirectory(directory)
        var contents = try PrivateFiles.read(file)
        if contents == nil {
            let identity = try generate()
            // Another batond starting at the same moment may have made one first: use that.
            if try PrivateFiles.create(Data(identity.pem.utf8), at: file) { return (identity, true) }
            contents = try PrivateFiles.read(file)
        }
        guard let contents, let text = String(data: contents, encoding: .utf8) else {
            throw IdentityError("cannot read \(file.path): it vanished, or is not UTF-8 text")
        }
        do {
            return (try DeviceIdentity(pem: text), false)
        } catch let error as IdentityError {
            throw IdentityError("\(file.path): \(error.reason)")
        }
    }
}

/// An identity that cannot be used.
public struct IdentityError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// What batond reads from a peer's certificate.
public enum PeerCertificate {
    /// The DER `SubjectPublicKeyInfo` of a DER certificate.
    ///
    /// - Throws: ``IdentityError`` for bytes that are not a certificate.
    public static func publicKeyInfo(ofCertificate der: [UInt8]) throws -> [UInt8] {
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: der)
        } catch {
            throw IdentityError("not a certificate: \(error)")
        }
        return try publicKeyInfo(of: certificate.publicKey)
    }

    static func publicKeyInfo(of key: Certificate.PublicKey) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(key)
        return serializer.serializedBytes
    }

    /// The device id of a public key: 32 hex digits of its SHA-256.
    public static func deviceID(publicKeyInfo: [UInt8]) -> String {
        SHA256.hash(data: publicKeyInfo).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
