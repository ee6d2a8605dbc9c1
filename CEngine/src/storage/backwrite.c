/*
 * backwrite.c — a streamed commit's pieces written on a thread of their
 * own (see backwrite.h).
 *
 * Owns: the writing thread, its two buffers and the first error it met.
 * Never: reorders writes, writes after a failure, or outlives
 * backwrite_finish.
 *
 * At 100M objects the copy of a commit into the page cache (pwrite) takes
 * as long as placing its nodes again: on a thread of its own it overlaps
 * the placing of the next window. A piece is in one of two buffers: the
 * one being written and at most one queued; the committing thread fills
 * the other one (never the one the thread writes) and waits only when one
 * is queued already.
 */
#include "backwrite.h"
#include "error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct piece {
    uint8_t *bytes;
    size_t capacity;
    pager_write_run *runs;
    size_t run_count, run_capacity;
} piece;

struct backwrite_state {
    pager_state *pager;
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    piece pieces[2];
    int writing; /* the piece the thread writes, or -1 */
    int queued;  /* the piece waiting for it, or -1 */
    bool stop;   /* no more pieces: the thread ends once the queue is empty */
    bool failed;
    error_saved error; /* of the piece that failed */
};

static void *write_pieces(void *argument)
{
    backwrite_state *writer = argument;
    pthread_mutex_lock(&writer->mutex);
    for (;;) {
        while (writer->queued < 0 && !writer->stop) pthread_cond_wait(&writer->changed, &writer->mutex);
        if (writer->queued < 0) break;
        writer->writing = writer->queued;
        writer->queued = -1;
        pthread_cond_broadcast(&writer->changed);
        bool skip = writer->failed;
        pthread_mutex_unlock(&writer->mutex);
        const piece *current = &writer->pieces[writer->writing];
        bool ok = skip || pager_write_runs(writer->pager, current->runs, current->run_count);
        error_saved error;
        if (!ok) error_save(&error);
        pthread_mutex_lock(&writer->mutex);
        if (!ok && !writer->failed) {
            writer->failed = true;
            writer->error = error;
        }
        writer->writing = -1;
        pthread_cond_broadcast(&writer->changed);
    }
    pthread_mutex_unlock(&writer->mutex);
    return NULL;
}

bool backwrite_start(pager_state *pager, backwrite_state **out_writer)
{
    backwrite_state *writer = calloc(1, sizeof *writer);
    if (!writer) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory starting a commit's writer");
    writer->pager = pager;
    writer->writing = writer->queued = -1;
    if (pthread_mutex_init(&writer->mutex, NULL) != 0) {
        free(writer);
        return error_fail(CE_ERR_FAIL, "cannot start a commit's writer (mutex)");
    }
    if (pthread_cond_init(&writer->changed, NULL) != 0) {
        pthread_mutex_destroy(&writer->mutex);
        free(writer);
        return error_fail(CE_ERR_FAIL, "cannot start a commit's writer (condition)");
    }
    if (pthread_create(&writer->thread, NULL, write_pieces, writer) != 0) {
        pthread_cond_destroy(&writer->changed);
        pthread_mutex_destroy(&writer->mutex);
        free(writer);
        return error_fail(CE_ERR_FAIL, "cannot start a commit's writer (thread)");
    }
    *out_writer = writer;
    return true;
}

bool backwrite_put(backwrite_state *writer, const pager_write_run *runs, size_t count)
{
    pthread_mutex_lock(&writer->mutex);
    while (writer->queued >= 0 && !writer->failed) pthread_cond_wait(&writer->changed, &writer->mutex);
    bool failed = writer->failed;
    error_saved error = writer->error;
    int free_piece = writer->writing == 0 ? 1 : 0;
    pthread_mutex_unlock(&writer->mutex);
    if (failed) return error_restore(&error);
    /* Neither written nor queued: the thread does not touch it. */
    piece *target = &writer->pieces[free_piece];
    size_t total = 0;
    for (size_t i = 0; i < count; i++) total += runs[i].length;
    if (total > target->capacity) {
        uint8_t *grown = realloc(target->bytes, total);
        if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing a commit (%zu bytes)", total);
        target->bytes = grown;
        target->capacity = total;
    }
    if (count > target->run_capacity) {
        pager_write_run *grown = realloc(target->runs, count * sizeof *grown);
        if (!grown) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory writing a commit");
        target->runs = grown;
        target->run_capacity = count;
    }
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        memcpy(target->bytes + at, runs[i].bytes, runs[i].length);
        target->runs[i] = (pager_write_run){runs[i].position, target->bytes + at, runs[i].length};
        at += runs[i].length;
    }
    target->run_count = count;
    pthread_mutex_lock(&writer->mutex);
    writer->queued = free_piece;
    pthread_cond_broadcast(&writer->changed);
    pthread_mutex_unlock(&writer->mutex);
    return true;
}

bool backwrite_finish(backwrite_state *writer)
{
    if (!writer) return true;
    pthread_mutex_lock(&writer->mutex);
    writer->stop = true;
    pthread_cond_broadcast(&writer->changed);
    pthread_mutex_unlock(&writer->mutex);
    pthread_join(writer->thread, NULL);
    bool ok = !writer->failed || error_restore(&writer->error);
    for (int i = 0; i < 2; i++) {
        free(writer->pieces[i].bytes);
        free(writer->pieces[i].runs);
    }
    pthread_cond_destroy(&writer->changed);
    pthread_mutex_destroy(&writer->mutex);
    free(writer);
    return ok;
}
