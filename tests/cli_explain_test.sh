#!/usr/bin/env bash
# End to end: `cdclake explain` on a key of an SCD1 target fed from a bronze table by an AUTO CDC
# flow, over four runs — an insert and an update, then a duplicate, a tie lost to the applied
# upsert's larger values and a delete, then a late update older than the delete, an upsert tied
# with the delete and an event with a NULL sequence, then the delete once more. Every event line's
# decision and table version is checked against what SEMANTICS.md says (worked out below, not
# copied from the output); the row, index and horizon sections; --format json parses.
set -euo pipefail
bin=$1
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
cd "$work"
mkdir land
cat > pipeline.sql <<'EOF'
CREATE OR REFRESH STREAMING TABLE shop.bronze
AS SELECT * FROM STREAM(read_files('land/*.csv', format => 'csv',
                                   schema => 'id BIGINT, seq BIGINT, op STRING, name STRING'));

CREATE OR REFRESH STREAMING TABLE shop.people;

CREATE FLOW people_current AS AUTO CDC INTO shop.people
FROM STREAM(shop.bronze)
KEYS (id)
APPLY AS DELETE WHEN op = 'd'
SEQUENCE BY seq
COLUMNS * EXCEPT (op, seq, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;
EOF
run() { "$bin" run pipeline.sql --warehouse lake > "run$1.log" 2>&1 || fail "run $1: $(cat "run$1.log")"; }
explain() { "$bin" explain shop.people --warehouse lake --key id=42 --pipeline pipeline.sql "$@"; }
versions() { ls "lake/shop/$1/_delta_log" | grep -c '\.json$'; }

# Each run lands one file: bronze appends it as its next version (v1..v4; v0 created the table),
# the flow reads it as one batch; a batch that changes the target commits its next version
# (v0 created the target with the first batch's v1).
# Run 1 (bronze v1, target v1): 42 inserted at 10, updated at 20 (bob); key 7 for company.
printf 'id,seq,op,name\n42,10,c,ann\n42,20,u,bob\n7,5,c,zed\n' > land/001.csv
run 1
# Run 2 (bronze v2, target v2): the update at 20 again (a duplicate, §2), another upsert at 20
# whose values sort before the applied one's ("al" < "bob": it loses the tie, §2), the delete
# at 40 (applied: the key keeps a tombstone, §3).
printf 'id,seq,op,name\n42,20,u,bob\n42,20,u,al\n42,40,d,bob\n' > land/002.csv
run 2
# Run 3 (bronze v3, target v3 for key 7's update): a late update at 30, older than the delete
# (discarded, §3: an upsert older than a delete never resurrects the row); an upsert at 40, tied
# with the delete (the delete wins, §2); an update with no sequence (quarantined, §2).
printf 'id,seq,op,name\n42,30,u,late\n42,40,u,tie\n42,,u,noseq\n7,6,u,zoe\n' > land/003.csv
run 3
# Run 4 (bronze v4): the delete again, alone: a duplicate, and the batch writes no version (§8).
printf 'id,seq,op,name\n42,40,d,bob\n' > land/004.csv
before=$(versions people)
run 4
expect_eq "$(versions people)" "$before" "target versions after a run of only a duplicate: "

out=$(explain) || fail "explain: $out"
echo "$out"
section() { awk -v s="$1" '$0 == s { on = 1; next } /^[a-z]/ { on = 0 } on' <<<"$out"; }

# row: none, the key is deleted.
grep -q 'none: the key has no row' <<<"$(section row)" || fail "row section: $(section row)"
# index: the tombstone of the delete at 40, with its expiry; no location.
index=$(section index)
grep -Eq 'state +tombstone: delete at 40 \(applied ' <<<"$index" || fail "index state: $index"
grep -Eq '^  expires +.*172800 s after the delete' <<<"$index" || fail "index expiry: $index"
grep -Eq '^  last sequence +40$' <<<"$index" || fail "index last sequence: $index"
grep -Eq '^  location +none' <<<"$index" || fail "index location: $index"
# horizon: nothing purged, no truncate, default late-event policy.
horizon=$(section horizon)
grep -Eq '^  purge horizon +none' <<<"$horizon" || fail "horizon: $horizon"
grep -Eq '^  truncate +none' <<<"$horizon" || fail "truncate: $horizon"
grep -Eq 'applied as new' <<<"$horizon" || fail "late-event policy: $horizon"

# events: sequence, op, bronze version, decision, target version, in the engine's order
# (sequence, then upsert before delete, then values; the NULL sequence last).
events=$(section "$(grep '^events' <<<"$out")" | tail -n +2 |
  sed -E 's/^  //; s/  +/|/g' | cut -d'|' -f1-5)
expect_eq "$events" '10|upsert|v1|applied|v1
20|upsert|v2|lost a tie|v2
20|upsert|v1|applied|v1
20|upsert|v2|duplicate|v2
30|upsert|v3|discarded as older|v3
40|upsert|v3|lost a tie|v3
40|delete|v2|applied|v2
40|delete|v4|duplicate|-
NULL|upsert|v3|quarantined|-' "event lines: "
grep -Eq '^  30 +upsert +v3 +discarded as older +v3 +older than the delete at 40' <<<"$out" ||
  fail "the late update's reason: $out"
grep -Eq '^  40 +upsert +v3 +lost a tie +v3 +a delete at the same sequence wins' <<<"$out" ||
  fail "the tie with the delete: $out"
grep -Eq "NULL +upsert +v3 +quarantined +- +quarantine v[0-9]+: NULL sequence" <<<"$out" ||
  fail "the quarantined event: $out"
grep -q 'note:' <<<"$out" && fail "the replay did not match the engine's recorded states: $out"

# The same story as JSON, for scripts.
json=$(explain --format json) || fail "explain --format json: $json"
python3 -c 'import json,sys; json.load(sys.stdin)' <<<"$json" || fail "json does not parse: $json"
decisions=$(python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["index"]["tombstone"] is True, s["index"]
assert s["rows"] == [], s["rows"]
for e in s["events"]["list"]:
    print(e["sequence"], e["decision"], e["target_version"])' <<<"$json")
expect_eq "$decisions" '10 applied 1
20 lost a tie 2
20 applied 1
20 duplicate 2
30 discarded as older 3
40 lost a tie 3
40 applied 2
40 duplicate None
NULL quarantined None' "json decisions: "

# Key 7 has a row; without --pipeline the events are not replayed, and the index is still read.
seven=$("$bin" explain lake/shop/people --key id=7)
grep -Eq '^  7 +zoe$' <<<"$seven" || fail "key 7's row: $seven"
grep -Eq '^  state +upsert at 6$' <<<"$seven" || fail "key 7's index state: $seven"
grep -q 'no pipeline given' <<<"$seven" || fail "key 7 without a pipeline: $seven"
# The index is read even when its RocksDB folder is gone (from the index log), and says so.
rm -rf lake/shop/people/_cdclake/index
gone=$(explain)
grep -q 'the key index .* is missing' <<<"$gone" || fail "missing index: $gone"
grep -Eq 'state +tombstone: delete at 40' <<<"$gone" || fail "index from the log: $gone"
[ ! -d lake/shop/people/_cdclake/index ] || fail "explain wrote the index folder"

# Bad usage: a key column the table does not have, a key without a value.
set +e
"$bin" explain lake/shop/people --key name=bob > bad.log 2>&1
expect_eq "$?" 2 "exit code for a non-key column: "
"$bin" explain lake/shop/people --key id > bad.log 2>&1
expect_eq "$?" 2 "exit code for --key without '=': "
"$bin" explain lake/shop/nothing --key id=1 > bad.log 2>&1
expect_eq "$?" 1 "exit code for a missing table: "
set -e

# The quick start's customer 3: updated, deleted at LSN 1700, and a late update at 1600 that
# arrives after the delete (in the same batch, so it counts as applied and is overtaken: the
# key stays deleted, and the history table closes its versions).
cp -r "$src/examples/quickstart/data" qs-data
"$bin" run "$src/examples/quickstart/pipeline.sql" --var data="$work/qs-data" --warehouse qs > qs.log 2>&1 ||
  fail "quick start: $(cat qs.log)"
qs=$("$bin" explain shop.customers --warehouse qs --key id=3 \
  --pipeline "$src/examples/quickstart/pipeline.sql" --var data="$work/qs-data")
grep -q 'none: the key has no row in the table' <<<"$qs" || fail "quick start key 3's row: $qs"
grep -Eq 'state +tombstone: delete at \{"commit_lsn":1700,"lsn":1700\}' <<<"$qs" ||
  fail "quick start key 3's state: $qs"
grep -Eq '^  \{"commit_lsn":1600,"lsn":1600\} +upsert +v1 +applied +v1 +overtaken in the same batch by the delete at \{"commit_lsn":1700' <<<"$qs" ||
  fail "the late update's line: $qs"
grep -Eq '^  \{"commit_lsn":1700,"lsn":1700\} +delete +v1 +applied +v1' <<<"$qs" ||
  fail "the delete's line: $qs"
[ "$(grep -Ec '^  \{"commit_lsn"' <<<"$qs")" = "$(grep -c '"id":3[,}]' qs-data/customers/*.json | awk -F: '{s += $2} END {print s}')" ] ||
  fail "not every event of key 3 is listed: $qs"
echo "cli_explain_test: ok"
