// Type widening: the allowed changes, the typeChanges metadata both ways, and value upcasts.
#include "delta/type_widening.h"

#include <algorithm>
#include <cstring>

#include "data/decimal.h"
#include "json/json.h"

namespace cdclake::delta {

namespace {

using data::Column;
using data::DataType;
using data::Int128;
using data::TypeId;
using data::TypePtr;
using Json = nlohmann::json;

constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;

// The decimal digits left of the point an integer type needs: 10 for byte/short/int (as the
// spec counts them), 20 for long.
int IntegerDigits(TypeId id) {
  return id == TypeId::kInt64 ? 20 : 10;
}

// Whether a column read as `from` can take the type `to` without touching its values.
bool SameLayout(const DataType& from, const DataType& to) {
  if (from.id() != to.id()) {
    auto either = [&](TypeId a, TypeId b) {
      return (from.id() == a || from.id() == b) && (to.id() == a || to.id() == b);
    };
    return either(TypeId::kString, TypeId::kBinary) ||
           either(TypeId::kTimestamp, TypeId::kTimestampNtz);
  }
  if (from.id() == TypeId::kDecimal) return from.scale() == to.scale();
  if (from.fields().size() != to.fields().size()) return false;
  for (size_t i = 0; i < from.fields().size(); ++i) {
    if (!SameLayout(*from.fields()[i].type, *to.fields()[i].type)) return false;
  }
  return true;
}

// A fixed-width column of type `to` holding `convert(i)` in every valid slot of `from` (null
// slots stay zero), with `from`'s validity. `convert` returns Result<T>.
template <typename T, typename Convert>
Result<Column> Rebuild(const Column& from, const TypePtr& to, Convert convert) {
  Column out(to);
  std::vector<uint8_t>& values = out.mutable_values();
  values.assign(static_cast<size_t>(from.length()) * sizeof(T), 0);
  for (int64_t i = 0; i < from.length(); ++i) {
    if (from.IsNull(i)) continue;
    Result<T> v = convert(i);
    if (!v.ok()) return v.status();
    std::memcpy(values.data() + i * sizeof(T), &*v, sizeof(T));
  }
  out.SetLengthAndValidity(from.length(), from.validity());
  return out;
}

std::string Describe(const DataType& type) {
  return type.is_nested() ? type.ToString() : DeltaTypeName(type);
}

Status Mismatch(std::string_view name, const DataType& from, const DataType& to) {
  return Status::NotSupported("column '" + std::string(name) + "' is " + Describe(from) +
                              " in the file but " + Describe(to) + " in the table");
}

// Widens one primitive column whose layout differs from `to`.
Result<Column> UpcastPrimitive(const Column& column, const TypePtr& to, std::string_view name) {
  const DataType& from = *column.type();
  int from_rank = data::IntegerRank(from.id());
  switch (to->id()) {
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      int to_rank = data::IntegerRank(to->id());
      if (from_rank == 0 || from_rank > to_rank) break;
      if (to->id() == TypeId::kInt16) {
        return Rebuild<int16_t>(column, to, [&](int64_t i) -> Result<int16_t> {
          return static_cast<int16_t>(column.IntegerAt(i));
        });
      }
      if (to->id() == TypeId::kInt32) {
        return Rebuild<int32_t>(column, to, [&](int64_t i) -> Result<int32_t> {
          return static_cast<int32_t>(column.IntegerAt(i));
        });
      }
      return Rebuild<int64_t>(column, to,
                              [&](int64_t i) -> Result<int64_t> { return column.IntegerAt(i); });
    }
    case TypeId::kDouble:
      if (from.id() == TypeId::kFloat) {
        return Rebuild<double>(column, to, [&](int64_t i) -> Result<double> {
          return static_cast<double>(column.ValueAt<float>(i));
        });
      }
      if (from_rank == 0 || from_rank > 3) break;  // long -> double would round
      return Rebuild<double>(column, to, [&](int64_t i) -> Result<double> {
        return static_cast<double>(column.IntegerAt(i));
      });
    case TypeId::kTimestampNtz:
      if (from.id() != TypeId::kDate) break;
      return Rebuild<int64_t>(column, to, [&](int64_t i) -> Result<int64_t> {
        return column.IntegerAt(i) * kMicrosPerDay;
      });
    case TypeId::kDecimal: {
      int from_scale = 0;
      if (from.id() == TypeId::kDecimal) {
        from_scale = from.scale();
      } else if (from_rank == 0) {
        break;
      }
      if (to->scale() < from_scale) break;
      const int shift = to->scale() - from_scale;
      const Int128 factor = data::PowerOfTen(shift);
      return Rebuild<Int128>(column, to, [&](int64_t i) -> Result<Int128> {
        Int128 v = from.id() == TypeId::kDecimal ? column.ValueAt<Int128>(i)
                                                 : static_cast<Int128>(column.IntegerAt(i));
        // Checking against precision - shift first keeps the multiplication from overflowing.
        if (!data::FitsPrecision(v, to->precision() - shift)) {
          return Status::OutOfRange("column '" + std::string(name) + "': value " +
                                    data::FormatDecimal(v, from_scale) + " does not fit " +
                                    DeltaTypeName(*to));
        }
        return v * factor;
      });
    }
    default:
      break;
  }
  return Mismatch(name, from, *to);
}

std::string Quote(const std::string& s) {
  return "'" + s + "'";
}

}  // namespace

