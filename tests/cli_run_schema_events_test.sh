#!/usr/bin/env bash
# Schema-change events (issue 17): a column that appears in the source reaches the bronze table
# and the SCD1 silver, and each addition is a line of the run's output and a row of the event
# log (event_type 'schema_change', details as JSON); a column the source stops sending is said
# once per run; JSON logs carry them on their batch; a run with no change says nothing.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "${3:-}expected [$2] in [$1]"; }
cd "$work"
mkdir in
cat > p.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.bronze
AS SELECT * FROM STREAM(read_files('$work/in/*.jsonl', format => 'json'));
CREATE OR REFRESH STREAMING TABLE shop.customers;
CREATE FLOW customers AS AUTO CDC INTO shop.customers FROM STREAM(shop.bronze)
KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (_source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;
SQL
printf '{"id": 1, "seq": 1, "name": "a"}\n' > in/f1.jsonl
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "first run: $out"
if grep -q "schema change" <<<"$out"; then fail "a new table's columns were called changes: $out"; fi

printf '{"id": 2, "seq": 2, "name": "b", "tier": "gold"}\n' > in/f2.jsonl
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "second run: $out"
expect_in "$out" "shop.bronze: schema change: column tier added to shop.bronze (string)"
expect_in "$out" "customers: schema change: column tier added to shop.customers (string)"
log=$("$bin" show lake/_event_log --format csv --columns flow,event_type,message,details)
expect_in "$log" 'customers,schema_change,column tier added to shop.customers (string),'
expect_in "$log" '""action"":""added"",""column"":""tier"",""new_type"":""string"",""old_type"":null'
expect_eq "$(grep -c ',flow_progress,' <<<"$log")" "4" "batch rows marked flow_progress: "

printf '{"id": 3, "seq": 3, "tier": "silver"}\n' > in/f3.jsonl
out=$("$bin" run p.sql --warehouse lake --log-format json 2>&1) || fail "third run: $out"
expect_in "$out" '"schema_changes":[{"action":"no longer sent","column":"name"'
printf '{"id": 4, "seq": 4, "tier": "silver"}\n' > in/f4.jsonl
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "fourth run: $out"
expect_in "$out" "shop.bronze: schema change: column name of shop.bronze (string) is no longer in what the source sends"
echo "ok: schema-change events"
