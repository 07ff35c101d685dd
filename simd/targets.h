// The SIMD targets lpsim's kernels are compiled for, and forcing one.
//
// Every kernel in simd/ is compiled once per Highway target (SSSE3, SSE4,
// AVX2, AVX3, scalar on x86) and dispatched at run time to the best one the
// CPU supports. Tests and benchmarks run each target in turn:
//
//   for (int64_t t : simd::AvailableTargets()) {
//     simd::ScopedTarget force(t);          // kernels now dispatch to t
//     ... simd::CurrentTargetName() == simd::TargetName(t) ...
//   }
#ifndef LPSIM_SIMD_TARGETS_H_
#define LPSIM_SIMD_TARGETS_H_

#include <cstdint>
#include <vector>

namespace lpsim {
namespace simd {

// Targets compiled into lpsim_simd (Highway target bits), best first.
std::vector<int64_t> CompiledTargets();
// Those of CompiledTargets() this CPU can run.
std::vector<int64_t> AvailableTargets();
// "AVX2", "SSE4", "SCALAR", ...
const char* TargetName(int64_t target);

// While alive, every kernel dispatches to `target` (which must be in
// AvailableTargets()); restores normal dispatch when destroyed. Not for
// concurrent use: dispatch is process-wide.
class ScopedTarget {
 public:
  explicit ScopedTarget(int64_t target);
  ~ScopedTarget();
  ScopedTarget(const ScopedTarget&) = delete;
  ScopedTarget& operator=(const ScopedTarget&) = delete;
};

}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_TARGETS_H_
