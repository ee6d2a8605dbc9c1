/*
 * fault.h — a file that shrinks under the engine's mappings is an error,
 * not a SIGBUS.
 *
 * Owns: the process's table of guarded ranges (the pager's read mappings
 * of data files) and the SIGBUS handler that serves them.
 * Never: handles a fault outside a guarded range (it passes the signal on
 * to the handler that was installed before, or to the default action), or
 * unmaps anything but the one page that faulted.
 *
 * Another process may truncate a data file that a handle has mapped;
 * touching a mapped page past the new end of the file raises SIGBUS. In a
 * guarded range, the handler maps a page of zeros over the page that
 * faulted (the read then completes, reading zeros) and sets the range's
 * flag. The pager checks the flag where it decrypts, node_read where it
 * reads a node of a plain file (it touches the node's last byte first:
 * truncation removes a suffix of the file, so a node whose last byte is
 * there is whole), and every transaction begin and commit
 * (pager_check_file): the call that read fails with CE_ERR_CORRUPT naming
 * the file. The zeros stay: the handle stays damaged (each later
 * transaction fails) until it is closed.
 *
 * The handler is installed once, by the first fault_guard, with SA_ONSTACK
 * and SA_SIGINFO; the disposition it replaced is kept and called for every
 * other SIGBUS (a host program that installs its own handler later, and
 * does not chain to ours, loses this protection: install yours first).
 * It is async-signal-safe: it reads the table lock-free (atomics), and
 * calls only mmap and sigaction (system calls), and raise.
 */
#ifndef CE_FAULT_H
#define CE_FAULT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* A guarded range's place in the table (FAULT_UNGUARDED: none). */
#define FAULT_UNGUARDED (-1)

/* Guards [base, base + length): a SIGBUS there sets *flag. Returns the
 * range's place, or FAULT_UNGUARDED when the table is full or the handler
 * could not be installed (the range then faults as before). */
int fault_guard(const void *base, size_t length, _Atomic bool *flag);

/* Ends the guard (before the range is unmapped). */
void fault_unguard(int place);

#endif
