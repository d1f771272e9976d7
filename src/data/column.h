// Column: a vector of values of one DataType with a validity mask, the bulk in-memory form.
// Layout by type: fixed-width types keep values in a byte buffer (bool as one byte, decimal as
// 16-byte Int128); string/binary keep int64 offsets (length+1) and the bytes; struct keeps one
// child per member; list keeps offsets and one child (the elements); map keeps offsets and two
// children (keys, values). Null slots of fixed-width columns hold zeros.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "data/data_type.h"
#include "data/value.h"

namespace cdclake::data {

class Column {
 public:
  Column() = default;
  explicit Column(TypePtr type);

  const TypePtr& type() const { return type_; }
  int64_t length() const { return length_; }
  bool has_nulls() const { return null_count_ > 0; }
  int64_t null_count() const { return null_count_; }
  bool IsValid(int64_t i) const { return validity_.empty() || validity_[i] != 0; }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  // --- typed access (REQUIRES: the type matches) ---
  template <typename T>
  T ValueAt(int64_t i) const {
    T v;
    std::memcpy(&v, values_.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  /// Slot i of an integer-like column (INT8/16/32/64, DATE, TIMESTAMP, BOOLEAN) as int64.
  int64_t IntegerAt(int64_t i) const;

  template <typename T>
  const T* Data() const {
    return reinterpret_cast<const T*>(values_.data());
  }
  std::string_view StringAt(int64_t i) const {
    return std::string_view(bytes_).substr(offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  const std::vector<int64_t>& offsets() const { return offsets_; }
  const std::string& bytes() const { return bytes_; }
  const std::vector<uint8_t>& validity() const { return validity_; }
  const std::vector<uint8_t>& values() const { return values_; }
  const Column& child(size_t i) const { return children_[i]; }
  size_t num_children() const { return children_.size(); }

  // --- building ---
  void Reserve(int64_t n);
  void AppendNull();
  template <typename T>
  void Append(T v) {
    size_t at = values_.size();
    values_.resize(at + sizeof(T));
    std::memcpy(values_.data() + at, &v, sizeof(T));
    MarkValid();
  }
  void AppendBytes(std::string_view v);  // string and binary
  /// Struct: after appending one value to every child. List/map: after appending `count`
  /// elements (entries) to the child(ren).
  void AppendStructSlot() { MarkValid(); }
  void AppendListSlot(int64_t count);
  /// Appends any Value of this column's type (nested ones recursively). REQUIRES: the Value's
  /// shape matches the type (see Value).
  void AppendValue(const Value& v);
  /// Appends row `i` of `other` (same type).
  void AppendFrom(const Column& other, int64_t i);
  /// Appends every row of `other` (same type), in bulk.
  void AppendColumn(const Column& other);
  /// Room for every row of `parts` (this column's type) after this column's own, so that
  /// appending them one by one copies each byte once and never regrows.
  void ReserveForAppend(const std::vector<const Column*>& parts);
  /// Drops the slots from `length` on (nothing when the column is not longer): undoes appends,
  /// as when a row fails half-way through its cells.
  void Truncate(int64_t length);

  Column& mutable_child(size_t i) { return children_[i]; }
  std::vector<uint8_t>& mutable_values() { return values_; }
  std::string& mutable_bytes() { return bytes_; }
  std::vector<int64_t>& mutable_offsets() { return offsets_; }
  /// Sets length and validity wholesale (bulk builders: the Parquet reader). An empty validity
  /// means every slot is valid.
  void SetLengthAndValidity(int64_t length, std::vector<uint8_t> validity);

  Value GetValue(int64_t i) const;

  /// Gives the column `type`, which must share its layout (other field names, string for
  /// binary); children are retyped recursively.
  void SetType(TypePtr type);
  /// The rows at `indices`, in that order.
  Column Take(const std::vector<int64_t>& indices) const;
  /// `length` copies of `value` (NULL included).
  static Column Repeat(TypePtr type, const Value& value, int64_t length);

 private:
  void MarkValid();

  TypePtr type_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  std::vector<uint8_t> validity_;  // empty while no slot is null
  std::vector<uint8_t> values_;
  std::vector<int64_t> offsets_;
  std::string bytes_;
  std::vector<Column> children_;
};

}  // namespace cdclake::data
