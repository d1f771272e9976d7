#!/usr/bin/env bash
# read_postgres end to end against a real PostgreSQL (issue 15): the first run copies the table
# through a new slot's exported snapshot, later runs stream; bronze gets every change once, an
# SCD1 silver built from bronze and one reading read_postgres directly equal the source table
# after inserts, updates (TOASTed values left unchanged), deletes, primary-key changes, a rolled
# back savepoint, a transaction large enough to be streamed in progress, and a TRUNCATE; a run
# with nothing new commits nothing; the slot's confirmed position follows the commits and
# advances over other databases' WAL; a cdclake killed at random moments and run again leaves
# every table the same, as does a terminated walsender and a crashed server; `cdclake reconcile`
# finds a table equal, then names the keys of changes not read yet; columns added between runs and inside a transaction reach every table; a
# dropped slot stops the flow with an error that says what to do, and a
# full refresh copies the table again; a leftover slot with no position is made again; a first
# copy killed half-way is made again after a truncate; a run killed at each step of the snapshot
# hand-off (CDCLAKE_CRASH_AT) is followed by runs that leave every table equal to the source.
# Usage: postgres_source_test.sh CDCLAKE_BIN
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

pg_server_start "-c logical_decoding_work_mem=64kB -c shared_buffers=16MB -c fsync=off -c max_replication_slots=30 -c max_wal_senders=30" \
  > "$work/start.log" 2>&1 ||
  fail "PostgreSQL did not start: $(cat "$work/start.log")"
sql() { "$pgbin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d "${DB:-postgres}" -c "$1"; }
cd "$work"

sql "CREATE TABLE customers (id int PRIMARY KEY, name text, balance numeric(12,2), notes text);
     ALTER TABLE customers ALTER notes SET STORAGE EXTERNAL;
     INSERT INTO customers SELECT g, 'name ' || g, g * 1.25, repeat(md5(g::text), 100)
       FROM generate_series(1, 200) g;
     CREATE PUBLICATION cdclake FOR TABLE customers;"

cat > p.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE shop.bronze_customers
AS SELECT * FROM STREAM(read_postgres(
     connection  => '${pg}',
     publication => 'cdclake',
     slot        => 'cdclake_shop',
     table       => 'public.customers'));

CREATE OR REFRESH STREAMING TABLE shop.customers;
CREATE FLOW customers AS AUTO CDC INTO shop.customers
FROM STREAM(shop.bronze_customers)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
APPLY AS TRUNCATE WHEN _op = 't'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table)
STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE shop.customers_direct;
CREATE FLOW customers_direct AS AUTO CDC INTO shop.customers_direct
FROM STREAM(read_postgres(connection => '${pg}', publication => 'cdclake',
                          slot => 'cdclake_direct', table => 'customers',
                          copy_connections => 2,  -- one all the same: the table is small
                          spill_mb => 0))  -- every change waits for its commit on disk
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
APPLY AS TRUNCATE WHEN _op = 't'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table)
STORED AS SCD TYPE 1;
SQL

run() { "$bin" run "$work/p.sql" --warehouse "$work/lake" --var "pg=$conninfo" "$@"; }
table_rows() { "$bin" show "$work/lake/shop/$1" --format csv --columns id,name,balance,notes --order-by id | tail -n +2; }
source_rows() { sql "SELECT id, name, balance, notes FROM customers ORDER BY id" | tr '|' ','; }
same_as_source() {
  source_rows > want.csv
  for t in customers customers_direct; do
    table_rows "$t" > "got_$t.csv"
    cmp -s want.csv "got_$t.csv" ||
      fail "$1: shop.$t differs from PostgreSQL's table: $(diff want.csv "got_$t.csv" | cut -c1-160 | head -6)"
  done
}
version_of() { ls "$work/lake/shop/$1/_delta_log/" | grep -c '\.json$'; }
bronze_count() { "$bin" show "$work/lake/shop/bronze_customers" --format csv --columns "$1" | tail -n +2 | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' '; }
confirmed() { sql "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '$1'"; }

