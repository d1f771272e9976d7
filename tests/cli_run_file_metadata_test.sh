#!/usr/bin/env bash
# `_metadata` (issue 18): file sources have Databricks' hidden file-metadata column (file_path,
# file_name, file_size, file_modification_time) in SQL and Python. `*` leaves it out; naming it
# or one of its fields reads it; a file's own `_metadata` column wins; an AUTO CDC flow's
# column list may leave it out as seed 004 does. Sizes and times are checked against stat(1).
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "${3:-}expected [$2] in [$1]"; }
cd "$work"
mkdir in own

printf 'id,op,seq,name\n1,u,1,ann\n2,u,1,bob\n' > in/a.csv
printf 'id,op,seq,name\n1,u,2,anne\n3,u,1,cy\n2,d,2,\n' > in/b.csv
touch -d '2026-03-04 05:06:07.250 UTC' in/a.csv
touch -d '2026-03-04 05:06:08 UTC' in/b.csv
printf 'id,_metadata\n1,mine\n' > own/o.csv

cat > p.sql <<SQL
CREATE OR REFRESH STREAMING TABLE bronze
AS SELECT *, _metadata.file_name AS src, _metadata
FROM STREAM(read_files('$work/in/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE plain
AS SELECT * FROM STREAM(read_files('$work/in/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE big
AS SELECT id, _metadata.file_size AS size FROM STREAM(read_files('$work/in/*.csv', format => 'csv'))
WHERE _metadata.file_name = 'b.csv';
CREATE OR REFRESH STREAMING TABLE own
AS SELECT * FROM STREAM(read_files('$work/own/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE silver;
CREATE FLOW to_silver AS AUTO CDC INTO silver FROM STREAM(bronze)
KEYS (id) APPLY AS DELETE WHEN op = 'd' SEQUENCE BY seq
COLUMNS * EXCEPT (op, seq, _metadata) STORED AS SCD TYPE 1;
SQL
out=$("$bin" run p.sql --warehouse lake 2>&1) || fail "run: $out"

size_a=$(stat -c %s in/a.csv)
size_b=$(stat -c %s in/b.csv)
expect_eq "$("$bin" show lake/default/bronze --format csv --columns id,seq,src --order-by id,seq)" \
  "id,seq,src
1,1,a.csv
1,2,b.csv
2,1,a.csv
2,2,b.csv
3,1,b.csv" "bronze: "
# The whole struct, as JSON: path, name, size and time (microseconds kept) of each row's file.
json=$("$bin" show lake/default/bronze --format jsonl --columns id,seq,_metadata --order-by id,seq)
expect_in "$json" "\"file_path\":\"$work/in/a.csv\""
expect_in "$json" "\"file_size\":$size_a"
expect_in "$json" "\"file_size\":$size_b"
expect_in "$json" "\"file_name\":\"b.csv\""
expect_in "$json" '"file_modification_time":"2026-03-04 05:06:07.250000Z"'
expect_in "$("$bin" schema lake/default/bronze)" "_metadata struct<file_path:string,file_name:string,file_size:bigint,file_modification_time:timestamp>"
# `*` alone leaves the hidden column out.
plain=$("$bin" schema lake/default/plain)
expect_in "$plain" "name string"
if grep -q _metadata <<<"$plain"; then fail "plain: * gave the hidden column: $plain"; fi
expect_eq "$("$bin" show lake/default/big --format csv --order-by id)" "id,size
1,$size_b
2,$size_b
3,$size_b" "big: "
expect_eq "$("$bin" show lake/default/own --format csv --columns id,_metadata)" "id,_metadata
1,mine" "own: "
expect_eq "$("$bin" show lake/default/silver --format csv --columns id,name,src --order-by id)" "id,name,src
1,anne,b.csv
3,cy,b.csv" "silver: "

if "$bin" schema lake/default/silver | grep -q _metadata; then fail "silver kept _metadata"; fi

# Python: col("_metadata.file_path") is the field, as in Spark; `*` leaves the column out.
cat > p.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql.functions import col

@dp.table
def bronze():
    return (spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv")
            .option("header", "true").load(spark.conf.get("landing"))
            .select("*", col("_metadata.file_path").alias("path"), "_metadata.file_size"))
PY
out=$("$bin" run p.py --warehouse py --var "landing=$work/in/*.csv" 2>&1) || fail "p.py: $out"
expect_eq "$("$bin" show py/default/bronze --format csv --columns id,seq,path,file_size --order-by id,seq)" \
  "id,seq,path,file_size
1,1,$work/in/a.csv,$size_a
1,2,$work/in/b.csv,$size_b
2,1,$work/in/a.csv,$size_a
2,2,$work/in/b.csv,$size_b
3,1,$work/in/b.csv,$size_b" "python: "
echo "ok"
