// ReadAhead: runs a producer on a thread of its own, one item ahead of its consumer, so that
// reading the next batch (decoding a file) overlaps with work on the current one.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "base/result.h"

namespace cdclake {

/// Calls `produce` on a helper thread until it returns an error or nullopt (the end), keeping at
/// most one produced item waiting. Next() hands the items out in order, the end and the error
/// included; after those the producer is not called again. The destructor waits for a call in
/// progress and discards what was read ahead. The producer must not touch what the consumer
/// uses meanwhile; `Paused` runs a function while the producer is between calls.
template <typename T>
class ReadAhead {
 public:
  using Producer = std::function<Result<std::optional<T>>()>;

  explicit ReadAhead(Producer produce) : produce_(std::move(produce)) {}
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  ~ReadAhead() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  /// The next item (nullopt at the end), waiting for the producer if it is not there yet.
  Result<std::optional<T>> Next() {
    std::unique_lock<std::mutex> lock(mu_);
    if (finished_ && !ready_) return std::optional<T>();
    if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
    changed_.wait(lock, [this] { return ready_.has_value(); });
    Result<std::optional<T>> item = std::move(*ready_);
    ready_.reset();
    lock.unlock();
    changed_.notify_all();
    return item;
  }

  /// Runs `f` while no call of the producer is in progress (and none starts).
  template <typename F>
  auto Paused(F&& f) const {
    std::lock_guard<std::mutex> lock(producing_);
    return f();
  }

 private:
  void Run() {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [this] { return stop_ || !ready_.has_value(); });
        if (stop_) return;
      }
      std::optional<Result<std::optional<T>>> item;
      {
        std::lock_guard<std::mutex> lock(producing_);
        item.emplace(produce_());
      }
      const bool last = !item->ok() || !item->value().has_value();
      {
        std::lock_guard<std::mutex> lock(mu_);
        ready_ = std::move(item);
        finished_ = last;
      }
      changed_.notify_all();
      if (last) return;
    }
  }

  Producer produce_;
  std::mutex mu_;                 // guards ready_, finished_ and stop_
  mutable std::mutex producing_;  // held during a call of the producer
  std::condition_variable changed_;
  std::optional<Result<std::optional<T>>> ready_;
  bool finished_ = false;  // the end or an error was produced
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cdclake
