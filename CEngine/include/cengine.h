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
 *   - A failed call never frees a handle: the caller still closes or ends
 *     it (a failed `ce_txn_commit` too; only a successful one ends the
 *     transaction).
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

/* Every function this header declares is the library's public API, and
 * nothing else is: the engine is compiled with hidden visibility, and this
 * pragma makes the declarations below visible (exported from the shared
 * library). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
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
    CE_ERR_INDEX_OUT_OF_BOUNDS = 27,
    /* object store */
    CE_ERR_NO_SUCH_TABLE = 40,
    CE_ERR_NO_SUCH_PROPERTY = 41,
    CE_ERR_NO_SUCH_OBJECT = 42,        /* deleted, or never existed */
    CE_ERR_WRONG_TYPE = 43,            /* a value of another type than the property's */
    CE_ERR_NULL_NOT_ALLOWED = 44,      /* null in a required property */
    CE_ERR_DUPLICATE_PRIMARY_KEY = 45,
    CE_ERR_PRIMARY_KEY_IMMUTABLE = 46, /* a primary key cannot change */
    CE_ERR_DUPLICATE_NAME = 47,        /* a table or property of that name exists */
    CE_ERR_INVALID_SCHEMA = 48,        /* a property definition the engine cannot store */
    CE_ERR_EMBEDDED_OBJECT = 49,       /* an embedded object used as a top-level one, or given a second parent */
    /* queries */
    CE_ERR_INVALID_QUERY = 60          /* a predicate, key path or argument that does not parse or bind;
                                        * the message names the position and the token */
} ce_error_code;

