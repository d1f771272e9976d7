// OrderedEncoding: values as bytes whose memcmp order is SQL order (NULLs first), and which
// decode back given the type. The engine sorts keys, sequences and event contents with it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "data/column.h"
#include "data/data_type.h"
#include "data/value.h"

namespace cdclake::change {

/// Appends `value` of `type` to `out`. Order: NULL < every value; booleans false < true;
/// integers, dates and timestamps numerically; float/double numerically (-0.0 == 0.0 is not
/// merged: -0.0 sorts just below 0.0; NaN above +inf); decimals numerically (one scale per
/// column); strings and binary bytewise; structs field by field; lists element by element
/// (a prefix sorts first); maps as lists of entries.
void AppendOrdered(const data::Value& value, const data::DataType& type, std::string* out);

/// AppendOrdered of `column`'s value at `row`, without building a Value for primitive
/// columns. `type` is the type the value is encoded as (the column's, or a wider one of the same
/// encoding: any integer width, float as double).
void AppendOrderedCell(const data::Column& column, int64_t row, const data::DataType& type,
                       std::string* out);

/// The encoding of a tuple of values, one per type.
std::string EncodeOrdered(const std::vector<data::Value>& values,
                          const std::vector<data::TypePtr>& types);

/// Reads one value of `type` from the front of `*in`, advancing it.
Result<data::Value> ReadOrdered(std::string_view* in, const data::DataType& type);

/// Whether values of `type` have an order a sequence may use: integers, decimals, strings,
/// binary, dates, timestamps, floats, booleans, and structs of those.
bool IsOrderable(const data::DataType& type);

}  // namespace cdclake::change
