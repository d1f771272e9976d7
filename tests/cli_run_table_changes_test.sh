#!/usr/bin/env bash
# Change feeds downstream (issue 17): a gold SCD1 table and an SCD2 history follow a silver SCD1
# table through STREAM(table_changes('shop.customers', 0)), the way Databricks' table_changes
# reads a change data feed; after inserts, updates, deletes and a key deleted then inserted
# again, run by run, gold equals silver and the history holds each key's versions. An append
# flow of the same feed keeps every change row, update pre-images included. A plain STREAM of
# the silver table is refused at planning naming table_changes; a table that does not record
# its changes is an error saying which property to set.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "${3:-}expected [$2] in [$1]"; }
versions() { ls "$1/_delta_log" | grep -c '\.json$'; }
cd "$work"
mkdir in

cat > p.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.bronze
AS SELECT * FROM STREAM(read_files('$work/in/*.csv', format => 'csv',
                                   schema => 'id BIGINT, seq BIGINT, op STRING, name STRING, city STRING'));

CREATE OR REFRESH STREAMING TABLE shop.customers
TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true');
CREATE FLOW customers AS AUTO CDC INTO shop.customers FROM STREAM(shop.bronze)
KEYS (id) APPLY AS DELETE WHEN op = 'd' SEQUENCE BY seq COLUMNS id, name, city
STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE shop.gold_customers;
CREATE FLOW gold AS AUTO CDC INTO shop.gold_customers
FROM STREAM(table_changes('shop.customers', 0))
KEYS (id) APPLY AS DELETE WHEN _change_type = 'delete' SEQUENCE BY _commit_version
COLUMNS * EXCEPT (_change_type, _commit_version, _commit_timestamp) STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE shop.customers_history;
CREATE FLOW history AS AUTO CDC INTO shop.customers_history
FROM STREAM(table_changes('shop.customers', 0))
KEYS (id) APPLY AS DELETE WHEN _change_type = 'delete' SEQUENCE BY _commit_version
COLUMNS * EXCEPT (_change_type, _commit_version, _commit_timestamp) STORED AS SCD TYPE 2;

CREATE OR REFRESH STREAMING TABLE shop.change_log
AS SELECT * FROM STREAM(table_changes('shop.customers', 0));

CREATE OR REFRESH STREAMING TABLE shop.deletes (
  CONSTRAINT is_delete EXPECT (_change_type = 'delete') ON VIOLATION DROP ROW
) AS SELECT * FROM STREAM(table_changes('shop.customers', 0));
SQL
run() { "$bin" run p.sql --warehouse lake "$@"; }
rows() { "$bin" show "lake/shop/$1" --format csv --columns id,name,city --order-by id | tail -n +2; }
gold_is_silver() {
  expect_eq "$(rows gold_customers)" "$(rows customers)" "$1: gold against silver: "
}
history_of() {  # each key's versions in order: "id:name/city,name/city;"
  "$bin" show lake/shop/customers_history --format jsonl --columns id,name,city,__START_AT,__END_AT |
    python3 -c '
import json, sys
by = {}
for line in sys.stdin:
    r = json.loads(line)
    by.setdefault(r["id"], []).append((r["__START_AT"], r["__END_AT"], r["name"], r["city"]))
out = []
for k in sorted(by):
    v = sorted(by[k])
    open_ = v[-1][1] is None
    parts = []
    for i, (start, end, n, c) in enumerate(v):
        if i > 0 and v[i - 1][1] != start:
            parts.append("gap")
        parts.append("%s/%s" % (n, c))
    out.append("%d:%s%s" % (k, ",".join(parts), "" if open_ else "|closed"))
print(";".join(out))'
}

printf 'id,seq,op,name,city\n1,1,c,Ann,Oslo\n2,2,c,Bob,Rome\n3,3,c,Cy,Nice\n4,4,c,Di,Bonn\n5,5,c,Ed,Linz\n' > in/f1.csv
run > run1.log 2>&1 || fail "first run: $(cat run1.log)"
gold_is_silver "after the inserts"

