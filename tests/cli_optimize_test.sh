#!/usr/bin/env bash
# End to end: `cdclake optimize` on targets written by `cdclake apply` (deletion vectors and
# copy-on-write): rows unchanged, fewer files, deleted rows dropped, vacuum keeps the key index,
# and later applies still land on the right rows (the key index followed the moved rows).
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "expected [$2] in [$1]"; }
apply() {
  "$bin" apply --target "$1" --keys id --sequence-by seq --except op,seq \
    --delete-when "op = 'D'" "${@:2}" >/dev/null
}

for mode in dv cow; do
  t=$dir/$mode
  props=()
  [ $mode = cow ] && props=(--property delta.enableDeletionVectors=false)
  # Ten batches: 20 keys, then one update or delete per batch, so files stay small.
  { echo "id,name,op,seq"; for k in $(seq 1 20); do echo "$k,v$k,U,1"; done; } >"$dir/b0.csv"
  apply "$t" "${props[@]}" "$dir/b0.csv"
  for b in $(seq 1 9); do
    op=U; [ $((b % 3)) -eq 0 ] && op=D
    printf 'id,name,op,seq\n%d,w%d,%s,%d\n' "$b" "$b" "$op" $((b + 1)) >"$dir/b$b.csv"
    apply "$t" "${props[@]}" "$dir/b$b.csv"
  done
  before=$("$bin" show "$t" --format csv --order-by id)
  [ "$(wc -l <<<"$before")" -eq 18 ] || fail "$mode: 17 rows and a header expected: $before"
  out=$("$bin" optimize "$t")
  expect_in "$out" "into 1 ("
  [ "$("$bin" show "$t" --format csv --order-by id)" = "$before" ] || fail "$mode: rows changed"
  expect_in "$("$bin" check "$t")" "ok: 1 files checked"
  expect_in "$("$bin" optimize "$t")" "nothing to compact"
  # Vacuum with no retention removes the old files, never _cdclake/.
  "$bin" vacuum "$t" --retain-hours 0 >/dev/null
  [ -d "$t/_cdclake/index_log" ] || fail "$mode: vacuum removed the index log"
  # The index knows where every row went: update 20, delete 2, and an older event for 5.
  printf 'id,name,op,seq\n20,after,U,50\n2,,D,50\n5,stale,U,1\n' >"$dir/after.csv"
  apply "$t" "${props[@]}" "$dir/after.csv"
  got=$("$bin" show "$t" --format csv --order-by id)
  want=$(sed -e 's/^20,v20$/20,after/' -e '/^2,/d' <<<"$before")
  [ "$got" = "$want" ] || fail "$mode: after optimize: got [$got] want [$want]"
  # And after the index is deleted (rebuilt from the index log).
  rm -rf "$t/_cdclake/index"
  printf 'id,name,op,seq\n7,again,U,60\n' >"$dir/again.csv"
  apply "$t" "${props[@]}" "$dir/again.csv"
  expect_in "$("$bin" show "$t" --format csv --order-by id)" "7,again"
  [ "$("$bin" show "$t" --format csv | wc -l)" -eq "$(wc -l <<<"$want")" ] || fail "$mode: row count"
done
echo "cli optimize: ok"
