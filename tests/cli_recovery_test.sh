#!/usr/bin/env bash
# End to end: a target's `_cdclake/` folder (key index, index log) deleted or damaged between two
# `cdclake apply` runs is rebuilt on open, or by `cdclake repair`; the table afterwards equals a
# run without the damage (SCD1 and SCD2), and a late event older than a delete does not bring
# the deleted row back (SCD1: the purge horizon, with cdclake.lateEventPolicy = 'quarantine').
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "${3:-}expected [$2] in [$1]"; }
rows() { local out; out=$("$bin" show "$1" --format csv); { head -n1 <<<"$out"; tail -n +2 <<<"$out" | LC_ALL=C sort; }; }

printf 'id,v,op,seq\n1,a,U,1\n2,b,U,2\n3,c,U,3\n1,,D,4\n' >"$work/b1.csv"
printf 'id,v,op,seq\n2,bb,U,5\n4,d,U,6\n3,cc,U,7\n' >"$work/b2.csv"
# Older than key 1's delete: discarded (SCD1) or placed in the history (SCD2), never a new row.
printf 'id,v,op,seq\n1,old,U,3\n' >"$work/late.csv"

# The damage done to target $1 between the runs.
damage() {
  case $2 in
    none) ;;
    all) rm -rf "$1/_cdclake" ;;
    index) rm -rf "$1/_cdclake/index" ;;
    log) rm -rf "$1/_cdclake/index_log" ;;
    corrupt-log)  # a damaged index-log file, and an index that must be replayed from it
      local f; f=$(ls "$1/_cdclake/index_log/" | head -n1)
      printf 'not parquet' >"$1/_cdclake/index_log/$f"
      rm -rf "$1/_cdclake/index" ;;
    corrupt-index)  # RocksDB's files damaged: replayed from the (whole) index log
      for f in "$1"/_cdclake/index/CURRENT "$1"/_cdclake/index/MANIFEST-*; do printf 'junk' >"$f"; done ;;
    *) fail "unknown damage $2" ;;
  esac
}

for scd in 1 2; do
  for except in op,seq op; do
    flow=(--keys id --sequence-by seq --delete-when "op = 'D'" --except "$except" --scd "$scd"
          --property cdclake.lateEventPolicy=quarantine)
    clean=$work/clean-$scd-$except
    for f in b1 b2 late; do "$bin" apply --target "$clean" "${flow[@]}" "$work/$f.csv" >/dev/null; done
    want=$(rows "$clean")
    expect_in "$want" "4,d" "scd $scd: "
    if [ "$scd" = 1 ]; then
      grep -q '^1,' <<<"$want" && fail "scd 1, clean run: key 1 came back: $want"
    fi
    for how in all index log corrupt-log corrupt-index repair-all repair-log; do
      t=$work/t-$scd-$except-$how
      "$bin" apply --target "$t" "${flow[@]}" "$work/b1.csv" >/dev/null
      case $how in
        repair-*)
          damage "$t" "${how#repair-}"
          out=$("$bin" repair "$t") || fail "scd $scd, $how: repair failed: $out"
          expect_in "$out" "key index rebuilt" "scd $scd, $how: "
          expect_in "$out" "from the table's rows" "scd $scd, $how: "
          err=$("$bin" apply --target "$t" "${flow[@]}" "$work/b2.csv" 2>&1 >/dev/null)
          expect_eq "$err" "" "scd $scd, $how: after repair, apply should rebuild nothing: " ;;
        *)
          damage "$t" "$how"
          err=$("$bin" apply --target "$t" "${flow[@]}" "$work/b2.csv" 2>&1 >/dev/null) ||
            fail "scd $scd, $how: apply after the damage failed: $err"
          case $how in
            index | corrupt-index) expect_in "$err" "key index rebuilt from the index log" "scd $scd, $how: " ;;
            log) expect_in "$err" "index log was written anew from the key index" "scd $scd, $how: " ;;
            *) expect_in "$err" "key index rebuilt from the table's rows" "scd $scd, $how: " ;;
          esac ;;
      esac
      "$bin" apply --target "$t" "${flow[@]}" "$work/late.csv" >/dev/null
      expect_eq "$(rows "$t")" "$want" "scd $scd, except $except, damage $how: "
      # A replay changes nothing and rebuilds nothing.
      err=$("$bin" apply --target "$t" "${flow[@]}" "$work/b2.csv" 2>&1 >/dev/null)
      expect_eq "$err" "" "scd $scd, $how: replay: "
      expect_eq "$(rows "$t")" "$want" "scd $scd, except $except, damage $how, replay: "
    done
  done
done

# SCD1 says what the purge horizon became, and quarantines the late event it cannot place.
t=$work/horizon
flow=(--keys id --sequence-by seq --delete-when "op = 'D'" --except op,seq
      --property cdclake.lateEventPolicy=quarantine)
"$bin" apply --target "$t" "${flow[@]}" "$work/b1.csv" >/dev/null
rm -rf "$t/_cdclake"
out=$("$bin" repair "$t")
expect_in "$out" "(2 keys)" "repair: "
expect_in "$out" "purge horizon is raised to 4" "repair: "
expect_in "$out" "index log" "repair: "
out=$("$bin" apply --target "$t" "${flow[@]}" "$work/late.csv")
grep -Eq '^rows quarantined +1( |$)' <<<"$out" || fail "late event after repair not quarantined: $out"
grep -q '^1,' <<<"$(rows "$t")" && fail "late event after repair resurrected key 1"
# The rebuild left an index base: losing the index again replays the log from it, and the
# horizon stays.
rm -rf "$t/_cdclake/index"
out=$("$bin" apply --target "$t" "${flow[@]}" "$work/late.csv" 2>&1)
expect_in "$out" "rebuilt from the index log" "index lost after a rebuild from rows: "
grep -Eq '^rows quarantined +1( |$)' <<<"$out" || fail "late event after a second rebuild: $out"

# Repair of a whole index rebuilds it from the log; of something that is no cdclake target fails.
t=$work/whole
"$bin" apply --target "$t" "${flow[@]}" "$work/b1.csv" >/dev/null
"$bin" apply --target "$t" "${flow[@]}" "$work/b2.csv" >/dev/null
out=$("$bin" repair "$t")
expect_in "$out" "from the index log" "repair of a whole index: "
if out=$("$bin" repair "$work/nothing" 2>&1); then fail "repair of a missing table passed"; fi
expect_in "$out" "not a Delta table" "repair of a missing table: "
echo "cli_recovery: ok"
