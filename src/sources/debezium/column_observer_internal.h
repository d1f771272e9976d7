// ColumnObserver: the type of a Debezium row column that no schema names, decided in the first
// pass over a file from every value the file holds for it.
#pragma once

#include "data/data_type.h"
#include "sources/debezium/cell_decoder_internal.h"
#include "sources/files/column_type_inference_internal.h"
#include "sources/files/json_scanner_internal.h"
#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

/// The JSON Lines inference (ColumnTypeInference), except that a column whose every value is a
/// VariableScaleDecimal object ({"scale", "value"}) becomes DECIMAL(38, s), s the largest scale
/// seen (less when the integer digits seen need the room). Placeholders are not looked at.
class ColumnObserver {
 public:
  void Observe(const JsonValue& value, ScratchArena* arena);
  ColumnSpec Spec() const;
  /// The DECIMAL type for the VariableScaleDecimal values seen (DECIMAL(38, 0) when none).
  data::TypePtr VariableScaleType() const;

 private:
  ColumnTypeInference inference_;
  bool variable_scale_ = false;
  bool other_ = false;
  int max_scale_ = 0;
  int max_integer_digits_ = 0;
};

}  // namespace cdclake::sources::internal
