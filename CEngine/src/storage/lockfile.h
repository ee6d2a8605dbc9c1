/*
 * lockfile.h — the lock file `<path>.lock` and its reader table, for the
 * files of the db layer (db.c, verify.c, writer.c).
 *
 * Owns: the layout of the lock file's shared memory (shared_state, the
 * reader slots), its lock bytes, and the calls of lockfile.c.
 * Never: is included above the db layer.
 *
 * The lock file holds, in shared memory, the latest version (under a
 * sequence lock), the change word (a futex that every publication of the
 * latest version increments and wakes) and the reader table. Open-file-description locks on its
 * bytes say who is alive: byte INIT_LOCK_BYTE is held shared by every open
 * handle (exclusively by the one that initializes the file, until the
 * first commit of a new file is made: lockfile_let_others_attach),
 * WRITER_LOCK_BYTE exclusively by the writer, byte LIVENESS_BASE + pid
 * shared by every handle of process pid. One lock lives on the data file
 * itself: DATA_HANDLE_LOCK_BYTE, held shared by every open handle, so that
 * a handle that would set up a new lock file (because the one the open
 * handles use was deleted or replaced) sees that others have the file
 * open through another one and refuses to open (lockfile_hold_data_file).
 */
#ifndef CE_LOCKFILE_H
#define CE_LOCKFILE_H

#include "cengine.h"
#include "checksum.h"
#include "db_internal.h"
#include "header.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define READER_SLOT_COUNT 1024u
#define INIT_LOCK_BYTE 0u
#define WRITER_LOCK_BYTE 1u
/* Group commit (group.c): held exclusively by whoever writes a header slot
 * and syncs it (ce_db_sync, a commit that is not grouped), and by whoever
 * changes the pending group (a grouped commit, a sync taking its snapshot). */
#define SYNC_LOCK_BYTE 2u
#define GROUP_LOCK_BYTE 3u
#define LIVENESS_BASE (1ull << 32)
/* Far past any data the file can hold (HEADER_MAX_LOGICAL_SIZE): a lock
 * on bytes that do not exist is allowed and touches no data. */
#define DATA_HANDLE_LOCK_BYTE (1ull << 62)

typedef struct reader_slot {
    _Atomic uint64_t owner_pid; /* 0: free */
    _Atomic uint64_t version;   /* 0: claimed, not pinning yet */
} reader_slot;

struct shared_state {
    uint64_t magic;
    uint32_t layout_version;
    uint32_t slot_count;
    uint32_t structure_size;
    _Atomic uint32_t ready;
    _Atomic uint64_t latest_sequence; /* odd while the latest is being written */
    _Atomic uint64_t latest_version;
    _Atomic uint64_t latest_top_ref;
    _Atomic uint64_t latest_logical_size;
    _Atomic uint64_t committing_version; /* non-zero while a commit writes to the file */
    _Atomic uint32_t reader_high_water;  /* no slot at or past this index was ever claimed */
    /* Incremented (wrapping) after every publication of the latest version
     * and by ce_db_wake_waiters, then woken (a shared futex): waiters sleep
     * on it and look again when it moves. Waiters hold nothing here. */
    _Atomic uint32_t change_word;
    /* Group commit (group.h): the newest version known to be on stable
     * storage and the newest version whose freed space a writer may reuse
     * (both written under SYNC_LOCK_BYTE), and the pending group, the
     * versions after group_base up to group_version, with the runs they
     * wrote and the running checksum over their bytes (changed under
     * GROUP_LOCK_BYTE; group_sequence is odd while it changes, so a writer
     * that died half-way leaves it odd, and it is then not used). */
    _Atomic uint64_t durable_version;
    _Atomic uint64_t reusable_version;
    _Atomic uint64_t group_sequence;
    uint64_t group_base;
    uint64_t group_version;
    uint32_t group_run_count;
    uint32_t group_overflow; /* 1: more runs than a slot lists (the data is synced first) */
    checksum_state group_checksum;
    uint64_t group_runs[SLOT_MAX_RUNS][2];
    reader_slot readers[READER_SLOT_COUNT];
};

