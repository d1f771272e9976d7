"""dlt: the legacy name of pyspark.pipelines, with apply_changes for create_auto_cdc_flow."""

from cdclake_pipeline import Unsupported
from cdclake_pipeline.api import (append_flow, create_auto_cdc_flow,  # noqa: F401
                                  create_auto_cdc_from_snapshot_flow, create_streaming_table,
                                  expect, expect_all, expect_all_or_drop, expect_all_or_fail,
                                  expect_or_drop, expect_or_fail, materialized_view, read,
                                  read_stream, table, view)

apply_changes = create_auto_cdc_flow
apply_changes_from_snapshot = create_auto_cdc_from_snapshot_flow
create_target_table = create_streaming_table


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"dlt.{name}")
