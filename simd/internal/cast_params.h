// Per-call constants and running state of the cast kernels (no SIMD types).
//
// MakeCastParams derives, once per call, every constant the vector code in
// cast-inl.h needs from a Format, a rounding mode and a scale, so the hot loop
// only broadcasts them. CastState carries what a run over one summation chunk
// accumulates (fixed_sum.h order) so a chunk can be processed in several
// pieces (blocks, rows) and by the scalar head/tail helper below.
//
//   internal::CastParams p = internal::MakeCastParams(f, opt.rounding, opt.seed,
//                                                     opt.index_offset, opt.scale);
//   internal::CastState st;        // zeroed: one per chunk
//   ... CastRange(p, in + a, b - a, a, ...);
//   double chunk_err = ReduceLanes(st.err);
#ifndef LPSIM_SIMD_INTERNAL_CAST_PARAMS_H_
#define LPSIM_SIMD_INTERNAL_CAST_PARAMS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/fixed_sum.h"
#include "formats/format.h"
#include "formats/reference.h"
#include "formats/stochastic.h"

namespace lpsim {
namespace simd {
namespace internal {

struct CastParams {
  const Format* format = nullptr;
  Rounding rounding = Rounding::kNearestEven;
  uint32_t key = 0;           // StochasticKey(seed)
  uint64_t index_offset = 0;  // stochastic index of position 0
  float scale = 1.0f;
  float inv_scale = 1.0f;     // 1.0f / scale, formed in fp32 as QuantizeRef does

  // Layout (see Format).
  uint32_t m = 0;             // mantissa bits
  uint32_t s = 0;             // 23 - m: fp32 bits dropped in the normal range
  uint32_t sign_mask = 0;     // the format's sign bit (0 if unsigned)
  uint32_t code_sign_shift = 0;  // fp32 sign bit >> this = the format's sign bit
  int32_t emin = 0;           // min_normal_exponent()
  bool is_signed = true, has_zero = true, ftz = false, has_negzero = true;
  uint32_t max_code = 0;
  uint32_t sub_limit = 0;     // 1 << m: magnitudes below are subnormal

  // Special results of the encoder.
  uint32_t ovf_pos = 0, ovf_neg = 0;  // OverflowCode(+), OverflowCode(-)
  uint32_t zero_neg = 0;              // code of -0 (0 where the format has no -0)
  uint32_t bad_code = 0;              // sat ? 0 : NaN: negatives in unsigned, 0 in zero-less
  // Path B builds q from the rounded significand (no decode) when every
  // nonzero value of the format is an fp32 normal: has_zero and
  // 2^(emin - m) >= 2^-126. The fp32 bits of the special results' decodes:
  bool direct_q = false;
  // EncodeCommon applies: signed, with zero, no FTZ, m >= 1, direct_q.
  bool common = false;
  uint32_t q_ovf_pos = 0, q_ovf_neg = 0, q_bad = 0;

  // Fast path (the whole vector rounds inside the normal range by fp32 bit
  // arithmetic): enabled for signed formats with zero.
  bool fast = false;
  uint32_t low_mask = 0;      // (1 << s) - 1
  uint32_t rne_base = 0;      // RNE bias without the parity bit: half - 1 (+1 if m == 0)
  uint32_t odd_mask = 0;      // 1 when the parity bit decides ties (m > 0, s > 0)
  uint32_t sr_shift = 0;      // random >> sr_shift has s bits (masked by low_mask)
  uint32_t min_bits = 0;      // fp32 bits of max(2^emin, 2^-126)
  uint32_t max_bits = 0;      // fp32 bits of MaxValue()
  uint32_t rebias = 0;        // (rounded bits >> s) - rebias = magnitude code
  // With the uniform scale, every path-A result q = u * inv_scale is a finite
  // fp32 normal and m >= 1, so q / x lies in (2/3 (1 - 3u), 3/2 (1 + 3u))
  // (u = 2^-24): x - q is exact in fp32 (Sterbenz) and needs no finiteness
  // mask, which saves the sums a promotion per vector.
  bool fast_exact_diff = false;
  // Write float outputs with non-temporal stores (Quantize of large arrays:
  // the output is not read back soon, and streaming skips the read for
  // ownership of every output line, a third of the memory traffic).
  bool stream_out = false;

