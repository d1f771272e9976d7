#!/usr/bin/env bash
# Append flows (CREATE FLOW f AS INSERT INTO [ONCE] t BY NAME SELECT ..., Python's
# @dp.append_flow): several flows append to one streaming table, each from its own position; a
# ONCE flow (a backfill read in batch) runs once, and again on a full refresh; the table's
# expectations hold for every flow; a table reading it waits for all of them; the Python file
# declaring the same flows gives the same table.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
cd "$work"

mkdir eu us old
printf 'id,amount\n1,10\n2,-5\n' > eu/e1.csv
printf 'id,amount,region\n3,30,us\n' > us/u1.csv
printf 'id,amount\n100,1\n101,2\n' > old/o1.csv
cat > p.sql <<SQL
CREATE OR REFRESH STREAMING TABLE s.orders (CONSTRAINT positive EXPECT (amount > 0) ON VIOLATION DROP ROW);
CREATE FLOW eu AS INSERT INTO s.orders BY NAME
SELECT id, amount FROM STREAM(read_files('$work/eu/*.csv', format => 'csv'));
CREATE FLOW us COMMENT 'the US shop' AS INSERT INTO s.orders BY NAME
SELECT id, amount, region FROM STREAM(read_files('$work/us/*.csv', format => 'csv'));
CREATE FLOW backfill AS INSERT INTO ONCE s.orders BY NAME
SELECT id, amount FROM read_files('$work/old/*.csv', format => 'csv');
CREATE OR REFRESH STREAMING TABLE s.big AS SELECT id, amount FROM STREAM(s.orders) WHERE amount >= 10;
SQL
cat > p.py <<PY
from pyspark import pipelines as dp
from pyspark.sql.functions import col

dp.create_streaming_table("s.orders", expect_all_or_drop={"positive": "amount > 0"})

@dp.append_flow(target="s.orders")
def eu():
    return spark.readStream.format("csv").option("header", "true").load("$work/eu/*.csv").select("id", "amount")

@dp.append_flow(target="s.orders", name="us", comment="the US shop")
def us_shop():
    return spark.readStream.format("csv").option("header", "true").load("$work/us/*.csv").select("id", "amount", "region")

@dp.append_flow(target="s.orders", once=True)
def backfill():
    return spark.read.format("csv").option("header", "true").load("$work/old/*.csv").select("id", "amount")

@dp.table(name="s.big")
def big():
    return spark.readStream.table("s.orders").where(col("amount") >= 10).select("id", "amount")
PY
rows() { "$bin" show "$work/$1/s/$2" --format csv --columns "$3" --order-by id | tail -n +2 | tr '\n' ' '; }

for form in sql py; do
  lake=lake_$form
  run() { "$bin" run "$work/p.$form" --warehouse "$work/$lake" "$@"; }
  run > "$form-1.log" 2>&1 || fail "$form: first run: $(cat "$form-1.log")"
  expect_eq "$(rows "$lake" orders id,amount,region)" "1,10, 3,30,us 100,1, 101,2, " "$form: orders: "
  expect_eq "$(rows "$lake" big id,amount)" "1,10 3,30 " "$form: big: "
  grep -q "flow eu: expectation positive (drop row): 1 passed, 1 failed" "$form-1.log" || fail "$form: no expectation line"
  # Each flow from its own position: a new EU file appends only its rows; the backfill is done.
  printf 'id,amount\n4,40\n' > eu/e2.csv
  run > "$form-2.log" 2>&1 || fail "$form: second run: $(cat "$form-2.log")"
  grep -q "flow backfill skipped: ONCE: ran before" "$form-2.log" || fail "$form: $(cat "$form-2.log")"
  expect_eq "$(rows "$lake" orders id)" "1 3 4 100 101 " "$form: orders after a new file: "
  expect_eq "$(rows "$lake" big id)" "1 3 4 " "$form: big after a new file: "
  run > "$form-3.log" 2>&1 || fail "$form: third run: $(cat "$form-3.log")"
  expect_eq "$(rows "$lake" orders id)" "1 3 4 100 101 " "$form: orders after a run with nothing new: "
  # A full refresh of the table runs every flow into it again, the backfill included.
  run --full-refresh s.orders s.big > "$form-4.log" 2>&1 || fail "$form: refresh: $(cat "$form-4.log")"
  expect_eq "$(rows "$lake" orders id)" "1 3 4 100 101 " "$form: orders after a full refresh: "
  expect_eq "$(rows "$lake" big id)" "1 3 4 " "$form: big after a full refresh: "
  rm eu/e2.csv
