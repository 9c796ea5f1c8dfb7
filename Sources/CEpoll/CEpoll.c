#include "CEpoll.h"
#include <errno.h>

#ifdef __linux__
#include <poll.h>
#include <sys/epoll.h>

static uint32_t to_epoll(uint32_t events) {
    uint32_t result = 0;
    if (events & POLLIN) result |= EPOLLIN;
    if (events & POLLOUT) result |= EPOLLOUT;
    if (events & 0x2000) result |= EPOLLRDHUP;
    return result;
}

static uint32_t from_epoll(uint32_t events) {
    uint32_t result = 0;
    if (events & EPOLLIN) result |= POLLIN;
    if (events & EPOLLOUT) result |= POLLOUT;
    if (events & EPOLLERR) result |= POLLERR;
    if (events & EPOLLHUP) result |= POLLHUP;
    if (events & EPOLLRDHUP) result |= 0x2000;
    return result;
}

static int control(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event;
    event.events = to_epoll(events);
    event.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &event);
}

int cepoll_is_available(void) { return 1; }

int cepoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cepoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
    return control(epfd, EPOLL_CTL_ADD, fd, events, token);
}

int cepoll_modify(int epfd, int fd, uint32_t events, uint64_t token) {
    return control(epfd, EPOLL_CTL_MOD, fd, events, token);
}

int cepoll_remove(int epfd, int fd) {
    struct epoll_event unused;
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &unused);
}

int cepoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, ready, capacity, timeout_ms);
    for (int index = 0; index < count; index++) {
        tokens[index] = ready[index].data.u64;
        events[index] = from_epoll(ready[index].events);
    }
    return count;
}

#else

int cepoll_is_available(void) { return 0; }
int cepoll_create(void) { errno = ENOSYS; return -1; }
int cepoll_add(int epfd, int fd, uint32_t events, uint64_t token) { errno = ENOSYS; return -1; }
int cepoll_modify(int epfd, int fd, uint32_t events, uint64_t token) { errno = ENOSYS; return -1; }
int cepoll_remove(int epfd, int fd) { errno = ENOSYS; return -1; }
int cepoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms) {
    errno = ENOSYS;
    return -1;
}

#endif
