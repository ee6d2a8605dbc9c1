#!/bin/sh
# W1, W2, W4, W6 (insert, point lookups, sum, update of 1M Persons) through the
# engine's public object-store API, against SQLite WAL, LMDB and the
# in-memory C-array bound.
#
# Builds the benchmarks in Release (build-bench/, -j2 at most: the machine is
# shared) and runs bench_objects under `chrt -f 1` (SCHED_FIFO, needs root),
# as BENCHMARKS.md asks for durable-commit figures. Results go to stdout.
#
# Usage: Benchmarks/run_objects.sh [bench_objects options...]
#   e.g. Benchmarks/run_objects.sh --reps 5 --systems ours,ours-sets,sqlite,lmdb,array
# Defaults: --count 1000000 --lookups 1000000 --w4-runs 5 --reps 5, files in
# a temp dir on /work's file system.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCENGINE_BUILD_TESTS=OFF -DCENGINE_BUILD_FUZZERS=OFF >/dev/null
cmake --build build-bench -j2 --target bench_objects >/dev/null

bench=build-bench/Benchmarks/bench_objects
if [ ! -x "$bench" ]; then
    echo "run_objects.sh: $bench was not built (are libsqlite3-dev and liblmdb-dev installed? see the cmake output)" >&2
    exit 1
fi

revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- CEngine/src 2>/dev/null)" ]; then
    revision="$revision + uncommitted changes in CEngine/src"
fi
echo "engine source: $revision"
echo "command: chrt -f 1 $bench $*"
if chrt -f 1 true 2>/dev/null; then
    exec chrt -f 1 "$bench" "$@"
else
    echo "note: chrt -f 1 failed (not root, or no real-time scheduling here): running without it;"
    echo "      durable-commit figures are noisier when both cores are busy"
    exec "$bench" "$@"
fi
