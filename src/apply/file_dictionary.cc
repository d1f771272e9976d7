// FileDictionary: `F` + 4-byte big-endian id -> path entries of the key index.
#include "apply/file_dictionary.h"

namespace cdclake::apply {
namespace {

constexpr char kFilePrefix = 'F';

std::string Entry(uint32_t id) {
  std::string out(1, kFilePrefix);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(id >> shift));
  return out;
}

}  // namespace

Status FileDictionary::Load(KeyIndex& index) {
  paths_.clear();
  ids_.clear();
  Status bad;
  CDCLAKE_RETURN_IF_ERROR(
      index.Scan(std::string(1, kFilePrefix), [&](std::string_view entry, std::string_view path) {
        if (entry.size() != 5) {
          bad = Status::Corrupt("key index: bad file entry");
          return false;
        }
        uint32_t id = 0;
        for (int i = 1; i <= 4; ++i) id = (id << 8) | static_cast<uint8_t>(entry[i]);
        if (id >= paths_.size()) paths_.resize(id + 1);
        paths_[id] = std::string(path);
        ids_[paths_[id]] = id;
        return true;
      }));
  return bad;
}

uint32_t FileDictionary::IdOf(const std::string& path, IndexWriteBatch* batch) {
  if (auto it = ids_.find(path); it != ids_.end()) return it->second;
  auto id = static_cast<uint32_t>(paths_.size());
  paths_.push_back(path);
  ids_[path] = id;
  batch->puts.emplace_back(Entry(id), path);
  return id;
}

Result<std::string> FileDictionary::PathOf(uint32_t id) const {
  if (id >= paths_.size() || paths_[id].empty()) {
    return Status::Corrupt("key index: row location in unknown file #" + std::to_string(id));
  }
  return paths_[id];
}

}  // namespace cdclake::apply
