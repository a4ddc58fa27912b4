import CFuzzer
import Foundation

/// A libFuzzer harness: the `@main` type of one executable target in Fuzz/Sources. Its
/// `main()` is this protocol's, and SwiftPM links `main` to it (as `<target>_main`), so
/// libFuzzer's own `main` is not linked and nothing clashes.
public protocol FuzzHarness {
    /// Checks one input: a decoder that breaks a promise stops the run through
    /// ``Fuzz/require(_:_:file:line:)`` or ``Fuzz/fail(_:file:line:)``.
    static func test(_ input: [UInt8])

    /// The inputs to start from, by file name, made with the real encoders where there are
    /// any: `scripts/fuzz.sh --seeds` writes them to `Fuzz/Corpus/<harness>/`.
    static func seeds() -> [String: [UInt8]]
}

extension FuzzHarness {
    /// Runs libFuzzer on ``test(_:)`` with the process's arguments, or, when
    /// `BATON_FUZZ_WRITE_SEEDS` names a folder, writes ``seeds()`` there and exits.
    public static func main() {
        Fuzz.writeSeedsIfAsked(seeds)
        exit(Fuzz.runDriver(test))
    }
}

/// What every harness shares: the oracle that turns a broken invariant into a crash libFuzzer
/// keeps (and its forms for decoders that throw), the input as bytes, a scratch folder for
/// the decoders that read files, and the seed writer that makes `Fuzz/Corpus/<harness>/`
/// from the real encoders.
public enum Fuzz {
    /// The harness's `test`, which `LLVMFuzzerTestOneInput` calls (libFuzzer takes a C
    /// function, which cannot carry it).
    nonisolated(unsafe) private static var harnessTest: ([UInt8]) -> Void = { _ in }

    /// Runs libFuzzer's driver on `test` with the process's arguments; what it returns is the
    /// process's exit status.
    static func runDriver(_ test: @escaping ([UInt8]) -> Void) -> Int32 {
        harnessTest = test
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, fuzzerTestOneInput)
    }

    /// One input, from libFuzzer, to the harness's `test`.
    fileprivate static func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        harnessTest(bytes(data, size))
        return 0
    }

    /// Stops the run as a crash (SIGABRT, which libFuzzer reports with the input) when a
    /// decoder breaks a promise: something other than its documented error, or a round trip
    /// that does not hold.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String,
                               file: StaticString = #fileID, line: UInt = #line) {
        guard !condition else { return }
        fail(message(), file: file, line: line)
    }

    /// Reports `message` and aborts.
    public static func fail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        FileHandle.standardError.write(Data("fuzz invariant broken at \(file):\(line): \(message)\n".utf8))
        abort()
    }

    /// What `body` gives, or `nil` when it throws a `Refusal`, the decoder's own error (its
    /// documented way to refuse an input); any other error is a broken promise, reported as
    /// "`what` threw <its type>".
    public static func refused<Refusal: Error, Value>(as _: Refusal.Type, _ what: String,
                                                      file: StaticString = #fileID, line: UInt = #line,
                                                      _ body: () throws -> Value) -> Value? {
        refused(as: [Refusal.self], what, file: file, line: line, body)
    }

    /// What `body` gives, or `nil` when it throws a `Refusal` or an `OtherRefusal`; any other
    /// error is a broken promise.
    public static func refused<Refusal: Error, OtherRefusal: Error, Value>(
        as _: Refusal.Type, or _: OtherRefusal.Type, _ what: String,
        file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> Value
    ) -> Value? {
        refused(as: [Refusal.self, OtherRefusal.self], what, file: file, line: line, body)
    }

    private static func refused<Value>(as refusals: [any Error.Type], _ what: String, file: StaticString, line: UInt,
                                       _ body: () throws -> Value) -> Value? {
        do {
            return try body()
        } catch {
            guard !refusals.contains(where: { isError(error, of: $0) }) else { return nil }
            fail("\(what) threw \(type(of: error)), not \(refusals.map { "\($0)" }.joined(separator: " or "))",
                 file: file, line: line)
        }
    }

    /// What `body` gives; any error it throws is a broken promise, reported as
    /// "`message`: <the error>".
    public static func orFail<Value>(_ message: @autoclosure () -> String,
                                     file: StaticString = #fileID, line: UInt = #line,
                                     _ body: () throws -> Value) -> Value {
        do {
            return try body()
        } catch {
            fail("\(message()): \(error)", file: file, line: line)
        }
    }

    private static func isError<E: Error>(_ error: any Error, of _: E.Type) -> Bool {
        error is E
    }

    /// libFuzzer's input as bytes (it may pass no pointer for an empty input).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// A private folder for this process, made on first use and removed at exit (the harness
    /// aborts if it cannot be made: it would otherwise test nothing).
    public static let scratch: URL = {
        let pattern = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-fuzz-XXXXXX")
        var template = Array(pattern.path.utf8CString)
        guard let made = mkdtemp(&template) else { fail("cannot make a scratch folder: errno \(errno)") }
        let path = String(cString: made)
        atexit { _ = try? FileManager.default.removeItem(atPath: Fuzz.scratchPath) }
        return URL(fileURLWithPath: path, isDirectory: true)
    }()

    private static var scratchPath: String { scratch.path }

    /// Writes `bytes` to `name` in ``scratch`` (mode 0600, replacing what was there) and
    /// returns its URL.
    public static func scratchFile(_ name: String, holding bytes: [UInt8]) -> URL {
        let file = scratch.appendingPathComponent(name)
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { fail("cannot write \(file.path): errno \(errno)") }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { fail("cannot write \(file.path): errno \(errno)") }
            written += count
        }
        return file
    }

    /// When `BATON_FUZZ_WRITE_SEEDS` names a folder, writes `seeds()` there, one file per
    /// name, and exits: `scripts/fuzz.sh --seeds` makes the committed corpora this way.
    /// ``FuzzHarness/main()`` calls it before libFuzzer starts.
    static func writeSeedsIfAsked(_ seeds: () -> [String: [UInt8]]) {
        guard let folder = ProcessInfo.processInfo.environment["BATON_FUZZ_WRITE_SEEDS"] else { return }
        let directory = URL(fileURLWithPath: folder, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, bytes) in seeds().sorted(by: { $0.key < $1.key }) {
                try Data(bytes).write(to: directory.appendingPathComponent(name))
            }
        } catch {
            fail("cannot write seeds to \(folder): \(error)")
        }
        exit(0)
    }
}

/// libFuzzer's callback, under the name its runtime links against.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.testOneInput(data, size)
}
