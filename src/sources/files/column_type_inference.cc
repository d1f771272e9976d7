// ColumnTypeInference: widening rules for CSV texts and JSON values.
#include "sources/files/column_type_inference_internal.h"

#include <algorithm>
#include <charconv>

#include "sources/files/cell_conversion_internal.h"

namespace cdclake::sources::internal {

namespace {
constexpr int kMaxDecimalPrecision = 38;
}  // namespace

void ColumnTypeInference::ObserveNumber(std::string_view text, bool has_exponent) {
  seen_number_ = true;
  if (has_exponent) {
    exponent_ = true;
    return;
  }
  int integer_digits = 0;
  int fraction_digits = 0;
  bool point = false;
  if (!IsPlainDecimal(text, &integer_digits, &fraction_digits, &point)) {
    string_ = true;
    return;
  }
  if (!point) {
    int64_t ignored = 0;
    if (ParseInt64(text, &ignored) != IntParse::kOk) overflow_ = true;
  }
  point_ = point_ || point;
  integer_digits_ = std::max(integer_digits_, integer_digits);
  fraction_digits_ = std::max(fraction_digits_, fraction_digits);
}

void ColumnTypeInference::ObserveSequenceText(std::string_view text) {
  int integer_digits = 0;
  int fraction_digits = 0;
  bool point = false;
  if (IsPlainDecimal(text, &integer_digits, &fraction_digits, &point)) {
    ObserveNumber(text, false);
    return;
  }
  double d = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec == std::errc() && end == text.data() + text.size() &&
      text.find_first_of("eE") != std::string_view::npos) {
    ObserveNumber(text, true);
    return;
  }
  int64_t micros = 0;
  bool has_zone = false;
  if (ParseTimestampText(text, &micros, &has_zone)) seen_timestamp_ = true;
}

void ColumnTypeInference::ObserveText(std::string_view text) {
  if (string_) return;
  if (sequence_) {
    ObserveSequenceText(text);
    return;
  }
  ObserveNumber(text, false);
}

void ColumnTypeInference::ObserveJson(const JsonValue& value) {
  if (string_) return;
  if (sequence_) {
    if (value.kind == JsonKind::kNumber) {
      ObserveNumber(value.text, value.has_exponent || value.has_point);
    } else if (value.kind == JsonKind::kString) {
      ObserveSequenceText(value.text);
    }
    return;
  }
  switch (value.kind) {
    case JsonKind::kNull:
      return;
    case JsonKind::kBool:
      seen_bool_ = true;
      break;
    case JsonKind::kNumber:
      // A fraction or an exponent makes a JSON number a DOUBLE (as Spark infers JSON): a
      // DECIMAL sized to the values of one file would refuse a longer value in the next.
      ObserveNumber(value.text, value.has_exponent || value.has_point);
      break;
    case JsonKind::kString:
    case JsonKind::kObject:
    case JsonKind::kArray:
      seen_other_ = true;
      break;
  }
  if (static_cast<int>(seen_bool_) + static_cast<int>(seen_number_) +
          static_cast<int>(seen_other_) >
      1) {
    string_ = true;
  }
}

data::TypePtr ColumnTypeInference::Type() const {
  using data::DataType;
  if (sequence_ && !seen_number_ && seen_timestamp_) return DataType::Timestamp();
  if (string_ || seen_other_ || !(seen_number_ || seen_bool_)) return DataType::String();
  if (seen_bool_) return DataType::Boolean();
  if (exponent_) return DataType::Double();
  if (!point_ && !overflow_) return DataType::Int64();
  int precision = std::max(1, integer_digits_ + fraction_digits_);
  if (!point_) precision = kMaxDecimalPrecision;  // integers beyond BIGINT
  if (integer_digits_ + fraction_digits_ > kMaxDecimalPrecision) return DataType::String();
  return DataType::Decimal(precision, fraction_digits_);
}

}  // namespace cdclake::sources::internal
