// Per-file statistics: choosing the leaves, min/max/null counts per type, the JSON layout Spark
// writes, and parsing it back with every number's literal text kept for exact decimals.
#include "delta/file_statistics.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>
#include <utility>

#include "data/decimal.h"
#include "data/value_format.h"
#include "delta/partition_value.h"

namespace cdclake::delta {

namespace {

using data::Column;
using data::Field;
using data::TypeId;
using Json = nlohmann::json;

// ---------------------------------------------------------------- UTF-8

// Decodes the code point at `*pos` and moves past it; false on a malformed, overlong or
// surrogate sequence.
bool NextCodePoint(std::string_view s, size_t* pos, uint32_t* cp) {
  auto b0 = static_cast<unsigned char>(s[*pos]);
  if (b0 < 0x80) {
    *cp = b0;
    ++*pos;
    return true;
  }
  size_t extra = 0;
  uint32_t v = 0, min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    extra = 1, v = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    extra = 2, v = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    extra = 3, v = b0 & 0x07, min = 0x10000;
  } else {
    return false;
  }
  if (*pos + extra >= s.size()) return false;
  for (size_t k = 1; k <= extra; ++k) {
    auto b = static_cast<unsigned char>(s[*pos + k]);
    if ((b & 0xC0) != 0x80) return false;
    v = (v << 6) | (b & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return false;
  *cp = v;
  *pos += extra + 1;
  return true;
}

bool IsValidUtf8(std::string_view s) {
  size_t pos = 0;
  uint32_t cp = 0;
  while (pos < s.size()) {
    if (!NextCodePoint(s, &pos, &cp)) return false;
  }
  return true;
}

// ---------------------------------------------------------------- choosing the leaves

// A selected column: a leaf, or a struct with its selected members. Leaves carry their results.
struct Node {
  const Field* field = nullptr;
  const Column* column = nullptr;
  std::vector<Node> children;
  int64_t null_count = 0;
  std::optional<std::string> min_json;
  std::optional<std::string> max_json;

  bool is_struct() const { return field->type->id() == TypeId::kStruct; }
};

std::vector<const Column*> ChildColumns(const Column& c) {
  std::vector<const Column*> out;
  for (size_t i = 0; i < c.num_children(); ++i) out.push_back(&c.child(i));
  return out;
}

int64_t SelectFirst(const std::vector<Field>& fields, const std::vector<const Column*>& columns,
                    int64_t budget, std::vector<Node>* out);

// Adds `field` with up to `budget` of its leaves (negative: all); returns the leaves taken.
int64_t SelectField(const Field& field, const Column* column, int64_t budget,
                    std::vector<Node>* out) {
  Node n;
  n.field = &field;
  n.column = column;
  int64_t taken = 1;
  if (n.is_struct()) {
    taken = SelectFirst(field.type->fields(), ChildColumns(*column), budget, &n.children);
  }
  out->push_back(std::move(n));
  return taken;
}

// Spark's truncateSchema: leaves in schema order until `budget` are taken (negative: no limit).
// A struct reached with budget left is kept even if none of its leaves fit.
int64_t SelectFirst(const std::vector<Field>& fields, const std::vector<const Column*>& columns,
                    int64_t budget, std::vector<Node>* out) {
  int64_t taken = 0;
  for (size_t i = 0; i < fields.size() && i < columns.size(); ++i) {
    if (budget >= 0 && taken >= budget) break;
    taken += SelectField(fields[i], columns[i], budget < 0 ? -1 : budget - taken, out);
  }
  return taken;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// "a.b", "`a.b`.c" (backticks quote, "``" is a backtick) into lower-cased parts.
std::vector<std::string> ColumnPathParts(std::string_view name) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (quoted) {
      if (c == '`' && i + 1 < name.size() && name[i + 1] == '`') {
        parts.back().push_back('`');
        ++i;
      } else if (c == '`') {
        quoted = false;
      } else {
        parts.back().push_back(c);
      }
    } else if (c == '`') {
      quoted = true;
    } else if (c == '.') {
      parts.emplace_back();
    } else if (c != ' ') {
      parts.back().push_back(c);
    }
  }
  for (std::string& p : parts) p = Lower(p);
  return parts;
}

// Spark's filterSchema: fields named by a path (all of a named struct), in schema order.
void SelectNamed(const std::vector<Field>& fields, const std::vector<const Column*>& columns,
                 const std::vector<std::vector<std::string>>& paths, std::vector<Node>* out) {
  for (size_t i = 0; i < fields.size() && i < columns.size(); ++i) {
    std::string name = Lower(fields[i].name);
    bool whole = false;
    std::vector<std::vector<std::string>> rest;
    for (const auto& p : paths) {
      if (p.empty() || p[0] != name) continue;
      if (p.size() == 1) {
        whole = true;
      } else {
        rest.emplace_back(p.begin() + 1, p.end());
      }
    }
    if (whole) {
      SelectField(fields[i], columns[i], -1, out);
    } else if (!rest.empty() && fields[i].type->id() == TypeId::kStruct) {
      Node n;
      n.field = &fields[i];
      n.column = columns[i];
      SelectNamed(fields[i].type->fields(), ChildColumns(*columns[i]), rest, &n.children);
      if (!n.children.empty()) out->push_back(std::move(n));
    }
  }
}

// ---------------------------------------------------------------- per-type values

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

// "2024-01-01T10:00:00.123" plus "Z" when UTC-adjusted, from microseconds already on a
// millisecond boundary.
std::string TimestampStatText(int64_t micros, bool utc) {
  std::string text = data::FormatTimestamp(micros, /*utc=*/false);  // "... HH:MM:SS.ffffff"
  size_t space = text.find(' ');
  if (space != std::string::npos) text[space] = 'T';
  text.resize(text.size() - 3);
  if (utc) text.push_back('Z');
  return "\"" + text + "\"";
}

std::string FloatingJson(double v, bool is_float) {
  char buf[64];
  std::to_chars_result r = is_float ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v))
                                    : std::to_chars(buf, buf + sizeof(buf), v);
  std::string text(buf, r.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

class LeafScan {
 public:
  LeafScan(const Column& c, const std::vector<uint8_t>* parent) : c_(c), parent_(parent) {}
  bool Valid(int64_t i) const {
    return (parent_ == nullptr || (*parent_)[i] != 0) && c_.IsValid(i);
  }
  int64_t length() const { return c_.length(); }

  // The least and greatest valid values of fixed-width type T; false when every row is null.
  template <typename T>
  bool MinMax(T* min, T* max) const {
    bool found = false;
    for (int64_t i = 0; i < c_.length(); ++i) {
      if (!Valid(i)) continue;
      T v = c_.ValueAt<T>(i);
      if (!found || v < *min) *min = v;
      if (!found || v > *max) *max = v;
      found = true;
    }
    return found;
  }

 private:
  const Column& c_;
  const std::vector<uint8_t>* parent_;
};

template <typename T>
void IntegerBounds(const LeafScan& scan, Node* n) {
  T min{}, max{};
  if (!scan.MinMax(&min, &max)) return;
  n->min_json = std::to_string(static_cast<int64_t>(min));
  n->max_json = std::to_string(static_cast<int64_t>(max));
}

template <typename T>
void FloatingBounds(const Column& c, const LeafScan& scan, Node* n) {
  bool found = false;
  T min{}, max{};
  for (int64_t i = 0; i < c.length(); ++i) {
    if (!scan.Valid(i)) continue;
    T v = c.ValueAt<T>(i);
    if (std::isnan(v)) return;  // no bounds at all
    if (!found || v < min) min = v;
    if (!found || v > max) max = v;
    found = true;
  }
  if (!found) return;
  constexpr bool kIsFloat = sizeof(T) == 4;
  if (std::isfinite(min)) n->min_json = FloatingJson(min, kIsFloat);
  if (std::isfinite(max)) n->max_json = FloatingJson(max, kIsFloat);
}

void StringBounds(const Column& c, const LeafScan& scan, Node* n) {
  bool found = false;
  std::string_view min, max;
  for (int64_t i = 0; i < c.length(); ++i) {
    if (!scan.Valid(i)) continue;
    std::string_view v = c.StringAt(i);  // compares as unsigned bytes: UTF-8 code point order
    if (!found || v < min) min = v;
    if (!found || v > max) max = v;
    found = true;
  }
  if (!found) return;
  if (IsValidUtf8(min)) {
    std::string text;
    data::AppendJsonString(TruncateStatsMin(min), &text);
    n->min_json = std::move(text);
  }
  if (IsValidUtf8(max)) {
    std::optional<std::string> bound = TruncateStatsMax(max);
    if (bound) {
      std::string text;
      data::AppendJsonString(*bound, &text);
      n->max_json = std::move(text);
    }
  }
}

void TimestampBounds(const LeafScan& scan, bool utc, Node* n) {
  int64_t min = 0, max = 0;
  if (!scan.MinMax(&min, &max)) return;
  n->min_json = TimestampStatText(FloorDiv(min, 1000) * 1000, utc);
  if (max <= std::numeric_limits<int64_t>::max() - 999) {
    n->max_json = TimestampStatText(FloorDiv(max + 999, 1000) * 1000, utc);
  }
}

void ComputeLeaf(const std::vector<uint8_t>* parent, Node* n) {
  const Column& c = *n->column;
  LeafScan scan(c, parent);
  for (int64_t i = 0; i < c.length(); ++i) n->null_count += scan.Valid(i) ? 0 : 1;
  switch (n->field->type->id()) {
    case TypeId::kInt8:
      IntegerBounds<int8_t>(scan, n);
      break;
    case TypeId::kInt16:
      IntegerBounds<int16_t>(scan, n);
      break;
    case TypeId::kInt32:
      IntegerBounds<int32_t>(scan, n);
      break;
    case TypeId::kInt64:
      IntegerBounds<int64_t>(scan, n);
      break;
    case TypeId::kFloat:
      FloatingBounds<float>(c, scan, n);
      break;
    case TypeId::kDouble:
      FloatingBounds<double>(c, scan, n);
      break;
    case TypeId::kDecimal: {
      data::Int128 min = 0, max = 0;
      if (!scan.MinMax(&min, &max)) break;
      int scale = n->field->type->scale();
      n->min_json = data::FormatDecimal(min, scale);
      n->max_json = data::FormatDecimal(max, scale);
      break;
    }
    case TypeId::kString:
      StringBounds(c, scan, n);
      break;
    case TypeId::kDate: {
      int32_t min = 0, max = 0;
      if (!scan.MinMax(&min, &max)) break;
      n->min_json = "\"" + data::FormatDate(min) + "\"";
      n->max_json = "\"" + data::FormatDate(max) + "\"";
      break;
    }
    case TypeId::kTimestamp:
      TimestampBounds(scan, /*utc=*/true, n);
      break;
    case TypeId::kTimestampNtz:
      TimestampBounds(scan, /*utc=*/false, n);
      break;
    default:  // boolean, binary, list, map: nullCount only
      break;
  }
}

void Compute(const std::vector<uint8_t>* parent, Node* n) {
  if (!n->is_struct()) {
    ComputeLeaf(parent, n);
    return;
  }
  const Column& c = *n->column;
  std::vector<uint8_t> mask;
  if (parent != nullptr || c.has_nulls()) {
    mask.resize(static_cast<size_t>(c.length()));
    for (int64_t i = 0; i < c.length(); ++i) {
      mask[i] = (parent == nullptr || (*parent)[i] != 0) && c.IsValid(i) ? 1 : 0;
    }
  }
  for (Node& child : n->children) Compute(mask.empty() ? nullptr : &mask, &child);
}

// ---------------------------------------------------------------- the JSON layout

bool HasBounds(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kString:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return true;
    default:
      return false;
  }
}

// Whether the node's schema holds any leaf with min/max (`bounds`) or any leaf at all.
bool HasLeaf(const Node& n, bool bounds) {
  if (!n.is_struct()) return !bounds || HasBounds(n.field->type->id());
  for (const Node& c : n.children) {
    if (HasLeaf(c, bounds)) return true;
  }
  return false;
}

bool AnyLeaf(const std::vector<Node>& nodes, bool bounds) {
  for (const Node& n : nodes) {
    if (HasLeaf(n, bounds)) return true;
  }
  return false;
}

enum class Stat { kMin, kMax, kNullCount };

void AppendStat(const std::vector<Node>& nodes, Stat stat, std::string* out) {
  out->push_back('{');
  bool first = true;
  auto key = [&](const Node& n) {
    if (!first) out->push_back(',');
    first = false;
    data::AppendJsonString(n.field->name, out);
    out->push_back(':');
  };
  for (const Node& n : nodes) {
    if (n.is_struct()) {
      // Spark writes a struct whenever its schema has a leaf for this stat, even if all null.
      if (!HasLeaf(n, stat != Stat::kNullCount)) continue;
      key(n);
      AppendStat(n.children, stat, out);
      continue;
    }
    if (stat == Stat::kNullCount) {
      key(n);
      out->append(std::to_string(n.null_count));
      continue;
    }
    const std::optional<std::string>& v = stat == Stat::kMin ? n.min_json : n.max_json;
    if (!v) continue;
    key(n);
    out->append(*v);
  }
  out->push_back('}');
}

// ---------------------------------------------------------------- parsing

std::string PointerToken(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Builds the document like nlohmann's own DOM parser, and records the literal text of every
// number that arrives as floating point (fractions, exponents, integers past 64 bits).
class ExactNumberSax : public nlohmann::json_sax<Json> {
 public:
  ExactNumberSax(Json* root, std::map<std::string, std::string>* number_text)
      : root_(root), number_text_(number_text) {}

  const std::string& error() const { return error_; }

  bool null() override { return Put(Json(nullptr)) != nullptr; }
  bool boolean(bool v) override { return Put(Json(v)) != nullptr; }
  bool number_integer(number_integer_t v) override { return Put(Json(v)) != nullptr; }
  bool number_unsigned(number_unsigned_t v) override { return Put(Json(v)) != nullptr; }
  bool number_float(number_float_t v, const string_t& text) override {
    (*number_text_)[Pointer()] = text;
    return Put(Json(v)) != nullptr;
  }
  bool string(string_t& v) override { return Put(Json(std::move(v))) != nullptr; }
  bool binary(binary_t& v) override { return Put(Json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t) override { return Open(Json::object()); }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override {
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return Open(Json::array()); }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    error_ = "invalid JSON at byte " + std::to_string(position) + ": " + ex.what();
    return false;
  }

 private:
  struct Frame {
    Json* node;
    std::string key;  // the member being read, for objects
  };

  // The JSON pointer of the value about to be put.
  std::string Pointer() const {
    std::string out;
    for (const Frame& f : frames_) {
      out.push_back('/');
      out += f.node->is_object() ? PointerToken(f.key) : std::to_string(f.node->size());
    }
    return out;
  }

  Json* Put(Json v) {
    if (frames_.empty()) {
      *root_ = std::move(v);
      return root_;
    }
    Frame& f = frames_.back();
    if (f.node->is_object()) {
      Json& slot = (*f.node)[f.key];
      slot = std::move(v);
      return &slot;
    }
    // Parents never grow while a child is open, so pointers to open containers stay valid.
    f.node->push_back(std::move(v));
    return &f.node->back();
  }

  bool Open(Json container) {
    Json* node = Put(std::move(container));
    frames_.push_back(Frame{node, {}});
    return true;
  }

  Json* root_;
  std::map<std::string, std::string>* number_text_;
  std::vector<Frame> frames_;
  std::string error_;
};

Status BadStat(std::string_view which, const std::vector<std::string>& path,
               const data::DataType& type, const Json& v) {
  std::string name;
  for (const std::string& p : path) name += (name.empty() ? "" : ".") + p;
  return Status::Corrupt("stats " + std::string(which) + " of '" + name + "' (" + v.dump() +
                         ") is not a valid " + type.ToString());
}

Result<data::Value> FloatingFromText(std::string_view text, bool is_float) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (is_float) {
    float f = 0;
    auto [end, ec] = std::from_chars(first, last, f);
    if (text.empty() || ec != std::errc() || end != last) return Status::Corrupt("bad float");
    return data::Value::Double(static_cast<double>(f));
  }
  double d = 0;
  auto [end, ec] = std::from_chars(first, last, d);
  if (text.empty() || ec != std::errc() || end != last) return Status::Corrupt("bad double");
  return data::Value::Double(d);
}

// A stats value as a Value of `type`. `text` is the number's literal text when recorded.
Result<data::Value> StatToValue(const Json& v, const std::string* text,
                                const data::DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      if (v.is_boolean()) return data::Value::Bool(v.get<bool>());
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      int64_t x = 0;
      if (v.is_number_unsigned()) {
        if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) break;
        x = static_cast<int64_t>(v.get<uint64_t>());
      } else if (v.is_number_integer()) {
        x = v.get<int64_t>();
      } else {
        break;
      }
      int bits = type.byte_width() * 8;
      if (bits < 64 && (x < -(int64_t{1} << (bits - 1)) || x >= (int64_t{1} << (bits - 1)))) break;
      return data::Value::Int(x);
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      bool is_float = type.id() == TypeId::kFloat;
      if (v.is_number_float() && text != nullptr) {
        auto parsed = FloatingFromText(*text, is_float);
        if (parsed.ok()) return parsed;
        break;
      }
      if (v.is_number()) {
        double d = v.get<double>();
        return data::Value::Double(is_float ? static_cast<double>(static_cast<float>(d)) : d);
      }
      if (v.is_string()) {  // "NaN", "Infinity", "-Infinity"
        auto parsed = FloatingFromText(v.get_ref<const std::string&>(), is_float);
        if (parsed.ok()) return parsed;
      }
      break;
    }
    case TypeId::kDecimal: {
      std::string digits;
      if (v.is_number_float()) {
        if (text == nullptr) break;
        digits = *text;
      } else if (v.is_number_integer()) {
        digits = v.dump();
      } else if (v.is_string()) {
        digits = v.get<std::string>();
      } else {
        break;
      }
      auto unscaled = data::ParseDecimal(digits, type.precision(), type.scale());
      if (!unscaled.ok()) break;
      return data::Value::Decimal(*unscaled);
    }
    case TypeId::kString:
    case TypeId::kBinary:
      if (v.is_string()) return data::Value::Bytes(v.get<std::string>());
      break;
    case TypeId::kDate: {
      if (!v.is_string()) break;
      auto days = ParseDateText(v.get_ref<const std::string&>());
      if (!days.ok()) break;
      return data::Value::Int(*days);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      if (!v.is_string()) break;
      auto micros = ParseTimestampText(v.get_ref<const std::string&>(),
                                       /*allow_zone=*/type.id() == TypeId::kTimestamp);
      if (!micros.ok()) break;
      return data::Value::Int(*micros);
    }
    default:
      return Status::NotSupported("stats bounds of type " + type.ToString());
  }
  return Status::Corrupt("mismatch");
}

