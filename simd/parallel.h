// Splitting a tensor over threads in whole summation chunks (the simd
// kernels and mmu/ use it).
//
// Every floating-point total in lpsim follows formats/fixed_sum.h, whose unit
// is a chunk of kSumChunk elements. Threads therefore own contiguous runs of
// whole chunks and write per-chunk results into slots indexed by chunk, so the
// final totals are identical for any thread count.
//
//   size_t t = ThreadsFor(n, threads);
//   ForEachChunkRange(n, t, [&](size_t worker, size_t c0, size_t c1) {
//     for (size_t c = c0; c < c1; ++c) ...;  // chunk c covers [c*kSumChunk, ...)
//   });
#ifndef LPSIM_SIMD_PARALLEL_H_
#define LPSIM_SIMD_PARALLEL_H_

#include <cstddef>
#include <functional>

namespace lpsim {
namespace simd {

// Below this many elements per thread, starting a thread costs more than it
// saves (about 1 MiB of fp32 per thread).
constexpr size_t kMinElementsPerThread = size_t{1} << 18;

// How many workers to use for n elements when the caller allows `threads`:
// at least 1, at most `threads`, at most one per kMinElementsPerThread
// elements and at most one per chunk.
size_t ThreadsFor(size_t n, int threads);

// Calls fn(worker, begin, end) for `workers` contiguous, balanced ranges of
// [0, count); worker 0 runs on the calling thread, the others on std::threads
// joined before returning. workers <= 1 runs inline. fn must not throw.
void ForEachRange(size_t count, size_t workers,
                  const std::function<void(size_t, size_t, size_t)>& fn);

// ForEachRange over the NumSumChunks(n) chunks of n elements:
// fn(worker, first_chunk, end_chunk) for `workers` contiguous, balanced
// ranges of the NumSumChunks(n) chunks; worker 0 runs on the calling thread,
// the others on std::threads joined before returning. workers <= 1 runs
// inline. fn must not throw.
void ForEachChunkRange(size_t n, size_t workers,
                       const std::function<void(size_t, size_t, size_t)>& fn);

}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_PARALLEL_H_
