import BatonGLib
import CGLib
@testable import batond
import Foundation
import ServiceFixtures
import XCTest

/// Each example app declares what it continues twice, where each consumer looks: Info.plist
/// for the framework and its desktop entry for batond. Info.plist is the source of truth;
/// the entry, read by batond's own reader, must say the same.
final class ExampleDeclarationsTests: XCTestCase {
    private func check(_ program: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let resources = ExampleAppProcess.shippedResources(program)
        let info = try BundleInfo(contentsOf: resources.appendingPathComponent("Info.plist"))
        XCTAssertEqual(info.identifier, "org.example.\(program)", file: file, line: line)

        // The shipped entry names the bare program, which GIO wants to find: an installed copy.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("declarations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let entryFile = folder.appendingPathComponent("org.example.\(program).desktop")
        try String(contentsOf: resources.appendingPathComponent(entryFile.lastPathComponent), encoding: .utf8)
            .replacingOccurrences(of: "Exec=\(program)", with: "Exec=/bin/true")
            .write(to: entryFile, atomically: true, encoding: .utf8)
        let entry = try XCTUnwrap(InstalledApps.read(entryFile), "batond reads the entry", file: file, line: line)

        XCTAssertEqual(entry.appID, info.identifier, file: file, line: line)
        XCTAssertEqual(entry.teamID, info.teamIdentifier, file: file, line: line)
        XCTAssertEqual(entry.activityTypes, Set(info.allActivityTypes), "X-Baton-ActivityTypes", file: file, line: line)
        XCTAssertTrue(info.allActivityTypes.allSatisfy { $0.split(separator: ".").count >= 3 }, "types are reverse-DNS",
                      file: file, line: line)

        let declaredPairs = info.documentTypes.flatMap { type in
            type.activityType.map { activityType in type.mimeTypes.map { "\($0.lowercased()):\(activityType)" } } ?? []
        }
        XCTAssertEqual(Set(entry.documentTypes.pairs), Set(declaredPairs), "X-Baton-DocumentTypes", file: file, line: line)
        XCTAssertEqual(entry.documentTypes.problems, [], file: file, line: line)

        let appInfo = try XCTUnwrap(g_desktop_app_info_new_from_filename(entryFile.path))
        defer { g_object_unref(UnsafeMutableRawPointer(appInfo)) }
        var supported: [String] = []
        if var type = g_app_info_get_supported_types(appInfo) {
            while let name = type.pointee {
                supported.append(String(cString: name))
                type += 1
            }
        }
        let documentMIMETypes = info.documentTypes.flatMap(\.mimeTypes)
        XCTAssertTrue(Set(documentMIMETypes).isSubset(of: supported),
                      "MimeType= lists every document MIME type: \(supported) against \(documentMIMETypes)", file: file, line: line)
    }

    func testMailComposersEntryAgreesWithItsInfoPlist() throws {
        try check("MailComposer")
    }

    func testTextEditorsEntryAgreesWithItsInfoPlist() throws {
        try check("TextEditor")
    }
}
