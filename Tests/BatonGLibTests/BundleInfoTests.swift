import Baton
import BatonGLib
import Foundation
import XCTest

/// Info.plists as apps write them: the keys Baton reads, and clear errors for bad ones.
final class BundleInfoTests: XCTestCase {
    private func write(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("Info-\(UUID().uuidString).plist")
        try Data(text.utf8).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    private func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>\(body)</dict></plist>
        """
    }

    func testADocumentAppsInfoPlistIsRead() throws {
        let url = try write(plist("""
            <key>CFBundleIdentifier</key><string>org.example.TextEditor</string>
            <key>BatonTeamIdentifier</key><string>org.example</string>
            <key>NSUserActivityTypes</key><array><string>org.example.texteditor.browse</string></array>
            <key>CFBundleDocumentTypes</key><array>
              <dict>
                <key>CFBundleTypeName</key><string>Markdown</string>
                <key>CFBundleTypeExtensions</key><array><string>md</string><string>markdown</string></array>
                <key>CFBundleTypeMIMETypes</key><array><string>text/markdown</string></array>
                <key>NSUbiquitousDocumentUserActivityType</key><string>org.example.texteditor.editing</string>
              </dict>
              <dict>
                <key>CFBundleTypeName</key><string>Plain text</string>
                <key>CFBundleTypeExtensions</key><array><string>txt</string></array>
                <key>NSUbiquitousDocumentUserActivityType</key><string>org.example.texteditor.editing</string>
              </dict>
            </array>
            """))
        let info = try BundleInfo(contentsOf: url)
        XCTAssertEqual(info.identifier, "org.example.TextEditor")
        XCTAssertEqual(info.teamIdentifier, "org.example")
        XCTAssertEqual(info.documentTypes, [
            DocumentType(name: "Markdown", fileExtensions: ["md", "markdown"], mimeTypes: ["text/markdown"],
                         activityType: "org.example.texteditor.editing"),
            DocumentType(name: "Plain text", fileExtensions: ["txt"], activityType: "org.example.texteditor.editing"),
        ])
        XCTAssertEqual(info.allActivityTypes, ["org.example.texteditor.browse", "org.example.texteditor.editing"],
                       "declared types, then document types' activity types, each once")
    }

    func testBadInfoPlistsSayWhereTheyAreBad() throws {
        let cases: [(String, String)] = [
            (plist("<key>NSUserActivityTypes</key><string>one</string>"), "NSUserActivityTypes is not a list of strings"),
            (plist("<key>CFBundleDocumentTypes</key><array><dict><key>CFBundleTypeExtensions</key><array/></dict></array>"),
             "CFBundleDocumentTypes[0] has no CFBundleTypeName"),
            (plist("<key>CFBundleDocumentTypes</key><array><dict><key>CFBundleTypeName</key><string>A</string>"
                   + "<key>NSUbiquitousDocumentUserActivityType</key><integer>3</integer></dict></array>"),
             "CFBundleDocumentTypes[0].NSUbiquitousDocumentUserActivityType is not a string"),
            ("not a plist", "is not a property list"),
        ]
        for (text, expected) in cases {
            let url = try write(text)
            XCTAssertThrowsError(try BundleInfo(contentsOf: url)) { error in
                let message = String(describing: error)
                XCTAssertTrue(message.hasPrefix(url.path), message)
                XCTAssertTrue(message.contains(expected), "\(message) should say \(expected)")
            }
        }
        let missing = URL(fileURLWithPath: "/nonexistent/Info.plist")
        XCTAssertThrowsError(try BundleInfo(contentsOf: missing)) {
            XCTAssertTrue(String(describing: $0).contains("/nonexistent/Info.plist cannot be read"), "\($0)")
        }
    }
}
