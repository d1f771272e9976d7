// Status and StatusCode: errors as values, the only way failures travel in cdclake.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace cdclake {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller asked for something malformed
  kCorrupt,          // input bytes do not follow their format
  kNotFound,
  kAlreadyExists,
  kIoError,
  kNotSupported,  // a valid feature we do not implement
  kConflict,      // a lost optimistic-commit race; callers may retry
  kOutOfRange,
  kInternal,
};

/// The name of a code, as printed in messages ("corrupt", "not supported").
std::string_view StatusCodeName(StatusCode code);

/// A success or an error with a code and a message. Cheap to copy when ok.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(StatusCode::kInvalidArgument, std::move(msg));
  }
  static Status Corrupt(std::string msg) { return Status(StatusCode::kCorrupt, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(StatusCode::kNotFound, std::move(msg)); }
  static Status AlreadyExists(std::string msg) {
    return Status(StatusCode::kAlreadyExists, std::move(msg));
  }
  static Status IoError(std::string msg) { return Status(StatusCode::kIoError, std::move(msg)); }
  static Status NotSupported(std::string msg) {
    return Status(StatusCode::kNotSupported, std::move(msg));
  }
  static Status Conflict(std::string msg) { return Status(StatusCode::kConflict, std::move(msg)); }
  static Status OutOfRange(std::string msg) {
    return Status(StatusCode::kOutOfRange, std::move(msg));
  }
  static Status Internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  /// "corrupt: <message>", or "ok".
  std::string ToString() const;

  /// The same status with `context` put in front of the message ("file.parquet: ...").
  Status WithContext(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace cdclake
