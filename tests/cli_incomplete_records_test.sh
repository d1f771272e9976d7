#!/usr/bin/env bash
# End to end: files whose writer has not finished their last record (issue 13, items 2 and 4).
# A CSV row cut short is pending, not quarantined, and arrives once its writer finishes it;
# the same for a Debezium event cut in half in a bronze stream read by `cdclake run`, and for a
# CSV bronze cut before the last, empty sequence of the flow reading it; a CSV
# sequence holding 10, 9 and n/a is a number (10 wins, n/a is quarantined naming the column and
# the type); a JSON sequence that is a number in one event and a string in another likewise; a
# Parquet file without its footer yet is pending as a whole and read once finished.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
count() { sed -n "s/^$2  *\([0-9][0-9]*\).*/\1/p" <<<"$1"; }
cd "$work"

# --- a CSV row cut short, completed later ---
mkdir land
printf 'id,v,seq\n1,a,1\n3,c' > land/f.csv
apply() { "$bin" apply --target t --keys id --sequence-by seq 'land/*.csv'; }
out=$(apply) || fail "first apply: $out"
grep -q '^1 record pending in .*/land/f.csv (line 3, byte 15, 3 bytes so far' <<<"$out" ||
  fail "no pending line: $out"
expect_eq "$(count "$out" "rows quarantined")" 0 "quarantined while pending: "
[ ! -d t_quarantine ] || fail "a quarantine table for a record not whole yet"
printf ',1\n' >> land/f.csv
out=$(apply) || fail "second apply: $out"
grep -q 'pending' <<<"$out" && fail "still pending: $out"
expect_eq "$("$bin" show t --format csv --order-by id)" 'id,v,seq
1,a,1
3,c,1' "the completed row: "
# A record whose line ending is there and fields are missing can never be whole: quarantined.
printf '4,d\n' >> land/f.csv
out=$(apply) || fail "third apply: $out"
expect_eq "$(count "$out" "rows quarantined")" 1 "a short terminated row: "
# Every field there but the sequence, which is last and empty: cut short, not a NULL sequence.
printf '5,e,' >> land/f.csv
out=$(apply) || fail "fourth apply: $out"
grep -q '^1 record pending in .*/land/f.csv (line 5' <<<"$out" || fail "empty last sequence: $out"
expect_eq "$(count "$out" "rows quarantined")" 0 "an empty last sequence quarantined: "
printf '7\n' >> land/f.csv
out=$(apply) || fail "fifth apply: $out"
expect_eq "$(count "$out" "rows quarantined")" 0 "the finished row quarantined: "
expect_eq "$("$bin" show t --format csv --order-by id)" 'id,v,seq
1,a,1
3,c,1
5,e,7' "the row whose sequence came last: "

# --- a Debezium event cut in half in a bronze stream ---
mkdir -p ev
event() {
  printf '{"before":null,"after":{"id":%s,"v":"%s"},"source":{"connector":"postgresql","db":"d","schema":"s","table":"t","ts_ms":5,"lsn":%s,"sequence":null},"op":"c","ts_ms":9}' "$1" "$2" "$3"
}
cat > p.sql <<'EOF'
CREATE OR REFRESH STREAMING TABLE demo.bronze
AS SELECT * FROM STREAM(read_files('ev/*.json', format => 'debezium'));
CREATE OR REFRESH STREAMING TABLE demo.silver;
CREATE FLOW silver_flow AS AUTO CDC INTO demo.silver
FROM STREAM(demo.bronze)
KEYS (id)
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;
EOF
{ event 1 a 10; printf '\n'; } > ev/e1.json
second=$(event 2 b 11)
printf '%s' "${second:0:60}" >> ev/e1.json
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "first run: $out"
grep -q "1 record pending in .*ev/e1.json (line 2" <<<"$out" || fail "run: no pending line: $out"
printf '%s\n' "${second:60}" >> ev/e1.json
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "second run: $out"
expect_eq "$("$bin" show lake/demo/silver --format csv --order-by id)" 'id,v
1,a
2,b' "silver after the event was completed: "
if [ -d lake/demo/bronze_quarantine ]; then fail "the cut event was quarantined"; fi

