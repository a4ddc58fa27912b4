@testable import batond
import BatonBus
import BatonGLib
import Foundation
import XCTest

/// The rules binding a registration to what the caller cannot choose: the program an
/// `Exec=` line names, the comparison with the program a process runs, the decision, and the
/// claims a verified app is verified for.
final class AppIdentityTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("bin"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// An executable file in the test's `bin` folder.
    private func program(_ name: String) throws -> String {
        let path = folder.appendingPathComponent("bin/\(name)").path
        try "#!/bin/sh\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    private var searchPath: String { "/nonexistent:" + folder.appendingPathComponent("bin").path }

    func testTheProgramOfAnExecLineSkipsEnvAndItsAssignments() {
        XCTAssertEqual(ExecLine.program(of: "/usr/bin/mail --compose %U"), "/usr/bin/mail")
        XCTAssertEqual(ExecLine.program(of: "mail %f"), "mail")
        XCTAssertEqual(ExecLine.program(of: "env BATON_TRACE=/tmp/t GDK_BACKEND=x11 /opt/mail/bin/mail --x"), "/opt/mail/bin/mail")
        XCTAssertEqual(ExecLine.program(of: "/usr/bin/env A_1=\"two words\" mail"), "mail")
        XCTAssertEqual(ExecLine.program(of: "\"/opt/Mail Composer/bin/mail\" --compose"), "/opt/Mail Composer/bin/mail")
        XCTAssertEqual(ExecLine.program(of: "'/opt/it'\\''s/mail'"), "/opt/it's/mail")
        XCTAssertEqual(ExecLine.program(of: "env 1A=x mail"), "1A=x", "not an assignment: env would run it")
        XCTAssertNil(ExecLine.program(of: ""))
        XCTAssertNil(ExecLine.program(of: "env"))
        XCTAssertNil(ExecLine.program(of: "env A=1 B=2"))
        XCTAssertNil(ExecLine.program(of: "\"/opt/unclosed"))
    }

    func testAProgramIsLocatedThroughPATHAndComparedAfterRealpath() throws {
        let tool = try program("tool")
        let other = try program("other")
        let link = folder.appendingPathComponent("bin/alias").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: tool)
        let plain = folder.appendingPathComponent("bin/plain").path
        try "data".write(toFile: plain, atomically: true, encoding: .utf8)

        XCTAssertEqual(ProcessExecutable.locate("tool", searchPath: searchPath), tool)
        XCTAssertNil(ProcessExecutable.locate("plain", searchPath: searchPath), "not executable")
        XCTAssertNil(ProcessExecutable.locate("missing", searchPath: searchPath))
        XCTAssertNil(ProcessExecutable.locate("bin/tool", searchPath: searchPath), "relative paths are not looked up")
        XCTAssertEqual(ProcessExecutable.locate("/any/absolute", searchPath: searchPath), "/any/absolute")

        XCTAssertTrue(ProcessExecutable.executable(tool, is: "tool", searchPath: searchPath))
        XCTAssertTrue(ProcessExecutable.executable(tool, is: "alias", searchPath: searchPath), "a link to it is it")
        XCTAssertTrue(ProcessExecutable.executable(tool, is: folder.appendingPathComponent("bin/../bin/tool").path,
                                                   searchPath: nil))
        XCTAssertFalse(ProcessExecutable.executable(other, is: "tool", searchPath: searchPath))
        XCTAssertFalse(ProcessExecutable.executable(tool, is: "missing", searchPath: searchPath))
    }

    func testTheProgramOfARunningProcessIsRead() throws {
        let path = try XCTUnwrap(ProcessExecutable.path(of: getpid()))
        XCTAssertEqual(path, ProcessExecutable.canonical(CommandLine.arguments[0]), "the test runner itself")
        XCTAssertNil(ProcessExecutable.path(of: 0))
        XCTAssertNil(ProcessExecutable.path(of: Int32.max))
    }

    func testAHostAppIsVerifiedByTheProgramItsEntryNames() throws {
        let mail = try program("mail")
        let impostor = try program("impostor")
        func entry(exec: String?, tryExec: String? = nil, serviceExec: String? = nil) -> DesktopEntryPrograms {
            DesktopEntryPrograms(path: "/x/org.example.Mail.desktop", exec: exec, tryExec: tryExec, serviceExec: serviceExec)
        }
        func identity(_ executable: String?, _ entry: DesktopEntryPrograms?) throws -> AppIdentity {
            try AppVerifier.identity(of: "org.example.Mail", teamID: "org.example",
                                     evidence: IdentityEvidence(flatpakInfo: nil, executable: executable, entry: entry),
                                     searchPath: searchPath)
        }
        XCTAssertEqual(try identity(mail, entry(exec: "env LANG=C mail --compose %U")),
                       .verified(evidence: "/x/org.example.Mail.desktop"))
        XCTAssertEqual(try identity(mail, entry(exec: "/usr/bin/gapplication launch org.example.Mail", tryExec: mail)),
                       .verified(evidence: "/x/org.example.Mail.desktop"), "TryExec names it")
        XCTAssertEqual(try identity(mail, entry(exec: "/usr/bin/false", serviceExec: "/usr/bin/env A=1 \(mail) --gapplication-service")),
                       .verified(evidence: "/x/org.example.Mail.desktop"), "its D-Bus service names it")
        XCTAssertEqual(try identity(impostor, nil), .unverified("no desktop entry"), "no entry: nothing to check against")
        XCTAssertEqual(try identity(nil, nil), .unverified("no desktop entry"))

        // Another program than the entry's (an impostor, a wrapper script, a snap) registers,
        // unverified, saying which program runs and which the entry names.
        XCTAssertEqual(try identity(impostor, entry(exec: "mail %U")),
                       .unverified("runs \(impostor) but its entry names mail"))
        XCTAssertEqual(try identity(impostor, entry(exec: "mail %U", tryExec: "/opt/mail")),
                       .unverified("runs \(impostor) but its entry names mail or /opt/mail"))
        XCTAssertEqual(try identity(nil, entry(exec: "mail")), .unverified("batond cannot tell which program it runs"))
        XCTAssertFalse(try identity(mail, entry(exec: nil)).isVerified, "an entry naming no program verifies no one")
        XCTAssertEqual(try identity(mail, entry(exec: "\"unclosed")).detail,
                       "its desktop entry /x/org.example.Mail.desktop names no program")
    }

    /// An entry that runs an interpreter on a script verifies that interpreter only on that
    /// script: another script of the same interpreter is not the app.
    func testAnInterpretedAppIsVerifiedOnlyOnItsScript() throws {
        let python = try program("python3")
        let notes = try program("notes.py")
        let other = try program("other.py")
        func identity(_ arguments: [String]?, exec: String, tryExec: String? = nil,
                      in workingDirectory: String? = nil) throws -> AppIdentity {
            let entry = DesktopEntryPrograms(path: "/x/org.example.Notes.desktop", exec: exec, tryExec: tryExec, serviceExec: nil)
            return try AppVerifier.identity(of: "org.example.Notes", teamID: "org.example",
                                            evidence: IdentityEvidence(flatpakInfo: nil, executable: python, arguments: arguments,
                                                                       workingDirectory: workingDirectory, entry: entry),
                                            searchPath: searchPath)
        }
        let exec = "env GI_TYPELIB_PATH=/x python3 -u \(notes) %U"
        XCTAssertTrue(try identity(["-u", notes], exec: exec).isVerified)
        XCTAssertTrue(try identity(["notes.py", "a.txt"], exec: exec, in: folder.appendingPathComponent("bin").path).isVerified,
                      "a script named from its folder")
        XCTAssertEqual(try identity([other], exec: exec),
                       .unverified("runs \(python) on \(other) but its entry names \(python) on \(notes)"))
        XCTAssertFalse(try identity(["-c", "import evil", notes], exec: exec).isVerified, "code given on the command line")
        XCTAssertFalse(try identity([], exec: exec).isVerified, "an interactive interpreter")
        XCTAssertFalse(try identity(nil, exec: exec).isVerified, "arguments that cannot be read")
        XCTAssertFalse(try identity([other], exec: exec, tryExec: "python3").isVerified, "TryExec naming the interpreter")
        XCTAssertTrue(try identity(["-m", "notes"], exec: "python3 -m notes").isVerified,
                      "no script file named: the interpreter is the program, as before")

        // A script named as the program itself runs as its interpreter on it.
        let script = folder.appendingPathComponent("bin/notes").path
        for line in ["#!\(python)\n", "#!/usr/bin/env -S python3 -u\n"] {
            try line.write(toFile: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
            XCTAssertTrue(try identity([script], exec: "notes %F").isVerified, line)
            XCTAssertFalse(try identity([other], exec: "notes %F").isVerified, line)
        }
    }

    func testTheArgumentsOfARunningProcessAreRead() throws {
        XCTAssertEqual(ProcessExecutable.arguments(of: getpid()), Array(CommandLine.arguments.dropFirst()))
        XCTAssertEqual(ProcessExecutable.workingDirectory(of: getpid()), FileManager.default.currentDirectoryPath)
        XCTAssertNil(ProcessExecutable.arguments(of: Int32.max))
        XCTAssertEqual(ExecLine.script(of: "env A=1 /usr/bin/gjs -m /opt/notes.js %U"), "/opt/notes.js")
        XCTAssertNil(ExecLine.script(of: "/usr/bin/gedit %U"))
        XCTAssertNil(ExecLine.script(of: "python3 -m notes"))
    }

    /// A verified app is verified for the team and types its entry declares, and no others;
    /// an unverified one for none, whatever its entry declares.
    func testAVerifiedAppIsVerifiedForTheClaimsItsEntryDeclares() throws {
        let mail = try program("mail")
        let impostor = try program("impostor")
        let claims = try XCTUnwrap(DeclaredClaims(teamID: "org.example",
                                                  activityTypes: " org.example.mail.compose ; org.example.mail.read;;bad\u{202E};"))
        XCTAssertEqual(claims.activityTypes, ["org.example.mail.compose", "org.example.mail.read"], "invalid types left out")
        XCTAssertNil(DeclaredClaims(teamID: "", activityTypes: "a.b;"))
        XCTAssertNil(DeclaredClaims(teamID: "org.example", activityTypes: ";"))
        XCTAssertNil(DeclaredClaims(teamID: "org.example", activityTypes: nil))
        let entry = DesktopEntryPrograms(path: "/x/org.example.Mail.desktop", exec: "mail", tryExec: nil, serviceExec: nil,
                                         claims: claims)
        func identity(_ executable: String, flatpak: String? = nil) throws -> AppIdentity {
            try AppVerifier.identity(of: "org.example.Mail", teamID: "org.example",
                                     evidence: IdentityEvidence(flatpakInfo: flatpak, executable: executable, entry: entry),
                                     searchPath: searchPath)
        }
        let real = try identity(mail)
        XCTAssertEqual(real, .verified(evidence: "/x/org.example.Mail.desktop", declaring: claims))
        XCTAssertEqual(real.verifiedActivityTypes(teamID: "org.example", activityTypes: ["org.example.mail.compose", "x.y"]),
                       ["org.example.mail.compose"], "only declared types")
        XCTAssertEqual(real.verifiedActivityTypes(teamID: "com.evil", activityTypes: ["org.example.mail.compose"]), [],
                       "another team than the declared one: nothing")
        XCTAssertEqual(try identity(impostor).verifiedActivityTypes(teamID: "org.example",
                                                                     activityTypes: ["org.example.mail.compose"]), [])
        let sandboxed = try identity(impostor, flatpak: "[Application]\nname=org.example.Mail\n")
        XCTAssertEqual(sandboxed, .verified(evidence: "Flatpak org.example.Mail", declaring: claims),
                       "a Flatpak is verified for what its exported entry declares")
        XCTAssertEqual(AppIdentity.verified(evidence: "Flatpak org.example.Mail")
            .verifiedActivityTypes(teamID: "org.example", activityTypes: ["org.example.mail.compose"]), [],
                       "a Flatpak without an entry declaring claims is verified for none")
    }

    func testASandboxedAppIsVerifiedByItsFlatpakID() throws {
        let info = "[Application]\nname=org.example.Mail\nruntime=runtime/org.gnome.Platform/x86_64/46\n\n[Instance]\ninstance-id=1\n"
        XCTAssertEqual(AppVerifier.flatpakAppID(fromInfo: info), "org.example.Mail")
        XCTAssertNil(AppVerifier.flatpakAppID(fromInfo: "[Instance]\ninstance-id=1\n"))
        XCTAssertNil(AppVerifier.flatpakAppID(fromInfo: "not a key file"))
        let mail = try program("mail")
        let entry = DesktopEntryPrograms(path: "/x.desktop", exec: "/usr/bin/flatpak run org.example.Other",
                                         tryExec: nil, serviceExec: nil)
        func identity(_ appID: String, _ info: String) throws -> AppIdentity {
            try AppVerifier.identity(of: appID, teamID: "org.example", evidence: IdentityEvidence(flatpakInfo: info, executable: mail, entry: entry),
                                     searchPath: searchPath)
        }
        XCTAssertEqual(try identity("org.example.Mail", info), .verified(evidence: "Flatpak org.example.Mail"))
        XCTAssertThrowsError(try identity("org.example.Other", info)) { error in
            XCTAssertTrue("\(error)".contains("the Flatpak org.example.Mail"), "\(error)")
        }
        XCTAssertThrowsError(try identity("org.example.Mail", ""), "unreadable Flatpak info verifies no one")
        func team(_ teamID: String) throws -> AppIdentity {
            try AppVerifier.identity(of: "org.example.Mail", teamID: teamID,
                                     evidence: IdentityEvidence(flatpakInfo: info, executable: mail, entry: entry),
                                     searchPath: searchPath)
        }
        XCTAssertNoThrow(try team("org.example.Mail"), "its own id is a team it may use")
        XCTAssertNoThrow(try team("org"))
        for other in ["org.ex", "org.example.Mai", "com.example", "org.example.Mail.x", "", "org.example."] {
            XCTAssertThrowsError(try team(other), "team \(other)") { error in
                XCTAssertTrue("\(error)".contains("may register only a team its id starts with"), "\(error)")
            }
        }
    }

    func testTheEntryOfAnAppIdIsFoundInTheXDGFolders() throws {
        let home = folder.appendingPathComponent("home")
        let system = folder.appendingPathComponent("system")
        for path in ["home/applications", "system/applications", "system/dbus-1/services"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(path), withIntermediateDirectories: true)
        }
        let saved = ["XDG_DATA_HOME", "XDG_DATA_DIRS"].map { ($0, ProcessInfo.processInfo.environment[$0]) }
        setenv("XDG_DATA_HOME", home.path, 1)
        setenv("XDG_DATA_DIRS", system.path, 1)
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        func write(_ text: String, _ path: String) throws {
            try text.write(to: folder.appendingPathComponent(path), atomically: true, encoding: .utf8)
        }
        try write("[Desktop Entry]\nType=Application\nName=Mail\nExec=/usr/bin/mail %U\nTryExec=mail\n"
                    + "X-Baton-TeamID=org.example\nX-Baton-ActivityTypes=org.example.mail.compose;\n",
                  "system/applications/org.example.Mail.desktop")
        try write("[Desktop Entry]\nType=Application\nName=Player\nExec=/usr/bin/false\nDBusActivatable=true\n",
                  "system/applications/org.example.Player.desktop")
        try write("[D-BUS Service]\nName=org.example.Player\nExec=/usr/bin/player --gapplication-service\n",
                  "system/dbus-1/services/org.example.Player.service")
        try write("[Desktop Entry]\nType=Application\nName=Gone\nExec=/usr/bin/gone\n",
                  "system/applications/org.example.Gone.desktop")
        try write("[Desktop Entry]\nHidden=true\n", "home/applications/org.example.Gone.desktop")

        XCTAssertEqual(InstalledApps.entryPrograms(of: "org.example.Mail"),
                       DesktopEntryPrograms(path: system.appendingPathComponent("applications/org.example.Mail.desktop").path,
                                            exec: "/usr/bin/mail %U", tryExec: "mail", serviceExec: nil,
                                            claims: DeclaredClaims(teamID: "org.example", activityTypes: "org.example.mail.compose")))
        XCTAssertNil(InstalledApps.entryPrograms(of: "org.example.Player")?.claims, "no claims declared")
        XCTAssertEqual(InstalledApps.entryPrograms(of: "org.example.Player")?.serviceExec,
                       "/usr/bin/player --gapplication-service")
        XCTAssertEqual(InstalledApps.entryPrograms(of: "org.example.Player")?.programs, ["/usr/bin/false", "/usr/bin/player"])
        XCTAssertNil(InstalledApps.entryPrograms(of: "org.example.Gone"), "hidden in the user's folder: uninstalled")
        XCTAssertNil(InstalledApps.entryPrograms(of: "org.example.Missing"))

        try write("[Desktop Entry]\nType=Application\nName=Mine\nExec=/home/me/mail\n",
                  "home/applications/org.example.Mail.desktop")
        XCTAssertEqual(InstalledApps.entryPrograms(of: "org.example.Mail")?.exec, "/home/me/mail", "the user's folder wins")
        XCTAssertNil(InstalledApps.entryPrograms(of: "org.example.Mail")?.claims, "and its claims (none) with it")
    }
}
