#!/bin/sh
# W3 (count where age >= 50 AND score < 0.5), an indexed equality query and a
# sort of 1M Persons through the query engine, against SQLite WAL, LMDB and
# the in-memory C-array bound.
# Usage: Benchmarks/run_queries.sh [bench_queries options...]
#   e.g. Benchmarks/run_queries.sh --reps 5
# Defaults: --count 1000000 --w3-runs 20 --lookups 100000 --reps 5, files in a
# temp dir on /work's file system.
exec "$(dirname "$0")/run.sh" bench_queries "$@"
