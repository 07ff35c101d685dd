// Fuzzes hardware target files (core/target.h, ParseTarget). Every document
// is either refused with a message that starts with its origin, or gives a
// target whose every role has a storage name, a scaling recipe name, and a
// finite positive range (MinPositive <= MaxValue) for float storage.
#include <cmath>
#include <string>

#include "core/target.h"
#include "fuzz/fuzz_util.h"

namespace {
// Target files are a few kilobytes; longer inputs only slow the JSON parser.
constexpr size_t kMaxTargetBytes = 64 << 10;
constexpr const char* kOrigin = "fuzz.json";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lpsim;
  if (size > kMaxTargetBytes) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  StatusOr<Target> t = ParseTarget(text, kOrigin);
  if (!t.ok()) {
    FUZZ_CHECK(t.status().message().rfind(kOrigin, 0) == 0);
    return 0;
  }
  FUZZ_CHECK(!t->name.empty());
  for (const RoleSpec& r : t->roles) {
    FUZZ_CHECK(!r.StorageName().empty());
    FUZZ_CHECK(!r.scaling.FullName().empty());
    if (r.storage == RoleSpec::Storage::kFloat) {
      const double hi = r.MaxValue(), lo = r.MinPositive();
      FUZZ_CHECK(std::isfinite(hi) && hi > 0);
      FUZZ_CHECK(lo > 0 && lo <= hi);
    }
  }
  return 0;
}
