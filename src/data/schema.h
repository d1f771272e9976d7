// Schema: the ordered top-level fields of a record batch or table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "data/data_type.h"

namespace cdclake::data {

class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Field> fields) : fields_(std::move(fields)) {}

  const std::vector<Field>& fields() const { return fields_; }
  const Field& field(size_t i) const { return fields_[i]; }
  size_t num_fields() const { return fields_.size(); }
  /// The index of the field named `name`, or -1.
  int FieldIndex(std::string_view name) const;

  /// One line per field: "name type [not null]".
  std::string ToString() const;
  bool operator==(const Schema& other) const { return fields_ == other.fields_; }

 private:
  std::vector<Field> fields_;
};

}  // namespace cdclake::data
