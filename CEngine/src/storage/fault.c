/*
 * fault.c — a file that shrinks under the engine's mappings is an error,
 * not a SIGBUS (see fault.h).
 *
 * Owns: the table of guarded ranges and the SIGBUS handler.
 * Never: blocks, allocates or takes a lock in the handler, or keeps a
 * SIGBUS that is not the engine's: those go to the disposition it replaced.
 *
 * The table is a fixed array written under a mutex and read by the handler
 * without one: a slot's flag and end are stored before its start (release),
 * and fault_unguard clears the start first, so the handler sees a whole
 * range or none. The mapping calls here are the system's own, not the os
 * table's: a test's injected failure has no place in a signal handler.
 */
#include "fault.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Each handle has a mapping or two (a new one when its file outgrows the
 * last); a process with more ranges than this leaves the rest unguarded. */
#define FAULT_TABLE_SIZE 4096

typedef struct fault_slot {
    _Atomic uintptr_t start; /* 0: free */
    _Atomic uintptr_t end;
    _Atomic(_Atomic bool *) flag;
} fault_slot;

static fault_slot fault_table[FAULT_TABLE_SIZE];
static _Atomic size_t fault_high_water; /* no slot at or past this was used */
static pthread_mutex_t fault_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fault_once = PTHREAD_ONCE_INIT;
static bool fault_installed;
static uintptr_t fault_page_size;
static struct sigaction fault_previous;

/* The disposition this handler replaced, for a SIGBUS that is not ours. */
static void pass_on(int signal_number, siginfo_t *info, void *context)
{
    if (fault_previous.sa_flags & SA_SIGINFO) {
        fault_previous.sa_sigaction(signal_number, info, context);
        return;
    }
    if (fault_previous.sa_handler != SIG_DFL && fault_previous.sa_handler != SIG_IGN) {
        fault_previous.sa_handler(signal_number);
        return;
    }
    bool sent = info->si_code <= 0; /* kill, raise, sigqueue: not a fault */
    if (sent && fault_previous.sa_handler == SIG_IGN) return;
    /* The default action (the kernel takes it for an ignored fault too):
     * restored, then a fault repeats when the instruction runs again, and a
     * sent signal is raised again (it is blocked until this returns). */
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(SIGBUS, &fallback, NULL);
    if (sent) raise(signal_number);
}

static void on_sigbus(int signal_number, siginfo_t *info, void *context)
{
    int saved_errno = errno;
    uintptr_t address = (uintptr_t)info->si_addr;
    if (info->si_code > 0) {
        size_t count = atomic_load(&fault_high_water);
        for (size_t i = 0; i < count; i++) {
            uintptr_t start = atomic_load(&fault_table[i].start);
            if (start == 0 || address < start || address >= atomic_load(&fault_table[i].end)) continue;
            _Atomic bool *flag = atomic_load(&fault_table[i].flag);
            /* Zeros over the page that lies past the end of the file; the
             * rest of the mapping stays the file's. */
            void *page = (void *)(address & ~(fault_page_size - 1));
            if (mmap(page, (size_t)fault_page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
                MAP_FAILED)
                break;
            atomic_store(flag, true);
            errno = saved_errno;
            return;
        }
    }
    errno = saved_errno;
    pass_on(signal_number, info, context);
}

static void install(void)
{
    long page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0) return;
    fault_page_size = (uintptr_t)page_size;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&action.sa_mask);
    fault_installed = sigaction(SIGBUS, &action, &fault_previous) == 0;
}

int fault_guard(const void *base, size_t length, _Atomic bool *flag)
{
    pthread_once(&fault_once, install);
    if (!fault_installed || length == 0) return FAULT_UNGUARDED;
    pthread_mutex_lock(&fault_mutex);
    int place = FAULT_UNGUARDED;
    for (size_t i = 0; i < FAULT_TABLE_SIZE; i++) {
        if (atomic_load(&fault_table[i].start) != 0) continue;
        atomic_store(&fault_table[i].flag, flag);
        atomic_store(&fault_table[i].end, (uintptr_t)base + length);
        atomic_store(&fault_table[i].start, (uintptr_t)base);
        if (i + 1 > atomic_load(&fault_high_water)) atomic_store(&fault_high_water, i + 1);
        place = (int)i;
        break;
    }
    pthread_mutex_unlock(&fault_mutex);
    return place;
}

void fault_unguard(int place)
{
    if (place < 0 || place >= FAULT_TABLE_SIZE) return;
    pthread_mutex_lock(&fault_mutex);
    atomic_store(&fault_table[place].start, 0);
    pthread_mutex_unlock(&fault_mutex);
}
