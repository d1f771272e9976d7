#!/usr/bin/env bash
# read_postgres against PostgreSQL's own tools, in one run on one temporary server:
# - the first run's copy of a table (snapshot through the slot's exported snapshot) into a bronze
#   Delta table alone (over one connection, and over COPY_CONNECTIONS, default 2, each a range of
#   the table's blocks), into an SCD1 table read from read_postgres directly, and into a bronze
#   table and an SCD1 silver built from it, beside `COPY table TO STDOUT` into /dev/null (the
#   floor: the server producing the same rows' text and nothing else);
# - streaming: CHANGES changes (70% updates, 20% inserts, 10% deletes, as the apply benchmark's
#   workload) in transactions of TXN, read by `cdclake run` into bronze and
#   silver, beside pg_recvlogical reading the same changes through pgoutput into /dev/null (the
#   server decoding them and nothing else);
# - one large transaction: an UPDATE of BIG rows (default ROWS) streamed into a bronze table,
#   once with read_postgres's default spill_mb (64: the changes beyond it wait on disk for the
#   commit) and once with every change held in memory, for the time and the peak memory.
# Usage: bench/postgres_source_bench.sh CDCLAKE_BIN; sizes from ROWS (default 1000000),
# CHANGES (default 200000), TXN (default 100), BIG (default ROWS) and COPY_CONNECTIONS.
set -euo pipefail
bin=$(realpath "$1")
rows=${ROWS:-1000000}
changes=${CHANGES:-200000}
txn=${TXN:-100}
big=${BIG:-$rows}
copy_connections=${COPY_CONNECTIONS:-2}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/pipeline/postgres_server.sh"
work=$(mktemp -d /tmp/cdclake-pgbench-XXXXXX)
cleanup() {
  pg_server_stop
  rm -rf "$work"
}
trap cleanup EXIT
[ -n "${KEEP_LOGS:-}" ] && trap 'cp "$work"/*.log "$KEEP_LOGS"/ 2>/dev/null; cleanup' EXIT
pg_server_start "-c shared_buffers=256MB -c max_wal_size=4GB"
sql() { "$pgbin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d postgres "$@"; }
now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
rate() { awk -v n="$1" -v m="$2" 'BEGIN { printf "%d", (m > 0 ? n * 1000 / m : 0) }'; }

# The benchmark's customers: 12 columns like the apply benchmark's rows.
sql -c "CREATE TABLE customers (id bigint PRIMARY KEY, name text, email text, city text,
          country text, segment text, balance numeric(12,2), credit_limit numeric(12,2),
          orders int, active boolean, created date, updated timestamptz);
        INSERT INTO customers SELECT g, 'name ' || g, 'user' || g || '@example.com',
          'city ' || (g % 1000), 'country ' || (g % 50), 'segment ' || (g % 7), g * 0.01,
          1000 + g % 5000, g % 100, g % 3 <> 0, date '2020-01-01' + (g % 1000),
          timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second'
        FROM generate_series(1, $rows) g;
        CREATE PUBLICATION cdclake FOR TABLE customers;"
sql -c "VACUUM ANALYZE customers"
cat > "$work/p.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE shop.bronze_customers
AS SELECT * FROM STREAM(read_postgres(connection => '${pg}', publication => 'cdclake',
                                      slot => 'cdclake_bench', table => 'public.customers'));
CREATE OR REFRESH STREAMING TABLE shop.customers;
CREATE FLOW customers AS AUTO CDC INTO shop.customers
FROM STREAM(shop.bronze_customers)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset,
                  _ingested_at)
