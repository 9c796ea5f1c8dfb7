#include "CCurl.h"

#include "CLibraryLoader.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

// The layout of libcurl's CURLMsg (multi.h): an enum, the easy handle, then a union whose
// `result` member is a CURLcode (an int-sized enum) sharing space with a pointer.
struct ccurl_message {
    int msg;
    ccurl_easy *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
};

#define CCURL_MSG_DONE 1
#define CCURL_GLOBAL_ALL 3L

typedef int (*global_init_fn)(long);
typedef const char *(*version_fn)(void);
typedef ccurl_easy *(*easy_init_fn)(void);
typedef void (*easy_cleanup_fn)(ccurl_easy *);
typedef int (*easy_setopt_fn)(ccurl_easy *, int, ...);
typedef int (*easy_getinfo_fn)(ccurl_easy *, int, ...);
typedef int (*easy_perform_fn)(ccurl_easy *);
typedef const char *(*easy_strerror_fn)(int);
typedef ccurl_slist *(*slist_append_fn)(ccurl_slist *, const char *);
typedef void (*slist_free_all_fn)(ccurl_slist *);
typedef ccurl_multi *(*multi_init_fn)(void);
typedef int (*multi_cleanup_fn)(ccurl_multi *);
typedef int (*multi_setopt_fn)(ccurl_multi *, int, ...);
typedef int (*multi_handle_fn)(ccurl_multi *, ccurl_easy *);
typedef int (*multi_perform_fn)(ccurl_multi *, int *);
typedef int (*multi_poll_fn)(ccurl_multi *, void *, unsigned int, int, int *);
typedef int (*multi_wakeup_fn)(ccurl_multi *);
typedef int (*multi_socket_action_fn)(ccurl_multi *, int, int, int *);
typedef struct ccurl_message *(*multi_info_read_fn)(ccurl_multi *, int *);

static struct {
    global_init_fn global_init;
    version_fn version;
    easy_init_fn easy_init;
    easy_cleanup_fn easy_cleanup;
    easy_cleanup_fn easy_reset;
    easy_setopt_fn easy_setopt;
    easy_getinfo_fn easy_getinfo;
    easy_perform_fn easy_perform;
    easy_strerror_fn easy_strerror;
    slist_append_fn slist_append;
    slist_free_all_fn slist_free_all;
    multi_init_fn multi_init;
    multi_cleanup_fn multi_cleanup;
    multi_setopt_fn multi_setopt;
    multi_handle_fn multi_add_handle;
    multi_handle_fn multi_remove_handle;
    multi_perform_fn multi_perform;
    multi_poll_fn multi_poll;
    multi_wakeup_fn multi_wakeup;
    multi_socket_action_fn multi_socket_action;
    multi_info_read_fn multi_info_read;
} curl;

static int bind_curl(clibrary_binder *binder) {
#define CCURL_BIND(field, type, name) curl.field = (type)clibrary_symbol(binder, name)
    CCURL_BIND(global_init, global_init_fn, "curl_global_init");
    CCURL_BIND(version, version_fn, "curl_version");
    CCURL_BIND(easy_init, easy_init_fn, "curl_easy_init");
    CCURL_BIND(easy_cleanup, easy_cleanup_fn, "curl_easy_cleanup");
    CCURL_BIND(easy_reset, easy_cleanup_fn, "curl_easy_reset");
    CCURL_BIND(easy_setopt, easy_setopt_fn, "curl_easy_setopt");
    CCURL_BIND(easy_getinfo, easy_getinfo_fn, "curl_easy_getinfo");
    CCURL_BIND(easy_perform, easy_perform_fn, "curl_easy_perform");
    CCURL_BIND(easy_strerror, easy_strerror_fn, "curl_easy_strerror");
    CCURL_BIND(slist_append, slist_append_fn, "curl_slist_append");
    CCURL_BIND(slist_free_all, slist_free_all_fn, "curl_slist_free_all");
    CCURL_BIND(multi_init, multi_init_fn, "curl_multi_init");
    CCURL_BIND(multi_cleanup, multi_cleanup_fn, "curl_multi_cleanup");
    CCURL_BIND(multi_setopt, multi_setopt_fn, "curl_multi_setopt");
    CCURL_BIND(multi_add_handle, multi_handle_fn, "curl_multi_add_handle");
    CCURL_BIND(multi_remove_handle, multi_handle_fn, "curl_multi_remove_handle");
    CCURL_BIND(multi_perform, multi_perform_fn, "curl_multi_perform");
    CCURL_BIND(multi_poll, multi_poll_fn, "curl_multi_poll");
    CCURL_BIND(multi_wakeup, multi_wakeup_fn, "curl_multi_wakeup");
    CCURL_BIND(multi_socket_action, multi_socket_action_fn, "curl_multi_socket_action");
    CCURL_BIND(multi_info_read, multi_info_read_fn, "curl_multi_info_read");
#undef CCURL_BIND
    if (binder->missing) return -1;
    if (curl.global_init(CCURL_GLOBAL_ALL) != 0) {
        snprintf(binder->error, binder->error_length, "curl_global_init failed");
        return -1;
    }
    return 0;
}

