// HeapValue<T>: a T that takes heap memory only once it is set, with value semantics (copies
// copy the T). For a member most objects leave at its default: an unset one costs a pointer.
#pragma once

#include <memory>

namespace cdclake {

template <class T>
class HeapValue {
 public:
  HeapValue() = default;
  HeapValue(const HeapValue& o) : value_(o.value_ ? std::make_unique<T>(*o.value_) : nullptr) {}
  HeapValue(HeapValue&&) noexcept = default;
  HeapValue& operator=(const HeapValue& o) {
    if (this != &o) value_ = o.value_ ? std::make_unique<T>(*o.value_) : nullptr;
    return *this;
  }
  HeapValue& operator=(HeapValue&&) noexcept = default;
  ~HeapValue() = default;

  /// The value; a default T when never set (reading never allocates).
  const T& operator*() const { return value_ ? *value_ : Default(); }
  const T* operator->() const { return &**this; }
  /// The value to change, made from a default T on first use.
  T& mut() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }
  /// Back to the default, freeing the memory.
  void reset() { value_.reset(); }

  bool operator==(const HeapValue& o) const { return **this == *o; }

 private:
  static const T& Default() {
    static const T kDefault{};
    return kDefault;
  }
  std::unique_ptr<T> value_;
};

}  // namespace cdclake
