#!/usr/bin/env bash
# The seeds' schema contract, the default for a table that declares its columns (issue 17): a
# column the source adds is tolerated (left out, with a warning); a declared column the source
# stops sending, or sends in a type none of whose values fits, stops the flow before anything
# of its batch is committed, naming the column, and is a schema_change row of the event log;
# a bad value among good ones, or alone, is still a quarantined row; a JSON key left out and a
# batch of key-only deletes are no removed column; 'evolve' goes on. 'block' holds the batch
# that creates a declared table to its declaration too.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "${3:-}expected [$2] in [$1]"; }
versions() { ls "$1/_delta_log" | grep -c '\.json$'; }
cd "$work"
mkdir in
cat > p.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.bronze (id BIGINT, seq BIGINT, name STRING, amount BIGINT)
AS SELECT * FROM STREAM(read_files('$work/in/*.jsonl', format => 'json'));
SQL
printf '{"id": 1, "seq": 1, "name": "a", "amount": 10}\n' > in/f1.jsonl
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "first run: $out"

# An added column: tolerated, left out, said once.
printf '{"id": 2, "seq": 2, "name": "b", "amount": 11, "tier": "gold"}\n' > in/f2.jsonl
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "an added column stopped the flow: $out"
expect_in "$out" "source columns 'tier' are not in shop.bronze's declared column list"
columns=$("$bin" show lake/shop/bronze --format csv --columns id,name,amount --order-by id)
expect_eq "$columns" $'id,name,amount\n1,a,10\n2,b,11'

# A bad value among good ones: that row is set aside, the flow goes on.
printf '{"id": 3, "seq": 3, "name": "c", "amount": "abc"}\n{"id": 4, "seq": 4, "name": "d", "amount": 5}\n' \
  > in/f3.jsonl
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "one bad value stopped the flow: $out"
expect_in "$out" "1 row quarantined"
expect_eq "$("$bin" show lake/shop/bronze_quarantine --format csv --columns source_file --order-by source_file | grep -c f3.jsonl)" "1" \
  "quarantined rows of f3: "

# A retyped column: not one value fits; nothing of the batch is committed.
before=$(versions lake/shop/bronze)
printf '{"id": 5, "seq": 5, "name": "e", "amount": "x"}\n{"id": 6, "seq": 6, "name": "f", "amount": "y"}\n' \
  > in/f4.jsonl
rc=0
out=$("$bin" run p.sql --warehouse lake 2>&1) || rc=$?
expect_eq "$rc" "1" "exit status of a run whose source retyped a declared column: "
expect_in "$out" "shop.bronze declares its columns, and the source changed one the flow writes; none of the 2 values of column amount fits its declared type bigint; nothing of this batch is committed"
expect_eq "$(versions lake/shop/bronze)" "$before" "bronze versions after the stop: "
expect_eq "$("$bin" show lake/shop/bronze_quarantine --format csv --columns source_file | grep -c f4.jsonl || true)" \
  "0" "rows of the stopped batch quarantined: "
log=$("$bin" show lake/_event_log --format csv --columns event_type,status,details)
expect_in "$log" 'schema_change,failed,"{""action"":""blocked"",""column"":""amount"",""new_type"":""bigint"",""old_type"":""bigint"",""policy"":""declared columns"",""rows"":2,'
# The input fixed, the next run goes on.
rm in/f4.jsonl
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "a run after the input was fixed: $out"

# One bad value alone in its batch is a bad row too (a retyped column needs two values).
printf '{"id": 5, "seq": 5, "name": "e", "amount": "x"}\n' > in/f4b.jsonl
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "one bad value alone stopped the flow: $out"
expect_in "$out" "1 row quarantined"
# JSON Lines leave a key out to say NULL: a file without "name" is not a removed column.
printf '{"id": 6, "seq": 6, "amount": 2}\n' > in/f4c.jsonl
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "a JSON key left out stopped the flow: $out"
expect_eq "$("$bin" show lake/shop/bronze --format csv --columns id,name --order-by id | tail -1)" "6,"

# Values the reader set aside (read_files' schema => hint) count as the bad ones: one value
# that fits among them means bad rows, not a retyped column.
mkdir inh
cat > h.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.hinted (id BIGINT, name STRING, amount BIGINT)
AS SELECT * FROM STREAM(read_files('$work/inh/*.csv', format => 'csv',
                                   schema => 'id BIGINT, name STRING, amount BIGINT'));
SQL
printf 'id,name,amount\n1,a,10\n' > inh/1.csv
out=$("$bin" run h.sql --warehouse lake_h 2>&1) || fail "hinted CSV, first run: $out"
printf 'id,name,amount\n2,b,x\n3,c,y\n4,d,7\n' > inh/2.csv
out=$("$bin" run h.sql --warehouse lake_h 2>&1) || fail "two bad values beside one that fits stopped the flow: $out"
expect_eq "$("$bin" show lake_h/shop/hinted --format csv --columns id,amount --order-by id)" $'id,amount\n1,10\n4,7'

