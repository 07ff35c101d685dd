// Reading tensors at rest from LibTorch files, for `lpsim analyze`.
//
// Accepts what C++ writes with torch::save (a tensor, a std::vector of
// tensors, a module's parameters and buffers: all TorchScript archives),
// scripted modules (torch.jit.save), and the zip pickles of Python's
// torch.save / torch::pickle_save holding a tensor or a (nested) dict, list or
// tuple of tensors, such as a state_dict. Each floating-point tensor comes out
// as fp32 named by its key ("fc1.weight"; "0", "1", ... for a tensor or a
// vector of tensors); other tensors are skipped with a note. No torch type
// appears here (the tensors are store/torch_tensors.h's). `lpsim analyze`
// does not link this: it runs `lpsim_torch _read-torch-file` (cli/).
//
//   StatusOr<TorchFile> f = ReadTorchFile("model.pt");
//   for (const TorchTensor& t : f->tensors) Analyze(t.data.data(), t.data.size(), slots);
#ifndef LPSIM_TRACKER_TORCH_FILE_H_
#define LPSIM_TRACKER_TORCH_FILE_H_

#include <string>

#include "core/status.h"
#include "store/torch_tensors.h"

namespace lpsim {

// The tensors of a LibTorch file, loaded onto the CPU. The file is told by
// its content, not its name: a zip archive ("PK\x03\x04": TorchScript, or
// torch.save since 1.6) or a pickle (torch.save's legacy format). Errors
// (unreadable, corrupt or unsupported file) name the path and say what was
// expected. A hostile file cannot make it allocate beyond the file's size
// (CheckTorchArchive), read past a tensor's data, or crash the caller:
// LibTorch loads the file in a forked child that sends the tensors back
// through a pipe (store/torch_tensors.h).
StatusOr<TorchFile> ReadTorchFile(const std::string& path);

// The same checks and loading in this process, for a process that is
// itself the child (`lpsim_torch _read-torch-file`): a fault inside
// LibTorch ends the calling process.
StatusOr<TorchFile> LoadTorchFile(const std::string& path);

}  // namespace lpsim

#endif  // LPSIM_TRACKER_TORCH_FILE_H_
