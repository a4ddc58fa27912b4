import BatonGLib
import CGLib
import XCTest

/// GVariants written in GLib's text format (`g_variant_parse`) and printed back, for tests
/// that compare ``BusValue`` with what GLib itself makes.
enum GVariantText {
    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    /// A new full reference to the GVariant `text` describes, of `type` when given.
    static func parse(_ text: String, type: String? = nil) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        let variant: OpaquePointer? = if let type {
            type.withCString { g_variant_parse(baton_variant_type($0), text, nil, nil, &error) }
        } else {
            g_variant_parse(nil, text, nil, nil, &error)
        }
        guard let variant else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            throw ParseError(description: "\(text): \(message)")
        }
        return variant
    }

    /// `variant` in GLib's text format, with type annotations.
    static func print(_ variant: OpaquePointer) -> String {
        guard let text = g_variant_print(variant, 1) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }

    static func typeString(_ variant: OpaquePointer) -> String {
        String(cString: g_variant_get_type_string(variant))
    }
}

/// The number of descriptors this process has open.
func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// How many of this process's descriptors refer to what `descriptor` refers to (the same
/// pipe, say): unlike ``openDescriptorCount()``, other threads opening or closing their own
/// descriptors meanwhile do not change it.
func descriptorCount(referringToSameAs descriptor: Int32) -> Int {
    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
          let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return -1 }
    return names.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == target }.count
}

/// A pipe whose ends close themselves.
struct TestPipe {
    let readEnd: BusFileDescriptor
    let writeEnd: BusFileDescriptor

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard g_unix_open_pipe(&ends, FD_CLOEXEC, nil) != 0 else { throw GVariantText.ParseError(description: "no pipe") }
        readEnd = BusFileDescriptor(taking: ends[0])
        writeEnd = BusFileDescriptor(taking: ends[1])
    }
}

/// Writes `text` to `descriptor`.
func write(_ text: String, to descriptor: BusFileDescriptor) {
    guard let raw = descriptor.descriptor else { return }
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(raw, $0.baseAddress, $0.count) }
}

/// Reads `descriptor` to its end, as text; what came within 5 s when the end does not come,
/// so a write end left open somewhere fails the test instead of hanging it.
func readToEnd(_ descriptor: BusFileDescriptor) -> String {
    guard let raw = descriptor.descriptor else { return "" }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        var ready = pollfd(fd: raw, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 5_000) == 1 else { break }
        let count = buffer.withUnsafeMutableBytes { Glibc.read(raw, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        result += buffer[0..<count]
    }
    return String(decoding: result, as: UTF8.self)
}
