#!/bin/sh
# W10: notification latency, from a commit returning to the change set
# computed by an observer thread: (a) an object observer, (b) the 1M-object
# W3 results when one object changes, (c) when 1,000 change in one commit.
# Usage: Benchmarks/run_notify.sh [bench_notify options...]
#   e.g. Benchmarks/run_notify.sh --results-samples 50
# Defaults: --count 1000000 --object-samples 200 --results-samples 20, files
# in a temp dir on /work's file system.
exec "$(dirname "$0")/run.sh" bench_notify "$@"