Result<data::Value> Bound(const ParsedStats& stats, bool max, const std::vector<std::string>& path,
                          const data::DataType& type) {
  const Json* node = max ? &stats.max_values : &stats.min_values;
  std::string pointer = max ? "/maxValues" : "/minValues";
  for (const std::string& name : path) {
    if (!node->is_object()) return data::Value::Null();
    auto it = node->find(name);
    if (it == node->end()) return data::Value::Null();
    node = &*it;
    pointer += "/" + PointerToken(name);
  }
  if (node->is_null()) return data::Value::Null();
  auto text = stats.number_text.find(pointer);
  auto value = StatToValue(*node, text == stats.number_text.end() ? nullptr : &text->second, type);
  if (!value.ok() && value.status().code() == StatusCode::kCorrupt) {
    return BadStat(max ? "maxValues" : "minValues", path, type, *node);
  }
  return value;
}

}  // namespace

std::string TruncateStatsMin(std::string_view value, int prefix_length) {
  size_t pos = 0;
  uint32_t cp = 0;
  for (int n = 0; n < prefix_length && pos < value.size(); ++n) {
    if (!NextCodePoint(value, &pos, &cp)) ++pos;  // a stray byte counts as one character
  }
  return std::string(value.substr(0, pos));
}

std::optional<std::string> TruncateStatsMax(std::string_view value, int prefix_length) {
  size_t pos = 0;
  uint32_t cp = 0;
  int count = 0;
  while (count < prefix_length && pos < value.size()) {
    if (!NextCodePoint(value, &pos, &cp)) return std::nullopt;
    ++count;
  }
  // Any bound "prefix + t" with t above the next character exceeds `value`, and so every string
  // that sorts at or below it. U+007F is the shortest such t below DEL; U+10FFFF tops the rest.
  // A next character of U+10FFFF has nothing above it: keep it in the prefix and look further.
  while (pos < value.size()) {
    if (count >= 2 * prefix_length) return std::nullopt;
    size_t next = pos;
    if (!NextCodePoint(value, &next, &cp)) return std::nullopt;
    if (cp < 0x7F) return std::string(value.substr(0, pos)) + "\x7F";
    if (cp < 0x10FFFF) return std::string(value.substr(0, pos)) + "\xF4\x8F\xBF\xBF";
    pos = next;
    ++count;
  }
  return std::string(value);
}

