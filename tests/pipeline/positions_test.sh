#!/usr/bin/env bash
# Flow positions as a user meets them (issue 13): the same source spelled differently (./, an
# absolute path, another working folder, a symbolic link) resumes and reads nothing twice; another
# source for a flow with a position is an error until --reset-position; files named in Kafka
# Connect's interleaved order, arriving late, are each read once; a grown file is read on; a
# shrunk one is reported; a checkpoint followed by the deletion of the commits before it
# (Delta's log cleanup) still resumes exactly; a refreshed bronze still feeds its silver; an
# append flow over a refreshed upstream stops rather than append its rows twice.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
cd "$work"

cat > p.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE s.bronze
TBLPROPERTIES ('delta.checkpointInterval' = '2')
AS SELECT * FROM STREAM(read_files('${data}', format => 'csv'));

CREATE OR REFRESH STREAMING TABLE s.cur
TBLPROPERTIES ('delta.checkpointInterval' = '2');
CREATE FLOW cur AS AUTO CDC INTO s.cur
FROM STREAM(s.bronze)
KEYS (id)
SEQUENCE BY seq
COLUMNS id, v
STORED AS SCD TYPE 1;
SQL
mkdir land sub other
printf 'id,v,seq\n1,a,1\n2,b,1\n' > land/f1.csv
printf 'id,v,seq\n9,z,1\n' > other/o1.csv
ln -s land link
run() { "$bin" run "$work/p.sql" --warehouse "$work/lake" "$@"; }
bronze_rows() { "$bin" show "$work/lake/s/bronze" --format csv --columns id,v --order-by id,v | tail -n +2 | tr '\n' ' '; }
cur_rows() { "$bin" show "$work/lake/s/cur" --format csv --columns id,v --order-by id | tail -n +2 | tr '\n' ' '; }

run --var data=land > run1.log 2>&1 || fail "first run: $(cat run1.log)"
expect_eq "$(bronze_rows)" "1,a 2,b " "bronze after the first run: "

# The same folder, spelled four other ways: nothing is read again.
run --var data=./land/ > run2.log 2>&1 || fail "./land: $(cat run2.log)"
run --var data="$work/land" > run3.log 2>&1 || fail "absolute: $(cat run3.log)"
(cd sub && run --var data=../land > ../run4.log 2>&1) || fail "other cwd: $(cat run4.log)"
run --var data=link > run5.log 2>&1 || fail "symlink: $(cat run5.log)"
expect_eq "$(bronze_rows)" "1,a 2,b " "bronze after re-runs with other spellings: "

# New rows arrive; read once, whichever spelling runs next.
printf 'id,v,seq\n3,c,1\n' > land/f2.csv
(cd sub && run --var data=../link > ../run6.log 2>&1) || fail "new file: $(cat run6.log)"
expect_eq "$(bronze_rows)" "1,a 2,b 3,c " "bronze after a new file: "

# Another source is refused, naming both, and says what to do.
set +e
run --var data=other > run7.log 2>&1
code=$?
set -e
[ "$code" -ne 0 ] || fail "another source was accepted: $(cat run7.log)"
grep -q "$work/land" run7.log || fail "the old source is not named: $(cat run7.log)"
grep -q "$work/other" run7.log || fail "the new source is not named: $(cat run7.log)"
grep -q -- "--reset-position s.bronze" run7.log || fail "no advice: $(cat run7.log)"
expect_eq "$(bronze_rows)" "1,a 2,b 3,c " "bronze after the refused run: "
# Reset on purpose: the new source is read from its start, once.
run --var data=other --reset-position s.bronze > run8.log 2>&1 || fail "reset: $(cat run8.log)"
run --var data=other > run9.log 2>&1 || fail "after reset: $(cat run9.log)"
expect_eq "$(bronze_rows)" "1,a 2,b 3,c 9,z " "bronze after the reset: "

