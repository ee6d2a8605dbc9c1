/*
 * group.h — group commit, for the files of the db layer (db.c, lockfile.c,
 * writer.c): how a commit's header slot reaches the disk, and grouped
 * commits that share one sync.
 *
 * Owns: the calls of group.c: the pending group (the grouped commits not
 * yet on stable storage), writing and syncing header slots, the durable
 * version, and which space a writer may reuse given it.
 * Never: is included above the db layer.
 *
 * A grouped commit writes its nodes and publishes its version in the lock
 * file (every reader sees it at once) but writes no header slot: no slot
 * ever names a version in the middle of a group. A sync (ce_db_sync) writes
 * one slot for the newest version, listing the runs of every commit of the
 * group (or none, with the data synced first, when there are more than a
 * slot lists), and syncs once. A commit that is not grouped writes the slot
 * of its own version the same way, covering the pending group too. Slots
 * are written to the page that does not hold the newest durable version.
 * Freed space is reused only once the version that freed it is durable.
 */
#ifndef CE_GROUP_H
#define CE_GROUP_H

#include "db_internal.h"
#include "pager.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many runs a slot may list before a commit or a group syncs its data
 * separately (at most the slot's room, 252). Commits are placed as one or
 * two runs, so tests lower this to exercise the two-sync path. */
extern size_t group_slot_run_limit;

/* A grouped commit of `info` built on `base` (the latest version), whose
 * runs are written (not synced): joins the pending group and publishes
 * `info` as the latest version. The caller holds the write lock.
 * `listable` false: a slot may not list these runs (their bytes change
 * after the commit: pages of checksums it placed, which later commits
 * rewrite in place), so the group's sync syncs its data first and its
 * slot lists no runs. */
bool group_add_commit(ce_db *db, const version_info *base, const version_info *info, const pager_write_run *runs,
                      size_t run_count, bool listable);

/* A commit that is not grouped, of `info` built on `base`, whose runs are
 * written: writes and (full durability) syncs its slot, which covers the
 * pending group too, then publishes `info`. The caller holds the write
 * lock. `listable` as for group_add_commit (false: the data is synced
 * first, the slot lists no runs). */
bool group_commit_durably(ce_db *db, const version_info *base, const version_info *info, const pager_write_run *runs,
                          size_t run_count, bool listable);

/* Records in the sync record that `version` is on stable storage. Not
 * synced: the next sync carries it, and until then a missing or torn
 * record only costs a verification at open. Written at close and after a
 * slot that lists over SYNC_RECORD_MINIMUM_BYTES of runs (a large commit
 * or group), whose check at an open after a crash would read them all
 * back; not after small ones: every separate page a sync flushes costs
 * time. Only with full durability, never read-only. */
bool group_write_sync_record(ce_db *db, uint64_t version);
#define SYNC_RECORD_MINIMUM_BYTES (1u << 20)

/* ce_db_sync: returns once `version` (at most the latest) is durable. */
bool group_sync(ce_db *db, uint64_t version);

/* The newest version known durable, and the latest version (checked, as
 * lockfile_latest), read in that order: a durable version past the latest
 * is damage (CE_ERR_CORRUPT naming the lock file). */
bool group_durable_version(ce_db *db, version_info *out_latest, uint64_t *out_durable);

/* The newest version whose freed space a writer building on `latest` may
 * reuse (invariant 1 relative to what survives a power loss): at most the
 * durable version, and less while the durable slot is a group's whose
 * runs include space its later commits freed (group.c, reusable_after);
 * bounded by the newest slot in the file while it is below the latest, so
 * that a damaged lock file cannot raise it. */
bool group_reuse_limit(ce_db *db, const version_info *latest, uint64_t *out_limit);

/* `info` is durable and nothing is pending after it (the first opener's
 * version, a compacted file's). */
void group_reset(ce_db *db, const version_info *info);

#endif
