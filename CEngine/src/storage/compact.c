/*
 * compact.c — copies: writeCopy and compaction (see compact.h).
 *
 * Owns: the walk that copies the live nodes of a version, refs rewritten,
 * into a new file (writer.c writes it), and the copy's progress reports.
 * Never: writes to the source file, or copies a node it meets twice.
 *
 * The copy walks the version depth first and writes each node after its
 * children (post-order), so that a parent's refs are known when it is
 * written: the new file is one run of nodes from the header on, a subtree's
 * nodes next to each other, the top node last. Nodes without children are
 * copied byte for byte; a node with children is re-packed at the smallest
 * width that holds its new refs (a ref may need more or fewer bits than
 * before). A node met twice (a shared child or a cycle: damage) stops the
 * copy with CE_ERR_CORRUPT, as ce_db_verify would.
 *
 * The change history is not copied: it serves readers and observers of the
 * source file, and a copy is a new file that has none (compaction in place
 * runs with no other handle and no transaction open). The copy's top node
 * holds no history; its first commit starts a new one, and a delta asked
 * of a version before that reports "not covered" (docs/FORMAT.md, "Change
 * history").
 *
 * A node's elements are copied into memory of the copy's own before its
 * children are visited: in an encrypted file the decrypted page a node lies
 * in may be evicted once the walk has moved on (see db_txn_release_pages).
 */
#include "compact.h"
#include "crypt.h"
#include "error.h"
#include "node.h"
#include "refset.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_INTERVAL (1u << 20) /* bytes between progress reports */

typedef struct copier {
    const space_state *space;
    ce_txn *txn;
    writer_state *writer;
    const ce_copy_options *options;
    uint64_t done, total, next_report;
    refset seen; /* the refs copied so far */
    /* The caller's transaction (ce_txn_write_copy): pointers it handed out
     * may point into the pages read, so none may leave the cache. */
    bool borrowed;
} copier;

void ce_copy_options_init(ce_copy_options *options) { memset(options, 0, sizeof *options); }

static void report(copier *c)
{
    if (c->done < c->next_report) return;
    c->next_report = c->done + PROGRESS_INTERVAL;
    /* No pointer into the file is held here (every node's elements were
     * copied out): the pages read so far may leave an encrypted file's
     * cache, so that a copy of a file larger than the cache stays within
     * it. */
    if (!c->borrowed) db_txn_release_pages(c->txn);
    if (c->options && c->options->progress)
        c->options->progress(c->options->progress_context, c->done < c->total ? c->done : c->total, c->total);
}

static bool copy_node(copier *c, space_ref ref, unsigned depth, space_ref *out_ref)
{
    /* The limit of ce_db_verify's walk and of the engine's own trees: a copy
     * takes every file the engine writes (copy_deep_nesting). A frame of
     * this recursion is small (176 bytes with gcc -O2: the node's values
     * are on the heap), so 512 levels need about 90 KiB of stack. */
    if (depth > NODE_MAX_TREE_DEPTH)
        return error_fail(CE_ERR_CORRUPT, "invalid database: tree deeper than %d at offset %llu", NODE_MAX_TREE_DEPTH,
                       (unsigned long long)ref);
    /* A write transaction's own nodes are in memory under temporary refs;
     * in a committed version such a ref is damage. */
    if (ref_is_temporary(ref) && !ce_txn_is_write(c->txn))
        return error_fail(CE_ERR_CORRUPT, "invalid database: a committed node holds a bad ref (%llx)",
                       (unsigned long long)ref);
    node_view node;
    if (!refset_add(&c->seen, ref) || !node_read(c->space, ref, &node)) return false;
    size_t size = (size_t)node_size(&node);
    c->done += size;
    uint8_t *target;
    if (!(node.flags & NODE_HAS_REFS) || node.width == 0) {
        /* No children: the node as it is. */
        if (!writer_reserve(c->writer, size, out_ref, &target)) return false;
        memcpy(target, node_start(&node), size);
        report(c);
        return true;
    }
    uint8_t flags = node.flags;
    size_t count = node.count;
    int64_t *values = malloc((count ? count : 1) * sizeof *values);
    if (!values) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory copying the node at offset %llu",
                                (unsigned long long)ref);
    for (size_t i = 0; i < count; i++) values[i] = node_get(&node, i);
    bool ok = true;
    for (size_t i = 0; ok && i < count; i++) {
        if (!node_value_is_ref(values[i])) continue;
        space_ref child;
        ok = copy_node(c, (space_ref)values[i], depth + 1, &child);
        values[i] = (int64_t)child;
    }
    if (ok) {
        node_view view = node_view_of_values(values, count);
        uint8_t width = node_width_for_values(&view);
        size_t new_size = (size_t)node_size_for(width, count);
        ok = writer_reserve(c->writer, new_size, out_ref, &target);
        if (ok) {
            memset(target, 0, new_size);
            node_encode_header(target, flags, width, (uint32_t)count);
            for (size_t i = 0; i < count; i++) node_encode_element(target + NODE_HEADER_SIZE, width, i, values[i]);
            report(c);
        }
    }
    free(values);
    return ok;
}

