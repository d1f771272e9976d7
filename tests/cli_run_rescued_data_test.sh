#!/usr/bin/env bash
# Rescued data (issue 17): read_files(..., rescuedDataColumn => '_rescued_data') keeps a value
# that does not fit its column's type in that column (JSON of column -> value as written, with
# _file_path) and writes the row, for JSON with inferred types, CSV with a schema, and a bronze
# table with a declared column list; without the option the row goes to quarantine whole; the
# option is refused for formats it does not apply to.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "${3:-}expected [$2] in [$1]"; }
cd "$work"
mkdir j c d

cat > p.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.events
AS SELECT * FROM STREAM(read_files('$work/j/*.jsonl', format => 'json',
                                   rescuedDataColumn => '_rescued_data'));
CREATE OR REFRESH STREAMING TABLE shop.orders
AS SELECT * FROM STREAM(read_files('$work/c/*.csv', format => 'csv',
                                   schema => 'id BIGINT, qty INT', rescuedDataColumn => '_rescued_data'));
CREATE OR REFRESH STREAMING TABLE shop.people (id BIGINT NOT NULL, age INT, note STRING)
AS SELECT * FROM STREAM(read_files('$work/d/*.csv', format => 'csv',
                                   rescuedDataColumn => '_rescued_data'));
SQL
printf '{"id": 1, "amount": 5, "tags": [1]}\n' > j/1.jsonl  # tags: JSON text, a string
printf 'id,qty\n1,3\n' > c/1.csv
# In the first file 'xx' makes the file's age column text: the declared INT cast rescues it.
printf 'id,age,note\n1,36,a\n5,xx,e\n' > d/1.csv
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "first run: $out"
printf '{"id": 2, "amount": "abc", "tags": [2]}\n{"id": 3, "amount": 7, "tags": "none"}\n' > j/2.jsonl
printf 'id,qty\n2,xyz\n3,99999999999\n4,4\n' > c/2.csv
printf 'id,age,note\n2,abc,b\n3,40,c\n' > d/2.csv
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "second run: $out"
expect_in "$out" "shop.events: 2 rows read, 2 applied, 0 discarded, 0 quarantined"
expect_in "$out" "shop.orders: 3 rows read, 3 applied, 0 discarded, 0 quarantined"
expect_in "$out" "shop.people: 2 rows read, 2 applied, 0 discarded, 0 quarantined"

expect_eq "$("$bin" show lake/shop/events --format csv --columns id,amount,_rescued_data --order-by id)" "id,amount,_rescued_data
1,5,
2,,\"{\"\"_file_path\"\":\"\"$work/j/2.jsonl\"\",\"\"amount\"\":\"\"abc\"\"}\"
3,7," "events: "
expect_eq "$("$bin" show lake/shop/orders --format csv --columns id,qty,_rescued_data --order-by id)" "id,qty,_rescued_data
1,3,
2,,\"{\"\"_file_path\"\":\"\"$work/c/2.csv\"\",\"\"qty\"\":\"\"xyz\"\"}\"
3,,\"{\"\"_file_path\"\":\"\"$work/c/2.csv\"\",\"\"qty\"\":\"\"99999999999\"\"}\"
4,4," "orders: "
expect_eq "$("$bin" schema lake/shop/people | head -3)" "$(printf 'id bigint not null\nage int\nnote string')" "people's declared columns: "
expect_eq "$("$bin" show lake/shop/people --format csv --columns id,age,note,_rescued_data --order-by id)" "id,age,note,_rescued_data
1,36,a,
2,,b,\"{\"\"_file_path\"\":\"\"$work/d/2.csv\"\",\"\"age\"\":\"\"abc\"\"}\"
3,40,c,
5,,e,\"{\"\"_file_path\"\":\"\"$work/d/1.csv\"\",\"\"age\"\":\"\"xx\"\"}\"" "people: "
for t in events orders people; do
  [ ! -d "lake/shop/${t}_quarantine" ] || fail "$t has a quarantine: $("$bin" show lake/shop/${t}_quarantine --format csv)"
done

