// The parts of FileSystem every implementation shares: whole-file reads and writes built on
// OpenRead/OpenWrite, and JoinPath.
#include "io/file_system.h"

namespace cdclake::io {

Result<std::string> FileSystem::ReadFile(const std::string& path) const {
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file, OpenRead(path));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  std::string data;
  CDCLAKE_RETURN_IF_ERROR(file->ReadAt(0, size, &data));
  return data;
}

Status FileSystem::WriteFile(const std::string& path, std::string_view data) {
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<OutputStream> stream, OpenWrite(path));
  CDCLAKE_RETURN_IF_ERROR(stream->Append(data));
  return stream->Close();
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  // Keep a lone "/" (the root) but drop any other trailing separators of `a`.
  while (a.size() > 1 && a.back() == '/') a.remove_suffix(1);
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  std::string out(a);
  if (out.back() != '/' && !b.empty()) out.push_back('/');
  out.append(b);
  return out;
}

}  // namespace cdclake::io
