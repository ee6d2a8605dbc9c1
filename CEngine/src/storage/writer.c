/*
 * writer.c — a new database file written front to back (writeCopy,
 * compaction), and putting it in place.
 *
 * Owns: the new file's header, the buffer the copy's nodes are placed in
 * (each at the position that becomes its ref), the top node and the slot
 * that make the file a database, and installing it (a new path, or
 * renamed over the handle's file in writer_replace_file), and removing the
 * temporaries of copies whose process died (writer_remove_stale_copies).
 * Never: lets a file that is not whole and on disk appear at its final
 * path (the slot is written last, the name given after the sync),
 * replaces anything at a path a copy is installed to, or removes a
 * temporary whose process is alive.
 */
#include "writer.h"
#include "db_internal.h"
#include "error.h"
#include "group.h"
#include "header.h"
#include "lockfile.h"
#include "node.h"
#include "os.h"
#include "pager.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WRITER_FLUSH_BYTES (1u << 20)

bool writer_syncs = true;

struct writer_state {
    ce_db *source;
    pager_state *pager;
    char *path;
    uint8_t *buffer;          /* bytes not yet written, from buffer_position on */
    size_t length, capacity;
    uint64_t buffer_position; /* a multiple of the page size */
    version_info info;        /* once finished */
};

void writer_remove_stale_copies(const char *path)
{
    size_t length = strlen(path) + sizeof WRITER_COPY_SUFFIX;
    char *prefix = malloc(length);
    if (!prefix) return;
    snprintf(prefix, length, "%s" WRITER_COPY_SUFFIX, path);
    os_remove_orphans(prefix);
    free(prefix);
}

bool writer_path_exists(const char *path)
{
    int fd = os_active->open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0);
    if (fd >= 0) {
        os_active->close(fd);
        return true;
    }
    return errno != ENOENT; /* a name that cannot be opened (a link, no permission) is there */
}

bool writer_create(ce_db *source, const char *temporary_path, bool replace_stale, const writer_encryption *encryption,
                   writer_state **out_writer)
{
    if (replace_stale) os_active->unlink(temporary_path);
    if (encryption->same_as_source && encryption->key)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "internal error: a copy with both the source's key and a new one");
    writer_state *writer = calloc(1, sizeof *writer);
    uint8_t *header = calloc(1, CE_HEADER_SIZE);
    if (!writer || !header || !(writer->path = strdup(temporary_path))) {
        free(writer ? writer->path : NULL);
        free(writer);
        free(header);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory creating '%s'", temporary_path);
    }
    writer->source = source;
    writer->buffer_position = CE_HEADER_SIZE;
    if (!pager_create_new(temporary_path, &writer->pager)) {
        free(writer->path);
        free(writer);
        free(header);
        return false;
    }
    pager_set_early_writeback(writer->pager, writer_syncs);
    /* The copy's cipher: the source's keys (its salt, so its key opens the
     * copy), keys derived from a new key under a new salt, or none. */
    cipher_header cipher;
    memset(&cipher, 0, sizeof cipher);
    crypt_state *crypt = NULL;
    uint64_t cache_bytes = source->options.encryption_cache_bytes;
    bool ok = true;
    if (encryption->same_as_source && source->cipher.encrypted) {
        cipher = source->cipher;
        uint32_t group_pages;
        ok = pager_clone_cipher(source->pager, &crypt, &group_pages, &cache_bytes);
    } else if (encryption->key) {
        ok = header_new_cipher(encryption->key, &cipher, &crypt);
    }
    if (ok && crypt) ok = pager_enable_cipher(writer->pager, crypt, cipher.group_pages, cache_bytes);
    /* The static page now, blank slots: until the slot is written last, the
     * file holds no version. */
    if (ok) {
        header_encode_static_page(header, &cipher);
        ok = pager_write(writer->pager, 0, header, CE_HEADER_SIZE);
    }
    free(header);
    if (!ok) {
        writer_discard(writer);
        return false;
    }
    *out_writer = writer;
    return true;
}

/* Writes the whole pages of the buffer (all of it when `everything`): a
 * page is written once, complete. */
static bool flush_writer(writer_state *writer, bool everything)
{
    size_t length = everything ? writer->length : writer->length & ~(size_t)(PAGE_SIZE_BYTES - 1);
    if (length == 0) return true;
    pager_write_run run = {writer->buffer_position, writer->buffer, length};
    if (!pager_write_runs(writer->pager, &run, 1)) return false;
    memmove(writer->buffer, writer->buffer + length, writer->length - length);
    writer->length -= length;
    writer->buffer_position += length;
    return true;
}

