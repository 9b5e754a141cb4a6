/* Reading a file mapped into memory that was cut short meanwhile (another program rewrote it)
 * raises SIGBUS at the first page past its new end, which would end the process. A scan run
 * by BUS_GUARDED(faulted, call) instead stops there with faulted = 1, on the thread that read
 * the page; each thread that reads the mapping guards its own work, and the caller of a
 * threaded scan joins its threads as usual before it gives up. Between bus_guard_enter() and
 * bus_guard_leave() (counted: scans may overlap) SIGBUS is handled here; a SIGBUS outside a
 * guarded call goes to what was there before (by default: the process ends, as it would
 * have). `call` must leave nothing but memory reachable from its arguments half-done (no lock
 * held across a read of the mapping). Include after <Python.h>; nothing on Windows.
 */
#ifndef VOCVIEWER_KERNEL_BUS_GUARD_H
#define VOCVIEWER_KERNEL_BUS_GUARD_H

#ifdef _WIN32

#define bus_guard_enter() ((void)0)
#define bus_guard_leave() ((void)0)
#define BUS_GUARDED(faulted, call) \
    do {                           \
        call;                      \
        (faulted) = 0;             \
    } while (0)

#else

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

static _Thread_local sigjmp_buf *bus_guard_jump; /* this thread's guarded call, if any */
static pthread_mutex_t bus_guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int bus_guard_users;
static struct sigaction bus_guard_before;

static void bus_guard_handler(int sig, siginfo_t *info, void *context)
{
    sigjmp_buf *jump = bus_guard_jump;
    if (jump) siglongjmp(*jump, 1);
    if (bus_guard_before.sa_flags & SA_SIGINFO) {
        bus_guard_before.sa_sigaction(sig, info, context);
    } else if (bus_guard_before.sa_handler != SIG_DFL && bus_guard_before.sa_handler != SIG_IGN) {
        bus_guard_before.sa_handler(sig);
    } else {
        signal(SIGBUS, SIG_DFL); /* the read faults again on return: the default action */
    }
}

/* Whether this module's handler is SIGBUS's now. */
static int bus_guard_installed(void)
{
    struct sigaction now;
    sigaction(SIGBUS, NULL, &now);
    return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == bus_guard_handler;
}

/* Each module including this header has its own copy (handler, counter, jump targets), so a
 * handler installed over another module's chains to it, and a module leaves SIGBUS as it is
 * while another's handler is above its own (that one restores this one's, still chaining). */
static void bus_guard_enter(void)
{
    pthread_mutex_lock(&bus_guard_lock);
    if (bus_guard_users++ == 0 && !bus_guard_installed()) {
        struct sigaction act;
        memset(&act, 0, sizeof act);
        act.sa_sigaction = bus_guard_handler;
        act.sa_flags = SA_SIGINFO;
        sigemptyset(&act.sa_mask);
        sigaction(SIGBUS, &act, &bus_guard_before);
    }
    pthread_mutex_unlock(&bus_guard_lock);
}

static void bus_guard_leave(void)
{
    pthread_mutex_lock(&bus_guard_lock);
    if (--bus_guard_users == 0 && bus_guard_installed()) sigaction(SIGBUS, &bus_guard_before, NULL);
    pthread_mutex_unlock(&bus_guard_lock);
}

/* `call` (a statement) run with this thread's jump target set (the outer one restored after);
 * faulted: 1 if it read a page past the file's end (its effects up to there remain). */
#define BUS_GUARDED(faulted, call)                                    \
    do {                                                              \
        sigjmp_buf bus_guard_here_;                                   \
        sigjmp_buf *volatile bus_guard_outer_ = bus_guard_jump;       \
        if (sigsetjmp(bus_guard_here_, 1) == 0) {                     \
            bus_guard_jump = &bus_guard_here_;                        \
            call;                                                     \
            (faulted) = 0;                                            \
        } else {                                                      \
            (faulted) = 1;                                            \
        }                                                             \
        bus_guard_jump = bus_guard_outer_;                            \
    } while (0)

#endif
#endif
