#!/usr/bin/env bash
# Fails when a module includes a module on its own row or above (ARCHITECTURE.md's table):
# each module may include only modules on lower rows, and cli only the public headers.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A row=([base]=0 [io]=1 [json]=1 [data]=1 [parquet]=2 [change]=2 [sql]=2
                [delta]=3 [sources]=3 [apply]=4 [pipeline]=5 [server]=6 [cli]=7)
status=0
for dir in src/*/; do
  mod=$(basename "$dir")
  [ -n "${row[$mod]+x}" ] || { echo "unknown module src/$mod (add it to tests/check_includes.sh)"; status=1; continue; }
  while IFS=: read -r file _ inc; do
    target=$(sed -E 's/.*#include "([^/"]+)\/.*/\1/' <<<"$inc")
    [ "$target" = "$mod" ] && continue
    if [ "$mod" = cli ]; then
      [ "$target" = cdclake ] || { echo "$file: cli includes $target (only cdclake/ public headers)"; status=1; }
      continue
    fi
    [ "$target" = cdclake ] && { echo "$file: modules must not include the public headers"; status=1; continue; }
    if [ -z "${row[$target]+x}" ]; then echo "$file: includes unknown module $target"; status=1; continue; fi
    if [ "${row[$target]}" -ge "${row[$mod]}" ]; then
      echo "$file: $mod (row ${row[$mod]}) includes $target (row ${row[$target]})"; status=1
    fi
  done < <(grep -rnE '^#include "[^"]+/' "$dir" || true)
done
# The Python module (python/module/) is a client of the engine, as cli is: public headers only.
while IFS=: read -r file _ inc; do
  target=$(sed -E 's/.*#include "([^/"]+)\/.*/\1/' <<<"$inc")
  [ "$target" = cdclake ] || { echo "$file: the Python module includes $target (only cdclake/ public headers)"; status=1; }
done < <(find python \( -name '*.cc' -o -name '*.h' \) -exec grep -HnE '^#include "[^"]+/' {} + || true)
[ $status -eq 0 ] && echo "include directions: ok"
exit $status
