// FileSchema: a Parquet schema (the flat SchemaElement list of a footer) as a tree of nodes,
// each tied to the logical type it reads as, with the definition and repetition levels that
// the Dremel encoding assigns. One code path serves both directions: the writer turns a
// logical Schema into SchemaElements and then parses them like any file's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/schema.h"
#include "parquet/format/parquet_types.h"

namespace cdclake::parquet {

struct SchemaNode {
  enum class Kind { kPrimitive, kStruct, kList, kMap };

  Kind kind = Kind::kPrimitive;
  std::string name;
  data::TypePtr type;  // what this node's column holds
  bool nullable = true;
  /// The definition level at which this node's slot holds a value (not null). For a required
  /// node it equals its parent's.
  int16_t def_level = 0;
  /// Lists and maps: the definition level at which the slot holds one or more elements, and
  /// the repetition level that starts each element after the first.
  int16_t repeated_def_level = 0;
  int16_t repeated_rep_level = 0;
  /// Struct members; a list's one element; a map's key and value.
  std::vector<SchemaNode> children;

  // Primitive nodes (leaves) only:
  int leaf_index = -1;  // the column chunk index in each row group
  int16_t max_def = 0;
  int16_t max_rep = 0;
  format::SchemaElement element;  // physical type, length, annotations
  std::vector<std::string> path;  // path_in_schema
};

class FileSchema {
 public:
  /// Parses a footer's schema, mapping annotations to logical types and accepting the legacy
  /// list and map shapes (two-level lists, bare repeated fields, `array` and `_tuple` groups).
  /// kCorrupt or kNotSupported names the offending element.
  static Result<FileSchema> FromParquet(const std::vector<format::SchemaElement>& elements);
  /// The Parquet schema cdclake writes for `schema` (standard three-level lists and maps).
  static Result<FileSchema> FromLogical(const data::Schema& schema);

  const data::Schema& schema() const { return schema_; }
  const std::vector<SchemaNode>& fields() const { return fields_; }
  const std::vector<const SchemaNode*>& leaves() const { return leaves_; }
  const std::vector<format::SchemaElement>& elements() const { return elements_; }

  FileSchema() = default;
  FileSchema(const FileSchema& other) { *this = other; }
  FileSchema& operator=(const FileSchema& other);
  FileSchema(FileSchema&&) = default;
  FileSchema& operator=(FileSchema&&) = default;

 private:
  void IndexLeaves();

  std::vector<format::SchemaElement> elements_;
  std::vector<SchemaNode> fields_;
  std::vector<const SchemaNode*> leaves_;
  data::Schema schema_;
};

/// The first leaf under `node` (itself when it is a leaf).
const SchemaNode& FirstLeaf(const SchemaNode& node);

}  // namespace cdclake::parquet
