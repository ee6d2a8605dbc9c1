#!/bin/sh
# W12 of docs/BENCHMARKS.md: the engine, SQLite and LMDB at N objects (10M,
# 100M; 1M for the baseline in the same conditions), each system in its own
# process so that the peak RSS printed is its own:
#   bench_objects --count N: W1, W2 (warm), W4, W9 (ours: open the existing
#     file + read one object, page cache warm), the cold pass (the file's
#     pages dropped by posix_fadvise DONTNEED, a cold open, the first
#     --cold-lookups of W2's stream), W6, file sizes, peak RSS;
#   bench_queries --count N --no-sort: W3 (and W3i), peak RSS.
# Builds build-bench/ in Release (-j2), runs each program under `chrt -f 1`
# when it can, and, when BENCH_LOCK names a lock file, under
# `flock "$BENCH_LOCK"`, held for one program at a time.
#
# Usage: Benchmarks/run_scale.sh N [SYSTEMS]
#   N        objects, e.g. 1000000, 10000000 or 100000000
#   SYSTEMS  a comma-separated subset of ours,sqlite,lmdb,array (default
#            ours,sqlite,lmdb; array is the in-memory C-array bound of W2-W4)
# Environment: BENCH_LOCK (a lock file shared by the machine's benchmark
#   runs), SCALE_OPTIONS (more options for bench_objects, e.g. --dir DIR).
set -eu

count=${1:?usage: Benchmarks/run_scale.sh N [ours,sqlite,lmdb,array]}
systems=${2:-ours,sqlite,lmdb}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCENGINE_BUILD_TESTS=OFF -DCENGINE_BUILD_FUZZERS=OFF >/dev/null
cmake --build build-bench -j2 --target bench_objects bench_queries >/dev/null

revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- CEngine/src 2>/dev/null)" ]; then
    revision="$revision + uncommitted changes in CEngine/src"
fi
echo "engine source: $revision"
echo "objects: $count; systems: $systems; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

chrt=""
if chrt -f 1 true 2>/dev/null; then
    chrt="chrt -f 1"
else
    echo "note: chrt -f 1 failed (not root?): running without it; figures are noisier"
fi

# One program, under the lock when there is one.
run() {
    echo
    echo "command: $chrt $*"
    if [ -n "${BENCH_LOCK:-}" ]; then
        flock "$BENCH_LOCK" $chrt "$@"
    else
        $chrt "$@"
    fi
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

w4_runs=5
w3_runs=20
if [ "$count" -gt 1000000 ]; then
    w4_runs=3 # SQLite's sum and LMDB's walk are seconds each at this size
    w3_runs=5
fi

for system in $(echo "$systems" | tr ',' ' '); do
    opens=""
    [ "$system" = ours ] && opens="--opens 21"
    run build-bench/Benchmarks/bench_objects --count "$count" --reps 1 --systems "$system" \
        --lookups 1000000 --w4-runs "$w4_runs" $opens --cold-lookups 10000 ${SCALE_OPTIONS:-}
done
for system in $(echo "$systems" | tr ',' ' '); do
    run build-bench/Benchmarks/bench_queries --count "$count" --reps 1 --systems "$system" \
        --w3-runs "$w3_runs" --lookups 10000 --no-sort
done
