/*
 * group.c — group commit: the pending group of grouped commits, the header
 * slots that make versions durable, and ce_db_sync.
 *
 * Owns: the pending group (in the lock file: its runs and their running
 * checksum), the durable version (moved only by a sync), the sync lock and
 * the group lock, which slot page a slot goes to and when the sync record
 * vouches for it, and the rule that freed space waits for the durable
 * version.
 * Never: writes a slot that names a version in the middle of a group, or
 * over the slot of the newest durable version; lets a writer reuse space
 * that a durable version may still use (invariant 1); reports a version
 * durable before a sync that covers it returned.
 *
 * Locks, always in this order: the write lock (db.c), then the sync lock,
 * then the group lock. A grouped commit holds the write lock and takes the
 * group lock to join the group and publish. A sync holds the sync lock
 * (across its fdatasync) and takes the group lock only to take its
 * snapshot of the group and start the next one, so commits go on while it
 * syncs. A commit that is not grouped holds the write lock and takes the
 * sync lock to write and sync its slot. Each lock is a byte of the lock
 * file (across processes; a process that dies lets go) plus, within the
 * handle, a flag or a mutex.
 *
 * Why a group is all or nothing after a power loss: no slot names a
 * version inside a group; the group's slot lists the runs of all its
 * commits with one checksum (checked at the next open, as for any commit)
 * or, when they do not fit, is written only after the data is synced; the
 * previous durable slot is never overwritten until the new one is synced;
 * and the group's commits never reuse space freed after the durable
 * version, so the durable version is whole whichever slot wins.
 */
#include "group.h"
#include "checksum.h"
#include "error.h"
#include "header.h"
#include "lockfile.h"
#include "os.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Locks                                                                     */
/* ------------------------------------------------------------------------ */

static bool lock_sync(ce_db *db)
{
    pthread_mutex_lock(&db->mutex);
    while (db->sync_busy) pthread_cond_wait(&db->sync_free, &db->mutex);
    db->sync_busy = true;
    pthread_mutex_unlock(&db->mutex);
    if (os_lock_range(db->lock_fd, SYNC_LOCK_BYTE, 1, true, true, NULL, db->lock_path)) return true;
    pthread_mutex_lock(&db->mutex);
    db->sync_busy = false;
    pthread_cond_broadcast(&db->sync_free);
    pthread_mutex_unlock(&db->mutex);
    return false;
}

static void unlock_sync(ce_db *db)
{
    os_unlock_range(db->lock_fd, SYNC_LOCK_BYTE, 1, db->lock_path);
    pthread_mutex_lock(&db->mutex);
    db->sync_busy = false;
    pthread_cond_broadcast(&db->sync_free);
    pthread_mutex_unlock(&db->mutex);
}

static bool lock_group(ce_db *db)
{
    pthread_mutex_lock(&db->group_mutex);
    if (os_lock_range(db->lock_fd, GROUP_LOCK_BYTE, 1, true, true, NULL, db->lock_path)) return true;
    pthread_mutex_unlock(&db->group_mutex);
    return false;
}

static void unlock_group(ce_db *db)
{
    os_unlock_range(db->lock_fd, GROUP_LOCK_BYTE, 1, db->lock_path);
    pthread_mutex_unlock(&db->group_mutex);
}

/* ------------------------------------------------------------------------ */
/* The pending group                                                         */
/* ------------------------------------------------------------------------ */

size_t group_slot_run_limit = SLOT_MAX_RUNS;

static size_t slot_run_limit(ce_db *db)
{
    size_t room = pager_is_encrypted(db->pager) ? SLOT_MAX_RUNS_ENCRYPTED : SLOT_MAX_RUNS;
    return group_slot_run_limit < room ? group_slot_run_limit : room;
}

/* Starts a new, empty group after `version` (the group lock held, or no
 * other handle can reach the lock file). */
