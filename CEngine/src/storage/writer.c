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
 *
 * A plain copy carries page checksums (docs/FORMAT.md, "Page checksums")
 * unless the handle turned them off: the checksum of each page is taken as
 * the page is written, and writer_finish places the directory (filling the
 * nodes' last page, so nothing is left unused), the pages of checksums and
 * the top node after the nodes, fills the entries, and writes the last
 * page whole.
 */
#include "writer.h"
#include "db_internal.h"
#include "error.h"
#include "group.h"
#include "header.h"
#include "lockfile.h"
#include "node.h"
#include "os.h"
#include "pagesum.h"
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
    bool page_sums;           /* a plain copy with page checksums */
    bool sealed;              /* the entries are filled: flushing records no more sums */
    uint32_t *sums;           /* the checksum of each page written, by page number (0: none) */
    size_t sums_capacity;     /* entries of sums */
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
    /* A name that cannot be opened (a link, no permission) is there; under
     * a missing directory or a regular file (ENOTDIR) nothing is. */
    return errno != ENOENT && errno != ENOTDIR;
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
    } else {
        /* A plain copy: page checksums unless the handle turned them off (a
         * new file it creates has none then). Compaction keeps those the
         * file has either way: other handles may verify them. */
        cipher.page_sums = !source->options.disable_page_checksums ||
                           (encryption->same_as_source && source->cipher.page_sums);
        writer->page_sums = cipher.page_sums;
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

/* Takes the checksums of the whole pages of the first `length` bytes of
 * the buffer (which starts on a page boundary). */
static bool record_sums(writer_state *writer, size_t length)
{
    uint64_t first = writer->buffer_position / PAGE_SIZE_BYTES, pages = length / PAGE_SIZE_BYTES;
    if (first + pages > writer->sums_capacity) {
        size_t capacity = writer->sums_capacity ? writer->sums_capacity : 1024;
        while (capacity < first + pages) capacity *= 2;
        uint32_t *grown = realloc(writer->sums, capacity * sizeof *grown);
        if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", writer->path);
        memset(grown + writer->sums_capacity, 0, (capacity - writer->sums_capacity) * sizeof *grown);
        writer->sums = grown;
        writer->sums_capacity = capacity;
    }
    for (uint64_t i = 0; i < pages; i++)
        writer->sums[first + i] = pager_page_sum(writer->buffer + i * PAGE_SIZE_BYTES);
    return true;
}

/* Writes the whole pages of the buffer (all of it when `everything`): a
 * page is written once, complete. */
static bool flush_writer(writer_state *writer, bool everything)
{
    size_t length = everything ? writer->length : writer->length & ~(size_t)(PAGE_SIZE_BYTES - 1);
    if (length == 0) return true;
    if (writer->page_sums && !writer->sealed && !record_sums(writer, length)) return false;
    pager_write_run run = {writer->buffer_position, writer->buffer, length};
    if (!pager_write_runs(writer->pager, &run, 1)) return false;
    memmove(writer->buffer, writer->buffer + length, writer->length - length);
    writer->length -= length;
    writer->buffer_position += length;
    return true;
}

/* Room for `size` more bytes in the buffer (nothing is written). */
static bool ensure_room(writer_state *writer, size_t size)
{
    if (writer->length + size > writer->capacity) {
        size_t capacity = writer->capacity ? writer->capacity : 2 * WRITER_FLUSH_BYTES;
        while (capacity < writer->length + size) capacity *= 2;
        uint8_t *grown = realloc(writer->buffer, capacity);
        if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", writer->path);
        writer->buffer = grown;
        writer->capacity = capacity;
    }
    return true;
}

bool writer_reserve(writer_state *writer, size_t size, space_ref *out_position, uint8_t **out_bytes)
{
    if (writer->length >= WRITER_FLUSH_BYTES && !flush_writer(writer, false)) return false;
    if (!ensure_room(writer, size)) return false;
    *out_position = writer->buffer_position + writer->length;
    *out_bytes = writer->buffer + writer->length;
    writer->length += size;
    return true;
}

static uint64_t round_to_page(uint64_t position) { return (position + PAGE_SIZE_BYTES - 1) / PAGE_SIZE_BYTES * PAGE_SIZE_BYTES; }

static void encode_top(uint8_t *top, uint8_t width, const int64_t *values, size_t count)
{
    memset(top, 0, (size_t)node_size_for(width, count));
    node_encode_header(top, NODE_HAS_REFS, width, (uint32_t)count);
    for (size_t i = 0; i < count; i++) node_encode_element(top + NODE_HEADER_SIZE, width, i, values[i]);
}

static uint8_t width_of(const int64_t *values, size_t count)
{
    uint8_t width = 0;
    for (size_t i = 0; i < count; i++)
        if (node_width_for(values[i]) > width) width = node_width_for(values[i]);
    return width;
}

/* Where the directory (at `start`), the pages of checksums (`sums` of
 * them from `sums_at`) and the top node (ending at `end`) go. */
static void page_sums_layout(uint64_t start, uint64_t top_size, uint64_t *out_sums, uint64_t *out_sums_at,
                             uint64_t *out_end)
{
    uint64_t sums = 1, sums_at, end;
    for (;;) {
        sums_at = round_to_page(start + node_size_for(64, sums));
        end = sums_at + sums * PAGE_SIZE_BYTES + top_size;
        if (sums * PAGESUM_PAGE_ENTRIES >= round_to_page(end) / PAGE_SIZE_BYTES) break;
        sums++;
    }
    *out_sums = sums;
    *out_sums_at = sums_at;
    *out_end = end;
}

uint64_t writer_copy_size(const ce_db *source, uint64_t nodes_end)
{
    if (source->cipher.encrypted || (source->options.disable_page_checksums && !source->cipher.page_sums))
        return nodes_end + node_size_for(64, TOP_COUNT);
    uint64_t sums, sums_at, end;
    page_sums_layout(nodes_end, node_size_for(64, TOP_COUNT_PAGE_SUMS), &sums, &sums_at, &end);
    return round_to_page(end);
}

/* The end of a copy with page checksums: after the nodes, the directory
 * (its spare entries fill the nodes' last page: nothing unused is left
 * for ce_db_verify to call leaked), the pages of checksums on the page
 * boundaries after it, the top node, then zeros to the end of its page;
 * the entries are filled before any of these pages is written. */
static bool finish_with_page_sums(writer_state *writer, int64_t *top_values)
{
    uint64_t start = writer->buffer_position + writer->length; /* the directory's ref */
    top_values[TOP_PAGE_SUMS] = (int64_t)start;
    uint8_t width = width_of(top_values, TOP_COUNT_PAGE_SUMS);
    uint64_t top_size = node_size_for(width, TOP_COUNT_PAGE_SUMS);
    uint64_t sums, sums_at, end;
    page_sums_layout(start, top_size, &sums, &sums_at, &end);
    uint64_t directory_count = (sums_at - start - NODE_HEADER_SIZE) / 8;
    if (directory_count > INT32_MAX)
        return error_fail(CE_ERR_FAIL, "'%s' is too large for its page checksums", writer->path);
    /* No flush until the entries are filled: the pages of checksums stay
     * in the buffer. */
    size_t added = (size_t)(round_to_page(end) - start);
    if (!ensure_room(writer, added)) return false;
    uint8_t *bytes = writer->buffer + writer->length;
    memset(bytes, 0, added);
    writer->length += added;
    node_encode_header(bytes, NODE_HAS_REFS, 64, (uint32_t)directory_count);
    for (uint64_t k = 0; k < sums; k++)
        node_encode_element(bytes + NODE_HEADER_SIZE, 64, (size_t)k, (int64_t)(sums_at + k * PAGE_SIZE_BYTES));
    for (uint64_t k = 0; k < sums; k++)
        memcpy(bytes + (sums_at - start) + k * PAGE_SIZE_BYTES, PAGESUM_PAGE_HEADER, PAGESUM_HEADER_SIZE);
    encode_top(bytes + (end - top_size - start), width, top_values, TOP_COUNT_PAGE_SUMS);
    writer->info.top_ref = end - top_size;
    writer->info.logical_size = end;
    /* The checksums of the pages still in the buffer; the pages of
     * checksums themselves are not checked as pages (entry 0). */
    uint64_t first_page = writer->buffer_position / PAGE_SIZE_BYTES;
    if (!record_sums(writer, writer->length)) return false;
    for (uint64_t k = 0; k < sums; k++) writer->sums[sums_at / PAGE_SIZE_BYTES + k] = 0;
    uint64_t pages = round_to_page(end) / PAGE_SIZE_BYTES;
    for (uint64_t page = 0; page < pages; page++) {
        uint64_t at = sums_at + (page / PAGESUM_PAGE_ENTRIES) * PAGE_SIZE_BYTES;
        memcpy(writer->buffer + (at / PAGE_SIZE_BYTES - first_page) * PAGE_SIZE_BYTES + PAGESUM_HEADER_SIZE +
                   4 * (page % PAGESUM_PAGE_ENTRIES),
               &writer->sums[page], 4);
    }
    writer->sealed = true;
    return true;
}

bool writer_finish(writer_state *writer, uint64_t version, space_ref user_root, space_ref history)
{
    int64_t top_values[TOP_COUNT_PAGE_SUMS];
    top_values[TOP_USER_ROOT] = (int64_t)user_root;
    top_values[TOP_FREE_LIST] = 0; /* nothing is free in a compacted file */
    top_values[TOP_VERSION] = node_tag((int64_t)version);
    top_values[TOP_HISTORY] = (int64_t)history;
    writer->info.version = version;
    if (writer->page_sums) {
        if (!finish_with_page_sums(writer, top_values)) return false;
    } else {
        uint8_t width = width_of(top_values, TOP_COUNT);
        space_ref top_ref;
        uint8_t *top;
        if (!writer_reserve(writer, (size_t)node_size_for(width, TOP_COUNT), &top_ref, &top)) return false;
        encode_top(top, width, top_values, TOP_COUNT);
        writer->info.top_ref = top_ref;
        writer->info.logical_size = writer->buffer_position + writer->length;
    }
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
    free(writer->sums);
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
    if (!lockfile_hold_data_file(pager_fd(writer->pager), false, db->path, db->lock_path) ||
        (writer->page_sums && !db->options.disable_page_checksums && !pager_enable_page_sums(writer->pager))) {
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
    /* The identity queries made from now on remember (db_file_id); the
     * handle's token stays, so those made before go on working. */
    struct stat status;
    if (os_active->fstat(pager_fd(db->pager), &status) == 0) {
        db->file_device = (uint64_t)status.st_dev;
        db->file_inode = (uint64_t)status.st_ino;
    }
    db->cipher.page_sums = writer->page_sums; /* and the handle verifies them (above) */
    atomic_store(&db->shared->committing_version, 0);
    lockfile_publish_latest(db->shared, &writer->info);
    lockfile_note_confirmed(db, &writer->info); /* the slot the writer wrote */
    group_reset(db, &writer->info);             /* synced by writer_finish */
    release_writer_memory(writer);
    return os_sync_directory_of(db->path);
}
