#!/usr/bin/env bash
# Python pipelines (issue 18): `cdclake run FILE.py` with the system's python3 and the pyspark /
# dlt modules shipped in python/. The seeds' Python examples, paths adapted, give the same tables
# as the SQL pipelines that mean the same thing: seed 002's users flow (dp, a temporary view,
# SCD1, deletes and truncates), seed 004's dlt.apply_changes with col(...) == "DELETE"
# conditions (SCD2), seed 000's dim_customer (SCD2, expr conditions); a @dp.table with
# expectations; spark.conf.get reads --var. An unsupported call fails before anything runs,
# naming the call and the file's line; a syntax error shows Python's own message.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "${3:-}expected [$2] in [$1]"; }
cd "$work"
mkdir users cust dims

# --- seed 002: the users example (Databricks' AUTO CDC tutorial data).
printf 'userId,name,city,operation,sequenceNum\n124,Raul,Oaxaca,INSERT,1\n123,Isabel,Monterrey,INSERT,1\n125,Mercedes,Tijuana,INSERT,2\n126,Lily,Cancun,INSERT,2\n123,,,DELETE,6\n125,Mercedes,Guadalajara,UPDATE,6\n125,Mercedes,Mexicali,UPDATE,5\n123,Isabel,Chihuahua,UPDATE,5\n' \
  > users/1.csv
cat > users.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql.functions import col, expr, struct

@dp.temporary_view
def users():
    return (spark.readStream.format("cloudFiles")
            .option("cloudFiles.format", "csv")
            .option("header", "true")
            .load(spark.conf.get("landing")))

dp.create_streaming_table("users_current")

dp.create_auto_cdc_flow(
    target = "users_current",
    source = "users",
    keys = ["userId"],
    sequence_by = col("sequenceNum"),
    apply_as_deletes = expr("operation = 'DELETE'"),
    apply_as_truncates = expr("operation = 'TRUNCATE'"),
    except_column_list = ["operation", "sequenceNum"],
    stored_as_scd_type = 1)