# Without the option the same rows go to quarantine whole, with the reason.
sed "s/, rescuedDataColumn => '_rescued_data'//; s/,\n *rescuedDataColumn => '_rescued_data'//" p.sql |
  tr '\n' '\r' | sed "s/,\r *rescuedDataColumn => '_rescued_data'//g" | tr '\r' '\n' > plain.sql
grep -q rescued plain.sql && fail "the test's plain pipeline still rescues"
rm -f j/2.jsonl c/2.csv d/2.csv
out=$("$bin" run plain.sql --warehouse plain 2>&1) || fail "plain first run: $out"
printf 'id,qty\n2,xyz\n' > c/2.csv
out=$("$bin" run plain.sql --warehouse plain 2>&1) || fail "plain second run: $out"
expect_in "$out" "shop.orders: 1 rows read, 0 applied, 0 discarded, 1 quarantined"
expect_in "$("$bin" show plain/shop/orders_quarantine --format csv --columns reason)" "column 'qty': 'xyz' is not an INT"

# AUTO CDC into a table with a declared column list: the declared cast rescues too, and the
# column is written without being declared.
mkdir a
cat > cdc.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.ages (id BIGINT NOT NULL, seq BIGINT, age INT);
CREATE FLOW ages AS AUTO CDC INTO shop.ages
FROM STREAM(read_files('$work/a/*.csv', format => 'csv', rescuedDataColumn => '_rescued_data'))
KEYS (id) SEQUENCE BY seq STORED AS SCD TYPE 1;
SQL
printf 'id,seq,age\n1,1,36\n2,1,xx\n' > a/1.csv
out=$("$bin" run cdc.sql --warehouse lake_cdc 2>&1) || fail "declared AUTO CDC with rescue: $out"
expect_eq "$("$bin" show lake_cdc/shop/ages --format csv --order-by id)" "id,seq,age,_rescued_data
1,1,36,
2,1,,\"{\"\"_file_path\"\":\"\"$work/a/1.csv\"\",\"\"age\"\":\"\"xx\"\"}\"" "declared AUTO CDC rescue: "

# A declared rescue column must be STRING; a file column of the same name in another case is
# refused before anything is written.
sed 's/(id BIGINT NOT NULL, seq BIGINT, age INT)/(id BIGINT NOT NULL, seq BIGINT, age INT, _rescued_data BIGINT)/' \
  cdc.sql > badtype.sql
rc=0; out=$("$bin" run badtype.sql --warehouse lake_bt 2>&1) || rc=$?
expect_eq "$rc" "2" "a BIGINT rescue column: exit code: "
expect_in "$out" "column '_rescued_data' of shop.ages is declared bigint, but it is the source's rescued-data column"
mkdir k
printf '{"id": 1, "n": "x", "_Rescued_Data": "mine"}\n' > k/1.jsonl
cat > clash.sql <<SQL
CREATE OR REFRESH STREAMING TABLE shop.k
AS SELECT * FROM STREAM(read_files('$work/k/*.jsonl', format => 'json', rescuedDataColumn => '_rescued_data'));
SQL
rc=0; out=$("$bin" run clash.sql --warehouse lake_k 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "a case-insensitive clash with the rescue column went through: $out"
expect_in "$out" "more than one column is named '_rescued_data'"
[ ! -d lake_k/shop/k/_delta_log ] || fail "a table was created despite the clash"

sed "s/rescuedDataColumn => '_rescued_data'/rescuedDataColumn => '_Source_File'/" cdc.sql > taken.sql
rc=0; out=$("$bin" run taken.sql --warehouse lake_taken 2>&1) || rc=$?
expect_eq "$rc" "2" "a rescue column named like a bronze column: exit code: "
expect_in "$out" "rescuedDataColumn '_Source_File' is a column cdclake adds to rows read from files"

sed "s/format => 'csv',$/format => 'parquet',/" p.sql > bad.sql
rc=0; out=$("$bin" run bad.sql --warehouse bad 2>&1) || rc=$?
expect_eq "$rc" "2" "rescuedDataColumn on parquet: exit code: "
expect_in "$out" "read_files rescuedDataColumn is for format 'csv' and 'json' files"
echo "ok: rescued data"
