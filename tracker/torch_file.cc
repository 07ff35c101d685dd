#include "tracker/torch_file.h"

#include <torch/csrc/jit/serialization/import.h>
#include <torch/serialize.h>
#include <torch/torch.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

namespace lpsim {

namespace {

enum class FileKind { kZip, kPickle, kOther };

FileKind Sniff(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char b[8] = {};
  in.read(b, sizeof b);
  const std::streamsize n = in.gcount();
  if (n >= 4 && std::memcmp(b, "PK\x03\x04", 4) == 0) return FileKind::kZip;
  if (n >= 2 && static_cast<unsigned char>(b[0]) == 0x80 && b[1] >= 2 && b[1] <= 5) {
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

class Collector {
 public:
  explicit Collector(TorchFile* out) : out_(out) {}

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
};

}  // namespace

StatusOr<TorchFile> ReadTorchFile(const std::string& path) {
  const FileKind kind = Sniff(path);
  if (kind != FileKind::kZip && kind != FileKind::kPickle) {
    return Status::Error(path + ": not a LibTorch file (expected the zip archive torch::save or "
                                "torch.jit.save writes, or a torch.save pickle)");
  }
  TorchFile out;
  Collector collect(&out);
  std::string script_error;
  if (kind == FileKind::kZip) {
    // torch::save(tensor | vector<Tensor> | module) writes a TorchScript
    // archive: a module whose parameters / buffers / submodules are the keys.
    try {
      torch::jit::Module m = torch::jit::load(path, torch::kCPU);
      for (const auto& attr : m.named_attributes(/*recurse=*/true)) {
        if (attr.value.isTensor()) collect.Add(attr.name, attr.value.toTensor());
      }
      return out;
    } catch (const std::exception& e) {
      script_error = FirstLine(e.what());
    }
  }
  // Python's torch.save (and torch::pickle_save): a pickle of tensors.
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::Error(path + ": cannot open for reading");
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const c10::IValue v = torch::pickle_load(bytes);
    out = TorchFile();
    collect.Walk("", v, 0);
    return out;
  } catch (const std::exception& e) {
    const std::string pickle_error = FirstLine(e.what());
    std::string why = script_error.empty() ? pickle_error : script_error;
    if (!script_error.empty() && pickle_error != script_error) why += "; as a pickle: " + pickle_error;
    std::string msg = path + ": corrupt or unsupported LibTorch file (" + why +
                      "). lpsim reads files written by torch::save, torch.jit.save and "
                      "torch.save; or save the tensors with numpy.save";
    return Status::Error(msg);
  }
}

}  // namespace lpsim
