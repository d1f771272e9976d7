"""The SQL that Column expressions, readers and declarations become (no Spark, no cdclake)."""

import unittest

import cdclake_pipeline
from cdclake_pipeline import Unsupported
from cdclake_pipeline.session import SparkSession
from pyspark.sql.functions import col, expr, lit, struct


class ColumnSql(unittest.TestCase):
    def test_operators(self):
        self.assertEqual((col("op") == "DELETE").sql(), "(op = 'DELETE')")
        self.assertEqual((col("n") != 3).sql(), "(n <> 3)")
        self.assertEqual(((col("a") > 1) & ~col("b").isNull()).sql(),
                         "((a > 1) AND (NOT (b IS NULL)))")
        self.assertEqual((col("a").isin("x", "y") | col("c").isNotNull()).sql(),
                         "((a IN ('x', 'y')) OR (c IS NOT NULL))")
        self.assertEqual(col("a").cast("BIGINT").sql(), "CAST(a AS BIGINT)")
        self.assertEqual(col("odd name").sql(), "`odd name`")
        self.assertEqual(lit("it's").sql(), "'it''s'")
        self.assertEqual(struct("ts", col("lsn")).sql(), "STRUCT(ts, lsn)")
        self.assertEqual(expr("op = 'd'").sql(), "op = 'd'")
        # An expr's text is parenthesised where an operator takes it.
        self.assertEqual((expr("a OR b") & col("c")).sql(), "((a OR b) AND c)")
        self.assertEqual((1 - col("v")).sql(), "(1 - v)")
        self.assertEqual((-col("v")).sql(), "(- v)")
        self.assertEqual(lit(1.5).sql(), "1.5E0")
        self.assertEqual(col("a").isin([]).sql(), "FALSE")
        self.assertEqual(col("a").isin({"x": 1}.keys()).sql(), "(a IN ('x'))")

    def test_keywords_and_odd_literals(self):
        self.assertEqual(col("null").sql(), "`null`")
        self.assertEqual((col("true") == 8).sql(), "(`true` = 8)")
        for value in (float("nan"), b"ab", ["x"]):
            with self.assertRaises(Unsupported):
                lit(value)

    def test_a_column_is_no_python_bool(self):
        with self.assertRaises(Unsupported):
            bool(col("a") == 1)

    def test_unknown_functions_and_methods_are_named(self):
        import pyspark.sql.functions as F
        with self.assertRaises(Unsupported) as e:
            F.udf(lambda x: x)
        self.assertIn("pyspark.sql.functions.udf", str(e.exception))
        with self.assertRaises(Unsupported) as e:
            col("a").over(None)
        self.assertIn("Column.over", str(e.exception))


class Readers(unittest.TestCase):
    def setUp(self):
        self.spark = SparkSession({"landing": "/in/*.json"})

    def test_auto_loader_becomes_read_files(self):
        df = (self.spark.readStream.format("cloudFiles").option("cloudFiles.format", "json")
              .option("cloudFiles.schemaHints", "id BIGINT")
              .option("cloudFiles.schemaLocation", "/ignored")
              .load(self.spark.conf.get("landing")))
        self.assertEqual(df.sql(), "SELECT * FROM STREAM(read_files('/in/*.json', format => "
                                   "'json', schemaHints => 'id BIGINT'))")

    def test_change_feed_and_skip(self):
        cf = self.spark.readStream.option("readChangeFeed", "true").table("shop.customers")
        self.assertEqual(cf.sql(), "SELECT * FROM STREAM(table_changes('shop.customers', 0))")
        skip = self.spark.readStream.option("skipChangeCommits", "true").table("t")
        self.assertEqual(skip.sql(),
                         "SELECT * FROM STREAM(t) WITH ('skipChangeCommits' = 'true')")

    def test_a_filter_after_a_projection_is_refused(self):
        df = self.spark.readStream.table("b").select(col("v").alias("id"), col("id").alias("v"))
        with self.assertRaises(Unsupported) as e:
            df.filter(col("v") > 1)
        self.assertIn("filter first", str(e.exception))

    def test_csv_needs_a_header_and_a_schema_keeps_its_columns(self):
        with self.assertRaises(Unsupported):
            self.spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv").load("/x")
        df = (self.spark.readStream.format("csv").option("header", "true")
              .schema("id BIGINT, `odd name` STRUCT<a: INT, b: INT>").load("/x"))
        self.assertEqual(df.sql(), "SELECT id, `odd name` FROM STREAM(read_files('/x', format "
                                   "=> 'csv', schema => 'id BIGINT, `odd name` STRUCT<a: INT, b: "
                                   "INT>'))")

    def test_options_that_would_change_results_are_refused(self):
        for key, value in (("cloudFiles.includeExistingFiles", "false"),
                           ("cloudFiles.inferColumnTypes", "false")):
            with self.assertRaises(Unsupported):
                (self.spark.readStream.format("cloudFiles").option("cloudFiles.format", "json")
                 .option(key, value).load("/x"))
        with self.assertRaises(Unsupported):
            self.spark.readStream.option("startingVersion", 5).table("t")
        with self.assertRaises(Unsupported):
            (self.spark.readStream.option("readChangeFeed", "true")
             .option("skipChangeCommits", "true").table("t"))
        self.assertIsNone(self.spark.conf.get("absent", None))
        self.assertIs(SparkSession.builder.getOrCreate(), SparkSession.active())

    def test_select_filter_rename(self):
        df = self.spark.readStream.table("b").filter(col("x") > 0).select("id", col("v").alias("w"))
        self.assertEqual(self.spark.readStream.table("b")["v"].sql(), "v")
        self.assertEqual(df.sql(), "SELECT id, v AS w FROM STREAM(b) WHERE ((x > 0))")
        renamed = self.spark.readStream.table("b").withColumnRenamed("a", "z")
        self.assertEqual(renamed.sql(), "SELECT * EXCEPT (a), a AS z FROM STREAM(b)")

    def test_with_column_adds_or_replaces(self):
        b = self.spark.readStream.table("b")
        self.assertEqual(b.withColumn("amount", col("amount").cast("DOUBLE")).sql(),
                         "SELECT * EXCEPT (amount), CAST(amount AS DOUBLE) AS amount "
                         "FROM STREAM(b)")
        twice = b.withColumn("a", lit(1)).withColumn("c", lit(2)).withColumn("a", lit(3))
        self.assertEqual(twice.sql(), "SELECT * EXCEPT (a, c), 3 AS a, 2 AS c FROM STREAM(b)")
        picked = b.select("id", "v").withColumn("v", col("v").cast("STRING"))
        self.assertEqual(picked.sql(), "SELECT id, CAST(v AS STRING) AS v FROM STREAM(b)")
        with self.assertRaises(Unsupported):
            b.withColumn("a", col("a") + 1).withColumn("a", col("a") * 100)
        with self.assertRaises(Unsupported):
            b.withColumn("x", lit(1)).withColumn("y", col("X") + 1)
        self.assertEqual(b.withColumn("Amount", lit(1)).withColumn("amount", lit(2)).sql(),
                         "SELECT * EXCEPT (Amount), 2 AS amount FROM STREAM(b)")
        renamed = b.withColumnRenamed("a", "z").withColumn("z", lit(0))
        self.assertEqual(renamed.sql(), "SELECT * EXCEPT (a, z), 0 AS z FROM STREAM(b)")

    def test_conf_without_value_or_default_is_named(self):
        with self.assertRaises(Unsupported) as e:
            self.spark.conf.get("missing")
        self.assertIn("--var missing=VALUE", str(e.exception))
        self.assertEqual(self.spark.conf.get("missing", "d"), "d")

    def test_unknown_file_option_is_named(self):
        with self.assertRaises(Unsupported) as e:
            self.spark.readStream.format("json").option("multiLine", "true").load("/x")
        self.assertIn("multiLine", str(e.exception))