PY
cat > users.sql <<'SQL'
CREATE TEMPORARY VIEW users AS SELECT * FROM STREAM(read_files('${landing}', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE users_current;
CREATE FLOW apply_cdc AS AUTO CDC INTO users_current FROM stream(users)
KEYS (userId) APPLY AS DELETE WHEN operation = "DELETE" APPLY AS TRUNCATE WHEN operation = "TRUNCATE"
SEQUENCE BY sequenceNum COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 1;
SQL
out=$("$bin" run users.py --warehouse py --var "landing=$work/users/*.csv" 2>&1) || fail "users.py: $out"
out=$("$bin" run users.sql --warehouse sq --var "landing=$work/users/*.csv" 2>&1) || fail "users.sql: $out"
py_rows=$("$bin" show py/default/users_current --format csv --order-by userId)
expect_eq "$py_rows" "$("$bin" show sq/default/users_current --format csv --order-by userId)" "users: Python against SQL: "
expect_eq "$py_rows" 'userId,name,city
124,Raul,Oaxaca
125,Mercedes,Guadalajara
126,Lily,Cancun' "users: the documented result: "

# --- seed 004: legacy dlt.apply_changes, Column conditions, SCD type as a string.
printf 'customer_id,name,tier,cdc_operation,change_sequence_number\n1,Ann,Gold,INSERT,1\n2,Bo,Silver,INSERT,2\n1,Ann,Platinum,UPDATE,3\n2,,,DELETE,4\n3,Cy,Gold,INSERT,5\n1,Ann,Silver,UPDATE,2\n' \
  > cust/1.csv
cat > dims.py <<'PY'
import dlt
from pyspark.sql.functions import col

@dlt.view
def bronze_customers_cdc_view():
    return spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv").option(
        "header", "true").load(spark.conf.get("landing"))

dlt.create_streaming_table(
    name="silver_dim_customers_py",
    comment="Customer dimension managed via Auto CDC in Python"
)

dlt.apply_changes(
    target="silver_dim_customers_py",
    source="bronze_customers_cdc_view",
    keys=["customer_id"],
    sequence_by=col("change_sequence_number"),
    apply_as_deletes=col("cdc_operation") == "DELETE",
    apply_as_truncates=col("cdc_operation") == "TRUNCATE",
    except_column_list=["cdc_operation", "change_sequence_number", "_metadata"],
    stored_as_scd_type="1" # or "2" (without apply_as_truncates: truncates need SCD type 1)
)
PY
cat > dims.sql <<'SQL'
CREATE TEMPORARY VIEW bronze_customers_cdc_view AS SELECT * FROM STREAM(read_files('${landing}', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE silver_dim_customers_py COMMENT 'Customer dimension managed via Auto CDC in Python';
APPLY CHANGES INTO silver_dim_customers_py FROM STREAM(bronze_customers_cdc_view)
KEYS (customer_id) APPLY AS DELETE WHEN cdc_operation = 'DELETE' APPLY AS TRUNCATE WHEN cdc_operation = 'TRUNCATE'
SEQUENCE BY change_sequence_number COLUMNS * EXCEPT (cdc_operation, change_sequence_number)
STORED AS SCD TYPE 1;
SQL
out=$("$bin" run dims.py --warehouse py --var "landing=$work/cust/*.csv" 2>&1) || fail "dims.py: $out"
out=$("$bin" run dims.sql --warehouse sq --var "landing=$work/cust/*.csv" 2>&1) || fail "dims.sql: $out"
py_rows=$("$bin" show py/default/silver_dim_customers_py --format csv --order-by customer_id)
expect_eq "$py_rows" "$("$bin" show sq/default/silver_dim_customers_py --format csv --order-by customer_id)" "dims: Python against SQL: "
expect_eq "$py_rows" 'customer_id,name,tier
1,Ann,Platinum
3,Cy,Gold' "dims: current rows (the late Silver update and the delete applied): "
# The same file as SCD type 2 keeps its truncate condition, which SCD2 refuses: the message
# says where the file declared the flow.
sed 's/stored_as_scd_type="1"/stored_as_scd_type="2"/' dims.py > dims2.py
rc=0; out=$("$bin" run dims2.py --warehouse bad2 --var "landing=$work/cust/*.csv" 2>&1) || rc=$?
expect_eq "$rc" "2" "dims2: exit code: "
expect_in "$out" "APPLY AS TRUNCATE WHEN is not allowed with SCD TYPE 2"
expect_in "$out" "(the statement declared at dims2.py:14)"
# The unnamed flow is the same flow as SQL's APPLY CHANGES INTO: run after the SQL file on the same
# warehouse, the Python file reads nothing again.
before=$(ls sq/default/silver_dim_customers_py/_delta_log | grep -c '\.json$')
out=$("$bin" run dims.py --warehouse sq --var "landing=$work/cust/*.csv" 2>&1) || fail "dims.py after dims.sql: $out"
if grep -q "rows read" <<<"$out"; then fail "dims.py read the SQL flow's input again: $out"; fi
expect_eq "$(ls sq/default/silver_dim_customers_py/_delta_log | grep -c '\.json$')" "$before" "dims.py after dims.sql: versions: "

# --- seed 000: dim_customer, SCD2 with expr conditions over a bronze @dp.table with expectations.
printf 'customer_id,email,op,_seq,_row_hash\n7,a@x,c,1,h1\n8,b@x,c,2,h2\n7,a2@x,u,3,h3\n8,,d,4,h4\n9,,c,5,h5\n' > dims/1.csv
cat > dim.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql.functions import col, expr

@dp.table(name="customer_changes_clean", comment="bronze, checked")
@dp.expect_or_drop("has_email", "email IS NOT NULL OR op = 'd'")
@dp.expect("known_op", col("op").isin("c", "u", "d"))
def clean():
    return (spark.readStream.format("csv").option("header", "true")
            .load(spark.conf.get("landing")).filter(col("customer_id").isNotNull()))

dp.create_streaming_table("dim_customer")

dp.create_auto_cdc_flow(
    target="dim_customer",
    source="customer_changes_clean",
    keys=["customer_id"],
    sequence_by=col("_seq"),
    apply_as_deletes=expr("op = 'd'"),
    except_column_list=["op", "_seq", "_row_hash", "_source_file", "_source_offset", "_ingested_at"],
    stored_as_scd_type=2,
)
PY
out=$("$bin" run dim.py --warehouse py --var "landing=$work/dims/*.csv" 2>&1) || fail "dim.py: $out"
expect_in "$out" "expectation has_email (drop row): 4 passed, 1 failed"
expect_eq "$("$bin" show py/default/dim_customer --format csv --order-by customer_id,__START_AT)" 'customer_id,email,__START_AT,__END_AT
7,a@x,1,3
7,a2@x,3,
8,b@x,2,4' "dim_customer: "
expect_in "$("$bin" show py/default/customer_changes_clean_quarantine --format csv --columns reason)" "has_email"

# --- AUTO CDC FROM SNAPSHOT in Python: a view reading a folder of versioned snapshots, SCD2,
# against the SQL form; then a next_snapshot_and_version function over the same files.
mkdir snaps
printf 'id,name\n1,a\n2,b\n' > snaps/snap_1.csv
printf 'id,name\n1,A\n3,c\n' > snaps/snap_2.csv
cat > snap.py <<'PY'
from pyspark import pipelines as dp

@dp.temporary_view
def snap():
    return spark.read.format("csv").option("header", "true").load(spark.conf.get("snapshots"))

dp.create_streaming_table("dim")

dp.create_auto_cdc_from_snapshot_flow(target="dim", source="snap", keys=["id"], stored_as_scd_type=2)
PY
cat > snap.sql <<'SQL'
CREATE TEMPORARY VIEW snap AS SELECT * FROM read_files('${snapshots}', format => 'csv');
CREATE OR REFRESH STREAMING TABLE dim;
CREATE FLOW dim AS AUTO CDC INTO dim FROM SNAPSHOT (snap) KEYS (id) STORED AS SCD TYPE 2;
SQL
out=$("$bin" run snap.py --warehouse py --var "snapshots=$work/snaps" 2>&1) || fail "snap.py: $out"
out=$("$bin" run snap.sql --warehouse sq --var "snapshots=$work/snaps" 2>&1) || fail "snap.sql: $out"
py_rows=$("$bin" show py/default/dim --format csv --order-by id,__START_AT)
expect_eq "$py_rows" "$("$bin" show sq/default/dim --format csv --order-by id,__START_AT)" "snapshots: Python against SQL: "
expect_eq "$py_rows" 'id,name,__START_AT,__END_AT
1,a,1,2
1,A,2,
2,b,1,2
3,c,2,' "snapshots: SCD2 history: "
# A next_snapshot_and_version function (the Databricks documentation's example, its path from
# spark.conf): called with None, then with each version it returned, until None; the same
# history as the SQL form over the folder, run after run, and a rerun writes nothing.
cat > snapfn.py <<'PY'
import os
from pyspark import pipelines as dp

def exist(file_name):
    return os.path.exists(file_name)

def next_snapshot_and_version(latest_snapshot_version):
    latest_snapshot_version = latest_snapshot_version or 0
    next_version = latest_snapshot_version + 1
    file_name = spark.conf.get("snapshots") + "/snap_" + str(next_version) + ".csv"
    if exist(file_name):
        return (spark.read.format("csv").option("header", "true").load(file_name), next_version)
    else:
        return None

dp.create_streaming_table("dim")
dp.create_auto_cdc_from_snapshot_flow(target="dim", source=next_snapshot_and_version, keys=["id"],
                                      stored_as_scd_type=2)
PY
out=$("$bin" run snapfn.py --warehouse fn --var "snapshots=$work/snaps" 2>&1) || fail "snapfn.py: $out"
expect_eq "$("$bin" show fn/default/dim --format csv --order-by id,__START_AT)" "$py_rows" \
  "snapshot function against the folder: "
printf 'id,name\n1,A\n3,C\n' > snaps/snap_3.csv
out=$("$bin" run snapfn.py --warehouse fn --var "snapshots=$work/snaps" 2>&1) || fail "snapfn.py, snapshot 3: $out"
expect_in "$out" "python-snapshots/dim/3.csv@3"
out=$("$bin" run snap.sql --warehouse sq --var "snapshots=$work/snaps" 2>&1) || fail "snap.sql, snapshot 3: $out"
expect_eq "$("$bin" show fn/default/dim --format csv --order-by id,__START_AT)" \
  "$("$bin" show sq/default/dim --format csv --order-by id,__START_AT)" "snapshot 3: function against SQL: "
versions=$(ls fn/default/dim/_delta_log | grep -c '\.json$')
out=$("$bin" run snapfn.py --warehouse fn --var "snapshots=$work/snaps" 2>&1) || fail "snapfn.py, rerun: $out"
expect_eq "$(ls fn/default/dim/_delta_log | grep -c '\.json$')" "$versions" "a rerun wrote versions: "
# A function that does not move on is refused, naming the line.
cat > snapstuck.py <<'PY'
from pyspark import pipelines as dp

def next_snapshot_and_version(latest_version):
    return (spark.read.format("csv").option("header", "true").load(spark.conf.get("f")), 1)

dp.create_streaming_table("dim")
dp.create_auto_cdc_from_snapshot_flow(target="dim", source=next_snapshot_and_version, keys=["id"])
PY
rc=0; out=$("$bin" run snapstuck.py --warehouse bad --var "f=$work/snaps/snap_1.csv" 2>&1) || rc=$?
expect_eq "$rc" "2" "snapshot function that does not move on: exit code: "
expect_in "$out" "snapstuck.py:7: snapshot version 1 after 1 is not supported by cdclake"

# --- what is not supported stops before anything runs, naming the call and the line.
cat > join.py <<'PY'
from pyspark import pipelines as dp

@dp.table
def joined():
    a = spark.readStream.table("x")
    return a.join(spark.read.table("y"), "id")
PY
rc=0; out=$("$bin" run join.py --warehouse bad 2>&1) || rc=$?
expect_eq "$rc" "2" "join: exit code: "
expect_in "$out" "join.py:6: DataFrame.join is not supported by cdclake"
[ ! -d bad ] || [ -z "$(ls bad)" ] || fail "join.py wrote something: $(ls -R bad)"
printf 'from pyspark import pipelines as dp\ndef broken(:\n    pass\n' > syntax.py
rc=0; out=$("$bin" run syntax.py --warehouse bad 2>&1) || rc=$?
expect_eq "$rc" "2" "syntax error: exit code: "
expect_in "$out" "SyntaxError"
expect_in "$out" "syntax.py"
printf 'from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef m():\n    return spark.read.table("t")\n' > mv.py
rc=0; out=$("$bin" run mv.py --warehouse bad 2>&1) || rc=$?
expect_in "$out" "mv.py:3: materialized_view is not supported by cdclake"
expect_eq "$rc" "2" "materialized_view: exit code: "

# What the file prints does not reach the SQL; a '${' in its strings is its own text; a file
# named like a module the translator uses (json.py), run from its own folder, still runs; a file
# that exits is an error; cdclake's stdout closed does not break the translation.
mkdir -p odd && cd odd
cat > json.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql.functions import col
print("declaring the pipeline")

@dp.table
def marked():
    return (spark.readStream.format("csv").option("header", "true")
            .load(spark.conf.get("landing")).filter(col("name") != "${not a var}"))
PY
printf 'name\nx\n${not a var}\n' > data.csv
out=$("$bin" run json.py --warehouse ../odd_lake --var "landing=$work/odd/data.csv" 2>&1) || fail "json.py: $out"
expect_in "$out" "declaring the pipeline"
expect_eq "$("$bin" show ../odd_lake/default/marked --format csv --columns name)" 'name
x' "json.py: "
"$bin" run json.py --warehouse ../odd_lake2 --var "landing=$work/odd/data.csv" >&- 2>/dev/null ||
  fail "json.py with stdout closed"
expect_eq "$("$bin" show ../odd_lake2/default/marked --format csv --columns name)" 'name
x' "json.py with stdout closed: "
printf 'import sys\nsys.exit(0)\n' > quits.py
rc=0; out=$("$bin" run quits.py --warehouse ../odd_lake3 2>&1) || rc=$?
expect_eq "$rc" "2" "sys.exit: exit code: "
expect_in "$out" "the file called sys.exit(0)"

# StructType schemas: a declared table's columns (NOT NULL from nullable=False, a comment) and a
# reader's column types, as their DDL strings would give them.
cat > typed.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql.types import DecimalType, LongType, StringType, StructField, StructType

dp.create_streaming_table("typed", schema=StructType([
    StructField("id", LongType(), False, {"comment": "the key"}),
    StructField("amount", DecimalType(10, 2)),
    StructField("name", StringType())]))

@dp.append_flow(target="typed")
def load():
    return (spark.readStream.format("csv").option("header", "true")
            .schema(StructType().add("id", LongType(), False).add("amount", "double")
                    .add("name", StringType()))
            .load(spark.conf.get("landing")))
PY
printf 'id,amount,name
1,2.5,a
2,3.25,b
' > typed.csv
out=$("$bin" run typed.py --warehouse ../typed_lake --var "landing=$work/odd/typed.csv" 2>&1) ||
  fail "typed.py: $out"
schema=$("$bin" schema ../typed_lake/default/typed)
expect_in "$schema" "id bigint not null"
expect_in "$schema" "amount decimal(10,2)"
expect_eq "$("$bin" show ../typed_lake/default/typed --format csv --columns id,amount,name --order-by id)" 'id,amount,name
1,2.50,a
2,3.25,b' "typed.py: "
cd ..
echo "ok: Python pipelines"
