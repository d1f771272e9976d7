"""StructType schemas and pyspark.sql.types types as the DDL cdclake reads (no Spark)."""

import unittest

import cdclake_pipeline
from cdclake_pipeline import Unsupported
from cdclake_pipeline.session import SparkSession
from pyspark.sql.functions import col
from pyspark.sql.types import (ArrayType, DecimalType, IntegerType, LongType, MapType,
                               StringType, StructField, StructType, TimestampNTZType,
                               TimestampType)


def schema():
    return StructType([
        StructField("id", LongType(), False, {"comment": "the key's"}),
        StructField("amount", DecimalType(12, 2)),
        StructField("odd name", StringType()),
        StructField("tags", ArrayType(StringType())),
        StructField("attrs", MapType(StringType(), IntegerType())),
        StructField("at", TimestampType()),
    ]).add("local", TimestampNTZType()).add("inner", StructType(
        [StructField("a", IntegerType(), False), StructField("b", "string")]))


class Types(unittest.TestCase):
    def test_ddl(self):
        self.assertEqual(
            schema().ddl(),
            "id BIGINT NOT NULL COMMENT 'the key''s', amount DECIMAL(12,2), `odd name` STRING, "
            "tags ARRAY<STRING>, attrs MAP<STRING, INT>, at TIMESTAMP, local TIMESTAMP_NTZ, "
            "inner STRUCT<a: INT NOT NULL, b: STRING>")
        # A reader's schema types columns without constraining them.
        self.assertNotIn("NOT NULL", schema().ddl(nullability=False))
        self.assertEqual(schema().fieldNames()[:2], ["id", "amount"])
        self.assertEqual(schema()["amount"].dataType, DecimalType(12, 2))
        self.assertEqual(DecimalType().sql(), "DECIMAL(10,0)")
        self.assertEqual(schema().simpleString()[:28], "struct<id:bigint,amount:deci")

    def test_refused(self):
        with self.assertRaises(Unsupported):
            StructField("x", LongType)  # the class, not a type
        with self.assertRaises(Unsupported):
            StructType([]).ddl()
        with self.assertRaises(Unsupported):
            from pyspark.sql.types import DayTimeIntervalType  # noqa: F401

    def test_cast_with_a_type(self):
        self.assertEqual(col("a").cast(LongType()).sql(), "CAST(a AS BIGINT)")
        self.assertEqual(col("a").cast(DecimalType(5, 1)).sql(), "CAST(a AS DECIMAL(5,1))")

    def test_schemas_in_declarations_and_readers(self):
        cdclake_pipeline.registry.statements.clear()
        spark = SparkSession({})
        from pyspark import pipelines as dp
        dp.create_streaming_table("t", schema=StructType([StructField("id", LongType(), False),
                                                          StructField("v", StringType())]))
        frame = (spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv")
                 .option("header", "true")
                 .schema(StructType([StructField("id", LongType(), False)])).load("/in/*.csv"))
        text = cdclake_pipeline.to_sql()
        self.assertIn("CREATE OR REFRESH STREAMING TABLE t (id BIGINT NOT NULL, v STRING)", text)
        self.assertIn("schema => 'id BIGINT'", frame.sql())


class DottedNames(unittest.TestCase):
    def test_fields_and_backquotes(self):
        self.assertEqual(col("_metadata.file_path").sql(), "_metadata.file_path")
        self.assertEqual(col("`a.b`").sql(), "`a.b`")
        self.assertEqual(col("a.`b.c`").sql(), "a.`b.c`")
        self.assertEqual(col("`a`.b").sql(), "a.b")
        self.assertEqual(col("`x``y`").sql(), "`x``y`")
        self.assertEqual(col("plain").sql(), "plain")
        from pyspark.sql.functions import struct
        self.assertEqual(struct("s.a", col("_metadata.file_name")).sql(),
                         "STRUCT(s.a, _metadata.file_name)")
        # A field is not a column name (keys, column lists).
        with self.assertRaises(Unsupported):
            cdclake_pipeline.names([col("a.b")], "keys")


if __name__ == "__main__":
    unittest.main()
