#!/usr/bin/env bash
# End to end: the CLI on real Delta tables (../shared/testdata/delta): show with time travel,
# projection and ordering; history; describe; clear errors.
set -euo pipefail
bin=$1
data=$2/testdata/delta
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "expected [$2], got [$1]"; }

t=$data/dat-basic_append/delta
expect_eq "$("$bin" show "$t" --version 0 --order-by number --format csv)" $'letter,number,a_float\na,1,1.1\nb,2,2.2\nc,3,3.3'
expect_eq "$("$bin" show "$t" --columns number,letter --order-by letter --format csv --limit 2)" $'number,letter\n1,a\n2,b'
expect_eq "$("$bin" show "$t" --format csv | wc -l)" 6
history=$("$bin" history "$t" --format csv)
expect_eq "$(sed -n 2p <<<"$history" | cut -d, -f1-3)" "1,2022-11-19 03:56:17.722000Z,WRITE"
expect_eq "$(wc -l <<<"$history")" 3

describe=$("$bin" describe "$data/golden-dv-with-columnmapping/delta")
grep -qx "rows: 35" <<<"$describe" || fail "describe rows: $describe"
grep -qx "reader features: deletionVectors, columnMapping" <<<"$describe" || fail "describe features"
grep -qx "deleted rows (deletion vectors): 2" <<<"$describe" || fail "describe deleted rows"

# Deletion vectors: rows 0 and 9 of 0..9 are deleted.
expect_eq "$("$bin" show "$data/rs-table-with-dv-small" --format csv --order-by value | tr '\n' ' ')" "value 1 2 3 4 5 6 7 8 "

if err=$("$bin" show "$data/rs-cdc_ict_table" --timestamp "2000-01-01 00:00:00" 2>&1); then fail "timestamp before the table"; fi
grep -q "no version at or before" <<<"$err" || fail "$err"
if err=$("$bin" show "$t" --version 99 2>&1); then fail "version 99"; fi
grep -q "version 99 does not exist (latest is 1)" <<<"$err" || fail "$err"
echo "cli_delta: ok"
