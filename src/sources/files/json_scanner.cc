// JsonScanner: RFC 8259 grammar, string unescaping (with surrogate pairs) into a scratch arena,
// number literals kept as text.
#include "sources/files/json_scanner_internal.h"

#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cdclake::sources::internal {

namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Four hex digits at `s` (REQUIRES: 4 bytes readable) or -1.
int32_t Hex4(const char* s) {
  int32_t v = 0;
  for (int k = 0; k < 4; ++k) {
    int d = HexDigit(s[k]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// A mask with the high bit set in the first of the eight bytes at `p` that is '"', '\\' or
// below 0x20 (bit tricks on a word; bits above the lowest set one may be spurious); 0 when
// there is none.
uint64_t SpecialStringBytes(const char* p) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHighs = 0x8080808080808080ULL;
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  auto zero_bytes = [](uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  uint64_t below_space = (w - kOnes * 0x20) & ~w & kHighs;
  return zero_bytes(w ^ (kOnes * '"')) | zero_bytes(w ^ (kOnes * '\\')) | below_space;
}

// The offset of the first quote, backslash or control byte in `p[i..n)`, or an offset in its
// last seven bytes from where the caller looks byte by byte.
size_t SkipPlainStringBytes(const char* p, size_t i, size_t n) {
#if defined(__SSE2__)
  // Sixteen bytes at a time; a byte is below 0x20 when max(byte, 0x1F) is 0x1F (unsigned).
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1F);
  while (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_cmpeq_epi8(_mm_max_epu8(v, control), control));
    const int mask = _mm_movemask_epi8(special);
    if (mask != 0) return i + static_cast<size_t>(std::countr_zero(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  // Eight bytes at a time (the lowest flagged byte of a little-endian word is exact).
  while (i + 8 <= n) {
    uint64_t special = SpecialStringBytes(p + i);
    if constexpr (std::endian::native == std::endian::little) {
      if (special != 0) return i + static_cast<size_t>(std::countr_zero(special)) / 8;
    } else if (special != 0) {
      return i;
    }
    i += 8;
  }
  return i;
}

size_t PutUtf8(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace

bool JsonScanner::ReadString(std::string_view* out, bool decode) {
  // pos_ is at the opening quote. First find the closing quote, noting escapes.
  const size_t open = pos_ + 1;
  size_t i = open;
  bool escaped = false;
  const size_t n = text_.size();
  for (;;) {
    i = SkipPlainStringBytes(text_.data(), i, n);
    if (i >= n) {
      pos_ = n;
      return Fail("unterminated string");
    }
    unsigned char c = static_cast<unsigned char>(text_[i]);
    if (c == '"') break;
    if (c == '\\') {
      escaped = true;
      i += 2;
      continue;
    }
    if (c < 0x20) {
      pos_ = i;
      return Fail("control character in a string");
    }
    ++i;
  }
  const size_t close = i;
  pos_ = close + 1;
  if (!escaped) {
    *out = text_.substr(open, close - open);
    return true;
  }
  // Undo the escapes (the decoded text is never longer than the escaped one).
  char* dst = decode ? arena_->Allocate(close - open) : nullptr;
  size_t w = 0;
  char utf8[4];
  for (size_t r = open; r < close;) {
    char c = text_[r];
    if (c != '\\') {
      if (dst != nullptr) dst[w] = c;
      ++w;
      ++r;
      continue;
    }
    char e = text_[r + 1];
    char plain = 0;
    switch (e) {
      case '"':
      case '\\':
      case '/':
        plain = e;
        break;
      case 'b':
        plain = '\b';
        break;
      case 'f':
        plain = '\f';
        break;
      case 'n':
        plain = '\n';
        break;
      case 'r':
        plain = '\r';
        break;
      case 't':
        plain = '\t';
        break;
      case 'u': {
        if (r + 6 > close) {
          pos_ = r;
          return Fail("bad \\u escape");
        }
        int32_t unit = Hex4(text_.data() + r + 2);
        if (unit < 0) {
          pos_ = r;
          return Fail("bad \\u escape");
        }
        uint32_t cp = static_cast<uint32_t>(unit);
        size_t used = 6;
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          int32_t low = -1;
          if (r + 12 <= close && text_[r + 6] == '\\' && text_[r + 7] == 'u') {
            low = Hex4(text_.data() + r + 8);
          }
          if (low < 0xDC00 || low > 0xDFFF) {
            pos_ = r;
            return Fail("unpaired surrogate in a \\u escape");
          }
          cp = 0x10000 + ((static_cast<uint32_t>(unit) - 0xD800) << 10) +
               (static_cast<uint32_t>(low) - 0xDC00);
          used = 12;
        } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
          pos_ = r;
          return Fail("unpaired surrogate in a \\u escape");
        }
        size_t len = PutUtf8(cp, dst != nullptr ? dst + w : utf8);
        w += len;
        r += used;
        continue;
      }
      default:
        pos_ = r;
        return Fail("bad escape in a string");
    }
    if (dst != nullptr) dst[w] = plain;
    ++w;
    r += 2;
  }
  if (dst != nullptr) *out = std::string_view(dst, w);
  return true;
}

bool JsonScanner::ReadNumber(JsonValue* value) {
  const size_t start = pos_;
  const size_t n = text_.size();
  size_t i = pos_;
  if (i < n && text_[i] == '-') ++i;
  if (i >= n || !IsDigit(text_[i])) {
    pos_ = i;
    return Fail(i == start ? "unexpected character" : "bad number");
  }
  if (text_[i] == '0') {
    ++i;
  } else {
    while (i < n && IsDigit(text_[i])) ++i;
  }
  value->has_point = false;
  value->has_exponent = false;
  if (i < n && text_[i] == '.') {
    ++i;
    if (i >= n || !IsDigit(text_[i])) {
      pos_ = i;
      return Fail("bad number");
    }
    while (i < n && IsDigit(text_[i])) ++i;
    value->has_point = true;
  }
  if (i < n && (text_[i] == 'e' || text_[i] == 'E')) {
    ++i;
    if (i < n && (text_[i] == '+' || text_[i] == '-')) ++i;
    if (i >= n || !IsDigit(text_[i])) {
      pos_ = i;
      return Fail("bad number");
    }
    while (i < n && IsDigit(text_[i])) ++i;
    value->has_exponent = true;
  }
  value->kind = JsonKind::kNumber;
  value->text = text_.substr(start, i - start);
  pos_ = i;
  return true;
}

bool JsonScanner::ReadLiteral(std::string_view word) {
  if (text_.substr(pos_, word.size()) != word) {
    std::string_view rest = text_.substr(pos_);
    if (rest.size() < word.size() && word.substr(0, rest.size()) == rest) {
      pos_ = text_.size();  // "tr" at the end: a literal cut short
      return Fail("unexpected end of input");
    }
    return Fail("unexpected character");
  }
  pos_ += word.size();
  return true;
}

bool JsonScanner::SkipValue(int depth) {
  SkipSpace();
  if (pos_ >= text_.size()) return Fail("unexpected end of input");
  char c = text_[pos_];
  switch (c) {
    case '{':
    case '[':
      return SkipContainer(depth + 1);
    case '"': {
      std::string_view ignored;
      return ReadString(&ignored, false);
    }
    case 't':
      return ReadLiteral("true");
    case 'f':
      return ReadLiteral("false");
    case 'n':
      return ReadLiteral("null");
    default: {
      JsonValue number;
      return ReadNumber(&number);
    }
  }
}

bool JsonScanner::SkipContainer(int depth) {
  if (depth > kMaxDepth) return Fail("nested too deeply");
  const char close = text_[pos_] == '{' ? '}' : ']';
  const bool object = close == '}';
  ++pos_;
  bool first = true;
  for (;;) {
    SkipSpace();
    if (pos_ >= text_.size()) return Fail("unexpected end of input");
    if (text_[pos_] == close) {
      ++pos_;
      return true;
    }
    if (!first) {
      if (text_[pos_] != ',') return Fail(object ? "expected ',' or '}'" : "expected ',' or ']'");
      ++pos_;
      SkipSpace();
    }
    first = false;
    if (object) {
      if (pos_ >= text_.size() || text_[pos_] != '"') return Fail("expected a member name");
      std::string_view ignored;
      if (!ReadString(&ignored, false)) return false;
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':') return Fail("expected ':'");
      ++pos_;
    }
    if (!SkipValue(depth)) return false;
  }
}

bool JsonScanner::ReadValue(JsonValue* value) {
  if (failed()) return false;
  SkipSpace();
  if (pos_ >= text_.size()) return Fail("unexpected end of input");
  const size_t start = pos_;
  switch (text_[pos_]) {
    case '{':
    case '[': {
      value->kind = text_[pos_] == '{' ? JsonKind::kObject : JsonKind::kArray;
      if (!SkipContainer(1)) return false;
      value->text = text_.substr(start, pos_ - start);
      return true;
    }
    case '"':
      value->kind = JsonKind::kString;
      return ReadString(&value->text, true);
    case 't':
      value->kind = JsonKind::kBool;
      value->bool_value = true;
      value->text = "true";
      return ReadLiteral("true");
    case 'f':
      value->kind = JsonKind::kBool;
      value->bool_value = false;
      value->text = "false";
      return ReadLiteral("false");
    case 'n':
      value->kind = JsonKind::kNull;
      value->text = "null";
      return ReadLiteral("null");
    default:
      return ReadNumber(value);
  }
}

bool JsonScanner::PeekObject() {
  SkipSpace();
  return pos_ < text_.size() && text_[pos_] == '{';
}

bool JsonScanner::SkipKnownValue(std::string_view known) {
  if (failed() || known.empty()) return false;
  SkipSpace();
  if (text_.size() - pos_ < known.size() ||
      std::memcmp(text_.data() + pos_, known.data(), known.size()) != 0) {
    return false;
  }
  pos_ += known.size();
  return true;
}

bool JsonScanner::EnterObject() {
  if (failed()) return false;
  SkipSpace();
  if (pos_ >= text_.size() || text_[pos_] != '{') return Fail("expected '{'");
  ++pos_;
  first_item_ = true;
  return true;
}

bool JsonScanner::EnterArray() {
  if (failed()) return false;
  SkipSpace();
  if (pos_ >= text_.size() || text_[pos_] != '[') return Fail("expected '['");
  ++pos_;
  first_item_ = true;
  return true;
}

JsonScanner::Step JsonScanner::NextItem(char close) {
  if (failed()) return Step::kError;
  SkipSpace();
  if (pos_ >= text_.size()) {
    Fail("unexpected end of input");
    return Step::kError;
  }
  if (text_[pos_] == close) {
    ++pos_;
    return Step::kEnd;
  }
  if (!first_item_) {
    if (text_[pos_] != ',') {
      Fail(close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
      return Step::kError;
    }
    ++pos_;
  }
  first_item_ = false;
  return Step::kItem;
}

JsonScanner::Step JsonScanner::NextMember(std::string_view* name) {
  Step step = NextItem('}');
  if (step != Step::kItem) return step;
  SkipSpace();
  if (pos_ >= text_.size() || text_[pos_] != '"') {
    Fail("expected a member name");
    return Step::kError;
  }
  if (!ReadString(name, true)) return Step::kError;
  SkipSpace();
  if (pos_ >= text_.size() || text_[pos_] != ':') {
    Fail("expected ':'");
    return Step::kError;
  }
  ++pos_;
  return Step::kItem;
}

JsonScanner::Step JsonScanner::NextElement() {
  return NextItem(']');
}

bool JsonScanner::AtEnd() {
  if (failed()) return false;
  SkipSpace();
  if (pos_ != text_.size()) return Fail("unexpected text after the value");
  return true;
}

}  // namespace cdclake::sources::internal
