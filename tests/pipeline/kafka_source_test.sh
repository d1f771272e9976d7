#!/usr/bin/env bash
# read_kafka end to end against librdkafka's mock cluster in a process of its own (issue 16): a
# Debezium stream over three partitions with duplicates, tombstones, primary-key changes and
# truncates, produced in rounds while cdclake runs and is killed (SIGKILL) at random moments;
# then a last run. Bronze must hold every message once (no repeated partition and offset), the
# SCD1 tables (from bronze, and reading read_kafka directly) must equal the model of the stream,
# and every table must equal the same pipeline's tables after one uninterrupted run. Also: a run
# with nothing new writes no version; a value that is not JSON is quarantined with its topic,
# partition and offset; --continuous picks up a message produced while it runs; without a format
# the messages' own columns land in bronze as DuckDB reads them back; a wrong broker
# address and a missing topic fail quickly and clearly.
# Usage: kafka_source_test.sh CDCLAKE_BIN KAFKA_MOCK_CLUSTER_BIN
# CDCLAKE_KAFKA_KILLS (default 100): runs killed at least (the stream is produced in 1.5 times as
# many rounds); CDCLAKE_KAFKA_EVENTS (default 3000) change events.
set -euo pipefail
bin=$1
mock=$2
target=${CDCLAKE_KAFKA_KILLS:-100}
rounds=$((target * 3 / 2))
events=${CDCLAKE_KAFKA_EVENTS:-3000}
work=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
mock_pid=
cleanup() {
  [ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
cd "$work"

coproc MOCK { "$mock" --brokers 3 2> "$work/mock.log"; }
mock_pid=$MOCK_PID
read -r word kafka <&"${MOCK[0]}" || fail "the mock cluster did not start: $(cat "$work/mock.log")"
expect_eq "$word" bootstrap
# One command to the mock cluster, and its answer.
send() { echo "$*" >&"${MOCK[1]}"; }
answer() { local a; read -r a <&"${MOCK[0]}"; case $a in ok*) echo "$a" ;; *) fail "mock: $a" ;; esac; }
mockcmd() { send "$@"; answer; }
topic=shop.public.customers
mockcmd topic "$topic" 3 > /dev/null

mkdir stream
awk -v DIR=stream -v EVENTS="$events" -v KEYS=200 -v PARTS=3 -v SEED=11 -v TRUNCATE_EVERY=1000 \
  -f "$here/make_kafka_stream.awk"
sort -t, -k1,1n stream/model.unsorted > model.csv
sort -t, -k1,1n stream/model_scd2.unsorted > model_scd2.csv  # SCD2 flows apply no truncate
messages=$(cat stream/part-*.txt | wc -l)
tombstones=$(cat stream/part-*.txt | grep -c $'\t\\\\N$' || true)
# The rounds' slices of each partition, in order.
for p in 0 1 2; do split -n "l/$rounds" -d -a 4 "stream/part-$p.txt" "stream/chunk-$p-"; done

cat > p.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE shop.bronze_customers
AS SELECT * FROM STREAM(read_kafka(
     bootstrapServers => '${kafka}',
     subscribe        => 'shop.public.customers',
     startingOffsets  => 'earliest',
     format           => 'debezium'));

CREATE OR REFRESH STREAMING TABLE shop.customers;
CREATE FLOW customers AS AUTO CDC INTO shop.customers
FROM STREAM(shop.bronze_customers)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
APPLY AS TRUNCATE WHEN _op = 't'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table,
                  _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp)
STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE shop.customers_history;
CREATE FLOW customers_history AS AUTO CDC INTO shop.customers_history
FROM STREAM(shop.bronze_customers)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table,
                  _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp)
STORED AS SCD TYPE 2;

CREATE OR REFRESH STREAMING TABLE shop.customers_direct;
CREATE FLOW customers_direct AS AUTO CDC INTO shop.customers_direct
FROM STREAM(read_kafka(bootstrapServers => '${kafka}', subscribe => 'shop.public.customers',
                       format => 'debezium', maxOffsetsPerTrigger => 700))
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
APPLY AS TRUNCATE WHEN _op = 't'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table,
                  _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp)
STORED AS SCD TYPE 1;
SQL

run() { "$bin" run "$work/p.sql" --warehouse "$1" --var "kafka=$kafka" --batch-rows 400 "${@:2}"; }
show() { "$bin" show "$1/shop/$2" --format csv "${@:3}" | tail -n +2; }

