"""pyspark.sql as pipeline files use it: DataFrame, Column and the session's readers."""

from cdclake_pipeline import Column, DataFrame, Unsupported  # noqa: F401
from cdclake_pipeline.session import SparkSession  # noqa: F401
from pyspark.sql import functions  # noqa: F401