# 1. The first run copies the table: 200 `r` rows in bronze, both silvers equal to the source.
run > run1.log 2>&1 || fail "first run: $(cat run1.log)"
expect_eq "$(bronze_count _op)" "r=200 " "bronze after the snapshot: "
same_as_source "after the snapshot"
before_changes=$(sql "SELECT pg_current_wal_lsn()")

# 2. Changes of every kind, then a run: streamed, applied once.
sql "UPDATE customers SET balance = balance + 1 WHERE id % 10 = 0"   # notes: unchanged TOAST
sql "DELETE FROM customers WHERE id BETWEEN 21 AND 25"
sql "UPDATE customers SET id = 1005, name = 'moved' WHERE id = 5"     # a key change
sql "BEGIN; INSERT INTO customers VALUES (300, 'kept', 1, 'x');
     SAVEPOINT s; INSERT INTO customers VALUES (301, 'rolled back', 1, 'y'); ROLLBACK TO s;
     UPDATE customers SET name = 'renamed' WHERE id = 7; COMMIT;"
sql "INSERT INTO customers SELECT g, 'bulk ' || g, g, md5(g::text) FROM generate_series(1000, 4999) g WHERE g <> 1005"
sql "BEGIN; INSERT INTO customers VALUES (400, 'aborted', 1, 'z'); ROLLBACK;"
run > run2.log 2>&1 || fail "second run: $(cat run2.log)"
same_as_source "after inserts, updates, deletes and a key change"
# spill_mb => 0: the direct flow's transactions went through files beside its table, gone now.
spill="$work/lake/shop/customers_direct/_cdclake/spill"
[ -d "$spill" ] || fail "the direct flow spilled nothing to $spill"
[ -z "$(ls -A "$spill")" ] || fail "spill files left behind: $(ls -A "$spill")"
grep -q "r=200" <<<"$(bronze_count _op)" || fail "the snapshot rows changed: $(bronze_count _op)"
acked=$(confirmed cdclake_shop)
[ "$(sql "SELECT '$acked'::pg_lsn > '$before_changes'::pg_lsn")" = t ] ||
  fail "the slot's confirmed position $acked did not move past $before_changes"
# The run's summary says how far each slot is behind, from the position it last confirmed.
grep -Eq "^flow shop.bronze_customers: source lag: slot cdclake_shop: [0-9.]+ k?B of WAL after its confirmed position $acked, [0-9.]+ [kMG]?B retained$" run2.log ||
  fail "the summary does not give the slot's lag at $acked: $(grep 'source lag' run2.log)"

# The bronze commits carry Delta's transaction identifier for the slot, its version the end LSN
# of the last transaction committed: never beyond what the slot was told is durable.
sysid=$(sql "SELECT system_identifier FROM pg_control_system()")
txn_max=$(python3 - "$work/lake/shop/bronze_customers/_delta_log" "pg:$sysid/postgres/cdclake_shop" <<'PY'
import json, os, sys
best = -1
for name in os.listdir(sys.argv[1]):
    if name.endswith(".json"):
        for line in open(os.path.join(sys.argv[1], name)):
            txn = json.loads(line).get("txn")
            if txn and txn["appId"] == sys.argv[2]:
                best = max(best, txn["version"])
print(best)
PY
)
[ "$txn_max" -gt 0 ] || fail "no txn action pg:$sysid/postgres/cdclake_shop in bronze's log"
[ "$(sql "SELECT $txn_max <= (confirmed_flush_lsn - '0/0'::pg_lsn) FROM pg_replication_slots WHERE slot_name = 'cdclake_shop'")" = t ] ||
  fail "bronze's txn version $txn_max is beyond the slot's confirmed position $(confirmed cdclake_shop)"

