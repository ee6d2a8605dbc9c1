/*
 * bench_notify.c — W10 of docs/BENCHMARKS.md: how long a commit takes to
 * reach an observer as a computed change set, through cengine.h's
 * "Changes and notifications".
 *
 * Person { id: int64 primary key, name: string, age: int, score: double },
 * --count objects (default 1M) as in the other programs (bench_common.c),
 * loaded once (untimed). Two threads: a writer commits (durably, the
 * default durability), an observer waits for the new version
 * (ce_db_wait_for_change: it sleeps on the lock file's futex), reads it (ce_txn_advance of its newer read
 * transaction), and computes; the writer waits for the observer before its
 * next commit. Latency: from the writer's ce_txn_commit returning to the
 * observer having the change set; the commit's own time is printed beside.
 *   (a) object: one commit sets one object's score; the observer computes
 *       ce_changes_compute + ce_changes_object of that object. µs,
 *       --object-samples commits (default 200).
 *   (b) results: a results view of W3's predicate `age >= 50 AND score <
 *       0.5` (about 25% of the objects) observed with
 *       ce_results_observer_*; one commit sets one object's score (to 1 -
 *       score: it may enter or leave the view); the observer computes
 *       ce_changes_compute + ce_results_observer_update. ms,
 *       --results-samples commits (default 20).
 *   (c) the same with 1,000 objects set in one commit.
 * Each figure is the median of its samples, with their spread; beside
 * it the medians of the commit, of ce_changes_compute and of the
 * observer's own part (ce_changes_object or ce_results_observer_update),
 * and how many change sets came from the history
 * (ce_changes_used_history). Targets (docs/BENCHMARKS.md, W10): (a) <= 50 µs, (b) <= 5 ms,
 * (c) <= 10 ms.
 *
 * Usage: bench_notify [--count N] [--object-samples N] [--results-samples N] [--no-sync] [--dir DIR]
 * Build it in Release and run it under `chrt -f 1` (Benchmarks/run_notify.sh).
 */
#include "bench_common.h"
#include "cengine.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SAMPLES 10000
#define BATCH 1000

typedef enum mode { MODE_OBJECT, MODE_RESULTS_ONE, MODE_RESULTS_BATCH } mode;

typedef struct bench {
    ce_db *db;
    ce_table_key table;
    ce_column_key score;
    ce_object_key *keys; /* object i's key */
    size_t count;
    /* The current round, between the two threads. */
    mode mode;
    size_t samples;
    _Atomic uint64_t committed_at; /* ns when ce_txn_commit returned; 0: none pending */
    uint64_t commit_called_at;     /* ns when ce_txn_commit was called (set before it) */
    _Atomic bool done_round;       /* the observer has the change set */
    double latency[MAX_SAMPLES], from_call[MAX_SAMPLES], woken[MAX_SAMPLES], commit[MAX_SAMPLES];
    double compute[MAX_SAMPLES], update[MAX_SAMPLES]; /* µs: ce_changes_compute, then the observer's own part */
    size_t used_history, changed_elements;
    ce_object_key watched; /* MODE_OBJECT: the object set */
} bench;

static void load(bench *b, const char *dir, bool no_sync)
{
    char *path = join_path(dir, "person.realm");
    ce_db_options options;
    ce_db_options_init(&options);
    if (no_sync) options.durability = CE_DURABILITY_UNSAFE_NO_SYNC;
    ours_check(ce_db_open(path, &options, &b->db), "ce_db_open");
    free(path);
    ce_txn *txn;
    ce_column_key column;
    ours_check(ce_txn_begin_write(b->db, &txn), "begin write");
    ours_check(ce_table_add(txn, "Person", &b->table), "ce_table_add");
    const ce_property_info properties[4] = {{.name = "id", .type = CE_TYPE_INT, .primary_key = true},
                                            {.name = "name", .type = CE_TYPE_STRING},
                                            {.name = "age", .type = CE_TYPE_INT},
                                            {.name = "score", .type = CE_TYPE_DOUBLE}};
    for (int p = 0; p < 4; p++) {
        ours_check(ce_property_add(txn, b->table, &properties[p], &column), "ce_property_add");
        if (p == 3) b->score = column;
    }
    b->keys = malloc(b->count * sizeof *b->keys);
    ours_check(b->keys != NULL, "memory for the keys");
    for (size_t i = 0; i < b->count; i++) {
        person p;
        person_make(i, &p);
        ce_value values[4] = {{.type = CE_TYPE_INT, .integer = p.id},
                              {.type = CE_TYPE_STRING, .string = {p.name, p.name_length}},
                              {.type = CE_TYPE_INT, .integer = p.age},
                              {.type = CE_TYPE_DOUBLE, .double_value = p.score}};
        ours_check(ce_object_create_with_values(txn, b->table, values, 4, &b->keys[i]), "ce_object_create_with_values");
    }
    ours_check(ce_txn_commit(txn), "commit");
}

