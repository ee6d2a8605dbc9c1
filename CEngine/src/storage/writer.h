/*
 * writer.h — writing a new database file front to back (writeCopy,
 * compaction), for compact.c.
 *
 * Owns: the writer's calls (writer_*): create, reserve, finish, install,
 * replace the handle's file (writer_replace_file), discard.
 * Never: lets a caller see a file that is not whole and on disk at its
 * final path.
 *
 * The writer creates a new file at a temporary path (which must not exist),
 * with the header of an empty database. The layer above reserves room for
 * each node in order (the position it gets is the node's ref in the new
 * file), fills it, and finally names the roots: the writer adds the top node
 * (with an empty free list), syncs the data, writes and syncs the header slot.
 * `replace_stale`: a file left at the temporary path (by a copy that
 * crashed) is removed first; otherwise its existence is CE_ERR_FILE_EXISTS.
 * `encryption` says whether and how the new file is encrypted.
 * Then the file is either installed at its final path (which must not exist)
 * or replaces the handle's own file (compaction). Until one of those
 * succeeds, writer_discard removes it.
 */
#ifndef CE_WRITER_H
#define CE_WRITER_H

#include "cengine.h"
#include "space.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct writer_state writer_state;

typedef struct writer_encryption {
    const uint8_t *key;  /* a new 64-byte key for the copy (not kept), or NULL */
    bool same_as_source; /* encrypted with the source's keys if the source is encrypted */
} writer_encryption;

bool writer_create(ce_db *source, const char *temporary_path, bool replace_stale, const writer_encryption *encryption,
                   writer_state **out_writer);

/* The temporary of a copy to `path` is `path` WRITER_COPY_SUFFIX "<pid>-<n>"
 * (the pid of the process that writes it, and a counter). */
#define WRITER_COPY_SUFFIX ".writecopy-"

/* Removes the temporaries of copies to `path` whose process died (a crash
 * during writeCopy): names that are exactly `path` WRITER_COPY_SUFFIX
 * "<pid>-<n>" with no process `pid` alive. Best effort; sets no error. */
void writer_remove_stale_copies(const char *path);

/* Whether a file (or anything else) exists at `path`. */
bool writer_path_exists(const char *path);

/* Room for `size` bytes at the end of the new file: *out_position is where
 * they land, *out_bytes (valid until the next call) is to be filled. */
bool writer_reserve(writer_state *writer, size_t size, space_ref *out_position, uint8_t **out_bytes);

/* Benchmarks only (the default, true, is the only safe setting): false
 * leaves out the syncs of writer_finish, to measure a copy's own work apart
 * from the disk's. */
extern bool writer_syncs;

/* Writes the top node of `version` over the two roots and makes the file
 * durable. */
bool writer_finish(writer_state *writer, uint64_t version, space_ref user_root, space_ref history);

/* The logical size of the finished file. */
uint64_t writer_size(const writer_state *writer);

/* The logical size of the compaction of `source` whose nodes end at
 * `nodes_end` (its top node at the widest; with page checksums, the
 * directory, the pages of checksums and the last page whole). */
uint64_t writer_copy_size(const ce_db *source, uint64_t nodes_end);

/* Moves the finished file to `path` (CE_ERR_FILE_EXISTS if something is
 * there: nothing is replaced) and releases the writer. On failure the writer
 * is still the caller's to discard. */
bool writer_install(writer_state *writer, const char *path);

/* Closes and removes the temporary file, and releases the writer. */
void writer_discard(writer_state *writer);

/* During exclusive access (db_begin_exclusive): renames the finished
 * writer's file over the handle's file and continues on it (the writer is
 * released, also on failure). A crash at any point leaves the old or the
 * new file at the path, whole. */
bool writer_replace_file(ce_db *db, writer_state *writer);

#endif
