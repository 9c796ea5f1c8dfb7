// The readiness side of the curl engine: an epoll (Linux) or kqueue (Apple platforms) instance
// that curl's socket callback feeds directly, a one-shot timer armed from curl's timer callback,
// and a wake-up event. See ccurl_driver_* in CCurl.h for the threading rules.
//
// Both halves avoid system calls that a sequence of requests on one kept-alive connection would
// otherwise make every time (a profile of the round trip showed them as the engine thread's main
// cost after the wait itself):
// - On Linux a socket curl stops watching stays in the epoll set ("lazy removal"): when curl
//   watches it again for the next request, one EPOLL_CTL_MOD (or nothing, when curl's interest
//   has not changed since) replaces a DEL, a failing MOD and an ADD. A socket that reports an
//   event while curl does not watch it (an idle connection the server closed) is taken out then.
// - The timer is only re-armed when curl asks for an earlier expiry than the armed one. A later
//   expiry, or none, leaves it armed; if it then fires early, curl is asked to run its timeouts
//   (which finds nothing due) and the timer is armed again for what curl asked for last.

#include "CCurl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#elif defined(__APPLE__)
#include <sys/event.h>
#include <sys/time.h>
#endif

struct ccurl_driver {
    ccurl_multi *multi;
    int queue;  // the epoll or kqueue descriptor
#if defined(__linux__)
    int timer;  // timerfd
    int wake;   // eventfd
#endif
    // Written by the timer callback, read by settle; both run under the caller's lock.
    long timeout_ms;
    int timeout_changed;
    // CLOCK_MONOTONIC nanoseconds: when curl last asked to be called (-1: it asked for no
    // timer), and when the timer is armed to fire (-1: not armed). Under the caller's lock.
    long long wanted_ns;
    long long armed_ns;
#if defined(__linux__)
    // What the epoll set holds for each descriptor number curl reported, indexed by number.
    struct ccurl_socket_state *sockets;
    int socket_capacity;
#endif
};

#if defined(__linux__) || defined(__APPLE__)
static long long monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

// A driver with no timer wanted or armed; each platform's create adds its descriptors.
static struct ccurl_driver *driver_alloc(ccurl_multi *multi) {
    struct ccurl_driver *driver = calloc(1, sizeof(struct ccurl_driver));
    if (driver == NULL) return NULL;
    driver->multi = multi;
    driver->timeout_ms = -1;
    driver->wanted_ns = -1;
    driver->armed_ns = -1;
    return driver;
}
#endif

#define CCURL_DRIVER_TIMER (-2)
#define CCURL_DRIVER_WAKE (-3)

#if defined(__linux__)

// One descriptor number's entry in the epoll set. `registered`: the set holds it (as far as the
// driver knows: closing a descriptor drops it from the set silently, which a failing
// EPOLL_CTL_MOD then reveals). `wanted`: curl watches it now. `events`: the mask the set holds.
struct ccurl_socket_state {
    unsigned char registered;
    unsigned char wanted;
    uint32_t events;
};

// The entry for `socket`, growing the table as needed; NULL when memory runs out, and then the
// caller falls back to plain, eager epoll_ctl calls for that descriptor.
static struct ccurl_socket_state *socket_state(struct ccurl_driver *driver, int socket) {
    if (socket < 0) return NULL;
    if (socket >= driver->socket_capacity) {
        int capacity = driver->socket_capacity > 0 ? driver->socket_capacity : 64;
        while (capacity <= socket) {
            if (capacity > (1 << 24)) return NULL;
            capacity *= 2;
        }
        struct ccurl_socket_state *grown = realloc(driver->sockets, sizeof(struct ccurl_socket_state) * (size_t)capacity);
        if (grown == NULL) return NULL;
        memset(grown + driver->socket_capacity, 0,
               sizeof(struct ccurl_socket_state) * (size_t)(capacity - driver->socket_capacity));
        driver->sockets = grown;
        driver->socket_capacity = capacity;
    }
    return &driver->sockets[socket];
}

