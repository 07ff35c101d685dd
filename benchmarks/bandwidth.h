// Memory-bandwidth baselines of the benchmark suite: what a kernel that only
// reads its input (a SIMD sum of floats) or only copies it (memcpy) achieves
// on this machine, in the same run as the kernels.
//
//   float s = bench::SumFloats(x, n);   // dispatched like the kernels
//   bench::CopyFloats(x, n, y);
#ifndef LPSIM_BENCHMARKS_BANDWIDTH_H_
#define LPSIM_BENCHMARKS_BANDWIDTH_H_

#include <cstddef>

namespace lpsim {
namespace bench {

// Sum of x[0, n) with several independent accumulators (order unspecified);
// the result only keeps the loads alive.
float SumFloats(const float* x, size_t n);

// y[0, n) = x[0, n) with plain SIMD loads and stores: the copy baseline that
// does not depend on the C library's memcpy strategy.
void CopyFloats(const float* x, size_t n, float* y);

}  // namespace bench
}  // namespace lpsim

#endif  // LPSIM_BENCHMARKS_BANDWIDTH_H_