/* The writer's side of one round: the objects of sample `s` get score
 * 1 - score. */
static void write_sample(bench *b, size_t s)
{
    size_t changed = b->mode == MODE_RESULTS_BATCH ? BATCH : 1;
    ce_txn *txn;
    ours_check(ce_txn_begin_write(b->db, &txn), "begin write");
    for (size_t k = 0; k < changed; k++) {
        ce_object_key key = b->keys[(splitmix64(s * BATCH + k) ^ 0x7E57) % b->count];
        ce_value score;
        ours_check(ce_object_get(txn, b->table, key, b->score, &score), "ce_object_get");
        score.double_value = 1 - score.double_value;
        ours_check(ce_object_set(txn, b->table, key, b->score, &score), "ce_object_set");
        if (k == 0) b->watched = key;
    }
    uint64_t t0 = now_ns();
    b->commit_called_at = t0;
    ours_check(ce_txn_commit(txn), "commit");
    uint64_t t1 = now_ns();
    b->commit[s] = (double)(t1 - t0) / 1e3;
    atomic_store(&b->done_round, false);
    atomic_store(&b->committed_at, t1);
    while (!atomic_load(&b->done_round)) sched_yield();
}

/* The observer: `before` reads the version it last reported, `after` the
 * next one. */
static void *observe(void *context)
{
    bench *b = context;
    ce_txn *before, *after;
    ours_check(ce_txn_begin_read(b->db, &before), "observer begin read");
    ours_check(ce_txn_begin_read(b->db, &after), "observer begin read");
    ce_query *query = NULL;
    ce_results *results = NULL;
    ce_results_observer *observer = NULL;
    if (b->mode != MODE_OBJECT) {
        ours_check(ce_query_parse(before, b->table, "age >= 50 AND score < 0.5", NULL, 0, &query), "ce_query_parse");
        ours_check(ce_query_find_all(query, &results), "ce_query_find_all");
        ours_check(ce_results_observer_create(results, before, NULL, &observer), "ce_results_observer_create");
    }
    for (size_t s = 0; s < b->samples; s++) {
        bool changed = false;
        while (!changed)
            ours_check(ce_db_wait_for_change(b->db, ce_txn_version(before), -1, &changed), "ce_db_wait_for_change");
        uint64_t wake = now_ns();
        ours_check(ce_txn_advance(after), "ce_txn_advance");
        ce_changes *changes;
        uint64_t t0 = now_ns();
        ours_check(ce_changes_compute(before, after, &changes), "ce_changes_compute");
        uint64_t t1 = now_ns();
        if (b->mode == MODE_OBJECT) {
            ce_object_change_kind kind;
            ce_column_key columns[4];
            size_t column_count;
            ours_check(ce_changes_object(changes, b->table, b->watched, &kind, columns, 4, &column_count),
                       "ce_changes_object");
            ours_check(kind == CE_OBJECT_MODIFIED && column_count == 1 && columns[0] == b->score,
                       "the object's change (modified, score)");
            b->changed_elements += column_count;
        } else {
            ce_collection_change change;
            ours_check(ce_results_observer_update(observer, changes, &change), "ce_results_observer_update");
            b->changed_elements += change.deletion_count + change.insertion_count + change.modification_count;
            ce_collection_change_free(&change);
        }
        uint64_t done = now_ns(), committed;
        b->compute[s] = (double)(t1 - t0) / 1e3;
        b->update[s] = (double)(done - t1) / 1e3;
        while ((committed = atomic_load(&b->committed_at)) == 0) sched_yield();
        b->latency[s] = done > committed ? (double)(done - committed) / 1e3 : 0;
        b->from_call[s] = (double)(done - b->commit_called_at) / 1e3;
        b->woken[s] = (double)(done - wake) / 1e3;
        b->used_history += ce_changes_used_history(changes);
        ce_changes_free(changes);
        /* `after` becomes the reported version; `before` reads it next. */
        ce_txn *swap = before;
        before = after;
        after = swap;
        ours_check(ce_txn_advance(after), "ce_txn_advance");
        atomic_store(&b->committed_at, 0);
        atomic_store(&b->done_round, true);
    }
    ce_results_observer_free(observer);
    ce_results_free(results);
    ce_query_free(query);
    ce_txn_end(before);
    ce_txn_end(after);
    return NULL;
}