// Puts `socket` in the epoll set with `events`: MOD first when the set should hold it, ADD when
// it does not (or the MOD found it gone: the descriptor was closed and its number reused).
static void put(struct ccurl_driver *driver, int socket, uint32_t events, int registered) {
    struct epoll_event event = {0};
    event.events = events;
    event.data.fd = socket;
    if (registered && epoll_ctl(driver->queue, EPOLL_CTL_MOD, socket, &event) == 0) return;
    if (epoll_ctl(driver->queue, EPOLL_CTL_ADD, socket, &event) != 0 && errno == EEXIST) {
        epoll_ctl(driver->queue, EPOLL_CTL_MOD, socket, &event);
    }
}

static int watch(struct ccurl_driver *driver, int socket, int what) {
    struct ccurl_socket_state *state = socket_state(driver, socket);
    if (what == CCURL_POLL_REMOVE) {
        if (state == NULL) {
            epoll_ctl(driver->queue, EPOLL_CTL_DEL, socket, NULL);
        } else {
            state->wanted = 0;  // lazy: stays in the set until it speaks or curl wants it back
        }
        return 0;
    }
    uint32_t events = ((what & CCURL_POLL_IN) ? EPOLLIN : 0) | ((what & CCURL_POLL_OUT) ? EPOLLOUT : 0);
    if (state == NULL) {
        put(driver, socket, events, 1);
        return 0;
    }
    // Curl still watching with the same interest: the set is right as it is. A socket curl had
    // let go of is put back even with the same mask, since its number may name a new socket now.
    if (state->registered && state->wanted && state->events == events) return 0;
    put(driver, socket, events, state->registered);
    state->registered = 1;
    state->wanted = 1;
    state->events = events;
    return 0;
}

// Whether an event for `socket` should go to curl; one for a socket curl let go of takes it out
// of the set instead (level-triggered, it would report again on every wait).
static int wanted(struct ccurl_driver *driver, int socket) {
    if (socket < 0 || socket >= driver->socket_capacity) return 1;
    struct ccurl_socket_state *state = &driver->sockets[socket];
    if (!state->registered || state->wanted) return 1;
    epoll_ctl(driver->queue, EPOLL_CTL_DEL, socket, NULL);
    state->registered = 0;
    return 0;
}

static void arm_at(struct ccurl_driver *driver, long long deadline_ns) {
    struct itimerspec value = {0};
    // An absolute time; a zero it_value would disarm, so a deadline already past is "1 ns".
    if (deadline_ns <= 0) deadline_ns = 1;
    value.it_value.tv_sec = (time_t)(deadline_ns / 1000000000LL);
    value.it_value.tv_nsec = (long)(deadline_ns % 1000000000LL);
    timerfd_settime(driver->timer, TFD_TIMER_ABSTIME, &value, NULL);
}

ccurl_driver *ccurl_driver_create(ccurl_multi *multi) {
    struct ccurl_driver *driver = driver_alloc(multi);
    if (driver == NULL) return NULL;
    driver->queue = epoll_create1(EPOLL_CLOEXEC);
    driver->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    driver->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (driver->queue < 0 || driver->timer < 0 || driver->wake < 0) {
        int saved = errno;
        if (driver->queue >= 0) close(driver->queue);
        if (driver->timer >= 0) close(driver->timer);
        if (driver->wake >= 0) close(driver->wake);
        free(driver);
        errno = saved;
        return NULL;
    }
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.fd = CCURL_DRIVER_TIMER;
    epoll_ctl(driver->queue, EPOLL_CTL_ADD, driver->timer, &event);
    event.data.fd = CCURL_DRIVER_WAKE;
    epoll_ctl(driver->queue, EPOLL_CTL_ADD, driver->wake, &event);
    return driver;
}

void ccurl_driver_destroy(ccurl_driver *driver) {
    close(driver->queue);
    close(driver->timer);
    close(driver->wake);
    free(driver->sockets);
    free(driver);
}

