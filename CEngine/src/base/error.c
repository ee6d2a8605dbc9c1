/*
 * error.c — the thread-local last error (see error.h), and the names of
 * error codes.
 *
 * Owns: the calling thread's last code and message (a buffer of 1024
 * bytes), the mapping of errno values to codes, and ce_last_error_code,
 * ce_last_error_message and ce_error_name of cengine.h.
 * Never: allocates, or decides what a failure means for the caller; a
 * message longer than the buffer is cut.
 */
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local ce_error_code last_code = CE_OK;
static _Thread_local char last_message[1024];

bool error_fail(ce_error_code code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(last_message, sizeof last_message, format, args);
    va_end(args);
    last_code = code;
    return false;
}

bool error_fail_errno(int error_number, const char *what, const char *path)
{
    ce_error_code code;
    switch (error_number) {
    case ENOSPC:
    case EDQUOT: code = CE_ERR_OUT_OF_DISK_SPACE; break;
    case EACCES:
    case EPERM:
    case EROFS: code = CE_ERR_FILE_PERMISSION_DENIED; break;
    case ENOENT: code = CE_ERR_FILE_NOT_FOUND; break;
    case ENOMEM: code = CE_ERR_OUT_OF_MEMORY; break;
    default: code = CE_ERR_FILE_ACCESS; break;
    }
    return error_fail(code, "%s failed for '%s': %s", what, path ? path : "(unnamed)",
                   strerror(error_number));
}

ce_error_code ce_last_error_code(void) { return last_code; }

const char *ce_last_error_message(void) { return last_message; }

void error_save(error_saved *saved)
{
    saved->code = ce_last_error_code();
    snprintf(saved->message, sizeof saved->message, "%s", last_message);
}

bool error_restore(const error_saved *saved) { return error_fail(saved->code, "%s", saved->message); }

const char *ce_error_name(ce_error_code code)
{
    switch (code) {
    case CE_OK: return "ok";
    case CE_ERR_FAIL: return "failure";
    case CE_ERR_FILE_ACCESS: return "file access error";
    case CE_ERR_FILE_PERMISSION_DENIED: return "permission denied";
    case CE_ERR_FILE_EXISTS: return "file exists";
    case CE_ERR_FILE_NOT_FOUND: return "file not found";
    case CE_ERR_INCOMPATIBLE_LOCK_FILE: return "incompatible lock file";
    case CE_ERR_FILE_FORMAT_UPGRADE_REQUIRED: return "file format upgrade required";
    case CE_ERR_ADDRESS_SPACE_EXHAUSTED: return "address space exhausted";
    case CE_ERR_SCHEMA_MISMATCH: return "schema mismatch";
    case CE_ERR_INCOMPATIBLE_SESSION: return "incompatible session";
    case CE_ERR_OUT_OF_DISK_SPACE: return "out of disk space";
    case CE_ERR_INVALID_DATABASE: return "invalid database";
    case CE_ERR_ALREADY_OPEN: return "already open";
    case CE_ERR_INVALID_ARGUMENT: return "invalid argument";
    case CE_ERR_WRONG_TRANSACTION_STATE: return "wrong transaction state";
    case CE_ERR_TOO_MANY_VERSIONS: return "too many active versions";
    case CE_ERR_TOO_MANY_READERS: return "too many readers";
    case CE_ERR_READ_ONLY: return "read-only";
    case CE_ERR_OUT_OF_MEMORY: return "out of memory";
    case CE_ERR_CORRUPT: return "corrupt data";
    case CE_ERR_INDEX_OUT_OF_BOUNDS: return "index out of bounds";
    case CE_ERR_NO_SUCH_TABLE: return "no such table";
    case CE_ERR_NO_SUCH_PROPERTY: return "no such property";
    case CE_ERR_NO_SUCH_OBJECT: return "no such object";
    case CE_ERR_WRONG_TYPE: return "wrong type";
    case CE_ERR_NULL_NOT_ALLOWED: return "null not allowed";
    case CE_ERR_DUPLICATE_PRIMARY_KEY: return "duplicate primary key";
    case CE_ERR_PRIMARY_KEY_IMMUTABLE: return "primary key immutable";
    case CE_ERR_DUPLICATE_NAME: return "duplicate name";
    case CE_ERR_INVALID_SCHEMA: return "invalid schema";
    case CE_ERR_EMBEDDED_OBJECT: return "embedded object misuse";
    case CE_ERR_INVALID_QUERY: return "invalid query";
    }
    return "unknown error";
}
