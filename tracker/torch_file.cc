#include "tracker/torch_file.h"

#include <sys/wait.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/serialize.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "store/torch_archive.h"

namespace lpsim {

namespace {

enum class FileKind { kZip, kPickle, kOther };

constexpr const char* kWhatWeRead =
    "lpsim reads files written by torch::save, torch.jit.save and torch.save; or save the tensors with numpy.save";

FileKind Sniff(const std::string& b) {
  if (b.size() >= 4 && std::memcmp(b.data(), "PK\x03\x04", 4) == 0) return FileKind::kZip;
  if (b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x80 && b[1] >= 2 && b[1] <= 5) {
    return FileKind::kPickle;
  }
  return FileKind::kOther;
}

// The first line of a c10::Error (the rest is a C++ backtrace nobody can act on).
std::string FirstLine(const char* what) {
  std::string s(what);
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

// Whether a tensor's sizes and strides stay inside its storage. LibTorch
// does not check this when it rebuilds a tensor from a file's pickle, so a
// corrupt file gives tensors that reach past their data (found by
// fuzz/torch_file_fuzz.cc); reading one reads out of bounds.
bool FitsItsStorage(const at::Tensor& t) {
  if (!t.has_storage() || t.storage_offset() < 0) return false;
  constexpr int64_t kMaxExtent = int64_t{1} << 48;  // no real tensor comes near
  unsigned __int128 last = static_cast<uint64_t>(t.storage_offset());
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t size = t.sizes()[static_cast<size_t>(d)], stride = t.strides()[static_cast<size_t>(d)];
    if (size == 0) return true;  // no element
    if (size < 0 || stride < 0 || size > kMaxExtent || stride > kMaxExtent) return false;
    last += static_cast<unsigned __int128>(size - 1) * static_cast<uint64_t>(stride);
  }
  const unsigned __int128 need = (last + 1) * static_cast<uint64_t>(t.element_size());
  return need <= t.storage().nbytes();
}

class Collector {
 public:
  explicit Collector(TorchFile* out) : out_(out) {}
  // Set when a tensor could not be read safely: the file is corrupt.
  const std::string& error() const { return error_; }

  void Add(const std::string& name, const at::Tensor& t) {
    if (!t.defined()) {
      out_->notes.push_back(name + ": undefined tensor, skipped");
      return;
    }
    if (t.is_sparse() || t.is_quantized() || t.layout() != at::kStrided) {
      out_->notes.push_back(name + ": sparse or quantized tensor, skipped (only dense floating-point tensors are analyzed)");
      return;
    }
    const at::ScalarType type = t.scalar_type();
    if (type != at::kFloat && type != at::kBFloat16 && type != at::kHalf && type != at::kDouble) {
      out_->notes.push_back(name + ": dtype " + std::string(c10::toString(type)) +
                            " is not float32/float64/bfloat16/float16, skipped");
      return;
    }
    if (!FitsItsStorage(t)) {
      if (error_.empty()) error_ = name + ": its shape " + c10::str(t.sizes()) + " reaches past its stored data";
      return;
    }
    // bf16 and fp16 widen exactly; fp64 rounds once to nearest even.
    at::Tensor f = t.detach().to(at::kCPU).to(at::kFloat).contiguous();
    TorchTensor tt;
    tt.name = name;
    tt.shape = f.sizes().vec();
    tt.dtype = type == at::kFloat      ? "float32"
               : type == at::kDouble   ? "float64"
               : type == at::kBFloat16 ? "bfloat16"
                                       : "float16";
    const float* p = f.data_ptr<float>();
    tt.data.assign(p, p + f.numel());
    out_->tensors.push_back(std::move(tt));
  }

  // A pickled value: a tensor, or dicts / lists / tuples of them.
  void Walk(const std::string& name, const c10::IValue& v, int depth) {
    auto join = [&](const std::string& key) { return name.empty() ? key : name + "." + key; };
    if (depth > 64) {
      out_->notes.push_back(name + ": nested too deeply, skipped");
    } else if (v.isTensor()) {
      Add(name.empty() ? "0" : name, v.toTensor());
    } else if (v.isGenericDict()) {
      for (const auto& kv : v.toGenericDict()) {
        const c10::IValue& k = kv.key();
        std::string key = k.isString() ? k.toStringRef() : k.isInt() ? std::to_string(k.toInt()) : "?";
        Walk(join(key), kv.value(), depth + 1);
      }
    } else if (v.isList()) {
      const auto list = v.toList();
      for (size_t i = 0; i < list.size(); ++i) Walk(join(std::to_string(i)), list.get(i), depth + 1);
    } else if (v.isTuple()) {
      const auto& elems = v.toTupleRef().elements();
      for (size_t i = 0; i < elems.size(); ++i) Walk(join(std::to_string(i)), elems[i], depth + 1);
    } else if (v.isTensorList()) {
      const auto list = v.toTensorList();
      for (size_t i = 0; i < list.size(); ++i) Add(join(std::to_string(i)), list.get(i));
    } else if (!v.isNone()) {
      out_->notes.push_back((name.empty() ? std::string("(top level)") : name) + ": a " +
                            v.tagKind() + ", not a tensor, skipped");
    }
  }

