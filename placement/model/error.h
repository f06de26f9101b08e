/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Errors are values. An Error has a stable name (e.g. "InvalidCpuList" or a Nova exception
// class such as "ImageNUMATopologyAsymmetric"), the kind of failure it is (error_kind.h; set by
// make_error from the register, so surfaces map kinds, not names) and a sentence a person can act
// on. Result<T> holds either a T or an Error; nothing in the core throws.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "placement/model/error_kind.h"

namespace numaplace {

struct Error {
  std::string name;
  std::string message;
  ErrorKind kind = ErrorKind::BadInput;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}      // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// For operations that yield nothing but may fail.
struct Done {};
using Status = Result<Done>;

// An Error of the registered kind of `name` (docs/errors.md lists them).
inline Error make_error(std::string name, std::string message) {
  const ErrorKind kind = error_kind_of(name);
  return Error{std::move(name), std::move(message), kind};
}

}  // namespace numaplace
