#!/usr/bin/env bash
# End to end: `cdclake apply --from-snapshots DIR` and `--snapshot FILE --snapshot-version V` on
# the three AUTO CDC FROM SNAPSHOT documentation examples (testdata/autocdc-docs), checked with
# `cdclake show`; reruns write nothing; old versions are skipped and reported; a lost snapshot
# state is rebuilt from the table.
set -euo pipefail
bin=$1
docs=$2/testdata/autocdc-docs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }

rows() { local out; out=$("$bin" show "$1" --format csv); { head -n1 <<<"$out"; tail -n +2 <<<"$out" | LC_ALL=C sort; }; }
sorted_csv() { { head -n1 "$1"; tail -n +2 "$1" | LC_ALL=C sort; }; }
field() { sed -n "s/^$2  *\(.*\)$/\1/p" <<<"$1"; }
schema="userId INT, city STRING"

# split_input EXAMPLE DIR: one snapshot_<label>.csv per value of input.csv's first column.
split_input() {
  mkdir -p "$2"
  local header
  header=$(head -n1 "$docs/$1/input.csv" | cut -d, -f2-)
  for label in $(tail -n +2 "$docs/$1/input.csv" | cut -d, -f1 | sort -u); do
    { echo "$header"; tail -n +2 "$docs/$1/input.csv" | awk -F, -v l="$label" '$1 == l' | cut -d, -f2-; } \
      > "$2/snapshot_$label.csv"
  done
}

scd_of() { sed -n 's/.*"stored_as_scd_type": *\([0-9]\).*/\1/p' "$docs/$1/params.json"; }

# Versioned: the folder grows by one snapshot per run.
ex=snapshot-versioned-scd2
split_input $ex "$work/all"
t=$work/versioned
mkdir -p "$work/in"
cp "$work/all/snapshot_1.csv" "$work/in/"
out=$("$bin" apply --target "$t" --keys userId --scd 2 --schema "$schema" --from-snapshots "$work/in")
expect_eq "$(field "$out" "snapshots applied")" "1  (1)" "$ex run 1: "
expect_eq "$(rows "$t")" "$(sorted_csv "$docs/$ex/expected_after_snapshot_1.csv")" "$ex after 1: "
cp "$work/all/snapshot_2.csv" "$work/in/"
out=$("$bin" apply --target "$t" --keys userId --scd 2 --schema "$schema" --from-snapshots "$work/in")
expect_eq "$(field "$out" "snapshots applied")" "1  (2)" "$ex run 2: "
expect_eq "$(field "$out" "snapshots skipped")" "1  (1)" "$ex run 2: "
expect_eq "$(field "$out" "keys gone")" "1" "$ex run 2: "
expect_eq "$(rows "$t")" "$(sorted_csv "$docs/$ex/expected.csv")" "$ex at the end: "

# A rerun writes no version.
before=$("$bin" history "$t" --format csv | wc -l)
out=$("$bin" apply --target "$t" --keys userId --scd 2 --schema "$schema" --from-snapshots "$work/in" 2>"$work/err")
expect_eq "$(field "$out" "versions written")" "none" "rerun: "
expect_eq "$("$bin" history "$t" --format csv | wc -l)" "$before" "rerun: "
grep -q "skipped snapshot .*snapshot_2.csv: version 2 is not above the last applied version (2)" "$work/err" \
  || fail "rerun does not report the skip: $(cat "$work/err")"

# An older snapshot arriving late is skipped and reported.
printf 'userId,city\n7,Nowhere\n' > "$work/in/snapshot_0.csv"
out=$("$bin" apply --target "$t" --keys userId --scd 2 --schema "$schema" --from-snapshots "$work/in" 2>"$work/err")
grep -q "snapshot_0.csv: version 0 is not above" "$work/err" || fail "late snapshot not reported"
expect_eq "$(rows "$t")" "$(sorted_csv "$docs/$ex/expected.csv")" "after a late snapshot: "

# The snapshot state lost: rebuilt from the table's open versions.
rm -rf "$t/_cdclake/snapshot"
printf 'userId,city\n2,Carmel\n3,Los Angeles\n4,Death Valley\n5,Reno\n' > "$work/in/snapshot_3.csv"
out=$("$bin" apply --target "$t" --keys userId --scd 2 --schema "$schema" --from-snapshots "$work/in")
expect_eq "$(field "$out" "snapshot state")" "rebuilt from the target's rows" "lost state: "
expect_eq "$(field "$out" "keys new")" "1" "lost state: "
expect_eq "$(field "$out" "keys unchanged")" "3" "lost state: "
{ sorted_csv "$docs/$ex/expected.csv"; } > "$work/want"
echo "5,Reno,3," >> "$work/want"
expect_eq "$(rows "$t")" "$({ head -n1 "$work/want"; tail -n +2 "$work/want" | LC_ALL=C sort; })" "lost state: "

# Periodic: one file re-read each run, versions 0 and 1 as the documentation prints them.
for ex in snapshot-periodic-scd1 snapshot-periodic-scd2; do
  split_input $ex "$work/$ex"
  t=$work/t-$ex
  scd=$(scd_of $ex)
  cp "$work/$ex/snapshot_1.csv" "$work/$ex/users.csv"
  "$bin" apply --target "$t" --keys userId --scd "$scd" --schema "$schema" \
    --snapshot "$work/$ex/users.csv" --snapshot-version 0 >/dev/null
  if [ -f "$docs/$ex/expected_after_snapshot_1.csv" ]; then
    expect_eq "$(rows "$t")" "$(sorted_csv "$docs/$ex/expected_after_snapshot_1.csv")" "$ex after 1: "
  fi
  cp "$work/$ex/snapshot_2.csv" "$work/$ex/users.csv"
  out=$("$bin" apply --target "$t" --keys userId --scd "$scd" --schema "$schema" \
    --snapshot "$work/$ex/users.csv" --snapshot-version 1)
  expect_eq "$(field "$out" "last applied version")" "1" "$ex: "
  expect_eq "$(rows "$t")" "$(sorted_csv "$docs/$ex/expected.csv")" "$ex at the end: "
  # The same version again is skipped.
  out=$("$bin" apply --target "$t" --keys userId --scd "$scd" --schema "$schema" \
    --snapshot "$work/$ex/users.csv" --snapshot-version 1 2>/dev/null)
  expect_eq "$(field "$out" "versions written")" "none" "$ex rerun: "
done

# Default periodic version: the run time, a timestamp.
t=$work/now
out=$("$bin" apply --target "$t" --keys userId --schema "$schema" --snapshot "$work/all/snapshot_1.csv")
[[ "$(field "$out" "last applied version")" =~ ^20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]\ .*Z$ ]] \
  || fail "periodic default version is not a timestamp: $out"

# A duplicate key is an error naming the key and the file.
mkdir -p "$work/dup"
printf 'userId,city\n1,A\n1,B\n' > "$work/dup/s_1.csv"
if "$bin" apply --target "$work/dupt" --keys userId --schema "$schema" --from-snapshots "$work/dup" 2>"$work/err"; then
  fail "duplicate key accepted"
fi
grep -q "userId=1" "$work/err" && grep -q "s_1.csv" "$work/err" || fail "duplicate message: $(cat "$work/err")"
echo "cli_apply_snapshots: ok"
