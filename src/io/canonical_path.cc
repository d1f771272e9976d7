// Canonical paths: lexical normalization, and for local files absolute paths with symbolic links
// resolved.
#include "io/canonical_path.h"

#include <stdlib.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "io/local_file_system.h"

namespace cdclake::io {

namespace {

// Absolute, normal, links resolved in the longest existing part before any glob character.
Result<std::string> LocalCanonical(const std::string& path) {
  std::string absolute = path;
  if (absolute.empty() || absolute.front() != '/') {
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (ec) return Status::IoError("cannot tell the working folder: " + ec.message());
    absolute = cwd.string() + "/" + path;
  }
  // The parts before the first one holding a glob character may be resolved; the rest is kept.
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= absolute.size()) {
    size_t end = absolute.find('/', start);
    if (end == std::string::npos) end = absolute.size();
    if (end > start) parts.push_back(absolute.substr(start, end - start));
    start = end + 1;
  }
  size_t plain = 0;
  while (plain < parts.size() && parts[plain].find_first_of("*?[") == std::string::npos) ++plain;
  // The longest existing prefix of the plain parts, resolved.
  for (size_t n = plain; n > 0; --n) {
    std::string prefix;
    for (size_t i = 0; i < n; ++i) prefix += "/" + parts[i];
    char* resolved = realpath(prefix.c_str(), nullptr);
    if (resolved == nullptr) continue;
    std::string out = resolved;
    free(resolved);
    for (size_t i = n; i < parts.size(); ++i) out += "/" + parts[i];
    return LexicalNormal(out);
  }
  return LexicalNormal(absolute);
}

}  // namespace

std::string LexicalNormal(std::string_view path) {
  const bool absolute = !path.empty() && path.front() == '/';
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
        continue;
      }
      if (absolute) continue;  // "/.." is "/"
    }
    parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out.push_back('/');
    out.append(parts[i]);
  }
  return out;
}

Result<std::string> Canonical(const FileSystem& fs, const std::string& path) {
  if (dynamic_cast<const LocalFileSystem*>(&fs) != nullptr) return LocalCanonical(path);
  return LexicalNormal(path);
}

}  // namespace cdclake::io
