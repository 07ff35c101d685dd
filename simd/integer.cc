#include "simd/integer.h"

#include <algorithm>
#include <vector>

#include "formats/fixed_sum.h"
#include "simd/internal/cast_params.h"
#include "simd/internal/lattice_params.h"
#include "simd/parallel.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/integer.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/integer-inl.h"

#if HWY_ONCE
namespace lpsim {
namespace simd {

HWY_EXPORT(FiniteRange);
HWY_EXPORT(IntCastRange);

namespace {

// The reference's parameters of one group from its finite range.
IntQuantParams GroupParams(const IntFormat& f, bool symmetric, float lo, float hi) {
  // -0 and +0 give the same parameters; keep one.
  if (lo == 0.0f) lo = 0.0f;
  if (hi == 0.0f) hi = 0.0f;
  return symmetric ? SymmetricIntParams(f, std::max(-lo, hi)) : AsymmetricIntParams(f, lo, hi);
}

}  // namespace

void IntQuantizeWith(const IntFormat& f, const float* in, size_t rows, size_t cols,
                     const IntQuantParams* params, const IntQuantizeOptions& opt, float* out,
                     CastCounts* counts, int threads) {
  const size_t n = rows * cols;
  std::vector<internal::IntCastParams> grids;
  const size_t groups = opt.per_row ? rows : (n > 0 ? 1 : 0);
  grids.reserve(groups);
  for (size_t g = 0; g < groups; ++g) {
    grids.push_back(
        internal::MakeIntCastParams(f, params[g], opt.rounding, opt.seed, opt.index_offset));
  }
  const bool sums = counts != nullptr;
  const size_t chunks = NumSumChunks(n);
  std::vector<double> chunk_err(sums ? chunks : 0), chunk_sig(sums ? chunks : 0);
  const size_t workers = ThreadsFor(n, threads);
  std::vector<internal::CastState> partial(workers);
  ForEachChunkRange(n, workers, [&](size_t w, size_t c0, size_t c1) {
    for (size_t c = c0; c < c1; ++c) {
      const size_t begin = c * kSumChunk;
      const size_t end = std::min(n, begin + kSumChunk);
      internal::CastState st;
      // Rows split the chunk when each has its own grid.
      size_t a = begin;
      while (a < end) {
        const size_t r = opt.per_row ? a / cols : 0;
        const size_t e = opt.per_row ? std::min(end, (r + 1) * cols) : end;
        HWY_DYNAMIC_DISPATCH(IntCastRange)(grids[r], in + a, e - a, a, out + a, sums, &st);
        a = e;
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

void IntQuantize(const IntFormat& f, const float* in, size_t rows, size_t cols,
                 const IntQuantizeOptions& opt, float* out, std::vector<IntQuantParams>* params,
                 CastCounts* counts, int threads) {
  const size_t n = rows * cols;
  std::vector<IntQuantParams> p;
  if (opt.per_row) {
    p.resize(rows);
    ForEachRange(rows, ThreadsFor(n, threads),
                           [&](size_t, size_t r0, size_t r1) {
                             for (size_t r = r0; r < r1; ++r) {
                               float lo, hi;
                               HWY_DYNAMIC_DISPATCH(FiniteRange)(in + r * cols, cols, &lo, &hi);
                               p[r] = GroupParams(f, opt.symmetric, lo, hi);
                             }
                           });
  } else if (n > 0) {
    const size_t workers = ThreadsFor(n, threads);
    std::vector<float> lo(workers, 0.0f), hi(workers, 0.0f);
    ForEachChunkRange(n, workers, [&](size_t w, size_t c0, size_t c1) {
      const size_t begin = c0 * kSumChunk, end = std::min(n, c1 * kSumChunk);
      HWY_DYNAMIC_DISPATCH(FiniteRange)(in + begin, end - begin, &lo[w], &hi[w]);
    });
    p.push_back(GroupParams(f, opt.symmetric, *std::min_element(lo.begin(), lo.end()),
                            *std::max_element(hi.begin(), hi.end())));
  }
  IntQuantizeWith(f, in, rows, cols, p.data(), opt, out, counts, threads);
  if (params) *params = std::move(p);
}

}  // namespace simd
}  // namespace lpsim
#endif  // HWY_ONCE
