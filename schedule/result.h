// Result<T>: the value-or-error type that crosses folder boundaries.
//
// Library code never throws across a layer and never prints: a failing operation returns an
// Error carrying a one-line, user-facing message, and the caller (ultimately the CLI) decides
// what to show. Modelled on llvm::Expected, without its must-check machinery.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tessera {

struct Error {
  std::string message;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}              // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}          // NOLINT: implicit by design

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(data_); }
  const T& value() const& { assert(ok()); return std::get<0>(data_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(data_); }

 private:
  std::variant<T, Error> data_;
};

// Result<void>: success carries nothing.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace tessera
