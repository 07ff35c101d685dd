// Per-call constants of the integer and block floating-point kernels
// (simd/integer.h, simd/block_fp.h), no SIMD types, and their scalar element
// functions: the heads and tails of the vector loops go through the
// references of formats/integer.h and formats/block_fp.h themselves, so the
// two sides can only differ where the vector code does.
//
//   internal::IntCastParams p = internal::MakeIntCastParams(f, qp, rounding, seed, offset);
//   internal::IntCastElement(p, x, pos, /*sums=*/true, &state, &q);
#ifndef LPSIM_SIMD_INTERNAL_LATTICE_PARAMS_H_
#define LPSIM_SIMD_INTERNAL_LATTICE_PARAMS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "formats/block_fp.h"
#include "formats/fixed_sum.h"
#include "formats/integer.h"
#include "formats/reference.h"
#include "formats/stochastic.h"
#include "simd/internal/cast_params.h"

namespace lpsim {
namespace simd {
namespace internal {

// One affine integer grid: a tensor's or a row's scale and zero point.
struct IntCastParams {
  const IntFormat* format = nullptr;
  IntQuantParams qp;
  IntRounding rounding = IntRounding::kHalfAway;
  uint32_t key = 0;           // StochasticKey(seed)
  uint64_t index_offset = 0;  // stochastic index of position 0
  int32_t qmin = 0, qmax = 0;
};

inline IntCastParams MakeIntCastParams(const IntFormat& f, const IntQuantParams& qp,
                                       IntRounding rounding, uint64_t seed,
                                       uint64_t index_offset) {
  IntCastParams p;
  p.format = &f;
  p.qp = qp;
  p.rounding = rounding;
  p.key = StochasticKey(seed);
  p.index_offset = index_offset;
  p.qmin = f.qmin();
  p.qmax = f.qmax();
  return p;
}

// The sums of one element as formats/internal/cast_counter.h forms them.
inline void AddSums(float x, float q, uint64_t pos, CastState* st) {
  if (std::isfinite(x) && std::isfinite(q)) {
    const double d = static_cast<double>(x) - static_cast<double>(q);
    st->err[pos % kSumLanes] += d * d;
    st->sig[pos % kSumLanes] += static_cast<double>(x) * static_cast<double>(x);
  }
}

// One element exactly as IntQuantizeRef treats it; `pos` is its summation
// position (the stochastic index is index_offset + pos).
inline float IntCastElement(const IntCastParams& p, float x, uint64_t pos, bool sums,
                            CastState* st) {
  const uint32_t r = p.rounding == IntRounding::kStochastic
                         ? StochasticBits(p.key, p.index_offset + pos) : 0u;
  const IntEncoded e = QuantizeIntRef(*p.format, x, p.qp, p.rounding, r);
  st->AddFlags(e.flags);
  const float q = DequantizeIntRef(e.q, p.qp);
  if (sums) AddSums(x, q, pos, st);
  return q;
}

struct BfpCastParams {
  const BfpFormat* format = nullptr;
  Rounding rounding = Rounding::kNearestEven;
  uint32_t key = 0;
  uint64_t index_offset = 0;
};

// One element exactly as BfpQuantizeRef treats it, in a block with shared
// exponent e.
inline float BfpCastElement(const BfpCastParams& p, float x, int e, uint64_t pos, bool sums,
                            CastState* st) {
  const uint32_t r = p.rounding == Rounding::kStochastic
                         ? StochasticBits(p.key, p.index_offset + pos) : 0u;
  const Encoded enc = BfpEncodeRef(*p.format, x, e, p.rounding, r);
  st->AddFlags(enc.flags);
  const float q = BfpDecodeRef(*p.format, enc.code, e);
  if (sums) AddSums(x, q, pos, st);
  return q;
}

}  // namespace internal
}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_INTERNAL_LATTICE_PARAMS_H_
