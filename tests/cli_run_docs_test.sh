#!/usr/bin/env bash
# End to end: the Databricks AUTO CDC documentation's examples run as pipeline files — the flow
# statements written as the documentation writes them, over a temporary view of the example's
# input — give the documented tables, with one-row batches and with one batch; the versioned
# snapshot example runs as AUTO CDC ... FROM SNAPSHOT over a folder of snapshot files.
set -euo pipefail
bin=$1
docs=$2/testdata/autocdc-docs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
schema='userId INT, name STRING, city STRING, operation STRING, sequenceNum INT'

# check EXAMPLE SCD TRUNCATE_CLAUSE TRACK_CLAUSE
check() {
  local example=$1 scd=$2 truncate=$3 track=$4
  cat > "$work/$example.sql" <<SQL
-- ${example}: the documentation's flow over its input.
CREATE TEMPORARY VIEW users AS
SELECT * FROM STREAM(read_files('\${input}', format => 'csv', schema => '$schema'));

CREATE OR REFRESH STREAMING TABLE target;

CREATE FLOW flow AS AUTO CDC INTO target
FROM STREAM(users)
KEYS (userId)
APPLY AS DELETE WHEN operation = "DELETE"
$truncate
SEQUENCE BY sequenceNum
COLUMNS * EXCEPT (operation, sequenceNum)
STORED AS SCD TYPE $scd
$track;
SQL
  sort "$docs/$example/expected.csv" > "$work/expected.csv"
  for rows in 1 100000; do
    local lake="$work/lake-$example-$rows"
    "$bin" run "$work/$example.sql" --var "input=$docs/$example/input.csv" --warehouse "$lake" \
      --batch-rows "$rows" > "$work/run.log" || fail "$example: $(cat "$work/run.log")"
    "$bin" show "$lake/default/target" --format csv | sort > "$work/got.csv"
    cmp -s "$work/expected.csv" "$work/got.csv" ||
      fail "$example with batches of $rows rows: $(diff "$work/expected.csv" "$work/got.csv")"
  done
  echo "$example: ok"
}

check scd1-users 1 'APPLY AS TRUNCATE WHEN operation = "TRUNCATE"' ''
check scd1-users-truncate 1 'APPLY AS TRUNCATE WHEN operation = "TRUNCATE"' ''
check scd2-users 2 '' ''
check scd2-users-track-history-except-city 2 '' 'TRACK HISTORY ON * EXCEPT (city)'

# The versioned snapshot example: snapshot_<version>.csv files in a folder.
snapshots=$work/snapshots
mkdir -p "$snapshots"
tail -n +2 "$docs/snapshot-versioned-scd2/input.csv" | while IFS=, read -r version id city; do
  f="$snapshots/snapshot_$version.csv"
  [ -f "$f" ] || echo "userId,city" > "$f"
  echo "$id,$city" >> "$f"
done
cat > "$work/snapshot.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE target;
CREATE FLOW flow AS AUTO CDC INTO target
FROM SNAPSHOT (read_files('${input}', format => 'csv', schema => 'userId INT, city STRING'))
KEYS (userId)
STORED AS SCD TYPE 2;
SQL
"$bin" run "$work/snapshot.sql" --var "input=$snapshots" --warehouse "$work/lake-snap" \
  > "$work/run.log" || fail "snapshot: $(cat "$work/run.log")"
sort "$docs/snapshot-versioned-scd2/expected.csv" > "$work/expected.csv"
"$bin" show "$work/lake-snap/default/target" --format csv | sort > "$work/got.csv"
cmp -s "$work/expected.csv" "$work/got.csv" ||
  fail "snapshot-versioned-scd2: $(diff "$work/expected.csv" "$work/got.csv")"
echo "snapshot-versioned-scd2: ok"
