#include "CCrypto.h"

#if !defined(__APPLE__)

#include "CLibraryLoader.h"

#include <limits.h>
#include <string.h>

// Opaque OpenSSL types: only pointers to them cross this file.
typedef struct ccrypto_evp_cipher_ctx ccrypto_evp_cipher_ctx;
typedef struct ccrypto_evp_cipher ccrypto_evp_cipher;
typedef struct ccrypto_evp_md ccrypto_evp_md;
typedef struct ccrypto_engine ccrypto_engine;

typedef ccrypto_evp_cipher_ctx *(*ctx_new_fn)(void);
typedef void (*ctx_free_fn)(ccrypto_evp_cipher_ctx *);
typedef int (*ctx_set_padding_fn)(ccrypto_evp_cipher_ctx *, int);
typedef const ccrypto_evp_cipher *(*cipher_fn)(void);
typedef int (*init_fn)(
    ccrypto_evp_cipher_ctx *, const ccrypto_evp_cipher *, ccrypto_engine *, const unsigned char *,
    const unsigned char *);
typedef int (*update_fn)(ccrypto_evp_cipher_ctx *, unsigned char *, int *, const unsigned char *, int);
typedef int (*final_fn)(ccrypto_evp_cipher_ctx *, unsigned char *, int *);
typedef const ccrypto_evp_md *(*md_fn)(void);
typedef int (*digest_fn)(
    const void *, size_t, unsigned char *, unsigned int *, const ccrypto_evp_md *, ccrypto_engine *);
typedef int (*rand_bytes_fn)(unsigned char *, int);
typedef const char *(*version_fn)(int);

static struct {
    ctx_new_fn ctx_new;
    ctx_free_fn ctx_free;
    ctx_set_padding_fn ctx_set_padding;
    cipher_fn aes_256_cbc;
    init_fn encrypt_init;
    update_fn encrypt_update;
    final_fn encrypt_final;
    init_fn decrypt_init;
    update_fn decrypt_update;
    final_fn decrypt_final;
    md_fn sha256;
    digest_fn digest;
    rand_bytes_fn rand_bytes;
    version_fn version;
} crypto;

// EVP_*Update take an int length; larger inputs go through in slices of this size (a multiple
// of the block size, so slicing changes nothing in the output).
#define CCRYPTO_SLICE (1 << 30)
#define CCRYPTO_BLOCK 16

static int bind_crypto(clibrary_binder *binder) {
#define CCRYPTO_BIND(field, type, name) crypto.field = (type)clibrary_symbol(binder, name)
    CCRYPTO_BIND(ctx_new, ctx_new_fn, "EVP_CIPHER_CTX_new");
    CCRYPTO_BIND(ctx_free, ctx_free_fn, "EVP_CIPHER_CTX_free");
    CCRYPTO_BIND(ctx_set_padding, ctx_set_padding_fn, "EVP_CIPHER_CTX_set_padding");
    CCRYPTO_BIND(aes_256_cbc, cipher_fn, "EVP_aes_256_cbc");
    CCRYPTO_BIND(encrypt_init, init_fn, "EVP_EncryptInit_ex");
    CCRYPTO_BIND(encrypt_update, update_fn, "EVP_EncryptUpdate");
    CCRYPTO_BIND(encrypt_final, final_fn, "EVP_EncryptFinal_ex");
    CCRYPTO_BIND(decrypt_init, init_fn, "EVP_DecryptInit_ex");
    CCRYPTO_BIND(decrypt_update, update_fn, "EVP_DecryptUpdate");
    CCRYPTO_BIND(decrypt_final, final_fn, "EVP_DecryptFinal_ex");
    CCRYPTO_BIND(sha256, md_fn, "EVP_sha256");
    CCRYPTO_BIND(digest, digest_fn, "EVP_Digest");
    CCRYPTO_BIND(rand_bytes, rand_bytes_fn, "RAND_bytes");
#undef CCRYPTO_BIND
    // Optional: only used to describe the library.
    crypto.version = (version_fn)clibrary_optional_symbol(binder, "OpenSSL_version");
    return 0;
}

static void unbind_crypto(void) { memset(&crypto, 0, sizeof crypto); }

static clibrary_loader loader = CLIBRARY_LOADER_INITIALIZER(
    "libcrypto", "OpenSSL 1.1 or newer is required", bind_crypto, unbind_crypto);

int ccrypto_load(const char *path, char *error, size_t error_length) {
    return clibrary_load(&loader, path, error, error_length);
}

const char *ccrypto_version(void) { return crypto.version ? crypto.version(0) : NULL; }

int ccrypto_aes_256_cbc(
    int encrypt, int padding, const uint8_t *key, const uint8_t *iv, const uint8_t *input, size_t input_length,
    uint8_t *output, size_t output_capacity, size_t *output_length) {
    if (!loader.loaded || key == NULL || iv == NULL || output == NULL || output_length == NULL) return -1;
    if (input_length > SIZE_MAX - CCRYPTO_BLOCK || output_capacity < input_length + CCRYPTO_BLOCK) return -1;
    if (input_length > 0 && input == NULL) return -1;
    ccrypto_evp_cipher_ctx *context = crypto.ctx_new();
    if (context == NULL) return -1;
    init_fn init = encrypt ? crypto.encrypt_init : crypto.decrypt_init;
    update_fn update = encrypt ? crypto.encrypt_update : crypto.decrypt_update;
    final_fn final = encrypt ? crypto.encrypt_final : crypto.decrypt_final;
    int status = -1;
    size_t written = 0;
    if (init(context, crypto.aes_256_cbc(), NULL, key, iv) != 1) goto done;
    if (crypto.ctx_set_padding(context, padding ? 1 : 0) != 1) goto done;
    size_t offset = 0;
    while (offset < input_length) {
        size_t remaining = input_length - offset;
        int slice = remaining > CCRYPTO_SLICE ? CCRYPTO_SLICE : (int)remaining;
        int produced = 0;
        if (update(context, output + written, &produced, input + offset, slice) != 1 || produced < 0) goto done;
        written += (size_t)produced;
        offset += (size_t)slice;
    }
    int tail = 0;
    if (final(context, output + written, &tail) != 1 || tail < 0) goto done;
    written += (size_t)tail;
    *output_length = written;
    status = 0;
done:
    crypto.ctx_free(context);
    return status;
}

int ccrypto_sha256(const uint8_t *data, size_t length, uint8_t *digest) {
    if (!loader.loaded || digest == NULL || (length > 0 && data == NULL)) return -1;
    static const uint8_t empty = 0;
    unsigned int size = 0;
    if (crypto.digest(length > 0 ? data : &empty, length, digest, &size, crypto.sha256(), NULL) != 1) return -1;
    return size == 32 ? 0 : -1;
}

int ccrypto_random_bytes(uint8_t *buffer, size_t length) {
    if (!loader.loaded || (length > 0 && buffer == NULL)) return -1;
    size_t offset = 0;
    while (offset < length) {
        size_t remaining = length - offset;
        int slice = remaining > INT_MAX ? INT_MAX : (int)remaining;
        if (crypto.rand_bytes(buffer + offset, slice) != 1) return -1;
        offset += (size_t)slice;
    }
    return 0;
}

#else

// Apple platforms use CommonCrypto; keep the translation unit non-empty.
typedef int ccrypto_unused_on_apple;

#endif
