// Per-target bodies of simd/scaling.h: amax reductions and block casts with
// per-element scales. Threading, scales and dispatch live in scaling.cc.

#if defined(LPSIM_SIMD_SCALING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_SCALING_INL_H_
#undef LPSIM_SIMD_SCALING_INL_H_
#else
#define LPSIM_SIMD_SCALING_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/fixed_sum.h"
#include "hwy/highway.h"
#include "simd/internal/cast-inl.h"
#include "simd/internal/cast_params.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace simd {
namespace HWY_NAMESPACE {

uint32_t AmaxBits(const float* x, size_t begin, size_t end) {
  return MaxFiniteAbsBits(x + begin, end - begin);
}

// Block amax (as bits) of rows [r0, r1) of in[rows x cols], blocks of
// br x bc (both >= 1), bpr blocks per row; block (R, j) is at
// amax[(R - r0 / br) * bpr + j], combined with max into what is there.
void BlockAmaxRows(const float* in, size_t cols, size_t r0, size_t r1, size_t br, size_t bc,
                   size_t bpr, uint32_t* amax) {
  const DF df;
  const DI di;
  const DU du;
  const size_t first_block_row = r0 / br;
  for (size_t r = r0; r < r1; ++r) {
    const float* row = in + r * cols;
    uint32_t* a = amax + (r / br - first_block_row) * bpr;
    if (bc == 1) {
      // One block per column: a running max across rows, vectorized over columns.
      const VI k_abs = hn::Set(di, 0x7fffffff);
      const VI k_inf = hn::Set(di, 0x7f800000);
      size_t c = 0;
      for (; c + kNF <= cols; c += kNF) {
        const VI v = hn::And(hn::BitCast(di, hn::LoadU(df, row + c)), k_abs);
        const VI cur = hn::BitCast(di, hn::LoadU(du, a + c));
        hn::StoreU(hn::BitCast(du, hn::Max(cur, hn::IfThenElseZero(hn::Lt(v, k_inf), v))), du,
                   a + c);
      }
      for (; c < cols; ++c) a[c] = std::max(a[c], MaxFiniteAbsBits(row + c, 1));
    } else {
      for (size_t j = 0; j < bpr; ++j) {
        const size_t c0 = j * bc;
        a[j] = std::max(a[j], MaxFiniteAbsBits(row + c0, std::min(bc, cols - c0)));
      }
    }
  }
}

// Casts summation chunks [c0, c1) of in[rows x cols] (row-major), element
// (r, c) with multiplier mult[block] and reciprocal inv[block], block =
// (r / br) * bpr + c / bc. Sums per chunk as in Quantize. `out` may be null
// (counts and sums only).
//
// Each chunk's per-element multipliers are laid out once and the chunk is
// cast in one CastRange call: a call per row cost more than the cast itself
// for narrow rows (MX blocks of 32 along a last dimension of 32 make every
// row one block). Lanes and their order are those of a per-element cast, so
// the sums are the same bit for bit.
void BlockCastChunks(const internal::CastParams& p, const float* in, size_t rows, size_t cols,
                     size_t br, size_t bc, size_t bpr, const float* mult, const float* inv,
                     size_t c0, size_t c1, float* out, bool sums, double* chunk_err,
                     double* chunk_sig, internal::CastState* counts) {
  const size_t n = rows * cols;
  std::vector<float> lane_mult(kSumChunk), lane_inv(kSumChunk);
  for (size_t c = c0; c < c1; ++c) {
    const size_t begin = c * kSumChunk;
    const size_t end = std::min(n, begin + kSumChunk);
    // Block by block over the chunk's rows (a chunk may start or end inside
    // a row).
    for (size_t r = begin / cols; r * cols < end; ++r) {
      const size_t row_begin = r * cols;
      const float* m = mult + (r / br) * bpr;
      const float* v = inv + (r / br) * bpr;
      const size_t first = std::max(begin, row_begin) - row_begin;
      const size_t last = std::min(end, row_begin + cols) - row_begin;
      for (size_t col = first; col < last;) {
        const size_t j = col / bc;
        const size_t stop = std::min(last, (j + 1) * bc);
        std::fill(lane_mult.data() + (row_begin + col - begin),
                  lane_mult.data() + (row_begin + stop - begin), m[j]);
        std::fill(lane_inv.data() + (row_begin + col - begin),
                  lane_inv.data() + (row_begin + stop - begin), v[j]);
        col = stop;
      }
    }
    internal::CastState st;
    const size_t len = end - begin;
    if (sums && out) {
      CastRangeAny<kOutFloat, true, true, /*kLaneScale=*/true>(
          p, in + begin, len, begin, out + begin, lane_mult.data(), lane_inv.data(), &st);
    } else if (sums) {
      CastRangeAny<kOutNone, true, true, true>(p, in + begin, len, begin, nullptr,
                                               lane_mult.data(), lane_inv.data(), &st);
    } else {
      CastRangeAny<kOutFloat, false, false, true>(p, in + begin, len, begin, out + begin,
                                                  lane_mult.data(), lane_inv.data(), &st);
    }
    counts->AddCounts(st);
    if (sums) {
      chunk_err[c] = ReduceLanes(st.err);
      chunk_sig[c] = ReduceLanes(st.sig);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
