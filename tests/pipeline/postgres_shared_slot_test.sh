#!/usr/bin/env bash
# One replication slot for many tables (issue 15): four flows name the same connection and slot
# (a bronze table and a direct SCD1 table of `customers`, a direct SCD1 table of `orders`, and
# later one of `payments` from another publication). Checked against a real PostgreSQL:
# - the server has one slot, whatever the number of flows, and no copy leaves a slot behind;
# - every table equals its source after the copy, after changes spanning tables in one
#   transaction, a key change, a TRUNCATE of two tables in one statement, a backlog larger than
#   a pass holds (the run reads it in several passes), random SIGKILLs while changes keep coming
#   (bronze never holds a change twice), and a table that joins the slot later;
# - the slot's confirmed position moves to the end of what every flow committed, also over
#   another database's WAL, and stays put while a flow fails: that flow's changes made meanwhile
#   still reach its table once it runs again.
# Usage: postgres_shared_slot_test.sh CDCLAKE_BIN
# CDCLAKE_PG_KILL_ROUNDS (default 6) kills; CDCLAKE_PG_BINDIR picks the PostgreSQL binaries.
set -euo pipefail
bin=$1
rounds=${CDCLAKE_PG_KILL_ROUNDS:-6}
work=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/postgres_server.sh"
cleanup() {
  pg_server_stop
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }

pg_server_start "-c logical_decoding_work_mem=64kB -c shared_buffers=16MB -c fsync=off" \
  > "$work/start.log" 2>&1 ||
  fail "PostgreSQL did not start: $(cat "$work/start.log")"
sql() { "$pgbin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d "${DB:-postgres}" -c "$1"; }
cd "$work"

sql "CREATE TABLE customers (id int PRIMARY KEY, name text, notes text);
     ALTER TABLE customers ALTER notes SET STORAGE EXTERNAL;
     INSERT INTO customers SELECT g, 'name ' || g, repeat(md5(g::text), 100)
       FROM generate_series(1, 100) g;
     CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric(10,2));
     INSERT INTO orders SELECT g, g % 100, g * 0.5 FROM generate_series(1, 300) g;
     CREATE TABLE payments (id int PRIMARY KEY, amount int);
     INSERT INTO payments SELECT g, g FROM generate_series(1, 50) g;
     CREATE PUBLICATION shop FOR TABLE customers, orders;
     CREATE PUBLICATION pay FOR TABLE payments;"

flows() {
  cat <<'SQL'
CREATE OR REFRESH STREAMING TABLE shop.bronze_customers
AS SELECT * FROM STREAM(read_postgres(connection => '${pg}', publication => 'shop',
                                      slot => 'cdclake_shared', table => 'customers',
                                      spill_mb => 0));  -- the pass's transactions on disk

CREATE OR REFRESH STREAMING TABLE shop.customers;
CREATE FLOW customers AS AUTO CDC INTO shop.customers
FROM STREAM(read_postgres(connection => '${pg}', publication => 'shop',
                          slot => 'cdclake_shared', table => 'customers'))
KEYS (id) APPLY AS DELETE WHEN _op = 'd' APPLY AS TRUNCATE WHEN _op = 't' SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table) STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE shop.orders;
CREATE FLOW orders AS AUTO CDC INTO shop.orders
FROM STREAM(read_postgres(connection => '${pg}', publication => 'shop',
                          slot => 'cdclake_shared', table => 'orders'))
KEYS (id) APPLY AS DELETE WHEN _op = 'd' APPLY AS TRUNCATE WHEN _op = 't' SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table) STORED AS SCD TYPE 1;
SQL
}
flows > p.sql
{
  flows
  cat <<'SQL'

CREATE OR REFRESH STREAMING TABLE shop.payments;
CREATE FLOW payments AS AUTO CDC INTO shop.payments
FROM STREAM(read_postgres(connection => '${pg}', publication => 'pay',
                          slot => 'cdclake_shared', table => 'payments'))
KEYS (id) APPLY AS DELETE WHEN _op = 'd' APPLY AS TRUNCATE WHEN _op = 't' SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table) STORED AS SCD TYPE 1;
SQL
} > p4.sql

