/*
 * lockfile.c — the lock file: the latest version, the reader table, who
 * is alive, and the change word that wakes waiters (see lockfile.h for the
 * layout and the locks).
 *
 * Owns: which version is the latest as every handle sees it, which
 * versions readers pin, and setting up or attaching to the lock file when a
 * handle opens (the first handle also chooses the version the file opens
 * at, through header.c).
 * Never: frees the reader slot of a process that is alive: a version stays
 * pinned until its reader lets it go or its process dies.
 */
#include "lockfile.h"
#include "db_internal.h"
#include "error.h"
#include "header.h"
#include "node.h"
#include "os.h"
#include "pager.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define LOCK_MAGIC 0x4B434F4C4D4C524Full /* "ORLMLOCK" */
/* 3: the change word (after reader_high_water). 4: the durable version and
 * the pending group (before the reader slots). */
#define LOCK_LAYOUT_VERSION 4u
/* How long lockfile_read_latest waits for an odd sequence to turn even,
 * and how often lockfile_latest retries a version that commits overwrote. */
#define READ_LATEST_ATTEMPTS 100000u
#define CONFIRM_ATTEMPTS 1000u

/* ------------------------------------------------------------------------ */
/* Publishing and reading the latest version                                */
/* ------------------------------------------------------------------------ */

void lockfile_publish_latest(shared_state *shared, const version_info *info)
{
    /* Odd while writing, whatever the word held (a damaged lock file may
     * have left it odd: it is even again after this). */
    uint64_t sequence = atomic_load_explicit(&shared->latest_sequence, memory_order_relaxed) | 1;
    atomic_store_explicit(&shared->latest_sequence, sequence, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&shared->latest_version, info->version, memory_order_relaxed);
    atomic_store_explicit(&shared->latest_top_ref, info->top_ref, memory_order_relaxed);
    atomic_store_explicit(&shared->latest_logical_size, info->logical_size, memory_order_relaxed);
    atomic_store_explicit(&shared->latest_sequence, sequence + 1, memory_order_release);
    lockfile_signal_change(shared);
}

uint32_t lockfile_change_word(shared_state *shared) { return atomic_load(&shared->change_word); }

void lockfile_signal_change(shared_state *shared)
{
    /* Sequentially consistent: a waiter that read the word before this
     * increment either sees the new latest version (it read after the
     * publication) or is refused the sleep by the kernel (the word moved). */
    atomic_fetch_add(&shared->change_word, 1);
    os_wake_word(&shared->change_word);
}

bool lockfile_wait_for_signal(ce_db *db, uint32_t seen, int64_t timeout_ns)
{
    return os_wait_on_word(&db->shared->change_word, seen, timeout_ns, db->lock_path);
}