# Rounds: the next slice of every partition is produced (2 ms between messages) while a run
# starts, and the run is killed at a random moment, often in the middle of a commit. Every fifth
# round a second run works beside it, not killed: two writers of the same flows, of which one
# must lose its commit (and say so) rather than append a batch twice.
RANDOM=16
kills=0
for ((r = 0; r < rounds || kills < target; r++)); do
  [ "$r" -lt $((rounds * 4)) ] || fail "only $kills of $r runs were killed: the kills hit nothing"
  produced=0
  if [ "$r" -lt "$rounds" ]; then
    c=$(printf '%04d' "$r")
    for p in 0 1 2; do send produce "$topic" "$p" "$work/stream/chunk-$p-$c" 2; done
    produced=3
  fi
  "$bin" run "$work/p.sql" --warehouse "$work/lake" --var "kafka=$kafka" --batch-rows 400 --once \
    > /dev/null 2>> run.log &
  pid=$!
  other=
  if [ $((r % 5)) -eq 4 ]; then
    "$bin" run "$work/p.sql" --warehouse "$work/lake" --var "kafka=$kafka" --batch-rows 400 \
      --once > /dev/null 2>> run.log &
    other=$!
  fi
  sleep "0.$(printf '%03d' $((RANDOM % 300)))"
  if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
  wait "$pid" 2>/dev/null || true
  [ -z "$other" ] || wait "$other" 2>/dev/null || true
  for ((p = 0; p < produced; p++)); do answer > /dev/null; done
done
run "$work/lake" --once > final.log 2>&1 || fail "the last run failed: $(tail -5 final.log)"
grep -q "^flow shop.bronze_customers: source lag: 0 messages behind the high watermarks$" final.log ||
  fail "the last run's summary does not say it caught up: $(grep 'source lag' final.log)"
lost=$(grep -c "another writer of" run.log || true)
echo "kafka_source: $messages messages ($tombstones tombstones) in $rounds rounds, $r runs, $kills killed (SIGKILL), $lost commits lost to a concurrent writer of the same flow"

# Bronze: every message but the tombstones, each (partition, offset) once.
show "$work/lake" bronze_customers --columns _kafka_partition,_kafka_offset > bronze.csv
expect_eq "$(sort bronze.csv | uniq -d | head -3)" "" "bronze holds a message twice: "
expect_eq "$(wc -l < bronze.csv)" "$((messages - tombstones))" "bronze rows: "

# SCD1 tables equal the model.
for t in customers customers_direct; do
  show "$work/lake" "$t" --columns id,name --order-by id > "$t.csv"
  cmp -s model.csv "$t.csv" || fail "shop.$t differs from the model: $(diff model.csv "$t.csv" | head -5)"
done
# SCD2: the open versions are the model's rows (truncates are not applied: their rows have no key
# and are quarantined).
show "$work/lake" customers_history --columns id,name,__END_AT --order-by id |
  awk -F, '$3 == "" { print $1 "," $2 }' > history_open.csv
cmp -s model_scd2.csv history_open.csv ||
  fail "shop.customers_history's open versions differ from the model: $(diff model_scd2.csv history_open.csv | head -5)"

# Every table equals one uninterrupted run's.
run "$work/lake2" --once > /dev/null 2>&1 || fail "the uninterrupted run failed"
for t in customers customers_history customers_direct; do
  cols=id,name
  [ "$t" = customers_history ] && cols=id,name,__START_AT,__END_AT
  show "$work/lake" "$t" --columns "$cols" --order-by "$cols" > a.csv
  show "$work/lake2" "$t" --columns "$cols" --order-by "$cols" > b.csv
  cmp -s a.csv b.csv || fail "shop.$t after $kills kills differs from an uninterrupted run: $(diff a.csv b.csv | head -5)"
done

# Nothing new: no version is written.
version_of() { ls "$work/lake/shop/$1/_delta_log/" | grep -c '\.json$'; }
before=$(version_of customers)
run "$work/lake" --once > /dev/null 2>&1 || fail "a run with nothing new failed"
expect_eq "$(version_of customers)" "$before" "versions after a run with nothing new: "

# A value that is not JSON goes to the bronze table's quarantine with where it was.
printf '{"id":1}\tnot json at all\n' > bad.txt
mockcmd produce "$topic" 1 "$work/bad.txt" > /dev/null
run "$work/lake" --once > bad.log 2>&1 || fail "a run with a bad value failed: $(tail -3 bad.log)"
"$bin" show "$work/lake/shop/bronze_customers_quarantine" --format csv > quarantine.csv
grep -q "topic '$topic' partition 1 offset" quarantine.csv ||
  fail "the quarantined value does not name its partition and offset: $(head -3 quarantine.csv)"

