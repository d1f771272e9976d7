#!/usr/bin/env bash
# Schema-change events (issue 17): a column that appears in the source reaches the bronze table
# and the SCD1 silver, and each addition is a line of the run's output and a row of the event
# log (event_type 'schema_change', details as JSON); a column the source stops sending is said
# once, when it stops; JSON logs carry them on their batch; a run with no change says nothing.
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
# Said when it stopped, not again at every run after (the flow's position records what it sent).
if grep -q "no longer" <<<"$out"; then fail "a column said again after it stopped: $out"; fi

# Two flows writing different columns of one table: neither is told the other's columns are
# "no longer sent" (each position records what its flow sent), on the first run or later.
mkdir -p two/a two/b
cat > two.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.people;
CREATE FLOW from_a AS AUTO CDC INTO shop.people FROM STREAM(read_files('$work/two/a/*.csv', format => 'csv'))
KEYS (id) SEQUENCE BY seq COLUMNS id, seq, name STORED AS SCD TYPE 1;
CREATE FLOW from_b AS AUTO CDC INTO shop.people FROM STREAM(read_files('$work/two/b/*.csv', format => 'csv'))
KEYS (id) SEQUENCE BY seq COLUMNS id, seq, city STORED AS SCD TYPE 1;
SQL
printf 'id,seq,name\n1,1,a\n' > two/a/1.csv
printf 'id,seq,city\n2,2,x\n' > two/b/1.csv
out=$("$bin" run two.sql --warehouse lake_two 2>&1) || fail "two flows: $out"
expect_in "$out" "from_b: schema change: column city added to shop.people (string)"
printf 'id,seq,name\n3,3,c\n' > two/a/2.csv
printf 'id,seq,city\n4,4,y\n' > two/b/2.csv
out2=$("$bin" run two.sql --warehouse lake_two 2>&1) || fail "two flows, second run: $out2"
if grep -q "no longer" <<<"$out$out2"; then fail "a flow was told another flow's column is missing: $out $out2"; fi

# cdclake.schemaPolicy = 'block' on the silver: a column the source adds stops its flow before
# anything of the batch is committed, naming the column; bronze (evolve) takes it.
rm -f in/*.jsonl
printf '{"id": 1, "seq": 1, "name": "a"}\n' > in/f1.jsonl
sed "s/CREATE OR REFRESH STREAMING TABLE shop.customers;/CREATE OR REFRESH STREAMING TABLE shop.customers TBLPROPERTIES ('cdclake.schemaPolicy' = 'block');/" \
  p.sql > block.sql
grep -q "schemaPolicy" block.sql || fail "the test's pipeline has no policy"
out=$("$bin" run block.sql --warehouse lake_b 2>&1) || fail "first run with block: $out"
before=$(ls lake_b/shop/customers/_delta_log | grep -c '\.json$')
printf '{"id": 2, "seq": 2, "name": "b", "tier": "gold"}\n' > in/f2.jsonl
rc=0
out=$("$bin" run block.sql --warehouse lake_b 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "a blocked schema change went through: $out"
expect_in "$out" "cdclake.schemaPolicy = 'block' on shop.customers: the source's columns differ from the table's: column tier (string) is not in the table"
expect_in "$out" "nothing of this batch is committed"
expect_eq "$(ls lake_b/shop/customers/_delta_log | grep -c '\.json$')" "$before" "silver versions after the block: "
expect_in "$("$bin" show lake_b/shop/bronze --format csv --columns tier)" "gold" "bronze (evolve) took the column: "
sed "s/'block'/'sometimes'/" block.sql > odd.sql
rc=0
out=$("$bin" run odd.sql --warehouse lake_b 2>&1) || rc=$?
expect_in "$out" "cdclake.schemaPolicy 'sometimes' is not one cdclake knows (evolve, block, quarantine)"
echo "ok: schema-change events"