/* The code of the last failed call on this thread (CE_OK if none yet).
 *
 * The rule after a successful call: a call that succeeds never clears the
 * last error (it does not reset it to CE_OK). An ordinary success leaves
 * code and message unchanged: those of the last call that failed on this
 * thread. A few successes recover from a failure inside and may leave that
 * failure's code and message instead (an open that finds a torn last
 * commit and uses the one before, a file grown by less after ENOSPC, a
 * copy's temporary name found taken). So read them only right after a call
 * returned false; after a success they say nothing. Each thread has its
 * own. (CEngine/tests/test_api.c pins this rule.)
 *
 *     if (!ce_txn_begin_write(db, &txn)) {
 *         if (ce_last_error_code() == CE_ERR_READ_ONLY) ...
 *         fprintf(stderr, "%s\n", ce_last_error_message());
 *     }
 */
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
     * closes, a file left by a process that died is discarded by the next
     * first open, and commits never fsync (Realm's in-memory realms). */
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
    /* Encryption (Realm's encryptionKey): a 64-byte key, or NULL for a plain
     * file. A new file is created encrypted with it; an existing file opens
     * only with the key it was created with. Every page is encrypted and
     * authenticated (AES-256-GCM under keys derived from all 64 bytes with
     * HKDF-SHA256). The handle copies the key and wipes its copy once the
     * keys are derived; the key is never written anywhere, and the derived
     * keys are wiped at close. */
    const void *encryption_key;
    size_t encryption_key_size; /* must be 64 when encryption_key is set */
    /* Encrypted files: the most decrypted bytes the handle keeps in memory
     * (0 = the default: 1/16 of physical memory, between 16 MiB and
     * 512 MiB). Pages are decrypted when first read, so opening a large file
     * decrypts almost nothing, and a file larger than memory can be used.
     * A transaction keeps the pages it read until it ends (pointers handed
     * out stay valid): one that reads more than this exceeds it meanwhile.
     * Where the kernel can, 2 MiB regions of the first this-many bytes of
     * the file that are read much are moved into huge pages (faster scans);
     * the memory held then stays under twice this figure. */
    uint64_t encryption_cache_bytes;
    /* Plain files carry a 32-bit checksum of every page a commit writes,
     * and a handle verifies each page the first time one of its
     * transactions reads it (a damaged page is CE_ERR_CORRUPT naming it,
     * never different data). On by default. true: a new file is created
     * without page checksums, and this handle does not verify the pages of
     * a file that has them (its commits still keep them, for the other
     * handles). Files written before page checksums existed have none.
     * Plain copies (ce_db_write_copy, ce_txn_write_copy) have them unless
     * this is true; ce_db_compact keeps a file's checksums and adds them
     * unless this is true, and the handle goes on verifying. Encrypted
     * files ignore it: their pages are authenticated. */
    bool disable_page_checksums;
    /* Open an immutable snapshot (as SQLite's immutable=1), for a file in a
     * directory or on a file system where no lock file can be created. The
     * contract:
     * - implies read_only: the file must exist, and it is opened read-only;
     * - no lock file is created, opened or locked, so the handle takes part
     *   in none of the coordination between handles: the caller promises
     *   that nobody writes the file (in any process) while the handle is
     *   open; a file that changes anyway may read as corrupt
     *   (CE_ERR_CORRUPT, CE_ERR_INVALID_DATABASE), never as a crash;
     * - the handle reads the newest header slot whose commit is whole (as
     *   the first opener after a crash does, without writing the sync
     *   record) and stays at that version: ce_txn_advance and new read
     *   transactions see no other;
     * - ce_txn_begin_write, compaction and every other write to the file
     *   fail with CE_ERR_READ_ONLY; copies to another path
     *   (ce_db_write_copy) and ce_db_verify work.
     * Not with CE_DURABILITY_MEMORY_ONLY (CE_ERR_INVALID_ARGUMENT). */
    bool immutable;
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
 * CE_ERR_OUT_OF_DISK_SPACE (no room for the lock file's blocks: they are
 * allocated before it is written through its shared mapping, so a full file
 * system is this error, never a SIGBUS), CE_ERR_FILE_ACCESS (any other I/O
 * error), CE_ERR_INVALID_ARGUMENT (a durability that is not one of
 * ce_durability's values), CE_ERR_ALREADY_OPEN (handles in this or another
 * process have the file open through a lock file that was deleted or
 * replaced since: a second set of handles would overwrite their commits;
 * the message names the lock file; the file opens again once they close),
 * CE_ERR_INCOMPATIBLE_LOCK_FILE (`<path>.lock` is a symbolic link, a FIFO
 * or a device: never written through, never removed; or a lock file of an
 * incompatible engine version that another handle is using).
 * An open that may write (not read_only, not CE_DURABILITY_MEMORY_ONLY)
 * and finds no other handle on the file also removes the temporaries that a ce_db_write_copy to `path` left when
 * its process died (see ce_db_write_copy).
 * Encryption, each with its own message: CE_ERR_INVALID_DATABASE
 * "invalid database: decryption failed: ..." for a wrong key, for no key on
 * an encrypted file, and for a key on a plain file; CE_ERR_INVALID_ARGUMENT
 * for a key that is not 64 bytes. A page of an encrypted file that fails
 * authentication when read (a flipped bit, a swapped page) is
 * CE_ERR_INVALID_DATABASE naming the page, from whichever call read it.
 * A file that another process truncates while it is open (plain or
 * encrypted) is CE_ERR_CORRUPT naming the file ("... was truncated ..."),
 * from the call that read past the new end or the next transaction begin
 * or commit; never a SIGBUS (the engine handles SIGBUS in its own mappings
 * and passes every other SIGBUS to the disposition it replaced: a program
 * that installs its own SIGBUS handler should do so before opening a
 * database). The handle then fails every transaction until it is closed.
 * A handle belongs to the process that opened it: in a child of fork(),
 * beginning a transaction, writing and committing through an inherited
 * handle are CE_ERR_WRONG_TRANSACTION_STATE ("... opened in process P; it
 * cannot be used after fork() in process C: open the file again"), and
 * ce_db_close / ce_txn_end there free only the child's memory, leaving the
 * parent's locks and file as they are.
 *
 *     uint8_t key[64];                      // from the keychain, never a constant
 *     ce_db_options options;
 *     ce_db_options_init(&options);
 *     options.encryption_key = key;
 *     options.encryption_key_size = sizeof key;
 *     ce_db *db;
 *     if (!ce_db_open("secret.realm", &options, &db)) ...
 */
bool ce_db_open(const char *path, const ce_db_options *options, ce_db **out_db);

/* Closes the handle. Every transaction of the handle must have ended, and
 * every ce_db_wait_for_change on it returned. Returns false
 * (CE_ERR_WRONG_TRANSACTION_STATE) if some have not; the handle stays open
 * then. Grouped commits not yet durable (of any handle) are synced first,
 * as ce_db_sync; if that sync fails, the handle is closed all the same and
 * false returned with the sync's error (those commits are in the file,
 * but a power loss may take them). */
bool ce_db_close(ce_db *db);

/* The path of the database file. */
const char *ce_db_path(const ce_db *db);

/*
 * Realm's deleteFiles(for:): deletes the database file at `path` and the
 * files the engine keeps beside it (`<path>.lock`, and `<path>.compact` left
 * by an interrupted compaction), provided no handle has the file open in any
 * process. *out_deleted (may be NULL) says whether the database file
 * existed. Missing files are not an error.
 *
 * Errors: CE_ERR_ALREADY_OPEN "Cannot delete files of an open Realm: '<path>'
 * is still in use." (nothing is deleted), CE_ERR_FILE_PERMISSION_DENIED,
 * CE_ERR_FILE_ACCESS.
 *
 *     bool deleted;
 *     if (!ce_db_delete_files("app.realm", &deleted)) fprintf(stderr, "%s\n", ce_last_error_message());
 */
bool ce_db_delete_files(const char *path, bool *out_deleted);

/* ------------------------------------------------------------------------ */
/* Transactions                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Begins a read transaction: a snapshot of the latest committed version.
 * It never blocks and never sees a later commit until ce_txn_advance.
 * Errors: CE_ERR_TOO_MANY_READERS, CE_ERR_CORRUPT (the file is shorter
 * than the version: another process truncated it; see ce_db_open).
 */
bool ce_txn_begin_read(ce_db *db, ce_txn **out_txn);

/*
 * Begins a read transaction at `version`, which another live read transaction
 * of the same handle pins (for example one kept open to hold a frozen
 * snapshot). The new transaction pins the version by itself: it stays
 * readable, byte for byte, after the other one ends, until this one ends,
 * whatever commits and reuse of free space happen meanwhile. A transaction
 * belongs to one thread at a time; this is how several threads read one
 * version at once, each with its own transaction.
 *
 * Errors: CE_ERR_WRONG_TRANSACTION_STATE "cannot begin a read transaction at
 * version <v> of '<path>': no live read transaction of this handle pins it"
 * (a version nobody pins may already be overwritten; a write transaction does
 * not count), CE_ERR_TOO_MANY_READERS.
 *
 *     ce_txn *pin, *reader;
 *     ce_txn_begin_read(db, &pin);                 // on thread A
 *     uint64_t version = ce_txn_version(pin);
 *     // on thread B, while `pin` lives:
 *     if (!ce_txn_begin_read_at(db, version, &reader)) fprintf(stderr, "%s\n", ce_last_error_message());
 *     ...                                          // reads `version`, never a later commit
 *     ce_txn_end(reader);
 */
bool ce_txn_begin_read_at(ce_db *db, uint64_t version, ce_txn **out_txn);

/*
 * Begins the write transaction, waiting until no other thread or process
 * holds it. It starts from the latest committed version.
 * Errors: CE_ERR_READ_ONLY, CE_ERR_TOO_MANY_VERSIONS.
 */
bool ce_txn_begin_write(ce_db *db, ce_txn **out_txn);

/*
 * ce_txn_begin_write without waiting: when another transaction holds the
 * write lock (of any thread, handle or process, or a compaction of this
 * handle), returns true at once with *out_txn = NULL and no error set
 * ("busy": try again later, or wait with ce_txn_begin_write on a thread
 * that may block). Otherwise as ce_txn_begin_write: true with the write
 * transaction, or false with its errors. A thread that holds the write
 * transaction gets busy too, never an error.
 *
 *     ce_txn *write;
 *     if (!ce_txn_try_begin_write(db, &write)) fprintf(stderr, "%s\n", ce_last_error_message());
 *     else if (!write) ...                      // busy: nothing was waited for
 *     else { ... ce_txn_commit(write); }
 */
bool ce_txn_try_begin_write(ce_db *db, ce_txn **out_txn);

/* Commits a write transaction and ends it. A failed commit does not end
 * the transaction (the conventions: a failed call never frees a handle):
 * the caller ends it with ce_txn_end, which rolls it back and lets the next
 * writer in; until then, it can only be ended (another commit fails with
 * CE_ERR_WRONG_TRANSACTION_STATE). On failure nothing a reader can see has
 * changed. Errors: CE_ERR_OUT_OF_DISK_SPACE, CE_ERR_FILE_ACCESS,
 * CE_ERR_WRONG_TRANSACTION_STATE (a read transaction, which stays open).
 *
 *     if (!ce_txn_commit(write)) {
 *         fprintf(stderr, "%s\n", ce_last_error_message());
 *         ce_txn_end(write);                 // rolled back
 *     }
 */
bool ce_txn_commit(ce_txn *txn);

/*
 * Group commit: commits that share one sync.
 *
 * ce_txn_commit_grouped commits `txn` and returns once the commit is
 * visible to every reader in every process, without waiting for stable
 * storage. The commit joins the file's current group; ce_db_sync makes it
 * durable. out_version (may be NULL): the version committed. After a power
 * loss a group is wholly present or wholly absent: no header slot names a
 * version in the middle of a group. A commit with ce_txn_commit, and
 * ce_db_close, make the pending group durable too. Errors as
 * ce_txn_commit (on failure the transaction stays open, to be ended).
 *
 * ce_db_sync returns once `version` and every earlier version of the file
 * are on stable storage: one sync for all grouped commits not yet durable
 * (of every handle and process); concurrent callers on any thread share it
 * (one of them syncs, the others wait for it, and a caller whose version is
 * already durable returns at once). Errors: CE_ERR_INVALID_ARGUMENT (a
 * version past the latest), CE_ERR_READ_ONLY (a read-only handle and a
 * version not yet durable), CE_ERR_FILE_ACCESS, CE_ERR_OUT_OF_DISK_SPACE
 * (the versions stay visible and pending; a later sync retries).
 *
 * With CE_DURABILITY_MEMORY_ONLY and CE_DURABILITY_UNSAFE_NO_SYNC both
 * follow the handle's durability: a grouped commit is a plain commit and
 * ce_db_sync syncs nothing.
 *
 * Example: many small commits, each acknowledged once durable, with one
 * sync for all of them.
 *
 *     uint64_t version = 0;
 *     for (int i = 0; i < 100; i++) {
 *         ce_txn *write;
 *         if (!ce_txn_begin_write(db, &write)) break;
 *         // ... change objects ...
 *         if (!ce_txn_commit_grouped(write, &version)) {   // visible now
 *             ce_txn_end(write);
 *             break;
 *         }
 *     }
 *     if (version > 0 && !ce_db_sync(db, version))       // all 100 durable
 *         fprintf(stderr, "%s\n", ce_last_error_message());
 */
bool ce_txn_commit_grouped(ce_txn *txn, uint64_t *out_version);
bool ce_db_sync(ce_db *db, uint64_t version);

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
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* The types of properties and values. */
typedef enum ce_type {
    CE_TYPE_NULL = 0,       /* only as a value: no value */
    CE_TYPE_INT = 1,        /* 64-bit signed integer */
    CE_TYPE_BOOL = 2,
    CE_TYPE_FLOAT = 3,
    CE_TYPE_DOUBLE = 4,
    CE_TYPE_STRING = 5,     /* UTF-8, checked on write */
    CE_TYPE_BINARY = 6,
    CE_TYPE_TIMESTAMP = 7,  /* seconds and nanoseconds since 1970-01-01 UTC */
    CE_TYPE_DECIMAL128 = 8, /* IEEE 754-2008 decimal128, binary integer decimal encoding */
    CE_TYPE_OBJECT_ID = 9,  /* 12 bytes */
    CE_TYPE_UUID = 10,      /* 16 bytes */
    CE_TYPE_MIXED = 11,     /* a property that holds a value of any type */
    CE_TYPE_LINK = 12,      /* a reference to an object */
    /* Only as a value read from or written to a mixed property or element:
     * a nested list or dictionary of mixed values, reached through
     * ce_collection_open_nested. Writing one stores a new empty collection. */
    CE_TYPE_LIST = 13,
    CE_TYPE_DICTIONARY = 14
} ce_type;

typedef struct ce_timestamp {
    int64_t seconds;
    int32_t nanoseconds; /* same sign as seconds (or either when seconds is 0), |ns| < 1e9 */
} ce_timestamp;

typedef struct ce_decimal128 {
    uint64_t low, high; /* the 128 bits, little-endian words */
} ce_decimal128;

/*
 * Decimal128 values: the engine's own parsing, printing, order and
 * arithmetic, for bindings that need them (Swift's Decimal128 uses these).
 * Results are rounded to 34 significant digits, half to even; exponents
 * run from -6176 to 6111 (beyond: infinity, or rounded toward zero).
 *
 * From text: [+-] digits [. digits] [(e|E) [+-] digits], or inf, infinity,
 * nan in any case; nothing else (no spaces). On anything else: false and
 * CE_ERR_INVALID_ARGUMENT. "1.50" keeps its representation (150E-2).
 */
bool ce_decimal128_from_string(const char *text, ce_decimal128 *out);

/* The value as text, like snprintf: writes at most size - 1 characters and
 * a NUL (when size > 0) and returns the length of the whole text. "1.5",
 * "-12.500", "0.000001", "1E-7", "1.2E+40", "0E-6176", "-0", "NaN", "Inf",
 * "-Inf": plain when the exponent is at most 0 and the adjusted exponent
 * (exponent + digits - 1) at least -6, else d.dddE+n. 64 bytes always
 * suffice. */
size_t ce_decimal128_to_string(ce_decimal128 value, char *buffer, size_t size);

/* -1, 0 or 1 by value, in the order the engine sorts decimal128 values:
 * NaN first (every NaN equal to every other), -infinity, negative numbers,
 * zero (every zero), positive numbers, +infinity. 1.0 and 1.00 are equal. */
int ce_decimal128_compare(ce_decimal128 a, ce_decimal128 b);

/* The one representation of a value that every equal value shares (for a
 * hash): trailing zeros removed (1.50 -> 1.5), every zero +0, one NaN. */
ce_decimal128 ce_decimal128_canonical(ce_decimal128 value);

/* An exact integer. */
ce_decimal128 ce_decimal128_from_int64(int64_t value);

/* A double through its 17 significant digits, as a query compares a double
 * with a decimal128 (0.1 becomes 0.10000000000000001). */
ce_decimal128 ce_decimal128_from_double(double value);

bool ce_decimal128_is_nan(ce_decimal128 value);

/* IEEE 754 arithmetic: a NaN operand gives NaN, as do infinity - infinity,
 * 0 * infinity, 0 / 0 and infinity / infinity; x / 0 is a signed infinity.
 * Exact results keep their natural exponent (19.99 * 3 = 59.97, 1 / 4 =
 * 0.25); inexact ones keep 34 digits (1 / 3 = 0.3333333333333333333333333333333333). */
ce_decimal128 ce_decimal128_add(ce_decimal128 a, ce_decimal128 b);
ce_decimal128 ce_decimal128_subtract(ce_decimal128 a, ce_decimal128 b);
ce_decimal128 ce_decimal128_multiply(ce_decimal128 a, ce_decimal128 b);
ce_decimal128 ce_decimal128_divide(ce_decimal128 a, ce_decimal128 b);

typedef struct ce_object_id {
    uint8_t bytes[12];
} ce_object_id;

typedef struct ce_uuid {
    uint8_t bytes[16];
} ce_uuid;

typedef int64_t ce_object_key; /* an object's key within its table (>= 0) */
typedef uint32_t ce_table_key;
typedef uint32_t ce_column_key;

typedef struct ce_link {
    ce_table_key table;
    ce_object_key key;
} ce_link;

/*
 * A value crossing the API: `type` says which member is set. Strings and
 * binaries are (pointer, size) pairs: passed in, they are copied; handed
 * out, they point into the database and stay valid until the transaction
 * changes that object or ends. One exception: a large value stored
 * compressed (4096 bytes or more) is handed out from a buffer of the
 * transaction that the next read of a compressed value reuses; copy it if
 * you need two such values at once.
 */
typedef struct ce_value {
    ce_type type;
    union {
        int64_t integer;
        bool boolean;
        float float_value;
        double double_value;
        struct {
            const char *data;
            size_t size;
        } string;
        struct {
            const uint8_t *data;
            size_t size;
        } binary;
        ce_timestamp timestamp;
        ce_decimal128 decimal;
        ce_object_id object_id;
        ce_uuid uuid;
        ce_link link;
    };
} ce_value;

/*
 * ce_value's layout, for bindings that declare it themselves (Python's
 * ctypes, a JNI or .NET struct): on the 64-bit platforms the engine is
 * built for (pointers and size_t of 8 bytes), CE_VALUE_SIZE bytes; `type`
 * (an int, 4 bytes) at offset 0; every union member at CE_VALUE_DATA_OFFSET,
 * laid out as its C type (ce_timestamp: int64 seconds at 0, int32
 * nanoseconds at 8; ce_decimal128: two uint64 words, low first; strings and
 * binaries: the pointer at 0, the size at 8; ce_link: the uint32 table at 0,
 * the int64 key at 8). The asserts below make a compiler that lays it out
 * otherwise refuse the header; ce_value_size() gives a binding that loads
 * the library at run time the size the library was built with, to check
 * against its own before any call that passes a ce_value.
 */
#define CE_VALUE_SIZE 24
#define CE_VALUE_DATA_OFFSET 8
#if defined(__cplusplus)
#define CE_STATIC_ASSERT(condition, message) static_assert(condition, message)
#else
#define CE_STATIC_ASSERT(condition, message) _Static_assert(condition, message)
#endif
#if UINTPTR_MAX == UINT64_MAX
CE_STATIC_ASSERT(sizeof(ce_value) == CE_VALUE_SIZE, "ce_value is CE_VALUE_SIZE bytes");
CE_STATIC_ASSERT(offsetof(ce_value, type) == 0 && sizeof(ce_type) == 4, "ce_value.type is an int at 0");
CE_STATIC_ASSERT(offsetof(ce_value, integer) == CE_VALUE_DATA_OFFSET &&
                     offsetof(ce_value, string) == CE_VALUE_DATA_OFFSET &&
                     offsetof(ce_value, decimal) == CE_VALUE_DATA_OFFSET && offsetof(ce_value, link) == CE_VALUE_DATA_OFFSET,
                 "ce_value's union is at CE_VALUE_DATA_OFFSET");
CE_STATIC_ASSERT(sizeof(ce_timestamp) == 16 && offsetof(ce_timestamp, nanoseconds) == 8, "ce_timestamp's layout");
CE_STATIC_ASSERT(sizeof(ce_decimal128) == 16 && offsetof(ce_decimal128, high) == 8, "ce_decimal128's layout");
CE_STATIC_ASSERT(sizeof(ce_link) == 16 && offsetof(ce_link, key) == 8, "ce_link's layout");
#endif

/* sizeof(ce_value) in the library as built (CE_VALUE_SIZE). */
size_t ce_value_size(void);

/* A short constant name of a type ("int", "string", ...). */
const char *ce_type_name(ce_type type);

/* ------------------------------------------------------------------------ */
/* Schema: tables and properties (changes need a write transaction)          */
/* ------------------------------------------------------------------------ */

/* Whether a property holds one value or a collection of values of its type. */
typedef enum ce_collection_type {
    CE_COLLECTION_NONE = 0,
    CE_COLLECTION_LIST = 1,       /* ordered, duplicates allowed */
    CE_COLLECTION_SET = 2,        /* unique values, kept in value order */
    CE_COLLECTION_DICTIONARY = 3  /* string keys (sorted) to values */
} ce_collection_type;

/*
 * A property. Zero-initialize it and set what applies:
 *
 *     ce_property_info dogs = {.name = "dogs", .type = CE_TYPE_LINK,
 *                              .collection = CE_COLLECTION_LIST, .link_target = dog_table};
 *
 * Links (CE_TYPE_LINK) name their target table. A to-one link is always
 * nullable (set `nullable`); a list or set of links holds no nulls; a
 * dictionary of links is nullable (a deleted target leaves null). A link to
 * an embedded table owns its target: see ce_object_create_embedded.
 * Mixed properties hold null or a value of any type, a link to an object of
 * any top-level table, or a nested list or dictionary (`nullable` is
 * implied). Every link property gets a backlink property on its target
 * table (named "@links.<Table>.<property>", `backlink` set, read only).
 */
typedef struct ce_property_info {
    const char *name;
    ce_type type;          /* not CE_TYPE_NULL; for collections the element type */
    bool nullable;         /* optional: may hold null (elements, for collections) */
    bool primary_key;      /* int, string, object id or uuid; at most one per table */
    bool indexed;          /* kept in an index: equality lookups without a scan
                            * (int, bool, string, timestamp, object id, uuid) */
    ce_collection_type collection;
    ce_table_key link_target;   /* type CE_TYPE_LINK: the table linked to */
    /* Filled by ce_property_get_info, ignored by ce_property_add: */
    bool backlink;              /* the links of origin_table.origin_column into this table */
    ce_table_key origin_table;
    ce_column_key origin_column;
} ce_property_info;

/* The number of table slots (removed tables keep their slot: keys are stable). */
bool ce_table_count(ce_txn *txn, size_t *out_count);

/* Adds a table. Table and property names are 1 to 63 bytes of UTF-8, do
 * not start with '@' (the engine's backlink properties do) and do not
 * contain '.' (it separates key path steps). Errors: CE_ERR_DUPLICATE_NAME,
 * CE_ERR_INVALID_ARGUMENT (a name that breaks those rules). */
bool ce_table_add(ce_txn *txn, const char *name, ce_table_key *out_table);

/* Finds a table by name; *out_found is false if there is none. */
bool ce_table_find(ce_txn *txn, const char *name, ce_table_key *out_table, bool *out_found);

/* The table's name (valid until the transaction ends or changes the schema). */
bool ce_table_name(ce_txn *txn, ce_table_key table, const char **out_name);

/* Adds an embedded table: its objects exist only inside one parent object
 * (a link, list or dictionary property of another table that targets it),
 * are created through that parent (ce_object_create_embedded,
 * ce_list_insert_embedded, ce_dictionary_insert_embedded) and deleted with
 * it. Embedded tables have no primary key and no indexes. */
bool ce_table_add_embedded(ce_txn *txn, const char *name, ce_table_key *out_table);

bool ce_table_is_embedded(ce_txn *txn, ce_table_key table, bool *out_embedded);

/* Removes a table with all its objects (links into them from other tables
 * are cleared as if the objects were deleted one by one). A table that
 * another table's link property targets cannot be removed while that
 * property exists (CE_ERR_INVALID_SCHEMA). */
bool ce_table_remove(ce_txn *txn, ce_table_key table);

/* Adds a property (column) to a table; existing objects get the default
 * value (null, 0, false, "", ...). A primary key can only be added to an
 * empty table. Errors: CE_ERR_DUPLICATE_NAME, CE_ERR_INVALID_SCHEMA. */
bool ce_property_add(ce_txn *txn, ce_table_key table, const ce_property_info *info, ce_column_key *out_column);

/* Makes a property indexed or not (Realm's `indexed:` changed by a
 * migration): an index is built from the objects the table has, or
 * dropped. The rules are ce_property_add's (int, bool, string, timestamp,
 * object id and uuid properties of top-level tables); the primary key's
 * index cannot be dropped; no change is no error. A rollback undoes it.
 *
 *     ce_property_set_indexed(txn, people, name_column, true);
 */
bool ce_property_set_indexed(ce_txn *txn, ce_table_key table, ce_column_key column, bool indexed);

/* Finds a property by name. */
bool ce_property_find(ce_txn *txn, ce_table_key table, const char *name, ce_column_key *out_column, bool *out_found);

/* A property's definition (strings valid until the schema changes). */
bool ce_property_get_info(ce_txn *txn, ce_table_key table, ce_column_key column, ce_property_info *out_info);

/* The number of column slots of a table (removed properties keep their slot). */
bool ce_property_count(ce_txn *txn, ce_table_key table, size_t *out_count);

/* Removes a property and its values (a link property's links are cleared
 * first: its embedded targets are deleted, its backlink property removed).
 * Backlink properties cannot be removed by themselves. */
bool ce_property_remove(ce_txn *txn, ce_table_key table, ce_column_key column);

/* The schema version the application stored (0 in a new file). */
bool ce_schema_version(ce_txn *txn, uint64_t *out_version);
bool ce_set_schema_version(ce_txn *txn, uint64_t version);

/* ------------------------------------------------------------------------ */
/* Objects                                                                   */
/* ------------------------------------------------------------------------ */

/* Creates an object with default values. A table with a primary key needs
 * `primary_key` (of the key's type; null for an optional key), a table
 * without one takes NULL. Errors: CE_ERR_DUPLICATE_PRIMARY_KEY,
 * CE_ERR_WRONG_TYPE, CE_ERR_NULL_NOT_ALLOWED. */
bool ce_object_create(ce_txn *txn, ce_table_key table, const ce_value *primary_key, ce_object_key *out_object);

/* Creates an object with all its values at once: `values` holds one value
 * per column slot (value_count == ce_property_count), in column order; the
 * slots of removed properties and backlinks are ignored, and may be left
 * out at the end (the first mixed link into a table adds a backlink slot). The primary key, if the table
 * has one, is the value in its column. Checks as ce_object_create and
 * ce_object_set do; the fast way to add many objects.
 *
 *     ce_value person[4] = {
 *         {.type = CE_TYPE_INT, .integer = 1},                         // id
 *         {.type = CE_TYPE_STRING, .string = {"Ada", 3}},              // name
 *         {.type = CE_TYPE_INT, .integer = 36},                        // age
 *         {.type = CE_TYPE_DOUBLE, .double_value = 0.5},               // score
 *     };
 *     ce_object_key key;
 *     ce_object_create_with_values(txn, people, person, 4, &key);
 */
bool ce_object_create_with_values(ce_txn *txn, ce_table_key table, const ce_value *values, size_t value_count,
                                  ce_object_key *out_object);

/* Realm's UpdatePolicy: what creating an object whose primary key exists does. */
typedef enum ce_update_policy {
    CE_UPDATE_ERROR = 0,    /* fail with CE_ERR_DUPLICATE_PRIMARY_KEY */
    CE_UPDATE_MODIFIED = 1, /* update the existing object's properties whose values differ */
    CE_UPDATE_ALL = 2,      /* write every property of the existing object */
    /* As CE_UPDATE_MODIFIED, but a null given for a to-one link to an embedded
     * table keeps the existing object's embedded object, for the caller to
     * update in place (Realm Swift's add(_:update: .modified) does). */
    CE_UPDATE_MODIFIED_KEEP_EMBEDDED = 3
} ce_update_policy;

/* Creates an object with all its values, or, when the table's primary key
 * value exists already, updates that object as `policy` says. The table
 * must have a primary key (CE_ERR_INVALID_ARGUMENT otherwise, unless the
 * policy is CE_UPDATE_ERROR). *out_created tells which happened. */
bool ce_object_create_or_update(ce_txn *txn, ce_table_key table, const ce_value *values, size_t value_count,
                                ce_update_policy policy, ce_object_key *out_object, bool *out_created);

/* Finds an object by its primary key; *out_found is false if there is none. */
bool ce_object_find_primary_key(ce_txn *txn, ce_table_key table, const ce_value *primary_key,
                                ce_object_key *out_object, bool *out_found);

/* Finds the first object (in key order) whose property equals `value`:
 * through the property's index when it is indexed, else by a scan. */
bool ce_object_find_first(ce_txn *txn, ce_table_key table, ce_column_key column, const ce_value *value,
                          ce_object_key *out_object, bool *out_found);

bool ce_object_exists(ce_txn *txn, ce_table_key table, ce_object_key object, bool *out_exists);

/* Deletes an object. Errors: CE_ERR_NO_SUCH_OBJECT. */
bool ce_object_delete(ce_txn *txn, ce_table_key table, ce_object_key object);

/* Reads a property. Strings and binaries point into the database (see
 * ce_value). A link reads as CE_TYPE_LINK or CE_TYPE_NULL; a mixed property
 * holding a nested collection as CE_TYPE_LIST or CE_TYPE_DICTIONARY (open it
 * with ce_collection_open). A collection property cannot be read as one value
 * (CE_ERR_WRONG_TYPE): open it with ce_collection_open. */
bool ce_object_get(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column, ce_value *out_value);

/* Writes a property. A link takes {CE_TYPE_LINK, {target table, key}} of an
 * existing object, or null; the object it linked before loses the backlink
 * (and, in an embedded table, is deleted). Errors: CE_ERR_WRONG_TYPE,
 * CE_ERR_NULL_NOT_ALLOWED, CE_ERR_PRIMARY_KEY_IMMUTABLE,
 * CE_ERR_NO_SUCH_OBJECT (this object, or the link's target),
 * CE_ERR_EMBEDDED_OBJECT (a link to an existing embedded object),
 * CE_ERR_INVALID_ARGUMENT (a string that is not UTF-8). */
bool ce_object_set(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column, const ce_value *value);

/* Writes one property of many objects to the same value, in `objects`'
 * order, as ce_object_set would one by one (Realm's setValue(_:forKey:) on
 * a collection): the table, the property and the value are checked once,
 * and a number, bool, timestamp, string or other value of a property
 * without an index is written into each object's leaf with no call per
 * object (objects in key order share their leaf's nodes). Links and mixed
 * values go object by object, keeping backlinks true. An empty list
 * changes nothing, and needs no write transaction. Errors as ce_object_set
 * (checked before any object changes); CE_ERR_NO_SUCH_OBJECT stops at the
 * first object that does not exist, leaving the objects before it changed.
 *
 *     // Every Person of a query is 30 now (keys from ce_results_get_range):
 *     ce_object_key keys[256];
 *     size_t got;
 *     ce_value thirty = {.type = CE_TYPE_INT, .integer = 30};
 *     for (size_t start = 0;; start += got) {
 *         if (!ce_results_get_range(results, txn, start, 256, keys, &got)) return false;
 *         if (got == 0) break;
 *         if (!ce_object_set_many(txn, person, keys, got, age, &thirty)) return false;
 *     }
 */
bool ce_object_set_many(ce_txn *txn, ce_table_key table, const ce_object_key *objects, size_t count,
                        ce_column_key column, const ce_value *value);

/* Creates a new object of the embedded table that the link property
 * `column` targets and links it from the object, deleting the embedded
 * object linked there before (Realm's `parent.child = Child()`). Embedded
 * objects nest at most 100 levels below their top-level object: a parent
 * that deep fails with CE_ERR_INVALID_ARGUMENT (here and in
 * ce_list_insert_embedded, ce_list_set_embedded, ce_dictionary_insert_embedded). */
bool ce_object_create_embedded(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column,
                               ce_object_key *out_embedded);

/* The links into an object from origin_table.origin_column (a link, a
 * collection of links or a mixed property): how many there are, and the
 * origin object of the link at `index` (origins in key order; an origin that
 * links twice, e.g. from a list, appears twice). This is LinkingObjects. */
bool ce_object_backlink_count(ce_txn *txn, ce_table_key table, ce_object_key object, ce_table_key origin_table,
                              ce_column_key origin_column, size_t *out_count);
bool ce_object_backlink_at(ce_txn *txn, ce_table_key table, ce_object_key object, ce_table_key origin_table,
                           ce_column_key origin_column, size_t index, ce_object_key *out_origin);

/* Every link into an object, from any table and property. */
bool ce_object_backlink_total(ce_txn *txn, ce_table_key table, ce_object_key object, size_t *out_count);

/* The sum of an int, float or double property over all objects of a table,
 * nulls skipped: an int (wrapping like unsigned arithmetic) for int
 * properties, a double for float and double ones. *out_counted (may be
 * NULL) is the number of non-null values. It reads the column leaf by
 * leaf, not object by object. Errors: CE_ERR_WRONG_TYPE for other types. */
bool ce_table_sum(ce_txn *txn, ce_table_key table, ce_column_key column, ce_value *out_sum, size_t *out_counted);

/* Reads many objects at once, leaf by leaf (an export, a bulk copy): the
 * objects at positions first, first + 1, ... in key order (the order of
 * ce_object_key_at), at most `count` of them. For object i (from 0),
 * out_objects[i] (out_objects may be NULL) is its key and
 * out_values[i * column_count + c] its value of columns[c], as
 * ce_object_get reads it. The columns must be scalar properties: not a
 * link, mixed, collection or backlink property (CE_ERR_WRONG_TYPE). Strings
 * and binaries point into the database, or, for values stored compressed,
 * into a buffer of the transaction's that the next ce_object_get_range
 * reuses. *out_read is how many objects were read: fewer than `count` only
 * at the end of the table, 0 when first == ce_object_count. Errors:
 * CE_ERR_INDEX_OUT_OF_BOUNDS when first is past the end,
 * CE_ERR_INVALID_ARGUMENT for a NULL argument (columns and out_values may
 * be NULL only when column_count or count is 0), CE_ERR_CORRUPT when the
 * objects read are not in strictly ascending key order (a damaged file).
 *
 *     ce_column_key columns[2] = {name, age};
 *     ce_value values[256 * 2];
 *     size_t got;
 *     for (size_t first = 0;; first += got) {
 *         if (!ce_object_get_range(txn, people, first, 256, columns, 2, NULL, values, &got)) return false;
 *         if (got == 0) break;
 *         ... values[i * 2 + 0] is object first + i's name ...
 *     }
 */
bool ce_object_get_range(ce_txn *txn, ce_table_key table, size_t first, size_t count, const ce_column_key *columns,
                         size_t column_count, ce_object_key *out_objects, ce_value *out_values, size_t *out_read);

/* The number of objects in a table, and the key of the object at a position
 * (in key order: the order of creation). */
bool ce_object_count(ce_txn *txn, ce_table_key table, size_t *out_count);
bool ce_object_key_at(ce_txn *txn, ce_table_key table, size_t index, ce_object_key *out_object);

/* ------------------------------------------------------------------------ */
/* Collections: lists, sets and dictionaries                                 */
/* ------------------------------------------------------------------------ */

/*
 * A handle on one collection: a collection property of an object, or a
 * list or dictionary nested in a mixed value. It names the collection, it
 * does not pin it: every call finds the collection again in the
 * transaction's current state, so a handle stays usable across changes (and
 * fails with CE_ERR_NO_SUCH_OBJECT once the object is deleted). It belongs to
 * the transaction it was opened in; close it before the transaction ends.
 *
 *     ce_collection *dogs;
 *     ce_collection_open(txn, people, ada, dogs_column, &dogs);
 *     ce_value rex = {.type = CE_TYPE_LINK, .link = {dog_table, rex_key}};
 *     ce_list_insert(dogs, 0, &rex);
 *     size_t count;
 *     ce_collection_size(dogs, &count);
 *     ce_collection_close(dogs);
 *
 * Values follow the property's element type (links as CE_TYPE_LINK). A set
 * reads in value order (ce_value's order), a dictionary in key order
 * (bytewise). Removing a link to an embedded object deletes that object.
 */
typedef struct ce_collection ce_collection;

bool ce_collection_open(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column,
                        ce_collection **out_collection);

/* Opens the list or dictionary held by a mixed element of `parent`: `at` is
 * the element's index (CE_TYPE_INT) in a list, or its key (CE_TYPE_STRING)
 * in a dictionary. Errors: CE_ERR_WRONG_TYPE if the element holds no
 * collection. */
bool ce_collection_open_nested(const ce_collection *parent, const ce_value *at, ce_collection **out_collection);

/* Opens the list or dictionary held by a mixed property. */
bool ce_collection_open_mixed(ce_txn *txn, ce_table_key table, ce_object_key object, ce_column_key column,
                              ce_collection **out_collection);

/* Releases a collection handle. NULL is ignored.
 * A second release sets CE_ERR_INVALID_ARGUMENT and does nothing (docs/DESIGN.md §8). */
void ce_collection_close(ce_collection *collection);

/* What the collection is: CE_COLLECTION_LIST, _SET or _DICTIONARY, and the
 * type of its elements (CE_TYPE_MIXED for nested collections). */
bool ce_collection_kind(const ce_collection *collection, ce_collection_type *out_kind, ce_type *out_element_type);

bool ce_collection_size(const ce_collection *collection, size_t *out_count);

/* The element at `index` (a dictionary: the value of the index-th key).
 * The handle keeps what its last read found (the object, the collection's
 * root, the part read) while the transaction sees no change, so reading
 * every element in turn costs one search, not one per element. */
bool ce_collection_get(const ce_collection *collection, size_t index, ce_value *out_value);

/* The first index whose element equals `value` (a dictionary: whose value
 * does); *out_found is false if none. */
bool ce_collection_find(const ce_collection *collection, const ce_value *value, size_t *out_index, bool *out_found);

/* Removes every element. */
bool ce_collection_clear(ce_collection *collection);

/* Lists. Errors: CE_ERR_INDEX_OUT_OF_BOUNDS, CE_ERR_WRONG_TYPE,
 * CE_ERR_NULL_NOT_ALLOWED, CE_ERR_NO_SUCH_OBJECT (a link to a missing
 * object), CE_ERR_EMBEDDED_OBJECT (a link to an existing embedded object). */
bool ce_list_insert(ce_collection *list, size_t index, const ce_value *value);
bool ce_list_set(ce_collection *list, size_t index, const ce_value *value);
bool ce_list_erase(ce_collection *list, size_t index);
/* Moves the element at `from` so that it ends up at index `to`. */
bool ce_list_move(ce_collection *list, size_t from, size_t to);
bool ce_list_swap(ce_collection *list, size_t a, size_t b);
/* A new embedded object inserted at `index` (or replacing the element at
 * `index`, which is deleted) of a list of links to an embedded table. */
bool ce_list_insert_embedded(ce_collection *list, size_t index, ce_object_key *out_embedded);
bool ce_list_set_embedded(ce_collection *list, size_t index, ce_object_key *out_embedded);

/* Sets. *out_changed tells whether the set changed (may be NULL). */
bool ce_set_insert(ce_collection *set, const ce_value *value, bool *out_changed);
bool ce_set_erase(ce_collection *set, const ce_value *value, bool *out_changed);

/* Dictionaries. Keys are UTF-8, not empty of meaning: a key may not start
 * with '$' or contain '.' (as in Realm). */
bool ce_dictionary_get(const ce_collection *dictionary, const char *key, size_t key_size, ce_value *out_value,
                       bool *out_found);
/* The key at `index` (key order). */
bool ce_dictionary_key_at(const ce_collection *dictionary, size_t index, ce_value *out_key);
/* Inserts or replaces. */
bool ce_dictionary_set(ce_collection *dictionary, const char *key, size_t key_size, const ce_value *value);
bool ce_dictionary_erase(ce_collection *dictionary, const char *key, size_t key_size, bool *out_erased);
/* A new embedded object stored under `key` of a dictionary of links to an
 * embedded table (the object stored there before is deleted). */
bool ce_dictionary_insert_embedded(ce_collection *dictionary, const char *key, size_t key_size,
                                   ce_object_key *out_embedded);

/* ------------------------------------------------------------------------ */
/* Queries                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * A query is a predicate over the objects of one table, written in the
 * format Realm Swift's `filter(_:_:)` takes (NSPredicate's), with Realm
 * Query Language's `$0` arguments:
 *
 *     age >= 50 AND score < 0.5
 *     name BEGINSWITH[c] %@ OR name ==[cd] 'Zoë'
 *     id IN {1, 2, 3} AND NOT (flag == true)
 *     %K BETWEEN {$1, $2}
 *     born > 2020-01-31@12:00:00 AND uid == uuid(3b241101-e2bb-4255-8caf-4136c566a962)
 *     TRUEPREDICATE SORT(score DESC, name ASC) DISTINCT(age) LIMIT(10)
 *
 * Language:
 *   - Operators: == (=), != (<>), <, <=, >, >=, BETWEEN {a, b}, IN {a, b, ...},
 *     BEGINSWITH, ENDSWITH, CONTAINS, LIKE ('*' any run, '?' one
 *     character); modifiers [c] (case-insensitive), [d]
 *     (diacritic-insensitive) and [cd] after the operator, for strings.
 *     AND (&&), OR (||), NOT (!), parentheses, TRUEPREDICATE,
 *     FALSEPREDICATE. Keywords are case-insensitive.
 *   - Arithmetic on numbers on either side of a comparison: +, -, *, /
 *     (* and / first, left to right, parentheses group): `age + 1 > 5`,
 *     `(a - b) * 2 <= $0`, `items.@sum.price * 2 > 30`. int op int is an
 *     int (integer division; int / 0 is INT64_MAX, or INT64_MIN for a
 *     negative dividend), float, double and decimal128 widen in that
 *     order, nil gives nil; other types are refused. An operand of several
 *     values (`scores * 2 > 5`, `ALL dogs.age + 1 > 3`, `n + {1, 2}`) gives
 *     each value with the other operand; two such operands stop the
 *     evaluation ("Operations involving two lists are not supported").
 *     Names may hold '-' (`a-b` is one name) and a sign before digits is
 *     the number's (`a +1` is refused): write `a - b`, `a + 1`.
 *   - Literals: numbers (42, -7, 2.5, 1e-3, 0x1F, inf, -inf, nan, -nan),
 *     strings in '...' or "..." (escapes \\ \' \" \n \r \t \0 \uXXXX), true,
 *     false, nil, NULL, timestamps T<seconds>:<nanoseconds> and
 *     YYYY-MM-DD@HH:MM:SS[:ns] (UTC; before 1970 the nanoseconds take the
 *     seconds' sign, as realm-core reads them: ...23:59:59:1 is T-1:-1),
 *     oid(<24 hex digits>), uuid(<8-4-4-4-12 hex digits>), B64"<base64>".
 *   - Key paths: a property name; `name.@count` / `name.@size` (the length of
 *     a string or binary in bytes); through to-one links (`dog.owner.name`:
 *     null when a link on the way is null), lists and sets of links and
 *     dictionaries of links (`dogs.age`), backlinks (`@links.Person.dogs`:
 *     the Persons whose `dogs` hold the object, Realm's LinkingObjects);
 *     ending at a property, at the objects themselves (`owner == %@`,
 *     `$0 IN dogs`), at a list or set of values (`scores`), or at a
 *     dictionary (`ratings` and `ratings.@allValues`: its values,
 *     `ratings.@allKeys`, `ratings['key']`: null when absent). A path through
 *     a collection yields several values: a comparison holds when ANY of
 *     them matches (the default, also ANY or SOME), ALL of them (true for
 *     none), or NONE. Against a list or another side of several values,
 *     without ANY, ALL or NONE, they compare element by element in order
 *     (`scores == {1, 2}` and `scores IN {1, 2}` hold for [1, 2] only);
 *     one value against a list takes ANY of the list, or ANY, ALL or NONE
 *     written before it (`n == {1, 2}`, `n < ALL {3, 4}`, `n IN NONE $0`).
 *     Not with ce_query_options.realm_swift_values. A string compared
 *     with numbers reads as a number when its text is one (`age == '5'`). `@count`/`@size` (elements, entries, objects), `@sum`,
 *     `@avg`, `@min`, `@max` (of numbers; min and max also of timestamps;
 *     nulls skipped) make one value of them: `scores.@avg > 3`,
 *     `dogs.@max.age == 9`. SUBQUERY(dogs, $d, $d.age > 3 AND $d.vet != nil)
 *     .@count counts the objects of a collection for which a predicate holds.
 *     A mixed property compares with a value of any type.
 *   - Comparisons: null equals only null (`x != 5` matches null); nil
 *     takes every operator, as in Realm: null <= null, null >= null and
 *     null LIKE null hold, < and > never hold with a null (`i <= nil`
 *     matches the nulls), except that a null string property of the
 *     object (or of a SUBQUERY's variable) orders before every string
 *     value, as in Realm (`s < 'a'` and `s <= 'a'` match a null s;
 *     through links and lists, or against another property, a null
 *     string matches no ordering); BEGINSWITH, ENDSWITH and CONTAINS with nil or an
 *     empty string or binary match nothing; a number compared with a float
 *     property is made a float first (`f == 0.1` matches 0.1f); numbers of
 *     any types compare by value; == on
 *     floats and doubles treats NaN as equal to NaN, < <= > >= never match
 *     NaN; objects compare by identity (==, != and IN only); other types
 *     compare within their type (a binary also with a string), in the order
 *     ce_results sorts by; values of types that do not compare (in a mixed
 *     property) are only unequal.
 *   - Suffixes SORT(keyPath ASC|DESC, ...), DISTINCT(keyPath, ...) and
 *     LIMIT(n) apply, in the order written, to the results of
 *     ce_query_find_all.
 *
 * Arguments: each %@ and %K takes the next argument in order of appearance
 * (counting only % placeholders), $N takes argument N. A %K argument is a
 * value whose string is a key path. IN %@ and BETWEEN %@ take a list
 * argument. Extra arguments are ignored. Arguments are copied: the caller's
 * memory is not used after ce_query_parse returns.
 *
 * Errors: a predicate that does not parse or bind is CE_ERR_INVALID_QUERY,
 * whose message names the position (a byte offset into the predicate) and
 * the token there: "Invalid predicate: at position 6 ('>'): expected a value
 * or a key path"; "... class 'Person' has no property 'agee'"; "...
 * cannot compare int property 'Person.age' with a string ('x')".
 *
 * Evaluation is lazy and live: ce_query_count, ce_query_find_first and the
 * ce_results calls evaluate against the transaction they are given, and a
 * results view re-evaluates itself when that transaction has advanced or
 * changed data since the view last ran (the schema is re-bound too). A
 * query or results handle is used by one thread at a time; queries and
 * results may outlive the transaction they were made in and be used with
 * any later transaction of the same database.
 *
 * Example:
 *
 *     ce_query_argument minimum = {.kind = CE_QUERY_ARGUMENT_VALUE,
 *                                  .value = {.type = CE_TYPE_INT, .integer = 50}};
 *     ce_query *query;
 *     if (!ce_query_parse(txn, people, "age >= $0 AND score < 0.5", &minimum, 1, &query))
 *         fprintf(stderr, "%s\n", ce_last_error_message());
 *     size_t count;
 *     ce_query_count(query, txn, &count);
 *     ce_results *all, *sorted;
 *     ce_query_find_all(query, &all);
 *     ce_sort_key by_score = {"score", false};          // descending
 *     ce_results_sort(txn, all, &by_score, 1, &sorted);
 *     ce_object_key best;
 *     ce_results_get(sorted, txn, 0, &best);
 *     ce_results_free(sorted);
 *     ce_results_free(all);
 *     ce_query_free(query);
 */
typedef struct ce_query ce_query;
typedef struct ce_results ce_results;

/*
 * A geospatial shape, for `geoWithin` (Realm's geospatial queries): a box,
 * a circle or a polygon on the sphere, in degrees of longitude and latitude
 * (longitude first, as GeoJSON and Realm Query Language write a point).
 *   CE_GEO_BOX      corners[0] the bottom-left (south-west) corner,
 *                   corners[1] the top-right (north-east) one: as
 *                   realm-core, the polygon through the four corners
 *                   (corners[0], [corners[0].longitude, corners[1].latitude],
 *                   corners[1], [corners[1].longitude, corners[0].latitude]),
 *                   so its edges are great-circle arcs (a north edge
 *                   bulges poleward of its parallel), the corners' order
 *                   does not matter, and it is checked and printed as
 *                   that polygon;
 *   CE_GEO_CIRCLE   center and radius_radians (an angle at the centre of
 *                   the sphere: kilometres / 6378.1), the edge included;
 *   CE_GEO_POLYGON  ring_count rings, ring_sizes[i] points each, one after
 *                   another in `points`: ring 0 the outer ring, the others
 *                   holes in it; each ring closed (its last point equals its
 *                   first) with at least 3 different points, edges are
 *                   great-circle arcs, and a ring is the smaller of the two
 *                   regions it bounds (whatever its orientation); points on
 *                   an edge, a hole's too, are within.
 * A shape is checked when a query binds it, as realm-core checks it
 * (coordinates within +-180 and +-90, rings closed, not crossing
 * themselves or one another, holes inside the outer ring and not nested,
 * a radius >= 0): an invalid one is CE_ERR_INVALID_QUERY with realm-core's
 * words ("Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[0,
 * 0], [0, 0], [1, 0], [1, 0], [0, 0]})': 'Ring 0 must have at least 3
 * different vertices, 2 unique vertices were provided'").
 *
 * `location geoWithin $0` (or `location IN %@`, Realm Swift's form) with a
 * CE_QUERY_ARGUMENT_GEO argument, or a shape written in the predicate:
 *     location geoWithin geoBox([-122.5, 37.5], [-122.0, 38.0])
 *     location geoWithin geoCircle([-122.4, 37.8], 0.01)
 *     location geoWithin geoPolygon({[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]},
 *                                   {[2, 2], [4, 2], [4, 4], [2, 2]})
 * (a coordinate may be an argument, $1; a point may have a third
 * coordinate, its altitude, which no query uses but messages print and a
 * ring's closure compares, as `altitudes` above). The key path ends at a link (or
 * a list of links, with ANY, ALL or NONE) to an embedded class with a
 * string property `type` and a list of doubles `coordinates`: an object
 * whose embedded object has type "Point" (any case) and coordinates
 * [longitude, latitude] (a third value, the altitude, is ignored) matches
 * when the point is within the shape. As in realm-core, an object that
 * holds no valid point never matches: a null link, another type string
 * ("Polygon", ""), fewer than two coordinates, or a stored point out of
 * range (a latitude beyond +-90, a longitude beyond +-180, NaN).
 */
typedef struct ce_geo_point {
    double longitude, latitude;
} ce_geo_point;

typedef enum ce_geo_kind { CE_GEO_BOX = 1, CE_GEO_CIRCLE = 2, CE_GEO_POLYGON = 3 } ce_geo_kind;

typedef struct ce_geo {
    ce_geo_kind kind;
    ce_geo_point corners[2];   /* CE_GEO_BOX */
    ce_geo_point center;       /* CE_GEO_CIRCLE */
    double radius_radians;
    const ce_geo_point *points; /* CE_GEO_POLYGON: the rings' points in turn */
    const size_t *ring_sizes;
    size_t ring_count;
    /* Optional altitudes (NULL: no point has one): one for each point
     * above, in order (CE_GEO_BOX: the 2 corners, CE_GEO_CIRCLE: the
     * center, CE_GEO_POLYGON: every ring's points in turn), NaN for a point
     * without one. As realm-core's GeoPoint altitude, no query uses them:
     * a ring is closed only if its first and last altitudes agree too, and
     * messages print a point with one as [longitude, latitude, altitude]
     * ("Invalid region in GEOWITHIN query for parameter 'GeoCircle([1, 2,
     * 0], 0.5)': ..."). */
    const double *altitudes;
} ce_geo;

typedef enum ce_query_argument_kind {
    CE_QUERY_ARGUMENT_VALUE = 0, /* one value (for %K: a string holding a key path) */
    CE_QUERY_ARGUMENT_LIST = 1,  /* a list of values, for IN %@ and BETWEEN %@ */
    CE_QUERY_ARGUMENT_GEO = 2    /* a geospatial shape, for geoWithin $0 and IN %@ */
} ce_query_argument_kind;

typedef struct ce_query_argument {
    ce_query_argument_kind kind;
    ce_value value;       /* CE_QUERY_ARGUMENT_VALUE */
    const ce_value *list; /* CE_QUERY_ARGUMENT_LIST: list_count values */
    size_t list_count;
    const ce_geo *geo;    /* CE_QUERY_ARGUMENT_GEO */
} ce_query_argument;

/* Parses `predicate` (NUL-terminated UTF-8) and binds it to `table` in the
 * transaction's schema. Errors: CE_ERR_INVALID_QUERY (with position and
 * token), CE_ERR_NO_SUCH_TABLE, CE_ERR_INVALID_ARGUMENT (a malformed
 * argument: an unknown kind, a bad timestamp). */
bool ce_query_parse(ce_txn *txn, ce_table_key table, const char *predicate, const ce_query_argument *arguments,
                    size_t argument_count, ce_query **out_query);

/*
 * How ce_query_parse_with reads a predicate. realm_swift_values: the checks
 * Realm Swift makes of the values a predicate compares with (its
 * NSPredicate conversion, RLMQueryUtil.mm validate_property_value) on top
 * of the engine's rules: nil compared with a property that cannot hold
 * null (`age == nil` for a required int; not a mixed value, a link, a
 * dictionary's entry, an aggregate or a length) is CE_ERR_INVALID_QUERY
 * "Expected object of type int for property 'age' on object of type
 * 'Person', but received: (null)", where ce_query_parse matches no object
 * (every object with !=). It also keeps Realm Swift's readings where
 * realm-core's differ: a string is no number, a list compares only by IN
 * and BETWEEN, and several values against a list are each looked up in it.
 */
typedef struct ce_query_options {
    bool realm_swift_values;
} ce_query_options;

/* ce_query_parse with options (NULL: ce_query_parse's). */
bool ce_query_parse_with(ce_txn *txn, ce_table_key table, const char *predicate, const ce_query_argument *arguments,
                         size_t argument_count, const ce_query_options *options, ce_query **out_query);

/* Releases a query (results made from it stay valid). NULL is ignored.
 * A second release sets CE_ERR_INVALID_ARGUMENT and does nothing (docs/DESIGN.md §8). */
void ce_query_free(ce_query *query);

/* The number of objects that match. `txn` must read the file the query was
 * made on (any handle of it): a transaction of another file is
 * CE_ERR_INVALID_ARGUMENT, here and in every call that takes a query or a
 * results view with a transaction (docs/DESIGN.md §8). */
bool ce_query_count(ce_query *query, ce_txn *txn, size_t *out_count);

/* The first matching object in key order (creation order); *out_found is
 * false if none matches. */
bool ce_query_find_first(ce_query *query, ce_txn *txn, ce_object_key *out_object, bool *out_found);

/* A results view of the matching objects, in key order, then sorted,
 * made distinct and limited as the predicate's SORT/DISTINCT/LIMIT say.
 * Nothing is evaluated until the view is read. */
bool ce_query_find_all(ce_query *query, ce_results **out_results);

/* One key of a sort: a key path of the results' table, and a direction. */
typedef struct ce_sort_key {
    const char *key_path;
    bool ascending;
} ce_sort_key;

/*
 * New views of a results view (which is left as it is):
 *   ce_results_sort      by several key paths, the first one first; a
 *                        stable sort, so objects equal on every key keep
 *                        their order (sorting a sorted view by another key
 *                        makes the earlier sort the tie-breaker). Order:
 *                        null first, then as ce_value compares (numbers by
 *                        value, NaN first; strings by bytes, i.e. code
 *                        points; false < true; ...); descending reverses it.
 *                        An object whose to-one link on a key path is null
 *                        comes after every value ascending, before every
 *                        value descending (as Realm sorts).
 *   ce_results_distinct  keeps the first object of each distinct
 *                        combination of the key paths' values; objects
 *                        whose to-one link on a key path is null are left
 *                        out (as Realm's distinct).
 *   ce_results_limit     keeps the first `limit` objects.
 * Key paths may go through to-one links (`owner.name`) or end at an
 * aggregate (`dogs.@count`): one value per object. Descriptors apply in the
 * order they are added. Errors: CE_ERR_INVALID_QUERY for a key path that
 * does not name a property or holds several values, in realm-core's words
 * for the key paths Realm refuses: "Cannot sort on key path 'x': property
 * 'Person.x' does not exist." (distinct's too).
 */
bool ce_results_sort(ce_txn *txn, const ce_results *results, const ce_sort_key *keys, size_t key_count,
                     ce_results **out_results);
bool ce_results_distinct(ce_txn *txn, const ce_results *results, const char *const *key_paths, size_t key_path_count,
                         ce_results **out_results);
bool ce_results_limit(const ce_results *results, size_t limit, ce_results **out_results);

/* Releases a results view. NULL is ignored.
 * A second release sets CE_ERR_INVALID_ARGUMENT and does nothing (docs/DESIGN.md §8). */
void ce_results_free(ce_results *results);

/* The table of the results' objects. */
ce_table_key ce_results_table(const ce_results *results);

/* The number of objects in the view. */
bool ce_results_count(ce_results *results, ce_txn *txn, size_t *out_count);

/* The object at `index`. Errors: CE_ERR_INDEX_OUT_OF_BOUNDS. */
bool ce_results_get(ce_results *results, ce_txn *txn, size_t index, ce_object_key *out_object);

/* Up to `count` keys of the view from position `start` on, in one call
 * (a binding reads a view in chunks this way, not one ce_results_get per
 * object): *out_count is how many were written to out_objects, which has
 * room for `count` keys; fewer than `count` only at the end of the view,
 * and 0 when start == the view's count. Errors: CE_ERR_INDEX_OUT_OF_BOUNDS
 * when start is past the end, CE_ERR_INVALID_ARGUMENT (a NULL argument;
 * out_objects may be NULL only when count is 0).
 *
 *     ce_object_key keys[256];
 *     size_t got;
 *     for (size_t at = 0; ce_results_get_range(results, txn, at, 256, keys, &got) && got > 0; at += got)
 *         for (size_t i = 0; i < got; i++) use(keys[i]);
 */
bool ce_results_get_range(ce_results *results, ce_txn *txn, size_t start, size_t count, ce_object_key *out_objects,
                          size_t *out_count);

/* The position of an object in the view; *out_found is false if it is not
 * in it. */
bool ce_results_index_of(ce_results *results, ce_txn *txn, ce_object_key object, size_t *out_index, bool *out_found);

typedef enum ce_aggregate {
    CE_AGGREGATE_MIN = 0, /* int, float, double, decimal128, timestamp: null if no value */
    CE_AGGREGATE_MAX = 1, /* the same */
    CE_AGGREGATE_SUM = 2, /* int (an int, wrapping like unsigned arithmetic), float and double (a double),
                           * decimal128 (a decimal128): 0 if no value */
    CE_AGGREGATE_AVG = 3, /* int, float, double (a double), decimal128 (a decimal128): null if no value */
    CE_AGGREGATE_COUNT = 4 /* any property: the number of non-null values (an int) */
} ce_aggregate;

/* An aggregate of a property (a key path) over the objects of the view,
 * nulls skipped. *out_counted (may be NULL) is the number of non-null
 * values. Errors: CE_ERR_INVALID_QUERY (no such property),
 * CE_ERR_WRONG_TYPE (an aggregate the property's type does not have). */
bool ce_results_aggregate(ce_results *results, ce_txn *txn, const char *key_path, ce_aggregate aggregate,
                          ce_value *out_value, size_t *out_counted);

/*
 * Results views of a collection, of backlinks, and of another view
 * (Realm's `person.dogs`, `dog.owners` (LinkingObjects) and `.filter(...)`
 * on any of them, as Results).
 *
 * These views are lazy and live like those of ce_query_find_all: they
 * remember what they read (an object and a property), not the objects they
 * found, and read it again from the transaction they are given whenever it
 * has advanced or changed data. Every ce_results call takes them: count,
 * get, index_of, sort, distinct, limit, aggregate, and ce_results_filter
 * again. They may outlive the collection handle and the transaction they
 * were made in.
 *
 * ce_results_from_collection: the objects a list or set of links holds
 * (also a list of embedded objects), in the collection's order; or the
 * objects a dictionary of links holds as values, in key order, its null
 * values (keys set to null, or whose object was deleted) left out (Realm's
 * `map.filter(...)`, `map.sorted(byKeyPath:)`, `map.min(ofProperty:)`). An
 * object the collection holds twice (a list, or a dictionary under two
 * keys) is in the view twice (index_of names its first position).
 * ce_results_table is the link's target table. A collection of values, or
 * a collection nested in a mixed value, is CE_ERR_WRONG_TYPE (aggregate
 * values with ce_collection_aggregate).
 *
 * ce_results_from_backlinks: the objects of origin_table whose property
 * origin_column (a link, a list or set of links, or a mixed property)
 * links to `target`, in key order, an origin once per link (as
 * ce_object_backlink_at lists them). Errors: CE_ERR_NO_SUCH_PROPERTY when
 * origin_column holds no links to target_table, CE_ERR_NO_SUCH_OBJECT when
 * the target does not exist.
 *
 * Once the object that holds the collection (the target of the backlinks)
 * is deleted, reading the view fails with CE_ERR_NO_SUCH_OBJECT ("the
 * results view of a collection is invalidated: ..."), as Realm invalidates
 * the List and the Results made from it; views made from it fail the same
 * way.
 *
 * ce_results_filter: the objects of `results` that match `query`, in the
 * order of `results` (a filter of a sorted view stays sorted); then the
 * query's own SORT/DISTINCT/LIMIT suffixes apply. The query must be on the
 * results' table (CE_ERR_INVALID_ARGUMENT otherwise). `results` is copied:
 * free it whenever you like. Filters chain.
 *
 *     ce_collection *dogs;
 *     ce_collection_open(txn, people, ada, dogs_column, &dogs);
 *     ce_results *ada_dogs, *old, *by_name;
 *     ce_results_from_collection(txn, dogs, &ada_dogs);       // person.dogs
 *     ce_collection_close(dogs);
 *     ce_query *older;
 *     ce_query_parse(txn, dog_table, "age > 2", NULL, 0, &older);
 *     ce_results_filter(txn, ada_dogs, older, &old);           // .filter("age > 2")
 *     ce_sort_key by = {"name", true};
 *     ce_results_sort(txn, old, &by, 1, &by_name);             // .sorted(byKeyPath: "name")
 *     ce_value total;
 *     ce_results_aggregate(ada_dogs, txn, "age", CE_AGGREGATE_SUM, &total, NULL);
 *     ...                                                      // later transactions: same handles
 *     ce_results_free(by_name); ce_results_free(old); ce_results_free(ada_dogs);
 *     ce_query_free(older);
 *
 *     ce_results *owners;                                      // dog.owners: LinkingObjects
 *     ce_results_from_backlinks(txn, dog_table, rex, people, dogs_column, &owners);
 */
bool ce_results_from_collection(ce_txn *txn, const ce_collection *collection, ce_results **out_results);
bool ce_results_from_backlinks(ce_txn *txn, ce_table_key target_table, ce_object_key target, ce_table_key origin_table,
                               ce_column_key origin_column, ce_results **out_results);
bool ce_results_filter(ce_txn *txn, const ce_results *results, ce_query *query, ce_results **out_results);

/*
 * An aggregate of the values of a list, set or dictionary (its values) of
 * values: Realm's `scores.sum()`, `.min()`, `.max()`, `.average()`. The
 * same types and results as ce_results_aggregate, nulls skipped: sum of
 * none is 0, min, max and average of none are null; count is the number of
 * non-null values (any element type, links too). A collection of mixed
 * values aggregates the numbers among it (int, float, double, decimal128;
 * other values are skipped like nulls, except by count): min and max give
 * the number as stored, compared by value; sum and average give a
 * decimal128 (as Realm does for mixed). Errors: CE_ERR_WRONG_TYPE for an
 * aggregate the element type does not have (for links: aggregate a
 * property through ce_results_from_collection and ce_results_aggregate),
 * CE_ERR_NO_SUCH_OBJECT once the collection's object is deleted.
 *
 *     ce_collection *scores;
 *     ce_collection_open(txn, people, ada, scores_column, &scores);
 *     ce_value average;
 *     ce_collection_aggregate(scores, CE_AGGREGATE_AVG, &average);   // null if no score
 *     ce_collection_close(scores);
 */
bool ce_collection_aggregate(const ce_collection *collection, ce_aggregate aggregate, ce_value *out_value);

/*
 * The same aggregate of `count` values in memory, as if they were the
 * elements of a collection of `element` values (CE_TYPE_MIXED: of mixed
 * values): the same types, results, exact decimal128 sums and errors as
 * ce_collection_aggregate, so that a collection not yet in the database
 * (Realm's unmanaged `List<Decimal128>().sum()`) aggregates as it will
 * once stored. Each value is null or of type `element` (any type for
 * mixed), else CE_ERR_WRONG_TYPE. Strings and binaries the values point
 * at are only read during the call.
 *
 *     ce_value prices[] = {{.type = CE_TYPE_DECIMAL128, .decimal = tenth},
 *                          {.type = CE_TYPE_DECIMAL128, .decimal = tenth}};
 *     ce_value total;
 *     ce_values_aggregate(prices, 2, CE_TYPE_DECIMAL128, CE_AGGREGATE_SUM, &total);   // 0.2 exactly
 */
bool ce_values_aggregate(const ce_value *values, size_t count, ce_type element, ce_aggregate aggregate,
                         ce_value *out_value);

/*
 * Realm's `list.sorted(ascending:)` of a list, set or dictionary (its
 * values) of values: fills out_indices with the positions of its elements
 * (ce_collection_get's indexes) in sorted order, in the order
 * ce_results_sort uses (null first, then as ce_value compares: numbers of
 * one type by value, NaN first, strings by bytes, ...; a mixed collection
 * orders by type first). The sort is stable in both directions: equal
 * elements keep their order. *out_count is the collection's size;
 * `capacity` (the room in out_indices) must be at least that, else
 * CE_ERR_INVALID_ARGUMENT (with *out_count set, to allocate and call
 * again). A snapshot, not a live view: call it again after a change.
 * Errors: CE_ERR_WRONG_TYPE for a collection of links (sort its objects
 * with ce_results_from_collection and ce_results_sort).
 *
 *     size_t count;
 *     ce_collection_size(scores, &count);
 *     size_t *order = malloc(count * sizeof *order);
 *     ce_collection_sorted_indices(scores, false, order, count, &count);   // highest first
 *     ce_value best;
 *     if (count) ce_collection_get(scores, order[0], &best);
 */
bool ce_collection_sorted_indices(const ce_collection *collection, bool ascending, size_t *out_indices, size_t capacity,
                                  size_t *out_count);

/*
 * Realm's `sorted(ascending:)` and `distinct()` of a list, set or
 * dictionary (its values) of values, chained in any order
 * (`scores.distinct().sorted(ascending: false)`): fills out_indices with
 * the positions of the elements (ce_collection_get's indexes) that the
 * steps keep, in the order they leave them. The steps apply in turn to
 * the collection's positions in its own order:
 *   CE_VALUES_ASCENDING, CE_VALUES_DESCENDING  a stable sort by value, in
 *                        ce_collection_sorted_indices's order;
 *   CE_VALUES_DISTINCT   keeps the first position of each distinct value
 *                        (null is one value; values equal as
 *                        ce_results_distinct finds them: 0.0 and -0.0,
 *                        decimal 1.0 and 1.00, every NaN; a mixed value
 *                        only equals one of its own type).
 * No step: the collection's order. *out_count is the number kept; on
 * too little room (`capacity` below the collection's size:
 * CE_ERR_INVALID_ARGUMENT) it is the collection's size, to allocate and
 * call again. A snapshot: call it again after a change. Errors:
 * CE_ERR_INVALID_ARGUMENT for a step that is none of the three,
 * CE_ERR_WRONG_TYPE for a collection of links.
 *
 *     ce_values_step steps[] = {CE_VALUES_DISTINCT, CE_VALUES_DESCENDING};
 *     size_t order[64], kept;
 *     ce_collection_ordered_indices(scores, steps, 2, order, 64, &kept);   // each score once, highest first
 */
typedef enum ce_values_step { CE_VALUES_ASCENDING, CE_VALUES_DESCENDING, CE_VALUES_DISTINCT } ce_values_step;
bool ce_collection_ordered_indices(const ce_collection *collection, const ce_values_step *steps, size_t step_count,
                                   size_t *out_indices, size_t capacity, size_t *out_count);

/* ------------------------------------------------------------------------ */
/* Changes and notifications                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Waits until the latest version of the file differs from `version` (a
 * commit in any thread or process that has the file open), until
 * ce_db_wake_waiters on this handle, or until `timeout_ms` milliseconds have
 * passed (-1: no limit; 0: only look). *out_changed says whether the latest
 * version differs from `version` when the call returns: false after a wake
 * or a timeout. It returns at once when the latest version already differs.
 * Nothing is polled: the thread sleeps on a word of the lock file's shared
 * memory (a futex) that every commit moves and wakes. A process killed
 * while it waits holds nothing and stalls no one.
 *
 * Any number of threads may wait on one handle. The handle cannot be closed
 * while they do: ce_db_close refuses (CE_ERR_WRONG_TRANSACTION_STATE) until
 * every call has returned. While a compaction of this handle runs
 * (ce_db_compact), the call waits for its end.
 *
 * Errors: CE_ERR_INVALID_ARGUMENT (db or out_changed NULL, a timeout below
 * -1, a `version` past the latest), CE_ERR_CORRUPT (a damaged lock file),
 * CE_ERR_FILE_ACCESS (the system refused the wait).
 *
 * Example: a notifier thread that runs until told to stop.
 *
 *     static void *notifier(void *argument) {
 *         app_state *app = argument;
 *         uint64_t seen;
 *         ce_db_latest_version(app->db, &seen);
 *         while (!atomic_load(&app->stop)) {
 *             bool changed;
 *             if (!ce_db_wait_for_change(app->db, seen, -1, &changed)) break;
 *             if (!changed) continue;                 // woken: look at app->stop
 *             ce_db_latest_version(app->db, &seen);
 *             deliver_notifications(app, seen);       // e.g. ce_txn_advance + the change sets
 *         }
 *         return NULL;
 *     }
 *     // shutting down:
 *     atomic_store(&app->stop, true);
 *     ce_db_wake_waiters(app->db);
 *     pthread_join(thread, NULL);
 *     ce_db_close(app->db);
 */
bool ce_db_wait_for_change(ce_db *db, uint64_t version, int64_t timeout_ms, bool *out_changed);

/*
 * Wakes every ce_db_wait_for_change in progress on this handle (not those of
 * other handles): each returns with *out_changed false unless the version
 * also changed. When none is in progress, the wake is kept for the next
 * call on the handle, which returns at once: a thread that checks a stop
 * flag and then waits cannot miss the wake that follows setting the flag
 * (the example above). Errors: CE_ERR_INVALID_ARGUMENT (db NULL).
 */
bool ce_db_wake_waiters(ce_db *db);

/*
 * What changed between two versions of the file: per table, the objects
 * deleted, inserted and modified (with the properties that changed), and
 * whether the schema changed. This is what Realm's notifications report;
 * an observer keeps the read transaction of the version it last reported,
 * and computes the changes when a newer one is read.
 *
 * ce_changes_compute: `old_txn` reads the older version (a read
 * transaction), `new_txn` the same or a later one (a read transaction of
 * the same handle, or its write transaction: then its changes so far
 * count). The change set borrows both: end them after ce_changes_free.
 * It is computed from the file's change history when it covers the range,
 * otherwise by comparing the two snapshots (the same answers; nodes are
 * copy-on-write, so the parts of a table that no commit touched are
 * skipped unread); ce_changes_used_history says which (for tests and
 * benchmarks).
 *
 * An object is modified when a property it has in both versions holds
 * another value: one that reads back otherwise (floats, doubles and
 * decimals bit for bit: 0.0 to -0.0 or decimal 1.0 to 1.00 is a change;
 * setting a property to the value it had is none); a list, set or
 * dictionary property when its elements differ; a link property when it
 * links to another object (changes inside the linked object are that
 * object's: see the key-path filters below).
 * Backlinks (LinkingObjects) are not properties of their object. Object
 * keys are never reused, so an object created and deleted in between is
 * in neither version and in no list. A table added or removed in between
 * has all its objects inserted or deleted; ce_changes_schema_changed is
 * true when tables or properties were added, removed or changed (or the
 * schema version), and the properties added or removed do not make
 * objects modified.
 *
 * A change set is used by one thread at a time.
 * Errors: CE_ERR_INVALID_ARGUMENT (NULL handles, transactions of two
 * handles, an old version after the new one), CE_ERR_WRONG_TRANSACTION_STATE
 * (old_txn is a write transaction).
 *
 *     ce_txn *before, *after;
 *     ce_txn_begin_read(db, &before);
 *     ...                                          // commits, in any process
 *     ce_txn_begin_read(db, &after);
 *     ce_changes *changes;
 *     if (!ce_changes_compute(before, after, &changes)) fprintf(stderr, "%s\n", ce_last_error_message());
 *     const ce_object_key *deleted, *inserted, *modified;
 *     size_t deleted_count, inserted_count, modified_count;
 *     ce_changes_table(changes, dogs, &deleted, &deleted_count, &inserted, &inserted_count,
 *                      &modified, &modified_count);
 *     ce_object_change_kind kind;
 *     ce_column_key columns[16];
 *     size_t column_count;
 *     ce_changes_object(changes, dogs, rex, &kind, columns, 16, &column_count);
 *     if (kind == CE_OBJECT_MODIFIED) ...          // columns[0 ..< column_count] changed
 *     ce_changes_free(changes);
 *     ce_txn_end(before);                          // the observer keeps `after` for next time
 */
typedef struct ce_changes ce_changes;
bool ce_changes_compute(ce_txn *old_txn, ce_txn *new_txn, ce_changes **out_changes);

/* Options of ce_changes_compute_with_options. */
enum {
    /* Realm's meaning of "modified": a property counts as changed whenever it
     * was set, even to the value it had (Realm's transaction log records
     * every set, and its `.all` update policy marks every property changed).
     * This needs the history: when it does not cover the range (see above),
     * the snapshots are compared and only values that differ count. */
    CE_CHANGES_EVERY_SET = 1u << 0
};

/* ce_changes_compute with `options` (CE_CHANGES_* flags; 0 is
 * ce_changes_compute). Errors: those of ce_changes_compute,
 * CE_ERR_INVALID_ARGUMENT for an unknown flag.
 *
 *     ce_changes_compute_with_options(before, after, CE_CHANGES_EVERY_SET, &changes);
 */
bool ce_changes_compute_with_options(ce_txn *old_txn, ce_txn *new_txn, uint32_t options, ce_changes **out_changes);

/* Releases a change set. NULL is ignored.
 * A second release sets CE_ERR_INVALID_ARGUMENT and does nothing (docs/DESIGN.md §8). */
void ce_changes_free(ce_changes *changes);

/* Whether the change set came from the history (false: by comparing the
 * snapshots). For tests and benchmarks. */
bool ce_changes_used_history(const ce_changes *changes);

/* Whether tables or properties were added, removed or changed, or the
 * schema version changed, between the two versions. */
bool ce_changes_schema_changed(const ce_changes *changes);

/* A table's change set: the keys deleted (in the old version only),
 * inserted (in the new version only) and modified (in both, some property
 * changed), each ascending. The arrays belong to `changes` (NULL when
 * empty); any out pointer may be NULL. Errors: CE_ERR_NO_SUCH_TABLE (a
 * table in neither version). */
bool ce_changes_table(const ce_changes *changes, ce_table_key table, const ce_object_key **out_deleted,
                      size_t *out_deleted_count, const ce_object_key **out_inserted, size_t *out_inserted_count,
                      const ce_object_key **out_modified, size_t *out_modified_count);

typedef enum ce_object_change_kind {
    CE_OBJECT_UNCHANGED = 0, /* in both versions, no property changed (or in neither) */
    CE_OBJECT_INSERTED,
    CE_OBJECT_DELETED,
    CE_OBJECT_MODIFIED
} ce_object_change_kind;

/* One object's change and, when modified, the columns that changed, in
 * column order (a collection property whose elements changed counts).
 * out_columns may be NULL to ask only the count; otherwise `capacity` must
 * hold them all (CE_ERR_INVALID_ARGUMENT with *out_column_count set
 * otherwise). Errors: CE_ERR_NO_SUCH_TABLE. */
bool ce_changes_object(const ce_changes *changes, ce_table_key table, ce_object_key object,
                       ce_object_change_kind *out_kind, ce_column_key *out_columns, size_t capacity,
                       size_t *out_column_count);

/*
 * Key-path filters: which changes of an object an observer cares about,
 * as Realm's `keyPaths:` say. A key path names properties from the
 * filter's table, through links: "name", "dogs.name",
 * "owner.address.city"; a step may be a to-one link, a list, set or
 * dictionary of links, an embedded object, or a backlink property written
 * as the query language writes it ("@links.Person.dogs.name": Realm's
 * LinkingObjects); "*" stands for every property of that step's table
 * ("*", "dogs.*"), as in Realm. An object matches when, between the two
 * versions:
 *   - a property that a key path names (its first step) changed, or
 *   - an object reached through the path's links (in the new version)
 *     changed in the property the next step names, or was inserted, and so
 *     on along the path. "dogs" alone matches a change of the list, not of
 *     the dogs; "dogs.name" also a dog's name. A backlink step as the last
 *     one matches when the set of objects linking there changed.
 * With no key paths (NULL/0), Realm's default: every property of the
 * object, and every property of the objects it links to, through links,
 * lists, sets, dictionaries and mixed values (the collections nested in
 * them too; not backlinks), up to four levels (the object and three levels of links, as realm-core's
 * DeepChangeChecker); cycles end.
 *
 * A filter is bound to the schema `txn` sees (its column keys). Errors:
 * CE_ERR_NO_SUCH_PROPERTY with Realm's message for an unknown property
 * ("Property 'nmae' in KeyPath 'dogs.nmae' is not a valid property in
 * Dog.") or a step that cannot continue ("Property 'name' in KeyPath
 * 'name.first' is not a collection of objects or an object reference, so
 * it cannot be used as an intermediate keypath element."),
 * CE_ERR_NO_SUCH_TABLE, CE_ERR_INVALID_ARGUMENT (a NULL path).
 *
 * ce_changes_object_matches: whether `object` (of the filter's table)
 * changed as the filter sees it. An object inserted in between is not
 * modified (false); one absent from the new version is
 * CE_ERR_NO_SUCH_OBJECT. What the walks through links learn is kept in the
 * change set, so asking for many objects (a Results' objects) visits each
 * linked object once.
 *
 *     const char *paths[] = {"dogs.name"};
 *     ce_key_path_filter *filter;
 *     if (!ce_key_path_filter_create(txn, people, paths, 1, &filter))
 *         fprintf(stderr, "%s\n", ce_last_error_message());
 *     bool changed;
 *     ce_changes_object_matches(changes, filter, ada, &changed);   // a dog of Ada's renamed, or her dogs changed
 *     ce_key_path_filter_free(filter);
 */
typedef struct ce_key_path_filter ce_key_path_filter;
bool ce_key_path_filter_create(ce_txn *txn, ce_table_key table, const char *const *key_paths, size_t key_path_count,
                               ce_key_path_filter **out_filter);

/* Releases a filter. NULL is ignored.
 * A second release sets CE_ERR_INVALID_ARGUMENT and does nothing (docs/DESIGN.md §8). */
void ce_key_path_filter_free(ce_key_path_filter *filter);

bool ce_changes_object_matches(const ce_changes *changes, const ce_key_path_filter *filter, ce_object_key object,
                               bool *out_changed);

/*
 * Every object of the filter's table for which ce_changes_object_matches
 * says true, ascending: what a Results observer needs for its
 * modifications without asking object by object. It is found from the
 * changes backwards (through the backlinks of the objects that changed,
 * as far as the filter's paths or Realm's default reach), so its cost
 * follows the size of the change, not of the table. The array belongs to
 * `changes` (valid until ce_changes_free). Errors: CE_ERR_NO_SUCH_TABLE
 * (the filter's table is not in the new version), CE_ERR_INVALID_ARGUMENT.
 *
 *     const ce_object_key *changed;
 *     size_t changed_count;
 *     ce_changes_matching_objects(changes, filter, &changed, &changed_count);
 *     // an object of a Results in both versions is modified if it is in `changed`
 */
bool ce_changes_matching_objects(const ce_changes *changes, const ce_key_path_filter *filter,
                                 const ce_object_key **out_objects, size_t *out_count);

/* ------------------------------------------------------------------------ */
/* Changes and notifications: collection change sets                         */
/* ------------------------------------------------------------------------ */

/*
 * A collection change set in Realm's terms (Realm Swift's
 * RealmCollectionChange): `deletions` and `modifications` are indices in
 * the old version of the collection, `insertions` and `modifications_new`
 * indices in the new one (modifications[i] and modifications_new[i] name
 * the same element); each array ascends. A moved element is a deletion at
 * its old index and an insertion at its new one. Applying it: remove the
 * deletions from the old contents (highest first), insert the new
 * elements at the insertions (lowest first); the elements at
 * modifications_new then take their new values.
 */
typedef struct ce_collection_change {
    size_t *deletions;
    size_t deletion_count;
    size_t *insertions;
    size_t insertion_count;
    size_t *modifications;
    size_t modification_count;
    size_t *modifications_new;
    size_t modification_new_count;
    bool collection_deleted; /* its object was deleted: every old element is a deletion */
} ce_collection_change;

/* Frees the arrays and zeroes the struct. NULL is ignored. */
void ce_collection_change_free(ce_collection_change *change);

/* A dictionary's change set: its keys (CE_TYPE_STRING values whose bytes
 * the struct owns, NUL-terminated) deleted, inserted, and modified (in
 * both versions, with another value or a linked object that changed), each
 * in key order. */
typedef struct ce_dictionary_change {
    ce_value *deletions;
    size_t deletion_count;
    ce_value *insertions;
    size_t insertion_count;
    ce_value *modifications;
    size_t modification_count;
    bool collection_deleted; /* its object was deleted: every old key is a deletion */
} ce_dictionary_change;

/* Frees the keys and the arrays and zeroes the struct. NULL is ignored. */
void ce_dictionary_change_free(ce_dictionary_change *change);

/*
 * ce_changes_collection: the change set of a list or set (a property's,
 * or a list nested in a mixed value) between the two versions of
 * `changes`; `collection` is a handle on it opened in either transaction
 * (any handle that names it). From the collection's operations in the
 * history when the change set came from it (ce_changes_used_history),
 * else by comparing the two versions' contents (elements compare bit for bit, as an object's
 * values do: 0.0 to -0.0 is a change; for a list: the equal beginning and end stay, a list of values
 * of unchanged length is modified in place, otherwise the differing middle
 * is deleted and inserted; for a set: a merge). An element is modified
 * when it was replaced (ce_list_set) or, for links, when the linked object
 * changed as `filter` sees it (a filter of the link's target table; NULL:
 * Realm's default); links held in mixed values are checked with Realm's
 * default for their table. A collection nested in a mixed element counts
 * as that element's value: changes inside it do not modify the element.
 * The object deleted (or the nested collection, or its property or table,
 * gone): collection_deleted, every old element a deletion; the object
 * inserted (or the collection new: its property or table added, a mixed
 * value that held no collection or the other kind of collection at its
 * path): every element an insertion. *out_change is overwritten: free it with
 * ce_collection_change_free. Errors: CE_ERR_WRONG_TYPE (a dictionary: use
 * ce_changes_dictionary), CE_ERR_NO_SUCH_OBJECT (the object is in neither
 * version), CE_ERR_INVALID_ARGUMENT.
 *
 *     ce_collection *dogs;
 *     ce_collection_open(after, people, ada, dogs_column, &dogs);
 *     ce_collection_change change;
 *     if (ce_changes_collection(changes, dogs, NULL, &change)) {
 *         for (size_t i = 0; i < change.insertion_count; i++) ...   // change.insertions[i]: new index
 *         ce_collection_change_free(&change);
 *     }
 *     ce_collection_close(dogs);
 */
bool ce_changes_collection(const ce_changes *changes, const ce_collection *collection, const ce_key_path_filter *filter,
                           ce_collection_change *out_change);

/* The same for a dictionary: keys deleted, inserted, and modified (in
 * both versions, with another value, or set by an operation the history
 * recorded, or a linked object that changed as `filter` sees it). Free it
 * with ce_dictionary_change_free. Errors: as ce_changes_collection
 * (CE_ERR_WRONG_TYPE for a list or set).
 *
 *     ce_dictionary_change change;
 *     if (ce_changes_dictionary(changes, ratings, NULL, &change)) {
 *         for (size_t i = 0; i < change.modification_count; i++)
 *             printf("%.*s\n", (int)change.modifications[i].string.size, change.modifications[i].string.data);
 *         ce_dictionary_change_free(&change);
 *     }
 */
bool ce_changes_dictionary(const ce_changes *changes, const ce_collection *dictionary, const ce_key_path_filter *filter,
                           ce_dictionary_change *out_change);

/*
 * A results observer (Realm's Results.observe): it keeps a private copy of
 * `results` and the objects it holds as `txn` sees them; each
 * ce_results_observer_update, given the change set from that version to a
 * later one, finds the view's objects in the later version and reports
 * the change set between the two: deletions and insertions by position,
 * an object whose place in a sorted view changed as a deletion and an
 * insertion, and modifications: objects in both versions, not moved, that
 * changed as `filter` sees it (a filter of the results' table; NULL:
 * Realm's default). `filter` is borrowed: it must outlive the observer.
 * When nothing the view reads changed it is not evaluated again; a view of
 * a table's objects filtered by their own properties only, unsorted, is
 * updated from the changed objects alone.
 *
 * Each update's change set must start at the version the observer last
 * saw (its creation's, then each update's end), else
 * CE_ERR_INVALID_ARGUMENT (also for a filter of another table, and NULL
 * arguments). A view of a collection or of backlinks whose
 * object was deleted reports, once, every object it held deleted with
 * collection_deleted set, then empty change sets. An observer is used by
 * one thread at a time; it may update on another thread than the one that
 * uses `results` (it evaluates a copy of its own).
 *
 *     ce_results_observer *observer;
 *     ce_results_observer_create(results, before, NULL, &observer);
 *     ...                                           // a commit; `after` reads it
 *     ce_changes *changes;
 *     ce_changes_compute(before, after, &changes);
 *     ce_collection_change change;
 *     if (ce_results_observer_update(observer, changes, &change)) {
 *         ...                                       // deletions, insertions, modifications
 *         ce_collection_change_free(&change);
 *     }
 *     ce_changes_free(changes);
 *     ce_results_observer_free(observer);
 */
typedef struct ce_results_observer ce_results_observer;
bool ce_results_observer_create(ce_results *results, ce_txn *txn, const ce_key_path_filter *filter,
                                ce_results_observer **out_observer);
bool ce_results_observer_update(ce_results_observer *observer, const ce_changes *changes, ce_collection_change *out_change);
/* NULL is ignored. A second release sets CE_ERR_INVALID_ARGUMENT and does nothing (docs/DESIGN.md §8). */
void ce_results_observer_free(ce_results_observer *observer);

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

/* Progress of a copy (or of a verify): `done` of `total` bytes. Declared
 * with the copies below. */
typedef void (*ce_progress_fn)(void *context, uint64_t done, uint64_t total);

/*
 * ce_db_verify with progress reports: `progress` (NULL: none) is called on
 * the calling thread about every megabyte with `done` of `total` bytes of
 * the file checked (total is the logical size; done grows and stays below
 * it), and last, once the file proved sound, with done == total, as a
 * copy's progress (ce_copy_options). A damaged file fails as ce_db_verify
 * does, without the last report.
 *
 *     static void show(void *context, uint64_t done, uint64_t total)
 *     {
 *         fprintf(stderr, "\r%s: %3d %%", (const char *)context, (int)(100 * done / (total ? total : 1)));
 *     }
 *     ...
 *     if (!ce_db_verify_with_progress(db, NULL, show, "verify"))
 *         fprintf(stderr, "%s\n", ce_last_error_message());
 */
bool ce_db_verify_with_progress(ce_db *db, ce_db_stats *out_stats, ce_progress_fn progress, void *progress_context);

/* ------------------------------------------------------------------------ */
/* Copies and compaction                                                     */
/* ------------------------------------------------------------------------ */

/* A copy's progress (ce_progress_fn, declared with ce_db_verify above):
 * `done` of `total` bytes of live data copied. Called on the copying thread
 * about every megabyte, and last with done == total. */

typedef struct ce_copy_options {
    /* ce_db_write_copy: the key of the new file (64 bytes), or NULL for an
     * unencrypted copy, whatever the source is (Realm's writeCopy(toFile:
     * encryptionKey:)); to keep the source's key, pass it again. It is not
     * kept. ce_db_compact keeps the file's key and takes none here. */
    const void *encryption_key;
    size_t encryption_key_size; /* must be 64 when encryption_key is set */
    ce_progress_fn progress;    /* NULL: no progress reports */
    void *progress_context;     /* passed to progress */
} ce_copy_options;

/* Fills options with the defaults: no key, no progress reports. */
void ce_copy_options_init(ce_copy_options *options);

/*
 * Realm's writeCopy(toFile:): writes a compacted copy of the latest version
 * to a new file at `path`: only the live nodes, packed one after another,
 * with no free space. It reads through a read transaction of its own, so
 * writers (in any thread or process) go on meanwhile; the copy is the
 * version that was latest when it began. The new file appears at `path`
 * only once it is complete and on disk (it is written beside it under a
 * temporary name first), and it can be opened like any database.
 * `options` may be NULL.
 *
 * The temporary is `<path>.writecopy-<pid>-<n>` (the writing process's pid
 * and a counter); a failed copy removes it. One that a killed process left
 * is removed by the next copy to the same `path` or the next ce_db_open of
 * `path` (one that may write): only names of exactly that form, and only
 * when no process with that pid exists (kill(pid, 0) fails with ESRCH). A
 * process in another pid namespace (a container sharing the directory) is
 * not seen from this one: do not write copies to the same path from two.
 *
 * Errors: CE_ERR_FILE_EXISTS (something exists at `path`: it is never
 * replaced), CE_ERR_OUT_OF_DISK_SPACE, CE_ERR_FILE_ACCESS, CE_ERR_CORRUPT
 * (the source is damaged: nothing is written at `path`).
 *
 *     static void show(void *context, uint64_t done, uint64_t total)
 *     {
 *         fprintf(stderr, "\r%s: %3d %%", (const char *)context, (int)(100 * done / (total ? total : 1)));
 *     }
 *     ...
 *     ce_copy_options copy;
 *     ce_copy_options_init(&copy);
 *     copy.progress = show;
 *     copy.progress_context = "backup";
 *     if (!ce_db_write_copy(db, "backup.realm", &copy))
 *         fprintf(stderr, "%s\n", ce_last_error_message());
 */
bool ce_db_write_copy(ce_db *db, const char *path, const ce_copy_options *options);

/*
 * Realm's Realm.writeCopy(toFile:): as ce_db_write_copy, but copies what
 * `txn` sees: the version a read transaction reads, or, for a write
 * transaction, that version with the transaction's changes, not committed
 * yet (the copy holds them; the transaction goes on and may still commit or
 * roll back). The transaction stays open and usable; on an encrypted file
 * the pages the copy read stay in memory until it ends. Errors: those of
 * ce_db_write_copy.
 *
 *     ce_txn *txn;
 *     ce_txn_begin_write(db, &txn);
 *     ...                                   // changes
 *     ce_txn_write_copy(txn, "with-changes.realm", NULL);
 *     ce_txn_end(txn);                      // rolled back; the copy keeps them
 */
bool ce_txn_write_copy(ce_txn *txn, const char *path, const ce_copy_options *options);

/*
 * Compacts the file in place (Realm's compaction, shouldCompactOnLaunch):
 * writes a compacted copy beside it (`<path>.compact`), syncs it, and renames
 * it over the file; the handle continues on the compacted file. A crash at
 * any point leaves either the old or the new file at the path, each whole.
 * The handle must be the only one on the file in every process, and none of
 * its transactions may be open; meanwhile other threads of the handle wait
 * to begin transactions and other handles wait to open the file.
 * `options` may be NULL.
 *
 * Errors: CE_ERR_ALREADY_OPEN (another handle or process has the file open:
 * nothing changed), CE_ERR_WRONG_TRANSACTION_STATE (a transaction of this
 * handle is open), CE_ERR_READ_ONLY, and those of ce_db_write_copy.
 *
 *     uint64_t total, used;
 *     if (ce_db_size_info(db, &total, &used) && total > 100 * 1024 * 1024 && used < total / 2)
 *         ce_db_compact(db, NULL);
 */
bool ce_db_compact(ce_db *db, const ce_copy_options *options);

/*
 * The two numbers of Realm's shouldCompactOnLaunch(totalBytes, usedBytes):
 * the size of the file on disk, and about the size a compacted copy of the
 * latest version would have (the header and the live data).
 */
bool ce_db_size_info(ce_db *db, uint64_t *out_total_bytes, uint64_t *out_used_bytes);

/* The engine's version string, e.g. "0.1.0". */
const char *ce_engine_version(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* CENGINE_H */
