// Fuzzes the bounds check that runs before LibTorch reads a file
// (store/torch_archive.h, CheckTorchArchive) without LibTorch: every input
// is either passed or refused with a message, the same one each time, and
// the check reads only inside the input (ASan watches).
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "store/torch_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const lpsim::Status first = lpsim::CheckTorchArchive(bytes);
  const lpsim::Status again = lpsim::CheckTorchArchive(bytes);
  FUZZ_CHECK(first.ok() == again.ok() && first.message() == again.message());
  if (!first.ok()) FUZZ_CHECK(!first.message().empty());
  return 0;
}
