// CCurl: a tiny shim that loads libcurl at run time (dlopen) and exposes non-variadic wrappers
// around the few entry points the Transport module uses. Nothing here includes <curl/curl.h>:
// the handful of types and constants needed are declared below with the values libcurl's public
// headers give them (they are part of libcurl's stable ABI), so building needs no -dev package.

#ifndef CCURL_H
#define CCURL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An easy handle (CURL *).
typedef struct ccurl_easy ccurl_easy;
/// A multi handle (CURLM *).
typedef struct ccurl_multi ccurl_multi;
/// A header list (struct curl_slist *).
typedef struct ccurl_slist ccurl_slist;

/// Write and header callbacks: size_t fn(char *data, size_t size, size_t count, void *user).
typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *user);

// Option type bases.
#define CCURL_OPT_LONG 0
#define CCURL_OPT_POINTER 10000
#define CCURL_OPT_FUNCTION 20000
#define CCURL_OPT_OFF_T 30000

// Easy options (CURLoption).
enum {
    CCURLOPT_WRITEDATA = CCURL_OPT_POINTER + 1,
    CCURLOPT_URL = CCURL_OPT_POINTER + 2,
    CCURLOPT_WRITEFUNCTION = CCURL_OPT_FUNCTION + 11,
    CCURLOPT_POSTFIELDS = CCURL_OPT_POINTER + 15,
    CCURLOPT_HTTPHEADER = CCURL_OPT_POINTER + 23,
    CCURLOPT_HEADERDATA = CCURL_OPT_POINTER + 29,
    CCURLOPT_CUSTOMREQUEST = CCURL_OPT_POINTER + 36,
    CCURLOPT_NOPROGRESS = CCURL_OPT_LONG + 43,
    CCURLOPT_NOBODY = CCURL_OPT_LONG + 44,
    CCURLOPT_POST = CCURL_OPT_LONG + 47,
    CCURLOPT_FOLLOWLOCATION = CCURL_OPT_LONG + 52,
    CCURLOPT_SSL_VERIFYPEER = CCURL_OPT_LONG + 64,
    CCURLOPT_CAINFO = CCURL_OPT_POINTER + 65,
    CCURLOPT_HEADERFUNCTION = CCURL_OPT_FUNCTION + 79,
    CCURLOPT_HTTPGET = CCURL_OPT_LONG + 80,
    CCURLOPT_SSL_VERIFYHOST = CCURL_OPT_LONG + 81,
    CCURLOPT_NOSIGNAL = CCURL_OPT_LONG + 99,
    CCURLOPT_ACCEPT_ENCODING = CCURL_OPT_POINTER + 102,
    CCURLOPT_PRIVATE = CCURL_OPT_POINTER + 103,
    CCURLOPT_MAXFILESIZE_LARGE = CCURL_OPT_OFF_T + 117,
    CCURLOPT_POSTFIELDSIZE_LARGE = CCURL_OPT_OFF_T + 120,
    CCURLOPT_TCP_NODELAY = CCURL_OPT_LONG + 121,
    CCURLOPT_TIMEOUT_MS = CCURL_OPT_LONG + 155,
    CCURLOPT_CONNECTTIMEOUT_MS = CCURL_OPT_LONG + 156,
    CCURLOPT_TCP_KEEPALIVE = CCURL_OPT_LONG + 213,
    CCURLOPT_TCP_KEEPIDLE = CCURL_OPT_LONG + 214,
    CCURLOPT_TCP_KEEPINTVL = CCURL_OPT_LONG + 215,
    CCURLOPT_PROTOCOLS_STR = CCURL_OPT_POINTER + 318,
};

// Info codes (CURLINFO).
enum {
    CCURLINFO_RESPONSE_CODE = 0x200000 + 2,
    CCURLINFO_NUM_CONNECTS = 0x200000 + 26,
};

