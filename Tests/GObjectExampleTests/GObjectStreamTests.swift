import Foundation
import ServiceFixtures
import XCTest

/// Continuation streams through libbaton (`stream-app.py`): the app continuing an activity on
/// device B opens a `GIOStream` to the origin app on device A (`get_continuation_streams`),
/// whose `stream-received` reads the request and answers; B reads the answer to its end.
final class GObjectStreamTests: TwoDesktopTestCase {
    private var processes: [Process] = []

    override class func requirements() throws {
        try NotesExampleProcess.requirements(.python)
    }

    override func tearDown() {
        for process in processes where process.isRunning { process.terminate() }
        super.tearDown()
    }

    func testAGIOStreamCarriesARequestAndItsAnswerBetweenTheDevices() throws {
        try devices.pair()
        let script = SourceTree.path("Tests/GObjectExampleTests/stream-app.py").path
        let library = ["GI_TYPELIB_PATH": NotesExampleProcess.typelibFolder.path,
                       "LD_LIBRARY_PATH": NotesExampleProcess.productsFolder.path]
        let result = devices.b.root.appendingPathComponent("stream-result.txt")
        let request = String(repeating: "parcel ", count: 20_000)   // 140 KB, over user-info's limit
        // B has the continuing app installed: batond B starts it.
        let requestFile = devices.b.root.appendingPathComponent("request.txt")
        try request.write(to: requestFile, atomically: true, encoding: .utf8)
        let exec = (["Exec=env"] + library.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            + ["RESULT=\(result.path)", "REQUEST_FILE=\(requestFile.path)", NotesExampleProcess.python.path, script, "continue"])
            .joined(separator: " ")
        try """
        [Desktop Entry]
        Type=Application
        Name=Stream Continuer
        \(exec)
        X-Baton-TeamID=org.example
        X-Baton-ActivityTypes=org.example.streams.check;
        """.write(to: devices.b.dataHome.appendingPathComponent("applications/org.example.StreamContinuer.desktop"),
                  atomically: true, encoding: .utf8)

        let origin = Process()
        origin.executableURL = NotesExampleProcess.python
        origin.arguments = [script, "origin"]
        origin.environment = devices.a.environment.merging(library) { $1 }
        let originLog = devices.a.root.appendingPathComponent("stream-origin.log")
        _ = FileManager.default.createFile(atPath: originLog.path, contents: nil)
        origin.standardError = try FileHandle(forWritingTo: originLog)
        try origin.run()
        processes.append(origin)

        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "Stream check", timeout: 20), "B lists A's activity")
        let continued = try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertEqual(continued.status, 0, continued.errorOutput)
        XCTAssertTrue(waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: result.path) },
                      "the continuing app wrote its result; origin: \((try? String(contentsOf: originLog, encoding: .utf8)) ?? "")")
        let answer = try String(contentsOf: result, encoding: .utf8)
        XCTAssertEqual(answer.count, "answer to ".count + request.count, String(answer.prefix(300)))
        XCTAssertEqual(answer, "answer to " + request)
    }
}
