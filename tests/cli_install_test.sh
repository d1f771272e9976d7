#!/usr/bin/env bash
# Install and first run (issue 19): `cmake --install` of a build into a temporary prefix gives
# bin/cdclake, its man page (which names every subcommand and option `--help` lists), the
# Python modules in share/cdclake/python and the `cdclake` module in lib/python3/dist-packages
# (which reads a table); the installed binary runs the quick start and a Python
# pipeline, and it is shown to use the installed modules, CDCLAKE_PYTHON_DIR before them and the
# source tree's python/ only when the installed ones are absent.
# Usage: cli_install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "${3:-}expected [$2] in [$1]"; }
# The installed binary is run without the variables that would choose its modules for it.
unset CDCLAKE_PYTHON_DIR PYTHONPATH

# --- What `make install` installs (stripped, as it does).
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" --strip >"$work/install.log" ||
  fail "cmake --install: $(cat "$work/install.log")"
bin=$prefix/bin/cdclake
[ -x "$bin" ] || fail "no $bin"
man_page=$prefix/share/man/man1/cdclake.1
[ -f "$man_page" ] || fail "no $man_page"
python_dir=$prefix/share/cdclake/python
for f in cdclake_pipeline/translate.py pyspark/pipelines/__init__.py dlt/__init__.py; do
  [ -f "$python_dir/$f" ] || fail "no $python_dir/$f"
done
[ ! -e "$python_dir/tests" ] || fail "the modules' unit tests were installed"
module_dir=$prefix/lib/python3/dist-packages
ls "$module_dir"/cdclake.cpython-*.so >/dev/null 2>&1 || fail "no cdclake module in $module_dir"

# --- The man page: it renders without warnings, and it names every subcommand of `--help` and
# every option of each subcommand's `--help` (so it cannot fall behind the program unseen).
if command -v man >/dev/null 2>&1; then
  rendered=$(MANWIDTH=100 man --warnings -l "$man_page" 2>"$work/man.err") ||
    fail "man -l: $(cat "$work/man.err")"
  [ ! -s "$work/man.err" ] || fail "man -l warns: $(cat "$work/man.err")"
  for header in NAME SYNOPSIS DESCRIPTION COMMANDS 'EXIT STATUS' ENVIRONMENT FILES EXAMPLES; do
    grep -q "^$header\$" <<<"$rendered" || fail "the rendered man page has no $header section"
  done
else
  for header in NAME SYNOPSIS DESCRIPTION COMMANDS '"EXIT STATUS"' ENVIRONMENT FILES EXAMPLES; do
    grep -q "^\.SH $header\$" "$man_page" || fail "the man page has no .SH $header"
  done
fi
page=$(sed 's/\\-/-/g' "$man_page")  # roff's \- is the hyphen an option is written with
commands=$("$bin" --help | sed -n '/^Subcommands:/,$s/^  \([a-z][a-z-]*\) .*/\1/p')
[ "$(wc -l <<<"$commands")" -ge 15 ] || fail "cdclake --help lists too few subcommands: $commands"
for command in $commands; do
  grep -q "^\.SS \"cdclake ${command}[ \"]" <<<"$page" || fail "the man page has no section on $command"
  options=$("$bin" "$command" --help | sed -n 's/^  \(-[a-z],\)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p')
  for option in $options; do
    [ "$option" = --help ] || grep -qF -- "$option" <<<"$page" ||
      fail "the man page does not mention cdclake $command $option"
  done
done

# --- The quick start, run by the installed binary on a copy of its inputs.
mkdir "$work/quickstart"
cp -r "$src/examples/quickstart/pipeline.sql" "$src/examples/quickstart/data" "$work/quickstart/"
cd "$work/quickstart"
"$bin" run pipeline.sql --var data=data --warehouse lake >run.log 2>&1 ||
  fail "quick start: $(cat run.log)"
expect_eq "$("$bin" show lake/shop/customers --format csv --order-by id)" 'id,name,email,city,tier
1,Ada Lovelace,ada@example.com,Marylebone,
2,Grace Hopper,grace@navy.example,Arlington,
4,Edsger Dijkstra,ewd@example.com,Austin,gold
5,Barbara Liskov,barbara@example.com,Boston,silver' "quick start customers: "
expect_eq "$("$bin" show lake/shop/orders --format csv --order-by order_id)" 'order_id,customer_id,status,amount
100,1,shipped,25.50
101,2,shipped,110.00' "quick start orders: "