# --continuous: a message produced while it runs reaches bronze and silver; SIGTERM ends it.
"$bin" run "$work/p.sql" --warehouse "$work/lake" --var "kafka=$kafka" --continuous \
  --interval 1s > continuous.log 2>&1 &
cpid=$!
sleep 1
printf '{"id":9999}\t{"before":null,"after":{"id":9999,"name":"late"},"source":{"connector":"postgresql","db":"shop","schema":"public","table":"customers","ts_ms":5,"lsn":99999999},"op":"c","ts_ms":9}\n' > late.txt
mockcmd produce "$topic" 0 "$work/late.txt" > /dev/null
for ((i = 0; i < 60; i++)); do
  show "$work/lake" customers --columns id,name | grep -q '^9999,late$' && break
  sleep 0.5
done
kill -TERM "$cpid"
wait "$cpid" || fail "--continuous did not end cleanly on SIGTERM: $(tail -3 continuous.log)"
show "$work/lake" customers --columns id,name | grep -q '^9999,late$' ||
  fail "--continuous did not bring the new message to shop.customers: $(tail -5 continuous.log)"

# Without a format: read_kafka's own columns (binary key and value, headers as an array of
# structs), in bronze as cdclake shows it and as DuckDB reads its Parquet files.
mockcmd topic raw 2 > /dev/null
printf 'k1\tv1\th1=a\th2=b\n\tv2\nk3\t\\N\n' > raw.txt
mockcmd produce raw 1 "$work/raw.txt" > /dev/null
cat > raw.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE shop.raw
AS SELECT * FROM STREAM(read_kafka(bootstrapServers => '${kafka}', subscribe => 'raw'));
SQL
"$bin" run "$work/raw.sql" --warehouse "$work/lake" --var "kafka=$kafka" --once > raw.log 2>&1 ||
  fail "the raw run failed: $(tail -3 raw.log)"
expect_eq "$(show "$work/lake" raw --columns key,value,partition,offset,headers --order-by offset | tr '\n' ' ')" \
  '6b31,7631,1,0,"[{""key"":""h1"",""value"":""61""},{""key"":""h2"",""value"":""62""}]" ,7632,1,1,[] 6b33,,1,2,[] ' \
  "raw columns: "
duckdb_rows=$(cd "$here/../../tools" && node -e '
  const { DuckDBInstance } = require("@duckdb/node-api");
  (async () => {
    const c = await (await DuckDBInstance.create(":memory:")).connect();
    const r = await c.runAndReadAll(`SELECT CAST(key AS VARCHAR) k, CAST(value AS VARCHAR) v,
      "offset", len(headers) n, headers[1].key h, CAST(headers[1].value AS VARCHAR) hv
      FROM read_parquet("${process.argv[1]}/*.parquet") ORDER BY "offset"`);
    for (const row of r.getRows()) console.log(row.map((v) => (v === null ? "NULL" : String(v))).join(","));
  })();' "$work/lake/shop/raw" | tr '\n' ' ')
expect_eq "$duckdb_rows" "k1,v1,0,2,h1,a NULL,v2,1,0,NULL,NULL k3,NULL,2,0,NULL,NULL " "DuckDB reading raw bronze: "

# Wrong broker address, missing topic: clear errors, quickly.
sed 's/shop.public.customers/shop.public.missing/' p.sql > missing.sql
start=$(date +%s)
if "$bin" run "$work/missing.sql" --warehouse "$work/lake3" --var "kafka=$kafka" --once > missing.log 2>&1; then
  fail "a missing topic did not fail the run"
fi
grep -q "topic 'shop.public.missing' does not exist" missing.log || fail "missing topic: $(cat missing.log)"
if "$bin" run "$work/p.sql" --warehouse "$work/lake4" --var "kafka=127.0.0.1:1" --once > wrong.log 2>&1; then
  fail "a wrong broker address did not fail the run"
fi
grep -q "cannot reach Kafka brokers '127.0.0.1:1'" wrong.log || fail "wrong address: $(cat wrong.log)"
took=$(($(date +%s) - start))
[ "$took" -le 40 ] || fail "the two failing runs took $took s"
echo "kafka_source: ok"
