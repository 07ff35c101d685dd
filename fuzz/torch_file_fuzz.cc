// Fuzzes the LibTorch file reader of `lpsim analyze` (tracker/torch_file.h,
// ReadTorchFile): the input is written to a scratch file and read. Every
// input is either refused with a message or gives tensors whose data match
// their shapes. LibTorch loads the file in a child process (a fault inside
// LibTorch, which is not instrumented, ends the child and is refused as a
// corrupt file); the parent's bounds checks and the decoding of the child's
// answer run here under ASan.
#include <string>

#include "fuzz/fuzz_util.h"
#include "tracker/torch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = lpsim::fuzz::ScratchDir() + "/input.pt";
  lpsim::fuzz::WriteFile(path, data, size);
  lpsim::StatusOr<lpsim::TorchFile> f = lpsim::ReadTorchFile(path);
  if (!f.ok()) {
    FUZZ_CHECK(!f.status().message().empty());
    return 0;
  }
  for (const lpsim::TorchTensor& t : f->tensors) {
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    FUZZ_CHECK(static_cast<size_t>(n) == t.data.size());
  }
  return 0;
}
