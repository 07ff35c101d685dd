// Status and StatusOr: recoverable errors returned from library code.
//
// Numeric code never fails (out-of-range behaviour is a policy); what can fail
// is input from a person or a file (a format spec, a .npy header, a CLI flag)
// or the machine (a disk that is full, a directory that cannot be written).
// A Status carries which of the two it is, so every caller, the CLI's exit
// code included, decides from the error itself and not from its call site,
// and a message that says what is wrong and what to do.
//
//   StatusOr<Format> f = ParseFormat("e4m3:bias=x");
//   if (!f.ok()) { std::cerr << f.status().message() << "\n"; return ExitCode(f.status()); }
//
// Header-only: formats/ (std only) uses it as well as every layer above.
#ifndef LPSIM_CORE_STATUS_H_
#define LPSIM_CORE_STATUS_H_

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace lpsim {

enum class StatusCode : unsigned char {
  kOk = 0,
  kInvalidInput,  // the input is wrong: a flag, a spec, a malformed or corrupt file
  kFailed,        // the machine or environment failed: I/O error, disk full, no memory
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  // Bad input (what most errors are): the person can fix it.
  static Status Error(std::string message) {
    return Status(StatusCode::kInvalidInput, std::move(message));
  }
  // The environment failed although the input was fine.
  static Status Failed(std::string message) {
    return Status(StatusCode::kFailed, std::move(message));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const {
    static const std::string kOk = "ok";
    return ok() ? kOk : message_;
  }
  // The same error with `prefix` before its message (its code kept).
  Status Prefixed(const std::string& prefix) const {
    return ok() ? *this : Status(code_, prefix + message_);
  }

 private:
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// The process exit code for a status: 0 ok, 2 bad input, 1 failure.
inline int ExitCode(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return 0;
    case StatusCode::kInvalidInput: return 2;
    case StatusCode::kFailed: return 1;
  }
  return 1;
}

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status::Failed("internal error: StatusOr made from an ok Status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  // On an error these abort with its message: reading a value that is not
  // there is a bug in the caller, never undefined behaviour.
  const T& value() const& { return Checked(), *value_; }
  T& value() & { return Checked(), *value_; }
  T&& value() && { return Checked(), std::move(*value_); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  void Checked() const {
    if (!value_) {
      std::fprintf(stderr, "lpsim: internal error: value() of a failed StatusOr: %s\n",
                   status_.message().c_str());
      std::abort();
    }
  }
  std::optional<T> value_;
  Status status_;
};

}  // namespace lpsim

#endif  // LPSIM_CORE_STATUS_H_