static void unbind_curl(void) { memset(&curl, 0, sizeof curl); }

static clibrary_loader loader =
    CLIBRARY_LOADER_INITIALIZER("libcurl", "libcurl 7.68 or newer is required", bind_curl, unbind_curl);

int ccurl_load(const char *path, char *error, size_t error_length) {
    return clibrary_load(&loader, path, error, error_length);
}

const char *ccurl_version(void) { return curl.version ? curl.version() : NULL; }

ccurl_easy *ccurl_easy_init(void) { return curl.easy_init(); }
void ccurl_easy_cleanup(ccurl_easy *easy) { curl.easy_cleanup(easy); }
void ccurl_easy_reset(ccurl_easy *easy) { curl.easy_reset(easy); }
int ccurl_easy_perform(ccurl_easy *easy) { return curl.easy_perform(easy); }

int ccurl_easy_setopt_long(ccurl_easy *easy, int option, long value) {
    return curl.easy_setopt(easy, option, value);
}

int ccurl_easy_setopt_pointer(ccurl_easy *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}

int ccurl_easy_setopt_off_t(ccurl_easy *easy, int option, int64_t value) {
    // curl_off_t is a 64-bit signed integer on every platform libcurl supports.
    return curl.easy_setopt(easy, option, value);
}

int ccurl_easy_setopt_data_callback(ccurl_easy *easy, int option, ccurl_data_callback callback) {
    return curl.easy_setopt(easy, option, callback);
}

// libcurl's struct curl_sockaddr (curl.h), handed to CURLOPT_OPENSOCKETFUNCTION.
struct ccurl_sockaddr {
    int family;
    int socktype;
    int protocol;
    unsigned int addrlen;
    struct sockaddr addr;
};

#define CCURLOPT_OPENSOCKETFUNCTION 20163
#define CCURL_SOCKET_BAD (-1)

// Opens the socket libcurl asks for, close-on-exec: a process the app spawns must not inherit the
// client's connections, or a connection the client closes (or the server resets) stays open in
// the child and the client's peer never sees it go.
static int ccurl_open_cloexec_socket(void *unused, int purpose, struct ccurl_sockaddr *address) {
    (void)unused;
    (void)purpose;
#ifdef SOCK_CLOEXEC
    int fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
#else
    int fd = socket(address->family, address->socktype, address->protocol);
    if (fd >= 0) (void)fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
#endif
    return fd >= 0 ? fd : CCURL_SOCKET_BAD;
}

int ccurl_easy_use_cloexec_sockets(ccurl_easy *easy) {
    return curl.easy_setopt(easy, CCURLOPT_OPENSOCKETFUNCTION, ccurl_open_cloexec_socket);
}

int ccurl_easy_getinfo_long(ccurl_easy *easy, int info, long *value) {
    return curl.easy_getinfo(easy, info, value);
}

const char *ccurl_easy_strerror(int code) { return curl.easy_strerror ? curl.easy_strerror(code) : "libcurl not loaded"; }

ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *line) { return curl.slist_append(list, line); }
void ccurl_slist_free_all(ccurl_slist *list) { curl.slist_free_all(list); }

ccurl_multi *ccurl_multi_init(void) { return curl.multi_init(); }
int ccurl_multi_cleanup(ccurl_multi *multi) { return curl.multi_cleanup(multi); }

int ccurl_multi_setopt_long(ccurl_multi *multi, int option, long value) {
    return curl.multi_setopt(multi, option, value);
}

int ccurl_multi_add_handle(ccurl_multi *multi, ccurl_easy *easy) { return curl.multi_add_handle(multi, easy); }
int ccurl_multi_remove_handle(ccurl_multi *multi, ccurl_easy *easy) { return curl.multi_remove_handle(multi, easy); }
int ccurl_multi_perform(ccurl_multi *multi, int *running) { return curl.multi_perform(multi, running); }

int ccurl_multi_poll(ccurl_multi *multi, int timeout_ms) {
    int ready = 0;
    return curl.multi_poll(multi, NULL, 0, timeout_ms, &ready);
}

int ccurl_multi_wakeup(ccurl_multi *multi) { return curl.multi_wakeup(multi); }

int ccurl_multi_socket_action(ccurl_multi *multi, int socket, int mask, int *running) {
    return curl.multi_socket_action(multi, socket, mask, running);
}

int ccurl_multi_setopt_pointer(ccurl_multi *multi, int option, void *value) {
    return curl.multi_setopt(multi, option, value);
}

int ccurl_multi_setopt_socket_callback(ccurl_multi *multi, ccurl_socket_callback callback) {
    return curl.multi_setopt(multi, CCURLMOPT_SOCKETFUNCTION, callback);
}

int ccurl_multi_setopt_timer_callback(ccurl_multi *multi, ccurl_timer_callback callback) {
    return curl.multi_setopt(multi, CCURLMOPT_TIMERFUNCTION, callback);
}

int ccurl_multi_next_done(ccurl_multi *multi, ccurl_easy **easy, int *result) {
    int remaining = 0;
    struct ccurl_message *message;
    while ((message = curl.multi_info_read(multi, &remaining)) != NULL) {
        if (message->msg == CCURL_MSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}
