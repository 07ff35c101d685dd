// Status and StatusOr: recoverable errors returned from library code.
//
// Numeric code never fails (out-of-range behaviour is a policy); what can fail
// is input from a person or a file: a format spec, a .npy header, a CLI flag.
// Those return a Status whose message says what is wrong and what to do.
//
//   StatusOr<Format> f = ParseFormat("e4m3:bias=x");
//   if (!f.ok()) { std::cerr << f.status().message() << "\n"; return 2; }
#ifndef LPSIM_FORMATS_STATUS_H_
#define LPSIM_FORMATS_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace lpsim {

class Status {
 public:
  Status() = default;  // ok
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !message_.has_value(); }
  const std::string& message() const {
    static const std::string kOk = "ok";
    return message_ ? *message_ : kOk;
  }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
};

template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}            // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {     // NOLINT
    assert(!status_.ok() && "StatusOr needs a value or an error");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace lpsim

#endif  // LPSIM_FORMATS_STATUS_H_