version_info lockfile_read_latest(shared_state *shared)
{
    /* A writer holds the sequence odd for a few stores; one that stays odd
     * (a writer that died there, or damage) is read anyway after a while:
     * lockfile_latest checks what it gets. */
    for (uint32_t attempt = 0;; attempt++) {
        uint64_t before = atomic_load_explicit(&shared->latest_sequence, memory_order_acquire);
        bool give_up = attempt >= READ_LATEST_ATTEMPTS;
        if ((before & 1) && !give_up) {
            if (attempt % 64 == 63) sched_yield();
            continue;
        }
        version_info info;
        info.version = atomic_load_explicit(&shared->latest_version, memory_order_relaxed);
        info.top_ref = atomic_load_explicit(&shared->latest_top_ref, memory_order_relaxed);
        info.logical_size = atomic_load_explicit(&shared->latest_logical_size, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (give_up || atomic_load_explicit(&shared->latest_sequence, memory_order_relaxed) == before) return info;
    }
}

bool lockfile_damaged(ce_db *db, const char *what, uint64_t value)
{
    return error_fail(CE_ERR_CORRUPT,
                      "the lock file '%s' is damaged (%s: %llu): close every handle of '%s' and open it again to "
                      "rebuild it",
                      db->lock_path, what, (unsigned long long)value, db->path);
}

bool lockfile_check(ce_db *db)
{
    shared_state *shared = db->shared;
    if (shared->magic != LOCK_MAGIC) return lockfile_damaged(db, "its magic is", shared->magic);
    if (shared->layout_version != LOCK_LAYOUT_VERSION)
        return lockfile_damaged(db, "its layout version is", shared->layout_version);
    if (shared->slot_count != READER_SLOT_COUNT) return lockfile_damaged(db, "its reader slot count is", shared->slot_count);
    if (shared->structure_size != sizeof(shared_state))
        return lockfile_damaged(db, "its structure size is", shared->structure_size);
    if (atomic_load(&shared->ready) != 1) return lockfile_damaged(db, "its ready mark is", atomic_load(&shared->ready));
    return true;
}

static bool same_info(const version_info *a, const version_info *b)
{
    return a->version == b->version && a->top_ref == b->top_ref && a->logical_size == b->logical_size;
}

/* What a slot could hold (header_decode_slot_page's bounds), or version 0. */
static bool info_in_range(const version_info *info)
{
    if (info->version == 0) return info->top_ref == 0 && info->logical_size == CE_HEADER_SIZE;
    return info->logical_size >= CE_HEADER_SIZE && info->logical_size <= HEADER_MAX_LOGICAL_SIZE &&
           info->logical_size % 8 == 0 && info->top_ref >= CE_HEADER_SIZE && info->top_ref < info->logical_size &&
           info->top_ref % 8 == 0;
}

void lockfile_note_confirmed(ce_db *db, const version_info *info)
{
    pthread_mutex_lock(&db->confirmed_mutex);
    db->confirmed = *info;
    db->confirmed_valid = true;
    pthread_mutex_unlock(&db->confirmed_mutex);
}

static bool is_confirmed(ce_db *db, const version_info *info)
{
    pthread_mutex_lock(&db->confirmed_mutex);
    bool confirmed = db->confirmed_valid && same_info(&db->confirmed, info);
    pthread_mutex_unlock(&db->confirmed_mutex);
    return confirmed;
}

/* A latest version that no slot names and that is newer than every slot
 * (header_confirm_version): a grouped commit not synced yet (group.h).
 * Confirmed when its logical size fits the file and its top node reads
 * back as the top node of that version. */
static bool confirm_pending(ce_db *db, const version_info *info, bool *out_confirmed)
{
    *out_confirmed = false;
    uint64_t file_size;
    if (!pager_file_size(db->pager, &file_size)) return false;
    if (pager_physical_size(db->pager, info->logical_size) > file_size) return true;
    const uint8_t *base;
    if (!pager_map(db->pager, info->logical_size, &base)) return false;
    uint64_t epoch;
    if (!pager_begin_reading(db->pager, &epoch)) return false;
    space_state space;
    memset(&space, 0, sizeof space);
    space_init_read(&space, base, info->logical_size);
    space_set_file(&space, db->pager);
    if (pager_is_encrypted(db->pager)) space_set_cipher_reader(&space, db->pager, info->version, epoch);
    node_view top;
    error_saved saved;
    error_save(&saved);
    /* A node that does not read is no top node: not confirmed (the caller
     * names the lock file), not an error of its own. */
    if (node_read(&space, info->top_ref, &top))
        *out_confirmed = (top.flags & NODE_HAS_REFS) && top.count >= TOP_COUNT &&
                         node_untag(node_get(&top, TOP_VERSION)) == (int64_t)info->version;
    error_restore(&saved);
    space_free_ready_pages(&space);
    pager_end_reading(db->pager, epoch);
    return true;
}

bool lockfile_latest(ce_db *db, int slot_index, version_info *out_info)
{
    shared_state *shared = db->shared;
    for (uint32_t attempt = 0; attempt < CONFIRM_ATTEMPTS; attempt++) {
        if (!lockfile_check(db)) return false;
        version_info info = lockfile_read_latest(shared);
        if (slot_index >= 0) {
            /* Store, then check that it is still the latest, so a writer
             * that scanned before the store cannot have freed it. */
            atomic_store(&shared->readers[slot_index].version, info.version);
            if (atomic_load(&shared->latest_version) != info.version) continue;
        }
        if (!info_in_range(&info)) {
            version_info again = lockfile_read_latest(shared);
            if (!same_info(&again, &info)) continue; /* a torn read */
            return lockfile_damaged(db, info.logical_size > HEADER_MAX_LOGICAL_SIZE ? "its latest logical size is"
                                                                                      : "its latest top ref is",
                                     info.logical_size > HEADER_MAX_LOGICAL_SIZE ? info.logical_size : info.top_ref);
        }
        if (is_confirmed(db, &info)) {
            *out_info = info;
            return true;
        }
        bool confirmed;
        uint64_t newest_slot;
        if (!header_confirm_version(db, &info, &confirmed, &newest_slot)) return false;
        /* Newer than every slot: a grouped commit not synced yet, if the
         * data file holds its top node (group.h). */
        if (!confirmed && info.version > newest_slot && !confirm_pending(db, &info, &confirmed)) return false;
        if (confirmed) {
            lockfile_note_confirmed(db, &info);
            *out_info = info;
            return true;
        }
        /* The slot of a version is overwritten only once a newer version
         * is durable: if the latest did not move meanwhile, the lock file
         * names a version the data file does not hold. */
        version_info again = lockfile_read_latest(shared);
        if (same_info(&again, &info))
            return lockfile_damaged(db, "the data file's header does not hold its latest version", info.version);
    }
    return lockfile_damaged(db, "the data file's header never confirmed its latest version", 0);
}

/* ------------------------------------------------------------------------ */
/* Reader table                                                              */
/* ------------------------------------------------------------------------ */

static bool process_is_alive(ce_db *db, uint64_t pid, bool *out_alive)
{
    if (pid == db->pid) {
        *out_alive = true;
        return true;
    }
    return os_range_is_locked(db->lock_fd, LIVENESS_BASE + pid, 1, out_alive, db->lock_path);
}

static int compare_versions(const void *a, const void *b)
{
    uint64_t left = *(const uint64_t *)a, right = *(const uint64_t *)b;
    return (left > right) - (left < right);
}

bool lockfile_scan_readers(ce_db *db, uint64_t latest, uint64_t *out_oldest, uint64_t *out_active)
{
    uint64_t pinned[READER_SLOT_COUNT + 1];
    size_t pinned_count = 0;
    pinned[pinned_count++] = latest;
    if (!lockfile_check(db)) return false;
    uint32_t high_water = atomic_load(&db->shared->reader_high_water);
    for (uint32_t i = 0; i < high_water && i < READER_SLOT_COUNT; i++) {
        reader_slot *slot = &db->shared->readers[i];
        uint64_t owner = atomic_load(&slot->owner_pid);
        if (owner == 0) continue;
        /* A pid is positive and fits a pid_t; a reader pins a version that
         * was the latest (the latest only grows). Anything else is damage,
         * and freeing such a slot could free a live reader's version. */
        if (owner > INT32_MAX) return lockfile_damaged(db, "a reader slot's owner pid is", owner);
        uint64_t version = atomic_load(&slot->version);
        if (version == 0) continue;
        if (version > latest) return lockfile_damaged(db, "a reader slot pins a version past the latest", version);
        if (version < latest) {
            bool alive;
            if (!process_is_alive(db, owner, &alive)) return false;
            if (!alive) {
                /* A reader of a process that died: free its slot. */
                atomic_store(&slot->version, 0);
                uint64_t expected = owner;
                atomic_compare_exchange_strong(&slot->owner_pid, &expected, 0);
                continue;
            }
        }
        pinned[pinned_count++] = version;
    }
    qsort(pinned, pinned_count, sizeof *pinned, compare_versions);
    uint64_t active = 0;
    for (size_t i = 0; i < pinned_count; i++)
        if (i == 0 || pinned[i] != pinned[i - 1]) active++;
    *out_oldest = pinned[0];
    *out_active = active;
    return true;
}

bool lockfile_claim_reader_slot(ce_db *db, int *out_slot)
{
    static _Thread_local uint32_t hint;
    for (uint32_t attempt = 0; attempt < READER_SLOT_COUNT; attempt++) {
        uint32_t index = (hint + attempt) % READER_SLOT_COUNT;
        reader_slot *slot = &db->shared->readers[index];
        uint64_t expected = 0;
        if (atomic_load_explicit(&slot->owner_pid, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&slot->owner_pid, &expected, db->pid)) {
            hint = index + 1;
            /* Writers scan slots below the high-water mark only. */
            uint32_t high_water = atomic_load(&db->shared->reader_high_water);
            while (high_water < index + 1 &&
                   !atomic_compare_exchange_weak(&db->shared->reader_high_water, &high_water, index + 1)) {
            }
            *out_slot = (int)index;
            return true;
        }
    }
    return error_fail(CE_ERR_TOO_MANY_READERS, "too many read transactions on '%s' (%u are open)", db->path,
                   READER_SLOT_COUNT);
}

bool lockfile_pin_latest(ce_db *db, int slot_index, version_info *out_info)
{
    return lockfile_latest(db, slot_index, out_info);
}

void lockfile_release_reader_slot(ce_db *db, int slot_index)
{
    reader_slot *slot = &db->shared->readers[slot_index];
    atomic_store(&slot->version, 0);
    atomic_store(&slot->owner_pid, 0);
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                   */
/* ------------------------------------------------------------------------ */

bool lockfile_hold_data_file(int data_fd, bool alone, const char *path, const char *lock_path)
{
    /* Shared locks never conflict, so the wait is only for the kernel. */
    if (!os_lock_range(data_fd, DATA_HANDLE_LOCK_BYTE, 1, false, true, NULL, path)) return false;
    if (!alone) return true;
    /* Taken first, then tested: of two handles that set up two lock files
     * at once, each sees the other (both fail) or the later sees the
     * earlier; never does each miss the other. */
    bool others;
    if (!os_range_is_locked(data_fd, DATA_HANDLE_LOCK_BYTE, 1, &others, path)) return false;
    if (others)
        return error_fail(CE_ERR_ALREADY_OPEN,
                          "'%s' is open in a handle that uses another lock file: the lock file '%s' was deleted or "
                          "replaced while the file was open, and a second set of handles would lose the first's "
                          "commits; close every handle of '%s' (in every process), then open it again",
                          path, lock_path, path);
    return true;
}

void lockfile_close(ce_db *db)
{
    if (db->shared) os_active->munmap(db->shared, db->shared_size);
    db->shared = NULL;
    if (db->lock_fd >= 0) os_active->close(db->lock_fd);
    db->lock_fd = -1;
}

static bool map_lock_file(ce_db *db)
{
    void *memory = os_active->mmap(NULL, db->shared_size, PROT_READ | PROT_WRITE, MAP_SHARED, db->lock_fd, 0);
    if (memory == MAP_FAILED) return error_fail_errno(errno, "map lock file", db->lock_path);
    db->shared = memory;
    return true;
}

/* Gives every page of the lock file a block on disk before it is written
 * through the shared mapping: a page without one (a sparse file that
 * ftruncate extended, or a lock file an older engine left so) needs a block
 * when the store faults it in, and on a full file system the kernel can only
 * answer with SIGBUS. Allocated here, that is ENOSPC, which the open
 * reports as CE_ERR_OUT_OF_DISK_SPACE. Blocks already allocated cost
 * nothing. Where the file system has no fallocate, zeros are written (the
 * contents are reset next anyway). */
static bool allocate_lock_file(ce_db *db)
{
    if (os_active->fallocate(db->lock_fd, 0, (off_t)db->shared_size) == 0) return true;
    if (errno != EOPNOTSUPP && errno != EINVAL && errno != ENOSYS)
        return error_fail_errno(errno, "allocate lock file", db->lock_path);
    static const uint8_t zeros[4096];
    for (uint64_t offset = 0; offset < db->shared_size; offset += sizeof zeros) {
        size_t length = db->shared_size - offset < sizeof zeros ? (size_t)(db->shared_size - offset) : sizeof zeros;
        if (!os_write_all(db->lock_fd, zeros, length, offset, db->lock_path)) return false;
    }
    return true;
}

static bool initialize_shared(ce_db *db);

/* Sets up the data file and the lock file when this handle is the only one. */
static bool initialize_as_first(ce_db *db)
{
    /* Reset by zeroing it through the mapping, not by truncating it to
     * zero: ext4 flushes a file truncated to zero when it is closed
     * (auto_da_alloc), and the next open then waits for that I/O, a few
     * milliseconds for a file that never needs to reach the disk. */
    uint64_t size;
    if (!os_file_size(db->lock_fd, &size, db->lock_path)) return false;
    if (size > db->shared_size && os_active->ftruncate(db->lock_fd, (off_t)db->shared_size) != 0)
        return error_fail_errno(errno, "reset lock file", db->lock_path);
    if (!allocate_lock_file(db)) return false;
    if (!map_lock_file(db)) return false;
    return initialize_shared(db);
}

/* Fills db->shared (mapped, db->shared_size bytes) with a new lock file's
 * state at the version the data file opens at. */
static bool initialize_shared(ce_db *db)
{
    memset(db->shared, 0, db->shared_size);
    shared_state *shared = db->shared;
    shared->magic = LOCK_MAGIC;
    shared->layout_version = LOCK_LAYOUT_VERSION;
    shared->slot_count = READER_SLOT_COUNT;
    shared->structure_size = (uint32_t)sizeof(shared_state);

    header_state state = HEADER_EMPTY;
    version_info info = {0};
    bool needs_sync_record = false;
    if (!header_choose_version(db, true, &state, &info, &needs_sync_record)) return false;
    if (state == HEADER_EMPTY) {
        if (db->options.read_only)
            return error_fail(CE_ERR_INVALID_DATABASE, "invalid database: '%s' is empty and was opened read-only", db->path);
        if (!header_write_new(db)) return false;
        info = (version_info){0, 0, CE_HEADER_SIZE};
    }
    /* The space freed by the version the file opens at may be reused once
     * no open can check that version's runs again: a group's slot lists
     * runs its later commits freed (group.h). */
    uint64_t reusable = info.version;
    if (needs_sync_record) {
        if (!db->options.read_only && db->options.durability == CE_DURABILITY_FULL) {
            /* The commit verified from the page cache: on disk first, then
             * the sync record that vouches for it, synced too. */
            uint8_t page[PAGE_SIZE_BYTES];
            header_encode_sync_page(page, info.version);
            if (!pager_sync(db->pager) || !pager_write(db->pager, SYNC_PAGE * PAGE_SIZE_BYTES, page, sizeof page) ||
                !pager_sync(db->pager))
                return false;
        } else if (db->options.read_only) {
            reusable = 0; /* nothing vouches for it: a later writer reuses nothing until a sync */
        }
    }
    lockfile_publish_latest(shared, &info);
    /* What the file opens at is on disk, and no group is pending (group.h). */
    atomic_store(&shared->durable_version, info.version);
    atomic_store(&shared->reusable_version, reusable);
    shared->group_base = shared->group_version = info.version;
    checksum_init(&shared->group_checksum, CHECKSUM_SEED_DATA);
    atomic_store(&shared->ready, 1);
    return true;
}

static bool attach_as_other(ce_db *db, bool *out_retry)
{
    *out_retry = false;
    uint64_t size;
    if (!os_file_size(db->lock_fd, &size, db->lock_path)) return false;
    if (size < db->shared_size) {
        *out_retry = true; /* the initializer died before sizing it */
        return true;
    }
    if (!map_lock_file(db)) return false;
    shared_state *shared = db->shared;
    if (atomic_load(&shared->ready) != 1) {
        lockfile_close(db);
        *out_retry = true;
        return true;
    }
    if (shared->magic != LOCK_MAGIC || shared->layout_version != LOCK_LAYOUT_VERSION ||
        shared->slot_count != READER_SLOT_COUNT || shared->structure_size != sizeof(shared_state))
        return error_fail(CE_ERR_INCOMPATIBLE_LOCK_FILE,
                       "the lock file '%s' was made by an incompatible version of the engine", db->lock_path);
    return true;
}

/* The data file is opened only once this handle holds byte 0 of the lock
 * file: compaction replaces the file while it holds that byte exclusively,
 * so a descriptor opened before could name the replaced file. */
static bool open_data_file(ce_db *db)
{
    bool create = !db->options.read_only && !db->options.no_create;
    if (!pager_open(db->path, db->options.read_only, create, &db->pager)) return false;
    pager_set_early_writeback(db->pager, db->options.durability == CE_DURABILITY_FULL);
    struct stat status;
    if (os_active->fstat(pager_fd(db->pager), &status) != 0) return error_fail_errno(errno, "stat", db->path);
    db->file_device = (uint64_t)status.st_dev;
    db->file_inode = (uint64_t)status.st_ino;
    return true;
}

/* A FIFO or a device at the lock file's path (opened, not created) cannot
 * be sized and mapped: refused by what it is, and left as it is. */
static bool lock_file_is_regular(ce_db *db)
{
    struct stat status;
    if (os_active->fstat(db->lock_fd, &status) != 0) {
        int saved = errno;
        lockfile_close(db);
        return error_fail_errno(saved, "stat lock file", db->lock_path);
    }
    if (S_ISREG(status.st_mode)) return true;
    lockfile_close(db);
    return error_fail(CE_ERR_INCOMPATIBLE_LOCK_FILE,
                      "the lock file '%s' is not a regular file (a FIFO, a socket or a device): refused (remove it)",
                      db->lock_path);
}

bool lockfile_open(ce_db *db)
{
    db->shared_size = (sizeof(shared_state) + 4095) & ~(size_t)4095;
    for (int attempt = 0; attempt < 100; attempt++) {
        /* Not through a symbolic link: the first opener rebuilds the lock
         * file in place, which would overwrite the file a link names. */
        db->lock_fd = os_active->open(db->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (db->lock_fd < 0 && errno == ELOOP)
            return error_fail(CE_ERR_INCOMPATIBLE_LOCK_FILE,
                              "the lock file '%s' is a symbolic link: refused, since the lock file is rebuilt in "
                              "place and that would overwrite the file the link names (remove the link)",
                              db->lock_path);
        if (db->lock_fd < 0) return error_fail_errno(errno, "open lock file", db->lock_path);
        if (!lock_file_is_regular(db)) return false;
        bool busy;
        if (os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, true, false, &busy, db->lock_path)) {
            /* Deleted since it was opened (ce_db_delete_files, the last close
             * of an in-memory database): a handle that initialized it would
             * be alone with it. Start again with the file at the path. */
            struct stat status;
            if (os_active->fstat(db->lock_fd, &status) == 0 && status.st_nlink == 0) {
                lockfile_close(db);
                continue;
            }
            /* A memory-only database lives only while a handle holds it:
             * a file left by a process that died holding it is stale, and
             * the first handle starts empty (Realm's in-memory realms do
             * not keep data across launches). No one else has it open:
             * others attach only after this handle lets them. */
            if (db->options.durability == CE_DURABILITY_MEMORY_ONLY && os_active->unlink(db->path) != 0 &&
                errno != ENOENT) {
                error_fail_errno(errno, "remove the stale in-memory file", db->path);
                os_active->unlink(db->lock_path);
                return false;
            }
            if (!open_data_file(db) ||
                !lockfile_hold_data_file(pager_fd(db->pager), true, db->path, db->lock_path) ||
                !initialize_as_first(db)) {
                /* Leave no lock file beside a file we could not open. A
                 * process waiting on this one finds it not ready and
                 * retries with a new lock file. */
                os_active->unlink(db->lock_path);
                return false;
            }
            /* Still exclusive: others attach once ce_db_open has made the
             * first commit of a new file (lockfile_let_others_attach). */
            db->opened_first = true;
            return true;
        }
        if (!busy) return false;
        if (!os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, false, true, NULL, db->lock_path)) return false;
        bool retry;
        if (!attach_as_other(db, &retry)) return false;
        if (!retry)
            return open_data_file(db) && lockfile_hold_data_file(pager_fd(db->pager), false, db->path, db->lock_path) &&
                   header_attach(db);
        lockfile_close(db);
    }
    return error_fail(CE_ERR_INCOMPATIBLE_LOCK_FILE, "could not attach to the lock file '%s'", db->lock_path);
}

bool lockfile_let_others_attach(ce_db *db)
{
    if (!db->opened_first) return true;
    /* Downgrade: from now on others may attach. */
    return os_lock_range(db->lock_fd, INIT_LOCK_BYTE, 1, false, true, NULL, db->lock_path);
}

void lockfile_abandon_setup(ce_db *db)
{
    /* Those waiting for the byte find it not ready and set it up again. */
    if (db->opened_first && db->shared) atomic_store(&db->shared->ready, 0);
}

/* An immutable handle (ce_db_options.immutable): the state a lock file would
 * share lives in this handle's own anonymous memory, so no lock file is
 * created, opened or locked, and no other handle sees this one. The data
 * file is opened read-only and read at the newest slot whose commit is
 * whole; since the caller promises that nobody writes the file, that
 * version stays the latest for as long as the handle is open. */
bool lockfile_open_immutable(ce_db *db)
{
    db->shared_size = (sizeof(shared_state) + 4095) & ~(size_t)4095;
    void *memory = os_active->mmap(NULL, db->shared_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory (the state of '%s')", db->path);
    db->shared = memory;
    return open_data_file(db) && initialize_shared(db);
}