# 3. Nothing new: no commit anywhere.
v_bronze=$(version_of bronze_customers); v_silver=$(version_of customers)
run > run3.log 2>&1 || fail "third run: $(cat run3.log)"
expect_eq "$(version_of bronze_customers)" "$v_bronze" "bronze versions after a run with nothing new: "
expect_eq "$(version_of customers)" "$v_silver" "silver versions after a run with nothing new: "

# 4. WAL of another database only: the slots' confirmed positions still advance over it.
sql "CREATE DATABASE other"
DB=other sql "CREATE TABLE noise AS SELECT g FROM generate_series(1, 20000) g"
other_end=$(sql "SELECT pg_current_wal_lsn()")
run > run4.log 2>&1 || fail "fourth run: $(cat run4.log)"
for s in cdclake_shop cdclake_direct; do
  [ "$(sql "SELECT confirmed_flush_lsn >= '$other_end'::pg_lsn FROM pg_replication_slots WHERE slot_name = '$s'")" = t ] ||
    fail "slot $s stayed at $(confirmed $s) while other databases wrote up to $other_end"
done
expect_eq "$(version_of customers)" "$v_silver" "silver versions after other databases' writes: "

# 5. Killed at random moments while changes keep coming, run again: the same tables, and no
#    change twice in bronze (each (id, _seq) once).
killed=0
for i in $(seq 1 "$rounds"); do
  # Many small transactions, so that a run has many batches to be killed between.
  for j in $(seq 1 20); do
    echo "UPDATE customers SET balance = balance + $i WHERE id % 97 = $(( (i * 20 + j) % 97 ));"
  done > round.sql
  echo "INSERT INTO customers VALUES ($((5000 + i)), 'k$i', $i, 'n'); DELETE FROM customers WHERE id = $((1000 + i));" >> round.sql
  "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d postgres -f round.sql
  "$bin" run "$work/p.sql" --warehouse "$work/lake" --var "pg=$conninfo" --batch-rows 20 \
    > "kill$i.log" 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
  kill -9 "$pid" 2>/dev/null && killed=$((killed + 1)) || true
  wait "$pid" 2>/dev/null || true
done
[ "$killed" -gt 0 ] || fail "no run was killed before it finished: the kills test nothing"

run > run5.log 2>&1 || fail "run after the kills: $(cat run5.log)"
same_as_source "after $rounds kills"
dups=$("$bin" show "$work/lake/shop/bronze_customers" --format csv --columns id,_seq | tail -n +2 | sort | uniq -d | wc -l)
expect_eq "$dups" "0" "bronze rows held twice after the kills: "

# 5b. The walsender is terminated (pg_terminate_backend) and the server restarted with
#     `-m immediate` while runs stream a backlog: the runs fail, the next run gets every table
#     right.
backlog() {
  for j in $(seq 1 300); do
    echo "UPDATE customers SET balance = balance + 1 WHERE id % 97 = $(( (j * 7 + $1) % 97 ));"
  done > backlog.sql
  "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d postgres -f backlog.sql
}
streaming_run() {  # starts a run in the background and waits until one of its slots is active
  "$bin" run "$work/p.sql" --warehouse "$work/lake" --var "pg=$conninfo" --batch-rows 20 \
    > "$1" 2>&1 &
  pid=$!
  for _ in $(seq 1 500); do
    [ "$(sql "SELECT count(*) FROM pg_replication_slots WHERE active")" != 0 ] && return 0
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.01
  done
}
backlog 1
streaming_run terminated.log
terminated=$(sql "SELECT count(pg_terminate_backend(active_pid)) FROM pg_replication_slots WHERE active")
code_terminated=0
wait "$pid" || code_terminated=$?
run > run5b.log 2>&1 || fail "run after pg_terminate_backend: $(cat run5b.log)"
same_as_source "after the walsender was terminated ($terminated terminated)"
backlog 2
streaming_run restarted.log
pg_server_restart immediate
code_restarted=0
wait "$pid" || code_restarted=$?
run > run5c.log 2>&1 || fail "run after an immediate restart: $(cat run5c.log)"
same_as_source "after PostgreSQL restarted with -m immediate"
[ "$terminated" -gt 0 ] || fail "no walsender was running to terminate: the step tested nothing"
dups=$("$bin" show "$work/lake/shop/bronze_customers" --format csv --columns id,_seq | tail -n +2 | sort | uniq -d | wc -l)
expect_eq "$dups" "0" "bronze rows held twice after the terminations and the restart: "

