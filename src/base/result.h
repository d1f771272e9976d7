// Result<T>: a value or an error Status, and the macros that propagate errors.
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "base/status.h"

namespace cdclake {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!status_.ok() && "Result built from an ok Status");
    if (status_.ok()) status_ = Status::Internal("Result built from an ok Status");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok()
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

  T ValueOr(T fallback) const& { return ok() ? *value_ : std::move(fallback); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace cdclake

#define CDCLAKE_CONCAT_INNER(a, b) a##b
#define CDCLAKE_CONCAT(a, b) CDCLAKE_CONCAT_INNER(a, b)

/// Returns the Status from the enclosing function when `expr` is an error.
#define CDCLAKE_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    ::cdclake::Status cdclake_status_ = (expr);        \
    if (!cdclake_status_.ok()) return cdclake_status_; \
  } while (false)

#define CDCLAKE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                  \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

/// `CDCLAKE_ASSIGN_OR_RETURN(auto x, MakeX());` declares x or returns the error.
#define CDCLAKE_ASSIGN_OR_RETURN(lhs, rexpr) \
  CDCLAKE_ASSIGN_OR_RETURN_IMPL(CDCLAKE_CONCAT(cdclake_result_, __LINE__), lhs, rexpr)
