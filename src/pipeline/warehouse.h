// Warehouse: where a pipeline's tables live — a table name (`c.s.t`, `s.t`, `t`, with an
// optional `LIVE.` prefix) mapped to its folder under the warehouse directory.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace cdclake::pipeline {

/// The folder of the pipeline's event log table under `warehouse`: `<warehouse>/_event_log`.
std::string EventLogFolder(const std::string& warehouse);

class Warehouse {
 public:
  /// `root` is the warehouse directory (`--warehouse`, default `./lake`); a trailing `/` is
  /// dropped.
  explicit Warehouse(std::string root);

  const std::string& root() const { return root_; }

  /// The folder of table `name`: `c.s.t` → `<root>/c/s/t`, `s.t` → `<root>/s/t`, `t` →
  /// `<root>/default/t`. A leading `LIVE.` (the legacy DLT prefix) is dropped. Each part must be
  /// a plain name: not empty, no `/` or `\`, not `.` or `..`, not starting with `_` (folders
  /// starting with `_` belong to Delta and cdclake); more than three parts is an error.
  Result<std::string> TableFolder(std::string_view name) const;

  /// The canonical name of `name`: `LIVE.` dropped, parts as written, `default.` added for a
  /// bare table name (so `t` and `default.t` are the same table).
  Result<std::string> CanonicalName(std::string_view name) const;

 private:
  std::string root_;
};

}  // namespace cdclake::pipeline