 private:
  TorchFile* out_;
  std::string error_;
};

Status Corrupt(const std::string& path, const std::string& why) {
  return Status::Error(path + ": corrupt or unsupported LibTorch file (" + why + "). " + kWhatWeRead);
}

// Loads the tensors with LibTorch, in this process. `bytes` passed
// CheckTorchArchive.
StatusOr<TorchFile> LoadInProcess(const std::string& bytes, FileKind kind, const std::string& path) {
  TorchFile out;
  Collector collect(&out);
  std::string script_error;
  if (kind == FileKind::kZip) {
    // torch::save(tensor | vector<Tensor> | module) writes a TorchScript
    // archive: a module whose parameters / buffers / submodules are the keys.
    try {
      std::istringstream in(bytes);
      torch::jit::Module m = torch::jit::load(in, torch::kCPU);
      for (const auto& attr : m.named_attributes(/*recurse=*/true)) {
        if (attr.value.isTensor()) collect.Add(attr.name, attr.value.toTensor());
      }
      if (!collect.error().empty()) return Corrupt(path, collect.error());
      return out;
    } catch (const std::exception& e) {
      script_error = FirstLine(e.what());
    }
  }
  // Python's torch.save (and torch::pickle_save): a pickle of tensors.
  try {
    const c10::IValue v = torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
    out = TorchFile();
    collect.Walk("", v, 0);
    if (!collect.error().empty()) return Corrupt(path, collect.error());
    return out;
  } catch (const std::exception& e) {
    const std::string pickle_error = FirstLine(e.what());
    std::string why = script_error.empty() ? pickle_error : script_error;
    if (!script_error.empty() && pickle_error != script_error) why += "; as a pickle: " + pickle_error;
    return Corrupt(path, why);
  }
}

// The child's answer on the pipe: a status byte, then the message, or the
// tensors and notes. Integers in host order (the same program on both ends).
class PipeWriter {
 public:
  explicit PipeWriter(int fd) : fd_(fd) {}
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

class PipeReader {
 public:
  explicit PipeReader(int fd) : fd_(fd) {}
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

void Answer(int fd, const StatusOr<TorchFile>& f) {
  PipeWriter w(fd);
  const uint8_t ok = f.ok() ? 1 : 0;
  if (!w.Bytes(&ok, 1)) return;
  if (!f.ok()) {
    w.Str(f.status().message());
    return;
  }
  if (!w.U64(f->tensors.size())) return;
  for (const TorchTensor& t : f->tensors) {
    if (!w.Str(t.name) || !w.Str(t.dtype) || !w.U64(t.shape.size())) return;
    for (int64_t d : t.shape) {
      if (!w.U64(static_cast<uint64_t>(d))) return;
    }
    if (!w.U64(t.data.size()) || !w.Bytes(t.data.data(), t.data.size() * sizeof(float))) return;
  }
  if (!w.U64(f->notes.size())) return;
  for (const std::string& n : f->notes) {
    if (!w.Str(n)) return;
  }
}

// Reads the child's answer; false when it is cut short (the child died).
bool Receive(int fd, StatusOr<TorchFile>* out) {
  PipeReader r(fd);
  constexpr uint64_t kMaxText = 1 << 20, kMaxCount = uint64_t{1} << 32, kMaxNumel = uint64_t{1} << 40;
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

StatusOr<TorchFile> ReadTorchFile(const std::string& path) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::Error(path + ": cannot open for reading");
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) return Status::Error(path + ": read failed");
  }
  const FileKind kind = Sniff(bytes);
  if (kind != FileKind::kZip && kind != FileKind::kPickle) {
    return Status::Error(path + ": not a LibTorch file (expected the zip archive torch::save or "
                                "torch.jit.save writes, or a torch.save pickle)");
  }
  // LibTorch allocates whatever sizes the file states; refuse those that do
  // not fit in the file before it reads them.
  if (Status st = CheckTorchArchive(bytes); !st.ok()) return Status::Error(path + ": " + st.message());
  // Loading a TorchScript archive compiles the Python source inside it, and
  // LibTorch's compiler reads out of bounds on some malformed sources (found
  // by fuzz/torch_file_fuzz.cc). It runs in a child process, so that a crash
  // there is an error about the file, not a crash of lpsim.
  int fds[2];
  if (::pipe(fds) != 0) return Status::Failed(path + ": cannot create a pipe: " + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Status::Failed(path + ": cannot fork to read it: " + std::strerror(errno));
  }
  if (pid == 0) {
    // A fault in LibTorch ends the child quietly (no handler of the parent's,
    // such as a sanitizer's or a fuzzer's, reports it as lpsim's).
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) std::signal(sig, SIG_DFL);
    ::close(fds[0]);
    Answer(fds[1], LoadInProcess(bytes, kind, path));
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  StatusOr<TorchFile> out = Status::Error(path + ": no answer");
  const bool complete = Receive(fds[0], &out);
  ::close(fds[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (complete && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return out;
  const std::string how =
      WIFSIGNALED(wstatus) ? "crashed (signal " + std::to_string(WTERMSIG(wstatus)) + ")" : "failed";
  return Corrupt(path, "LibTorch " + how + " while reading it");
}

}  // namespace lpsim
