// SchemaDdl: column lists in SQL DDL ("userId INT, name STRING, amount DECIMAL(10,2)") and
// type names, as --schema and CREATE STREAMING TABLE (...) spell them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "data/data_type.h"
#include "data/schema.h"

namespace cdclake::sql {

/// Parses a type name: BOOLEAN, TINYINT/BYTE, SMALLINT/SHORT, INT/INTEGER, BIGINT/LONG, FLOAT/
/// REAL, DOUBLE, DECIMAL/DEC/NUMERIC[(p[,s])] (default (10,0)), STRING, VARCHAR(n), CHAR(n),
/// BINARY, DATE, TIMESTAMP, TIMESTAMP_NTZ, STRUCT<a: T, ...>, ARRAY<T>, MAP<K, V>;
/// case-insensitive. Errors show a caret as ParseCondition's do.
Result<data::TypePtr> ParseTypeName(std::string_view text);

/// Parses "name TYPE [NOT NULL] [COMMENT '...'], ..." into a schema. Names may be quoted with
/// backticks. Duplicate names (case-insensitive) are an error.
Result<data::Schema> ParseSchemaDdl(std::string_view text);

/// Parses a column list "a, b, `c d`" into names.
Result<std::vector<std::string>> ParseColumnList(std::string_view text);

/// Parses a SEQUENCE BY expression: a column name, or STRUCT(a, b, ...) with column names.
/// Returns the column names in order and whether it was a STRUCT.
struct SequenceSpec {
  std::vector<std::string> columns;
  bool is_struct = false;
};
Result<SequenceSpec> ParseSequenceBy(std::string_view text);

}  // namespace cdclake::sql
