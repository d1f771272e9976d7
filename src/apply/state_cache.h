// StateCache: the most recently read or written key states, kept in memory up to a byte
// budget in front of the key index. Hot keys (and a batch replayed soon after it was applied)
// skip the index lookup.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cdclake::apply {

class StateCache {
 public:
  explicit StateCache(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  /// The cached value of `key`, or nullptr. Marks it most recently used.
  const std::string* Get(const std::string& key);
  /// Caches `value` for `key`, evicting the least recently used entries over the budget.
  void Put(const std::string& key, std::string value);
  void Erase(const std::string& key);
  void Clear();

  int64_t bytes() const { return bytes_; }
  int64_t capacity() const { return capacity_; }

  /// What an entry counts against the budget.
  static int64_t Cost(std::string_view key, std::string_view value) {
    return static_cast<int64_t>(key.size() + value.size() + 96);
  }

 private:
  using Entry = std::pair<std::string, std::string>;
  static int64_t Cost(const Entry& e) { return Cost(e.first, e.second); }

  int64_t capacity_;
  int64_t bytes_ = 0;
  std::list<Entry> order_;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> map_;
};

}  // namespace cdclake::apply
