// Column building and value access.
#include "data/column.h"

#include <cassert>

namespace cdclake::data {

Column::Column(TypePtr type) : type_(std::move(type)) {
  switch (type_->id()) {
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kList:
    case TypeId::kMap:
      offsets_.push_back(0);
      break;
    default:
      break;
  }
  for (const Field& f : type_->fields()) children_.emplace_back(f.type);
}

void Column::Reserve(int64_t n) {
  int width = type_->byte_width();
  if (width > 0) values_.reserve(static_cast<size_t>(n * width));
  if (!offsets_.empty()) offsets_.reserve(static_cast<size_t>(n + 1));
}

void Column::MarkValid() {
  if (!validity_.empty()) validity_.push_back(1);
  ++length_;
}

void Column::AppendNull() {
  if (validity_.empty()) validity_.assign(static_cast<size_t>(length_), 1);
  validity_.push_back(0);
  ++length_;
  ++null_count_;
  int width = type_->byte_width();
  if (width > 0) values_.resize(values_.size() + static_cast<size_t>(width), 0);
  if (!offsets_.empty()) offsets_.push_back(offsets_.back());
  if (type_->id() == TypeId::kStruct) {
    for (Column& c : children_) c.AppendNull();
  }
}

void Column::AppendBytes(std::string_view v) {
  bytes_.append(v);
  offsets_.push_back(static_cast<int64_t>(bytes_.size()));
  MarkValid();
}

void Column::AppendListSlot(int64_t count) {
  offsets_.push_back(offsets_.back() + count);
  MarkValid();
}

void Column::SetLengthAndValidity(int64_t length, std::vector<uint8_t> validity) {
  length_ = length;
  null_count_ = 0;
  for (uint8_t b : validity) null_count_ += b == 0;
  validity_ = null_count_ == 0 ? std::vector<uint8_t>{} : std::move(validity);
}

void Column::AppendValue(const Value& v) {
  if (v.is_null()) {
    AppendNull();
    return;
  }
  switch (type_->id()) {
    case TypeId::kBoolean:
      Append<uint8_t>(v.bool_value() ? 1 : 0);
      break;
    case TypeId::kInt8:
      Append<int8_t>(static_cast<int8_t>(v.int_value()));
      break;
    case TypeId::kInt16:
      Append<int16_t>(static_cast<int16_t>(v.int_value()));
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
      Append<int32_t>(static_cast<int32_t>(v.int_value()));
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      Append<int64_t>(v.int_value());
      break;
    case TypeId::kFloat:
      Append<float>(static_cast<float>(v.double_value()));
      break;
    case TypeId::kDouble:
      Append<double>(v.double_value());
      break;
    case TypeId::kDecimal:
      Append<Int128>(v.decimal_value());
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      AppendBytes(v.bytes());
      break;
    case TypeId::kStruct: {
      const auto& c = v.children();
      for (size_t i = 0; i < children_.size(); ++i) {
        children_[i].AppendValue(i < c.size() ? c[i] : Value::Null());
      }
      AppendStructSlot();
      break;
    }
    case TypeId::kList: {
      for (const Value& e : v.children()) children_[0].AppendValue(e);
      AppendListSlot(static_cast<int64_t>(v.children().size()));
      break;
    }
    case TypeId::kMap: {
      for (const Value& entry : v.children()) {
        assert(entry.children().size() == 2);
        children_[0].AppendValue(entry.children()[0]);
        children_[1].AppendValue(entry.children()[1]);
      }
      AppendListSlot(static_cast<int64_t>(v.children().size()));
      break;
    }
  }
}

void Column::AppendFrom(const Column& other, int64_t i) {
  if (other.IsNull(i)) {
    AppendNull();
    return;
  }
  int width = type_->byte_width();
  if (width > 0) {
    size_t at = values_.size();
    values_.resize(at + static_cast<size_t>(width));
    std::memcpy(values_.data() + at, other.values_.data() + i * width, static_cast<size_t>(width));
    MarkValid();
    return;
  }
  switch (type_->id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      AppendBytes(other.StringAt(i));
      return;
    case TypeId::kStruct:
      for (size_t c = 0; c < children_.size(); ++c) children_[c].AppendFrom(other.children_[c], i);
      AppendStructSlot();
      return;
    case TypeId::kList:
    case TypeId::kMap: {
      int64_t begin = other.offsets_[i];
      int64_t end = other.offsets_[i + 1];
      for (size_t c = 0; c < children_.size(); ++c) {
        for (int64_t e = begin; e < end; ++e) children_[c].AppendFrom(other.children_[c], e);
      }
      AppendListSlot(end - begin);
      return;
    }
    default:
      return;
  }
}

void Column::AppendColumn(const Column& other) {
  if (other.length_ == 0) return;
  if (!validity_.empty() || other.null_count_ > 0) {
    if (validity_.empty()) validity_.assign(static_cast<size_t>(length_), 1);
    if (other.validity_.empty()) {
      validity_.insert(validity_.end(), static_cast<size_t>(other.length_), 1);
    } else {
      validity_.insert(validity_.end(), other.validity_.begin(), other.validity_.end());
    }
  }
  values_.insert(values_.end(), other.values_.begin(), other.values_.end());
  if (!offsets_.empty()) {
    int64_t base = offsets_.back() - other.offsets_.front();
    for (size_t i = 1; i < other.offsets_.size(); ++i) offsets_.push_back(other.offsets_[i] + base);
  }
  bytes_.append(other.bytes_);
  for (size_t c = 0; c < children_.size(); ++c) children_[c].AppendColumn(other.children_[c]);
  length_ += other.length_;
  null_count_ += other.null_count_;
}

void Column::ReserveForAppend(const std::vector<const Column*>& parts) {
  size_t values = values_.size();
  size_t offsets = offsets_.size();
  size_t bytes = bytes_.size();
  auto rows = static_cast<size_t>(length_);
  bool nulls = !validity_.empty();
  for (const Column* p : parts) {
    values += p->values_.size();
    if (!p->offsets_.empty()) offsets += p->offsets_.size() - 1;
    bytes += p->bytes_.size();
    rows += static_cast<size_t>(p->length_);
    nulls = nulls || p->null_count_ > 0;
  }
  values_.reserve(values);
  if (!offsets_.empty()) offsets_.reserve(offsets);
  bytes_.reserve(bytes);
  if (nulls) validity_.reserve(rows);  // still empty while no slot is null
  for (size_t c = 0; c < children_.size(); ++c) {
    std::vector<const Column*> kids;
    kids.reserve(parts.size());
    for (const Column* p : parts) kids.push_back(&p->children_[c]);
    children_[c].ReserveForAppend(kids);
  }
}

void Column::Truncate(int64_t length) {
  if (length < 0 || length >= length_) return;
  if (!validity_.empty()) {
    for (int64_t i = length; i < length_; ++i)
      null_count_ -= validity_[static_cast<size_t>(i)] == 0;
    validity_.resize(static_cast<size_t>(length));
  }
  const int width = type_->byte_width();
  if (width > 0) values_.resize(static_cast<size_t>(length) * static_cast<size_t>(width));
  int64_t child_length = length;  // a struct's children have its slots
  if (!offsets_.empty()) {
    child_length = offsets_[static_cast<size_t>(length)];
    offsets_.resize(static_cast<size_t>(length) + 1);
    if (children_.empty()) bytes_.resize(static_cast<size_t>(child_length));
  }
  for (Column& c : children_) c.Truncate(child_length);
  length_ = length;
}

int64_t Column::IntegerAt(int64_t i) const {
  switch (type_->id()) {
    case TypeId::kInt8:
      return ValueAt<int8_t>(i);
    case TypeId::kInt16:
      return ValueAt<int16_t>(i);
    case TypeId::kInt32:
    case TypeId::kDate:
      return ValueAt<int32_t>(i);
    case TypeId::kBoolean:
      return ValueAt<uint8_t>(i);
    default:
      return ValueAt<int64_t>(i);
  }
}

Value Column::GetValue(int64_t i) const {
  if (IsNull(i)) return Value::Null();
  switch (type_->id()) {
    case TypeId::kBoolean:
      return Value::Bool(ValueAt<uint8_t>(i) != 0);
    case TypeId::kInt8:
      return Value::Int(ValueAt<int8_t>(i));
    case TypeId::kInt16:
      return Value::Int(ValueAt<int16_t>(i));
    case TypeId::kInt32:
    case TypeId::kDate:
      return Value::Int(ValueAt<int32_t>(i));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return Value::Int(ValueAt<int64_t>(i));
    case TypeId::kFloat:
      return Value::Double(ValueAt<float>(i));
    case TypeId::kDouble:
      return Value::Double(ValueAt<double>(i));
    case TypeId::kDecimal:
      return Value::Decimal(ValueAt<Int128>(i));
    case TypeId::kString:
    case TypeId::kBinary:
      return Value::Bytes(std::string(StringAt(i)));
    case TypeId::kStruct: {
      Value::Children c;
      for (const Column& child : children_) c.push_back(child.GetValue(i));
      return Value::Nested(std::move(c));
    }
    case TypeId::kList: {
      Value::Children c;
      for (int64_t e = offsets_[i]; e < offsets_[i + 1]; ++e) c.push_back(children_[0].GetValue(e));
      return Value::Nested(std::move(c));
    }
    case TypeId::kMap: {
      Value::Children c;
      for (int64_t e = offsets_[i]; e < offsets_[i + 1]; ++e) {
        c.push_back(Value::Nested({children_[0].GetValue(e), children_[1].GetValue(e)}));
      }
      return Value::Nested(std::move(c));
    }
  }
  return Value::Null();
}

}  // namespace cdclake::data

