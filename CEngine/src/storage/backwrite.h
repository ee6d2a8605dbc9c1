/*
 * backwrite.h — writing a streamed commit's pieces on a thread of their
 * own, while the committing thread places the next ones.
 *
 * Owns: the writing thread of one commit, the two buffers it writes from
 * (a piece is copied into one, so the caller's buffer is free at once),
 * and the first error it met.
 * Never: reorders writes (pieces reach pager_write_runs one at a time, in
 * the order they were given), writes after a piece failed, or outlives
 * backwrite_finish.
 *
 * For a plain file only: pager_write_runs of an encrypted file uses the
 * cipher, which the committing thread may use at the same time. While a
 * writer runs, nothing else may write through the pager (the committing
 * thread places nodes; the commit's other writes come after
 * backwrite_finish).
 */
#ifndef CE_BACKWRITE_H
#define CE_BACKWRITE_H

#include "pager.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct backwrite_state backwrite_state;

/* Starts the thread. False (with the error) if it cannot start: the caller
 * writes the pieces itself then. */
bool backwrite_start(pager_state *pager, backwrite_state **out_writer);

/* Copies the bytes of `runs` and queues them, waiting while the thread is
 * still writing one piece and another is queued. False with the error of
 * a piece that failed before (then nothing more is written). */
bool backwrite_put(backwrite_state *writer, const pager_write_run *runs, size_t count);

/* Waits until every piece is written, ends the thread and frees the
 * writer (NULL: nothing). False with the error of the first piece that
 * failed. */
bool backwrite_finish(backwrite_state *writer);

#endif