static bool copy_version(ce_txn *txn, bool borrowed, writer_state *writer, const ce_copy_options *options)
{
    db_space_usage usage;
    if (!db_txn_space_usage(txn, &usage)) return false;
    copier c = {.space = db_txn_space(txn), .txn = txn, .writer = writer, .options = options,
                .total = usage.data_bytes, .next_report = PROGRESS_INTERVAL, .borrowed = borrowed};
    refset_init(&c.seen, 4096, "copying");
    space_ref root = 0;
    /* A write transaction's changes are the version it will commit. */
    uint64_t version = ce_txn_version(txn) + (ce_txn_is_write(txn) ? 1 : 0);
    bool ok = (!db_txn_root(txn) || copy_node(&c, db_txn_root(txn), 0, &root)) &&
              writer_finish(writer, version, root, 0); /* no history: see above */
    refset_free(&c.seen);
    if (ok && options && options->progress) options->progress(options->progress_context, c.total, c.total);
    return ok;
}

bool compact_copy_version(ce_txn *txn, writer_state *writer, const ce_copy_options *options)
{
    return copy_version(txn, false, writer, options);
}

/* The caller gave `path`, not the temporary beside it: the last error
 * (creating the temporary when `creating`, else writing it) becomes "<what>
 * '<path>': <reason>", the reason alone ("No such file or directory" while
 * creating says the directory; the system's text otherwise), never the
 * temporary's name, which the caller never gave. */
static void name_instead(const char *what, const char *path, const char *temporary, bool creating)
{
    error_saved saved;
    error_save(&saved);
    const char *reason = saved.message;
    const char *named = strstr(saved.message, temporary);
    const char *after = named ? strstr(named + strlen(temporary), "': ") : NULL;
    if (creating && saved.code == CE_ERR_FILE_NOT_FOUND) reason = "its directory does not exist";
    else if (after) reason = after + 3;
    error_fail(saved.code, "%s '%s': %s", what, path, reason);
}

/* ce_db_write_copy (given == NULL: a read transaction of its own) and
 * ce_txn_write_copy (the caller's transaction `given`). */