STORED AS SCD TYPE 1;
SQL
# bronze_sql NAME SLOT [ARGUMENTS]: $work/NAME.sql, a pipeline of one bronze table read from
# read_postgres through SLOT, with ARGUMENTS (", spill_mb => 0") after its table.
bronze_sql() {
  cat > "$work/$1.sql" <<SQL
CREATE OR REFRESH STREAMING TABLE shop.bronze_customers
AS SELECT * FROM STREAM(read_postgres(connection => '\${pg}', publication => 'cdclake',
                                      slot => '$2', table => 'public.customers'${3:-}));
SQL
}
# The copy alone into one table: a bronze table (over one connection and over several), and an
# SCD1 table read from read_postgres.
bronze_sql bronze cdclake_bronze
bronze_sql ranges cdclake_ranges ", copy_connections => $copy_connections"
cat > "$work/direct.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE shop.customers;
CREATE FLOW customers AS AUTO CDC INTO shop.customers
FROM STREAM(read_postgres(connection => '${pg}', publication => 'cdclake',
                          slot => 'cdclake_direct', table => 'public.customers'))
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table)
STORED AS SCD TYPE 1;
SQL
for mode in spill memory; do
  spill=64
  [ "$mode" = memory ] && spill=1000000
  bronze_sql "big_$mode" "cdclake_big_$mode" ", spill_mb => $spill"
done
run() {  # run NAME [PIPELINE]: one `cdclake run`, its peak RSS (KB) kept in $work/NAME.rss
  local pipeline=${2:-p}
  /usr/bin/time -f "%M" -o "$work/$1.rss" \
    "$bin" run "$work/$pipeline.sql" --warehouse "$work/lake_$pipeline" --var "pg=$conninfo" \
    --log-format json
}
mb() { awk '{ printf "%d", $1 / 1024 }' "$work/$1.rss"; }

t0=$(now); sql -c "COPY customers TO STDOUT" > /dev/null; t1=$(now)
copy_ms=$(ms "$t0" "$t1")
t0=$(now); run bronze bronze > "$work/bronze.log" 2>&1; t1=$(now)
bronze_ms=$(ms "$t0" "$t1")
t0=$(now); run ranges ranges > "$work/ranges.log" 2>&1; t1=$(now)
ranges_ms=$(ms "$t0" "$t1")
t0=$(now); run direct direct > "$work/direct.log" 2>&1; t1=$(now)
direct_ms=$(ms "$t0" "$t1")
# Their slots would keep the WAL of the changes below: gone with their tables.
sql -c "SELECT pg_drop_replication_slot('cdclake_bronze'), pg_drop_replication_slot('cdclake_ranges'),
               pg_drop_replication_slot('cdclake_direct')" > /dev/null
rm -rf "$work/lake_bronze" "$work/lake_ranges" "$work/lake_direct"
t0=$(now); run snapshot > "$work/snapshot.log" 2>&1; t1=$(now)
snapshot_ms=$(ms "$t0" "$t1")

# The changes, with a pgoutput slot for pg_recvlogical made before them.
sql -c "SELECT pg_create_logical_replication_slot('peer', 'pgoutput')" > /dev/null
start=$(sql -c "SELECT pg_current_wal_lsn()")
n=$((changes / txn))
# Each transaction: 70% of its rows updated at a random place, 20% inserted after the table's
# keys, 10% deleted from the top of the original keys down (so every change is one row).
awk -v N="$n" -v T="$txn" -v R="$rows" 'BEGIN {
  srand(7);
  u = int(T * 0.7); i = int(T * 0.2); d = T - u - i;
  next_id = R + 1; top = R;
  for (t = 0; t < N; t++) {
    lo = int(rand() * (top - d * N - u)) + 1;
    printf "BEGIN;\n";
    printf "UPDATE customers SET balance = balance + 1, orders = orders + 1, updated = now() WHERE id BETWEEN %d AND %d;\n", lo, lo + u - 1;
    printf "INSERT INTO customers (id, name, email, city, country, segment, balance, credit_limit, orders, active, created, updated) SELECT g, \x27new \x27 || g, \x27n\x27 || g || \x27@example.com\x27, \x27city 1\x27, \x27country 1\x27, \x27segment 1\x27, 1, 1000, 0, true, date \x272026-01-01\x27, now() FROM generate_series(%d, %d) g;\n", next_id, next_id + i - 1;
    printf "DELETE FROM customers WHERE id BETWEEN %d AND %d;\n", top - d + 1, top;
    printf "COMMIT;\n";
    next_id += i; top -= d;
  }
}' > "$work/changes.sql"
t0=$(now); sql -f "$work/changes.sql" > /dev/null; t1=$(now)
write_ms=$(ms "$t0" "$t1")
end=$(sql -c "SELECT pg_current_wal_lsn()")
t0=$(now)
"$pgbin/pg_recvlogical" -h 127.0.0.1 -p "$port" -U cdclake -d postgres -S peer --start \
  -E "$end" -o proto_version=1 -o publication_names=cdclake -f /dev/null
