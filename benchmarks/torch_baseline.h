// The naive LibTorch baseline: the same analysis as simd::Analyze, written
// the way a user would with tensor ops (frexp + bincount for the exponent
// histogram, masks for underflow/overflow, reductions for the moments).
// Only this file's .cc includes torch.
//
//   bench::TorchAnalyze(x, n, slots, /*threads=*/1);
#ifndef LPSIM_BENCHMARKS_TORCH_BASELINE_H_
#define LPSIM_BENCHMARKS_TORCH_BASELINE_H_

#include <cstddef>
#include <vector>

#include "simd/analyze.h"

namespace lpsim {
namespace bench {

// Whether the benchmark was built with LibTorch.
bool HaveTorch();

// Exponent histogram, zero/NaN/Inf counts, mean/std/rms/min/max/amax and,
// per slot, underflow/subnormal/overflow counts and the squared error of a
// round-to-nearest cast simulated with torch ops. Returns a checksum so the
// work cannot be optimized away.
double TorchAnalyze(const float* x, size_t n, const std::vector<FormatSlot>& slots, int threads);

}  // namespace bench
}  // namespace lpsim

#endif  // LPSIM_BENCHMARKS_TORCH_BASELINE_H_
