"""What a Python pipeline file declares, recorded and written out as cdclake's pipeline SQL.

The `pyspark.pipelines` (`dp`), legacy `dlt` and `pyspark.sql` modules that ship with cdclake
are thin fronts over this module: calling them records tables, views, flows and expectations;
`to_sql()` writes the pipeline in the SQL that `cdclake run FILE.sql` reads, so a Python file
and the SQL file that means the same thing are planned and run by the same code. No Spark runs.
"""

import os
import re
import traceback

__all__ = ["Unsupported", "Column", "DataFrame", "registry", "to_sql"]


class Unsupported(Exception):
    """A call cdclake cannot run; `call` names it (the translator adds the file's line)."""

    def __init__(self, call, hint=""):
        self.call = call
        self.hint = hint
        super().__init__(f"{call} is not supported by cdclake" + (f": {hint}" if hint else ""))


# ---------------------------------------------------------------- SQL text

_SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Words that are SQL syntax, not names: a column called so is written in backquotes.
_KEYWORDS = {
    "all", "and", "as", "between", "by", "case", "cast", "distinct", "else", "end", "except",
    "false", "from", "in", "interval", "is", "like", "not", "null", "or", "select", "struct",
    "then", "true", "when", "where", "with", "stream", "keys", "sequence", "columns", "apply",
    "delete", "truncate", "into", "on", "table", "view", "create", "flow", "set", "exists",
}


def ident(name):
    """A column name as SQL: bare when simple, else in backquotes."""
    if isinstance(name, Column):
        if name._name is None:
            raise Unsupported(f"the expression {name.sql()} where a column name is needed")
        if name._field:
            raise Unsupported(f"the field {name.sql()} where a column name is needed",
                              "name a column of the source (backquotes keep a dot in a name)")
        name = name._name
    name = str(name)
    if _SIMPLE.match(name) and name.lower() not in _KEYWORDS:
        return name
    return "`" + name.replace("`", "``") + "`"


def names(value, what):
    """A list of column names given as a list of names or Columns, or one name."""
    if isinstance(value, (str, Column)):
        value = [value]
    try:
        return [ident(v) for v in value]
    except TypeError:
        raise Unsupported(f"{what} given as {type(value).__name__}",
                          "give a list of column names") from None


def table_name(name):
    """A table name (dotted parts kept) as SQL."""
    return ".".join(ident(p) for p in str(name).split("."))


def literal(value):
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise Unsupported(f"the literal {value!r}")
        text = repr(value)
        return text if "e" in text else text + "E0"  # a DOUBLE, as Spark's lit(1.5)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise Unsupported(f"a {type(value).__name__} literal",
                      "give numbers, strings, booleans or None (or write it with expr)")


# ---------------------------------------------------------------- columns

