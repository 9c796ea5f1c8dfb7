// The errors the decoders and argument checks of every feature raise, in one wording.

extension PubNubError {
    /// A `.malformedResponse` error for a successful status whose body has the wrong shape.
    package static func malformedResponse(_ what: String, statusCode: Int?, underlying: (any Error)? = nil)
        -> PubNubError
    {
        PubNubError(
            reason: .malformedResponse, message: "the service's answer is malformed: \(what)",
            statusCode: statusCode, underlying: underlying)
    }

    /// A `.missingRequiredParameter` error naming the empty argument.
    package static func missingRequiredParameter(_ name: String) -> PubNubError {
        PubNubError(
            reason: .missingRequiredParameter, message: "`\(name)` must not be empty; nothing was sent",
            details: [Detail(message: "must not be empty", path: name)])
    }
}
