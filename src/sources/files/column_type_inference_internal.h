// ColumnTypeInference: the type of a column that no schema names, decided from every value the
// file holds for it (CSV field texts, or JSON values).
#pragma once

#include <cstdint>
#include <string_view>

#include "data/data_type.h"
#include "sources/files/json_scanner_internal.h"

namespace cdclake::sources::internal {

/// Watches one column's values and names the narrowest type that holds them all.
/// CSV: BIGINT when every field is an integer that fits, DECIMAL(p, s) when every field is a
/// plain decimal number (integers that overflow BIGINT give DECIMAL(38, 0)), else STRING.
/// JSON: BOOLEAN, BIGINT, DOUBLE (a fraction or an exponent, as Spark infers JSON, so the type
/// does not depend on which values one file happens to hold), STRING; integers beyond BIGINT
/// give DECIMAL(38, 0), or DOUBLE beside numbers with a fraction; other mixes give STRING.
/// CSV texts keep DECIMAL for plain decimal numbers; one too wide for DECIMAL(38) gives STRING.
/// No values at all give STRING.
///
/// A sequence column (MarkSequence) is never STRING because of some values: its type comes from
/// the values that parse as numbers (BIGINT, DECIMAL, DOUBLE by the rules above; in JSON, strings
/// holding a number count as that number) or, when none does, as timestamps (TIMESTAMP); the
/// other values are left out, to be quarantined as not of that type. Only a sequence none of
/// whose values is a number or a timestamp is STRING (a text sequence, compared as text).
class ColumnTypeInference {
 public:
  /// Infers this column as a sequence (see above).
  void MarkSequence() { sequence_ = true; }
  /// A non-NULL CSV field.
  void ObserveText(std::string_view text);
  /// A JSON value (null is ignored).
  void ObserveJson(const JsonValue& value);
  /// Whether more values can no longer change the answer (it is STRING).
  bool settled() const { return string_; }

  data::TypePtr Type() const;

 private:
  void ObserveNumber(std::string_view text, bool has_exponent);
  // A sequence's text: a number, a timestamp, or neither (left out).
  void ObserveSequenceText(std::string_view text);

  bool sequence_ = false;
  bool seen_timestamp_ = false;  // sequences: a text that parses as a timestamp
  bool string_ = false;          // settled: STRING
  bool seen_number_ = false;
  bool seen_bool_ = false;
  bool seen_other_ = false;  // JSON strings, objects, arrays
  bool point_ = false;
  bool exponent_ = false;
  bool overflow_ = false;  // an integer beyond BIGINT
  int integer_digits_ = 0;
  int fraction_digits_ = 0;
};

}  // namespace cdclake::sources::internal