class Column:
    """An expression, kept as SQL text."""

    def __init__(self, sql, name=None, raw=False):
        self._sql = sql
        self._name = name  # the output name when it is a plain column or aliased
        self._raw = raw  # expr('...') text: parenthesised when an operator takes it
        self._field = False  # col('a.b'): a field of struct column a (column_ref)

    def sql(self):
        return self._sql

    def __repr__(self):
        return f"Column<{self._sql}>"

    def _operand(self):
        return f"({self._sql})" if self._raw else self._sql

    def _op(self, op, other):
        return Column(f"({self._operand()} {op} {as_operand(other)})")

    def _rop(self, op, other):
        return Column(f"({as_operand(other)} {op} {self._operand()})")

    def __eq__(self, other):  # noqa: D105 - Column equality builds an expression
        return self._op("=", other)

    def __ne__(self, other):
        return self._op("<>", other)

    def __lt__(self, other):
        return self._op("<", other)

    def __le__(self, other):
        return self._op("<=", other)

    def __gt__(self, other):
        return self._op(">", other)

    def __ge__(self, other):
        return self._op(">=", other)

    def __and__(self, other):
        return self._op("AND", other)

    def __or__(self, other):
        return self._op("OR", other)

    def __rand__(self, other):
        return self._rop("AND", other)

    def __ror__(self, other):
        return self._rop("OR", other)

    def __invert__(self):
        return Column(f"(NOT {self._operand()})")

    def __neg__(self):
        return Column(f"(- {self._operand()})")

    def __add__(self, other):
        return self._op("+", other)

    def __sub__(self, other):
        return self._op("-", other)

    def __mul__(self, other):
        return self._op("*", other)

    def __truediv__(self, other):
        return self._op("/", other)

    def __mod__(self, other):
        return self._op("%", other)

    def __radd__(self, other):
        return self._rop("+", other)

    def __rsub__(self, other):
        return self._rop("-", other)

    def __rmul__(self, other):
        return self._rop("*", other)

    def __rtruediv__(self, other):
        return self._rop("/", other)

    def __bool__(self):
        raise Unsupported("using a Column as a Python bool",
                          "combine conditions with &, | and ~, not and/or/not")

    __hash__ = None

    def isNull(self):
        return Column(f"({self._operand()} IS NULL)")

    def isNotNull(self):
        return Column(f"({self._operand()} IS NOT NULL)")

    def isin(self, *values):
        if len(values) == 1 and not isinstance(values[0], (str, Column)) and \
                hasattr(values[0], "__iter__"):
            values = tuple(values[0])
        if not values:
            return Column("FALSE")
        return Column(f"({self._operand()} IN ({', '.join(as_operand(v) for v in values)}))")

    def cast(self, type_name):
        if hasattr(type_name, "simpleString"):  # a pyspark.sql.types type
            type_name = type_name.sql()
        if not isinstance(type_name, str):
            raise Unsupported(f"Column.cast to {type(type_name).__name__}",
                              "give the type as a string or a pyspark.sql.types type")
        return Column(f"CAST({self._operand()} AS {type_name})")

    def alias(self, name):
        return Column(self._sql, name)

    name = alias

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise Unsupported(f"Column.{attr}")


def as_sql(value):
    return value.sql() if isinstance(value, Column) else literal(value)


def as_operand(value):
    return value._operand() if isinstance(value, Column) else literal(value)


def _name_parts(name):
    """Spark's reading of a column name: parts split at dots outside backquotes, a backquoted
    part taken as it is (`` ` `` doubled inside); None when the name is not well formed."""
    parts, part, i, quoted_part = [], "", 0, False
    while i < len(name):
        ch = name[i]
        if ch == "`" and not part and not quoted_part:
            end = i + 1
            text = ""
            while end < len(name):
                if name[end] == "`":
                    if end + 1 < len(name) and name[end + 1] == "`":
                        text += "`"
                        end += 2
                        continue
                    break
                text += name[end]
                end += 1
            if end >= len(name):
                return None  # no closing backquote
            part, quoted_part, i = text, True, end + 1
            continue
        if ch == ".":
            if not part and not quoted_part:
                return None
            parts.append(part)
            part, quoted_part = "", False
        elif quoted_part:
            return None  # characters after a closing backquote
        else:
            part += ch
        i += 1
    if not part and not quoted_part:
        return None
    parts.append(part)
    return parts


def column_ref(name):
    """A column named as Spark's col() names it: `a.b` is field b of struct column a (as in
    `_metadata.file_path`); backquotes keep a dot inside a name (`` `a.b` ``, `` a.`b.c` ``)."""
    name = str(name)
    parts = _name_parts(name)
    if parts is None:
        return Column(ident(name), name)
    column = Column(".".join(ident(p) for p in parts), parts[-1])
    column._field = len(parts) > 1  # a field of a struct column, not a column of its own
    return column


def as_column(value):
    """A column given as a Column or a name."""
    return value if isinstance(value, Column) else column_ref(value)


def condition_sql(value, what):
    """A condition given as a Column or a SQL string (expr)."""
    if isinstance(value, Column):
        return value.sql()
    if isinstance(value, str):
        return value
    raise Unsupported(f"{what} given as {type(value).__name__}", "give a Column or a SQL string")


# ---------------------------------------------------------------- sources and frames

