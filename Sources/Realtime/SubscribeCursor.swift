/// Where a subscribe loop stands in a channel set's stream: the timetoken to read after and the
/// region (data centre) that answered, sent back as `tt` and `tr`.
package struct SubscribeCursor: Hashable, Sendable, CustomStringConvertible {
    package var timetoken: Timetoken
    package var region: Int

    package init(timetoken: Timetoken, region: Int = 0) {
        self.timetoken = timetoken
        self.region = region
    }

    package var description: String { "\(timetoken)@\(region)" }
}