pipeline=p.sql
run() { "$bin" run "$work/$pipeline" --warehouse "$work/lake" --var "pg=$conninfo" "$@"; }
table_rows() { "$bin" show "$work/lake/shop/$1" --format csv --columns "$2" --order-by id | tail -n +2; }
source_rows() { sql "SELECT $2 FROM $1 ORDER BY id" | tr '|' ','; }
same_as_source() {
  local t
  for t in customers:customers:id,name,notes bronze:customers:- orders:orders:id,customer,amount \
    ${extra:-}; do
    local table=${t%%:*} rest=${t#*:}
    local source=${rest%%:*} columns=${rest#*:}
    [ "$columns" = - ] && continue
    source_rows "$source" "$columns" > want.csv
    table_rows "$table" "$columns" > got.csv
    cmp -s want.csv got.csv ||
      fail "$1: shop.$table differs from PostgreSQL's $source: $(diff want.csv got.csv | cut -c1-160 | head -6)"
  done
}
slots() { sql "SELECT string_agg(slot_name, ',' ORDER BY slot_name) FROM pg_replication_slots"; }
confirmed() { sql "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'cdclake_shared'"; }
at_least() { [ "$(sql "SELECT '$1'::pg_lsn >= '$2'::pg_lsn")" = t ]; }
no_bronze_twice() {
  local dups
  dups=$("$bin" show "$work/lake/shop/bronze_customers" --format csv --columns id,_seq | tail -n +2 | sort | uniq -d | wc -l)
  expect_eq "$dups" "0" "$1: bronze rows held twice: "
}

# 1. The first run copies both tables, each in a snapshot of its own, into one slot.
run > run1.log 2>&1 || fail "first run: $(cat run1.log)"
same_as_source "after the copies"
expect_eq "$(slots)" "cdclake_shared" "slots after the first run: "
grep -q "created replication slot 'cdclake_shared', shared by 3 flows" run1.log ||
  fail "the run does not say it created the shared slot: $(cat run1.log)"

# 2. Transactions spanning both tables, a key change, unchanged TOASTed values, deletes.
sql "BEGIN; UPDATE customers SET name = name || '!' WHERE id % 7 = 0;
     INSERT INTO orders VALUES (1001, 7, 1.5); DELETE FROM orders WHERE id < 10; COMMIT;"
sql "UPDATE customers SET id = 1005 WHERE id = 5; DELETE FROM customers WHERE id = 6"
end2=$(sql "SELECT pg_current_wal_lsn()")
run > run2.log 2>&1 || fail "second run: $(cat run2.log)"
same_as_source "after changes spanning both tables"
at_least "$(confirmed)" "$end2" || fail "the slot stayed at $(confirmed), before $end2 the run read"
grep -Eq "^flow orders: source lag: slot cdclake_shared \(shared by 3 flows\): [0-9.]+ k?B of WAL after this flow's position" run2.log ||
  fail "the summary does not give the shared slot's lag: $(grep 'source lag' run2.log)"

# 3. One TRUNCATE of both tables, then a backlog larger than a pass holds (--batch-rows 20:
#    a pass keeps at most 1,000 changes), read in several passes of one run.
sql "TRUNCATE customers, orders; INSERT INTO customers VALUES (1, 'after', 'n'), (2, 'truncate', 'n');
     INSERT INTO orders VALUES (1, 1, 1)"
for k in $(seq 0 59); do  # 60 transactions of 50 rows, one UPDATE of 800
  echo "INSERT INTO orders SELECT g, g % 2 + 1, g FROM generate_series($((k * 50 + 2)), $((k * 50 + 51))) g;"
done > backlog.sql
echo "UPDATE orders SET amount = amount + 1 WHERE id % 3 = 0;" >> backlog.sql
"$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d postgres -f backlog.sql
run --batch-rows 20 --log-format json > run3.log 2>&1 || fail "run of a backlog: $(cat run3.log)"
same_as_source "after a TRUNCATE of both tables and a backlog"
passes=$(grep -o '"passes":[0-9]*' run3.log | cut -d: -f2)
[ "${passes:-0}" -ge 3 ] || fail "a backlog of 3,800 changes took ${passes:-?} passes of at most 1,000"

# 4. SIGKILL at random moments while both tables keep changing: no change twice in bronze and
#    every table equal to its source after a run to the end.
killed=0
for i in $(seq 1 "$rounds"); do
  for j in $(seq 1 15); do
    echo "BEGIN; UPDATE customers SET name = 'r$i.$j' WHERE id = $(( (i + j) % 2 + 1 ));
          INSERT INTO orders VALUES ($((10000 + i * 100 + j)), $i, $j); COMMIT;"
  done > round.sql
  echo "INSERT INTO customers VALUES ($((5000 + i)), 'k$i', 'n'); DELETE FROM orders WHERE id = $((10000 + (i - 1) * 100 + 1));" >> round.sql
  "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d postgres -f round.sql
  # The binary itself, not a function: a kill must reach cdclake, not a subshell around it.
  "$bin" run "$work/$pipeline" --warehouse "$work/lake" --var "pg=$conninfo" --batch-rows 5 \
    > "kill$i.log" 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 3))$((RANDOM % 10))"
  kill -9 "$pid" 2>/dev/null && killed=$((killed + 1)) || true
  wait "$pid" 2>/dev/null || true
done
[ "$killed" -gt 0 ] || fail "no run was killed before it finished: the kills test nothing"
run > run4.log 2>&1 || fail "run after the kills: $(cat run4.log)"
same_as_source "after $killed kills"
no_bronze_twice "after the kills"
expect_eq "$(slots)" "cdclake_shared" "slots after the kills (a killed copy's temporary slot goes with it): "

