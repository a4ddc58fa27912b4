import BatonPeer
import Foundation
import XCTest

final class IdentityTests: XCTestCase {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("baton-identity-\(UUID())")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.appendingPathComponent("config/baton")
    }

    private func permissions(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func testMadeOnceKeptPrivateAndStable() throws {
        let directory = try temporaryDirectory()
        let (first, created) = try DeviceIdentity.loadOrCreate(in: directory)
        XCTAssertTrue(created)
        let file = directory.appendingPathComponent(DeviceIdentity.fileName)
        XCTAssertEqual(try permissions(file), 0o600)
        XCTAssertEqual(try permissions(directory), 0o700)
        XCTAssertEqual(first.deviceID.count, 32)
        XCTAssertTrue(first.deviceID.allSatisfy(\.isHexDigit))
        let (second, createdAgain) = try DeviceIdentity.loadOrCreate(in: directory)
        XCTAssertFalse(createdAgain)
        XCTAssertEqual(second.deviceID, first.deviceID)
        XCTAssertEqual(second.certificateDER, first.certificateDER)
        XCTAssertEqual(try PeerCertificate.publicKeyInfo(ofCertificate: first.certificateDER), first.publicKeyInfo)
        XCTAssertNotEqual(try DeviceIdentity.generate().deviceID, first.deviceID)
    }

    func testAWidenedFileIsMadePrivateAgain() throws {
        let directory = try temporaryDirectory()
        _ = try DeviceIdentity.loadOrCreate(in: directory)
        let file = directory.appendingPathComponent(DeviceIdentity.fileName)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        _ = try DeviceIdentity.loadOrCreate(in: directory)
        XCTAssertEqual(try permissions(file), 0o600)
    }

    func testADamagedIdentityIsAnErrorAndIsNotReplaced() throws {
        let directory = try temporaryDirectory()
        try PrivateFiles.makeDirectory(directory)
        let file = directory.appendingPathComponent(DeviceIdentity.fileName)
        try Data("-----BEGIN CERTIFICATE-----\nnot base64\n".utf8).write(to: file)
        XCTAssertThrowsError(try DeviceIdentity.loadOrCreate(in: directory)) { error in
            XCTAssertTrue("\(error)".contains(file.path), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "-----BEGIN CERTIFICATE-----\nnot base64\n")
    }

    func testAFileIsCreatedOnceAndNeverThroughALinkLeftInPlace() throws {
        let directory = try temporaryDirectory()
        try PrivateFiles.makeDirectory(directory)
        let file = directory.appendingPathComponent("pins.json")
        XCTAssertTrue(try PrivateFiles.create(Data("first".utf8), at: file))
        XCTAssertFalse(try PrivateFiles.create(Data("second".utf8), at: file), "one of two creators is told it exists")
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "first")
        XCTAssertEqual(try permissions(file), 0o600)

        // A link planted where the temporary file goes is replaced, not written through.
        let victim = directory.appendingPathComponent("victim")
        try Data("untouched".utf8).write(to: victim)
        let temporary = directory.appendingPathComponent(".pins.json.\(getpid()).tmp")
        try FileManager.default.createSymbolicLink(at: temporary, withDestinationURL: victim)
        try PrivateFiles.write(Data("third".utf8), to: file)
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "untouched")
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "third")
        XCTAssertEqual(try permissions(file), 0o600)
        XCTAssertFalse(FileManager.default.fileExists(atPath: temporary.path), "no temporary file is left")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["pins.json", "victim"])
    }

    /// A symbolic link planted at `identity.pem` is refused: batond neither uses the planted
    /// identity nor changes its target's mode.
    func testASymlinkedIdentityIsRefusedAndItsTargetKeepsItsMode() throws {
        let directory = try temporaryDirectory()
        let planted = directory.deletingLastPathComponent().appendingPathComponent("planted.pem")
        try FileManager.default.createDirectory(at: planted.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(DeviceIdentity.generate().pem.utf8).write(to: planted)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: planted.path)
        try PrivateFiles.makeDirectory(directory)
        let file = directory.appendingPathComponent(DeviceIdentity.fileName)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: planted)
        XCTAssertThrowsError(try DeviceIdentity.loadOrCreate(in: directory)) { error in
            XCTAssertTrue("\(error)".contains("symbolic link") && "\(error)".contains(file.path), "\(error)")
        }
        XCTAssertEqual(try permissions(planted), 0o644, "the link's target keeps its mode")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: file.path), planted.path,
                       "the link is left as it is")
    }

    /// A dangling link is refused too, rather than an identity written through it.
    func testADanglingSymlinkedIdentityIsRefused() throws {
        let directory = try temporaryDirectory()
        try PrivateFiles.makeDirectory(directory)
        let target = directory.deletingLastPathComponent().appendingPathComponent("elsewhere.pem")
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent(DeviceIdentity.fileName),
                                                   withDestinationURL: target)
        XCTAssertThrowsError(try DeviceIdentity.loadOrCreate(in: directory)) { error in
            XCTAssertTrue("\(error)".contains("symbolic link"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "nothing is written through the link")
    }

    /// A config folder that is a symbolic link is refused, its target's mode unchanged and
    /// nothing made in it.
    func testASymlinkedConfigFolderIsRefusedAndItsTargetKeepsItsMode() throws {
        let directory = try temporaryDirectory()
        let target = directory.deletingLastPathComponent().appendingPathComponent("target")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: target.path)
        try FileManager.default.createSymbolicLink(at: directory, withDestinationURL: target)
        XCTAssertThrowsError(try DeviceIdentity.loadOrCreate(in: directory)) { error in
            XCTAssertTrue("\(error)".contains("symbolic link") && "\(error)".contains(directory.path), "\(error)")
        }
        XCTAssertEqual(try permissions(target), 0o755, "the link's target keeps its mode")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [], "no identity made in it")
    }

    /// A folder of another user is refused (needs root to make one).
    func testAConfigFolderOfAnotherUserIsRefused() throws {
        try XCTSkipUnless(geteuid() == 0, "only root can give a folder to another user")
        let directory = try temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        XCTAssertEqual(chown(directory.path, 65_534, 65_534), 0)
        XCTAssertThrowsError(try DeviceIdentity.loadOrCreate(in: directory)) { error in
            XCTAssertTrue("\(error)".contains("another user"), "\(error)")
        }
        XCTAssertEqual(try permissions(directory), 0o755)
    }

    /// An identity that is not a regular file (a FIFO) or is too large is refused without
    /// being read whole or waited on.
    func testAnIdentityThatIsNotASmallRegularFileIsRefused() throws {
        let directory = try temporaryDirectory()
        try PrivateFiles.makeDirectory(directory)
        let file = directory.appendingPathComponent(DeviceIdentity.fileName)
        XCTAssertEqual(mkfifo(file.path, 0o600), 0)
        XCTAssertThrowsError(try DeviceIdentity.loadOrCreate(in: directory)) { error in
            XCTAssertTrue("\(error)".contains("FIFO"), "\(error)")
        }
        try FileManager.default.removeItem(at: file)
        try Data(repeating: UInt8(ascii: "A"), count: 2 << 20).write(to: file)
        XCTAssertThrowsError(try DeviceIdentity.loadOrCreate(in: directory)) { error in
            XCTAssertTrue("\(error)".contains("larger than 1 MiB"), "\(error)")
        }
    }

    func testAKeyWithSomeoneElsesCertificateIsRefused() throws {
        let mine = try DeviceIdentity.generate()
        let theirs = try DeviceIdentity.generate()
        let key = mine.pem.components(separatedBy: "-----BEGIN CERTIFICATE-----")[0]
        let certificate = "-----BEGIN CERTIFICATE-----" + theirs.pem.components(separatedBy: "-----BEGIN CERTIFICATE-----")[1]
        XCTAssertThrowsError(try DeviceIdentity(pem: key + certificate))
    }

    func testVerificationCodeIsBoundToBothKeysAndBothNonces() throws {
        let a = try DeviceIdentity.generate().publicKeyInfo
        let b = try DeviceIdentity.generate().publicKeyInfo
        let c = try DeviceIdentity.generate().publicKeyInfo
        let (na, nb) = (PairingNonce.make(), PairingNonce.make())
        let code = VerificationCode.make(requesterKey: a, responderKey: b, requesterNonce: na, responderNonce: nb, shownBy: .requester)
        XCTAssertEqual(code, VerificationCode.make(requesterKey: a, responderKey: b, requesterNonce: na, responderNonce: nb, shownBy: .requester))
        XCTAssertEqual(code.count, 6)
        XCTAssertTrue(code.allSatisfy(\.isNumber))
        // Each input, the roles, and which device shows it change the code (each comparison clashes by chance one
        // time in a million).
        let others = [
            VerificationCode.make(requesterKey: a, responderKey: c, requesterNonce: na, responderNonce: nb, shownBy: .requester),
            VerificationCode.make(requesterKey: b, responderKey: a, requesterNonce: na, responderNonce: nb, shownBy: .requester),
            VerificationCode.make(requesterKey: a, responderKey: b, requesterNonce: PairingNonce.make(), responderNonce: nb, shownBy: .requester),
            VerificationCode.make(requesterKey: a, responderKey: b, requesterNonce: na, responderNonce: PairingNonce.make(), shownBy: .requester),
            VerificationCode.make(requesterKey: a, responderKey: b, requesterNonce: na, responderNonce: nb, shownBy: .responder),
        ]
        XCTAssertFalse(others.contains(code), "\(others) against \(code)")
        XCTAssertTrue(VerificationCode.matches(code.prefix(3) + " " + code.suffix(3), code))
        XCTAssertFalse(VerificationCode.matches("000000" == code ? "000001" : "000000", code))
    }

    func testPairingNoncesAreFreshAndCommitmentsBindThem() {
        let nonce = PairingNonce.make()
        XCTAssertEqual(nonce.count, PairingNonce.size)
        XCTAssertNotEqual(nonce, PairingNonce.make())
        XCTAssertEqual(PairingNonce.commitment(to: nonce), PairingNonce.commitment(to: nonce))
        XCTAssertEqual(PairingNonce.commitment(to: nonce).count, PairingNonce.size)
        var other = nonce
        other[0] ^= 1
        XCTAssertNotEqual(PairingNonce.commitment(to: other), PairingNonce.commitment(to: nonce))
    }
}