std::string ComputeStatsJson(const data::RecordBatch& batch,
                             const std::vector<std::string>& stats_columns,
                             int64_t num_indexed_cols) {
  const std::vector<Field>& fields = batch.schema().fields();
  std::vector<const Column*> columns;
  for (size_t i = 0; i < batch.num_columns(); ++i) columns.push_back(&batch.column(i));

  std::vector<Node> nodes;
  if (!stats_columns.empty()) {
    std::vector<std::vector<std::string>> paths;
    paths.reserve(stats_columns.size());
    for (const std::string& name : stats_columns) paths.push_back(ColumnPathParts(name));
    SelectNamed(fields, columns, paths, &nodes);
  } else {
    SelectFirst(fields, columns, num_indexed_cols, &nodes);
  }
  for (Node& n : nodes) Compute(nullptr, &n);

  std::string out = "{\"numRecords\":" + std::to_string(batch.num_rows());
  if (AnyLeaf(nodes, /*bounds=*/true)) {
    out += ",\"minValues\":";
    AppendStat(nodes, Stat::kMin, &out);
    out += ",\"maxValues\":";
    AppendStat(nodes, Stat::kMax, &out);
  }
  if (AnyLeaf(nodes, /*bounds=*/false)) {
    out += ",\"nullCount\":";
    AppendStat(nodes, Stat::kNullCount, &out);
  }
  out += "}";
  return out;
}