class Source:
    """Where a DataFrame's rows come from: a table or view, its change feed, or files."""

    def __init__(self, kind, streaming, name=None, path=None, fmt=None, options=None,
                 schema=None, starting_version=None, skip_change_commits=False):
        self.kind = kind  # "table", "changes", "files"
        self.streaming = streaming
        self.name = name
        self.path = path
        self.fmt = fmt
        self.options = options or {}
        self.schema = schema
        self.starting_version = starting_version
        self.skip_change_commits = skip_change_commits

    def sql(self):
        if self.kind == "table":
            inner = table_name(self.name)
        elif self.kind == "changes":
            inner = f"table_changes({literal(self.name)}, {int(self.starting_version or 0)})"
        else:
            args = [literal(self.path), f"format => {literal(self.fmt)}"]
            if self.schema:
                args.append(f"schema => {literal(self.schema)}")
            for key, value in self.options.items():
                args.append(f"{key} => {literal(value)}")
            inner = f"read_files({', '.join(args)})"
        if not self.streaming:
            return inner
        out = f"STREAM({inner})"
        if self.skip_change_commits:
            out += " WITH ('skipChangeCommits' = 'true')"
        return out


class DataFrame:
    """A query over one source: a select list (None: every column) and conditions."""

    def __init__(self, source, items=None, where=None):
        self._source = source
        self._items = items  # None: every column of the source, as it is
        self._where = where or []

    def _with(self, items=None, where=None):
        return DataFrame(self._source, self._items if items is None else items,
                         self._where + (where or []))

    def __getitem__(self, name):
        return as_column(name)

    @property
    def isStreaming(self):
        return self._source.streaming

    def select(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = tuple(cols[0])
        items = []
        for c in cols:
            if isinstance(c, str) and c == "*":
                items.append("*")
                continue
            col = as_column(c)
            items.append(col.sql() if col._name is None or col.sql() == ident(col._name)
                         else f"{col.sql()} AS {ident(col._name)}")
        self._nested_select()
        return self._with(items=items)

    def selectExpr(self, *exprs):
        self._nested_select()
        return self._with(items=list(exprs))

    def withColumn(self, name, col):
        """Adds the column `name`, or replaces it as Spark does: the star leaves the source's
        column of that name out (`* EXCEPT` passes over a column the source lacks), and an
        item already naming it is replaced where it stands."""
        new_sql = as_sql(col)
        # One SELECT: an expression reads the source's columns, not ones this DataFrame
        # computed, so reading a computed column would silently read another value.
        for item in self._items or []:
            if " AS " not in item:
                continue
            expression, alias = item.rsplit(" AS ", 1)
            if expression == alias:
                continue
            if re.search(r"(?<![\w`])" + re.escape(alias) + r"(?![\w`])", new_sql,
                         flags=re.IGNORECASE):
                raise Unsupported(f"withColumn({name!r}, ...) reading {alias}, which an earlier "
                                  "select or withColumn computed",
                                  "write the whole expression from the source's columns")
        new_item = f"{new_sql} AS {ident(name)}"
        items, placed = [], False
        for item in self._items or ["*"]:
            if item == "*":
                item = f"* EXCEPT ({ident(name)})"
            elif item.startswith("* EXCEPT (") and item.endswith(")"):
                excepted = item[len("* EXCEPT ("):-1].split(", ")
                if ident(name).lower() not in (e.lower() for e in excepted):
                    item = "* EXCEPT (" + ", ".join(excepted + [ident(name)]) + ")"
            elif (item.lower() == ident(name).lower()
                  or item.lower().endswith(f" as {ident(name)}".lower())):
                item, placed = new_item, True
            items.append(item)
        if not placed:
            items.append(new_item)
        return self._with(items=items)

    def withColumnRenamed(self, old, new):
        if self._items is not None:
            raise Unsupported("withColumnRenamed after select", "rename in the select instead")
        return self._with(items=[f"* EXCEPT ({ident(old)})", f"{ident(old)} AS {ident(new)}"])

    def drop(self, *cols):
        if self._items is not None:
            raise Unsupported("drop after select", "leave the column out of the select instead")
        return self._with(items=[f"* EXCEPT ({', '.join(ident(n) for n in cols)})"])

    def filter(self, condition):
        if self._items is not None:
            # One SELECT: a condition after a projection would read the source's columns.
            raise Unsupported("filter / where after select, withColumn, withColumnRenamed or drop",
                              "filter first, then project")
        return self._with(where=[condition_sql(condition, "filter")])

    where = filter

    def _nested_select(self):
        if self._items is not None:
            raise Unsupported("a select of a select", "write one select")

    def sql(self):
        items = ", ".join(self._items) if self._items else "*"
        out = f"SELECT {items} FROM {self._source.sql()}"
        if self._where:
            out += " WHERE " + " AND ".join(f"({w})" for w in self._where)
        return out

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise Unsupported(f"DataFrame.{attr}",
                          "a pipeline's DataFrames may select, selectExpr, withColumn, "
                          "withColumnRenamed, filter/where and drop")


# Reader options that change nothing cdclake does (it keeps its own positions and schemas).
_IGNORED_OPTIONS = {"cloudfiles.schemalocation", "cloudfiles.maxfilespertrigger",
                    "maxfilespertrigger", "cloudfiles.maxbytespertrigger", "maxbytespertrigger"}


def schema_ddl(schema, nullability=True):
    """A schema given as a DDL string or a pyspark.sql.types StructType, as DDL."""
    if isinstance(schema, str):
        return schema
    if hasattr(schema, "ddl") and hasattr(schema, "fields"):
        return schema.ddl(nullability)
    raise Unsupported(f"a schema given as {type(schema).__name__}",
                      "give a StructType or a DDL string such as 'id BIGINT, name STRING'")


def _schema_names(ddl):
    """The column names of a DDL schema string ("id BIGINT, s STRUCT<a: INT>" -> id, s)."""
    out, depth, part = [], 0, ""
    for ch in ddl + ",":
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            part = part.strip()
            if part:
                name = part[1:part.index("`", 1)] if part.startswith("`") else part.split()[0]
                out.append(name)
            part = ""
        else:
            part += ch
    return out


class DataReader:
    """spark.read / spark.readStream."""

    def __init__(self, streaming, conf):
        self._streaming = streaming
        self._format = None
        self._options = {}
        self._schema = None
        self._conf = conf

    def format(self, fmt):
        self._format = str(fmt)
        return self

    def option(self, key, value):
        self._options[str(key)] = value
        return self

    def options(self, **kw):
        for key, value in kw.items():
            self.option(key, value)
        return self

    def schema(self, schema):
        # A reader's schema types the columns; Spark does not enforce its nullability on files.
        self._schema = schema_ddl(schema, nullability=False)
        return self

    def _flag(self, key):
        for k, v in self._options.items():
            if k.lower() == key.lower():
                return str(v).lower() == "true"
        return False

    def table(self, name):
        changes = self._flag("readChangeFeed")
        skip = self._flag("skipChangeCommits")
        starting = any(k.lower() == "startingversion" for k in self._options)
        if starting and not changes:
            raise Unsupported("startingVersion without readChangeFeed",
                              "a table read as a stream starts at its first version")
        if changes and skip:
            raise Unsupported("readChangeFeed with skipChangeCommits")
        for key in self._options:
            if key.lower() not in ("readchangefeed", "skipchangecommits", "startingversion") \
                    and key.lower() not in _IGNORED_OPTIONS:
                raise Unsupported(f"the option '{key}' of a table read",
                                  "cdclake knows readChangeFeed, startingVersion, skipChangeCommits")
        if changes:
            start = next((v for k, v in self._options.items() if k.lower() == "startingversion"), 0)
            return DataFrame(Source("changes", self._streaming, name=name,
                                    starting_version=int(start)))
        return DataFrame(Source("table", self._streaming, name=name, skip_change_commits=skip))

    def load(self, path=None):
        if not isinstance(path, str):
            raise Unsupported(f"load() of {type(path).__name__}", "give one path or glob")
        fmt = (self._format or "").lower()
        options = {}
        header = None
        for key, value in self._options.items():
            k = key.lower()
            if k == "cloudfiles.format" and fmt == "cloudfiles":
                fmt = str(value).lower()
            elif k in ("cloudfiles.schemahints", "schemahints"):
                options["schemaHints"] = value
            elif k in ("rescueddatacolumn", "cloudfiles.rescueddatacolumn"):
                options["rescuedDataColumn"] = value
            elif k == "header":
                header = str(value).lower() == "true"
            elif k not in _IGNORED_OPTIONS:
                raise Unsupported(f"the file option '{key}'",
                                  "cdclake knows cloudFiles.format, cloudFiles.schemaHints, "
                                  "header and rescuedDataColumn")
        if fmt not in ("json", "csv", "parquet"):
            raise Unsupported(f"format('{self._format}')",
                              "files are read as cloudFiles, json, csv or parquet")
        if fmt == "csv" and header is not True:
            raise Unsupported("CSV files without .option('header', 'true')",
                              "cdclake reads CSV files with a header row (Spark's default is none)")
        frame = DataFrame(Source("files", self._streaming, path=str(path), fmt=fmt,
                                 options=options, schema=self._schema))
        if self._schema:
            # Spark keeps the schema's columns only; read_files' schema types what it names.
            frame = frame._with(items=[ident(n) for n in _schema_names(self._schema)])
        return frame

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise Unsupported(f"{'readStream' if self._streaming else 'read'}.{attr}")


# ---------------------------------------------------------------- declarations

class Registry:
    def __init__(self):
        self.user_file = None  # the pipeline file's absolute path (set by the translator)
        self.statements = []  # (SQL text, the file's line that declared it), in order

    def _line(self):
        line = None
        for frame in traceback.extract_stack():
            if self.user_file and os.path.abspath(frame.filename) == self.user_file:
                line = frame.lineno
        return line

    def add(self, text):
        self.statements.append((text, self._line()))

    def defer(self, declare):
        """A declaration made once the whole file has run (tables' and views' functions are
        called then, as Lakeflow calls them), keeping its place and line."""
        self.statements.append((declare, self._line()))

    def finish(self):
        """Runs the deferred declarations, in order."""
        done = []
        for text, line in self.statements:
            if not callable(text):
                done.append((text, line))
                continue
            self.statements = []
            text()
            done.extend((produced, line) for produced, _ in self.statements)
        self.statements = done


registry = Registry()


def _selection(columns, except_columns, what):
    if columns is not None and except_columns is not None:
        raise Unsupported(f"both {what}_list and {what.replace('column', 'except_column')}_list")
    if columns is not None:
        return "(" + ", ".join(names(columns, what + "_list")) + ")"
    if except_columns is not None:
        return "* EXCEPT (" + ", ".join(names(except_columns, what + "_list")) + ")"
    return None


def _constraints(expectations):
    out = []
    for name, condition, action in expectations:
        text = f"CONSTRAINT {ident(name)} EXPECT ({condition_sql(condition, 'an expectation')})"
        if action:
            text += f" ON VIOLATION {action}"
        out.append(text)
    return out


def _table_clauses(comment, table_properties, partition_cols):
    out = ""
    if comment:
        out += f"\nCOMMENT {literal(comment)}"
    if partition_cols:
        out += "\nPARTITIONED BY (" + ", ".join(names(partition_cols, "partition_cols")) + ")"
    if table_properties:
        props = ", ".join(f"{literal(k)} = {literal(v)}" for k, v in table_properties.items())
        out += f"\nTBLPROPERTIES ({props})"
    return out


def add_table(name, query=None, comment=None, schema=None, table_properties=None,
              partition_cols=None, expectations=()):
    if query is not None and not query.isStreaming:
        raise Unsupported(f"table '{name}' from a batch read (a materialized view)",
                          "read the source with spark.readStream or dp.read_stream")
    if schema is not None:
        schema = schema_ddl(schema)
    inside = ([schema] if schema else []) + _constraints(expectations)
    text = f"CREATE OR REFRESH STREAMING TABLE {table_name(name)}"
    if inside:
        text += " (" + ", ".join(inside) + ")"
    text += _table_clauses(comment, table_properties, partition_cols)
    if query is not None:
        text += "\nAS " + query.sql()
    registry.add(text + ";")


def add_append_flow(target, query, name, comment=None, once=False):
    """CREATE FLOW name AS INSERT INTO [ONCE] target BY NAME SELECT ...: one of the flows
    appending to a streaming table, each from its own position. A ONCE flow (a backfill) may
    read in batch; the others stream."""
    if not query.isStreaming and not once:
        raise Unsupported(f"append flow '{name}' from a batch read",
                          "read the source with spark.readStream or dp.read_stream, or give "
                          "once=True for a one-time backfill")
    text = f"CREATE FLOW {ident(name)}"
    if comment:
        text += f" COMMENT {literal(comment)}"
    text += f" AS INSERT INTO {'ONCE ' if once else ''}{table_name(target)} BY NAME\n"
    registry.add(text + query.sql() + ";")


def add_view(name, query, comment=None, expectations=()):
    text = f"CREATE TEMPORARY VIEW {table_name(name)}"
    constraints = _constraints(expectations)
    if constraints:
        text += " (" + ", ".join(constraints) + ")"
    if comment:
        text += f" COMMENT {literal(comment)}"
    registry.add(text + "\nAS " + query.sql() + ";")


def add_auto_cdc_flow(target, source, keys, sequence_by, ignore_null_updates=False,
                      apply_as_deletes=None, apply_as_truncates=None, column_list=None,
                      except_column_list=None, stored_as_scd_type=1,
                      track_history_column_list=None, track_history_except_column_list=None,
                      name=None, once=False, ignore_null_updates_column_list=None,
                      ignore_null_updates_except_column_list=None):
    scd = "1" if stored_as_scd_type is None else str(stored_as_scd_type)
    if scd not in ("1", "2"):
        raise Unsupported(f"stored_as_scd_type={stored_as_scd_type!r}", "it is 1 or 2")
    if isinstance(source, DataFrame):
        raise Unsupported("a DataFrame as source", "name a table or view")
    if name is None and not once:
        # Unnamed, as SQL's APPLY CHANGES INTO: the same flow (and position) as that form.
        text = f"APPLY CHANGES INTO {table_name(target)}\nFROM STREAM({table_name(source)})"
    else:
        text = (f"CREATE FLOW {ident(name or target)} AS AUTO CDC {'ONCE ' if once else ''}"
                f"INTO {table_name(target)}\nFROM STREAM({table_name(source)})")
    text += "\nKEYS (" + ", ".join(names(keys, "keys")) + ")"
    ignore = _selection(ignore_null_updates_column_list, ignore_null_updates_except_column_list,
                        "ignore_null_updates_column")
    if ignore is not None:
        text += f"\nIGNORE NULL UPDATES ON {ignore}"
    elif ignore_null_updates:
        text += "\nIGNORE NULL UPDATES"
    if apply_as_deletes is not None:
        text += "\nAPPLY AS DELETE WHEN " + condition_sql(apply_as_deletes, "apply_as_deletes")
    if apply_as_truncates is not None:
        text += "\nAPPLY AS TRUNCATE WHEN " + condition_sql(apply_as_truncates,
                                                              "apply_as_truncates")
    text += "\nSEQUENCE BY " + sequence_sql(sequence_by)
    columns = _selection(column_list, except_column_list, "column")
    if columns is not None:
        text += f"\nCOLUMNS {columns}"
    text += f"\nSTORED AS SCD TYPE {scd}"
    history = _selection(track_history_column_list, track_history_except_column_list,
                         "track_history_column")
    if history is not None:
        text += f"\nTRACK HISTORY ON {history}"
    registry.add(text + ";")


def add_snapshot_flow(target, source, keys, stored_as_scd_type=1, track_history_column_list=None,
                      track_history_except_column_list=None, name=None):
    if callable(source):
        snapshot_source = snapshot_function_source(source, name or target)
    elif isinstance(source, str):
        snapshot_source = table_name(source)
    else:
        raise Unsupported(f"a {type(source).__name__} as source", "name a view or table")
    scd = "1" if stored_as_scd_type is None else str(stored_as_scd_type)
    if scd not in ("1", "2"):
        raise Unsupported(f"stored_as_scd_type={stored_as_scd_type!r}", "it is 1 or 2")
    text = (f"CREATE FLOW {ident(name or target)} AS AUTO CDC INTO {table_name(target)}\n"
            f"FROM SNAPSHOT ({snapshot_source})\nKEYS (" + ", ".join(names(keys, "keys")) +
            f")\nSTORED AS SCD TYPE {scd}")
    history = _selection(track_history_column_list, track_history_except_column_list,
                         "track_history_column")
    if history is not None:
        text += f"\nTRACK HISTORY ON {history}"
    registry.add(text + ";")


_SNAPSHOT_EXTENSIONS = {"csv": ".csv", "json": ".jsonl", "parquet": ".parquet"}
_MAX_SNAPSHOTS = 100000


def _snapshot_version_name(version, previous):
    """A snapshot version as AUTO CDC FROM SNAPSHOT reads it from a file name."""
    import datetime
    if isinstance(version, bool) or not isinstance(version, (int, datetime.date)):
        raise Unsupported(f"a snapshot version given as {type(version).__name__}",
                          "return an int, a datetime.date or a datetime.datetime")
    if previous is not None and (type(version) is not type(previous) or not version > previous):
        raise Unsupported(f"snapshot version {version!r} after {previous!r}",
                          "each call returns a version above the one it was given")
    if isinstance(version, datetime.datetime):
        if version.tzinfo is not None:
            version = version.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return version.strftime("%Y-%m-%dT%H-%M-%S.%fZ")
    if isinstance(version, datetime.date):
        return version.isoformat()
    return str(version)


def snapshot_function_source(function, flow):
    """A next_snapshot_and_version function as a FROM SNAPSHOT source: it is called as Databricks
    calls it, with None and then with each version it returned, until it returns None; each
    snapshot (a DataFrame of spark.read over one file) becomes a link named after its version in
    <warehouse>/_cdclake/python-snapshots/<flow>/, the folder of versioned snapshots cdclake
    reads (versions already applied are skipped there)."""
    warehouse = os.environ.get("CDCLAKE_WAREHOUSE")
    if not warehouse:
        raise Unsupported("a next_snapshot_and_version function outside cdclake run",
                          "run the file with cdclake run")
    snapshots = []
    latest = None
    for _ in range(_MAX_SNAPSHOTS):
        out = function(latest)
        if out is None:
            break
        if not isinstance(out, tuple) or len(out) != 2:
            raise Unsupported(f"a next_snapshot_and_version result of {type(out).__name__}",
                              "return (DataFrame, version) or None")
        frame, version = out
        src = getattr(frame, "_source", None)
        if not isinstance(frame, DataFrame) or src is None or src.kind != "files" \
                or src.streaming or frame._where or src.options:
            raise Unsupported("a snapshot that is not spark.read of files",
                              "return spark.read.format(...).load(path) of one file")
        if not os.path.isfile(src.path):
            raise Unsupported(f"snapshot {version!r} at {src.path}, which is not a file",
                              "load one file per snapshot")
        name = _snapshot_version_name(version, latest)
        snapshots.append((name, os.path.abspath(src.path), src.fmt, src.schema))
        latest = version
    else:
        raise Unsupported(f"a next_snapshot_and_version that gave {_MAX_SNAPSHOTS} snapshots",
                          "return None once there is no newer snapshot")
    fmt = snapshots[0][2] if snapshots else "csv"
    schema = snapshots[0][3] if snapshots else None
    for _, _, f, sch in snapshots:
        if f != fmt or sch != schema:
            raise Unsupported("snapshots of different formats or schemas",
                              "read every snapshot with the same format and schema")
    folder = os.path.join(os.path.abspath(warehouse), "_cdclake", "python-snapshots",
                          re.sub(r"[^A-Za-z0-9_.-]", "_", flow))
    os.makedirs(folder, exist_ok=True)
    for entry in os.listdir(folder):  # this run's links only
        path = os.path.join(folder, entry)
        if os.path.islink(path):
            os.unlink(path)
    for name, path, _, _ in snapshots:
        os.symlink(path, os.path.join(folder, name + _SNAPSHOT_EXTENSIONS[fmt]))
    args = [literal(folder), f"format => {literal(fmt)}"]
    if schema:
        args.append(f"schema => {literal(schema)}")
    return f"read_files({', '.join(args)})"


def sequence_sql(sequence_by):
    if isinstance(sequence_by, str):
        return ident(sequence_by)
    if isinstance(sequence_by, Column):
        return sequence_by.sql().strip()
    raise Unsupported(f"sequence_by given as {type(sequence_by).__name__}",
                      "give a column name, col(...) or struct(...)")


def to_sql():
    """The pipeline as SQL, each statement after a `-- FILE:LINE` comment naming where the
    file declared it (cdclake maps its planning errors back with them)."""
    registry.finish()
    name = os.path.basename(registry.user_file or "pipeline.py")
    parts = []
    for text, line in registry.statements:
        parts.append((f"-- cdclake: declared at {name}:{line}\n" if line else "") + text)
    return "\n\n".join(parts) + "\n"
