#ifndef CEPOLL_H
#define CEPOLL_H

#include <stdint.h>

// A tiny, non-variadic view of Linux epoll for the emulator's HTTP server (Swift's Glibc module
// does not export <sys/epoll.h>). Event bits use poll(2)'s values (POLLIN, POLLOUT, POLLERR,
// POLLHUP, and 0x2000 for POLLRDHUP). On other systems every call fails with ENOSYS.

/// 1 when epoll is available on this platform, 0 otherwise.
int cepoll_is_available(void);
/// Creates an epoll instance (close-on-exec); returns its descriptor or -1 with errno set.
int cepoll_create(void);
/// Registers `fd` for `events`, tagging its readiness reports with `token`.
int cepoll_add(int epfd, int fd, uint32_t events, uint64_t token);
/// Changes the events and token of a registered `fd`.
int cepoll_modify(int epfd, int fd, uint32_t events, uint64_t token);
/// Unregisters `fd`.
int cepoll_remove(int epfd, int fd);
/// Waits up to `timeout_ms` (-1: forever) and stores up to `capacity` reports in `tokens` and
/// `events`; returns how many, or -1 with errno set.
int cepoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms);

#endif
