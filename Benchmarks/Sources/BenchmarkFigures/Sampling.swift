/// How ordo-one samples each core benchmark; the report prints it.
public enum Sampling {
    /// Untimed samples first (the first one also builds the fixture).
    public static let warmUpSamples = 3
    /// Samples are taken for this long...
    public static let seconds = 1
    /// ...or until there are this many.
    public static let maximumSamples = 10_000
}
