#!/bin/sh
# W7, W8, W9 (the engine with and without a 64-byte key against SQLCipher
# with and without a key; writeCopy and compaction; open + one read).
# Usage: Benchmarks/run_crypt.sh [bench_crypt options...]
#   e.g. Benchmarks/run_crypt.sh --reps 5 --systems ours,ours-key,sqlcipher,sqlcipher-key
# Defaults: --count 1000000 --lookups 1000000 --w3-runs 20 --w4-runs 5
# --w9-opens 21 --w9-small 10000 --reps 5, files in a temp dir on /work's
# file system.
exec "$(dirname "$0")/run.sh" bench_crypt "$@"
