// ${name} substitution: a small scanner that knows where comments start and end so that a
// commented-out reference is left alone.
#include "sql/pipeline_variables.h"

#include "sql/lexer.h"

namespace cdclake::sql {

namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

}  // namespace

Result<std::string> SubstituteVariables(std::string_view text,
                                        const std::map<std::string, std::string>& variables) {
  std::string out;
  out.reserve(text.size());
  char quote = 0;  // the quote character while inside a string or quoted identifier
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (quote == 0 && text.substr(i, 2) == "--") {
      size_t end = text.find('\n', i);
      if (end == std::string_view::npos) end = text.size();
      out.append(text.substr(i, end - i));
      i = end;
      continue;
    }
    if (quote == 0 && text.substr(i, 2) == "/*") {
      size_t end = text.find("*/", i + 2);
      end = end == std::string_view::npos ? text.size() : end + 2;  // the lexer reports it
      out.append(text.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      size_t name_start = i + 2;
      size_t name_end = name_start;
      while (name_end < text.size() && IsNameChar(text[name_end])) ++name_end;
      if (name_end >= text.size() || text[name_end] != '}') {
        return SyntaxError(text, i, "'${' without a closing '}' after a variable name");
      }
      std::string name(text.substr(name_start, name_end - name_start));
      if (name.empty()) return SyntaxError(text, i, "empty variable reference '${}'");
      auto it = variables.find(name);
      if (it == variables.end()) {
        return SyntaxError(text, i, "undefined variable '" + name + "'");
      }
      out.append(it->second);
      i = name_end + 1;
      continue;
    }
    if (quote == 0 && (c == '\'' || c == '"' || c == '`')) {
      quote = c;
    } else if (quote != 0 && c == quote) {
      quote = 0;  // a doubled quote closes and reopens, which scans the same
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

}  // namespace cdclake::sql