# The installed `cdclake` Python module reads the same table (in another process, from another
# folder, with nothing of the build on its path).
ids=$(cd "$work" && PYTHONPATH="$module_dir" python3 -c '
import sys, cdclake
print(",".join(str(i) for i in sorted(cdclake.read_table(sys.argv[1], as_pandas=False)["id"])))
' "$work/quickstart/lake/shop/customers") || fail "import cdclake from $module_dir"
expect_eq "$ids" "1,2,4,5" "the installed Python module: "

# --- A Python pipeline, run by the installed binary through a link from another folder (the
# binary finds share/cdclake/python from where its file really is).
mkdir "$work/py" "$work/py/users" "$work/elsewhere"
ln -s "$bin" "$work/elsewhere/cdclake"
cd "$work/py"
printf 'userId,name,city,operation,sequenceNum\n124,Raul,Oaxaca,INSERT,1\n123,Isabel,Monterrey,INSERT,1\n123,,,DELETE,6\n125,Mercedes,Mexicali,INSERT,5\n' \
  >users/1.csv
cat >users.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql.functions import col, expr

@dp.temporary_view
def users():
    return (spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv")
            .option("header", "true").load(spark.conf.get("landing")))

dp.create_streaming_table("users_current")
dp.create_auto_cdc_flow(target="users_current", source="users", keys=["userId"],
                        sequence_by=col("sequenceNum"),
                        apply_as_deletes=expr("operation = 'DELETE'"),
                        except_column_list=["operation", "sequenceNum"], stored_as_scd_type=1)
PY
py_run() {  # py_run WAREHOUSE [env assignments...]: runs users.py with the linked binary
  local warehouse=$1
  shift
  env "$@" "$work/elsewhere/cdclake" run users.py --warehouse "$warehouse" \
    --var "landing=$work/py/users/*.csv"
}
expected_users='userId,name,city
124,Raul,Oaxaca
125,Mercedes,Mexicali'
out=$(py_run lake1 2>&1) || fail "users.py with the installed modules: $out"
expect_eq "$("$bin" show lake1/default/users_current --format csv --order-by userId)" \
  "$expected_users" "users.py: "
# The installed Python module runs it too, with the modules installed beside it (it finds them
# from its own file, not from python3's).
module_run() {  # module_run WAREHOUSE: users.py through the installed module
  PYTHONPATH="$module_dir" python3 -c '
import sys, cdclake
cdclake.run("users.py", warehouse=sys.argv[1], vars={"landing": sys.argv[2]})
' "$1" "$work/py/users/*.csv"
}
out=$(module_run lake5 2>&1) || fail "users.py through the installed module: $out"
expect_eq "$("$bin" show lake5/default/users_current --format csv --order-by userId)" \
  "$expected_users" "users.py through the installed module: "

# The installed modules are the ones used: with the installed cdclake_pipeline moved aside, the
# run fails for want of it, although the source tree's python/ (compiled into the binary as the
# last resort) still holds it.
mv "$python_dir/cdclake_pipeline" "$work/cdclake_pipeline.aside"
if out=$(py_run lake2 2>&1); then fail "users.py ran without the installed cdclake_pipeline: $out"; fi
expect_in "$out" "No module named 'cdclake_pipeline'" "without the installed module: "
if out=$(module_run lake6 2>&1); then
  fail "the module ran users.py without the installed cdclake_pipeline: $out"
fi
expect_in "$out" "No module named 'cdclake_pipeline'" "the module without the installed one: "
[ ! -d lake2/default/users_current ] || fail "a failed translation wrote a table"

# CDCLAKE_PYTHON_DIR comes before the installed modules.
out=$(py_run lake3 CDCLAKE_PYTHON_DIR="$src/python" 2>&1) ||
  fail "users.py with CDCLAKE_PYTHON_DIR: $out"
expect_eq "$("$bin" show lake3/default/users_current --format csv --order-by userId)" \
  "$expected_users" "users.py with CDCLAKE_PYTHON_DIR: "

# With no share/cdclake/python at all, the source tree's python/ serves (a binary run from its
# build folder is in this case).
rm -rf "$python_dir"
out=$(py_run lake4 2>&1) || fail "users.py with no installed modules: $out"
expect_eq "$("$bin" show lake4/default/users_current --format csv --order-by userId)" \
  "$expected_users" "users.py with the source tree's modules: "
echo "ok"
