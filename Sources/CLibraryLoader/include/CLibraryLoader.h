// CLibraryLoader: how the C shims (CCurl, CCrypto) open a system library at run time and bind its
// functions. Both shims load the same way: every call opens the path it is given (so a caller
// naming a missing library always learns so), the first library whose functions all bind is the
// one used for the life of the process, and a missing library or function is reported in the
// same words.

#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a shim's bind function works with while one library is being bound.
typedef struct clibrary_binder {
    /// The handle `dlopen` returned.
    void *library;
    /// The loader's `library_name` and `requirement`, for the message about a missing function.
    const char *library_name;
    const char *requirement;
    char *error;
    size_t error_length;
    /// Set by `clibrary_symbol` when a required function is missing; the first one is reported.
    int missing;
} clibrary_binder;

/// Looks up a required function. When it is missing, returns NULL, marks the binding as failed
/// and (for the first missing one) writes "<library> has no symbol <name> (<requirement>)".
void *clibrary_symbol(clibrary_binder *binder, const char *name);

/// Looks up a function the shim can do without; NULL when the library lacks it.
void *clibrary_optional_symbol(clibrary_binder *binder, const char *name);

/// One shim's loading state. Make it with `CLIBRARY_LOADER_INITIALIZER` (a static) or
/// `clibrary_loader_init`.
typedef struct clibrary_loader {
    /// Names the library in messages ("libcurl").
    const char *library_name;
    /// What a missing function says the shim needs ("libcurl 7.68 or newer is required").
    const char *requirement;
    /// Binds the shim's functions through `clibrary_symbol`; returns 0 when the library is usable
    /// (it may write its own reason into `binder->error` and return non-zero). Called under the
    /// loader's lock, at most until one library binds.
    int (*bind)(clibrary_binder *binder);
    /// Forgets whatever `bind` stored after a failed binding, before the library is closed.
    void (*unbind)(void);
    pthread_mutex_t lock;
    /// 1 once a library has bound completely; never goes back to 0.
    int loaded;
} clibrary_loader;

#define CLIBRARY_LOADER_INITIALIZER(name, requirement, bind, unbind) \
    { (name), (requirement), (bind), (unbind), PTHREAD_MUTEX_INITIALIZER, 0 }

/// Sets up a loader at run time (tests make fresh ones this way). Returns 0, or -1 when the lock
/// cannot be made.
int clibrary_loader_init(
    clibrary_loader *loader, const char *library_name, const char *requirement,
    int (*bind)(clibrary_binder *binder), void (*unbind)(void));

/// Opens the library at `path` and, if no library has bound yet, binds it with the loader's
/// `bind`. Returns 0 when the loader has a bound library afterwards; otherwise writes a reason
/// into `error` ("cannot load <path>: <why>", a missing symbol, or what `bind` wrote) and
/// returns -1. A library that fails to bind is closed again.
int clibrary_load(clibrary_loader *loader, const char *path, char *error, size_t error_length);

#ifdef __cplusplus
}
#endif

#endif
