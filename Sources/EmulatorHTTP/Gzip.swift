internal import CZlib

/// gzip (RFC 1952) compression and decompression over the system zlib.
package enum Gzip {
    /// Compresses `input` into a complete gzip member (or a zlib or raw deflate stream), or returns
    /// `nil` if zlib fails.
    package static func compress(_ input: [UInt8], level: Int = -1, format: Format = .gzip) -> [UInt8]? {
        var stream = z_stream()
        let clampedLevel = Int32(min(9, max(-1, level)))
        let status = deflateInit2_(
            &stream, clampedLevel, Z_DEFLATED, format.windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var input = input
        let result: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// The CRC-32 of `bytes` (the checksum gzip uses).
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var value: uLong = CZlib.crc32(0, nil, 0)
        var offset = 0
        // zlib takes a 32-bit length; feed large inputs in slices.
        while offset < bytes.count {
            let count = min(bytes.count - offset, 1 << 30)
            value = bytes.withUnsafeBufferPointer { buffer in
                CZlib.crc32(value, buffer.baseAddress.map { $0 + offset }, uInt(count))
            }
            offset += count
        }
        return UInt32(truncatingIfNeeded: value)
    }

    /// The framing around a deflate stream.
    package enum Format: Sendable {
        /// RFC 1952: `1f 8b` header, CRC-32 and size trailer.
        case gzip
        /// RFC 1950: two-byte header (`78 xx`), Adler-32 trailer.
        case zlib
        /// RFC 1951 with no framing at all.
        case raw

        var windowBits: Int32 {
            switch self {
            case .gzip: return 15 + 16
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    /// Decompresses one gzip member, or returns `nil` if the data is not valid gzip or would grow
    /// beyond `maximumBytes`.
    package static func decompress(_ input: [UInt8], maximumBytes: Int = 256 * 1024 * 1024) -> [UInt8]? {
        inflate(input, format: .gzip, maximumBytes: maximumBytes)
    }

    /// Decompresses one stream in `format`, or returns `nil` if the data is not valid in that
    /// format or would grow beyond `maximumBytes`.
    package static func inflate(_ input: [UInt8], format: Format, maximumBytes: Int = 256 * 1024 * 1024) -> [UInt8]? {
        var stream = z_stream()
        guard
            inflateInit2_(&stream, format.windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { inflateEnd(&stream) }
        var input = input
        var output: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        return input.withUnsafeMutableBufferPointer { inBuffer -> [UInt8]? in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            while true {
                let (status, produced) = scratch.withUnsafeMutableBufferPointer { outBuffer -> (Int32, Int) in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, outBuffer.count - Int(stream.avail_out))
                }
                output.append(contentsOf: scratch[0..<produced])
                if output.count > maximumBytes { return nil }
                switch status {
                case Z_STREAM_END: return output
                case Z_OK: continue
                case Z_BUF_ERROR where produced > 0: continue
                default: return nil
                }
            }
        }
    }
}
