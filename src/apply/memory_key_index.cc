// MemoryKeyIndex: the KeyIndex held in an ordered std::map, for tests and for tables whose
// index cannot live in a local folder. Nothing survives the process. Not synchronized: one
// caller at a time (a Scan's visitor may itself call Get or Write).
#include <map>

#include "apply/key_index.h"

namespace cdclake::apply {
namespace {

class MemoryKeyIndex final : public KeyIndex {
 public:
  Result<std::optional<std::string>> Get(std::string_view key) override {
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }

  Status MultiGet(std::span<const std::string> keys,
                  std::vector<std::optional<std::string>>* out) override {
    out->clear();
    out->resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      auto it = entries_.find(keys[i]);
      if (it != entries_.end()) (*out)[i] = it->second;
    }
    return Status::OK();
  }

  // Puts first, then deletes, as in the RocksDB index: a key both put and deleted ends absent.
  Status Write(const IndexWriteBatch& batch) override {
    for (const auto& [key, value] : batch.puts) entries_.insert_or_assign(key, value);
    for (const std::string& key : batch.deletes) entries_.erase(key);
    return Status::OK();
  }

  Status Scan(std::string_view prefix,
              const std::function<bool(std::string_view, std::string_view)>& visit) override {
    // The visitor may change the map, so each step seeks again past the key it was shown.
    std::string last;
    for (auto it = entries_.lower_bound(prefix); it != entries_.end();
         it = entries_.upper_bound(last)) {
      if (!std::string_view(it->first).starts_with(prefix)) break;
      last = it->first;
      if (!visit(it->first, it->second)) break;
    }
    return Status::OK();
  }

 private:
  std::map<std::string, std::string, std::less<>> entries_;
};

}  // namespace

std::unique_ptr<KeyIndex> NewMemoryKeyIndex() {
  return std::make_unique<MemoryKeyIndex>();
}

}  // namespace cdclake::apply
