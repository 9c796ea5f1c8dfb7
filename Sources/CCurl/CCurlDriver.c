// The readiness side of the curl engine: an epoll (Linux) or kqueue (Apple platforms) instance
// that curl's socket callback feeds directly, a one-shot timer armed from curl's timer callback,
// and a wake-up event. See ccurl_driver_* in CCurl.h for the threading rules.

#include "CCurl.h"

#include <errno.h>
#include <stdlib.h>
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
};

#define CCURL_DRIVER_TIMER (-2)
#define CCURL_DRIVER_WAKE (-3)

#if defined(__linux__)

static int watch(struct ccurl_driver *driver, int socket, int what) {
    if (what == CCURL_POLL_REMOVE) {
        epoll_ctl(driver->queue, EPOLL_CTL_DEL, socket, NULL);
        return 0;
    }
    struct epoll_event event = {0};
    event.events = ((what & CCURL_POLL_IN) ? EPOLLIN : 0) | ((what & CCURL_POLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = socket;
    if (epoll_ctl(driver->queue, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
        epoll_ctl(driver->queue, EPOLL_CTL_ADD, socket, &event);
    }
    return 0;
}

static void arm(struct ccurl_driver *driver, long timeout_ms) {
    struct itimerspec value = {0};
    if (timeout_ms >= 0) {
        // A zero it_value disarms, so "now" is one nanosecond.
        long long nanoseconds = timeout_ms > 0 ? (long long)timeout_ms * 1000000LL : 1;
        value.it_value.tv_sec = (time_t)(nanoseconds / 1000000000LL);
        value.it_value.tv_nsec = (long)(nanoseconds % 1000000000LL);
    }
    timerfd_settime(driver->timer, 0, &value, NULL);
}

ccurl_driver *ccurl_driver_create(ccurl_multi *multi) {
    struct ccurl_driver *driver = calloc(1, sizeof(struct ccurl_driver));
    if (driver == NULL) return NULL;
    driver->multi = multi;
    driver->timeout_ms = -1;
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

static void arm(struct ccurl_driver *driver, long timeout_ms) {
    struct kevent change;
    if (timeout_ms < 0) {
        EV_SET(&change, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
    } else {
        EV_SET(&change, 1, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, timeout_ms, NULL);
    }
    kevent(driver->queue, &change, 1, NULL, 0, NULL);
}

ccurl_driver *ccurl_driver_create(ccurl_multi *multi) {
    struct ccurl_driver *driver = calloc(1, sizeof(struct ccurl_driver));
    if (driver == NULL) return NULL;
    driver->multi = multi;
    driver->timeout_ms = -1;
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

// Runs curl's immediate timeouts (curl asks for one after every curl_multi_add_handle), then arms
// the timer with the latest value curl asked for.
static void settle(struct ccurl_driver *driver) {
    int running = 0;
    for (int round = 0; round < 16 && driver->timeout_changed && driver->timeout_ms == 0; round++) {
        driver->timeout_changed = 0;
        ccurl_multi_socket_action(driver->multi, CCURL_SOCKET_TIMEOUT, 0, &running);
    }
    if (driver->timeout_changed) {
        driver->timeout_changed = 0;
        arm(driver, driver->timeout_ms);
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
        ccurl_multi_socket_action(driver->multi, CCURL_SOCKET_TIMEOUT, 0, &running);
    } else {
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