// Multi options (CURLMoption).
enum {
    CCURLMOPT_MAXCONNECTS = CCURL_OPT_LONG + 6,
    CCURLMOPT_MAX_HOST_CONNECTIONS = CCURL_OPT_LONG + 7,
    CCURLMOPT_SOCKETFUNCTION = CCURL_OPT_FUNCTION + 1,
    CCURLMOPT_SOCKETDATA = CCURL_OPT_POINTER + 2,
    CCURLMOPT_TIMERFUNCTION = CCURL_OPT_FUNCTION + 4,
    CCURLMOPT_TIMERDATA = CCURL_OPT_POINTER + 5,
};

// curl_multi_socket_action: the socket meaning "timeouts only", the readiness bits passed in,
// and the interest a socket callback reports.
#define CCURL_SOCKET_TIMEOUT (-1)
enum { CCURL_CSELECT_IN = 1, CCURL_CSELECT_OUT = 2, CCURL_CSELECT_ERR = 4 };
enum { CCURL_POLL_IN = 1, CCURL_POLL_OUT = 2, CCURL_POLL_INOUT = 3, CCURL_POLL_REMOVE = 4 };

/// Socket callback: int fn(CURL *easy, curl_socket_t socket, int what, void *user, void *socket_user).
typedef int (*ccurl_socket_callback)(ccurl_easy *easy, int socket, int what, void *user, void *socket_user);
/// Timer callback: int fn(CURLM *multi, long timeout_ms, void *user).
typedef int (*ccurl_timer_callback)(ccurl_multi *multi, long timeout_ms, void *user);

// Result codes (CURLcode) the Transport module maps to its own errors.
enum {
    CCURLE_OK = 0,
    CCURLE_UNSUPPORTED_PROTOCOL = 1,
    CCURLE_URL_MALFORMAT = 3,
    CCURLE_COULDNT_RESOLVE_PROXY = 5,
    CCURLE_COULDNT_RESOLVE_HOST = 6,
    CCURLE_COULDNT_CONNECT = 7,
    CCURLE_WEIRD_SERVER_REPLY = 8,
    CCURLE_HTTP2 = 16,
    CCURLE_PARTIAL_FILE = 18,
    CCURLE_WRITE_ERROR = 23,
    CCURLE_OUT_OF_MEMORY = 27,
    CCURLE_OPERATION_TIMEDOUT = 28,
    CCURLE_SSL_CONNECT_ERROR = 35,
    CCURLE_ABORTED_BY_CALLBACK = 42,
    CCURLE_GOT_NOTHING = 52,
    CCURLE_SEND_ERROR = 55,
    CCURLE_RECV_ERROR = 56,
    CCURLE_SSL_CERTPROBLEM = 58,
    CCURLE_SSL_CIPHER = 59,
    CCURLE_PEER_FAILED_VERIFICATION = 60,
    CCURLE_BAD_CONTENT_ENCODING = 61,
    CCURLE_FILESIZE_EXCEEDED = 63,
    CCURLE_SSL_CACERT_BADFILE = 77,
    CCURLE_SSL_SHUTDOWN_FAILED = 80,
    CCURLE_SSL_CRL_BADFILE = 82,
    CCURLE_SSL_ISSUER_ERROR = 83,
    CCURLE_HTTP2_STREAM = 92,
    CCURLE_SSL_CLIENTCERT = 98,
};

/// Opens libcurl at `path` and, the first time one loads completely, binds its functions and
/// calls curl_global_init. Returns 0 on success; otherwise writes a reason into `error` and
/// returns -1. libcurl 7.68 or newer is required (curl_multi_poll and curl_multi_wakeup). Every
/// other function here may be called only after a call to this one succeeded.
int ccurl_load(const char *path, char *error, size_t error_length);

/// The libcurl version text ("7.88.1"), or NULL when not loaded.
const char *ccurl_version(void);

