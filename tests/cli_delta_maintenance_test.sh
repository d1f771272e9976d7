#!/usr/bin/env bash
# End to end: `cdclake check` and `cdclake vacuum` on copies of real tables (../shared/testdata):
# retention, dry run against real run, live and log files kept; check exit codes and problems.
set -euo pipefail
bin=$1
data=$2/testdata/delta
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "expected [$2] in [$1]"; }
listing() { (cd "$1" && find . -type f | sort); }

# A Spark table with seven removed files still on disk (copies are as new as now).
t=$dir/inserts-deletes
cp -r "$data/golden-basic-with-inserts-deletes-checkpoint/delta" "$t"
expect_in "$("$bin" check "$t")" "ok: 7 files checked"
rows=$("$bin" show "$t" --format csv --order-by id)
log=$(listing "$t/_delta_log")
before=$(listing "$t")

# The default retention (one week) keeps everything: the files are minutes old.
out=$("$bin" vacuum "$t")
expect_in "$out" "deleted 0 files (0 bytes) of 14 scanned; version 13, retention 168 hours"

# A dry run with no retention lists the removed files and deletes nothing.
dry=$("$bin" vacuum "$t" --retain-hours 0 --dry-run)
expect_in "$dry" "dry run: would delete 7 files (3701 bytes) of 14 scanned"
[ "$(grep -c '^would delete: part-' <<<"$dry")" -eq 7 ] || fail "dry run lists 7 files: $dry"
[ "$(listing "$t")" = "$before" ] || fail "the dry run deleted files"

# The real run deletes exactly those; the log, the live files and the rows stay.
real=$("$bin" vacuum "$t" --retain-hours 0)
expect_in "$real" "deleted 7 files (3701 bytes) of 14 scanned"
[ "$(grep '^deleted: ' <<<"$real" | sed 's/^deleted: //')" = "$(grep '^would delete: ' <<<"$dry" | sed 's/^would delete: //')" ] ||
  fail "the real run deleted other files than the dry run listed"
[ "$(listing "$t/_delta_log")" = "$log" ] || fail "vacuum touched _delta_log"
[ "$("$bin" show "$t" --format csv --order-by id)" = "$rows" ] || fail "rows changed"
expect_in "$("$bin" check "$t")" "ok: 7 files checked"

# An old orphan goes with the default retention; hidden and '_' names are never touched.
touch "$t/orphan.parquet" "$t/.hidden.parquet" "$t/_SUCCESS"
mkdir -p "$t/_tmp" && touch "$t/_tmp/x.parquet"
touch -d '10 days ago' "$t/orphan.parquet" "$t/.hidden.parquet" "$t/_SUCCESS" "$t/_tmp/x.parquet"
out=$("$bin" vacuum "$t")
expect_in "$out" "deleted: orphan.parquet"
expect_in "$out" "deleted 1 files"
for f in .hidden.parquet _SUCCESS _tmp/x.parquet; do [ -f "$t/$f" ] || fail "vacuum deleted $f"; done
[ ! -e "$t/orphan.parquet" ] || fail "orphan kept"

if err=$("$bin" vacuum "$t" --retain-hours -1 2>&1); then fail "negative retention accepted"; fi
expect_in "$err" "non-negative"

# check: a missing file and a wrong size, each named, exit code 1.
first=$(ls "$t" | grep '^part-' | head -1)
second=$(ls "$t" | grep '^part-' | sed -n 2p)
rm "$t/$first"
printf 'more' >>"$t/$second"
set +e
report=$("$bin" check "$t")
code=$?
set -e
[ $code -eq 1 ] || fail "check exit code $code"
expect_in "$report" "problem: $first: missing"
expect_in "$report" "problem: $second: size is"
expect_in "$report" "problems in 7 files checked"

# check: a corrupt deletion vector (Databricks wrote it; one byte flipped in the bitmap).
dv=$dir/dv
cp -r "$data/rs-table-with-dv-small" "$dv"
expect_in "$("$bin" check "$dv")" "ok: 1 files checked"
bin_file=$(ls "$dv"/deletion_vector_*.bin)
printf '\x7f' | dd of="$bin_file" bs=1 seek=12 conv=notrunc status=none
set +e
report=$("$bin" check "$dv")
code=$?
set -e
[ $code -eq 1 ] || fail "check exit code $code for a corrupt DV"
expect_in "$report" "deletion vector"
# Vacuum keeps the live file's DV even with no retention.
expect_in "$("$bin" vacuum "$dv" --retain-hours 0)" "deleted 0 files"
[ -f "$bin_file" ] || fail "vacuum deleted a live deletion vector"
echo "cli_delta_maintenance: ok"