# --- a CSV bronze cut just before its last, empty sequence field, read by an AUTO CDC flow ---
# The bronze's reader knows the silver's SEQUENCE BY: the cut record waits as pending instead of
# landing with a NULL sequence (quarantined below, then its appended rest quarantined too).
mkdir -p csvin
cat > c.sql <<'EOF'
CREATE OR REFRESH STREAMING TABLE demo.cbronze
AS SELECT * FROM STREAM(read_files('csvin/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE demo.csilver;
CREATE FLOW csilver_flow AS AUTO CDC INTO demo.csilver
FROM STREAM(demo.cbronze)
KEYS (id)
APPLY AS DELETE WHEN op = 'D'
SEQUENCE BY seq
COLUMNS * EXCEPT (op, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;
EOF
printf 'id,v,op,seq\n1,a,I,10\n4,d,U,' > csvin/c1.csv
out=$("$bin" run c.sql --warehouse lake 2>&1) || fail "csv bronze first run: $out"
grep -q "1 record pending in .*csvin/c1.csv (line 3" <<<"$out" || fail "csv bronze: no pending line: $out"
printf '17\n' >> csvin/c1.csv
out=$("$bin" run c.sql --warehouse lake 2>&1) || fail "csv bronze second run: $out"
expect_eq "$("$bin" show lake/demo/csilver --format csv --columns id,v,seq --order-by id)" 'id,v,seq
1,a,10
4,d,17' "csv silver once the sequence was written: "
for q in lake/demo/cbronze_quarantine lake/demo/csilver_quarantine; do
  if [ -d "$q" ]; then fail "the cut CSV record was quarantined in $q: $out"; fi
done

# --- a CSV sequence with 10, 9 and n/a ---
printf 'id,v,seq\n1,ten,10\n1,nine,9\n1,na,n/a\n' > seq.csv
out=$("$bin" apply --target s --keys id --sequence-by seq seq.csv) || fail "seq apply: $out"
expect_eq "$("$bin" show s --format csv --columns id,v,seq)" 'id,v,seq
1,ten,10' "numbers compared as numbers: "
expect_eq "$(count "$out" "rows quarantined")" 1 "n/a quarantined: "
reason=$("$bin" show s_quarantine --format csv)
grep -q "column 'seq': 'n/a' is not a BIGINT" <<<"$reason" || fail "quarantine reason: $reason"

# --- a JSON sequence that is a number in one event and a string in another ---
printf '{"id":1,"v":"ten","seq":10}\n{"id":1,"v":"nine","seq":"9"}\n{"id":1,"v":"na","seq":"n/a"}\n' \
  > mixed.jsonl
out=$("$bin" apply --target j --keys id --sequence-by seq mixed.jsonl) || fail "json apply: $out"
expect_eq "$("$bin" show j --format csv --columns id,v,seq)" 'id,v,seq
1,ten,10' "a JSON sequence of mixed kinds: "
expect_eq "$(count "$out" "rows quarantined")" 1 "the JSON n/a quarantined: "
# A later file's sequence reads with the type the target was created with.
printf '{"id":1,"v":"eleven","seq":"11"}\n' > later.jsonl
out=$("$bin" apply --target j --keys id --sequence-by seq later.jsonl) || fail "later: $out"
expect_eq "$("$bin" show j --format csv --columns id,v,seq)" 'id,v,seq
1,eleven,11' "a later string sequence as a number: "

# --- a Parquet file whose writer has not written its footer yet ---
mkdir pland
printf 'id,v,seq\n1,a,1\n2,b,2\n' > p1.csv
printf 'id,v,seq\n3,c,3\n4,d,4\n' > p2.csv
"$bin" apply --target pw1 --keys id --sequence-by seq p1.csv > /dev/null
"$bin" apply --target pw2 --keys id --sequence-by seq p2.csv > /dev/null
cp "$(find pw1 -name 'part-*.parquet' | head -1)" pland/a.parquet
whole=$(find pw2 -name 'part-*.parquet' | head -1)
size=$(stat -c %s "$whole")
head -c $((size / 2)) "$whole" > pland/b.parquet
papply() { "$bin" apply --target pt --keys id --sequence-by seq 'pland/*.parquet'; }
out=$(papply) || fail "parquet apply with an unfinished file: $out"
grep -q "/pland/b.parquet is not a whole Parquet file yet ($((size / 2)) bytes, no footer): read once its writer finishes it" <<<"$out" ||
  fail "no pending line for the unfinished Parquet file: $out"
expect_eq "$("$bin" show pt --format csv --order-by id)" 'id,v,seq
1,a,1
2,b,2' "rows before the Parquet file is finished: "
cp "$whole" pland/b.parquet
out=$(papply) || fail "parquet apply once finished: $out"
grep -q 'not a whole Parquet file' <<<"$out" && fail "still pending: $out"
expect_eq "$("$bin" show pt --format csv --order-by id)" 'id,v,seq
1,a,1
2,b,2
3,c,3
4,d,4' "rows once the Parquet file is finished: "
# A snapshot still being written is not applied: its missing rows would read as deletes.
mkdir snapin
cp pland/a.parquet snapin/snap_1.parquet
head -c $((size / 2)) "$whole" > snapin/snap_2.parquet
if out=$("$bin" apply --target st --keys id --from-snapshots snapin 2>&1); then
  fail "an unfinished snapshot was applied: $out"
fi
grep -q "snapin/snap_2.parquet is not a whole Parquet file yet .*snapshot 2 is not applied until it is whole" <<<"$out" ||
  fail "unfinished snapshot message: $out"
expect_eq "$("$bin" show st --format csv --order-by id)" 'id,v,seq
1,a,1
2,b,2' "rows after an unfinished snapshot: "
cp "$whole" snapin/snap_2.parquet
"$bin" apply --target st --keys id --from-snapshots snapin > /dev/null || fail "the finished snapshot"
expect_eq "$("$bin" show st --format csv --order-by id)" 'id,v,seq
3,c,3
4,d,4' "rows once the snapshot is finished: "

# A file that does not start like Parquet is an error naming it, not pending.
printf 'id,v\n' > pland/c.parquet
if out=$(papply 2>&1); then fail "a non-Parquet .parquet file was accepted: $out"; fi
grep -q "pland/c.parquet: not a Parquet file" <<<"$out" || fail "not-Parquet message: $out"

echo "PASS"
