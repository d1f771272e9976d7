"""The `cdclake` Python module (issue 18): read_table of every table the quick start writes
equals `cdclake show`, as {column: list} and as a pandas DataFrame; changes equals `cdclake
changes`; run gives the same tables as `cdclake run`, for a SQL and a Python pipeline; errors
arrive as the Python exceptions a caller expects, naming the file.

Usage: python3 tests/python_module_test.py CDCLAKE_BINARY  (PYTHONPATH holding the module)
"""
import datetime
import decimal
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

import cdclake

BIN = None
ROOT = pathlib.Path(__file__).resolve().parent.parent


def cli(*args, check=True):
    done = subprocess.run([BIN, *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"cdclake {' '.join(args)}: {done.stderr}")
    return done


def jsonl(text):
    return [json.loads(line, parse_float=decimal.Decimal) for line in text.splitlines() if line]


def same(value, shown):
    """Whether a value read_table returned is the one `cdclake show --format jsonl` printed."""
    if value is None or shown is None:
        return value is None and shown is None
    if isinstance(value, bool):
        return shown is value
    if isinstance(value, datetime.datetime):
        text = value.strftime("%Y-%m-%d %H:%M:%S.%f")
        if value.tzinfo is not None:
            text = value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f") + "Z"
        return text == shown
    if isinstance(value, datetime.date):
        return value.isoformat() == shown
    if isinstance(value, float):
        if isinstance(shown, str):  # NaN and infinities are printed as strings
            return math.isnan(value) if shown.lower() == "nan" else float(shown) == value
        return float(shown) == value
    if isinstance(value, decimal.Decimal):
        return value == decimal.Decimal(shown)
    if isinstance(value, bytes):
        return value.hex() == shown.lower()
    if isinstance(value, dict):  # a struct, or a map whose keys `show` prints as text
        return isinstance(shown, dict) and len(value) == len(shown) and all(
            any(same_key(k, s) and same(v, shown[s]) for s in shown) for k, v in value.items())
    if isinstance(value, list):
        return isinstance(shown, list) and len(value) == len(shown) and all(
            same(v, s) for v, s in zip(value, shown))
    return value == shown


def same_key(key, text):
    if isinstance(key, bool):
        return text == ("true" if key else "false")
    if isinstance(key, (int, float)):
        return float(text) == key
    return same(key, text)


def tables_under(folder):
    return sorted(str(p.parent) for p in pathlib.Path(folder).rglob("_delta_log") if p.is_dir())


def rows_of(columns):
    names = list(columns)
    count = len(columns[names[0]]) if names else 0
    return [tuple(columns[n][i] for n in names) for i in range(count)]


def same_in_frame(framed, value):
    """Whether a DataFrame cell holds `value`: a null is None in an object column, <NA> in a
    nullable integer or boolean column, NaN in a float column."""
    import pandas
    if value is None:
        return framed is None or framed is pandas.NA or (
            isinstance(framed, float) and math.isnan(framed))
    if isinstance(value, float) and math.isnan(value):
        return isinstance(framed, float) and math.isnan(framed)
    return framed == value


class QuickStartTables(unittest.TestCase):
    """Every table scripts/quickstart writes, read three ways."""

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp()
        env = dict(os.environ, CDCLAKE_QUICKSTART_DIR=cls.work, CDCLAKE_BIN=BIN)
        done = subprocess.run([str(ROOT / "scripts" / "quickstart")], capture_output=True,
                              text=True, env=env, cwd=ROOT)
        if done.returncode != 0:
            raise AssertionError("quick start: " + done.stdout[-2000:] + done.stderr[-2000:])
        cls.tables = tables_under(cls.work)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_there_are_tables(self):
        names = [os.path.relpath(t, self.work) for t in self.tables]
        self.assertIn("warehouse/shop/customers", names)
        self.assertIn("warehouse/shop/customers_history", names)
        self.assertGreaterEqual(len(self.tables), 6, names)

    def test_read_table_equals_show(self):
        for table in self.tables:
            with self.subTest(table=table):
                columns = cdclake.read_table(table, as_pandas=False)
                shown = jsonl(cli("show", table, "--format", "jsonl").stdout)
                self.assertEqual(len(rows_of(columns)), len(shown))
                names = list(columns)
                for i, row in enumerate(shown):
                    self.assertEqual(list(row), names)
                    for n in names:
                        self.assertTrue(same(columns[n][i], row[n]),
                                        f"row {i} column {n}: {columns[n][i]!r} != {row[n]!r}")

    def test_pandas_frame_holds_the_same_values(self):
        import pandas
        nullable_int_with_null = 0
        for table in self.tables:
            with self.subTest(table=table):
                columns = cdclake.read_table(table, as_pandas=False)
                frame = cdclake.read_table(table)
                self.assertIsInstance(frame, pandas.DataFrame)
                self.assertEqual(list(frame.columns), list(columns))
                self.assertEqual(len(frame), len(rows_of(columns)))
                for n in columns:
                    for i, (framed, value) in enumerate(zip(frame[n].tolist(), columns[n])):
                        self.assertTrue(same_in_frame(framed, value),
                                        f"{n} row {i}: {framed!r} != {value!r}")
                    if str(frame[n].dtype) == "Int64" and frame[n].isna().any():
                        nullable_int_with_null += 1
        # A null in an integer column stays a null, not a float column (the SCD2 example's
        # open versions have a null BIGINT __END_AT).
        self.assertGreater(nullable_int_with_null, 0)

    def test_versions_and_columns(self):
        table = os.path.join(self.work, "warehouse/shop/customers")
        history = jsonl(cli("history", table, "--format", "jsonl").stdout)
        self.assertGreater(len(history), 1)
        first = cdclake.read_table(table, version=0, as_pandas=False)
        shown = jsonl(cli("show", table, "--version", "0", "--format", "jsonl").stdout)
        self.assertEqual(len(rows_of(first)), len(shown))
        some = cdclake.read_table(table, columns=["name", "id"], as_pandas=False)
        self.assertEqual(list(some), ["name", "id"])
        with self.assertRaises(FileNotFoundError):
            cdclake.read_table(table, version=10_000)

    def test_changes_equal_the_command(self):
        for table in self.tables:
            with self.subTest(table=table):
                shown = jsonl(cli("changes", table, "--from", "0", "--format", "jsonl").stdout)
                columns = cdclake.changes(table, 0, as_pandas=False)
                self.assertIn("_change_type", columns)
                self.assertEqual(len(rows_of(columns)), len(shown))
                for i, row in enumerate(shown):
                    self.assertEqual(list(row), list(columns))
                    for n in columns:
                        self.assertTrue(same(columns[n][i], row[n]), f"row {i} column {n}")


class TablesWrittenByOthers(unittest.TestCase):
    """The Delta tables Spark, delta-rs and the kernels wrote (../shared/testdata/delta): every
    type, nested ones included, equals `cdclake show`; a table `show` cannot read raises the
    same message."""

    def test_read_table_equals_show(self):
        base = ROOT.parent / "shared" / "testdata" / "delta"
        tables = tables_under(base)
        self.assertGreater(len(tables), 30, base)
        kinds = set()
        for table in tables:
            with self.subTest(table=os.path.relpath(table, base)):
                done = cli("show", table, "--format", "jsonl", check=False)
                if done.returncode != 0:
                    with self.assertRaises(Exception) as raised:
                        cdclake.read_table(table)
                    self.assertIn(str(raised.exception), done.stderr)
                    continue
                shown = jsonl(done.stdout)
                columns = cdclake.read_table(table, as_pandas=False)
                self.assertEqual(len(rows_of(columns)), len(shown))
                for i, row in enumerate(shown):
                    self.assertEqual(list(row), list(columns))
                    for n in columns:
                        kinds.add(type(columns[n][i]).__name__)
                        self.assertTrue(same(columns[n][i], row[n]),
                                        f"row {i} column {n}: {columns[n][i]!r} != {row[n]!r}")
        self.assertTrue({"Decimal", "bytes", "date", "datetime", "dict", "list", "bool", "float"}
                        <= kinds, kinds)


class RunPipelines(unittest.TestCase):
    def setUp(self):
        self.work = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def test_quickstart_pipeline_same_tables_as_the_command(self):
        pipeline = str(ROOT / "examples/quickstart/pipeline.sql")
        data = str(ROOT / "examples/quickstart/data")
        cli("run", pipeline, "--var", "data=" + data, "--warehouse", str(self.work / "cli"))
        summary = cdclake.run(pipeline, str(self.work / "py"), {"data": data})
        self.assertFalse(summary["failed"])
        self.assertEqual(summary["passes"], 1)
        self.assertGreater(sum(f["applied"] for f in summary["flows"]), 0)
        self.assertTrue(all(f["error"] is None for f in summary["flows"]))
        cli_tables = [os.path.relpath(t, self.work / "cli") for t in tables_under(self.work / "cli")]
        py_tables = [os.path.relpath(t, self.work / "py") for t in tables_under(self.work / "py")]
        self.assertEqual(py_tables, cli_tables)
        for t in cli_tables:
            if t.startswith("_event_log"):
                continue  # run ids and times
            with self.subTest(table=t):
                a = cdclake.read_table(str(self.work / "cli" / t), as_pandas=False)
                b = cdclake.read_table(str(self.work / "py" / t), as_pandas=False)
                self.assertEqual(list(a), list(b))
                for clock in ("_ingested_at",):  # when bronze wrote the row
                    a.pop(clock, None)
                    b.pop(clock, None)
                self.assertGreater(len(rows_of(a)), 0)
                self.assertEqual(sorted(rows_of(a), key=repr), sorted(rows_of(b), key=repr))
        log = cdclake.read_table(str(self.work / "py/_event_log"), columns=["run_id"],
                                 as_pandas=False)
        self.assertTrue(log["run_id"] and all(r.startswith("python-") for r in log["run_id"]),
                        log["run_id"][:3])
        again = cdclake.run(pipeline, str(self.work / "py"), {"data": data})
        self.assertEqual(sum(f["read"] for f in again["flows"]), 0, "a rerun read events again")

    def test_python_pipeline(self):
        landing = self.work / "users"
        landing.mkdir()
        (landing / "1.csv").write_text(
            "userId,name,city,operation,sequenceNum\n124,Raul,Oaxaca,INSERT,1\n"
            "123,Isabel,Monterrey,INSERT,1\n125,Mercedes,Tijuana,INSERT,2\n"
            "126,Lily,Cancun,INSERT,2\n123,,,DELETE,6\n125,Mercedes,Guadalajara,UPDATE,6\n"
            "125,Mercedes,Mexicali,UPDATE,5\n123,Isabel,Chihuahua,UPDATE,5\n")
        (self.work / "users.py").write_text(
            "from pyspark import pipelines as dp\n"
            "from pyspark.sql.functions import col, expr\n"
            "@dp.temporary_view\n"
            "def users():\n"
            "    return (spark.readStream.format('cloudFiles')\n"
            "            .option('cloudFiles.format', 'csv').option('header', 'true')\n"
            "            .load(spark.conf.get('landing')))\n"
            "dp.create_streaming_table('users_current')\n"
            "dp.create_auto_cdc_flow(target='users_current', source='users', keys=['userId'],\n"
            "    sequence_by=col('sequenceNum'), apply_as_deletes=expr(\"operation = 'DELETE'\"),\n"
            "    except_column_list=['operation', 'sequenceNum'], stored_as_scd_type=1)\n")
        summary = cdclake.run(str(self.work / "users.py"), str(self.work / "lake"),
                              {"landing": str(landing / "*.csv")})
        self.assertEqual([f["target"] for f in summary["flows"]], ["default.users_current"])
        rows = cdclake.read_table(str(self.work / "lake/default/users_current"), as_pandas=False)
        self.assertEqual(sorted(rows_of(rows)), [(124, "Raul", "Oaxaca"),
                                                 (125, "Mercedes", "Guadalajara"),
                                                 (126, "Lily", "Cancun")])

    def test_errors_name_the_file(self):
        with self.assertRaises(FileNotFoundError) as raised:
            cdclake.read_table(str(self.work / "nothing"))
        self.assertIn(str(self.work / "nothing"), str(raised.exception))
        bad = self.work / "bad.sql"
        bad.write_text("CREATE OR REFRESH STREAMING TABLE t;\nCREATE FLOW f AS AUTO CDC INTO\n")
        with self.assertRaises(ValueError) as raised:
            cdclake.run(str(bad), str(self.work / "lake"))
        self.assertIn("bad.sql:", str(raised.exception))
        # A Python pipeline that does not translate: the translator's own message is in the
        # exception (a notebook shows no stderr).
        broken = self.work / "broken.py"
        broken.write_text("from pyspark import pipelines as dp\ndef broken(:\n    pass\n")
        with self.assertRaises(ValueError) as raised:
            cdclake.run(str(broken), str(self.work / "lake"))
        self.assertIn("broken.py: the Python pipeline did not translate", str(raised.exception))
        self.assertIn("SyntaxError", str(raised.exception))

    def test_failed_flow_raises_unless_check_is_off(self):
        landing = self.work / "in"
        landing.mkdir()
        (landing / "orders-1.csv").write_text("id,seq,amount\n1,1,5000\n")
        pipeline = self.work / "p.sql"
        pipeline.write_text(
            "CREATE OR REFRESH STREAMING TABLE orders (\n"
            "  CONSTRAINT sane EXPECT (amount < 1000) ON VIOLATION FAIL UPDATE\n);\n"
            "CREATE FLOW orders AS AUTO CDC INTO orders FROM STREAM(read_files('"
            + str(landing / "orders-*.csv") + "', format => 'csv'))\n"
            "KEYS (id) SEQUENCE BY seq STORED AS SCD TYPE 1;\n")
        with self.assertRaises(RuntimeError) as raised:
            cdclake.run(str(pipeline), str(self.work / "lake"))
        self.assertIn("flow orders failed", str(raised.exception))
        self.assertIn("sane", str(raised.exception))
        summary = cdclake.run(str(pipeline), str(self.work / "lake"), check=False)
        self.assertTrue(summary["failed"])
        self.assertIn("sane", summary["flows"][0]["error"])


if __name__ == "__main__":
    BIN = os.path.abspath(sys.argv.pop(1))
    unittest.main()
