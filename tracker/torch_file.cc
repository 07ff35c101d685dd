#include "tracker/torch_file.h"

#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/serialize.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <utility>
#include <vector>

#include "store/torch_archive.h"

namespace lpsim {

namespace {

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
  return Status::Error(path + ": corrupt or unsupported LibTorch file (" + why + "). " + kTorchFilesRead);
}

// The file's bytes as LibTorch's archive reader takes them, without a copy
// (the file is held in memory once, checked, and read from there).
class BytesReader : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit BytesReader(const std::vector<char>& b) : b_(b) {}
  size_t size() const override { return b_.size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= b_.size()) return 0;
    n = std::min<size_t>(n, b_.size() - static_cast<size_t>(pos));
    std::memcpy(buf, b_.data() + pos, n);
    return n;
  }

 private:
  const std::vector<char>& b_;
};

// Loads the tensors with LibTorch, in this process. `bytes` passed
// CheckTorchArchive.
StatusOr<TorchFile> LoadInProcess(const std::vector<char>& bytes, TorchFileKind kind, const std::string& path) {
  TorchFile out;
  Collector collect(&out);
  std::string script_error;
  if (kind == TorchFileKind::kZip) {
    // torch::save(tensor | vector<Tensor> | module) writes a TorchScript
    // archive: a module whose parameters / buffers / submodules are the keys.
    try {
      torch::jit::Module m = torch::jit::load(std::make_shared<BytesReader>(bytes), torch::kCPU);
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
    const c10::IValue v = torch::pickle_load(bytes);
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

}  // namespace

StatusOr<TorchFile> LoadTorchFile(const std::string& path) {
  std::vector<char> bytes;
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return Status::Error(path + ": cannot open for reading");
    const std::streamoff size = in.tellg();
    if (size < 0) return Status::Error(path + ": cannot tell its size");
    bytes.resize(static_cast<size_t>(size));
    in.seekg(0);
    if (!in.read(bytes.data(), size)) return Status::Error(path + ": read failed");
  }
  const TorchFileKind kind = SniffTorchFile({bytes.data(), bytes.size()});
  if (kind == TorchFileKind::kOther) {
    return Status::Error(path + ": not a LibTorch file (expected the zip archive torch::save or "
                                "torch.jit.save writes, or a torch.save pickle)");
  }
  // LibTorch allocates whatever sizes the file states; refuse those that do
  // not fit in the file before it reads them.
  if (Status st = CheckTorchArchive({bytes.data(), bytes.size()}); !st.ok()) return Status::Error(path + ": " + st.message());
  return LoadInProcess(bytes, kind, path);
}

StatusOr<TorchFile> ReadTorchFile(const std::string& path) {
  // Loading a TorchScript archive compiles the Python source inside it, and
  // LibTorch's compiler reads out of bounds on some malformed sources (found
  // by fuzz/torch_file_fuzz.cc). It runs in a child process, so that a crash
  // there is an error about the file, not a crash of the caller.
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
    // such as a sanitizer's or a fuzzer's, reports it as the caller's).
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) std::signal(sig, SIG_DFL);
    ::close(fds[0]);
    SendTorchFile(fds[1], LoadTorchFile(path));
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  return ReceiveTorchFile(fds[0], pid, path);
}

}  // namespace lpsim
