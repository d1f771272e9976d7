#!/usr/bin/env bash
# SCD2 history from read_postgres against an independent record (issue 15): the test keeps its
# own log of every version it makes (inserts, updates to new values, deletes, primary-key
# changes, one statement per transaction, in commit order) while cdclake runs are killed at
# random moments. Afterwards an SCD2 table reading read_postgres directly and one built from a
# bronze table (both flows on one shared slot) hold, for every key, exactly the versions of the
# record, in order, each closed where the next begins, the last open only if the key exists.
# Usage: postgres_scd2_history_test.sh CDCLAKE_BIN
# CDCLAKE_PG_HISTORY_ROUNDS (default 8) rounds of 40 changes; CDCLAKE_PG_BINDIR as elsewhere.
set -euo pipefail
bin=$1
rounds=${CDCLAKE_PG_HISTORY_ROUNDS:-8}
work=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/postgres_server.sh"
cleanup() {
  pg_server_stop
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

pg_server_start "-c logical_decoding_work_mem=64kB -c fsync=off" > "$work/start.log" 2>&1 ||
  fail "PostgreSQL did not start: $(cat "$work/start.log")"
sql() { "$pgbin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d postgres -c "$1"; }
cd "$work"

seed=40
sql "CREATE TABLE hist (id int PRIMARY KEY, v text);
     INSERT INTO hist SELECT g, 's' || g FROM generate_series(1, $seed) g;
     CREATE PUBLICATION cdclake FOR TABLE hist;"
: > record.txt  # one line per version: "id value", or "id -" for a delete
live=()
for i in $(seq 1 "$seed"); do
  echo "$i s$i" >> record.txt
  live+=("$i")
done
next_id=$((seed + 1))

cat > p.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE shop.bronze_hist
AS SELECT * FROM STREAM(read_postgres(connection => '${pg}', publication => 'cdclake',
                                      slot => 'cdclake_hist', table => 'hist'));

CREATE OR REFRESH STREAMING TABLE shop.hist;
CREATE FLOW hist AS AUTO CDC INTO shop.hist
FROM STREAM(shop.bronze_hist)
KEYS (id) APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _seq
COLUMNS id, v STORED AS SCD TYPE 2;

CREATE OR REFRESH STREAMING TABLE shop.hist_direct;
CREATE FLOW hist_direct AS AUTO CDC INTO shop.hist_direct
FROM STREAM(read_postgres(connection => '${pg}', publication => 'cdclake',
                          slot => 'cdclake_hist', table => 'hist'))
KEYS (id) APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _seq
COLUMNS id, v STORED AS SCD TYPE 2;
SQL
run() { "$bin" run "$work/p.sql" --warehouse "$work/lake" --var "pg=$conninfo" "$@"; }
run > run0.log 2>&1 || fail "first run: $(cat run0.log)"

killed=0
for round in $(seq 1 "$rounds"); do
  : > round.sql
  for op in $(seq 1 40); do
    pick=$((RANDOM % ${#live[@]}))
    id=${live[$pick]}
    case $((RANDOM % 10)) in
      0 | 1)  # a new key
        echo "INSERT INTO hist VALUES ($next_id, 'n$round.$op');" >> round.sql
        echo "$next_id n$round.$op" >> record.txt
        live+=("$next_id")
        next_id=$((next_id + 1))
        ;;
      2)  # a delete (one key always stays)
        [ "${#live[@]}" -gt 1 ] || continue
        echo "DELETE FROM hist WHERE id = $id;" >> round.sql
        echo "$id -" >> record.txt
        unset "live[$pick]"
        live=("${live[@]}")
        ;;
      3)  # the key changes: the old key ends, the new begins with the row's values
        value="k$round.$op"
        echo "UPDATE hist SET id = $next_id, v = '$value' WHERE id = $id;" >> round.sql
        echo "$id -" >> record.txt
        echo "$next_id $value" >> record.txt
        live[$pick]=$next_id
        next_id=$((next_id + 1))
        ;;
      *)  # a new value
        echo "UPDATE hist SET v = 'u$round.$op' WHERE id = $id;" >> round.sql
        echo "$id u$round.$op" >> record.txt
        ;;
    esac
  done
  "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cdclake -d postgres -f round.sql
  if [ $((round % 2)) = 1 ]; then
    # The binary itself in the background, so that the kill reaches it.
    "$bin" run "$work/p.sql" --warehouse "$work/lake" --var "pg=$conninfo" --batch-rows 7 \
      > "kill$round.log" 2>&1 &
    pid=$!
    sleep "0.$((RANDOM % 3))$((RANDOM % 10))"
    kill -9 "$pid" 2>/dev/null && killed=$((killed + 1)) || true
    wait "$pid" 2>/dev/null || true
  else
    run --batch-rows 7 > "run$round.log" 2>&1 || fail "round $round: $(cat "run$round.log")"
  fi
done
run > final.log 2>&1 || fail "last run: $(cat final.log)"

for table in hist hist_direct; do
  "$bin" show "$work/lake/shop/$table" --format jsonl --columns id,v,__START_AT,__END_AT > "$table.jsonl"
  python3 - record.txt "$table.jsonl" "$table" <<'PY' || fail "shop.$table's history differs from the record"
import json, sys
record, rows, name = sys.argv[1], sys.argv[2], sys.argv[3]
want = {}
for line in open(record):
    key, value = line.split()
    want.setdefault(int(key), []).append(value)
got = {}
def seq(s):
    return None if s is None else (s["commit_lsn"], s["lsn"], s["ordinal"])
for line in open(rows):
    row = json.loads(line)
    got.setdefault(row["id"], []).append((seq(row["__START_AT"]), seq(row["__END_AT"]), row["v"]))
bad = 0
for key in sorted(set(want) | set(got)):
    events = want.get(key, [])
    versions = sorted(got.get(key, []))
    expected = [v for v in events if v != "-"]
    if [v for _, _, v in versions] != expected:
        bad += 1
        if bad <= 5:
            print("%s: key %d: versions %s, the record %s" % (name, key, [v for _, _, v in versions], events))
        continue
    for (start, end, _), (next_start, _, _) in zip(versions, versions[1:]):
        if end != next_start:
            bad += 1
            print("%s: key %d: a version ends at %s, the next begins at %s" % (name, key, end, next_start))
    open_now = bool(versions) and versions[-1][1] is None
    if open_now != (events[-1] != "-"):
        bad += 1
        print("%s: key %d: last version open=%s, the key %s" % (name, key, open_now, "exists" if events[-1] != "-" else "is deleted"))
print("%s: %d keys, %d versions, %d differences" % (name, len(want), sum(len(v) for v in got.values()), bad))
sys.exit(1 if bad else 0)
PY
done
dups=$("$bin" show "$work/lake/shop/bronze_hist" --format csv --columns id,_seq | tail -n +2 | sort | uniq -d | wc -l)
[ "$dups" = 0 ] || fail "bronze holds $dups changes twice"
echo "ok: SCD2 histories equal the record: $(grep -c '' record.txt) versions and deletes, $killed kills"
