/*
 * cengine.h — the public C API of the OpenRealm storage engine.
 *
 * This is the only header a C user (or a language binding through a C FFI)
 * includes. Everything here is stable and documented in place; everything in
 * CEngine/src is private.
 *
 * Conventions
 *   - Every name starts with `ce_`.
 *   - Handles (`ce_db`, `ce_txn`) are opaque; each `*_open` / `*_begin` has a
 *     matching `*_close` / `*_end` that releases it.
 *   - Every fallible call returns `bool` (true = success). On failure it sets
 *     a thread-local last error: `ce_last_error_code()` returns a stable
 *     numeric code (`ce_error_code`), `ce_last_error_message()` a readable
 *     sentence naming what went wrong. A successful call does not clear it.
 *   - A database handle may be shared by threads; a transaction handle belongs
 *     to one thread at a time.
 *
 * Example: create a file, commit, read the version back.
 *
 *     ce_db_options options;
 *     ce_db_options_init(&options);
 *     ce_db *db;
 *     if (!ce_db_open("app.realm", &options, &db)) {
 *         fprintf(stderr, "%s\n", ce_last_error_message());
 *         return 1;
 *     }
 *     ce_txn *write;
 *     ce_txn_begin_write(db, &write);
 *     ce_txn_commit(write);                 // durable when it returns
 *     ce_txn *read;
 *     ce_txn_begin_read(db, &read);
 *     printf("version %llu\n", (unsigned long long)ce_txn_version(read));
 *     ce_txn_end(read);
 *     ce_db_close(db);
 */