static void run_round(bench *b, mode m, size_t samples)
{
    b->mode = m;
    b->samples = samples;
    b->used_history = b->changed_elements = 0;
    atomic_store(&b->committed_at, 0);
    atomic_store(&b->done_round, true);
    pthread_t thread;
    if (pthread_create(&thread, NULL, observe, b) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        exit(1);
    }
    /* Let the observer create its view before the first commit. */
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    for (size_t s = 0; s < samples; s++) write_sample(b, s);
    pthread_join(thread, NULL);
}

static void usage(const char *program)
{
    fprintf(stderr, "usage: %s [--count N] [--object-samples N] [--results-samples N] [--no-sync] [--dir DIR]\n", program);
    exit(2);
}

int main(int argc, char **argv)
{
    size_t count = 1000000, object_samples = 200, results_samples = 20;
    const char *base_dir = NULL;
    bool no_sync = false;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--count") == 0 && a + 1 < argc) count = strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--object-samples") == 0 && a + 1 < argc) object_samples = strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--results-samples") == 0 && a + 1 < argc) results_samples = strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--dir") == 0 && a + 1 < argc) base_dir = argv[++a];
        else if (strcmp(argv[a], "--no-sync") == 0) no_sync = true;
        else usage(argv[0]);
    }
    if (count < BATCH || object_samples == 0 || object_samples > MAX_SAMPLES || results_samples == 0 ||
        results_samples > MAX_SAMPLES)
        usage(argv[0]);

    char *run_dir = make_run_dir(base_dir, "notify");
    printf("W10 (notification latency, commit -> change set computed): %zu Person objects, %s commits;\n"
           "(a) one object set, %zu commits; (b) one object of the W3 results set, (c) %d objects set, %zu commits each\n",
           count, no_sync ? "unsynced" : "durable", object_samples, BATCH, results_samples);
    print_run_header(run_dir, "noisier");
    printf("engine:      OpenRealm %s, cengine.h changes and notifications; the observer sleeps in ce_db_wait_for_change\n\n",
           ce_engine_version());
    fflush(stdout);

    bench *b = calloc(1, sizeof *b);
    ours_check(b != NULL, "memory");
    b->count = count;
    uint64_t t0 = now_ns();
    load(b, run_dir, no_sync);
    printf("loaded in %.2f s\n\n", seconds_since(t0));

    static const char *const names[3] = {"(a) object observer", "(b) W3 results, 1 object set",
                                         "(c) W3 results, 1,000 objects set"};
    static const char *const units[3] = {"µs", "ms", "ms"};
    static const char *const targets[3] = {"<= 50 µs", "<= 5 ms", "<= 10 ms"};
    printf("| measure | from commit returned: median [min–max] | from commit called | wake-up to change set | "
           "commit | ce_changes_compute | observer's part | samples | from history | target |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (int m = 0; m < 3; m++) {
        size_t samples = m == MODE_OBJECT ? object_samples : results_samples;
        run_round(b, (mode)m, samples);
        /* (a) in µs, (b) and (c) in ms; the parts always in µs. */
        double scale = m == MODE_OBJECT ? 1 : 1e-3;
        for (size_t s = 0; s < samples; s++) b->latency[s] *= scale, b->from_call[s] *= scale, b->woken[s] *= scale;
        spread latency = spread_of(b->latency, samples);
        double from_call = median_of(b->from_call, samples), woken = median_of(b->woken, samples),
               commit = median_of(b->commit, samples), compute = median_of(b->compute, samples),
               update = median_of(b->update, samples);
        printf("| %s | %.3f %s [%.3f–%.3f] | %.3f %s | %.3f %s | %.1f µs | %.1f µs | %.1f µs | %zu | %zu | %s |\n", names[m],
               latency.median, units[m], latency.min, latency.max, from_call, units[m], woken, units[m], commit, compute,
               update, samples, b->used_history, targets[m]);
        fflush(stdout);
        if (b->changed_elements == 0) {
            fprintf(stderr, "%s: no change was reported\n", names[m]);
            return 1;
        }
    }
    ours_check(ce_db_close(b->db), "ce_db_close");
    free(b->keys);
    free(b);
    end_run_dir(run_dir, false);
    free(run_dir);
    return 0;
}
