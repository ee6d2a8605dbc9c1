#!/usr/bin/env bash
# Runs the demo on ./openrealm-demo.realm (or the file given); it replaces the files of its previous run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift run openrealm demo "$@"