bool IsTypeWidening(const DataType& from, const DataType& to) {
  if (from.is_nested() || to.is_nested()) return false;
  int from_rank = data::IntegerRank(from.id());
  int to_rank = data::IntegerRank(to.id());
  if (from_rank > 0 && to_rank > 0) return from_rank < to_rank;
  switch (to.id()) {
    case TypeId::kDouble:
      return from.id() == TypeId::kFloat || (from_rank > 0 && from_rank <= 3);
    case TypeId::kTimestampNtz:
      return from.id() == TypeId::kDate;
    case TypeId::kDecimal: {
      if (from_rank > 0) return to.precision() - to.scale() >= IntegerDigits(from.id());
      if (from.id() != TypeId::kDecimal) return false;
      int k1 = to.precision() - from.precision();
      int k2 = to.scale() - from.scale();
      return k1 >= k2 && k2 >= 0 && k1 > 0;
    }
    default:
      return false;
  }
}

bool IsIcebergCompatibleWidening(const DataType& from, const DataType& to) {
  if (!IsTypeWidening(from, to)) return false;
  if (to.id() == TypeId::kDouble) return from.id() == TypeId::kFloat;
  if (to.id() == TypeId::kTimestampNtz) return false;
  if (to.id() == TypeId::kDecimal)
    return from.id() == TypeId::kDecimal && from.scale() == to.scale();
  return true;
}

std::string DeltaTypeName(const DataType& type) {
  return PrimitiveTypeName(type);
}

Result<TypePtr> ParseDeltaTypeName(std::string_view name) {
  return ParsePrimitiveTypeName(name);
}

Result<std::vector<TypeChange>> ParseTypeChanges(const Json& value) {
  if (!value.is_array()) return Status::Corrupt(std::string(kTypeChangesKey) + " is not an array");
  std::vector<TypeChange> out;
  for (const Json& entry : value) {
    if (!entry.is_object()) {
      return Status::Corrupt(std::string(kTypeChangesKey) + ": an entry is not an object");
    }
    auto text = [&](const char* key) -> Result<std::string> {
      auto it = entry.find(key);
      if (it == entry.end() || !it->is_string()) {
        return Status::Corrupt(std::string(kTypeChangesKey) + ": an entry has no string '" + key +
                               "'");
      }
      return it->get<std::string>();
    };
    TypeChange change;
    CDCLAKE_ASSIGN_OR_RETURN(std::string from, text("fromType"));
    CDCLAKE_ASSIGN_OR_RETURN(std::string to, text("toType"));
    CDCLAKE_ASSIGN_OR_RETURN(change.from_type, ParseDeltaTypeName(from));
    CDCLAKE_ASSIGN_OR_RETURN(change.to_type, ParseDeltaTypeName(to));
    if (entry.contains("fieldPath")) {
      CDCLAKE_ASSIGN_OR_RETURN(change.field_path, text("fieldPath"));
    }
    out.push_back(std::move(change));
  }
  return out;
}

Json TypeChangeToJson(const TypeChange& change) {
  Json out = {{"fromType", DeltaTypeName(*change.from_type)},
              {"toType", DeltaTypeName(*change.to_type)}};
  if (!change.field_path.empty()) out["fieldPath"] = change.field_path;
  return out;
}

bool HasTypeWidening(const Protocol& protocol) {
  auto lists = [](const std::optional<std::vector<std::string>>& features) {
    if (!features) return false;
    return std::any_of(features->begin(), features->end(), [](const std::string& f) {
      return f == kTypeWideningFeature || f == kTypeWideningPreviewFeature;
    });
  };
  return lists(protocol.reader_features) || lists(protocol.writer_features);
}

Status CheckTypeChanges(const DeltaSchema& schema) {
  for (const auto& [path, metadata] : schema.field_metadata) {
    auto it = metadata.find(std::string(kTypeChangesKey));
    if (it == metadata.end()) continue;
    auto changes = ParseTypeChanges(*it);
    if (!changes.ok()) return changes.status().WithContext("column " + Quote(path));
    for (const TypeChange& c : *changes) {
      if (!IsTypeWidening(*c.from_type, *c.to_type)) {
        std::string where = c.field_path.empty() ? path : path + " (" + c.field_path + ")";
        return Status::NotSupported("not supported: type change of column " + Quote(where) +
                                    " from " + DeltaTypeName(*c.from_type) + " to " +
                                    DeltaTypeName(*c.to_type));
      }
    }
  }
  return Status::OK();
}

Result<Column> UpcastColumn(Column column, const TypePtr& to, std::string_view name) {
  const DataType& from = *column.type();
  if (SameLayout(from, *to)) {
    column.SetType(to);
    return column;
  }
  if (!from.is_nested() && !to->is_nested()) return UpcastPrimitive(column, to, name);
  if (from.id() != to->id() || from.fields().size() != to->fields().size() ||
      column.num_children() != to->fields().size()) {
    return Mismatch(name, from, *to);
  }
  for (size_t i = 0; i < column.num_children(); ++i) {
    const data::Field& target = to->fields()[i];
    std::string child_name = std::string(name) + "." + target.name;
    CDCLAKE_ASSIGN_OR_RETURN(
        Column child, UpcastColumn(std::move(column.mutable_child(i)), target.type, child_name));
    column.mutable_child(i) = std::move(child);
  }
  column.SetType(to);
  return column;
}

}  // namespace cdclake::delta