# Checkpoints, then log cleanup deletes every commit before the newest checkpoint: the positions
# (kept in the checkpoint's domainMetadata) still resume exactly.
for i in 1 2 3 4; do
  printf 'id,v,seq\n%s,n%s,1\n' "$((10 + i))" "$i" > other/o$((1 + i)).csv
  run --var data=other > "runc$i.log" 2>&1 || fail "checkpoint run $i: $(cat "runc$i.log")"
done
for t in bronze cur; do
  log=lake/s/$t/_delta_log
  last=$(ls "$log" | { grep '\.checkpoint\.parquet$' || true; } | sort | tail -1 | cut -c1-20)
  [ -n "$last" ] || fail "$t has no checkpoint: $(ls "$log")"
  for f in "$log"/*.json; do
    n=$(basename "$f" .json)
    if [[ "$n" < "$last" ]]; then rm "$f"; fi
  done
  rm -f "$log"/*.crc
done
printf 'id,v,seq\n20,late,1\n' > other/o9.csv
run --var data=other > runc5.log 2>&1 || fail "after log cleanup: $(cat runc5.log)"
expect_eq "$(bronze_rows)" "1,a 2,b 3,c 9,z 11,n1 12,n2 13,n3 14,n4 20,late " "bronze after log cleanup: "
expect_eq "$(cur_rows)" "1,a 2,b 3,c 9,z 11,n1 12,n2 13,n3 14,n4 20,late " "cur after log cleanup: "
# A full refresh of bronze gives it a new table id and restarts its log below the version the
# silver flow had read: silver reads it again from the start (and says so), so events landing
# after the refresh still arrive.
run --var data=other --full-refresh s.bronze > runr1.log 2>&1 || fail "refresh: $(cat runr1.log)"
printf 'id,v,seq\n21,after,1\n' > other/o10.csv
run --var data=other > runr2.log 2>&1 || fail "after refresh: $(cat runr2.log)"
grep -q "s.bronze was refreshed\|reading it again from the start" runr1.log runr2.log ||
  fail "no line about the refreshed upstream: $(cat runr1.log runr2.log)"
expect_eq "$(cur_rows)" "1,a 2,b 3,c 9,z 11,n1 12,n2 13,n3 14,n4 20,late 21,after " \
  "cur after a refresh of bronze: "
# The file ledger (a second warehouse): Kafka Connect names files topic+partition+offset, so a
# file of partition 0 arriving later sorts before one of partition 1 already read.
mkdir kc
printf 'id,v,seq\n1,a,1\n' > 'kc/t+1+0000000100.csv'
k() { "$bin" run "$work/p.sql" --warehouse "$work/lake2" --var data=kc "$@"; }
k2rows() { "$bin" show "$work/lake2/s/bronze" --format csv --columns id,v --order-by id,v | tail -n +2 | tr '\n' ' '; }
k > k1.log 2>&1 || fail "kafka 1: $(cat k1.log)"
printf 'id,v,seq\n2,b,1\n' > 'kc/t+0+0000000200.csv'
k > k2.log 2>&1 || fail "kafka 2: $(cat k2.log)"
printf 'id,v,seq\n3,c,1\n' > 'kc/t+0+0000000050.csv'
printf '4,d,1\n' >> 'kc/t+1+0000000100.csv'
k > k3.log 2>&1 || fail "kafka 3: $(cat k3.log)"
k > k4.log 2>&1 || fail "kafka 4: $(cat k4.log)"
expect_eq "$(k2rows)" "1,a 2,b 3,c 4,d " "bronze over interleaved, late and grown files: "
# A file that shrinks under what was read is reported, and not read again.
printf 'id,v,seq\n' > 'kc/t+0+0000000050.csv'
k > k5.log 2>&1 || fail "kafka 5: $(cat k5.log)"
grep -q "t+0+0000000050.csv shrank from" k5.log || fail "shrunk file not reported: $(cat k5.log)"
expect_eq "$(k2rows)" "1,a 2,b 3,c 4,d " "bronze after a file shrank: "
# An append flow (a streaming table AS SELECT FROM STREAM(t)) over an upstream refreshed in
# full cannot read it again without appending its rows twice: a refresh of the upstream
# refreshes the copy with it (said by the run). An upstream rebuilt behind the pipeline's back
# stops the copy, naming the refresh that mends it, and leaves it as it was; refreshing the
# copy then reads the new upstream once.
cat > a.sql <<'SQL'
CREATE OR REFRESH STREAMING TABLE s.bronze
AS SELECT * FROM STREAM(read_files('${data}', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE s.copy AS SELECT id, v FROM STREAM(s.bronze);
SQL
a() { "$bin" run "$work/a.sql" --warehouse "$work/lake3" --var data=app "$@"; }
copy_rows() { "$bin" show "$work/lake3/s/copy" --format csv --columns id,v --order-by id,v | tail -n +2 | tr '\n' ' '; }
mkdir app
printf 'id,v,seq\n1,a,1\n2,b,1\n' > app/a1.csv
a > a1.log 2>&1 || fail "append 1: $(cat a1.log)"
expect_eq "$(copy_rows)" "1,a 2,b " "copy after the first run: "
a --full-refresh s.bronze > a2.log 2>&1 || fail "refreshing the upstream: $(cat a2.log)"
grep -q "full refresh of s.copy too: its flow s.copy reads s.bronze" a2.log ||
  fail "the copy's refresh is not said: $(cat a2.log)"
expect_eq "$(copy_rows)" "1,a 2,b " "copy after the upstream's refresh: "
rm -rf "$work/lake3/s/bronze"
rc=0
a > a3.log 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "an append flow read a rebuilt upstream again: $(cat a3.log)"
grep -q "s.bronze was refreshed" a3.log || fail "the refresh is not named: $(cat a3.log)"
grep -q "an append flow would append its rows again" a3.log || fail "no reason: $(cat a3.log)"
grep -q -- "--full-refresh s.copy" a3.log || fail "no advice: $(cat a3.log)"
expect_eq "$(copy_rows)" "1,a 2,b " "copy after the refused run: "
rc=0
a > a3b.log 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "the next run appended the rebuilt upstream: $(cat a3b.log)"
expect_eq "$(copy_rows)" "1,a 2,b " "copy after the second refused run: "
a --full-refresh s.copy > a4.log 2>&1 || fail "refreshing the copy: $(cat a4.log)"
expect_eq "$(copy_rows)" "1,a 2,b " "copy after its own refresh: "
printf 'id,v,seq\n3,c,1\n' > app/a2.csv
a > a5.log 2>&1 || fail "append after both refreshes: $(cat a5.log)"
expect_eq "$(copy_rows)" "1,a 2,b 3,c " "copy after a new file: "
# A table that follows a refreshed one but also appends files is not refreshed unnamed: its
# files are read again from what is there now. The run stops before removing anything.
mkdir app2
printf 'id,v,seq\n100,z,1\n' > app2/b1.csv
{ cat a.sql; echo "CREATE FLOW extra AS INSERT INTO s.copy BY NAME SELECT id, v FROM STREAM(read_files('\${data2}', format => 'csv'));"; } > a2.sql
b() { "$bin" run "$work/a2.sql" --warehouse "$work/lake3" --var data=app --var data2=app2 "$@"; }
b > b1.log 2>&1 || fail "the extra append flow: $(cat b1.log)"
expect_eq "$(copy_rows)" "1,a 2,b 3,c 100,z " "copy with the extra flow: "
rm app2/b1.csv
rc=0
b --full-refresh s.bronze > b2.log 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "a refresh removed a table fed by files unnamed: $(cat b2.log)"
grep -q "name s.copy in --full-refresh to refresh it anyway" b2.log || fail "no advice: $(cat b2.log)"
expect_eq "$(copy_rows)" "1,a 2,b 3,c 100,z " "copy after the refused refresh: "
[ -d "$work/lake3/s/bronze/_delta_log" ] || fail "the refused refresh removed s.bronze"
echo "positions test passed"