# 5. A table joins the slot later, from another publication: copied in its own snapshot while
#    the others stream on; still one slot.
pipeline=p4.sql
extra=payments:payments:id,amount
sql "UPDATE payments SET amount = -amount WHERE id = 1; UPDATE customers SET name = 'joined' WHERE id = 1"
run > run5.log 2>&1 || fail "run with a fourth flow: $(cat run5.log)"
same_as_source "after payments joined the slot"
expect_eq "$(slots)" "cdclake_shared" "slots after a table joined: "
sql "INSERT INTO payments VALUES (51, 51); DELETE FROM payments WHERE id = 2; UPDATE orders SET amount = 0 WHERE id = 1"
run > run5b.log 2>&1 || fail "run after payments changed: $(cat run5b.log)"
same_as_source "after payments changed"

# 6. Only another database writes: the slot still moves over its WAL.
sql "CREATE DATABASE other"
DB=other sql "CREATE TABLE t (x int); INSERT INTO t SELECT generate_series(1, 1000)"
other_end=$(sql "SELECT pg_current_wal_lsn()")
run > run6.log 2>&1 || fail "run after another database wrote: $(cat run6.log)"
at_least "$(confirmed)" "$other_end" || fail "the slot stayed at $(confirmed) while another database wrote up to $other_end"

# 7. A flow fails (its table renamed away): the others go on, the slot stays where the failing
#    flow's table is, and the changes made meanwhile reach that table once it runs again.
held=$(confirmed)
sql "ALTER TABLE payments RENAME TO payments_away"
sql "UPDATE payments_away SET amount = 700 WHERE id = 7; UPDATE customers SET name = 'while failing' WHERE id = 1"
# More changes than a pass holds (--batch-rows 5: 1,000): the run must still end, the slot
# not moving, rather than read the same changes pass after pass.
for k in $(seq 0 29); do
  echo "UPDATE orders SET amount = amount + 1 WHERE id BETWEEN $((k * 50 + 1)) AND $((k * 50 + 50));"
done > held.sql
"$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d postgres -f held.sql
set +e
timeout 120 "$bin" run "$work/$pipeline" --warehouse "$work/lake" --var "pg=$conninfo" \
  --batch-rows 5 > run7.log 2>&1
code=$?
set -e
[ "$code" -ne 124 ] || fail "a run with a failing flow and a backlog did not end: $(tail -5 run7.log)"
[ "$code" -ne 0 ] || fail "a flow whose table is gone did not fail: $(cat run7.log)"
grep -q "replication slot 'cdclake_shared' stays where it is: 3 of the 4 flows" run7.log ||
  fail "the run does not say the slot is held back: $(cat run7.log)"
expect_eq "$(confirmed)" "$held" "the slot's position while a flow fails: "
expect_eq "$(table_rows customers id,name | grep '^1,')" "1,while failing" "customers while payments fails: "
sql "ALTER TABLE payments_away RENAME TO payments"
run > run7b.log 2>&1 || fail "run after the table came back: $(cat run7b.log)"
same_as_source "after the failing flow ran again"
expect_eq "$(table_rows payments id,amount | grep '^7,')" "7,700" "payments' change made while its flow failed: "
same_as_source "after a held-back backlog"

# 8. A flow joins with a publication created after the slot's position: pgoutput cannot read
#    it from there, and the error says what to do; put in an older publication and copied
#    again, the table joins.
sql "CREATE TABLE latecomer (id int PRIMARY KEY, v text); INSERT INTO latecomer VALUES (1, 'a');
     CREATE PUBLICATION late FOR TABLE latecomer"
late() {
  cat p4.sql
  cat <<SQL

CREATE OR REFRESH STREAMING TABLE shop.latecomer;
CREATE FLOW latecomer AS AUTO CDC INTO shop.latecomer
FROM STREAM(read_postgres(connection => '\${pg}', publication => '$1',
                          slot => 'cdclake_shared', table => 'latecomer'))
KEYS (id) APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table) STORED AS SCD TYPE 1;
SQL
}
late late > p5.sql
pipeline=p5.sql
set +e
run > run8.log 2>&1
code=$?
set -e
[ "$code" -ne 0 ] || fail "a publication newer than the shared slot's position went unnoticed: $(cat run8.log)"
grep -q "before that publication was created: put the table in a publication that is older" run8.log ||
  fail "the error does not say what to do: $(cat run8.log)"
sql "ALTER PUBLICATION shop ADD TABLE latecomer; INSERT INTO latecomer VALUES (2, 'b')"
late shop > p5.sql
run --full-refresh shop.latecomer > run8b.log 2>&1 || fail "run after the fix: $(cat run8b.log)"
sql "UPDATE latecomer SET v = 'c' WHERE id = 1"
run > run8c.log 2>&1 || fail "run after latecomer changed: $(cat run8c.log)"
extra="payments:payments:id,amount latecomer:latecomer:id,v"
same_as_source "after latecomer joined"
no_bronze_twice "at the end"
echo "ok: shared slot: 4 flows, 1 slot, $killed kills"
