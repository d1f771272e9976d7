#!/usr/bin/env bash
# Expectations (issue 17), end to end as a pipeline writes them: CONSTRAINT ... EXPECT on a
# bronze table (one DROP ROW, one kept and counted) and on an AUTO CDC target (FAIL UPDATE).
# Checked: dropped rows are in the flow's quarantine table naming the expectation and nothing is
# lost; kept rows are counted; the run summary, the JSON log and the event log have each
# expectation's passed and failed rows; a FAIL UPDATE violation stops the flow before anything
# of its batch is committed, naming the expectation and the row, and keeps stopping it until
# the pipeline changes; a NULL condition fails; a condition over a missing column is named.
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

pipeline() {  # $1: the action of the silver's expectation
  cat <<SQL
CREATE OR REFRESH STREAMING TABLE shop.bronze_orders (
  CONSTRAINT has_id EXPECT (id IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT positive EXPECT (amount > 0)
) AS SELECT * FROM STREAM(read_files('$work/in/orders-*.csv', format => 'csv',
                                     schema => 'id BIGINT, seq BIGINT, amount INT, note STRING'));

CREATE OR REFRESH STREAMING TABLE shop.orders (
  CONSTRAINT sane_amount EXPECT (amount IS NULL OR amount < 1000) $1
);
CREATE FLOW orders AS AUTO CDC INTO shop.orders FROM STREAM(shop.bronze_orders)
KEYS (id) SEQUENCE BY seq COLUMNS id, amount, note STORED AS SCD TYPE 1;
SQL
}
pipeline "ON VIOLATION FAIL UPDATE" > p.sql

# 1. A row without an id is dropped into bronze's quarantine; a negative amount is kept and
#    counted; an amount of NULL fails `amount > 0` (NULL is not TRUE).
printf 'id,seq,amount,note\n1,1,10,a\n,2,5,no id\n2,3,-4,negative\n3,4,,no amount\n4,5,20,d\n' > in/orders-1.csv
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "first run: $out"
expect_in "$out" "flow shop.bronze_orders: expectation has_id (drop row): 4 passed, 1 failed"
expect_in "$out" "flow shop.bronze_orders: expectation positive (warn): 3 passed, 2 failed"
expect_in "$out" "flow orders: expectation sane_amount (fail update): 4 passed, 0 failed"
bronze=$("$bin" show lake/shop/bronze_orders --format csv --columns id,amount --order-by id | tail -n +2 | tr '\n' ' ')
expect_eq "$bronze" "1,10 2,-4 3, 4,20 " "bronze after the first run: "
quarantined=$("$bin" show lake/shop/bronze_orders_quarantine --format jsonl)
expect_in "$quarantined" "dropped by expectation has_id (id IS NOT NULL)" "bronze's quarantine: "
expect_in "$quarantined" ",2,5,no id" "bronze's quarantine keeps the row: "
log=$("$bin" show lake/_event_log --format csv --columns flow,data_quality)
expect_in "$log" '"dropped_records"":1' "the event log's data quality: "
expect_in "$log" '""failed_records"":2,""name"":""positive"",""passed_records"":3' "the event log's data quality: "

# 2. An amount the silver refuses: the silver flow stops before committing anything of the
#    batch, naming the expectation and the row; bronze has the row (nothing is lost).
printf 'id,seq,amount,note\n5,6,5000,big\n6,7,30,fine\n' > in/orders-2.csv
before=$(versions lake/shop/orders)
rc=0
out=$("$bin" run p.sql --warehouse lake --log-format json 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "a FAIL UPDATE violation did not fail the run: $out"
expect_in "$out" "expectation sane_amount (amount IS NULL OR amount < 1000) failed on the row"
expect_in "$out" "amount=5000"
expect_in "$out" "nothing of this batch is committed"
expect_eq "$(versions lake/shop/orders)" "$before" "silver versions after FAIL UPDATE: "
expect_in "$("$bin" show lake/shop/bronze_orders --format csv --columns id)" "5" "bronze keeps the row: "
expect_in "$out" '"data_quality":{"dropped_records":0,"expectations":[{"dataset":"shop.bronze_orders"' \
  "the JSON log's data quality: "
# It stays stopped while the row is there...
rc=0
"$bin" run p.sql --warehouse lake > again.log 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "the second run went past the violation: $(cat again.log)"
expect_eq "$(versions lake/shop/orders)" "$before" "silver versions after a second run: "
# ...until the pipeline drops such rows instead: then the silver goes on and quarantines it.
pipeline "ON VIOLATION DROP ROW" > p.sql
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "run with DROP ROW: $out"
silver=$("$bin" show lake/shop/orders --format csv --columns id,amount --order-by id | tail -n +2 | tr '\n' ' ')
expect_eq "$silver" "1,10 2,-4 3, 4,20 6,30 " "silver after DROP ROW: "
expect_in "$("$bin" show lake/shop/orders_quarantine --format jsonl)" \
  "dropped by expectation sane_amount (amount IS NULL OR amount < 1000)" "silver's quarantine: "

# 3. A view's expectations check the rows it yields, counted under the view's name; the rows it
#    drops go to the quarantine of the flow reading through it.
cat > view.sql <<SQL
CREATE TEMPORARY VIEW recent (
  CONSTRAINT has_note EXPECT (note IS NOT NULL) ON VIOLATION DROP ROW
) AS SELECT id, amount, note FROM STREAM(shop.bronze_orders) WHERE id > 0;
CREATE OR REFRESH STREAMING TABLE shop.noted AS SELECT * FROM recent;
SQL
{ cat p.sql; cat view.sql; } > pv.sql
printf 'id,seq,amount,note\n9,9,1,\n' > in/orders-4.csv
out=$("$bin" run pv.sql --warehouse lake 2>&1) || fail "run with a view's expectation: $out"
expect_in "$out" "flow shop.noted: expectation has_note of recent (drop row):"
noted=$("$bin" show lake/shop/noted --format csv --columns id --order-by id | tail -n +2 | tr '\n' ' ')
[ -n "$noted" ] || fail "nothing reached shop.noted: $out"
if grep -q "^9 \| 9 " <<<" $noted"; then fail "the row without a note passed the view: $noted"; fi
expect_in "$("$bin" show lake/shop/noted_quarantine --format jsonl)" \
  "dropped by expectation has_note (note IS NOT NULL)" "the view's dropped row in quarantine: "
rm -f in/orders-4.csv

# 4. A condition over a column the rows do not have is named with the expectation.
sed 's/amount > 0/amout > 0/' p.sql > bad.sql
printf 'id,seq,amount,note\n7,8,1,x\n' > in/orders-3.csv
rc=0
out=$("$bin" run bad.sql --warehouse lake 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "a misspelled column in an expectation went unnoticed: $out"
expect_in "$out" "expectation positive (amout > 0)"
echo "ok: expectations"