/* Opens (creating it if need be) and maps the handle's lock file, and opens
 * the data file: as the first handle (which sets both up and chooses the
 * version) or as another one (which attaches to what the first set up). */
bool lockfile_open(ce_db *db);

/* After lockfile_open, the first handle still holds INIT_LOCK_BYTE
 * exclusively, so that no other handle sees the lock file before the open
 * is done (a new file's version 0 would not be confirmed by a header that
 * the first commit is writing). Downgrades it to shared (nothing for
 * another handle). */
bool lockfile_let_others_attach(ce_db *db);

/* An open that fails while still the first handle: marks the lock file not
 * ready, so that handles waiting to attach set it up again. */
void lockfile_abandon_setup(ce_db *db);

/* Opens an immutable handle's data file without a lock file; the shared
 * state is the handle's own memory (see ce_db_options.immutable). */
bool lockfile_open_immutable(ce_db *db);

/* Takes the data file's handle byte shared on `data_fd` (every open
 * handle holds it until its descriptor closes). With `alone` (the handle
 * that sets up the lock file, or empties it: no handle uses this lock file),
 * any other holder is a handle that reaches the data file through another
 * lock file, one that was deleted or replaced while it had the file open:
 * CE_ERR_ALREADY_OPEN naming both files, since a second set of handles
 * would write beside the first and lose its commits. */
bool lockfile_hold_data_file(int data_fd, bool alone, const char *path, const char *lock_path);

/* Unmaps and closes the lock file (also of a handle half opened). */
void lockfile_close(ce_db *db);

/* The latest version, under the sequence lock. lockfile_read_latest is
 * the raw value (it may be damage: see lockfile_latest). */
void lockfile_publish_latest(shared_state *shared, const version_info *info);
version_info lockfile_read_latest(shared_state *shared);

/* The change word: lockfile_signal_change increments it and wakes every
 * waiter of every process (lockfile_publish_latest calls it after
 * publishing). lockfile_wait_for_signal sleeps while the word still holds
 * `seen` (read with lockfile_change_word before checking what the caller
 * waits for), at most `timeout_ns` (negative: no limit); it returns true
 * on any wake, spurious ones included, false only when the system refuses
 * the wait (the error set). */
uint32_t lockfile_change_word(shared_state *shared);
void lockfile_signal_change(shared_state *shared);
bool lockfile_wait_for_signal(ce_db *db, uint32_t seen, int64_t timeout_ns);

/* CE_ERR_CORRUPT: the lock file holds an impossible value (`what`,
 * `value`); always false. */
bool lockfile_damaged(ce_db *db, const char *what, uint64_t value);

/* The lock file's bytes are bytes from a file (invariant 5): its fixed
 * fields are checked before every use (CE_ERR_CORRUPT naming the lock file
 * when they changed since it was opened). */
bool lockfile_check(ce_db *db);

/* The latest version, checked: in range, and confirmed by the data file's
 * own header (header_confirm_version) or, for a version newer than every
 * slot, by its top node (group_confirm_pending), so that no damaged value of the lock
 * file reaches a mapping, a snapshot or the data file. With `slot_index`
 * >= 0 it is pinned in that slot too (as lockfile_pin_latest). A latest
 * version the header does not hold is CE_ERR_CORRUPT naming the lock file. */
bool lockfile_latest(ce_db *db, int slot_index, version_info *out_info);

/* Remembers a version the header is known to hold (this handle wrote or
 * read its slot), so that lockfile_latest need not read the header again. */
void lockfile_note_confirmed(ce_db *db, const version_info *info);

/* The oldest version any reader pins (at most `latest`), and how many
 * distinct versions are live. Slots of processes that died are freed. */
bool lockfile_scan_readers(ce_db *db, uint64_t latest, uint64_t *out_oldest, uint64_t *out_active);

/* A free slot of the reader table for this process
 * (CE_ERR_TOO_MANY_READERS when none is). */
bool lockfile_claim_reader_slot(ce_db *db, int *out_slot);

/* Pins the latest version in the slot, and returns it (checked, as
 * lockfile_latest). */
bool lockfile_pin_latest(ce_db *db, int slot_index, version_info *out_info);

void lockfile_release_reader_slot(ce_db *db, int slot_index);

#endif
