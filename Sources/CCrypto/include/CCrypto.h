// CCrypto: a tiny shim that loads the system libcrypto (OpenSSL 3 or 1.1) at run time with dlopen
// and exposes the few operations message encryption needs as plain, non-variadic C functions.
// Nothing here includes an OpenSSL header: the handful of entry points are declared in CCrypto.c
// with the signatures of OpenSSL's stable public ABI, so building needs no libssl-dev.
//
// On Apple platforms the Swift side uses CommonCrypto instead and this header declares nothing.

#ifndef CCRYPTO_H
#define CCRYPTO_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__APPLE__)

#ifdef __cplusplus
extern "C" {
#endif

/// Opens libcrypto at `path` and, the first time one loads completely, binds its functions.
/// Returns 0 on success; otherwise writes a reason into `error` and returns -1. Every other
/// function here may be called only after a call to this one succeeded.
int ccrypto_load(const char *path, char *error, size_t error_length);

/// The loaded library's version text ("OpenSSL 3.0.13 30 Jan 2024"), or NULL when unknown.
const char *ccrypto_version(void);

/// AES-256-CBC over `input` in one call: `encrypt` 1 encrypts, 0 decrypts. `key` is 32 bytes,
/// `iv` 16 bytes. With `padding` 1, PKCS#7 padding is added (encrypt) or checked and removed
/// (decrypt); with 0, `input_length` must be a multiple of 16. `output_capacity` must be at
/// least `input_length + 16`. Returns 0 and sets `output_length`, or -1 on any failure (bad
/// padding, wrong sizes, allocation failure).
int ccrypto_aes_256_cbc(
    int encrypt, int padding, const uint8_t *key, const uint8_t *iv, const uint8_t *input, size_t input_length,
    uint8_t *output, size_t output_capacity, size_t *output_length);

/// SHA-256 of `length` bytes at `data` into the 32 bytes at `digest`. Returns 0, or -1 on failure.
int ccrypto_sha256(const uint8_t *data, size_t length, uint8_t *digest);

/// Fills `length` bytes at `buffer` from libcrypto's CSPRNG. Returns 0, or -1 on failure.
int ccrypto_random_bytes(uint8_t *buffer, size_t length);

#ifdef __cplusplus
}
#endif

#endif

#endif
