// Stand-in declarations of the kqueue API for Scripts/check-apple-c.sh, which type-checks the
// Apple half of Sources/CCurl/CCurlDriver.c on Linux. This is not Apple's header: it declares
// only what that file uses, with the field names and types of `struct kevent` and the names of
// the constants; the constants' values do not matter to a check that never links or runs.
#ifndef CCURL_APPLE_STUB_SYS_EVENT_H
#define CCURL_APPLE_STUB_SYS_EVENT_H

#include <stdint.h>
#include <time.h>

struct kevent {
    uintptr_t ident;
    int16_t filter;
    uint16_t flags;
    uint32_t fflags;
    intptr_t data;
    void *udata;
};

#define EV_SET(kevp, a, b, c, d, e, f)                                                              \
    do {                                                                                            \
        struct kevent *ev_set_target = (kevp);                                                      \
        ev_set_target->ident = (a);                                                                 \
        ev_set_target->filter = (b);                                                                \
        ev_set_target->flags = (c);                                                                 \
        ev_set_target->fflags = (d);                                                                \
        ev_set_target->data = (e);                                                                  \
        ev_set_target->udata = (f);                                                                 \
    } while (0)

#define EVFILT_READ (-1)
#define EVFILT_WRITE (-2)
#define EVFILT_TIMER (-7)
#define EVFILT_USER (-10)
#define EV_ADD 0x0001
#define EV_DELETE 0x0002
#define EV_ONESHOT 0x0010
#define EV_CLEAR 0x0020
#define EV_ERROR 0x4000
#define NOTE_TRIGGER 0x01000000
#define NOTE_NSECONDS 0x00000004

int kqueue(void);
int kevent(int kq, const struct kevent *changelist, int nchanges, struct kevent *eventlist, int nevents,
           const struct timespec *timeout);

#endif