namespace cdclake::data {

void Column::SetType(TypePtr type) {
  type_ = std::move(type);
  for (size_t i = 0; i < children_.size() && i < type_->fields().size(); ++i) {
    children_[i].SetType(type_->fields()[i].type);
  }
}

Column Column::Take(const std::vector<int64_t>& indices) const {
  Column out(type_);
  out.Reserve(static_cast<int64_t>(indices.size()));
  if (!validity_.empty()) out.validity_.reserve(indices.size());  // kept by AppendNull's assign
  if (type_->id() == TypeId::kString || type_->id() == TypeId::kBinary) {
    // The bytes are sized first, so that they are copied once: grown by doubling, they were
    // copied again and their fresh pages faulted in at every step (8% of a 1M-row load's CPU,
    // gathering the rows to write).
    size_t bytes = 0;
    for (int64_t i : indices) bytes += static_cast<size_t>(offsets_[i + 1] - offsets_[i]);
    out.bytes_.reserve(bytes);
  }
  for (int64_t i : indices) out.AppendFrom(*this, i);
  return out;
}

Column Column::Repeat(TypePtr type, const Value& value, int64_t length) {
  Column out(std::move(type));
  out.Reserve(length);
  for (int64_t i = 0; i < length; ++i) out.AppendValue(value);
  return out;
}

}  // namespace cdclake::data
