// ScratchDir: a fresh folder under the system's temporary folder, removed with everything in it
// when the ScratchDir goes away. For tests and tools that need real files.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace cdclake::io {

class ScratchDir {
 public:
  /// Creates "<TMPDIR or /tmp>/<prefix>XXXXXX" (mkdtemp). `prefix` must not contain '/'.
  static Result<ScratchDir> Create(std::string_view prefix = "cdclake-");

  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&& other) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  /// The folder's absolute path, without a trailing '/'.
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  void Remove();

  std::string path_;  // empty once moved from
};

}  // namespace cdclake::io