static bool write_copy(ce_db *db, ce_txn *given, const char *path, const ce_copy_options *options)
{
    writer_encryption encryption = {NULL, false};
    if (options && options->encryption_key) {
        if (options->encryption_key_size != CRYPT_KEY_SIZE)
            return error_fail(CE_ERR_INVALID_ARGUMENT, "the encryption key must be %u bytes long (it is %zu)",
                           CRYPT_KEY_SIZE, options->encryption_key_size);
        encryption.key = options->encryption_key;
    } else if (options && options->encryption_key_size != 0) {
        return error_fail(CE_ERR_INVALID_ARGUMENT, "encryption_key_size is %zu but encryption_key is NULL",
                       options->encryption_key_size);
    }
    /* An early answer, before the work; the final rename, which never
     * replaces, is what guarantees it. */
    if (writer_path_exists(path)) return error_fail(CE_ERR_FILE_EXISTS, "cannot write a copy to '%s': the file exists", path);
    /* Written beside the destination under a name of its own, so that a
     * crash leaves no partial file at `path`. */
    static _Atomic unsigned copy_counter;
    size_t length = strlen(path) + 64;
    char *temporary = malloc(length);
    if (!temporary) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    writer_state *writer = NULL;
    ce_txn *txn = given;
    /* What a write transaction buffered goes into its trees first. */
    bool ok = given ? (!ce_txn_is_write(given) || db_txn_flush_layer(given)) : ce_txn_begin_read(db, &txn);
    /* Temporaries that copies to the same path left when their process died. */
    if (ok) writer_remove_stale_copies(path);
    for (int attempt = 0; ok && !writer; attempt++) {
        snprintf(temporary, length, "%s" WRITER_COPY_SUFFIX "%ld-%u", path, (long)getpid(),
                 atomic_fetch_add(&copy_counter, 1));
        ok = writer_create(db, temporary, false, &encryption, &writer);
        /* A name left behind by an earlier process of the same pid: next. */
        if (!ok && ce_last_error_code() == CE_ERR_FILE_EXISTS && attempt < 100) ok = true;
    }
    if (!ok && !writer && ce_last_error_code() != CE_ERR_OUT_OF_MEMORY)
        name_instead("cannot write a copy to", path, temporary, true);
    ok = ok && copy_version(txn, given != NULL, writer, options);
    if (txn && !given) ce_txn_end(txn);
    ok = ok && writer_install(writer, path);
    /* A write of the temporary that failed (a full disk) names it too. */
    if (!ok && writer && strstr(ce_last_error_message(), temporary))
        name_instead("cannot write a copy to", path, temporary, false);
    if (!ok) writer_discard(writer);
    free(temporary);
    return ok;
}

bool ce_db_write_copy(ce_db *db, const char *path, const ce_copy_options *options)
{
    if (!db_check_handle(db, "ce_db_write_copy")) return false;
    if (!path) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_write_copy: db and path are required");
    return write_copy(db, NULL, path, options);
}

bool ce_txn_write_copy(ce_txn *txn, const char *path, const ce_copy_options *options)
{
    if (!db_txn_check(txn, "ce_txn_write_copy")) return false;
    if (!path) return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_txn_write_copy: txn and path are required");
    return write_copy(db_txn_db(txn), txn, path, options);
}

bool ce_db_compact(ce_db *db, const ce_copy_options *options)
{
    if (!db_check_handle(db, "ce_db_compact")) return false;
    if (options && (options->encryption_key || options->encryption_key_size))
        return error_fail(CE_ERR_INVALID_ARGUMENT,
                       "compaction keeps the file's encryption key; ce_db_write_copy writes a copy with another");
    if (!db_begin_exclusive(db)) return false;
    writer_encryption same = {NULL, true};
    const char *path = ce_db_path(db);
    size_t length = strlen(path) + 16;
    char *temporary = malloc(length);
    writer_state *writer = NULL;
    ce_txn *txn = NULL;
    bool ok = temporary != NULL;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory");
    if (ok) {
        snprintf(temporary, length, "%s.compact", path);
        /* (A copy left there by a compaction that crashed is replaced.) */
        ok = ce_txn_begin_read(db, &txn) && writer_create(db, temporary, true, &same, &writer) &&
             compact_copy_version(txn, writer, options);
    }
    if (txn) ce_txn_end(txn);
    if (ok) {
        ok = writer_replace_file(db, writer); /* releases the writer */
    } else {
        writer_discard(writer);
    }
    /* A full disk while writing '<path>.compact' names the file compacted. */
    if (!ok && temporary && strstr(ce_last_error_message(), temporary))
        name_instead("cannot compact", path, temporary, false);
    db_end_exclusive(db);
    free(temporary);
    return ok;
}

bool ce_db_size_info(ce_db *db, uint64_t *out_total_bytes, uint64_t *out_used_bytes)
{
    if (!db_check_handle(db, "ce_db_size_info")) return false;
    if (!out_total_bytes || !out_used_bytes)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_db_size_info: arguments are required");
    ce_txn *txn;
    if (!ce_txn_begin_read(db, &txn)) return false;
    db_space_usage usage;
    bool ok = db_txn_space_usage(txn, &usage);
    ce_txn_end(txn);
    if (!ok) return false;
    *out_total_bytes = usage.file_size;
    *out_used_bytes = usage.compacted_size;
    return true;
}
