/// Counts an event loop keeps on its own thread and adds to the server's statistics in batches:
/// with each response sent, and after each round of deliveries, instead of taking the shared
/// lock at every change.
struct LoopCounters {
    /// Connections whose answer is parked (a ``PendingResponse`` with no task behind it).
    var parked = 0
    /// Changes of a connection's registered events.
    var interestChanges = 0
    private var publishedSerialized = 0
    private var publishedInterestChanges = 0
    private var publishedParked = 0

    /// Adds a response sent to `statistics`, with the answers serialized (`serializedTotal`, the
    /// loop's total so far) and the interest changes since the last response.
    mutating func publishResponse(serializedTotal: Int, to statistics: inout HTTPServer.Statistics) {
        statistics.responsesSent += 1
        statistics.deliveriesSerialized += serializedTotal - publishedSerialized
        statistics.interestChanges += interestChanges - publishedInterestChanges
        (publishedSerialized, publishedInterestChanges) = (serializedTotal, interestChanges)
    }

    /// The change of `parked` since it was last taken; nil when there is none.
    mutating func takeParkedChange() -> Int? {
        guard parked != publishedParked else { return nil }
        defer { publishedParked = parked }
        return parked - publishedParked
    }
}
