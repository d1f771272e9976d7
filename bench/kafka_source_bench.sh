#!/usr/bin/env bash
# read_kafka's decode and bronze-append throughput from librdkafka's mock cluster, beside the same
# Debezium events read from a file (read_files format => 'debezium') into the same bronze table,
# in one run: EVENTS events of the apply benchmark's orders (bench/cdc_workload.cc), produced
# round-robin into a topic of PARTITIONS partitions (the mock keeps at most 5 MiB a partition,
# so 16 partitions hold about 130,000 of these events; the script checks nothing was dropped), each run one `cdclake run --once` into a fresh
# warehouse, alternated, REPEAT times each. What the Kafka figure means: the mock answers a fetch
# with one message set per partition, so it bounds the fetch side from below; the decode and
# append are the same code as for files.
# Usage: bench/kafka_source_bench.sh CDCLAKE_BIN KAFKA_MOCK_CLUSTER_BIN CDC_WORKLOAD_BIN
# EVENTS (default 100000), PARTITIONS (default 16), REPEAT (default 3), BATCH_ROWS (default
# 100000).
set -euo pipefail
bin=$(realpath "$1")
mock=$(realpath "$2")
workload=$(realpath "$3")
events=${EVENTS:-100000}
partitions=${PARTITIONS:-16}
repeat=${REPEAT:-3}
batch_rows=${BATCH_ROWS:-100000}
work=$(mktemp -d /tmp/cdclake-kafkabench-XXXXXX)
mock_pid=
cleanup() {
  [ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

"$workload" --out "$work/w" --keys "$events" --batch "$events" --batches 1 --formats debezium \
  > /dev/null
file=$work/w/batch-0001.json
n=$(wc -l < "$file")
bytes=$(stat -c %s "$file")
awk -v dir="$work" -v parts="$partitions" '{ print "\t" $0 > (dir "/p" (NR % parts) ".txt") }' \
  "$file"

coproc MOCK { "$mock" --brokers 3 2> "$work/mock.log"; }
mock_pid=$MOCK_PID
read -r _ kafka <&"${MOCK[0]}"
cmd() { echo "$*" >&"${MOCK[1]}"; read -r answer <&"${MOCK[0]}"; [[ $answer == ok* ]] || { echo "mock: $answer" >&2; exit 1; }; }
cmd topic orders "$partitions"
t0=$(now)
for ((p = 0; p < partitions; p++)); do cmd produce orders "$p" "$work/p$p.txt"; done
produce_ms=$(ms "$t0" "$(now)")
for ((p = 0; p < partitions; p++)); do
  cmd watermarks orders "$p"
  [ "$(echo "$answer" | cut -d' ' -f2)" = 0 ] ||
    { echo "the mock dropped messages of partition $p ($answer): use more PARTITIONS" >&2; exit 1; }
done

cat > "$work/kafka.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE bench.bronze
AS SELECT * FROM STREAM(read_kafka(bootstrapServers => '${kafka}', subscribe => 'orders',
                                   format => 'debezium'));
SQL
cat > "$work/files.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE bench.bronze
AS SELECT * FROM STREAM(read_files('${file}', format => 'debezium'));
SQL
run() {  # run SOURCE WAREHOUSE: prints the wall ms
  local t
  t=$(now)
  "$bin" run "$work/$1.sql" --warehouse "$2" --once --batch-rows "$batch_rows" \
    --var "kafka=$kafka" --var "file=$file" > "$work/$1.log" 2>&1 ||
    { echo "cdclake run ($1) failed: $(tail -3 "$work/$1.log")" >&2; exit 1; }
  echo "$(ms "$t" "$(now)")"
}
: > "$work/kafka.ms"
: > "$work/files.ms"
for ((i = 0; i < repeat; i++)); do
  for s in kafka files; do
    rm -rf "$work/lake"
    run "$s" "$work/lake" >> "$work/$s.ms"
    rows=$("$bin" show "$work/lake/bench/bronze" --format csv --columns _seq | tail -n +2 | wc -l)
    [ "$rows" -eq "$n" ] || { echo "$s: bronze has $rows rows, not $n" >&2; exit 1; }
  done
done
k=$(median < "$work/kafka.ms")
f=$(median < "$work/files.ms")
rate() { awk -v n="$1" -v m="$2" 'BEGIN { printf "%d", (m > 0 ? n * 1000 / m : 0) }'; }
mbs() { awk -v b="$1" -v m="$2" 'BEGIN { printf "%.1f", (m > 0 ? b / m / 1000 : 0) }'; }
echo "kafka_source_bench: $n Debezium events, $((bytes / 1000000)) MB, $partitions partitions; produced into the mock in $produce_ms ms"
echo "  read_kafka -> bronze: median $k ms ($(rate "$n" "$k") events/s, $(mbs "$bytes" "$k") MB/s); runs: $(tr '\n' ' ' < "$work/kafka.ms")"
echo "  read_files -> bronze: median $f ms ($(rate "$n" "$f") events/s, $(mbs "$bytes" "$f") MB/s); runs: $(tr '\n' ' ' < "$work/files.ms")"
