"""pyspark.pipelines (`dp`): Lakeflow's declarations, recorded for cdclake."""

from cdclake_pipeline import Unsupported
from cdclake_pipeline.api import (append_flow, create_auto_cdc_flow,  # noqa: F401
                                  create_auto_cdc_from_snapshot_flow, create_streaming_table,
                                  expect, expect_all, expect_all_or_drop, expect_all_or_fail,
                                  expect_or_drop, expect_or_fail, materialized_view, read,
                                  read_stream, table, temporary_view, view)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"pyspark.pipelines.{name}")
