#!/usr/bin/env bash
# A bronze batch whose every record is quarantined (a file of garbage) changes no table: on a new
# table it does not create one with guessed types (a Debezium batch without events would type
# _seq BIGINT), on an existing one it leaves the schema alone; either way the record is in
# quarantine once, the next run does not read it again, and later good events land.
set -euo pipefail
bin=$1
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
cd "$work"
good=$src/examples/quickstart/data/customers/customers-0001.json
mkdir in
cat > p.sql <<SQL
CREATE OR REFRESH STREAMING TABLE b AS SELECT * FROM STREAM(read_files('$work/in/*.json', format => 'debezium'));
SQL
run() { "$bin" run p.sql --warehouse lake > "$1.log" 2>&1 || fail "$1: $(cat "$1.log")"; }
count() { "$bin" show "lake/default/$1" --format csv | tail -n +2 | grep -c . || true; }

printf '{this is not json\n' > in/a1.json
run first
[ ! -d lake/default/b/_delta_log ] || fail "a batch of garbage created the table: $("$bin" schema lake/default/b)"
expect_eq "$(count b_quarantine)" "1" "quarantined after the first run: "
run second
grep -Eq '^default\.b +default\.b +0 +0 ' second.log || fail "the garbage was read again: $(cat second.log)"
cp "$good" in/b2.json
run third
expect_eq "$(count b)" "$(grep -c . "$good")" "rows after good events: "
"$bin" schema lake/default/b | grep -q "_seq struct" || fail "_seq is not the struct: $("$bin" schema lake/default/b)"
# Garbage again, now into an existing table: the schema stays, the flow does not fail.
printf 'still not json\n' > in/c3.json
run fourth
expect_eq "$(count b_quarantine)" "2" "quarantined after the fourth run: "
cp "$src/examples/quickstart/data/customers/customers-0002.json" in/d4.json
run fifth
expect_eq "$(count b)" "$(cat "$good" "$src/examples/quickstart/data/customers/customers-0002.json" | grep -c .)" \
  "rows after more good events: "
expect_eq "$(count b_quarantine)" "2" "quarantined in the end: "
echo "quarantined batches test passed"
