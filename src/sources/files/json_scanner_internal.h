// JsonScanner: a validating pull reader for one JSON text (a JSON Lines line or a nested value)
// that keeps numbers as their literal text and hands nested objects and arrays back unparsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

enum class JsonKind : uint8_t { kNull, kBool, kNumber, kString, kObject, kArray };

/// One value as read. Numbers are never converted here, so no digit is lost.
struct JsonValue {
  JsonKind kind = JsonKind::kNull;
  bool bool_value = false;
  bool has_point = false;     // numbers: a fraction part
  bool has_exponent = false;  // numbers: an exponent part
  /// kString: the decoded text; kNumber: the literal; kBool: "true"/"false"; kObject, kArray:
  /// the value's own JSON text; kNull: "null".
  std::string_view text;
};

/// Reads one JSON text front to back. Objects and arrays can be walked one level deep (members
/// or elements); a nested object or array inside them is validated and returned whole as a
/// kObject/kArray value, to be walked by another scanner over its text. On an error every call
/// returns false/kError and error()/error_offset() say what and where.
class JsonScanner {
 public:
  enum class Step { kItem, kEnd, kError };

  /// REQUIRES: `text` and `arena` outlive the scanner and the views it returns.
  JsonScanner(std::string_view text, ScratchArena* arena) : text_(text), arena_(arena) {}

  /// Reads any value (at the top level, or after NextMember/NextElement).
  bool ReadValue(JsonValue* value);
  /// Expects '{' next. Then NextMember gives each member's name; read its value with ReadValue.
  bool EnterObject();
  Step NextMember(std::string_view* name);
  /// Expects '[' next. Then NextElement announces each element; read it with ReadValue.
  bool EnterArray();
  Step NextElement();
  /// True when only whitespace is left; an error otherwise.
  bool AtEnd();
  /// After a nested object or array read member by member (EnterObject or EnterArray right
  /// after NextMember/NextElement, up to its kEnd), goes on with the enclosing one.
  void ContinueOuter() { first_item_ = false; }

  /// The first character of the next token is '{' (after whitespace).
  bool PeekObject();

  /// When the text ahead (after whitespace) starts with `known`, the complete text of an object
  /// or array this scanner or another one validated before, moves past it and returns true: the
  /// same bytes read the same way, so a value repeated in every record (a Connect schema) is
  /// validated once. Otherwise reads nothing and returns false.
  /// REQUIRES: `known` is a whole object or array that ReadValue accepted.
  bool SkipKnownValue(std::string_view known);

  /// Offset in the text just past what has been read so far.
  size_t position() const { return pos_; }

  bool failed() const { return error_ != nullptr; }
  const char* error() const { return error_; }
  /// Offset in the text where the error was found.
  size_t error_offset() const { return error_offset_; }
  /// The error is the text ending before the value did: more bytes could make it whole.
  bool ended_early() const { return error_ != nullptr && error_offset_ >= text_.size(); }

 private:
  static constexpr int kMaxDepth = 512;

  void SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }
  bool Fail(const char* why) {
    if (error_ == nullptr) {
      error_ = why;
      error_offset_ = pos_;
    }
    return false;
  }
  // At '"': reads a string; `decode` false only validates.
  bool ReadString(std::string_view* out, bool decode);
  bool ReadNumber(JsonValue* value);
  bool ReadLiteral(std::string_view word);
  // Validates a whole object or array starting at pos_.
  bool SkipContainer(int depth);
  bool SkipValue(int depth);
  Step NextItem(char close);

  std::string_view text_;
  ScratchArena* arena_;
  size_t pos_ = 0;
  bool first_item_ = true;
  const char* error_ = nullptr;
  size_t error_offset_ = 0;
};

}  // namespace cdclake::sources::internal
