"""pyspark.sql.types: cdclake takes schemas as DDL strings ("id BIGINT, name STRING")."""

from cdclake_pipeline import Unsupported


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"pyspark.sql.types.{name}",
                      "give schemas as DDL strings, such as 'id BIGINT, name STRING'")
