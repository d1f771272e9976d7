// Table names to folders under the warehouse directory.
#include "pipeline/warehouse.h"

#include <vector>

#include "base/strings.h"

namespace cdclake::pipeline {

namespace {

// The parts of `name` with a leading LIVE. dropped, each checked.
Result<std::vector<std::string>> NameParts(std::string_view name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    parts.emplace_back(name.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() > 1 && ToLower(parts[0]) == "live") parts.erase(parts.begin());
  if (parts.size() > 3) {
    return Status::InvalidArgument("table name '" + std::string(name) +
                                   "' has more than three parts (catalog.schema.table)");
  }
  for (const std::string& p : parts) {
    if (p.empty() || p == "." || p == ".." || p.find_first_of("/\\") != std::string::npos ||
        p[0] == '_') {
      return Status::InvalidArgument("table name '" + std::string(name) + "': '" + p +
                                     "' cannot name a folder (empty, a path, or starting with _)");
    }
  }
  return parts;
}

}  // namespace

std::string EventLogFolder(const std::string& warehouse) {
  return Warehouse(warehouse).root() + "/_event_log";
}

Warehouse::Warehouse(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = ".";
}

Result<std::string> Warehouse::TableFolder(std::string_view name) const {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<std::string> parts, NameParts(name));
  std::string folder = root_;
  if (parts.size() == 1) folder += "/default";
  for (const std::string& p : parts) folder += "/" + p;
  return folder;
}

Result<std::string> Warehouse::CanonicalName(std::string_view name) const {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<std::string> parts, NameParts(name));
  std::string out = parts.size() == 1 ? "default" : "";
  for (const std::string& p : parts) out += (out.empty() ? "" : ".") + p;
  return out;
}

}  // namespace cdclake::pipeline
