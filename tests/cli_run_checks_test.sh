#!/usr/bin/env bash
# End to end, as a user hits them: misspelled column lists stop `cdclake apply` and `cdclake
# run` before anything is written, naming the column and the closest one; `--dry-run` refuses
# what the run refuses (same message, exit code 2); SET keys take effect or are warned about;
# an SCD2 update identical to the open version writes no version; a glob matching nothing
# says so.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "${3:-}expected [$2] in [$1]"; }
versions() { ls "$1/_delta_log" | grep -c '\.json$'; }
cd "$work"
mkdir -p land
printf 'id,v,_seq\n1,a,1\n2,b,2\n' >land/f1.csv

# 1. A misspelled column in --except (or --track-history-except) is an error naming it.
rc=0; err=$("$bin" apply --target t1 --keys id --sequence-by _seq --except _sqe 'land/*.csv' 2>&1) || rc=$?
expect_eq "$rc" 2 "--except _sqe: exit code: "
expect_in "$err" "COLUMNS * EXCEPT names column '_sqe'" "--except _sqe: "
expect_in "$err" "did you mean '_seq'?" "--except _sqe: "
[ ! -d t1/_delta_log ] || fail "--except _sqe wrote a table"
rc=0; err=$("$bin" apply --target t2 --keys id --sequence-by _seq --except _seq --scd 2 \
  --track-history-except w 'land/*.csv' 2>&1) || rc=$?
expect_eq "$rc" 2 "--track-history-except w: exit code: "
expect_in "$err" "TRACK HISTORY ON * EXCEPT names column 'w'" "--track-history-except w: "
[ ! -d t2/_delta_log ] || fail "--track-history-except w wrote a table"
# Hidden columns of file sources count as present.
"$bin" apply --target t3 --keys id --sequence-by _seq --except _seq,_metadata 'land/*.csv' >/dev/null