t1=$(now)
recv_ms=$(ms "$t0" "$t1")
t0=$(now); run stream > "$work/stream.log" 2>&1; t1=$(now)
stream_ms=$(ms "$t0" "$t1")
# One transaction of $big updates, after both bronze tables copied the table.
run big_spill_copy big_spill > "$work/big_spill_copy.log" 2>&1
run big_memory_copy big_memory > "$work/big_memory_copy.log" 2>&1
sql -c "UPDATE customers SET orders = orders + 1 WHERE id <= $big"
big_rows=$(sql -c "SELECT count(*) FROM customers WHERE id <= $big")
for mode in spill memory; do
  t0=$(now); run "big_$mode" "big_$mode" > "$work/big_$mode.log" 2>&1; t1=$(now)
  eval "big_${mode}_ms=$(ms "$t0" "$t1")"
done
silver=$("$bin" show "$work/lake_p/shop/customers" --format csv --columns id | tail -n +2 | wc -l)
expected=$(sql -c "SELECT count(*) FROM customers")

echo "read_postgres benchmark: $rows rows, $changes changes (70% updates, 20% inserts, 10% deletes) in transactions of $txn"
printf '| step | cdclake | PostgreSQL peer |\n|---|---:|---:|\n'
printf '| first run: copy %d rows into a bronze table | %d ms (%d rows/s, %d%% of the floor), peak %d MB | COPY TO STDOUT: %d ms (%d rows/s) |\n' \
  "$rows" "$bronze_ms" "$(rate "$rows" "$bronze_ms")" "$((copy_ms * 100 / (bronze_ms > 0 ? bronze_ms : 1)))" "$(mb bronze)" "$copy_ms" "$(rate "$rows" "$copy_ms")"
printf '| the same over %d connections (copy_connections) | %d ms (%d rows/s, %d%% of the floor), peak %d MB | |\n' \
  "$copy_connections" "$ranges_ms" "$(rate "$rows" "$ranges_ms")" "$((copy_ms * 100 / (ranges_ms > 0 ? ranges_ms : 1)))" "$(mb ranges)"
printf '| first run: copy %d rows into an SCD1 table (AUTO CDC from read_postgres) | %d ms (%d rows/s, %d%% of the floor), peak %d MB | |\n' \
  "$rows" "$direct_ms" "$(rate "$rows" "$direct_ms")" "$((copy_ms * 100 / (direct_ms > 0 ? direct_ms : 1)))" "$(mb direct)"
printf '| first run: copy %d rows into bronze + SCD1 silver | %d ms (%d rows/s), peak %d MB | |\n' \
  "$rows" "$snapshot_ms" "$(rate "$rows" "$snapshot_ms")" "$(mb snapshot)"
printf '| stream %d changes into bronze + silver | %d ms (%d changes/s), peak %d MB | pg_recvlogical (pgoutput to /dev/null): %d ms (%d changes/s) |\n' \
  "$changes" "$stream_ms" "$(rate "$changes" "$stream_ms")" "$(mb stream)" "$recv_ms" "$(rate "$changes" "$recv_ms")"
printf '| one transaction updating %d rows into bronze, spill_mb 64 (default) | %d ms (%d changes/s), peak %d MB | |\n' \
  "$big_rows" "$big_spill_ms" "$(rate "$big_rows" "$big_spill_ms")" "$(mb big_spill)"
printf '| the same, every change held in memory | %d ms (%d changes/s), peak %d MB | |\n' \
  "$big_memory_ms" "$(rate "$big_rows" "$big_memory_ms")" "$(mb big_memory)"
printf '| writing the changes (psql, for scale) | | %d ms |\n' "$write_ms"
echo "silver rows: $silver (expected $expected); WAL of the changes: $start .. $end"