printf 'id,seq,op,name,city\n1,6,u,Anna,Oslo\n2,7,u,Bob,Milan\n3,8,d,Cy,Nice\n6,9,c,Fay,Graz\n' > in/f2.csv
# Killed just after a flow quarantined rows of the change feed and before its target commit:
# the next run reads those versions again and quarantines nothing twice.
rc=0
CDCLAKE_CRASH_AT=ingest-quarantine-committed run > crash.log 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "the run was not killed at ingest-quarantine-committed: $(cat crash.log)"
run > run2.log 2>&1 || fail "second run: $(cat run2.log)"
gold_is_silver "after updates, a delete and an insert"

# Nothing new: nothing committed downstream.
gold_before=$(versions lake/shop/gold_customers)
run > run3.log 2>&1 || fail "run with nothing new: $(cat run3.log)"
expect_eq "$(versions lake/shop/gold_customers)" "$gold_before" "gold versions after a run with nothing new: "

printf 'id,seq,op,name,city\n1,10,u,Annie,Oslo\n6,11,d,Fay,Graz\n3,12,c,Cyd,Nice\n' > in/f3.csv
run > run4.log 2>&1 || fail "third run: $(cat run4.log)"
gold_is_silver "after a key deleted then inserted again"
expect_eq "$(rows gold_customers | tr '\n' ' ')" "1,Annie,Oslo 2,Bob,Milan 3,Cyd,Nice 4,Di,Bonn 5,Ed,Linz " \
  "gold at the end: "
# Key 3's first version ends at its delete, the next begins at the insert after it (a gap).
expect_eq "$(history_of)" \
  "1:Ann/Oslo,Anna/Oslo,Annie/Oslo;2:Bob/Rome,Bob/Milan;3:Cy/Nice,gap,Cyd/Nice;4:Di/Bonn;5:Ed/Linz;6:Fay/Graz|closed" \
  "the history: "
types=$("$bin" show lake/shop/change_log --format csv --columns _change_type | tail -n +2 | sort | uniq -c |
  awk '{print $2 "=" $1}' | tr '\n' ' ')
expect_eq "$types" "delete=2 insert=7 update_postimage=3 update_preimage=3 " "the change log's rows: "
expect_eq "$("$bin" show lake/shop/deletes --format csv --columns id | tail -n +2 | sort | tr '\n' ' ')" \
  "3 6 " "the deletes kept by the expectation: "
expect_eq "$("$bin" show lake/shop/deletes_quarantine --format csv --columns reason | tail -n +2 | wc -l)" \
  "13" "rows dropped into quarantine (each once, after the kill): "

# A gold flow added once silver exists: its columns are checked on the change feed's rows.
{
  cat p.sql
  cat <<'SQL'
CREATE OR REFRESH STREAMING TABLE shop.gold_late;
CREATE FLOW gold_late AS AUTO CDC INTO shop.gold_late
FROM STREAM(table_changes('shop.customers', 0))
KEYS (id) APPLY AS DELETE WHEN _change_type = 'delete' SEQUENCE BY _commit_version
COLUMNS * EXCEPT (_change_type, _commit_version, _commit_timestamp) STORED AS SCD TYPE 1;
SQL
} > p2.sql
"$bin" run p2.sql --warehouse lake > run5.log 2>&1 || fail "a gold flow added later: $(cat run5.log)"
expect_eq "$(rows gold_late)" "$(rows customers)" "a gold flow added later against silver: "

# Silver refreshed in full: its versions start again at 0, so every table reading its changes
# is refreshed with it (the run says which and why), and gold follows silver's new feed.
"$bin" run p2.sql --warehouse lake --full-refresh shop.customers > run6.log 2>&1 ||
  fail "refreshing silver: $(cat run6.log)"
for t in shop.gold_customers shop.customers_history shop.change_log shop.deletes shop.gold_late; do
  expect_in "$(cat run6.log)" "full refresh of $t too: "
done
gold_is_silver "after silver was refreshed in full"
expect_eq "$(rows gold_late)" "$(rows customers)" "gold_late after silver's refresh: "
# Silver rebuilt behind the pipeline's back (its folder removed, a run makes it again): the
# flows reading its changes stop and say to refresh their targets too.
rm -rf lake/shop/customers
rc=0
"$bin" run p2.sql --warehouse lake > run7.log 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "gold went on after silver was rebuilt: $(cat run7.log)"
expect_in "$(cat run7.log)" "shop.customers was refreshed"
expect_in "$(cat run7.log)" "refresh the flow's target in full too"
"$bin" run p2.sql --warehouse lake --full-refresh shop.gold_customers shop.gold_late \
  shop.customers_history shop.change_log shop.deletes > run8.log 2>&1 || fail "run after refreshing the downstream: $(cat run8.log)"
