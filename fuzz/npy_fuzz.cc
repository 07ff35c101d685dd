// Fuzzes the .npy reader (store/npy.h) from bytes. Every input is either
// refused with a message or decoded into an array whose element count
// matches its shape; a decoded float32 array encodes and decodes back to the
// same bits.
#include <cstring>

#include "fuzz/fuzz_util.h"
#include "store/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lpsim;
  StatusOr<NpyArray> a = ParseNpy(data, size);
  if (!a.ok()) {
    FUZZ_CHECK(!a.status().message().empty());
    return 0;
  }
  FUZZ_CHECK(a->data.size() == NumElements(a->shape));
  if (a->source_dtype == NpyDtype::kFloat32) {
    const std::string again = EncodeNpy(a->shape, a->data.data());
    StatusOr<NpyArray> b = ParseNpy(again.data(), again.size());
    FUZZ_CHECK(b.ok());
    FUZZ_CHECK(b->shape == a->shape);
    FUZZ_CHECK(b->data.size() == a->data.size());
    FUZZ_CHECK(a->data.empty() ||
               std::memcmp(b->data.data(), a->data.data(), a->data.size() * sizeof(float)) == 0);
  }
  return 0;
}
