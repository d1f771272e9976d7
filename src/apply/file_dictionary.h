// FileDictionary: small numbers for the target's data-file paths, so that each key's row
// locations in the key index hold a varint rather than a 60-byte file name. Entries live in
// the key index (`F<id>` -> path) and travel in the index log like every other entry.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "apply/key_index.h"
#include "base/result.h"

namespace cdclake::apply {

class FileDictionary {
 public:
  /// Reads every entry of `index`.
  Status Load(KeyIndex& index);

  /// The id of `path`; a new one is assigned (and its entry added to `batch`) when absent.
  uint32_t IdOf(const std::string& path, IndexWriteBatch* batch);

  /// The path of `id`; kCorrupt when the index has no such file.
  Result<std::string> PathOf(uint32_t id) const;

 private:
  std::vector<std::string> paths_;  // by id; ids are dense from 0
  std::unordered_map<std::string, uint32_t> ids_;
};

}  // namespace cdclake::apply