Result<data::Value> ParsedStats::MinValue(const std::vector<std::string>& path,
                                          const data::DataType& type) const {
  return Bound(*this, /*max=*/false, path, type);
}

Result<data::Value> ParsedStats::MaxValue(const std::vector<std::string>& path,
                                          const data::DataType& type) const {
  return Bound(*this, /*max=*/true, path, type);
}

int64_t ParsedStats::NullCount(const std::vector<std::string>& path) const {
  const Json* node = &null_count;
  for (const std::string& name : path) {
    if (!node->is_object()) return -1;
    auto it = node->find(name);
    if (it == node->end()) return -1;
    node = &*it;
  }
  if (node->is_number_integer() && node->get<int64_t>() >= 0) return node->get<int64_t>();
  return -1;
}

Result<ParsedStats> ParseStatsJson(std::string_view stats) {
  ParsedStats out;
  Json root;
  ExactNumberSax sax(&root, &out.number_text);
  bool ok = false;
  try {
    ok = Json::sax_parse(stats.begin(), stats.end(), &sax);
  } catch (const std::exception& e) {
    return Status::Corrupt(std::string("stats: invalid JSON: ") + e.what());
  }
  if (!ok) return Status::Corrupt("stats: " + sax.error());
  if (!root.is_object()) return Status::Corrupt("stats: not a JSON object");

  auto member = [&](const char* key) -> const Json* {
    auto it = root.find(key);
    return it == root.end() || it->is_null() ? nullptr : &*it;
  };
  if (const Json* n = member("numRecords")) {
    bool fits =
        n->is_number_integer() &&
        (n->is_number_unsigned()
             ? n->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             : n->get<int64_t>() >= 0);
    if (!fits) return Status::Corrupt("stats: numRecords is not a count: " + n->dump());
    out.num_records = n->get<int64_t>();
  }
  for (auto [key, slot] :
       {std::pair{"minValues", &out.min_values}, std::pair{"maxValues", &out.max_values},
        std::pair{"nullCount", &out.null_count}}) {
    const Json* v = member(key);
    if (v == nullptr) continue;
    if (!v->is_object()) return Status::Corrupt(std::string("stats: ") + key + " is not an object");
    *slot = std::move(root[key]);
  }
  if (const Json* t = member("tightBounds")) {
    if (!t->is_boolean()) return Status::Corrupt("stats: tightBounds is not a boolean");
    out.tight_bounds = t->get<bool>();
  }
  return out;
}

}  // namespace cdclake::delta
