import CGLib
import Glibc
import Synchronization

/// An open file descriptor this process owns, as D-Bus passes them (`h`): closed when the
/// last reference goes, unless ``take()`` handed it over first.
///
/// A descriptor received in a method call or reply is a duplicate of the one in the
/// message, so it outlives the message. Sending one duplicates it into the message too: the
/// object still owns its descriptor afterwards. Two instances are equal only when they are
/// the same object.
public final class BusFileDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The descriptor, or -1 once taken or closed.
    private let state: Mutex<Int32>

    /// Takes ownership of `descriptor`: this object closes it.
    public init(taking descriptor: Int32) {
        state = Mutex(descriptor)
    }

    /// Owns a duplicate of `descriptor` (close-on-exec); the caller keeps its own.
    ///
    /// - Throws: ``BusValueError/fileDescriptorUnavailable(_:)`` when it cannot be duplicated.
    public convenience init(duplicating descriptor: Int32) throws {
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else {
            throw BusValueError.fileDescriptorUnavailable(String(cString: strerror(errno)))
        }
        self.init(taking: duplicate)
    }

    deinit {
        close()
    }

    /// The descriptor while this object owns it, to read or write through; `nil` once taken
    /// or closed. Do not close it: call ``close()`` or ``take()``.
    public var descriptor: Int32? {
        state.withLock { $0 >= 0 ? $0 : nil }
    }

    /// Whether this object still owns an open descriptor.
    public var isOpen: Bool { descriptor != nil }

    /// Hands the descriptor over: the caller closes it. `nil` when already taken or closed.
    public func take() -> Int32? {
        state.withLock { descriptor in
            defer { descriptor = -1 }
            return descriptor >= 0 ? descriptor : nil
        }
    }

    /// Closes the descriptor now, unless it was taken or closed already.
    public func close() {
        if let descriptor = take() {
            _ = Glibc.close(descriptor)
        }
    }

    /// Appends a duplicate of the descriptor to `list`, returning its index there.
    ///
    /// - Throws: ``BusValueError/fileDescriptorUnavailable(_:)`` when it was taken or
    ///   closed, or cannot be duplicated.
    func append(to list: UnsafeMutablePointer<GUnixFDList>) throws -> Int32 {
        try state.withLock { descriptor throws(BusValueError) -> Int32 in
            guard descriptor >= 0 else {
                throw BusValueError.fileDescriptorUnavailable("the descriptor was already taken or closed")
            }
            var error: UnsafeMutablePointer<GError>?
            let index = g_unix_fd_list_append(list, descriptor, &error)
            guard index >= 0 else {
                let reason = error.map { String(cString: $0.pointee.message) } ?? "cannot be duplicated"
                g_clear_error(&error)
                throw BusValueError.fileDescriptorUnavailable(reason)
            }
            return index
        }
    }

    public var description: String {
        descriptor.map { "file descriptor \($0)" } ?? "closed file descriptor"
    }

    public static func == (lhs: BusFileDescriptor, rhs: BusFileDescriptor) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