  // Decoder: fp32 bits = (mag << s) + dec_add + dec_exp_add for format-normal
  // values with fp32-normal results; magnitudes below tiny_limit (format
  // subnormals, results below 2^-126) are rebuilt from significand and unit.
  uint32_t dec_add = 0;
  uint32_t dec_exp_add = 0;
  uint32_t tiny_limit = 0;
  int nan_kind = 0;           // NanEncoding as int
  uint32_t nan_code = 0;      // magnitude code (kIeee: smallest NaN is inf_code+1)
  bool has_inf = false;
  uint32_t inf_code = 0;
  uint32_t code_mask = 0;     // (1 << total_bits) - 1
};

// Precondition: scale finite and > 0 (as for QuantizeRef).
CastParams MakeCastParams(const Format& f, Rounding rounding, uint64_t seed,
                          uint64_t index_offset, float scale);

// What a cast over (part of) one summation chunk accumulates.
struct CastState {
  double err[kSumLanes] = {};  // sum (x - q)^2, lane = position mod kSumLanes
  double sig[kSumLanes] = {};  // sum x^2
  uint64_t underflow = 0, flushed = 0, subnormal = 0, overflow = 0;
  uint64_t nan_in = 0, inf_in = 0, zero_in = 0;
  // Set when sig is not accumulated (Analyze shares the statistics' sum of
  // x^2) and an element with finite x got a non-finite q, so the shared sum
  // does not apply to this chunk.
  bool sig_mismatch = false;

  void AddFlags(uint32_t flags) {
    underflow += (flags & kCastUnderflow) != 0;
    flushed += (flags & kCastFlushed) != 0;
    subnormal += (flags & kCastSubnormal) != 0;
    overflow += (flags & kCastOverflow) != 0;
    nan_in += (flags & kCastNanIn) != 0;
    inf_in += (flags & kCastInfIn) != 0;
    zero_in += (flags & kCastZeroIn) != 0;
  }
  void AddCounts(const CastState& o) {
    underflow += o.underflow;
    flushed += o.flushed;
    subnormal += o.subnormal;
    overflow += o.overflow;
    nan_in += o.nan_in;
    inf_in += o.inf_in;
    zero_in += o.zero_in;
  }
  void CopyCountsTo(CastCounts* c) const {
    c->underflow = underflow;
    c->flushed = flushed;
    c->subnormal = subnormal;
    c->overflow = overflow;
    c->nan_in = nan_in;
    c->inf_in = inf_in;
    c->zero_in = zero_in;
  }
};

// The counts of n elements cast by several workers: integer counts summed,
// the per-chunk sums combined in the fixed order of formats/fixed_sum.h.
inline CastCounts FinishCounts(size_t n, const std::vector<CastState>& partial,
                               const std::vector<double>& chunk_err,
                               const std::vector<double>& chunk_sig) {
  CastState total;
  for (const CastState& s : partial) total.AddCounts(s);
  CastCounts c;
  c.numel = n;
  total.CopyCountsTo(&c);
  c.sq_error = PairwiseSum(chunk_err.data(), chunk_err.size());
  c.sq_signal = PairwiseSum(chunk_sig.data(), chunk_sig.size());
  return c;
}

// One element exactly as QuantizeRef treats it (the scalar heads and tails of
// the vector loops, and vectors holding fp32 specials). `pos` is the element's
// position in the summation order; the stochastic index is index_offset + pos.
// Returns the code; writes q if `q_out`.
inline uint32_t CastElement(const CastParams& p, float x, float scale, float inv_scale,
                            uint64_t pos, bool sums, bool sig, CastState* st, float* q_out) {
  const uint32_t r = p.rounding == Rounding::kStochastic
                         ? StochasticBits(p.key, p.index_offset + pos) : 0u;
  const Encoded enc = EncodeScaledRef(*p.format, x, scale, p.rounding, r);
  st->AddFlags(enc.flags);
  if (q_out != nullptr || sums) {
    const float q = DecodeRef(*p.format, enc.code) * inv_scale;
    if (q_out) *q_out = q;
    if (sums && std::isfinite(x)) {
      if (std::isfinite(q)) {
        const double d = static_cast<double>(x) - static_cast<double>(q);
        st->err[pos % kSumLanes] += d * d;
        if (sig) st->sig[pos % kSumLanes] += static_cast<double>(x) * static_cast<double>(x);
      } else {
        st->sig_mismatch = true;
      }
    }
  }
  return enc.code;
}

}  // namespace internal
}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_INTERNAL_CAST_PARAMS_H_
