// Reading tensors at rest from LibTorch files, for `lpsim analyze`.
//
// Accepts what C++ writes with torch::save (a tensor, a std::vector of
// tensors, a module's parameters and buffers: all TorchScript archives),
// scripted modules (torch.jit.save), and the zip pickles of Python's
// torch.save / torch::pickle_save holding a tensor or a (nested) dict, list or
// tuple of tensors, such as a state_dict. Each floating-point tensor comes out
// as fp32 named by its key ("fc1.weight"; "0", "1", ... for a tensor or a
// vector of tensors); other tensors are skipped with a note. No torch type
// appears here, so the CLI includes this header without compiling torch.
//
//   StatusOr<TorchFile> f = ReadTorchFile("model.pt");
//   for (const TorchTensor& t : f->tensors) Analyze(t.data.data(), t.data.size(), slots);
#ifndef LPSIM_TRACKER_TORCH_FILE_H_
#define LPSIM_TRACKER_TORCH_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace lpsim {

struct TorchTensor {
  std::string name;            // the key in the file ("fc1.weight", "0")
  std::vector<int64_t> shape;
  std::string dtype;           // what the file stored: float32, float64, bfloat16, float16
  // C order, fp32: bf16 and fp16 widened exactly, fp64 rounded once to
  // nearest even (as ReadNpy does).
  std::vector<float> data;
};

struct TorchFile {
  std::vector<TorchTensor> tensors;  // in the file's order
  std::vector<std::string> notes;    // skipped tensors, and why
};

// The tensors of a LibTorch file, loaded onto the CPU. The file is told by
// its content, not its name: a zip archive ("PK\x03\x04": TorchScript, or
// torch.save since 1.6) or a pickle (torch.save's legacy format). Errors
// (unreadable, corrupt or unsupported file) name the path and say what was
// expected. A hostile file cannot make it allocate beyond the file's size
// (CheckTorchArchive), read past a tensor's data, or crash the caller:
// LibTorch loads the file in a forked child that sends the tensors back
// through a pipe.
StatusOr<TorchFile> ReadTorchFile(const std::string& path);

}  // namespace lpsim

#endif  // LPSIM_TRACKER_TORCH_FILE_H_
