/// The version of Baton's programs, one string for batond and `baton`.
///
/// Both print it for `--version`; it is the release, not the D-Bus interface version
/// (``BatonService/version``), which changes only when the contract does.
public enum BatonVersion {
    /// The release, as `--version` prints it: `MAJOR.MINOR.PATCH`.
    public static let string = "0.1.0"
}
