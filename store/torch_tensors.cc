#include "store/torch_tensors.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace lpsim {

const char* const kTorchFilesRead =
    "lpsim reads files written by torch::save, torch.jit.save and torch.save; or save the tensors with numpy.save";

namespace {

class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) {}
  bool Bytes(const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      const ssize_t w = ::write(fd_, c, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      c += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }
  bool U64(uint64_t v) { return Bytes(&v, sizeof v); }
  bool Str(const std::string& s) { return U64(s.size()) && Bytes(s.data(), s.size()); }

 private:
  int fd_;
};

class Reader {
 public:
  explicit Reader(int fd) : fd_(fd) {}
  bool Bytes(void* p, size_t n) {
    char* c = static_cast<char*>(p);
    while (n > 0) {
      const ssize_t r = ::read(fd_, c, n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      c += r;
      n -= static_cast<size_t>(r);
    }
    return true;
  }
  bool U64(uint64_t* v) { return Bytes(v, sizeof *v); }
  // A length from the child is believed only up to `max`.
  bool Str(std::string* s, uint64_t max) {
    uint64_t n = 0;
    if (!U64(&n) || n > max) return false;
    s->resize(n);
    return Bytes(s->data(), n);
  }

 private:
  int fd_;
};

constexpr uint64_t kMaxText = 1 << 20, kMaxCount = uint64_t{1} << 32, kMaxNumel = uint64_t{1} << 40;

// Reads the answer; false when it is cut short or out of bounds.
bool Receive(int fd, StatusOr<TorchFile>* out) {
  Reader r(fd);
  uint8_t ok = 0;
  if (!r.Bytes(&ok, 1)) return false;
  if (!ok) {
    std::string msg;
    if (!r.Str(&msg, kMaxText)) return false;
    *out = Status::Error(msg);
    return true;
  }
  TorchFile f;
  uint64_t n = 0;
  if (!r.U64(&n) || n > kMaxCount) return false;
  for (uint64_t i = 0; i < n; ++i) {
    TorchTensor t;
    uint64_t dims = 0, numel = 0;
    if (!r.Str(&t.name, kMaxText) || !r.Str(&t.dtype, kMaxText) || !r.U64(&dims) || dims > 64) return false;
    t.shape.resize(dims);
    for (int64_t& d : t.shape) {
      uint64_t v = 0;
      if (!r.U64(&v)) return false;
      d = static_cast<int64_t>(v);
    }
    if (!r.U64(&numel) || numel > kMaxNumel) return false;
    t.data.resize(numel);
    if (!r.Bytes(t.data.data(), numel * sizeof(float))) return false;
    f.tensors.push_back(std::move(t));
  }
  if (!r.U64(&n) || n > kMaxCount) return false;
  f.notes.resize(n);
  for (std::string& note : f.notes) {
    if (!r.Str(&note, kMaxText)) return false;
  }
  *out = std::move(f);
  return true;
}

}  // namespace

bool SendTorchFile(int fd, const StatusOr<TorchFile>& f) {
  Writer w(fd);
  const uint8_t ok = f.ok() ? 1 : 0;
  if (!w.Bytes(&ok, 1)) return false;
  if (!f.ok()) return w.Str(f.status().message());
  if (!w.U64(f->tensors.size())) return false;
  for (const TorchTensor& t : f->tensors) {
    if (!w.Str(t.name) || !w.Str(t.dtype) || !w.U64(t.shape.size())) return false;
    for (int64_t d : t.shape) {
      if (!w.U64(static_cast<uint64_t>(d))) return false;
    }
    if (!w.U64(t.data.size()) || !w.Bytes(t.data.data(), t.data.size() * sizeof(float))) return false;
  }
  if (!w.U64(f->notes.size())) return false;
  for (const std::string& n : f->notes) {
    if (!w.Str(n)) return false;
  }
  return true;
}

StatusOr<TorchFile> ReceiveTorchFile(int fd, pid_t child, const std::string& path) {
  StatusOr<TorchFile> out = Status::Error(path + ": no answer");
  const bool complete = Receive(fd, &out);
  ::close(fd);
  int wstatus = 0;
  while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (complete && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return out;
  const std::string how = WIFSIGNALED(wstatus) ? "crashed (signal " + std::to_string(WTERMSIG(wstatus)) + ")"
                                               : "failed (exit status " + std::to_string(WEXITSTATUS(wstatus)) + ")";
  return Status::Error(path + ": corrupt or unsupported LibTorch file (LibTorch " + how + " while reading it). " +
                       kTorchFilesRead);
}

}  // namespace lpsim