# 2. The same in a pipeline: the flow stops at its first batch, before writing.
cat >bad_except.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE s.t;
CREATE FLOW f AS AUTO CDC INTO s.t
FROM STREAM(read_files('land/*.csv', format => 'csv'))
KEYS (id) SEQUENCE BY _seq COLUMNS * EXCEPT (_sqe);
SQL
rc=0; err=$("$bin" run bad_except.sql --warehouse lake1 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "a pipeline with EXCEPT (_sqe) ran"
expect_in "$err" "COLUMNS * EXCEPT names column '_sqe'" "pipeline EXCEPT (_sqe): "
[ ! -d lake1/s/t/_delta_log ] || fail "pipeline EXCEPT (_sqe) wrote a table"

# 3. --dry-run refuses what the run refuses, with the same message and exit code 2.
cat >snapshot_of_table.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE s.bronze AS SELECT * FROM STREAM(read_files('land/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE s.t;
CREATE FLOW snap AS AUTO CDC INTO s.t FROM SNAPSHOT (s.bronze) KEYS (id);
SQL
cat >stream_of_scd1.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE s.current;
CREATE FLOW cur AS AUTO CDC INTO s.current
FROM STREAM(read_files('land/*.csv', format => 'csv')) KEYS (id) SEQUENCE BY _seq;
CREATE OR REFRESH STREAMING TABLE s.gold AS SELECT * FROM STREAM(s.current);
SQL
# A misspelled column list too: the run checks it on the source's first rows before it starts
# (exit code 2, nothing written), and so does --dry-run.
for p in snapshot_of_table stream_of_scd1 bad_except; do
  rc=0; dry=$("$bin" run $p.sql --warehouse lake2 --dry-run 2>&1) || rc=$?
  expect_eq "$rc" 2 "$p --dry-run: exit code: "
  rc=0; real=$("$bin" run $p.sql --warehouse lake2 2>&1) || rc=$?
  expect_eq "$rc" 2 "$p run: exit code: "
  expect_eq "$dry" "$real" "$p: dry run and run: "
  [ ! -d lake2 ] || fail "$p: the refused run wrote tables"
done
expect_in "$dry" "flow f: COLUMNS * EXCEPT names column '_sqe'" "dry run of EXCEPT (_sqe): "
expect_in "$("$bin" run stream_of_scd1.sql --dry-run 2>&1 || true)" \
  "a table read as a stream may only be appended to" "stream of SCD1: "
expect_in "$("$bin" run snapshot_of_table.sql --dry-run 2>&1 || true)" \
  "AUTO CDC FROM SNAPSHOT reads files" "snapshot of a table: "

# A source that cannot be read is its own flow's failure at run time (exit code 1), not a
# planning error that stops the other flows.
cat >missing_source.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE s.gone;
CREATE FLOW g AS AUTO CDC INTO s.gone
FROM STREAM(read_files('land/missing.csv', format => 'csv')) KEYS (id) SEQUENCE BY _seq;
CREATE OR REFRESH STREAMING TABLE s.here;
CREATE FLOW h AS AUTO CDC INTO s.here
FROM STREAM(read_files('land/*.csv', format => 'csv')) KEYS (id) SEQUENCE BY _seq;
SQL
rc=0; out=$("$bin" run missing_source.sql --warehouse lake4 2>&1) || rc=$?
expect_eq "$rc" 1 "a missing source: exit code: "
expect_in "$out" "flow g failed" "a missing source: "
[ -d lake4/s/here/_delta_log ] || fail "a missing source stopped the other flow: $out"

# 4. SET: keys cdclake reads take effect, others are a warning line.
cat >settings.sql <<'SQL'
SET spark.databricks.delta.properties.defaults.enableChangeDataFeed = true;
SET pipelines.trigger.interval = '10 seconds';
SET spark.sql.shuffle.partitions = 8;
CREATE OR REFRESH STREAMING TABLE s.t;
CREATE FLOW f AS AUTO CDC INTO s.t
FROM STREAM(read_files('land/*.csv', format => 'csv')) KEYS (id) SEQUENCE BY _seq
COLUMNS * EXCEPT (_seq);
SQL
err=$("$bin" run settings.sql --warehouse lake3 --dry-run 2>&1 >/dev/null)
expect_in "$err" "SET key 'spark.sql.shuffle.partitions' is not used by cdclake" "SET warning (dry run): "
err=$("$bin" run settings.sql --warehouse lake3 2>&1 >/dev/null)
expect_in "$err" "SET key 'spark.sql.shuffle.partitions' is not used by cdclake" "SET warning (run): "
expect_eq "$(grep -c "SET key" <<<"$err")" 1 "only the unused key is warned about: "
expect_in "$("$bin" describe lake3/s/t)" "delta.enableChangeDataFeed" "SET property default: "
printf 'SET pipelines.trigger.interval = soon;\n' >bad_interval.sql
rc=0; err=$("$bin" run bad_interval.sql --warehouse lake3 --dry-run 2>&1) || rc=$?
expect_eq "$rc" 2 "SET pipelines.trigger.interval = soon: exit code: "
expect_in "$err" "pipelines.trigger.interval" "bad interval: "

# 5. An SCD2 update identical to the open version changes no row: its version carries no data
# file (only the key's newer sequence, which a late event needs), and replaying it writes none.
"$bin" apply --target h --keys id --sequence-by _seq --except _seq --scd 2 land/f1.csv >/dev/null
before=$(versions h)
history=$("$bin" show h --format csv --order-by id,__START_AT)
printf 'id,v,_seq\n1,a,5\n' >same.csv
"$bin" apply --target h --keys id --sequence-by _seq --except _seq --scd 2 same.csv >/dev/null
expect_eq "$(versions h)" "$((before + 1))" "identical SCD2 update: versions: "
last=$(ls h/_delta_log/*.json | sort | tail -n 1)
expect_eq "$(grep -c '"add"\|"remove"' "$last" || true)" 0 "identical SCD2 update: data files: "
expect_eq "$("$bin" show h --format csv --order-by id,__START_AT)" "$history" "identical update: "
"$bin" apply --target h --keys id --sequence-by _seq --except _seq --scd 2 same.csv >/dev/null
expect_eq "$(versions h)" "$((before + 1))" "identical SCD2 update replayed: versions: "

# 6. A glob matching nothing says so (and is still an empty run).
err=$("$bin" apply --target g --keys id --sequence-by _seq 'nothing/*.csv' 2>&1 >/dev/null)
expect_in "$err" "warning: 'nothing/*.csv' matches no file" "apply, empty glob: "
cat >empty_glob.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE s.b AS SELECT * FROM STREAM(read_files('nothing/*.json', format => 'json'));
SQL
err=$("$bin" run empty_glob.sql --warehouse lake4 2>&1 >/dev/null)
expect_in "$err" "read_files('nothing/*.json') matches no file" "run, empty glob: "
err=$("$bin" apply --target g2 --keys id --sequence-by _seq 'land/*.csv' 2>&1 >/dev/null)
expect_eq "$err" "" "apply, a glob that matches: "
echo "cli_run_checks: ok"
