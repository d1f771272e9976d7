#!/usr/bin/env bash
# End to end: PARTITIONED BY on AUTO CDC targets (SCD1 with deletion vectors, SCD2 with
# copy-on-write). Rows land in Hive-style partition folders (NULL in the default partition); a
# key whose partition value changes moves between partitions; deletes, late events, a lost
# `_cdclake/` (key index, index log and file ledger: rebuilt, every file read again with a
# warning, rows unchanged), optimize per partition, an empty string as a partition value
# (quarantined: Delta reads it back as NULL); a changed partitioning and a misspelled
# partition column are refused with their names (the latter by --dry-run too).
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
cd "$work"
mkdir land
cat > p.sql <<'EOF'
CREATE OR REFRESH STREAMING TABLE customers PARTITIONED BY (region);
CREATE FLOW customers_flow AS AUTO CDC INTO customers
FROM STREAM(read_files('${data}/*.csv', format => 'csv'))
KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq
COLUMNS * EXCEPT (op) STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE history PARTITIONED BY (region)
TBLPROPERTIES ('delta.enableDeletionVectors' = 'false');
CREATE FLOW history_flow AS AUTO CDC INTO history
FROM STREAM(read_files('${data}/*.csv', format => 'csv'))
KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq
COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2;
EOF
run() { "$bin" run p.sql --var data=land --warehouse lake > "$1.out" 2>&1 || fail "$1: $(cat "$1.out")"; }
show() { "$bin" show "lake/default/$1" --format csv --order-by "$2"; }
partitions() { (cd "lake/default/$1" && ls -d region=* | tr '\n' ' '); }

printf 'id,name,region,seq,op\n1,Ada,eu,1,U\n2,Bob,us,1,U\n3,Cy,,1,U\n' > land/c1.csv
run run1
for t in customers history; do
  expect_eq "$(partitions $t)" "region=__HIVE_DEFAULT_PARTITION__ region=eu region=us " "$t folders: "
  grep -q '"partitionColumns":\["region"\]' lake/default/$t/_delta_log/00000000000000000000.json ||
    fail "$t: not partitioned by region in its log"
done

# Key 1 moves eu -> us, key 2 is deleted, key 3 moves from the NULL partition to eu, 4 is new.
printf 'id,name,region,seq,op\n1,Ada,us,2,U\n2,,us,2,D\n3,Cy,eu,2,U\n4,Dan,eu,1,U\n' > land/c2.csv
run run2
current='id,name,region,seq
1,Ada,us,2
3,Cy,eu,2
4,Dan,eu,1'
history='id,name,region,seq,__START_AT,__END_AT
1,Ada,eu,1,1,2
1,Ada,us,2,2,
2,Bob,us,1,1,2
3,Cy,,1,1,2
3,Cy,eu,2,2,
4,Dan,eu,1,1,'
expect_eq "$(show customers id)" "$current" "customers after moves: "
expect_eq "$(show history id,__START_AT)" "$history" "history after moves: "

# A late event for key 1 (older than its row) changes nothing, in either table.
printf 'id,name,region,seq,op\n1,Old,ap,0,U\n' > land/c3.csv
run run3
expect_eq "$(show customers id)" "$current" "customers after a late event: "
grep -q "customers_flow: 1 rows read, 0 applied, 1 discarded" run3.out || fail "late event: $(cat run3.out)"

# Lost _cdclake/: the index comes back from the table, the lost ledger means reading every
# file again (said once), and the rows stay.
rm -rf lake/default/customers/_cdclake
run run4
grep -q "WARNING: flow 'customers_flow': its file ledger .* is missing; every file of its source is read again" run4.out ||
  fail "no warning for the lost ledger: $(cat run4.out)"
grep -q "customers_flow: 8 rows read, .*; 0 inserted, 0 updated, 0 deleted" run4.out || fail "re-read: $(cat run4.out)"
expect_eq "$(show customers id)" "$current" "customers after _cdclake/ was lost: "

# Optimize compacts partition by partition (two more runs leave three small files in eu and in
# us); later events still find their rows.
printf 'id,name,region,seq,op\n5,Eve,eu,1,U\n6,Fay,us,1,U\n' > land/c4.csv
run run5
printf 'id,name,region,seq,op\n7,Gus,eu,1,U\n8,Hal,us,1,U\n' > land/c5.csv
run run6
for t in customers history; do
  before=$(show $t id,region)
  "$bin" optimize lake/default/$t > opt.out || fail "optimize $t: $(cat opt.out)"
  grep -q "into 2 (" opt.out || fail "optimize $t did not write one file per partition: $(cat opt.out)"
  expect_eq "$(show $t id,region)" "$before" "$t after optimize: "
done
printf 'id,name,region,seq,op\n4,Dan,us,3,U\n3,,eu,3,D\n7,,eu,2,D\n' > land/c6.csv
run run7
expect_eq "$(show customers id)" 'id,name,region,seq
1,Ada,us,2
4,Dan,us,3
5,Eve,eu,1
6,Fay,us,1
8,Hal,us,1' "customers after optimize and more events: "
expect_eq "$(show history id,__START_AT | grep -c ',$')" 5 "open versions in history: "
expect_eq "$(show history id,__START_AT | grep '^4,')" '4,Dan,eu,1,1,3
4,Dan,us,3,3,' "key 4's versions: "

# An empty string in a partition column reads back as NULL in Delta: that upsert is
# quarantined with the reason, the key keeps its row.
printf 'id,name,region,seq,op\n5,Eve,"",9,U\n' > land/c6b.csv
run run8
"$bin" show lake/default/customers_quarantine --format csv --columns reason |
  grep -qF "partition column 'region' holds an empty string, which a Delta partition value cannot tell from NULL" ||
  fail "no quarantine row for an empty partition value"
expect_eq "$(show customers id | grep '^5,')" "5,Eve,eu,1" "key 5 after an empty partition value: "

# The partitioning of a table cannot change: refused, naming both; nothing written.
sed 's/^CREATE OR REFRESH STREAMING TABLE customers PARTITIONED BY (region);/CREATE OR REFRESH STREAMING TABLE customers PARTITIONED BY (name);/' p.sql > q.sql
printf 'id,name,region,seq,op\n9,Ivy,eu,9,U\n' > land/c7.csv
if "$bin" run q.sql --var data=land --warehouse lake > q.out 2>&1; then fail "a new partitioning was accepted"; fi
grep -q "the flow says PARTITIONED BY (name) but the table is partitioned by (region)" q.out ||
  fail "partitioning message: $(cat q.out)"
expect_eq "$(show customers id | grep -c '^9,')" 0 "a refused run wrote rows: "

# A declared column list makes a misspelled partition column a planning error (exit 2).
sed 's/^CREATE OR REFRESH STREAMING TABLE customers PARTITIONED BY (region);/CREATE OR REFRESH STREAMING TABLE customers (id INT, name STRING, region STRING, seq INT) PARTITIONED BY (regoin);/' p.sql > r.sql
set +e
"$bin" run r.sql --dry-run --var data=land --warehouse lake2 > r.out 2>&1
code=$?
set -e
expect_eq "$code" 2 "dry-run exit code: "
grep -q "PARTITIONED BY names column 'regoin', which the target does not have (did you mean 'region'?" r.out ||
  fail "misspelled partition column: $(cat r.out)"
echo PASS