gold_is_silver "after silver and gold were refreshed"
expect_eq "$(rows gold_late)" "$(rows customers)" "gold_late after the refreshes: "

# A plain stream of the silver table is refused at planning, naming table_changes.
cat > bad.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.bronze
AS SELECT * FROM STREAM(read_files('$work/in/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE shop.customers;
CREATE FLOW customers AS AUTO CDC INTO shop.customers FROM STREAM(shop.bronze)
KEYS (id) SEQUENCE BY seq;
CREATE OR REFRESH STREAMING TABLE shop.copy AS SELECT * FROM STREAM(shop.customers);
SQL
rc=0
out=$("$bin" run bad.sql --warehouse lake2 --dry-run 2>&1) || rc=$?
expect_eq "$rc" "2" "a plain stream of an AUTO CDC target: exit code: "
expect_in "$out" "STREAM(table_changes('shop.customers', 0))"

# A table that does not record its changes.
cat > nocdf.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.bronze
AS SELECT * FROM STREAM(read_files('$work/in/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE shop.changes AS SELECT * FROM STREAM(table_changes('shop.bronze', 0));
SQL
rc=0
out=$("$bin" run nocdf.sql --warehouse lake3 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "table_changes of a table without a change data feed: $out"
expect_in "$out" "does not record its changes; give it TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"

# A table that records its changes only from a later version: reading from before that is
# refused, naming the version that changed rows unrecorded (its update would read as a delete
# and an insert of one key in one version); reading from after it works.
mkdir late
printf 'id,seq,op,name,city\n1,1,u,a,x\n2,1,u,b,y\n' > late/1.csv
cat > late.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.bronze
AS SELECT * FROM STREAM(read_files('$work/late/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE shop.customers \${props};
CREATE FLOW customers AS AUTO CDC INTO shop.customers FROM STREAM(shop.bronze)
KEYS (id) SEQUENCE BY seq COLUMNS id, name, city STORED AS SCD TYPE 1;
SQL
"$bin" run late.sql --warehouse lake4 --var props= > late1.log 2>&1 || fail "late CDF, first run: $(cat late1.log)"
printf 'id,seq,op,name,city\n1,2,u,a,z\n' > late/2.csv
"$bin" run late.sql --warehouse lake4 --var props= > late2.log 2>&1 || fail "late CDF, update: $(cat late2.log)"
cdf="TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"
"$bin" run late.sql --warehouse lake4 --var "props=$cdf" > late3.log 2>&1 || fail "late CDF, enabling: $(cat late3.log)"
printf 'id,seq,op,name,city\n3,3,u,c,w\n1,4,u,a,q\n' > late/3.csv
cat late.sql > late_gold.sql
cat >> late_gold.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.gold;
CREATE FLOW gold AS AUTO CDC INTO shop.gold FROM STREAM(table_changes('shop.customers', \${from}))
KEYS (id) APPLY AS DELETE WHEN _change_type = 'delete' SEQUENCE BY _commit_version
COLUMNS * EXCEPT (_change_type, _commit_version, _commit_timestamp) STORED AS SCD TYPE 1;
SQL
rc=0
out=$("$bin" run late_gold.sql --warehouse lake4 --var "props=$cdf" --var from=0 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "table_changes over versions that did not record their changes: $out"
expect_in "$out" "changed rows before the table recorded its changes (delta.enableChangeDataFeed was not 'true' then)"
expect_in "$out" "table_changes('shop.customers', 3)"
out=$("$bin" run late_gold.sql --warehouse lake4 --var "props=$cdf" --var from=3 2>&1) ||
  fail "table_changes from the version that enabled them: $out"
expect_eq "$("$bin" show lake4/shop/gold --format csv --columns id,name,city --order-by id)" 'id,name,city
1,a,q
3,c,w' "gold from the recorded versions: "
out=$("$bin" run late_gold.sql --warehouse lake4_b --var "props=$cdf" --var from=0 2>&1) ||
  fail "a table recording its changes from its creation: $out"
echo "ok: table_changes"
