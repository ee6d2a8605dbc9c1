#!/usr/bin/env bash
# Runs the demo on ./default.realm (or the file given).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift run openrealm demo "$@"
