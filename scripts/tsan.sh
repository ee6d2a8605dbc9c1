#!/usr/bin/env bash
# Runs the Swift tests under ThreadSanitizer (`swift test --sanitize=thread`), in a build folder
# of their own (.build-tsan, git-ignored) so that the ordinary build is not rebuilt.
#
# Usage: scripts/tsan.sh [test filter]
#   scripts/tsan.sh                                   # every Swift test (slow: see below)
#   scripts/tsan.sh 'ActorRealmTests|AsyncWriteTests'  # some suites
# Exit tests (`#expect(processExitsWith:)`) run their bodies in child processes, which are
# instrumented too. A data race makes ThreadSanitizer print a report and the run fail
# (TSAN_OPTIONS halt_on_error=1). Takes -j 2 (the machines it runs on are shared).
#
# Not in CI: under ThreadSanitizer the Swift tests take several times as long as without it.
set -euo pipefail
cd "$(dirname "$0")/.."
filter=${1:-}
scratch=.build-tsan
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
start=$(date +%s)
swift build --build-tests --sanitize=thread -j 2 --scratch-path "$scratch"
args=(--skip-build --sanitize=thread --scratch-path "$scratch")
if [ -n "$filter" ]; then args+=(--filter "$filter"); fi
swift test "${args[@]}"
echo "tsan.sh: passed in $(( $(date +%s) - start )) s (build included)"
