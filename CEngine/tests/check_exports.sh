#!/usr/bin/env bash
# check_exports.sh LIBRARY HEADER — the shared library exports exactly the
# functions cengine.h declares: no internal symbol leaks out (the engine is
# built with hidden visibility) and no public function is missing.
set -euo pipefail
library=$1
header=$2
cc=${CC:-cc}
declared=$(mktemp)
exported=$(mktemp)
trap 'rm -f "$declared" "$exported"' EXIT
# The header without comments, then every name followed by "(".
"$cc" -E -P -x c "$header" | grep -oE '\bce_[A-Za-z0-9_]+[[:space:]]*\(' | tr -d '( \t' | sort -u >"$declared"
nm -D --defined-only "$library" | awk '$2 ~ /^[TtWwDdBbRr]$/ {print $3}' | sort -u >"$exported"
status=0
extra=$(comm -13 "$declared" "$exported")
missing=$(comm -23 "$declared" "$exported")
if [ -n "$extra" ]; then
  echo "exported but not declared in cengine.h:"; echo "$extra" | sed 's/^/  /'; status=1
fi
if [ -n "$missing" ]; then
  echo "declared in cengine.h but not exported:"; echo "$missing" | sed 's/^/  /'; status=1
fi
[ $status -eq 0 ] && echo "exports: $(wc -l <"$exported") symbols, exactly cengine.h's functions"
exit $status
