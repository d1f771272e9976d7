"""pyspark.sql.types: the data types and StructType schemas a pipeline file may give.

Each type knows its SQL spelling (`sql()`); a StructType becomes the DDL column list cdclake
reads ("id BIGINT NOT NULL, name STRING"), so `schema=StructType([...])` means what the DDL
string does. Types cdclake's tables do not have (intervals, VARCHAR, user-defined types) are
refused by name.
"""

from cdclake_pipeline import Unsupported, ident

__all__ = [
    "DataType", "NullType", "BooleanType", "ByteType", "ShortType", "IntegerType", "LongType",
    "FloatType", "DoubleType", "DecimalType", "StringType", "BinaryType", "DateType",
    "TimestampType", "TimestampNTZType", "ArrayType", "MapType", "StructField", "StructType",
]


class DataType:
    """A type; `sql()` is its spelling in cdclake's (and Spark's) DDL."""

    _sql = None

    def sql(self, nullability=True):
        """The DDL spelling; without `nullability`, nested fields' NOT NULL is left out."""
        return self._sql

    def simpleString(self):
        return self.sql().lower()

    def typeName(self):
        return type(self).__name__[:-len("Type")].lower()

    def __eq__(self, other):
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self):
        return hash(self.sql())

    def __repr__(self):
        return f"{type(self).__name__}()"


class NullType(DataType):
    def sql(self, nullability=True):
        raise Unsupported("NullType as a column's type", "give the column a type")


class BooleanType(DataType):
    _sql = "BOOLEAN"


class ByteType(DataType):
    _sql = "TINYINT"


class ShortType(DataType):
    _sql = "SMALLINT"


class IntegerType(DataType):
    _sql = "INT"


class LongType(DataType):
    _sql = "BIGINT"


class FloatType(DataType):
    _sql = "FLOAT"


class DoubleType(DataType):
    _sql = "DOUBLE"


class StringType(DataType):
    _sql = "STRING"


class BinaryType(DataType):
    _sql = "BINARY"


class DateType(DataType):
    _sql = "DATE"


class TimestampType(DataType):
    _sql = "TIMESTAMP"


class TimestampNTZType(DataType):
    _sql = "TIMESTAMP_NTZ"


class DecimalType(DataType):
    def __init__(self, precision=10, scale=0):
        self.precision = int(precision)
        self.scale = int(scale)

    def sql(self, nullability=True):
        return f"DECIMAL({self.precision},{self.scale})"

    def __repr__(self):
        return f"DecimalType({self.precision}, {self.scale})"


class ArrayType(DataType):
    def __init__(self, elementType, containsNull=True):
        self.elementType = as_type(elementType)
        self.containsNull = containsNull

    def sql(self, nullability=True):
        return f"ARRAY<{self.elementType.sql(nullability)}>"

    def __repr__(self):
        return f"ArrayType({self.elementType!r}, {self.containsNull})"


class MapType(DataType):
    def __init__(self, keyType, valueType, valueContainsNull=True):
        self.keyType = as_type(keyType)
        self.valueType = as_type(valueType)
        self.valueContainsNull = valueContainsNull

    def sql(self, nullability=True):
        return f"MAP<{self.keyType.sql(nullability)}, {self.valueType.sql(nullability)}>"

    def __repr__(self):
        return f"MapType({self.keyType!r}, {self.valueType!r}, {self.valueContainsNull})"


class StructField:
    """A column: its name, type, whether it may be NULL, and metadata ("comment" is kept)."""

    def __init__(self, name, dataType, nullable=True, metadata=None):
        if not isinstance(name, str):
            raise Unsupported(f"StructField named by {type(name).__name__}", "give a string")
        self.name = name
        self.dataType = as_type(dataType)
        self.nullable = bool(nullable)
        self.metadata = dict(metadata or {})

    def ddl(self, nullability=True):
        """`name TYPE [NOT NULL] [COMMENT '...']`; without `nullability`, NOT NULL is left out
        (a file reader's schema types columns, it does not constrain them)."""
        text = f"{ident(self.name)} {self.dataType.sql(nullability)}"
        if nullability and not self.nullable:
            text += " NOT NULL"
        comment = self.metadata.get("comment")
        if comment is not None:
            text += " COMMENT '" + str(comment).replace("'", "''") + "'"
        return text

    def simpleString(self):
        return f"{self.name}:{self.dataType.simpleString()}"

    def __eq__(self, other):
        return isinstance(other, StructField) and self.__dict__ == other.__dict__

    def __repr__(self):
        return f"StructField({self.name!r}, {self.dataType!r}, {self.nullable})"


class StructType(DataType):
    """A schema (a list of StructFields), or a STRUCT column's type."""

    def __init__(self, fields=None):
        self.fields = []
        for f in fields or []:
            if not isinstance(f, StructField):
                raise Unsupported(f"StructType of {type(f).__name__}", "give StructFields")
            self.fields.append(f)

    def add(self, field, data_type=None, nullable=True, metadata=None):
        if isinstance(field, StructField):
            self.fields.append(field)
        else:
            if data_type is None:
                raise Unsupported("StructType.add without a type", "give the field's type")
            self.fields.append(StructField(field, data_type, nullable, metadata))
        return self

    @property
    def names(self):
        return [f.name for f in self.fields]

    def fieldNames(self):
        return self.names

    def __iter__(self):
        return iter(self.fields)

    def __len__(self):
        return len(self.fields)

    def __getitem__(self, key):
        if isinstance(key, str):
            for f in self.fields:
                if f.name == key:
                    return f
            raise KeyError(key)
        return self.fields[key]

    def sql(self, nullability=True):
        return "STRUCT<" + ", ".join(
            f"{ident(f.name)}: {f.dataType.sql(nullability)}" +
            ("" if f.nullable or not nullability else " NOT NULL") for f in self.fields) + ">"

    def simpleString(self):
        return "struct<" + ",".join(f.simpleString() for f in self.fields) + ">"

    def ddl(self, nullability=True):
        """The column list: "id BIGINT NOT NULL, name STRING"."""
        if not self.fields:
            raise Unsupported("an empty StructType as a schema", "give it its columns")
        return ", ".join(f.ddl(nullability) for f in self.fields)

    toDDL = ddl

    def __repr__(self):
        return f"StructType({self.fields!r})"


_BY_NAME = {
    "boolean": BooleanType, "tinyint": ByteType, "byte": ByteType, "smallint": ShortType,
    "short": ShortType, "int": IntegerType, "integer": IntegerType, "bigint": LongType,
    "long": LongType, "float": FloatType, "double": DoubleType, "string": StringType,
    "binary": BinaryType, "date": DateType, "timestamp": TimestampType,
    "timestamp_ntz": TimestampNTZType,
}


def as_type(value):
    """A DataType given as one, or as a simple type's name ("bigint")."""
    if isinstance(value, DataType):
        return value
    if isinstance(value, type) and issubclass(value, DataType):
        raise Unsupported(f"the type {value.__name__} without ()", f"write {value.__name__}()")
    if isinstance(value, str) and value.strip().lower() in _BY_NAME:
        return _BY_NAME[value.strip().lower()]()
    raise Unsupported(f"the type {value!r}", "give a pyspark.sql.types type, such as LongType()")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"pyspark.sql.types.{name}",
                      "cdclake knows " + ", ".join(__all__) +
                      "; or give schemas as DDL strings, such as 'id BIGINT, name STRING'")
