internal import CCurl
import Foundation

/// One request while libcurl works on it. Once in the multi handle it is touched only under the
/// engine's lock (libcurl calls the write and header callbacks from inside locked calls).
final class CurlTransfer {
    let id: UInt64
    let request: HTTPRequest
    let continuation: CheckedContinuation<HTTPResponse, any Error>
    let maximumBytes: Int
    var easy: OpaquePointer?
    var headerList: OpaquePointer?
    var requestBody: UnsafeMutableRawBufferPointer?
    var responseHeaders = CurlHeaderLines()
    var responseBody: [UInt8] = []
    var exceededLimit = false

    init(
        id: UInt64, request: HTTPRequest, continuation: CheckedContinuation<HTTPResponse, any Error>,
        maximumBytes: Int
    ) {
        self.id = id
        self.request = request
        self.continuation = continuation
        self.maximumBytes = maximumBytes
    }

    /// Frees what libcurl borrowed for the transfer. Call after the easy handle left the multi handle.
    func releaseBuffers() {
        if let headerList { ccurl_slist_free_all(headerList) }
        headerList = nil
        requestBody?.deallocate()
        requestBody = nil
    }
}

/// The header fields of the response being received, built from libcurl's header lines.
///
/// Works on the bytes directly (no Foundation trimming, no intermediate arrays): it runs for
/// every header of every response, on the thread that completes the transfer.
struct CurlHeaderLines {
    /// The fields so far, in arrival order.
    private(set) var fields: [HTTPHeaders.Field] = []

    /// Takes one line as libcurl hands it over (with its line ending): a status line starts the
    /// fields afresh (an interim `100 Continue` came first), a line starting with a space or tab
    /// continues the previous field (obsolete folding, joined with one space), a line without a
    /// colon is ignored, and leading and trailing spaces and tabs of a value are dropped.
    mutating func receive(_ line: UnsafeBufferPointer<UInt8>) {
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A { end -= 1 }
        if end == 0 { return }
        if end >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F {
            // "HTTP/": a new response begins.
            fields.removeAll(keepingCapacity: true)
            return
        }
        if Self.isBlank(line[0]), let previous = fields.popLast() {
            let folded = Self.text(line, from: 0, to: end)
            fields.append(HTTPHeaders.Field(name: previous.name, value: previous.value + " " + folded))
            return
        }
        var colon = 0
        while colon < end, line[colon] != 0x3A { colon += 1 }
        guard colon < end else { return }
        let name = String(decoding: UnsafeBufferPointer(rebasing: line[0..<colon]), as: UTF8.self)
        fields.append(HTTPHeaders.Field(name: name, value: Self.text(line, from: colon + 1, to: end)))
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// `line[start..<end]` without leading and trailing spaces and tabs, as a string.
    private static func text(_ line: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> String {
        var start = start
        var end = end
        while start < end, isBlank(line[start]) { start += 1 }
        while end > start, isBlank(line[end - 1]) { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }
}

/// What the body and header callbacks share: the transfer behind `user` and the `size × count`
/// bytes at `data`, handed to `receive`, which returns whether to go on. Returns what libcurl
/// expects back: the byte count to go on, anything else (0) to stop the transfer.
private func curlReceive(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?,
    _ receive: (CurlTransfer, UnsafeBufferPointer<UInt8>) -> Bool
) -> Int {
    guard let user else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    let goOn = UnsafeRawPointer(data).withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
        receive(transfer, UnsafeBufferPointer(start: bytes, count: length))
    }
    return goOn ? length : 0
}

func curlWriteBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?
) -> Int {
    curlReceive(data, size, count, user) { transfer, bytes in
        if transfer.responseBody.count + bytes.count > transfer.maximumBytes {
            transfer.exceededLimit = true
            return false  // makes libcurl stop with CURLE_WRITE_ERROR
        }
        transfer.responseBody.append(contentsOf: bytes)
        return true
    }
}

func curlWriteHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?
) -> Int {
    curlReceive(data, size, count, user) { transfer, bytes in
        transfer.responseHeaders.receive(bytes)
        return true
    }
}
