// The one summation order every floating-point total in lpsim follows.
//
// Scalar reference, SIMD kernels and threaded drivers must produce identical
// bits, so a sum over n values is defined, not left to the implementation:
//   1. the values are cut into chunks of kSumChunk consecutive elements;
//   2. inside a chunk, element i goes to accumulator (i mod kSumLanes), each
//      accumulated in double in index order, and the 8 accumulators are then
//      combined by ReduceLanes;
//   3. chunk totals are combined by PairwiseSum in chunk order.
// A SIMD target of any width can follow this (8 doubles = one AVX-512 vector,
// two AVX2 vectors, four SSE vectors), and threads own whole chunks.
#ifndef LPSIM_FORMATS_FIXED_SUM_H_
#define LPSIM_FORMATS_FIXED_SUM_H_

#include <cstddef>

namespace lpsim {

constexpr size_t kSumLanes = 8;
constexpr size_t kSumChunk = size_t{1} << 14;

inline double ReduceLanes(const double* a) {
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// Pairwise (balanced-tree) sum of v[0..n): split at n/2, recursively.
inline double PairwiseSum(const double* v, size_t n) {
  if (n == 0) return 0.0;
  if (n == 1) return v[0];
  const size_t half = n / 2;
  return PairwiseSum(v, half) + PairwiseSum(v + half, n - half);
}

inline size_t NumSumChunks(size_t n) { return (n + kSumChunk - 1) / kSumChunk; }

}  // namespace lpsim

#endif  // LPSIM_FORMATS_FIXED_SUM_H_
