#!/usr/bin/env bash
# End to end: `cdclake run` on the quick start — Debezium files into bronze, then SCD1 and SCD2
# silver tables with out-of-order, duplicate and late events; a rerun writes nothing; a new file
# is picked up alone; a full refresh rebuilds the same tables; the event log counts every batch;
# a malformed pipeline fails with line:column and exit code 2.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }

mkdir -p "$work/data"
cp -r "$root/examples/quickstart/data/customers" "$root/examples/quickstart/data/orders" \
  "$work/data/"
# Hold back the second orders file: it arrives later.
mv "$work/data/orders/orders-0002.json" "$work/orders-0002.json"
cd "$work"
pipeline=$root/examples/quickstart/pipeline.sql
run() { "$bin" run "$pipeline" --var data=data --warehouse lake "$@"; }
versions() { ls "lake/shop/$1/_delta_log" | grep -c '\.json$'; }

out=$(run --dry-run)
grep -q "AUTO CDC into shop.customers_history" <<<"$out" || fail "dry run: $out"
[ ! -d lake ] || fail "a dry run wrote tables"

run > run1.log || fail "first run: $(cat run1.log)"
customers=$("$bin" show lake/shop/customers --format csv --order-by id)
expect_eq "$customers" 'id,name,email,city,tier
1,Ada Lovelace,ada@example.com,Marylebone,
2,Grace Hopper,grace@navy.example,Arlington,
4,Edsger Dijkstra,ewd@example.com,Austin,gold
5,Barbara Liskov,barbara@example.com,Boston,silver' "customers: "
history=$("$bin" show lake/shop/customers_history --format csv --columns id,city,__END_AT,__START_AT \
  --order-by id,__START_AT | awk -F, 'NR > 1 { print $1 "," $2 "," ($3 == "" ? "open" : "closed") }')
expect_eq "$history" '1,London,closed
1,St James'"'"'s,closed
1,Marylebone,open
2,Arlington,closed
2,Arlington,open
3,Wilmslow,closed
3,Manchester,closed
4,Nuenen,closed
4,Austin,open
5,Boston,open' "customers_history: "
orders=$("$bin" show lake/shop/orders --format csv --order-by order_id)
expect_eq "$orders" 'order_id,customer_id,status,amount
100,1,paid,25.50
101,2,placed,110.00
102,4,placed,9.99' "orders before the second file: "

# A rerun finds nothing new and writes no version anywhere.
before="$(versions bronze_customers) $(versions customers) $(versions customers_history) $(versions orders)"
run > run2.log
after="$(versions bronze_customers) $(versions customers) $(versions customers_history) $(versions orders)"
expect_eq "$after" "$before" "versions after a rerun: "

# The held-back file arrives: only the orders flows read it.
mv "$work/orders-0002.json" data/orders/
cust_before=$(versions customers)
run > run3.log
expect_eq "$(versions customers)" "$cust_before" "customers versions after an orders file: "
orders=$("$bin" show lake/shop/orders --format csv --order-by order_id)
expect_eq "$orders" 'order_id,customer_id,status,amount
100,1,shipped,25.50
101,2,shipped,110.00' "orders after the second file: "
bronze_rows=$("$bin" show lake/shop/bronze_orders --format csv | tail -n +2 | wc -l)
expect_eq "$bronze_rows" 8 "bronze_orders rows: "

# The event log has a row per flow batch; rows read by the orders flow add up to bronze's rows.
log=$("$bin" show lake/_event_log --format csv --columns flow,rows_read,status)
read_orders=$(awk -F, '$1 == "orders_current" { n += $2 } END { print n + 0 }' <<<"$log")
expect_eq "$read_orders" 8 "orders_current rows read in the event log: "

# A full refresh of the silver tables gives the same tables.
for t in customers customers_history orders; do
  "$bin" show "lake/shop/$t" --format csv > "$t.before.csv"
done
run --full-refresh > run4.log
for t in customers customers_history orders; do
  "$bin" show "lake/shop/$t" --format csv > "$t.after.csv"
  sort "$t.before.csv" > a; sort "$t.after.csv" > b
  cmp -s a b || fail "$t differs after a full refresh: $(diff a b | head)"
done
grep -q "bronze" run4.log || true

# Lineage in the event log: each row names the Delta table id of its target and, for flows
# reading a table, of that upstream; a full refresh gives the tables new ids, so the rows
# before and after it name different ones, and the last rows name the tables as they are.
table_id() {
  grep -h '^{"metaData"' "lake/shop/$1/_delta_log/"*.json | tail -1 |
    grep -o '"id":"[0-9a-f-]*"' | head -1 | cut -d'"' -f4
}
log=$("$bin" show lake/_event_log --format csv --columns flow,table_id,input_table_id \
  --order-by event_time)
ids=$(awk -F, '$1 == "orders_current" { print $2 }' <<<"$log" | sort -u | wc -l)
expect_eq "$ids" 2 "orders_current's table ids in the event log (before and after the refresh): "
last=$(awk -F, '$1 == "orders_current" { line = $0 } END { print line }' <<<"$log")
expect_eq "$last" "orders_current,$(table_id orders),$(table_id bronze_orders)" "lineage of the last orders batch: "

# A silver batch that changes nothing (its bronze rows are duplicates and older events) writes no
# version, and the next run does not read those bronze rows again.
mkdir -p dup
cat > dup.sql <<'EOF'
CREATE OR REFRESH STREAMING TABLE d.bronze
AS SELECT * FROM STREAM(read_files('dup/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE d.silver;
CREATE FLOW silver_flow AS AUTO CDC INTO d.silver FROM STREAM(d.bronze)
KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (_source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;
EOF
printf 'id,v,seq\n1,a,10\n' > dup/d1.csv
"$bin" run dup.sql --warehouse dlake > /dev/null
printf 'id,v,seq\n1,a,10\n1,old,5\n' > dup/d2.csv
"$bin" run dup.sql --warehouse dlake > /dev/null
versions=$(ls dlake/d/silver/_delta_log/*.json | wc -l)
"$bin" run dup.sql --warehouse dlake > /dev/null
expect_eq "$(ls dlake/d/silver/_delta_log/*.json | wc -l)" "$versions" "silver versions after duplicates: "
dlog=$("$bin" show dlake/_event_log --format csv --columns flow,rows_read)
expect_eq "$(awk -F, '$1 == "silver_flow" { n += $2 } END { print n + 0 }' <<<"$dlog")" 3 \
  "bronze rows the silver read over three runs (the duplicates once): "
expect_eq "$("$bin" show dlake/d/silver --format csv --columns id,v,seq)" 'id,v,seq
1,a,10' "silver after duplicates: "

# A malformed pipeline: exit code 2 and the line and column.
printf 'CREATE OR REFRESH STREAMING TABLE t;\nCREATE FLOW f AS AUTO CDC INTO t\nFROM STREAM(s) KEYS (id) SEQUENCE BY;\n' > bad.sql
set +e
err=$("$bin" run bad.sql --warehouse lake 2>&1)
code=$?
set -e
expect_eq "$code" 2 "exit code of a malformed pipeline: "
grep -q "line 3, column" <<<"$err" || fail "no line:column in: $err"
echo "cli_run: ok"
