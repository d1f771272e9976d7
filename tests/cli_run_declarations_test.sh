#!/usr/bin/env bash
# End to end: a pipeline's declarations are honoured — a declared column list is the table's
# schema for bronze and AUTO CDC targets (casts, NOT NULL and uncastable values quarantined with
# the reason, missing columns NULL, undeclared columns left out with one warning, declared
# __START_AT/__END_AT types), changed TBLPROPERTIES reach an existing table on the next run
# (the tombstone GC threshold raised), a change of column mapping is refused, and FROM SNAPSHOT
# targets take their declared column list too.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
cd "$work"

# --- Declared columns -------------------------------------------------------------------------
mkdir -p land/people land/cdc
printf 'id,name,age,seq,extra\n1,Ada,36,1,x\n2,Bob,abc,1,y\n,Nobody,5,1,z\n3,Cy,40,2,w\n' \
  > land/people/p1.csv
printf 'id,name,age,seq,op,extra\n1,Ada,36,1,U,x\n2,Bob,abc,2,U,y\n3,,40,3,U,z\n1,Ada,37,4,U,x\n4,Dan,50,5,U,q\n4,,,6,D,\n5,Eve,20,7,U,r\n' \
  > land/cdc/c1.csv
cat > declared.sql <<'EOF'
CREATE OR REFRESH STREAMING TABLE bronze_people
  (id INT NOT NULL, name STRING, age INT, seq BIGINT, city STRING)
AS SELECT * FROM STREAM(read_files('${data}/people/*.csv', format => 'csv'));

CREATE OR REFRESH STREAMING TABLE people
  (id BIGINT NOT NULL, name STRING NOT NULL, age INT, seq BIGINT, city STRING);
CREATE FLOW people_current AS AUTO CDC INTO people
FROM STREAM(read_files('${data}/cdc/*.csv', format => 'csv'))
KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq
COLUMNS * EXCEPT (op) STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE people_history
  (id BIGINT NOT NULL, name STRING, age INT, seq INT, __START_AT INT, __END_AT INT);
CREATE FLOW people_history AS AUTO CDC INTO people_history
FROM STREAM(read_files('${data}/cdc/*.csv', format => 'csv'))
KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq
COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2;
EOF
"$bin" run declared.sql --var data=land --warehouse lake > run1.out 2> run1.err ||
  fail "declared run: $(cat run1.out run1.err)"

expect_eq "$("$bin" schema lake/default/bronze_people)" "$(printf 'id int not null\nname string\nage int\nseq bigint\ncity string\n_source_file string\n_source_offset bigint\n_ingested_at timestamp\n_unchanged_columns string')" \
  "bronze schema: "
expect_eq "$("$bin" show lake/default/bronze_people --format csv --columns id,name,age,seq,city --order-by id)" \
  'id,name,age,seq,city
1,Ada,36,1,
3,Cy,40,2,' "bronze rows: "
reasons=$("$bin" show lake/default/bronze_people_quarantine --format csv --columns reason --order-by reason)
expect_eq "$reasons" "reason
column 'age': value 'abc' cannot be cast to int
column 'id' is declared int NOT NULL but the value is NULL" "bronze quarantine: "

expect_eq "$("$bin" schema lake/default/people)" "$(printf 'id bigint not null\nname string not null\nage int\nseq bigint\ncity string')" \
  "people schema: "
expect_eq "$("$bin" show lake/default/people --format csv --order-by id)" 'id,name,age,seq,city
1,Ada,37,4,
5,Eve,20,7,' "people rows: "
reasons=$("$bin" show lake/default/people_quarantine --format csv --columns reason --order-by reason)
expect_eq "$reasons" "reason
column 'age': value 'abc' cannot be cast to int
column 'name' is declared string NOT NULL but the value is NULL" "people quarantine: "

expect_eq "$("$bin" schema lake/default/people_history)" "$(printf 'id bigint not null\nname string\nage int\nseq int\n__START_AT int\n__END_AT int')" \
  "people_history schema: "
expect_eq "$("$bin" show lake/default/people_history --format csv --columns id,age,__START_AT,__END_AT --order-by id,__START_AT)" \
  'id,age,__START_AT,__END_AT
1,36,1,4
1,37,4,
3,40,3,
4,50,5,6
5,20,7,' "people_history rows: "

# Undeclared source columns: one warning per flow that drops them, naming them.
grep -q "warning: flow [a-z.]*bronze_people: source columns 'extra' are not in" run1.err ||
  fail "no warning for bronze's undeclared column: $(cat run1.err)"
grep -q "warning: flow people_current: source columns 'extra' are not in" run1.err ||
  fail "no warning for people's undeclared column: $(cat run1.err)"
expect_eq "$(grep -c "source columns 'extra'" run1.err)" 3 "warnings (one per flow): "

# A declared __START_AT that cannot hold the sequence is an error naming it.
sed -e 's/__START_AT INT, __END_AT INT/__START_AT DATE, __END_AT DATE/' -e 's/seq INT,/seq BIGINT,/' \
  declared.sql > bad_bounds.sql
