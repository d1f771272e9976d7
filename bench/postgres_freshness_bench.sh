#!/usr/bin/env bash
# Freshness of read_postgres under a steady load (issue 15's goal: p99 <= 2 s at 10,000 changes/s):
# pgbench commits RATE transactions a second of TXN updates each for SECONDS while
# `cdclake run --continuous` streams them into a bronze table. Each change's freshness is the
# time from its commit in PostgreSQL (_source_ts_ms) to the Delta commit that made it visible
# (the first bronze commit at or after the row's _ingested_at: the bronze flow commits its
# batches one after another). Prints p50, p90, p99 and the largest, and the changes/s reached.
# Usage: bench/postgres_freshness_bench.sh CDCLAKE_BIN; RATE (default 1000), TXN (default 10),
# SECONDS_RUN (default 30), INTERVAL (default 200ms: --continuous's pause when idle).
set -euo pipefail
bin=$(realpath "$1")
rate=${RATE:-1000}
txn=${TXN:-10}
seconds=${SECONDS_RUN:-30}
interval=${INTERVAL:-200ms}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/pipeline/postgres_server.sh"
work=$(mktemp -d /tmp/cdclake-pgfresh-XXXXXX)
cleanup() {
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true
  pg_server_stop
  rm -rf "$work"
}
trap cleanup EXIT
pg_server_start "-c shared_buffers=256MB -c max_wal_size=4GB -c synchronous_commit=off"
sql() { "$pgbin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d postgres "$@"; }
rows=100000
sql -c "CREATE TABLE events (id bigint PRIMARY KEY, v bigint, note text);
        INSERT INTO events SELECT g, 0, 'row ' || g FROM generate_series(1, $rows) g;
        CREATE PUBLICATION cdclake FOR TABLE events;"
cat > "$work/p.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE shop.bronze_events
AS SELECT * FROM STREAM(read_postgres(connection => '${pg}', publication => 'cdclake',
                                      slot => 'cdclake_fresh', table => 'public.events'));
SQL
"$bin" run "$work/p.sql" --warehouse "$work/lake" --var "pg=$conninfo" > "$work/copy.log" 2>&1
copied=$(ls "$work/lake/shop/bronze_events/_delta_log/" | grep -c '\.json$')

"$bin" run "$work/p.sql" --warehouse "$work/lake" --var "pg=$conninfo" --continuous \
  --interval "$interval" > "$work/continuous.log" 2>&1 &
pid=$!
sleep 2
cat > "$work/txn.sql" <<SQL
\\set id random(1, $((rows - txn)))
UPDATE events SET v = v + 1 WHERE id BETWEEN :id AND :id + $((txn - 1));
SQL
"$pgbin/pgbench" -h 127.0.0.1 -p "$port" -U cdclake -n -c 4 -j 2 -R "$rate" -T "$seconds" \
  -f "$work/txn.sql" postgres > "$work/pgbench.log" 2>&1
written=$(sql -c "SELECT sum(v) FROM events")
# Until bronze holds every change (or 60 s more), then stop the run.
for _ in $(seq 1 600); do
  got=$("$bin" show "$work/lake/shop/bronze_events" --format csv --columns _op 2>/dev/null |
    grep -c '^u$' || true)
  [ "$got" -ge "$written" ] && break
  sleep 0.1
done
kill -TERM "$pid"
wait "$pid" || true
pid=""

"$bin" show "$work/lake/shop/bronze_events" --format csv --columns _op,_source_ts_ms,_ingested_at \
  > "$work/rows.csv"
python3 - "$work/lake/shop/bronze_events/_delta_log" "$work/rows.csv" "$copied" "$seconds" <<'PY'
import bisect, csv, datetime, glob, json, sys
log, rows_csv, copied, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
commits = []
for path in sorted(glob.glob(log + "/*.json"))[copied:]:
    for line in open(path):
        action = json.loads(line)
        if "commitInfo" in action:
            commits.append(action["commitInfo"]["timestamp"])
commits.sort()
def ms(text):
    t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return t.timestamp() * 1000
fresh = []
for row in csv.DictReader(open(rows_csv)):
    if row["_op"] != "u":
        continue
    i = bisect.bisect_left(commits, ms(row["_ingested_at"]))
    if i == len(commits):
        continue
    fresh.append(commits[i] - int(row["_source_ts_ms"]))
fresh.sort()
def pct(p):
    return fresh[min(len(fresh) - 1, int(len(fresh) * p))]
print("changes: %d in %d bronze commits, %d changes/s written" %
      (len(fresh), len(commits), len(fresh) / seconds))
print("freshness (PostgreSQL commit -> Delta commit), ms: p50 %d, p90 %d, p99 %d, max %d" %
      (pct(0.5), pct(0.9), pct(0.99), fresh[-1]))
PY
grep -E "^(tps|latency average)" "$work/pgbench.log" || true
