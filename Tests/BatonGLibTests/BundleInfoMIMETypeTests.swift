import Baton
import BatonGLib
import Foundation
import XCTest

/// A document extension the desktop types otherwise than the Info.plist declares is found
/// before a document of it is silently not sent.
final class BundleInfoMIMETypeTests: XCTestCase {
    func testAMadeUpExtensionWithoutADefinitionIsReported() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/share/mime/mime.cache"), "no shared-mime-info")
        let info = BundleInfo(documentTypes: [
            DocumentType(name: "Plain text", fileExtensions: ["txt"], mimeTypes: ["text/plain"], activityType: "org.example.edit"),
            DocumentType(name: "C source", fileExtensions: ["c"], mimeTypes: ["text/plain"], activityType: "org.example.edit"),
            DocumentType(name: "To-do list", fileExtensions: ["todo-baton-test"], mimeTypes: ["application/x-todo"],
                         activityType: "org.example.todo"),
            DocumentType(name: "Anything", fileExtensions: ["whatever"], mimeTypes: [], activityType: nil),
        ])
        let mismatches = info.mimeTypeMismatches
        XCTAssertEqual(mismatches.count, 1, "only the made-up extension: \(mismatches)")
        let said = try XCTUnwrap(mismatches.first)
        XCTAssertTrue(said.hasPrefix("*.todo-baton-test files are"), said)
        XCTAssertTrue(said.contains("not application/x-todo as To-do list declares"), said)
        XCTAssertTrue(said.contains("mime/packages") && said.contains("update-mime-database"), said)
    }
}
