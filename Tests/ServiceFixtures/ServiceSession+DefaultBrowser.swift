import Foundation

extension ServiceSession {
    /// Makes a script this session's default browser for `http:` and `https:` links (a
    /// desktop entry and `mimeapps.list`); it writes each link it is given as a line of the
    /// file returned, so a test reads what the browser opened.
    public func installRecordingBrowser() throws -> URL {
        let opened = root.appendingPathComponent("browser.txt")
        let script = root.appendingPathComponent("browser.sh")
        try "#!/bin/sh\necho \"$1\" >> \(opened.path)\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        try """
            [Desktop Entry]
            Type=Application
            Name=Test browser
            Exec=\(script.path) %u
            MimeType=x-scheme-handler/http;x-scheme-handler/https;
            """.write(to: dataHome.appendingPathComponent("applications/test-browser.desktop"), atomically: true, encoding: .utf8)
        try "[Default Applications]\nx-scheme-handler/https=test-browser.desktop\nx-scheme-handler/http=test-browser.desktop\n"
            .write(to: root.appendingPathComponent("config/mimeapps.list"), atomically: true, encoding: .utf8)
        return opened
    }
}
