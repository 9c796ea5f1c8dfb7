internal import CZlib

/// gzip (RFC 1952) members over the system zlib: how a compressed publish body travels
/// (`Content-Encoding: gzip` on a POST publish).
package enum GzipBody {
    /// Window bits selecting a 32 KiB window with gzip framing (15, plus 16 for the gzip wrapper).
    private static let windowBits: Int32 = 31

    /// `bytes` as one gzip member, or `nil` when zlib cannot set up or finish the stream.
    package static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        var input = bytes
        let status = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                // deflateBound leaves room for the whole member, so one call finishes it.
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// The content of one gzip member, or `nil` when it is not valid gzip or inflates beyond
    /// `limit` bytes. Used by tests to read what was sent.
    package static func decompress(_ bytes: [UInt8], limit: Int = 16 * 1024 * 1024) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var input = bytes
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        return input.withUnsafeMutableBufferPointer { source -> [UInt8]? in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, target.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                guard output.count <= limit else { return nil }
                switch status {
                case Z_STREAM_END: return output
                case Z_OK where produced > 0 || stream.avail_in > 0: continue
                default: return nil
                }
            }
        }
    }
}