bool writer_reserve(writer_state *writer, size_t size, space_ref *out_position, uint8_t **out_bytes)
{
    if (writer->length >= WRITER_FLUSH_BYTES && !flush_writer(writer, false)) return false;
    if (writer->length + size > writer->capacity) {
        size_t capacity = writer->capacity ? writer->capacity : 2 * WRITER_FLUSH_BYTES;
        while (capacity < writer->length + size) capacity *= 2;
        uint8_t *grown = realloc(writer->buffer, capacity);
        if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", writer->path);
        writer->buffer = grown;
        writer->capacity = capacity;
    }
    *out_position = writer->buffer_position + writer->length;
    *out_bytes = writer->buffer + writer->length;
    writer->length += size;
    return true;
}

bool writer_finish(writer_state *writer, uint64_t version, space_ref user_root, space_ref history)
{
    int64_t top_values[TOP_COUNT];
    top_values[TOP_USER_ROOT] = (int64_t)user_root;
    top_values[TOP_FREE_LIST] = 0; /* nothing is free in a compacted file */
    top_values[TOP_VERSION] = node_tag((int64_t)version);
    top_values[TOP_HISTORY] = (int64_t)history;
    uint8_t width = 0;
    for (int i = 0; i < TOP_COUNT; i++)
        if (node_width_for(top_values[i]) > width) width = node_width_for(top_values[i]);
    space_ref top_ref;
    uint8_t *top;
    size_t top_size = (size_t)node_size_for(width, TOP_COUNT);
    if (!writer_reserve(writer, top_size, &top_ref, &top)) return false;
    memset(top, 0, top_size);
    node_encode_header(top, NODE_HAS_REFS, width, TOP_COUNT);
    for (int i = 0; i < TOP_COUNT; i++) node_encode_element(top + NODE_HEADER_SIZE, width, (size_t)i, top_values[i]);
    writer->info = (version_info){version, top_ref, writer->buffer_position + writer->length};
    if (!flush_writer(writer, true)) return false;
    /* One sync for the data and the slot after it: the file gets its name
     * (writer_install, writer_replace_file) only once the sync is done,
     * so no open can meet the slot without the data. The slot therefore
     * lists no runs, and the sync record vouches for the version. */
    slot_record *slot = calloc(1, sizeof *slot);
    uint8_t *page = malloc(PAGE_SIZE_BYTES);
    bool ok = slot && page;
    if (!ok) error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", writer->path);
    if (ok) {
        slot->info = writer->info;
        ok = header_encode_slot_page(page, slot, writer->pager) &&
             pager_write(writer->pager, (uint64_t)(1 + version % 2) * PAGE_SIZE_BYTES, page, PAGE_SIZE_BYTES);
    }
    if (ok) {
        header_encode_sync_page(page, version);
        ok = pager_write(writer->pager, SYNC_PAGE * PAGE_SIZE_BYTES, page, PAGE_SIZE_BYTES) &&
             (!writer_syncs || pager_sync(writer->pager));
    }
    free(slot);
    free(page);
    return ok;
}

uint64_t writer_size(const writer_state *writer) { return writer->info.logical_size; }

static void release_writer_memory(writer_state *writer)
{
    free(writer->buffer);
    free(writer->path);
    free(writer);
}

void writer_discard(writer_state *writer)
{
    if (!writer) return;
    pager_close(writer->pager);
    os_active->unlink(writer->path);
    release_writer_memory(writer);
}

bool writer_install(writer_state *writer, const char *path)
{
    if (os_active->rename_noreplace(writer->path, path) != 0) {
        if (errno == EEXIST)
            return error_fail(CE_ERR_FILE_EXISTS, "cannot write a copy to '%s': the file exists", path);
        return error_fail_errno(errno, "rename", path);
    }
    pager_close(writer->pager);
    release_writer_memory(writer);
    return os_sync_directory_of(path);
}

bool writer_replace_file(ce_db *db, writer_state *writer)
{
    /* The new file carries the handle byte before it takes the path: a
     * handle that set up another lock file must never find it unheld. */
    if (!lockfile_hold_data_file(pager_fd(writer->pager), false, db->path, db->lock_path)) {
        writer_discard(writer);
        return false;
    }
    if (os_active->rename(writer->path, db->path) != 0) {
        bool result = error_fail_errno(errno, "rename", db->path);
        writer_discard(writer);
        return result;
    }
    /* From here the new file is the file: the handle continues on the
     * writer's descriptor, which names it. The lock file is this handle's
     * alone, so the latest version is simply republished. */
    pager_close_replaced(db->pager);
    db->pager = writer->pager;
    db->cipher.page_sums = false; /* a copy is written without page checksums */
    atomic_store(&db->shared->committing_version, 0);
    lockfile_publish_latest(db->shared, &writer->info);
    lockfile_note_confirmed(db, &writer->info); /* the slot the writer wrote */
    group_reset(db, &writer->info);             /* synced by writer_finish */
    release_writer_memory(writer);
    return os_sync_directory_of(db->path);
}