class Declarations(unittest.TestCase):
    def setUp(self):
        cdclake_pipeline.registry.statements.clear()

    def test_auto_cdc_flow_every_clause(self):
        from pyspark import pipelines as dp
        dp.create_auto_cdc_flow(target="t", source="s", keys=["k1", "k2"],
                                sequence_by=struct("ts", "n"),
                                ignore_null_updates_except_column_list=["k1"],
                                apply_as_deletes=col("op") == "D", once=True,
                                column_list=["k1", "k2", "v"], stored_as_scd_type="2",
                                track_history_except_column_list=["v"], name="f")
        self.assertEqual(cdclake_pipeline.to_sql().strip(),
                         "CREATE FLOW f AS AUTO CDC ONCE INTO t\nFROM STREAM(s)\nKEYS (k1, k2)\n"
                         "IGNORE NULL UPDATES ON * EXCEPT (k1)\nAPPLY AS DELETE WHEN (op = 'D')\n"
                         "SEQUENCE BY STRUCT(ts, n)\nCOLUMNS (k1, k2, v)\nSTORED AS SCD TYPE 2\n"
                         "TRACK HISTORY ON * EXCEPT (v);")

    def test_streaming_table_with_expectations_and_properties(self):
        import dlt
        dlt.create_streaming_table("t", schema="id BIGINT NOT NULL",
                                   table_properties={"delta.enableChangeDataFeed": "true"},
                                   partition_cols=["id"], expect_all_or_drop={"pos": "id > 0"})
        self.assertEqual(cdclake_pipeline.to_sql().strip(),
                         "CREATE OR REFRESH STREAMING TABLE t (id BIGINT NOT NULL, CONSTRAINT pos "
                         "EXPECT (id > 0) ON VIOLATION DROP ROW)\nPARTITIONED BY (id)\n"
                         "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true');")

    def test_an_unnamed_flow_is_the_sql_forms_and_names_may_be_columns(self):
        import dlt
        dlt.apply_changes(target="d", source="s", keys="id", sequence_by=expr("seq"),
                          except_column_list=[col("op")], stored_as_scd_type=None)
        self.assertEqual(cdclake_pipeline.to_sql().strip(),
                         "APPLY CHANGES INTO d\nFROM STREAM(s)\nKEYS (id)\nSEQUENCE BY seq\n"
                         "COLUMNS * EXCEPT (op)\nSTORED AS SCD TYPE 1;")

    def test_expectations_above_the_table_decorator_count(self):
        from pyspark import pipelines as dp
        spark = SparkSession({})

        @dp.expect_or_drop("pos", "v > 15")
        @dp.table
        def t():
            return spark.readStream.table("src")

        self.assertIn("CONSTRAINT pos EXPECT (v > 15) ON VIOLATION DROP ROW",
                      cdclake_pipeline.to_sql())

    def test_scd_type_other_than_1_or_2_is_named(self):
        from pyspark import pipelines as dp
        with self.assertRaises(Unsupported):
            dp.create_auto_cdc_flow(target="t", source="s", keys=["k"], sequence_by="n",
                                    stored_as_scd_type=3)


if __name__ == "__main__":
    unittest.main()