int ccurl_driver_wait(ccurl_driver *driver, int *sockets, int *masks, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(driver->queue, events, capacity, timeout_ms);
    if (count < 0) return 0;
    for (int index = 0; index < count; index++) {
        uint32_t bits = events[index].events;
        int mask = 0;
        if (bits & (EPOLLIN | EPOLLHUP)) mask |= CCURL_CSELECT_IN;
        if (bits & EPOLLOUT) mask |= CCURL_CSELECT_OUT;
        if (bits & EPOLLERR) mask |= CCURL_CSELECT_ERR;
        sockets[index] = events[index].data.fd;
        masks[index] = mask;
    }
    return count;
}

static void drain(int fd) {
    uint64_t value;
    while (read(fd, &value, sizeof(value)) > 0) {}
}

void ccurl_driver_wake(ccurl_driver *driver) {
    uint64_t one = 1;
    ssize_t written = write(driver->wake, &one, sizeof(one));
    (void)written;  // a full counter still wakes the waiter
}

#elif defined(__APPLE__)

static int watch(struct ccurl_driver *driver, int socket, int what) {
    struct kevent changes[2];
    EV_SET(&changes[0], socket, EVFILT_READ, (what & CCURL_POLL_IN) ? EV_ADD : EV_DELETE, 0, 0, NULL);
    EV_SET(&changes[1], socket, EVFILT_WRITE, (what & CCURL_POLL_OUT) ? EV_ADD : EV_DELETE, 0, 0, NULL);
    // Deleting a filter that was never added reports ENOENT; that is fine. Apply them one by one
    // so one failure does not drop the other change.
    kevent(driver->queue, &changes[0], 1, NULL, 0, NULL);
    kevent(driver->queue, &changes[1], 1, NULL, 0, NULL);
    return 0;
}

static void arm_at(struct ccurl_driver *driver, long long deadline_ns) {
    long long remaining = deadline_ns - monotonic_ns();
    if (remaining < 0) remaining = 0;
    struct kevent change;
    // Re-adding the one-shot timer replaces the armed one.
    EV_SET(&change, 1, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_NSECONDS, (intptr_t)remaining, NULL);
    kevent(driver->queue, &change, 1, NULL, 0, NULL);
}

static int wanted(struct ccurl_driver *driver, int socket) {
    (void)driver, (void)socket;
    return 1;
}

