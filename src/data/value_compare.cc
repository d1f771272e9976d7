// Sorting order of values.
#include "data/value_compare.h"

#include <cmath>

namespace cdclake::data {

namespace {
template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}
}  // namespace

int CompareForSort(const Value& a, const Value& b, const DataType& type) {
  if (a.is_null() || b.is_null()) return Cmp(!a.is_null(), !b.is_null());
  switch (type.id()) {
    case TypeId::kBoolean:
      return Cmp(a.bool_value(), b.bool_value());
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double x = a.double_value(), y = b.double_value();
      if (std::isnan(x) || std::isnan(y)) return Cmp(std::isnan(x), std::isnan(y));
      return Cmp(x, y);
    }
    case TypeId::kDecimal:
      return Cmp(a.decimal_value(), b.decimal_value());
    case TypeId::kString:
    case TypeId::kBinary: {
      int c = a.bytes().compare(b.bytes());
      return Cmp(c, 0);
    }
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: {
      const auto& x = a.children();
      const auto& y = b.children();
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        const DataType* t = nullptr;
        DataType entry(TypeId::kStruct, 0, 0, type.fields());
        if (type.id() == TypeId::kStruct) {
          t = type.fields()[i].type.get();
        } else if (type.id() == TypeId::kList) {
          t = type.fields()[0].type.get();
        } else {
          t = &entry;
        }
        int c = CompareForSort(x[i], y[i], *t);
        if (c != 0) return c;
      }
      return Cmp(x.size(), y.size());
    }
    default:
      return Cmp(a.int_value(), b.int_value());
  }
}

}  // namespace cdclake::data