# 5d. `run --continuous`: a change committed while it runs reaches the silvers within seconds;
#     SIGTERM ends it cleanly.
"$bin" run "$work/p.sql" --warehouse "$work/lake" --var "pg=$conninfo" --continuous \
  --interval 200ms > continuous.log 2>&1 &
pid=$!
sleep 1
sql "UPDATE customers SET name = 'live' WHERE id = 1000"
t0=$(date +%s%N)
fresh=""
shows_live() {
  "$bin" show "$work/lake/shop/$1" --format csv --columns id,name 2>/dev/null | grep -q "^1000,live$"
}
for _ in $(seq 1 300); do
  # Both: the flows run one after the other in a pass, each up to where the WAL was when it
  # began, so one can show the change a pass before the other.
  if shows_live customers_direct && shows_live customers; then
    fresh=$(( ($(date +%s%N) - t0) / 1000000 ))
    break
  fi
  sleep 0.05
done
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
[ -n "$fresh" ] || fail "a change did not reach the table in 15 s of --continuous: $(tail -5 continuous.log)"
expect_eq "$code" "0" "--continuous after SIGTERM exited with: "
same_as_source "after --continuous"

# 6. TRUNCATE reaches both silvers as a truncate.
sql "TRUNCATE customers; INSERT INTO customers VALUES (1, 'after truncate', 2, 'n')"
run > run6.log 2>&1 || fail "run after TRUNCATE: $(cat run6.log)"
same_as_source "after TRUNCATE"

# 6b. A column added between runs and one added inside a transaction between its rows: every
#     table gains them, rows sent before the ALTER keep their values in the right columns.
sql "ALTER TABLE customers ADD COLUMN tier text; UPDATE customers SET tier = 'gold' WHERE id = 1"
sql "BEGIN; INSERT INTO customers VALUES (3, 'before the column', 4, 'n', 'silver');
     ALTER TABLE customers ADD COLUMN score int;
     INSERT INTO customers VALUES (4, 'after the column', 5, 'n', 'bronze', 42); COMMIT"
run > run6b.log 2>&1 || fail "run after ALTER TABLE: $(cat run6b.log)"
same_as_source "after ALTER TABLE ADD COLUMN"
want=$(sql "SELECT id, tier, score FROM customers ORDER BY id" | tr '|' ',')
for t in customers customers_direct; do
  got=$("$bin" show "$work/lake/shop/$t" --format csv --columns id,tier,score --order-by id | tail -n +2)
  expect_eq "$got" "$want" "shop.$t's added columns: "
done

# 6c. cdclake reconcile: equal now; after changes the pipeline has not read, it names each
#     missing, extra and different key and exits 1; after a run, equal again.
"$bin" reconcile "$work/lake/shop/customers" --postgres "$conninfo" --source-table customers \
  > reconcile1.log 2>&1 || fail "reconcile of equal tables: $(cat reconcile1.log)"
grep -q "^equal" reconcile1.log || fail "reconcile of equal tables: $(cat reconcile1.log)"
grep -q "compared: id, name, balance, notes, tier, score" reconcile1.log ||
  fail "reconcile compared other columns: $(cat reconcile1.log)"
sql "UPDATE customers SET name = 'changed' WHERE id = 1; DELETE FROM customers WHERE id = 3;
     INSERT INTO customers VALUES (77, 'new', 1, 'n', NULL, NULL)"
set +e
"$bin" reconcile "$work/lake/shop/customers" --postgres "$conninfo" --source-table customers \
  > reconcile2.log 2>&1