ccurl_driver *ccurl_driver_create(ccurl_multi *multi) {
    struct ccurl_driver *driver = driver_alloc(multi);
    if (driver == NULL) return NULL;
    driver->queue = kqueue();
    if (driver->queue < 0) {
        int saved = errno;
        free(driver);
        errno = saved;
        return NULL;
    }
    struct kevent change;
    EV_SET(&change, 2, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
    kevent(driver->queue, &change, 1, NULL, 0, NULL);
    return driver;
}

void ccurl_driver_destroy(ccurl_driver *driver) {
    close(driver->queue);
    free(driver);
}

int ccurl_driver_wait(ccurl_driver *driver, int *sockets, int *masks, int capacity, int timeout_ms) {
    struct kevent events[64];
    if (capacity > 64) capacity = 64;
    struct timespec limit = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    int count = kevent(driver->queue, NULL, 0, events, capacity, timeout_ms < 0 ? NULL : &limit);
    if (count < 0) return 0;
    for (int index = 0; index < count; index++) {
        int mask = 0;
        if (events[index].filter == EVFILT_TIMER) {
            sockets[index] = CCURL_DRIVER_TIMER;
        } else if (events[index].filter == EVFILT_USER) {
            sockets[index] = CCURL_DRIVER_WAKE;
        } else {
            sockets[index] = (int)events[index].ident;
            mask = events[index].filter == EVFILT_READ ? CCURL_CSELECT_IN : CCURL_CSELECT_OUT;
            if (events[index].flags & EV_ERROR) mask |= CCURL_CSELECT_ERR;
        }
        masks[index] = mask;
    }
    return count;
}

static void drain(int fd) { (void)fd; }

void ccurl_driver_wake(ccurl_driver *driver) {
    struct kevent change;
    EV_SET(&change, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
    kevent(driver->queue, &change, 1, NULL, 0, NULL);
}

#else

ccurl_driver *ccurl_driver_create(ccurl_multi *multi) {
    (void)multi;
    errno = ENOSYS;
    return NULL;
}
void ccurl_driver_destroy(ccurl_driver *driver) { (void)driver; }
int ccurl_driver_wait(ccurl_driver *driver, int *sockets, int *masks, int capacity, int timeout_ms) {
    (void)driver, (void)sockets, (void)masks, (void)capacity, (void)timeout_ms;
    return 0;
}
void ccurl_driver_kick(ccurl_driver *driver) { (void)driver; }
int ccurl_driver_handle(ccurl_driver *driver, int socket, int mask) {
    (void)driver, (void)socket, (void)mask;
    return 0;
}
void ccurl_driver_wake(ccurl_driver *driver) { (void)driver; }

#endif

#if defined(__linux__) || defined(__APPLE__)

static int socket_callback(ccurl_easy *easy, int socket, int what, void *user, void *socket_user) {
    (void)easy, (void)socket_user;
    return watch(user, socket, what);
}

static int timer_callback(ccurl_multi *multi, long timeout_ms, void *user) {
    (void)multi;
    struct ccurl_driver *driver = user;
    driver->timeout_ms = timeout_ms;
    driver->timeout_changed = 1;
    return 0;
}

// Runs curl's immediate timeouts (curl asks for one after every curl_multi_add_handle), notes the
// latest expiry curl asked for, and arms the timer when that is earlier than the armed one.
static void settle(struct ccurl_driver *driver) {
    int running = 0;
    for (int round = 0; round < 16 && driver->timeout_changed && driver->timeout_ms == 0; round++) {
        driver->timeout_changed = 0;
        ccurl_multi_socket_action(driver->multi, CCURL_SOCKET_TIMEOUT, 0, &running);
    }
    if (driver->timeout_changed) {
        driver->timeout_changed = 0;
        driver->wanted_ns =
            driver->timeout_ms < 0 ? -1 : monotonic_ns() + (long long)driver->timeout_ms * 1000000LL;
    }
    if (driver->wanted_ns >= 0 && (driver->armed_ns < 0 || driver->wanted_ns < driver->armed_ns)) {
        driver->armed_ns = driver->wanted_ns;
        arm_at(driver, driver->armed_ns);
    }
}

void ccurl_driver_kick(ccurl_driver *driver) { settle(driver); }

int ccurl_driver_handle(ccurl_driver *driver, int socket, int mask) {
    int running = 0;
    if (socket == CCURL_DRIVER_WAKE) {
#if defined(__linux__)
        drain(driver->wake);
#endif
        return 1;
    }
    if (socket == CCURL_DRIVER_TIMER) {
#if defined(__linux__)
        drain(driver->timer);
#else
        drain(-1);
#endif
        driver->armed_ns = -1;
        ccurl_multi_socket_action(driver->multi, CCURL_SOCKET_TIMEOUT, 0, &running);
        // Curl only calls the timer callback when its next expiry changes. If it did not, and the
        // expiry it asked for last is due, curl has just run it: nothing is left to arm. One still
        // ahead (the timer fired early, armed for an expiry curl later moved) is armed again below.
        if (!driver->timeout_changed && driver->wanted_ns >= 0 && driver->wanted_ns <= monotonic_ns()) {
            driver->wanted_ns = -1;
        }
    } else {
        if (!wanted(driver, socket)) return 0;
        ccurl_multi_socket_action(driver->multi, socket, mask, &running);
    }
    settle(driver);
    return 0;
}

/// Installs the callbacks; called from ccurl_driver_install.
int ccurl_driver_install(ccurl_driver *driver) {
    int failed = 0;
    failed |= ccurl_multi_setopt_socket_callback(driver->multi, socket_callback);
    failed |= ccurl_multi_setopt_pointer(driver->multi, CCURLMOPT_SOCKETDATA, driver);
    failed |= ccurl_multi_setopt_timer_callback(driver->multi, timer_callback);
    failed |= ccurl_multi_setopt_pointer(driver->multi, CCURLMOPT_TIMERDATA, driver);
    return failed;
}

#else

int ccurl_driver_install(ccurl_driver *driver) {
    (void)driver;
    return -1;
}

#endif