# A declared column the source stops sending (a Debezium update without it): the flow stops,
# naming it. A batch of key-only deletes (a Debezium delete's `before` under PostgreSQL's
# default replica identity) says nothing of the other columns and goes on.
mkdir inc
cat > c.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.people (id BIGINT, name STRING, amount BIGINT);
CREATE FLOW people AS AUTO CDC INTO shop.people
FROM STREAM(read_files('$work/inc/*.json', format => 'debezium'))
KEYS (id) APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table) STORED AS SCD TYPE 1;
SQL
ev() {  # ev LSN OP BEFORE AFTER: one Debezium event of the PostgreSQL connector
  printf '{"before":%s,"after":%s,"source":{"connector":"postgresql","ts_ms":%d,"db":"shop","sequence":"[\\"%d\\",\\"%d\\"]","schema":"public","table":"people","txId":%d,"lsn":%d},"op":"%s","ts_ms":%d}\n' \
    "$3" "$4" $((1700000000000 + $1)) "$1" "$1" "$1" "$1" "$2" $((1700000000000 + $1))
}
{ ev 10 c null '{"id":1,"name":"a","amount":10}'; ev 11 c null '{"id":2,"name":"b","amount":20}'; } > inc/1.json
out=$("$bin" run c.sql --warehouse lake_c 2>&1) || fail "Debezium, first run: $out"
ev 12 d '{"id":2}' null > inc/2.json
out=$("$bin" run c.sql --warehouse lake_c 2>&1) || fail "a batch of key-only deletes stopped the flow: $out"
expect_eq "$("$bin" show lake_c/shop/people --format csv --columns id,name --order-by id)" $'id,name\n1,a'
ev 13 u null '{"id":1,"amount":11}' > inc/3.json
before=$(versions lake_c/shop/people)
rc=0
out=$("$bin" run c.sql --warehouse lake_c 2>&1) || rc=$?
expect_eq "$rc" "1" "exit status of a run whose source stopped sending a declared column: "
expect_in "$out" "column name (string) is no longer sent; nothing of this batch is committed"
expect_eq "$(versions lake_c/shop/people)" "$before" "people versions after the stop: "
log=$("$bin" show lake_c/_event_log --format csv --columns event_type,status,message)
expect_in "$log" "schema_change,failed,column name of shop.people (string) is no longer sent: blocked by shop.people's declared column list"
# 'evolve' takes it: NULL there, said as no longer sent.
sed -i "s/amount BIGINT);/amount BIGINT) TBLPROPERTIES ('cdclake.schemaPolicy' = 'evolve');/" c.sql
grep -q "'evolve'" c.sql || fail "the test's pipeline has no policy"
out=$("$bin" run c.sql --warehouse lake_c 2>&1) || fail "the run under 'evolve': $out"
expect_in "$out" "column name of shop.people (string) is no longer in what the source sends: its rows get NULL there"
expect_eq "$("$bin" show lake_c/shop/people --format csv --columns id,name,amount --order-by id)" $'id,name,amount\n1,,11'

# 'block' on a declared table holds the batch that creates it to the declaration.
mkdir in2
cat > b.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.bronze (id BIGINT, seq BIGINT, name STRING)
TBLPROPERTIES ('cdclake.schemaPolicy' = 'block')
AS SELECT * FROM STREAM(read_files('$work/in2/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE shop.silver (id BIGINT, name STRING, amount BIGINT);
CREATE FLOW silver AS AUTO CDC INTO shop.silver FROM STREAM(read_files('$work/in2/*.csv', format => 'csv'))
KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (seq) STORED AS SCD TYPE 1;
SQL
printf 'id,seq,name,amount\n1,1,a,10\n' > in2/1.csv
rc=0
out=$("$bin" run b.sql --warehouse lake_b 2>&1) || rc=$?
expect_eq "$rc" "1" "exit status of a blocked first batch: "
expect_in "$out" "cdclake.schemaPolicy = 'block' on shop.bronze: the source's columns differ from the table's: column amount (bigint) is not in the table"
[ ! -d lake_b/shop/bronze/_delta_log ] || fail "a blocked first batch created the table"
# The declared AUTO CDC target (the default): a retyped column stops it, the table stays.
expect_eq "$("$bin" show lake_b/shop/silver --format csv --columns id,amount)" $'id,amount\n1,10'
before=$(versions lake_b/shop/silver)
printf 'id,seq,name,amount\n2,2,b,x\n3,3,c,y\n' > in2/2.csv
rc=0
out=$("$bin" run b.sql --warehouse lake_b 2>&1) || rc=$?
expect_eq "$rc" "1" "exit status with a retyped column into the declared SCD1 table: "
expect_in "$out" "flow silver failed: invalid argument: flow silver: shop.silver declares its columns, and the source changed one the flow writes; none of the 2 values of column amount fits its declared type bigint"
expect_eq "$(versions lake_b/shop/silver)" "$before" "silver versions after the stop: "
echo "declared schemas: added column tolerated, bad row quarantined, retyped and dropped columns stopped, 'evolve' and 'block' as documented"