code=$?
set -e
expect_eq "$code" "1" "reconcile's exit code with differences: "
grep -q "missing from the table: 1  keys: id=77" reconcile2.log || fail "missing key: $(cat reconcile2.log)"
grep -q "extra in the table:     1  keys: id=3" reconcile2.log || fail "extra key: $(cat reconcile2.log)"
grep -q "different:              1  keys: id=1" reconcile2.log || fail "changed key: $(cat reconcile2.log)"
grep -q "^point:   none (the table is not written from read_postgres directly)" reconcile2.log ||
  fail "reconcile of a table fed from bronze claims a point: $(cat reconcile2.log)"
# The table read from read_postgres directly is compared at one point: the changes its slot
# holds up to the source's snapshot are laid over it, so changes not read yet are no
# differences; the slot does not move.
before_reconcile=$(confirmed cdclake_direct)
"$bin" reconcile "$work/lake/shop/customers_direct" --postgres "$conninfo" --source-table customers \
  > reconcile5.log 2>&1 || fail "exact reconcile with changes not read yet: $(cat reconcile5.log)"
grep -Eq "^point:   LSN [0-9A-F]+/[0-9A-F]+: table version [0-9]+ \(its position [0-9A-F/]+\) and 3 changes after it read from slot cdclake_direct$" reconcile5.log ||
  fail "exact reconcile does not say its point: $(cat reconcile5.log)"
expect_eq "$(confirmed cdclake_direct)" "$before_reconcile" "the slot after an exact reconcile: "
grep -q "^buckets: 256, 0 compared key by key$" reconcile5.log ||
  fail "equal tables had buckets compared key by key: $(cat reconcile5.log)"
set +e
"$bin" reconcile "$work/lake/shop/customers" --postgres "$conninfo" --source-table customers \
  --columns name,nosuch > reconcile4.log 2>&1
code=$?
set -e
expect_eq "$code" "2" "reconcile's exit code for a column neither table has: "
grep -q "column 'nosuch' is not in" reconcile4.log || fail "unknown column: $(cat reconcile4.log)"
run > run6c.log 2>&1 || fail "run after the changes: $(cat run6c.log)"
"$bin" reconcile "$work/lake/shop/customers_direct" --postgres "$conninfo" --source-table customers \
  > reconcile3.log 2>&1 || fail "reconcile after the run: $(cat reconcile3.log)"

# 7. The slot of a flow is dropped: the flow stops with an error saying what to do; the other
#    flows go on; a full refresh copies the table again.
sql "SELECT pg_drop_replication_slot('cdclake_direct')" > /dev/null
sql "INSERT INTO customers VALUES (2, 'while the slot was gone', 3, 'n')"
set +e
run > run7.log 2>&1
code=$?
set -e
[ "$code" -ne 0 ] || fail "a dropped slot went unnoticed: $(cat run7.log)"
grep -q "cdclake_direct' no longer exists" run7.log || fail "the error does not name the slot: $(cat run7.log)"
grep -q -- "--full-refresh" run7.log || fail "the error does not say what to do: $(cat run7.log)"
expect_eq "$(table_rows customers)" "$(source_rows)" "silver from bronze while the other slot was gone: "
run --full-refresh shop.customers_direct > run8.log 2>&1 || fail "full refresh: $(cat run8.log)"
same_as_source "after a full refresh"

# 8. A slot left by a first run that never committed (no position in its table) is made again.
sql "SELECT pg_create_logical_replication_slot('cdclake_fresh', 'pgoutput')" > /dev/null
sed -e 's/cdclake_direct/cdclake_fresh/; s/customers_direct/customers_fresh/g' p.sql > fresh.sql
"$bin" run "$work/fresh.sql" --warehouse "$work/lake" --var "pg=$conninfo" > run9.log 2>&1 ||
  fail "leftover slot: $(cat run9.log)"
grep -q "dropped it and copying the table again" run9.log || fail "no notice of the leftover slot: $(cat run9.log)"
expect_eq "$(table_rows customers_fresh)" "$(source_rows)" "table read through a remade slot: "

