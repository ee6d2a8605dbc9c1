#!/bin/sh
# W1, W2, W4, W6 (insert, point lookups, sum, update of 1M Persons) through the
# engine's public object-store API, against SQLite WAL, LMDB and the
# in-memory C-array bound.
# Usage: Benchmarks/run_objects.sh [bench_objects options...]
#   e.g. Benchmarks/run_objects.sh --reps 5 --systems ours,ours-sets,sqlite,lmdb,array
# Defaults: --count 1000000 --lookups 1000000 --w4-runs 5 --reps 5, files in
# a temp dir on /work's file system.
exec "$(dirname "$0")/run.sh" bench_objects "$@"
