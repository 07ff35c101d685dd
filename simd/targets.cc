#include "simd/targets.h"

#include "hwy/highway.h"
#include "hwy/targets.h"

namespace lpsim {
namespace simd {

// This file is compiled with the same HWY_COMPILE_ALL_ATTAINABLE policy as
// the kernels (simd/CMakeLists.txt), so HWY_TARGETS here is theirs.
std::vector<int64_t> CompiledTargets() {
  std::vector<int64_t> out;
  for (int64_t t = HWY_TARGETS; t != 0; t &= t - 1) out.push_back(t & ~(t - 1));
  return out;  // lower bits are better targets
}

std::vector<int64_t> AvailableTargets() {
  std::vector<int64_t> out;
  const int64_t supported = hwy::SupportedTargets();
  for (int64_t t : CompiledTargets()) {
    if (supported & t) out.push_back(t);
  }
  return out;
}

const char* TargetName(int64_t target) { return hwy::TargetName(target); }

ScopedTarget::ScopedTarget(int64_t target) { hwy::SetSupportedTargetsForTest(target); }

ScopedTarget::~ScopedTarget() { hwy::SetSupportedTargetsForTest(0); }

}  // namespace simd
}  // namespace lpsim
