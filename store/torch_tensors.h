// Tensors read from a LibTorch file, and how they cross from the process
// that ran LibTorch to the one that asked.
//
// LibTorch is loaded only where it is needed: `lpsim analyze model.pt` runs
// `lpsim_torch _read-torch-file model.pt` (cli/), a library caller forks
// (tracker/torch_file.h); either way the child sends its answer on a pipe
// with SendTorchFile and the parent takes it with ReceiveTorchFile, which
// also waits for the child and turns a crash inside LibTorch into an error
// about the file.
//
//   SendTorchFile(pipe_write_end, LoadTorchFile(path));   // in the child
//   StatusOr<TorchFile> f = ReceiveTorchFile(pipe_read_end, child, path);
#ifndef LPSIM_STORE_TORCH_TENSORS_H_
#define LPSIM_STORE_TORCH_TENSORS_H_

#include <sys/types.h>

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

// What lpsim says it reads, for the end of an error about a LibTorch file.
extern const char* const kTorchFilesRead;

// Writes `f` (tensors and notes, or the error) to `fd`; false when the
// reader went away. Integers in host order: both ends are this program.
bool SendTorchFile(int fd, const StatusOr<TorchFile>& f);

// Reads SendTorchFile's answer from `fd` to its end, closes `fd`, and waits
// for `child`. A child that died or answered short is an error naming
// `path` and how it ended ("LibTorch crashed (signal 11) while reading it").
StatusOr<TorchFile> ReceiveTorchFile(int fd, pid_t child, const std::string& path);

}  // namespace lpsim

#endif  // LPSIM_STORE_TORCH_TENSORS_H_
