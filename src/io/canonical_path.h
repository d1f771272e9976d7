// Canonical paths: one spelling for one place in a file system, so that a flow's source is
// identified by what it is rather than by how a command line wrote it.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "io/file_system.h"

namespace cdclake::io {

/// `path` without empty and "." parts, each ".." removing the part before it ("a/./b//../c/" ->
/// "a/c"; a ".." at the root is dropped, leading ".." of a relative path kept; "" for ".").
std::string LexicalNormal(std::string_view path);

/// What `path` (a file, a folder or a glob) names in `fs`, spelled one way. For a
/// LocalFileSystem: absolute (against the working folder), lexically normal, with symbolic links
/// resolved (realpath(3)) in the longest part that exists and holds no glob character (`*`,
/// `?`, `[`); the rest follows as written. For other file systems (MemoryFileSystem, whose paths
/// are names, not places): LexicalNormal.
Result<std::string> Canonical(const FileSystem& fs, const std::string& path);

}  // namespace cdclake::io