done
expect_eq "$(rows lake_py orders id,amount,region)" "$(rows lake_sql orders id,amount,region)" \
  "the Python file's table differs from the SQL file's: "
# The quarantine holds the dropped row with the expectation's name.
quarantine=$("$bin" show "$work/lake_sql/s/orders_quarantine" --format csv)
grep -q "positive" <<<"$quarantine" ||
  fail "no quarantined row naming the expectation"

# A ONCE backfill is one batch, one commit: killed before it commits, the next run does it
# whole (in batches, a run killed after the first commit would skip the rest for ever).
mkdir bf
printf 'id,amount\n1,1\n2,2\n' > bf/a.csv
printf 'id,amount\n3,3\n4,-4\n' > bf/b.csv
printf 'id,amount\n5,5\n6,6\n' > bf/c.csv
cat > once.sql <<SQL
CREATE OR REFRESH STREAMING TABLE s.hist (CONSTRAINT positive EXPECT (amount > 0) ON VIOLATION DROP ROW);
CREATE FLOW backfill AS INSERT INTO ONCE s.hist BY NAME
SELECT id, amount FROM read_files('$work/bf/*.csv', format => 'csv');
SQL
rc=0
CDCLAKE_CRASH_AT=ingest-quarantine-committed "$bin" run once.sql --warehouse "$work/lake_once" \
  --batch-rows 2 > once1.log 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "the crash point did not stop the run: $(cat once1.log)"
"$bin" run once.sql --warehouse "$work/lake_once" --batch-rows 2 > once2.log 2>&1 ||
  fail "after the crash: $(cat once2.log)"
expect_eq "$(rows lake_once hist id)" "1 2 3 5 6 " "the backfill after a crash: "
"$bin" run once.sql --warehouse "$work/lake_once" --batch-rows 2 > once3.log 2>&1 ||
  fail "third: $(cat once3.log)"
grep -q "flow backfill skipped: ONCE: ran before" once3.log || fail "ran twice: $(cat once3.log)"
expect_eq "$(rows lake_once hist id)" "1 2 3 5 6 " "the backfill after a third run: "

# A bare --full-refresh refreshes the tables none of whose flows reads files: a table fed by an
# append flow from files and one from a table keeps its rows (its files may be gone).
mkdir mix ref
printf 'id\n1\n2\n' > mix/m1.csv
printf 'id\n7\n' > ref/r1.csv
cat > mix.sql <<SQL
CREATE OR REFRESH STREAMING TABLE s.ref AS SELECT * FROM STREAM(read_files('$work/ref/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE s.mixed;
CREATE FLOW from_files AS INSERT INTO s.mixed BY NAME SELECT id FROM STREAM(read_files('$work/mix/*.csv', format => 'csv'));
CREATE FLOW from_ref AS INSERT INTO s.mixed BY NAME SELECT id FROM STREAM(s.ref);
CREATE OR REFRESH STREAMING TABLE s.copy AS SELECT id FROM STREAM(s.mixed);
SQL
"$bin" run mix.sql --warehouse "$work/lake_mix" > mix1.log 2>&1 || fail "mix: $(cat mix1.log)"
expect_eq "$(rows lake_mix mixed id)" "1 2 7 " "mixed: "
rm mix/m1.csv  # archived
"$bin" run mix.sql --warehouse "$work/lake_mix" --full-refresh > mix2.log 2>&1 || fail "refresh: $(cat mix2.log)"
expect_eq "$(rows lake_mix mixed id)" "1 2 7 " "mixed after a bare --full-refresh: "
expect_eq "$(rows lake_mix copy id)" "1 2 7 " "its copy, refreshed and read again: "

# An append flow into an AUTO CDC target is refused at planning, naming both flows.
cat > bad.sql <<SQL
CREATE OR REFRESH STREAMING TABLE s.cur;
CREATE FLOW cur AS AUTO CDC INTO s.cur FROM STREAM(read_files('$work/eu/*.csv', format => 'csv'))
KEYS (id) SEQUENCE BY amount;
CREATE FLOW more AS INSERT INTO s.cur BY NAME SELECT * FROM STREAM(read_files('$work/us/*.csv', format => 'csv'));
SQL
rc=0
out=$("$bin" run bad.sql --warehouse "$work/bad" 2>&1) || rc=$?
expect_eq "$rc" "2" "exit code of a refused plan: "
grep -q "flow more writes s.cur, which AUTO CDC flow cur already keeps by key" <<<"$out" ||
  fail "refusal not named: $out"
[ ! -d bad/s/cur ] || fail "a refused plan wrote a table"
echo "append flows test passed"
