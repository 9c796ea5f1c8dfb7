import CLibraryLoader
import Foundation
import PubNubBase
import Testing

/// A fresh loader named "libcurl" that requires "a test build", freed with the object.
private final class TestLoader {
    private let loader = UnsafeMutablePointer<clibrary_loader>.allocate(capacity: 1)
    private let name = strdup("libcurl")
    private let requirement = strdup("a test build")

    init(
        bind: @convention(c) (UnsafeMutablePointer<clibrary_binder>?) -> Int32,
        unbind: @convention(c) () -> Void
    ) throws {
        loader.initialize(to: clibrary_loader())
        try #require(clibrary_loader_init(loader, name, requirement, bind, unbind) == 0)
    }

    deinit {
        pthread_mutex_destroy(&loader.pointee.lock)
        loader.deallocate()
        free(name)
        free(requirement)
    }

    /// Loads `path`: the status and the error text.
    func load(_ path: String) -> (status: Int32, error: String) {
        var buffer = [CChar](repeating: 0, count: 512)
        let status = buffer.withUnsafeMutableBufferPointer { clibrary_load(loader, path, $0.baseAddress, $0.count) }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return (status, String(decoding: text, as: UTF8.self))
    }

    var isLoaded: Bool { loader.pointee.loaded != 0 }
}

// The loader CCurl and CCrypto share, driven with fresh loaders (the shims' own loaders are
// process-wide and already bound by other tests) over the libcurl the transport uses.
@Suite("C library loader")
struct LibraryLoaderTests {
    #if canImport(Darwin)
        static let libraryPath = "/usr/lib/libcurl.4.dylib"
    #else
        static let libraryPath = "libcurl.so.4"
    #endif

    /// How often each test's bind and unbind ran; a test owns the entries under its own name.
    static let calls = Locked<[String: Int]>([:])

    static func count(_ name: String) -> Int { calls.withLock { $0[name, default: 0] } }
    static func record(_ name: String) { calls.withLock { $0[name, default: 0] += 1 } }

    @Test("a library lacking a required function is refused, naming the first missing one, and forgotten")
    func missingSymbol() throws {
        let loader = try TestLoader(
            bind: { binder in
                LibraryLoaderTests.record("missing.bind")
                guard let binder else { return -1 }
                _ = clibrary_symbol(binder, "curl_version")
                _ = clibrary_symbol(binder, "curl_no_such_function_one")
                _ = clibrary_symbol(binder, "curl_no_such_function_two")
                return 0
            },
            unbind: { LibraryLoaderTests.record("missing.unbind") }
        )
        let result = loader.load(Self.libraryPath)
        #expect(result.status == -1)
        #expect(result.error == "libcurl has no symbol curl_no_such_function_one (a test build)")
        #expect(!loader.isLoaded)
        #expect(Self.count("missing.unbind") == 1)
        // Nothing was kept, so the next attempt binds again.
        _ = loader.load(Self.libraryPath)
        #expect(Self.count("missing.bind") == 2)
    }

    @Test("an optional function that is missing does not fail the binding")
    func optionalSymbol() throws {
        let loader = try TestLoader(
            bind: { binder in
                guard let binder, clibrary_symbol(binder, "curl_version") != nil else { return -1 }
                return clibrary_optional_symbol(binder, "curl_no_such_function") == nil ? 0 : -1
            },
            unbind: {}
        )
        #expect(loader.load(Self.libraryPath).status == 0)
        #expect(loader.isLoaded)
    }

    @Test("the first library that binds is kept: later loads do not bind again, a missing path still fails")
    func firstBoundLibraryIsKept() throws {
        let loader = try TestLoader(
            bind: { binder in
                LibraryLoaderTests.record("kept.bind")
                guard let binder else { return -1 }
                return clibrary_symbol(binder, "curl_version") == nil ? -1 : 0
            },
            unbind: { LibraryLoaderTests.record("kept.unbind") }
        )
        #expect(loader.load(Self.libraryPath).status == 0)
        #expect(loader.isLoaded)
        #expect(loader.load(Self.libraryPath).status == 0)
        #expect(Self.count("kept.bind") == 1)
        let missing = loader.load("/nonexistent/libloader-missing.so")
        #expect(missing.status == -1)
        #expect(missing.error.hasPrefix("cannot load /nonexistent/libloader-missing.so: "))
        #expect(loader.isLoaded)
        #expect(Self.count("kept.unbind") == 0)
    }

    @Test("a bind that fails for its own reason reports that reason and is forgotten")
    func bindFailure() throws {
        let loader = try TestLoader(
            bind: { binder in
                guard let binder, let error = binder.pointee.error else { return -1 }
                strncpy(error, "set-up failed", binder.pointee.error_length - 1)
                return 1
            },
            unbind: { LibraryLoaderTests.record("failure.unbind") }
        )
        let result = loader.load(Self.libraryPath)
        #expect(result.status == -1)
        #expect(result.error == "set-up failed")
        #expect(!loader.isLoaded)
        #expect(Self.count("failure.unbind") == 1)
    }
}
