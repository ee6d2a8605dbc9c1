/*
 * error.h — the thread-local last error shared by every layer.
 *
 * Owns: the last error code and message of the calling thread.
 * Never: decides policy. A layer that detects a failure calls error_fail (which
 * returns false) and returns that to its caller; callers pass it up unchanged.
 */
#ifndef CE_ERROR_H
#define CE_ERROR_H

#include <stdbool.h>
#include "cengine.h"

#if defined(__GNUC__)
#define CE_PRINTF(a, b) __attribute__((format(printf, a, b)))
/* An error path kept out of line, so the hot path around it stays lean. */
#define CE_COLD __attribute__((noinline, cold))
#else
#define CE_PRINTF(a, b)
#define CE_COLD
#endif

/* Sets the thread's last error and returns false, so that a failure reads
 * `return error_fail(CE_ERR_CORRUPT, "node at %llu ...", ...);`. */
bool error_fail(ce_error_code code, const char *format, ...) CE_PRINTF(2, 3);

/* The thread's last error, kept across a cleanup that may set another one:
 * error_save before the cleanup, then `return error_restore(&saved);`
 * (it sets the saved error again and returns false). */
typedef struct error_saved {
    ce_error_code code;
    char message[1024];
} error_saved;
void error_save(error_saved *saved);
bool error_restore(const error_saved *saved);

/* Sets the last error from an errno value of a failed system call:
 * ENOSPC/EDQUOT become CE_ERR_OUT_OF_DISK_SPACE, EACCES/EPERM/EROFS
 * CE_ERR_FILE_PERMISSION_DENIED, ENOENT CE_ERR_FILE_NOT_FOUND, ENOMEM
 * CE_ERR_OUT_OF_MEMORY, anything else CE_ERR_FILE_ACCESS. Returns false. */
bool error_fail_errno(int error_number, const char *what, const char *path);

#endif