ccurl_easy *ccurl_easy_init(void);
void ccurl_easy_cleanup(ccurl_easy *easy);
void ccurl_easy_reset(ccurl_easy *easy);
/// Runs one transfer to completion on the calling thread (blocking). Used by the benchmarks' bare loop.
int ccurl_easy_perform(ccurl_easy *easy);
int ccurl_easy_setopt_long(ccurl_easy *easy, int option, long value);
int ccurl_easy_setopt_pointer(ccurl_easy *easy, int option, const void *value);
int ccurl_easy_setopt_off_t(ccurl_easy *easy, int option, int64_t value);
int ccurl_easy_setopt_data_callback(ccurl_easy *easy, int option, ccurl_data_callback callback);
/// Makes every socket the handle opens close-on-exec (CURLOPT_OPENSOCKETFUNCTION), so processes
/// the app spawns do not inherit its connections. Returns libcurl's CURLcode.
int ccurl_easy_use_cloexec_sockets(ccurl_easy *easy);
int ccurl_easy_getinfo_long(ccurl_easy *easy, int info, long *value);
const char *ccurl_easy_strerror(int code);

ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *line);
void ccurl_slist_free_all(ccurl_slist *list);

ccurl_multi *ccurl_multi_init(void);
int ccurl_multi_cleanup(ccurl_multi *multi);
int ccurl_multi_setopt_long(ccurl_multi *multi, int option, long value);
int ccurl_multi_add_handle(ccurl_multi *multi, ccurl_easy *easy);
int ccurl_multi_remove_handle(ccurl_multi *multi, ccurl_easy *easy);
int ccurl_multi_perform(ccurl_multi *multi, int *running);
/// Waits for activity or `timeout_ms`, whichever first; returns early on ccurl_multi_wakeup.
int ccurl_multi_poll(ccurl_multi *multi, int timeout_ms);
/// Interrupts a ccurl_multi_poll on another thread. The only call that is safe from any thread.
int ccurl_multi_wakeup(ccurl_multi *multi);
int ccurl_multi_socket_action(ccurl_multi *multi, int socket, int mask, int *running);
int ccurl_multi_setopt_pointer(ccurl_multi *multi, int option, void *value);
int ccurl_multi_setopt_socket_callback(ccurl_multi *multi, ccurl_socket_callback callback);
int ccurl_multi_setopt_timer_callback(ccurl_multi *multi, ccurl_timer_callback callback);

/// Drives a multi handle with curl_multi_socket_action from readiness events of an epoll
/// (Linux) or kqueue (Apple platforms) instance of its own, with a one-shot timer for curl's
/// timeouts and a wake-up event. It installs the multi handle's socket and timer callbacks, which
/// register sockets and arm the timer directly: any thread may drive the multi handle (one at a
/// time, under the caller's lock) while another waits in `ccurl_driver_wait`, and the waiter sees
/// a new socket without being woken.
typedef struct ccurl_driver ccurl_driver;

/// Creates a driver for `multi`; NULL with errno set when the platform has no epoll or kqueue.
ccurl_driver *ccurl_driver_create(ccurl_multi *multi);
/// Installs the driver as `multi`'s socket and timer callbacks; 0 on success.
int ccurl_driver_install(ccurl_driver *driver);
/// Closes the driver's descriptors. Call after curl_multi_cleanup (which reports sockets removed).
void ccurl_driver_destroy(ccurl_driver *driver);
/// Lets curl run what is due now (socket_action on timeouts, repeated while curl asks for an
/// immediate timeout), then arms the timer for curl's next timeout. Call under the lock, after
/// curl_multi_add_handle or curl_multi_remove_handle.
void ccurl_driver_kick(ccurl_driver *driver);
/// Waits up to `timeout_ms` (-1: until something happens) without touching the multi handle and
/// stores up to `capacity` events; returns how many (0 on a timeout or an interrupted wait).
int ccurl_driver_wait(ccurl_driver *driver, int *sockets, int *masks, int capacity, int timeout_ms);
/// Hands one event from `ccurl_driver_wait` to curl, then arms the timer. Call under the lock.
/// Returns 1 when the event was a `ccurl_driver_wake`, 0 otherwise.
int ccurl_driver_handle(ccurl_driver *driver, int socket, int mask);
/// Makes a `ccurl_driver_wait` on another thread return. Safe from any thread.
void ccurl_driver_wake(ccurl_driver *driver);

/// Reads the next finished transfer: returns 1 and fills `easy` and `result`, or 0 when none.
int ccurl_multi_next_done(ccurl_multi *multi, ccurl_easy **easy, int *result);

#ifdef __cplusplus
}
#endif

#endif