static void start_group(shared_state *shared, uint64_t version)
{
    uint64_t sequence = atomic_load(&shared->group_sequence) | 1;
    atomic_store(&shared->group_sequence, sequence);
    shared->group_base = version;
    shared->group_version = version;
    shared->group_run_count = 0;
    shared->group_overflow = 0;
    checksum_init(&shared->group_checksum, CHECKSUM_SEED_DATA);
    atomic_store(&shared->group_sequence, sequence + 1);
}

/* A copy of the group, if it is the whole group from `base` to `version`
 * and its runs fit a slot; else false (the caller syncs the data first). */
static bool copy_group(ce_db *db, uint64_t base, uint64_t version, slot_record *slot, checksum_state *out_checksum)
{
    shared_state *shared = db->shared;
    if (atomic_load(&shared->group_sequence) & 1) return false; /* a writer died changing it */
    uint32_t count = shared->group_run_count;
    if (shared->group_overflow || shared->group_base != base || shared->group_version != version ||
        count > slot_run_limit(db))
        return false;
    for (uint32_t i = 0; i < count; i++) {
        slot->runs[i][0] = shared->group_runs[i][0];
        slot->runs[i][1] = shared->group_runs[i][1];
    }
    slot->run_count = count;
    *out_checksum = shared->group_checksum;
    return true;
}

/* Appends a commit's runs (and their bytes to the checksum) to `slot`, if
 * they fit; false if they do not. */
static bool append_runs(ce_db *db, slot_record *slot, checksum_state *checksum, const pager_write_run *runs,
                        size_t run_count)
{
    if (run_count > slot_run_limit(db) - slot->run_count) return false;
    for (size_t i = 0; i < run_count; i++) {
        slot->runs[slot->run_count + i][0] = runs[i].position;
        slot->runs[slot->run_count + i][1] = runs[i].length;
        /* Over the bytes as the layers above wrote them: for an encrypted
         * file, what its pages decrypt to. */
        checksum_add(checksum, runs[i].bytes, runs[i].length);
    }
    slot->run_count += (uint32_t)run_count;
    return true;
}

bool group_add_commit(ce_db *db, const version_info *base, const version_info *info, const pager_write_run *runs,
                      size_t run_count, bool listable)
{
    if (!lock_group(db)) return false;
    shared_state *shared = db->shared;
    uint64_t sequence = atomic_load(&shared->group_sequence);
    if (!(sequence & 1)) {
        atomic_store(&shared->group_sequence, sequence + 1);
        size_t count = shared->group_run_count;
        if (!listable || shared->group_version != base->version || shared->group_overflow ||
            count > slot_run_limit(db) || run_count > slot_run_limit(db) - count) {
            shared->group_overflow = 1; /* the sync will sync the data first */
        } else {
            for (size_t i = 0; i < run_count; i++) {
                shared->group_runs[count + i][0] = runs[i].position;
                shared->group_runs[count + i][1] = runs[i].length;
                checksum_add(&shared->group_checksum, runs[i].bytes, runs[i].length);
            }
            shared->group_run_count = (uint32_t)(count + run_count);
        }
        shared->group_version = info->version;
        atomic_store(&shared->group_sequence, sequence + 2);
    }
    /* Published under the group lock: a sync's snapshot sees the group and
     * the latest version agree. */
    lockfile_publish_latest(shared, info);
    lockfile_note_confirmed(db, info);
    unlock_group(db);
    return true;
}

/* ------------------------------------------------------------------------ */
/* Slots                                                                     */
/* ------------------------------------------------------------------------ */

/* After a failed sync the slot may or may not be on disk: overwrite it so
 * that the version we report as not durable cannot appear at the next
 * open without its data. */
static void invalidate_slot(ce_db *db, uint32_t page_index)
{
    uint8_t page[PAGE_SIZE_BYTES];
    memset(page, 0, sizeof page);
    if (pager_write(db->pager, (uint64_t)page_index * PAGE_SIZE_BYTES, page, sizeof page) &&
        db->options.durability == CE_DURABILITY_FULL)
        pager_sync(db->pager);
}

