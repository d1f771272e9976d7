#!/usr/bin/env bash
# End to end: `cdclake sample --delta` (the quick start's table) reads back as its history says:
# rows 1..5 were written, 2 was deleted through a deletion vector, `city` came later.
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" sample --delta "$dir/t"
rows=$("$bin" show "$dir/t" --order-by id --format csv)
[ "$rows" = $'id,name,amount,day,city\n1,Ada,12.50,2024-01-01,\n3,,999.99,2024-01-02,\n4,Edsger,,,\n5,Barbara,42.00,2024-01-02,Oslo' ] ||
  fail "rows: $rows"
v2=$("$bin" show "$dir/t" --version 2 --order-by id --format csv --columns id | tr '\n' ' ')
[ "$v2" = "id 1 2 3 4 " ] || fail "version 2: $v2"
changes=$("$bin" changes "$dir/t" --from 3 --to 3 --format csv)
grep -q '^2,Grace,-3.00,2024-01-01,delete,3,' <<<"$changes" || fail "changes: $changes"
"$bin" describe "$dir/t" | grep -qx "deleted rows (deletion vectors): 1" || fail "describe"
"$bin" check "$dir/t" | grep -q "^ok:" || fail "check"
if "$bin" sample --delta "$dir/t" 2>/dev/null; then fail "a second sample over the table must fail"; fi
echo "cli_sample_delta: ok"
