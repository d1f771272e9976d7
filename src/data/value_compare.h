// A total order on values of one type, for sorting rows: NULL first, numbers by value (NaN
// last), strings and binary bytewise, nested values member by member.
#pragma once

#include "data/data_type.h"
#include "data/value.h"

namespace cdclake::data {

/// <0, 0 or >0.
int CompareForSort(const Value& a, const Value& b, const DataType& type);

}  // namespace cdclake::data