if "$bin" run bad_bounds.sql --var data=land --warehouse lake2 > bad.out 2>&1; then
  fail "a DATE __START_AT for a BIGINT sequence was accepted"
fi
grep -q "__START_AT is declared date, which cannot hold the sequence (bigint)" bad.out ||
  fail "bad bounds message: $(cat bad.out)"

# --- Changed table properties -----------------------------------------------------------------
mkdir -p tland
printf 'id,v,seq,op\n1,a,1,U\n1,,3,D\n' > tland/f1.csv
props() {
  cat <<EOF
CREATE OR REFRESH STREAMING TABLE kv
TBLPROPERTIES ('pipelines.cdc.tombstoneGCThresholdInSeconds' = '$1');
CREATE FLOW kv AS AUTO CDC INTO kv FROM STREAM(read_files('\${data}/*.csv', format => 'csv'))
KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op)
STORED AS SCD TYPE 1;
EOF
}
props 0 > p0.sql
props 86400 > p1.sql
"$bin" run p0.sql --var data=tland --warehouse tlake > t1.log 2>&1 || fail "props run 1: $(cat t1.log)"
sleep 0.05
# Raised before the tombstone of key 1 expires: it must stay, so a late insert is discarded.
printf 'id,v,seq,op\n2,b,1,U\n' > tland/f2.csv
"$bin" run p1.sql --var data=tland --warehouse tlake > t2.log 2>&1 || fail "props run 2: $(cat t2.log)"
grep -q '"pipelines.cdc.tombstoneGCThresholdInSeconds":"86400"' tlake/default/kv/_delta_log/*.json ||
  fail "the raised threshold is not in the table's log"
printf 'id,v,seq,op\n1,late,2,U\n' > tland/f3.csv
"$bin" run p1.sql --var data=tland --warehouse tlake > t3.log 2>&1 || fail "props run 3: $(cat t3.log)"
expect_eq "$("$bin" show tlake/default/kv --format csv --order-by id)" 'id,v,seq
2,b,1' "kv after a late insert of a deleted key: "
# Nothing changed: a rerun commits no metadata.
before=$(ls tlake/default/kv/_delta_log/*.json | wc -l)
"$bin" run p1.sql --var data=tland --warehouse tlake > t4.log 2>&1 || fail "props run 4: $(cat t4.log)"
expect_eq "$(ls tlake/default/kv/_delta_log/*.json | wc -l)" "$before" "versions after an unchanged rerun: "
# Column mapping cannot change in place: refused, naming the property.
sed "s/TBLPROPERTIES (/TBLPROPERTIES ('delta.columnMapping.mode' = 'name', /" p1.sql > cm.sql
if "$bin" run cm.sql --var data=tland --warehouse tlake > cm.log 2>&1; then
  fail "a column mapping change was accepted"
fi
grep -q "delta.columnMapping.mode" cm.log || fail "column mapping message: $(cat cm.log)"

# FROM SNAPSHOT targets honour a declared column list too: the types are the declared ones
# whatever each snapshot's inference says (snapshot 1 infers age as text because of 'x',
# snapshot 2 as a number), an uncastable value is quarantined, a declared column the snapshots
# lack is NULL.
mkdir snaps
printf 'id,name,age\n1,Ada,36\n2,Bob,x\n3,Cy,40\n' > snaps/snap_1.csv
printf 'id,name,age\n1,Ada,37\n3,Cy,40\n4,Dan,50\n' > snaps/snap_2.csv
cat > snap.sql <<'EOF'
CREATE OR REFRESH STREAMING TABLE dim (id INT NOT NULL, name STRING, age INT, city STRING);
CREATE FLOW snap AS AUTO CDC INTO dim FROM SNAPSHOT (read_files('${data}', format => 'csv'))
KEYS (id) STORED AS SCD TYPE 2;
EOF
"$bin" run snap.sql --var data=snaps --warehouse slake > s1.log 2>&1 || fail "snapshot run: $(cat s1.log)"
expect_eq "$("$bin" schema slake/default/dim)" "$(printf 'id int not null\nname string\nage int\ncity string\n__START_AT bigint\n__END_AT bigint')" \
  "snapshot target schema: "
expect_eq "$("$bin" show slake/default/dim --format csv --order-by id,__START_AT)" 'id,name,age,city,__START_AT,__END_AT
1,Ada,36,,1,2
1,Ada,37,,2,
3,Cy,40,,1,
4,Dan,50,,2,' "snapshot target rows: "
expect_eq "$("$bin" show slake/default/dim_quarantine --format csv --columns reason)" "reason
column 'age': value 'x' cannot be cast to int" "snapshot quarantine: "
before=$(ls slake/default/dim/_delta_log/*.json | wc -l)
"$bin" run snap.sql --var data=snaps --warehouse slake > s2.log 2>&1 || fail "snapshot rerun: $(cat s2.log)"
expect_eq "$(ls slake/default/dim/_delta_log/*.json | wc -l)" "$before" "versions after a snapshot rerun: "

echo PASS