#ifndef CENGINE_H
#define CENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Stable error codes. The first group matches Realm.Error.Code where Realm
 * has the same condition (the numeric values are this engine's own).
 */
typedef enum ce_error_code {
    CE_OK = 0,
    /* Realm.Error codes */
    CE_ERR_FAIL = 1,                   /* generic failure with a message */
    CE_ERR_FILE_ACCESS = 2,            /* an I/O error on the file */
    CE_ERR_FILE_PERMISSION_DENIED = 3, /* the OS refused access */
    CE_ERR_FILE_EXISTS = 4,            /* the destination exists */
    CE_ERR_FILE_NOT_FOUND = 5,         /* no such file (read-only open) */
    CE_ERR_INCOMPATIBLE_LOCK_FILE = 6, /* lock file of another layout */
    CE_ERR_FILE_FORMAT_UPGRADE_REQUIRED = 7, /* a newer or older format */
    CE_ERR_ADDRESS_SPACE_EXHAUSTED = 8,
    CE_ERR_SCHEMA_MISMATCH = 9,
    CE_ERR_INCOMPATIBLE_SESSION = 10,
    CE_ERR_OUT_OF_DISK_SPACE = 11,     /* ENOSPC / EDQUOT */
    CE_ERR_INVALID_DATABASE = 12,      /* not a database, or damaged */
    CE_ERR_ALREADY_OPEN = 13,          /* open elsewhere (compaction needs it closed) */
    /* engine conditions */
    CE_ERR_INVALID_ARGUMENT = 20,      /* a NULL handle, a bad option */
    CE_ERR_WRONG_TRANSACTION_STATE = 21, /* e.g. commit on a read transaction */
    CE_ERR_TOO_MANY_VERSIONS = 22,     /* maximumNumberOfActiveVersions */
    CE_ERR_TOO_MANY_READERS = 23,      /* the reader table is full */
    CE_ERR_READ_ONLY = 24,             /* a write on a read-only handle */
    CE_ERR_OUT_OF_MEMORY = 25,
    CE_ERR_CORRUPT = 26,               /* a check on bytes read from the file failed */
    CE_ERR_INDEX_OUT_OF_BOUNDS = 27
} ce_error_code;

/* The code of the last failed call on this thread (CE_OK if none yet). */
ce_error_code ce_last_error_code(void);

/* The message of the last failed call on this thread ("" if none yet).
 * Valid until the next failing call on this thread. */
const char *ce_last_error_message(void);

/* A short constant name for a code ("invalid database", ...). */
const char *ce_error_name(ce_error_code code);

/* ------------------------------------------------------------------------ */
/* Opening and closing                                                       */
/* ------------------------------------------------------------------------ */

/* How much a commit waits for the disk. */
typedef enum ce_durability {
    /* The commit is on stable storage when ce_txn_commit returns (one fsync
     * for small commits, two for large ones). */
    CE_DURABILITY_FULL = 0,
    /* The file lives only while open: it is removed when the last handle
     * closes, and commits never fsync (Realm's in-memory realms). */
    CE_DURABILITY_MEMORY_ONLY = 1,
    /* Commits reach the OS page cache but are not fsynced: a process crash
     * loses nothing, a power failure may lose the latest commits (never
     * consistency). */
    CE_DURABILITY_UNSAFE_NO_SYNC = 2
} ce_durability;

typedef struct ce_db_options {
    /* Open without writing anything. The file must exist. */
    bool read_only;
    /* Fail with CE_ERR_FILE_NOT_FOUND instead of creating a missing file. */
    bool no_create;
    ce_durability durability;
    /* With CE_DURABILITY_MEMORY_ONLY and path == NULL: the name that
     * identifies the in-memory database within the machine (handles opened
     * with the same identifier share it). */
    const char *in_memory_identifier;
    /* Beginning a write fails with CE_ERR_TOO_MANY_VERSIONS while more than
     * this many versions are pinned by live read transactions. 0 = no limit. */
    uint64_t max_active_versions;
} ce_db_options;

/* Fills options with the defaults: read-write, create if missing, full
 * durability, no version limit. */
void ce_db_options_init(ce_db_options *options);

typedef struct ce_db ce_db;
typedef struct ce_txn ce_txn;

/*
 * Opens (or creates) the database file at `path`, and its lock file
 * `<path>.lock`. With durability CE_DURABILITY_MEMORY_ONLY, `path` may be NULL
 * if options->in_memory_identifier is set.
 *
 * Errors: CE_ERR_FILE_NOT_FOUND (missing and read_only/no_create),
 * CE_ERR_FILE_PERMISSION_DENIED, CE_ERR_INVALID_DATABASE (not a database
 * file, or damaged beyond its last good commit),
 * CE_ERR_FILE_FORMAT_UPGRADE_REQUIRED (written by a newer format version),
 * CE_ERR_FILE_ACCESS (any other I/O error).
 */
bool ce_db_open(const char *path, const ce_db_options *options, ce_db **out_db);

/* Closes the handle. Every transaction of the handle must have ended.
 * Returns false (CE_ERR_WRONG_TRANSACTION_STATE) if some have not; the handle
 * stays open then. */
bool ce_db_close(ce_db *db);

/* The path of the database file. */
const char *ce_db_path(const ce_db *db);

/* ------------------------------------------------------------------------ */
/* Transactions                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Begins a read transaction: a snapshot of the latest committed version.
 * It never blocks and never sees a later commit until ce_txn_advance.
 * Errors: CE_ERR_TOO_MANY_READERS.
 */
bool ce_txn_begin_read(ce_db *db, ce_txn **out_txn);

/*
 * Begins the write transaction, waiting until no other thread or process
 * holds it. It starts from the latest committed version.
 * Errors: CE_ERR_READ_ONLY, CE_ERR_TOO_MANY_VERSIONS.
 */
bool ce_txn_begin_write(ce_db *db, ce_txn **out_txn);

/* Commits a write transaction and ends it (the handle is released whether
 * or not the commit succeeds). On failure nothing a reader can see has
 * changed. Errors: CE_ERR_OUT_OF_DISK_SPACE, CE_ERR_FILE_ACCESS. */
bool ce_txn_commit(ce_txn *txn);

/* Ends a transaction without committing (a write transaction is rolled back). */
void ce_txn_end(ce_txn *txn);

/* Moves a read transaction to the latest committed version. */
bool ce_txn_advance(ce_txn *txn);

/* Whether this is a write transaction. */
bool ce_txn_is_write(const ce_txn *txn);

/* The version the transaction sees (for a write: the version it commits on). */
uint64_t ce_txn_version(const ce_txn *txn);

/* The latest committed version of the database, without a transaction. */
bool ce_db_latest_version(ce_db *db, uint64_t *out_version);

/* ------------------------------------------------------------------------ */
/* Integrity                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct ce_db_stats {
    uint64_t version;        /* latest committed version */
    uint64_t file_size;      /* bytes the file occupies on disk */
    uint64_t logical_size;   /* bytes up to the end of the last node */
    uint64_t used_bytes;     /* bytes in reachable nodes (plus the header) */
    uint64_t free_bytes;     /* bytes in the free lists */
    uint64_t node_count;     /* reachable nodes */
    uint64_t free_extent_count;
    uint64_t active_versions; /* distinct versions pinned by readers */
} ce_db_stats;

/*
 * Proves the latest version of the file sound: walks every reachable node and
 * the free lists, and checks that every ref is in bounds, every node header
 * is valid, nothing overlaps, nothing is referenced twice, and reachable plus
 * free space cover the file exactly (no leak). Fills `out_stats` if not NULL.
 * Errors: CE_ERR_CORRUPT with a message naming the offset.
 */
bool ce_db_verify(ce_db *db, ce_db_stats *out_stats);

/* The engine's version string, e.g. "0.1.0". */
const char *ce_engine_version(void);

#ifdef __cplusplus
}
#endif

#endif /* CENGINE_H */
