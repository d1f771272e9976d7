"""pyspark.sql.functions: the functions that become cdclake SQL expressions."""

from cdclake_pipeline import Column, Unsupported, as_sql, column_ref, ident


def col(name):
    return column_ref(name)


column = col


def expr(text):
    if not isinstance(text, str):
        raise Unsupported(f"expr of {type(text).__name__}", "give SQL text")
    return Column(text.strip(), raw=True)


def lit(value):
    return Column(as_sql(value))


def struct(*cols):
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    parts = []
    for c in cols:
        c = c if isinstance(c, Column) else column_ref(c)
        if c._name is not None and not c._field and c.sql() != ident(c._name):
            raise Unsupported("struct of an aliased expression", "give columns")
        parts.append(c.sql())
    return Column("STRUCT(" + ", ".join(parts) + ")")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"pyspark.sql.functions.{name}",
                      "cdclake has col, column, expr, lit and struct; write other expressions "
                      "with expr('...')")
