// ColumnObserver: JSON inference plus VariableScaleDecimal objects.
#include "sources/debezium/column_observer_internal.h"

#include <algorithm>

namespace cdclake::sources::internal {

namespace {
constexpr int kMaxPrecision = 38;
}  // namespace

void ColumnObserver::Observe(const JsonValue& value, ScratchArena* arena) {
  if (value.kind == JsonKind::kNull || IsUnavailablePlaceholder(value, arena)) return;
  int scale = 0;
  data::Int128 unscaled = 0;
  if (value.kind == JsonKind::kObject &&
      ReadVariableScaleDecimal(value, arena, &scale, &unscaled)) {
    variable_scale_ = true;
    int digits = DecimalDigits(unscaled);
    max_scale_ = std::max(max_scale_, std::clamp(scale, 0, kMaxPrecision));
    max_integer_digits_ = std::max(max_integer_digits_, digits - scale);
    return;
  }
  other_ = true;
  inference_.ObserveJson(value);
}

data::TypePtr ColumnObserver::VariableScaleType() const {
  int integer_digits = std::clamp(max_integer_digits_, 0, kMaxPrecision);
  int scale = std::min(max_scale_, kMaxPrecision - integer_digits);
  return data::DataType::Decimal(kMaxPrecision, scale);
}

ColumnSpec ColumnObserver::Spec() const {
  if (variable_scale_ && !other_) {
    return ColumnSpec{VariableScaleType(), CellEncoding::kVariableScaleDecimal};
  }
  if (variable_scale_) return ColumnSpec{data::DataType::String(), CellEncoding::kPlain};
  return ColumnSpec{inference_.Type(), CellEncoding::kPlain};
}

}  // namespace cdclake::sources::internal