/* After the slot of `slot` is written and synced: a file whose sync record
 * names no version gets one, so that two blank slots are seen at an open
 * as a damaged header, not as a new file (header_choose_version). Once per
 * handle; written without a sync (the slot is durable already, and a
 * record lost in a power failure only leaves the file as before). A
 * failure costs only that check: not an error. */
static void vouch_first_slot(ce_db *db, const slot_record *slot)
{
    if (db->sync_record_seen || db->options.durability != CE_DURABILITY_FULL) return;
    error_saved saved;
    error_save(&saved);
    uint64_t synced = 0;
    if (header_read_sync_record(db->pager, &synced))
        db->sync_record_seen = synced != 0 || group_write_sync_record(db, slot->info.version);
    error_restore(&saved);
}

/* Writes `slot` to the page that does not hold the newest durable slot
 * (`durable_page`; 0: none, and then the page of its version's parity, so
 * that commits without groups keep the slot of version v on page
 * 1 + v % 2) and, with full durability, syncs it. */
static bool write_slot(ce_db *db, const slot_record *slot, uint32_t durable_page)
{
    uint32_t page_index = durable_page == 0 ? (uint32_t)(1 + slot->info.version % 2) : durable_page == 1 ? 2 : 1;
    uint8_t *page = malloc(PAGE_SIZE_BYTES);
    if (!page) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory committing to '%s'", db->path);
    bool ok = header_encode_slot_page(page, slot, db->pager);
    bool written = false;
    if (ok) {
        written = true;
        ok = pager_write(db->pager, (uint64_t)page_index * PAGE_SIZE_BYTES, page, PAGE_SIZE_BYTES) &&
             (db->options.durability != CE_DURABILITY_FULL || pager_sync(db->pager));
    }
    free(page);
    if (!ok && written) {
        error_saved saved;
        error_save(&saved);
        invalidate_slot(db, page_index);
        error_restore(&saved);
    }
    if (ok) vouch_first_slot(db, slot);
    return ok;
}

bool group_write_sync_record(ce_db *db, uint64_t version)
{
    if (db->options.durability != CE_DURABILITY_FULL || db->options.read_only || version == 0) return true;
    uint8_t page[PAGE_SIZE_BYTES];
    header_encode_sync_page(page, version);
    return pager_write(db->pager, SYNC_PAGE * PAGE_SIZE_BYTES, page, sizeof page);
}

/* After the slot of `slot` is written and synced: vouches for it in the
 * sync record if the runs it lists are large (an open after a crash would
 * read them all back). A failure costs only that check: not an error. */
static void vouch_if_large(ce_db *db, const slot_record *slot)
{
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < slot->run_count; i++) bytes += slot->runs[i][1];
    if (bytes >= SYNC_RECORD_MINIMUM_BYTES) {
        error_saved saved;
        error_save(&saved);
        group_write_sync_record(db, slot->info.version);
        error_restore(&saved);
    }
}

/* The newest version whose freed space may be reused once the slot of
 * `version` is durable, written over `previous` (the durable slot before).
 * A slot that lists runs is checked at an open after a power loss, and
 * lists the runs of its whole group, which the group's later commits may
 * have freed: space freed inside the group waits for the next durable
 * slot (a commit of version previous + 1 freed only what earlier versions
 * wrote). A slot without runs is never checked. */
static uint64_t reusable_after(const slot_record *previous, bool listed, uint64_t version)
{
    return listed ? previous->info.version + 1 : version;
}

/* With the sync lock held: the newest slot in the file, made durable if a
 * sync that wrote it died before its sync returned (so that it may be
 * relied on, and the other page overwritten). */
