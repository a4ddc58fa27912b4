import Foundation

/// A file in batond's config folder, or the machine's `/etc/baton/batond.conf`, that it cannot
/// use (`batond.conf`, `paired-devices.json`): the file and what is wrong with it. batond then stops and
/// leaves the file as it is.
struct ConfigError: Error, CustomStringConvertible {
    /// The file at fault.
    let file: URL
    /// What is wrong, such as a setting's bad value or why the file cannot be read.
    let reason: String

    init(_ file: URL, _ reason: String) {
        self.file = file
        self.reason = reason
    }

    var description: String { "\(file.path): \(reason)" }
}
