// StateCache: an LRU list with a hash map into it.
#include "apply/state_cache.h"

namespace cdclake::apply {

const std::string* StateCache::Get(const std::string& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second);
  return &it->second->second;
}

void StateCache::Put(const std::string& key, std::string value) {
  Erase(key);
  if (capacity_ <= 0) return;
  order_.emplace_front(key, std::move(value));
  bytes_ += Cost(order_.front());
  map_[key] = order_.begin();
  while (bytes_ > capacity_ && !order_.empty()) {
    bytes_ -= Cost(order_.back());
    map_.erase(order_.back().first);
    order_.pop_back();
  }
}

void StateCache::Erase(const std::string& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return;
  bytes_ -= Cost(*it->second);
  order_.erase(it->second);
  map_.erase(it);
}

void StateCache::Clear() {
  order_.clear();
  map_.clear();
  bytes_ = 0;
}

}  // namespace cdclake::apply