static bool durable_slot(ce_db *db, uint64_t latest, slot_record *out_slot, uint32_t *out_page)
{
    if (!header_read_newest_slot(db, out_slot, out_page)) return false;
    /* None in a file being created (its first commit). */
    if (*out_page == 0 && latest != 0)
        return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s' has no intact header slot", db->path);
    uint64_t durable = atomic_load(&db->shared->durable_version);
    if (out_slot->info.version > durable && db->options.durability == CE_DURABILITY_FULL) {
        if (!pager_sync(db->pager)) return false;
        /* A slot past the latest version (a writer died before publishing
         * it) is durable too, but the latest stays the bound. */
        uint64_t version = out_slot->info.version < latest ? out_slot->info.version : latest;
        if (version > durable) atomic_store(&db->shared->durable_version, version);
    }
    return true;
}

bool group_commit_durably(ce_db *db, const version_info *base, const version_info *info, const pager_write_run *runs,
                          size_t run_count, bool listable)
{
    bool full = db->options.durability == CE_DURABILITY_FULL;
    slot_record *slot = calloc(1, sizeof *slot);
    if (!slot) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory committing to '%s'", db->path);
    if (!lock_sync(db)) {
        free(slot);
        return false;
    }
    slot_record *durable = malloc(sizeof *durable);
    uint32_t durable_page = 0;
    bool ok = durable != NULL, listed_runs = false;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory committing to '%s'", db->path);
    ok = ok && durable_slot(db, base->version, durable, &durable_page);
    if (ok) {
        /* The slot lists the pending group's runs (the write lock keeps
         * grouped commits out, the sync lock other syncs) and this
         * commit's, or none: then the data is synced first. */
        checksum_state checksum;
        checksum_init(&checksum, CHECKSUM_SEED_DATA);
        bool listed = full && listable &&
                      (durable->info.version == base->version ||
                       copy_group(db, durable->info.version, base->version, slot, &checksum));
        listed = listed && append_runs(db, slot, &checksum, runs, run_count);
        listed_runs = listed;
        if (listed) {
            slot->data_checksum = checksum_final(&checksum);
        } else {
            slot->run_count = 0;
            if (full && !pager_sync(db->pager)) ok = false;
        }
        slot->info = *info;
        ok = ok && write_slot(db, slot, durable_page);
        if (ok && listed) vouch_if_large(db, slot);
    }
    if (ok) {
        lockfile_publish_latest(db->shared, info);
        lockfile_note_confirmed(db, info); /* its slot is the one just written */
        /* Durable only if synced: a handle without full durability wrote
         * its slot (over the pending group, maybe another handle's) without
         * a sync, and the next sync by anyone still has to make it so. */
        if (full) atomic_store(&db->shared->durable_version, info->version);
        atomic_store(&db->shared->reusable_version, reusable_after(durable, listed_runs, info->version));
        /* Without the group lock: its other takers need the write lock
         * (grouped commits) or the sync lock (syncs), both held here. */
        start_group(db->shared, info->version);
    }
    unlock_sync(db);
    free(durable);
    free(slot);
    return ok;
}

