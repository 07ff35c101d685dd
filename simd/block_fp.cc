#include "simd/block_fp.h"

#include <algorithm>
#include <vector>

#include "formats/fixed_sum.h"
#include "formats/stochastic.h"
#include "simd/internal/cast_params.h"
#include "simd/internal/lattice_params.h"
#include "simd/parallel.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/block_fp.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/block_fp-inl.h"

#if HWY_ONCE
namespace lpsim {
namespace simd {

HWY_EXPORT(BfpExponentRows);
HWY_EXPORT(BfpCastRange);

void BfpQuantize(const BfpFormat& f, const float* in, size_t rows, size_t cols,
                 const QuantizeOptions& opt, float* out, uint8_t* exps, CastCounts* counts,
                 int threads) {
  const size_t n = rows * cols;
  if (n == 0) {
    if (counts) *counts = CastCounts{};
    return;
  }
  const size_t bpr = f.BlocksPerRow(cols);
  const size_t workers = ThreadsFor(n, threads);

  // 1. Every block's exponent before any output is written: with out == in,
  // a row that two workers share must not be read after one has cast it.
  std::vector<uint8_t> fields(rows * bpr);
  ForEachRange(rows, workers, [&](size_t, size_t r0, size_t r1) {
    HWY_DYNAMIC_DISPATCH(BfpExponentRows)(in, cols, f.block, bpr, r0, r1, fields.data());
  });
  if (exps) std::copy(fields.begin(), fields.end(), exps);

  // 2. The cast, in whole summation chunks; each row's exponents are spread
  // over its elements once per worker.
  internal::BfpCastParams p;
  p.format = &f;
  p.rounding = opt.rounding;
  p.key = StochasticKey(opt.seed);
  p.index_offset = opt.index_offset;
  const bool sums = counts != nullptr;
  const size_t chunks = NumSumChunks(n);
  std::vector<double> chunk_err(sums ? chunks : 0), chunk_sig(sums ? chunks : 0);
  std::vector<internal::CastState> partial(workers);
  ForEachChunkRange(n, workers, [&](size_t w, size_t c0, size_t c1) {
    std::vector<int32_t> lane_f(cols);
    size_t cached_row = ~size_t{0};
    for (size_t c = c0; c < c1; ++c) {
      const size_t begin = c * kSumChunk;
      const size_t end = std::min(n, begin + kSumChunk);
      internal::CastState st;
      for (size_t r = begin / cols; r * cols < end; ++r) {
        if (r != cached_row) {
          cached_row = r;
          for (size_t j = 0; j < bpr; ++j) {
            const size_t lo = j * f.block, hi = std::min(cols, lo + f.block);
            std::fill(lane_f.data() + lo, lane_f.data() + hi, fields[r * bpr + j]);
          }
        }
        const size_t a = std::max(begin, r * cols);
        const size_t e = std::min(end, (r + 1) * cols);
        HWY_DYNAMIC_DISPATCH(BfpCastRange)(p, in + a, e - a, a, lane_f.data() + (a - r * cols),
                                           out + a, sums, &st);
      }
      partial[w].AddCounts(st);
      if (sums) {
        chunk_err[c] = ReduceLanes(st.err);
        chunk_sig[c] = ReduceLanes(st.sig);
      }
    }
  });
  if (counts) *counts = internal::FinishCounts(n, partial, chunk_err, chunk_sig);
}

}  // namespace simd
}  // namespace lpsim
#endif  // HWY_ONCE
