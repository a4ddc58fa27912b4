import Foundation

/// Two hosts a test runs its two devices on: network namespaces `a` and `b`, where each
/// device's programs run (`ip netns exec`), and the address each device listens on there.
public protocol TwoHostNetwork: AnyObject {
    var a: String { get }
    var b: String { get }
    var addressA: String { get }
    var addressB: String { get }
    /// Stops what runs inside and removes the namespaces.
    func remove()
}

extension NetworkNamespacePair: TwoHostNetwork {}