/* With the sync lock held: makes the latest version durable. */
static bool sync_latest(ce_db *db, uint64_t version)
{
    slot_record *slot = calloc(1, sizeof *slot);
    slot_record *durable = malloc(sizeof *durable);
    if (!slot || !durable) {
        free(slot);
        free(durable);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory syncing '%s'", db->path);
    }
    uint32_t durable_page = 0;
    version_info latest;
    bool ok = lockfile_latest(db, -1, &latest) && durable_slot(db, latest.version, durable, &durable_page);
    if (ok && atomic_load(&db->shared->durable_version) < version) {
        /* The snapshot: the group as far as the latest version, and a new
         * group after it, which grouped commits join while this syncs. */
        checksum_state checksum;
        checksum_init(&checksum, CHECKSUM_SEED_DATA);
        bool listed = false;
        ok = lock_group(db);
        if (ok) {
            ok = lockfile_latest(db, -1, &latest);
            if (ok) {
                listed = copy_group(db, durable->info.version, latest.version, slot, &checksum);
                start_group(db->shared, latest.version);
            }
            unlock_group(db);
        }
        if (ok && latest.version > durable->info.version) {
            if (listed) {
                slot->data_checksum = checksum_final(&checksum);
            } else {
                slot->run_count = 0;
                ok = pager_sync(db->pager); /* more runs than a slot lists: the data first */
            }
            slot->info = latest;
            ok = ok && write_slot(db, slot, durable_page);
            if (ok && listed) vouch_if_large(db, slot);
        }
        if (ok && latest.version > atomic_load(&db->shared->durable_version)) {
            atomic_store(&db->shared->durable_version, latest.version);
            atomic_store(&db->shared->reusable_version, reusable_after(durable, listed, latest.version));
        }
    }
    free(slot);
    free(durable);
    return ok;
}

/* The durable (or reusable) version, checked against a latest version
 * read after it (it is stored only once the latest is at least as new,
 * and both only grow, so a larger one is damage). */
static bool check_durable(ce_db *db, uint64_t durable, uint64_t latest, uint64_t *out_durable)
{
    if (durable > latest) return lockfile_damaged(db, "its durable or reusable version is past the latest", durable);
    *out_durable = durable;
    return true;
}

bool group_durable_version(ce_db *db, version_info *out_latest, uint64_t *out_durable)
{
    uint64_t durable = atomic_load(&db->shared->durable_version);
    return lockfile_latest(db, -1, out_latest) && check_durable(db, durable, out_latest->version, out_durable);
}

bool group_sync(ce_db *db, uint64_t version)
{
    version_info latest;
    uint64_t durable = 0;
    if (!group_durable_version(db, &latest, &durable)) return false;
    if (version > latest.version)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_sync: version %llu of '%s' is past the latest version (%llu)",
                          (unsigned long long)version, db->path, (unsigned long long)latest.version);
    /* Without full durability nothing is ever synced. */
    if (db->options.durability != CE_DURABILITY_FULL) return true;
    bool ok = true;
    for (bool first = true;; first = false) {
        if (!first && !(ok = group_durable_version(db, &latest, &durable))) break;
        if (durable >= version) break;
        if (db->options.read_only) {
            ok = error_fail(CE_ERR_READ_ONLY, "cannot sync '%s': it was opened read-only (version %llu is not durable yet)",
                            db->path, (unsigned long long)version);
            break;
        }
        /* One thread of the handle syncs; the others wait for it here
         * (lock_sync), and most find their version durable after. */
        if (!(ok = lock_sync(db))) break;
        ok = group_durable_version(db, &latest, &durable);
        if (ok && durable < version) ok = sync_latest(db, version);
        unlock_sync(db);
        if (!ok) break;
    }
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Space reuse, resetting                                                    */
/* ------------------------------------------------------------------------ */

bool group_reuse_limit(ce_db *db, const version_info *latest, uint64_t *out_limit)
{
    /* The caller holds the write lock: the latest version stays. */
    uint64_t durable = 0;
    if (!check_durable(db, atomic_load(&db->shared->reusable_version), latest->version, &durable)) return false;
    if (durable < latest->version) {
        slot_record *slot = malloc(sizeof *slot);
        uint32_t page;
        if (!slot) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory reading the header of '%s'", db->path);
        bool ok = header_read_newest_slot(db, slot, &page);
        if (ok && slot->info.version < durable) durable = slot->info.version;
        free(slot);
        if (!ok) return false;
    }
    *out_limit = durable;
    return true;
}

void group_reset(ce_db *db, const version_info *info)
{
    atomic_store(&db->shared->durable_version, info->version);
    atomic_store(&db->shared->reusable_version, info->version); /* its slot lists no runs */
    start_group(db->shared, info->version);
}