# 8b. A first copy killed after some of its batches committed: the next run copies the table
#     again after a truncate, so rows deleted in between do not stay, and nothing is doubled.
sql "CREATE TABLE copytest (id int PRIMARY KEY, name text, balance numeric(12,2), notes text);
     INSERT INTO copytest SELECT g, 'c' || g, g, 'n' FROM generate_series(1, 60000) g;
     ALTER PUBLICATION cdclake ADD TABLE copytest"
sed -e "s/public.customers/public.copytest/; s/table => 'customers'/table => 'copytest'/" \
    -e 's/cdclake_shop/cdclake_copy1/; s/cdclake_direct/cdclake_copy2/; s/shop\./copy./g' \
    p.sql > copy.sql
"$bin" run "$work/copy.sql" --warehouse "$work/lake" --var "pg=$conninfo" --batch-rows 2000 \
  > copy1.log 2>&1 &
pid=$!
for _ in $(seq 1 1000); do
  [ -e "$work/lake/copy/bronze_customers/_delta_log/00000000000000000001.json" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.01
done
kill -9 "$pid" 2>/dev/null || fail "the first copy finished before it could be killed: $(cat copy1.log)"
wait "$pid" 2>/dev/null || true
copied=$("$bin" show "$work/lake/copy/bronze_customers" --format csv --columns id | tail -n +2 | wc -l)
[ "$copied" -gt 0 ] && [ "$copied" -lt 60000 ] || fail "the killed copy committed $copied rows"
sql "DELETE FROM copytest WHERE id <= 1000; UPDATE copytest SET name = 'later' WHERE id % 10 = 0"
"$bin" run "$work/copy.sql" --warehouse "$work/lake" --var "pg=$conninfo" --batch-rows 2000 \
  > copy2.log 2>&1 || fail "the copy after the kill: $(cat copy2.log)"
grep -q "copying it again through a new slot, after a truncate" copy2.log ||
  fail "no notice of the copy made again: $(cat copy2.log)"
want=$(sql "SELECT id, name, balance, notes FROM copytest ORDER BY id" | tr '|' ',')
for t in customers customers_direct; do
  got=$("$bin" show "$work/lake/copy/$t" --format csv --columns id,name,balance,notes --order-by id | tail -n +2)
  [ "$got" = "$want" ] || fail "copy.$t after the stopped copy differs: $(diff <(echo "$want") <(echo "$got") | head -5)"
done

# 8c. A run killed at each step of the hand-off (CDCLAKE_CRASH_AT, base/crash_point.h: SIGKILL at
#     that exact point): the slot just created, a copy batch read but not committed, the last
#     copy batch read, a commit durable but not yet confirmed to the slot, the stream just
#     started. The next run, after changes, leaves every table equal to the source, and so does
#     the one after it.
i=0
for point in pg-slot-created pg-copy-batch-read pg-copy-read pg-committed-unconfirmed pg-stream-started; do
  i=$((i + 1))
  sql "CREATE TABLE hand$i (id int PRIMARY KEY, name text, balance numeric(12,2), notes text);
       INSERT INTO hand$i SELECT g, 'h' || g, g, 'n' FROM generate_series(1, 5000) g;
       ALTER PUBLICATION cdclake ADD TABLE hand$i"
  sed -e "s/public.customers/public.hand$i/; s/table => 'customers'/table => 'hand$i'/" \
      -e "s/cdclake_shop/cdclake_h${i}a/; s/cdclake_direct/cdclake_h${i}b/; s/shop\./hand$i./g" \
      p.sql > "hand$i.sql"
  code=0
  CDCLAKE_CRASH_AT=$point "$bin" run "$work/hand$i.sql" --warehouse "$work/lake" --var "pg=$conninfo" \
    --batch-rows 2000 > "hand$i-1.log" 2>&1 || code=$?
  [ "$code" -eq 137 ] || fail "$point: the run was not killed there (exit $code): $(tail -3 "hand$i-1.log")"
  for round in 2 3; do
    sql "DELETE FROM hand$i WHERE id % 7 = $round; UPDATE hand$i SET name = 'r$round' WHERE id % 5 = 0;
         INSERT INTO hand$i SELECT g, 'new', g, 'n' FROM generate_series(5000 * $round + 1, 5000 * $round + 300) g"
    "$bin" run "$work/hand$i.sql" --warehouse "$work/lake" --var "pg=$conninfo" --batch-rows 2000 \
      > "hand$i-$round.log" 2>&1 || fail "$point: run $round after the kill: $(tail -3 "hand$i-$round.log")"
    want=$(sql "SELECT id, name, balance, notes FROM hand$i ORDER BY id" | tr '|' ',')
    for t in customers customers_direct; do
      got=$("$bin" show "$work/lake/hand$i/$t" --format csv --columns id,name,balance,notes --order-by id | tail -n +2)
      [ "$got" = "$want" ] ||
        fail "$point: hand$i.$t after run $round differs: $(diff <(echo "$want") <(echo "$got") | head -5)"
    done
  done
done

# 8d. Changes made while the table was out of the publication never reach the tables: an exact
#     reconcile names each key, also after the pipeline has read on; --not-exact too.
sql "ALTER PUBLICATION cdclake DROP TABLE customers;
     UPDATE customers SET name = 'unpublished' WHERE id = 1; DELETE FROM customers WHERE id = 4;
     INSERT INTO customers (id, name, balance, notes) VALUES (88, 'unpublished', 1, 'n');
     ALTER PUBLICATION cdclake ADD TABLE customers;
     UPDATE customers SET name = 'published' WHERE id = 77"
for flags in "" "--not-exact --buckets 1" "--buckets 7"; do
  "$bin" run "$work/p.sql" --warehouse "$work/lake" --var "pg=$conninfo" > run8d.log 2>&1 ||
    fail "run after the publication changed: $(cat run8d.log)"
  set +e
  "$bin" reconcile "$work/lake/shop/customers_direct" --postgres "$conninfo" --source-table customers \
    $flags > reconcile6.log 2>&1
  code=$?
  set -e
  expect_eq "$code" "1" "reconcile ${flags:-(exact)} of changes made out of the publication ($(cat reconcile6.log)): "
  grep -q "missing from the table: 1  keys: id=88" reconcile6.log || fail "missing key: $(cat reconcile6.log)"
  grep -q "extra in the table:     1  keys: id=4" reconcile6.log || fail "extra key: $(cat reconcile6.log)"
  grep -q "different:              1  keys: id=1" reconcile6.log || fail "changed key: $(cat reconcile6.log)"
  grep -Eq "^buckets: [0-9]+, [1-3] compared key by key$" reconcile6.log ||
    fail "the differences were not found through their buckets: $(cat reconcile6.log)"
  expect_eq "$(table_rows customers_direct | grep '^77,')" "$(source_rows | grep '^77,')" "a change after the publication was back: "
done

# 9. A missing publication is named with the statement that creates it.
sed -e "s/publication => 'cdclake'/publication => 'nope'/; s/cdclake_shop/cdclake_x/; s/cdclake_direct/cdclake_y/; s/shop\./bad./g" p.sql > bad.sql
set +e
"$bin" run "$work/bad.sql" --warehouse "$work/lake" --var "pg=$conninfo" > run10.log 2>&1
set -e
grep -q "publication 'nope' does not exist" run10.log || fail "missing publication: $(cat run10.log)"
grep -q "CREATE PUBLICATION nope FOR TABLE public.customers" run10.log ||
  fail "the error does not say how to create it: $(cat run10.log)"
echo "read_postgres: ok ($killed of $rounds runs killed before they finished; the run whose" \
  "walsender was terminated exited $code_terminated, the one whose server restarted" \
  "$code_restarted; --continuous showed a change after $fresh ms)"
