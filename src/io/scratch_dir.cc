// ScratchDir: mkdtemp to create, std::filesystem::remove_all (non-throwing form) to remove.
#include "io/scratch_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <vector>

namespace cdclake::io {

Result<ScratchDir> ScratchDir::Create(std::string_view prefix) {
  if (prefix.find('/') != std::string_view::npos) {
    return Status::InvalidArgument("scratch folder prefix must not contain '/'");
  }
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / std::string(prefix)).string() + "XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    return Status::IoError("create scratch folder " + pattern + ": " +
                           std::error_code(errno, std::generic_category()).message());
  }
  return ScratchDir(std::string(buffer.data()));
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

ScratchDir::~ScratchDir() {
  Remove();
}

void ScratchDir::Remove() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);  // best effort
  path_.clear();
}

}  // namespace cdclake::io
