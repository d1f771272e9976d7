"""The declarations `pyspark.pipelines` (dp) and legacy `dlt` offer, recorded as cdclake SQL."""

from cdclake_pipeline import (DataFrame, Source, Unsupported, add_append_flow,
                              add_auto_cdc_flow, add_snapshot_flow, add_table, add_view,
                              registry)

_EXPECTATIONS = "__cdclake_expectations__"


def _decorator(register, func, kwargs):
    """`@x` and `@x(...)` alike: `register(func, **kwargs)` once the whole file has run (as
    Lakeflow calls a table's function after loading the file), so expectations written above
    the decorator and names defined below the function count too."""
    if func is not None and callable(func):
        registry.defer(lambda: register(func, **kwargs))
        return func

    def wrap(f):
        registry.defer(lambda: register(f, **kwargs))
        return f

    return wrap


def _not_given(**kwargs):
    for key, value in kwargs.items():
        if value not in (None, False):
            raise Unsupported(f"the argument {key}=", "cdclake does not have it yet")


def _expectation_list(expect_all=None, expect_all_or_drop=None, expect_all_or_fail=None):
    out = []
    for group, action in ((expect_all, None), (expect_all_or_drop, "DROP ROW"),
                          (expect_all_or_fail, "FAIL UPDATE")):
        for name, condition in (group or {}).items():
            out.append((name, condition, action))
    return out


def _add_expectations(items):
    def wrap(f):
        # Decorators apply bottom up: the ones written first end up first.
        setattr(f, _EXPECTATIONS, list(items) + getattr(f, _EXPECTATIONS, []))
        return f

    return wrap


def expect(name, condition):
    return _add_expectations([(name, condition, None)])


def expect_or_drop(name, condition):
    return _add_expectations([(name, condition, "DROP ROW")])


def expect_or_fail(name, condition):
    return _add_expectations([(name, condition, "FAIL UPDATE")])


def expect_all(expectations):
    return _add_expectations(_expectation_list(expect_all=expectations))


def expect_all_or_drop(expectations):
    return _add_expectations(_expectation_list(expect_all_or_drop=expectations))


def expect_all_or_fail(expectations):
    return _add_expectations(_expectation_list(expect_all_or_fail=expectations))


def _query(func, what):
    query = func()
    if not isinstance(query, DataFrame):
        raise Unsupported(f"{what} '{func.__name__}' returning {type(query).__name__}",
                          "return a DataFrame read with spark.readStream, spark.read or "
                          "dp.read_stream")
    return query


def _register_table(func, name=None, comment=None, spark_conf=None, table_properties=None,
                    path=None, partition_cols=None, schema=None, temporary=False,
                    cluster_by=None, row_filter=None, private=False):
    _not_given(path=path, temporary=temporary, cluster_by=cluster_by, row_filter=row_filter,
               private=private, spark_conf=spark_conf)
    add_table(name or func.__name__, _query(func, "table"), comment=comment, schema=schema,
              table_properties=table_properties, partition_cols=partition_cols,
              expectations=getattr(func, _EXPECTATIONS, []))


def table(func=None, **kwargs):
    return _decorator(_register_table, func, kwargs)


def _register_view(func, name=None, comment=None, spark_conf=None):
    _not_given(spark_conf=spark_conf)
    add_view(name or func.__name__, _query(func, "view"), comment=comment,
             expectations=getattr(func, _EXPECTATIONS, []))


def temporary_view(func=None, **kwargs):
    return _decorator(_register_view, func, kwargs)


view = temporary_view


def materialized_view(func=None, **kwargs):
    raise Unsupported("materialized_view",
                      "cdclake writes streaming tables; a table that follows another's changes "
                      "reads them with spark.readStream.option('readChangeFeed', 'true')")


def _register_append_flow(func, target=None, name=None, comment=None, spark_conf=None,
                          once=False):
    _not_given(spark_conf=spark_conf)
    if target is None:
        raise Unsupported("append_flow without target=",
                          "name the streaming table it appends to (dp.create_streaming_table)")
    add_append_flow(target, _query(func, "append flow"), name or func.__name__, comment=comment,
                    once=once)


def append_flow(func=None, **kwargs):
    return _decorator(_register_append_flow, func, kwargs)


def create_streaming_table(name, comment=None, spark_conf=None, table_properties=None,
                           partition_cols=None, cluster_by=None, path=None, schema=None,
                           expect_all=None, expect_all_or_drop=None, expect_all_or_fail=None,
                           row_filter=None):
    _not_given(cluster_by=cluster_by, path=path, row_filter=row_filter, spark_conf=spark_conf)
    add_table(name, comment=comment, schema=schema, table_properties=table_properties,
              partition_cols=partition_cols,
              expectations=_expectation_list(expect_all, expect_all_or_drop, expect_all_or_fail))


def create_auto_cdc_flow(target, source, keys, sequence_by, ignore_null_updates=False,
                         apply_as_deletes=None, apply_as_truncates=None, column_list=None,
                         except_column_list=None, stored_as_scd_type=1,
                         track_history_column_list=None, track_history_except_column_list=None,
                         name=None, once=False, ignore_null_updates_column_list=None,
                         ignore_null_updates_except_column_list=None):
    add_auto_cdc_flow(target, source, keys, sequence_by, ignore_null_updates, apply_as_deletes,
                      apply_as_truncates, column_list, except_column_list, stored_as_scd_type,
                      track_history_column_list, track_history_except_column_list, name, once,
                      ignore_null_updates_column_list, ignore_null_updates_except_column_list)


def create_auto_cdc_from_snapshot_flow(target, source, keys, stored_as_scd_type=1,
                                       track_history_column_list=None,
                                       track_history_except_column_list=None, name=None):
    add_snapshot_flow(target, source, keys, stored_as_scd_type, track_history_column_list,
                      track_history_except_column_list, name)


def read_stream(name):
    return DataFrame(Source("table", True, name=name))


def read(name):
    return DataFrame(Source("table", False, name=name))
