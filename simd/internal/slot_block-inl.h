// Per-target analysis of one format slot over a clean block (Analyze only):
// the rounding error sum and the counts, without codes, decodes or
// special-value handling, for blocks whose range the caller has checked.
//
// Included by analyze-inl.h inside its HWY_NAMESPACE pass, after cast-inl.h.
//
//   SlotPlan plan = MakeSlotPlan(p);
//   if (SlotBlockApplies(p, plan, info)) SlotBlockAny(p, plan, x, n, pos, info, &st);
//   else CastRange(...);  // the general path
//
// Why it is exact. The block holds no fp32 Inf/NaN/subnormal (the fused
// statistics loop checked), and the caller checked, from the block's smallest
// nonzero and largest |x|, that every nonzero v = |x| * scale is an fp32
// normal and v <= max. The format is `common` (signed, with zero, no FTZ,
// m >= 1, every nonzero value an fp32 normal). Then for every lane the
// reference (EncodeScaledRef + DecodeRef) reduces to rounding v to the
// format's quantum 2^(max(e, emin) - m), e = floor(log2 v), which on the fp32
// bits of v is:
//  - k = (23 - m) + max(emin - e, 0) dropped bits, k <= 23 (v >= Q, Q the
//    smallest subnormal 2^(emin - m)): add the rounding bias and clear the low
//    k bits, as path A does with its fixed k; the parity bit of n for ties is
//    bit k of the significand (the hidden bit when k = 23), and a carry into
//    the exponent field is the correct next power of two;
//  - k >= 24 (v < Q): the result is 0 or Q. RNE: Q iff v > Q/2 (m >= 1: a tie
//    goes to the even 0); RTZ: 0; stochastic: Q iff r < floor(v / Q * 2^32),
//    the reference's threshold (sig << 32) >> k.
// q = rounded * (1/scale) in fp32, as the reference decodes; the sign does
// not change (x - q)^2, so everything runs on magnitudes. The squared error
// is the reference's: d = double(|x|) - double(|q|), d * d, then the add
// (separately rounded: d need not be short). Blocks whose nonzero v are all
// format normals (kNormalOnly) use path A's rounding and, when
// p.fast_exact_diff holds, its exact fp32 difference with one FMA.
// Mode 2 needs none of `common` but path A itself (signed, with zero): every
// nonzero v is then a format normal and an fp32 normal, so path A's result is
// the reference's whatever the format's subnormals are (bf16's are fp32
// subnormals, which is why bf16 is not `common`).
// Counts: underflow = (rounded == 0) - zeros, subnormal = 0 < rounded <
// 2^emin, zero_in = zeros (all |x| = 0 lanes: zero codes); the gate rules out
// overflow, NaN/Inf inputs and flushes.

#if defined(LPSIM_SIMD_INTERNAL_SLOT_BLOCK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_INTERNAL_SLOT_BLOCK_INL_H_
#undef LPSIM_SIMD_INTERNAL_SLOT_BLOCK_INL_H_
#else
#define LPSIM_SIMD_INTERNAL_SLOT_BLOCK_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "formats/fixed_sum.h"
#include "hwy/highway.h"
#include "simd/internal/cast-inl.h"
#include "simd/internal/cast_params.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace simd {
namespace HWY_NAMESPACE {

// What the fused statistics loop learned about one block's vector part.
struct BlockInfo {
  bool clean = false;           // no fp32 Inf/NaN/subnormal: the fields below hold
  uint32_t min_abs_m1 = 0;      // min(|x| bits - 1): zeros wrap to 0xffffffff
  uint32_t max_abs_bits = 0;    // largest |x| bits
  uint32_t zeros = 0;           // elements equal to +-0
};

// Per-slot constants of SlotBlock (derived once per Analyze call).
struct SlotPlan {
  bool eligible = false;   // p.common and max * (1/scale) finite
  // Normal-only blocks (mode 2) need less: path A applies (p.fast) and
  // max * (1/scale) is finite. bf16 is here but not `common` (its
  // subnormals are fp32 subnormals).
  bool eligible_normal = false;
  uint32_t q_bits = 0;     // 2^(emin - m): the format's smallest subnormal
  uint32_t half_q_bits = 0;  // 2^(emin - m - 1) (fp32 bits; may be an fp32 subnormal)
  uint32_t minnorm_bits = 0;  // 2^emin
  int32_t emin_b = 0;      // emin + 127
};

HWY_INLINE uint32_t SlotFloatBits(float f) {
  uint32_t b;
  __builtin_memcpy(&b, &f, sizeof b);
  return b;
}

HWY_INLINE SlotPlan MakeSlotPlan(const internal::CastParams& p) {
  SlotPlan plan;
  const bool max_finite = std::isfinite(p.format->MaxValue() * p.inv_scale);
  plan.eligible = p.common && max_finite;
  plan.eligible_normal = p.fast && max_finite;
  // 2^emin, or the smallest fp32 normal when the format's normal range
  // reaches below it (a clean block's nonzero v are fp32 normals anyway).
  plan.minnorm_bits = SlotFloatBits(std::ldexp(1.0f, std::max(p.emin, -126)));
  if (!plan.eligible) return plan;
  const int m = static_cast<int>(p.m);
  plan.q_bits = SlotFloatBits(std::ldexp(1.0f, p.emin - m));
  plan.half_q_bits = SlotFloatBits(std::ldexp(1.0f, p.emin - m - 1));
  plan.emin_b = p.emin + 127;
  return plan;
}

// Which SlotBlock (if any) may run on a block: 0 none, 1 general, 2 normal-only.
HWY_INLINE int SlotBlockMode(const internal::CastParams& p, const SlotPlan& plan,
                             const BlockInfo& info) {
  if (!plan.eligible_normal || !info.clean) return 0;
  float hi;
  __builtin_memcpy(&hi, &info.max_abs_bits, sizeof hi);
  if (SlotFloatBits(hi * p.scale) > p.max_bits) return 0;  // might overflow
  if (info.min_abs_m1 == 0xffffffffu) return 2;              // zeros only
  const uint32_t lo_bits = info.min_abs_m1 + 1u;
  float lo;
  __builtin_memcpy(&lo, &lo_bits, sizeof lo);
  const uint32_t lo_v = SlotFloatBits(lo * p.scale);
  if (lo_v < 0x00800000u) return 0;  // an fp32 subnormal (or 0) after scaling
  if (lo_v >= plan.minnorm_bits) return 2;
  return plan.eligible ? 1 : 0;
}

// The block x[0, n) (n a multiple of kStep, pos a multiple of kSumLanes) for
// one slot: err sums into st->err, counts into st. Preconditions: see the
// file comment and SlotBlockMode (mode 2 for kNormalOnly).
template <Rounding R, bool kNormalOnly, bool kExactDiff>
HWY_NOINLINE void SlotBlock(const internal::CastParams& p, const SlotPlan& plan,
                            const float* HWY_RESTRICT x, size_t n, size_t pos, uint32_t zeros,
                            internal::CastState* st) {
  const DF df;
  const DU du;
  const DI di;
  const DD dd;
  VD err[kK];
  for (size_t j = 0; j < kK; ++j) err[j] = hn::LoadU(dd, st->err + j * kND);
  const VU k_abs = hn::Set(du, 0x7fffffffu);
  const VF sc = hn::Set(df, p.scale);
  const VF inv = hn::Set(df, p.inv_scale);
  const VU k_low = hn::Set(du, p.low_mask);
  const VI k_s = hn::Set(di, static_cast<int32_t>(p.s));
  const VI k_emin_b = hn::Set(di, plan.emin_b);
  const VI k_23 = hn::Set(di, 23);
  const VI k_31 = hn::Set(di, 31);
  const VI k_32 = hn::Set(di, 32);
  const VU k_ones = hn::Set(du, 0xffffffffu);
  const VU k_one = hn::Set(du, 1u);
  const VU k_hidden = hn::Set(du, 0x00800000u);
  const VU k_mant = hn::Set(du, 0x007fffffu);
  const VI k_q = hn::Set(di, static_cast<int32_t>(plan.q_bits));
  const VI k_half_q = hn::Set(di, static_cast<int32_t>(plan.half_q_bits));
  const VI k_minnorm = hn::Set(di, static_cast<int32_t>(plan.minnorm_bits));
  VU zero_cnt = hn::Zero(du);  // lanes rounded to 0 (zeros included)
  VU low_cnt = hn::Zero(du);   // lanes rounded below 2^emin (the above included)

  for (size_t i = 0; i < n; i += kStep) {
    for (size_t u = 0; u < kU; ++u) {
      const size_t iu = i + u * kNF;
      const VF xa = hn::BitCast(df, hn::And(hn::BitCast(du, hn::LoadU(df, x + iu)), k_abs));
      const VU vb = hn::BitCast(du, hn::Mul(xa, sc));
      VU rq;
      if constexpr (kNormalOnly) {
        rq = RoundMagnitude<R>(p, vb, k_low, p.index_offset + pos + iu);
      } else {
        const VI vi = hn::BitCast(di, vb);
        // Dropped bits k, and k clamped to 23 for the k <= 23 arithmetic.
        const VI k = hn::Add(k_s, hn::Max(hn::Sub(k_emin_b, hn::ShiftRight<23>(vi)), hn::Zero(di)));
        const VU kc = hn::BitCast(du, hn::Min(k, k_23));
        const VU keep = hn::Shl(k_ones, kc);
        const VU low = hn::Not(keep);
        const auto tiny = hn::RebindMask(du, hn::Gt(k, k_23));
        VU main = vb;
        VU tiny_q = hn::Zero(du);
        if (R == Rounding::kNearestEven) {
          const VU odd = hn::And(hn::Shr(hn::Or(vb, k_hidden), kc), k_one);
          main = hn::Add(vb, hn::Add(hn::ShiftRight<1>(low), odd));
          tiny_q = hn::BitCast(du, hn::IfThenElseZero(hn::Gt(vi, k_half_q), k_q));
        } else if (R == Rounding::kStochastic) {
          const VU r = StochasticBitsVec(p.key, p.index_offset + pos + iu);
          main = hn::Add(vb, hn::AndNot(hn::Shr(r, hn::BitCast(du, hn::Sub(k_32, hn::BitCast(di, kc)))),
                                        low));
          // threshold = k <= 32 ? sig << (32 - k) : sig >> (k - 32), for v > 0.
          const VU sig = hn::Or(hn::And(vb, k_mant), k_hidden);
          const VU ls = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(k_32, k), hn::Zero(di)), k_31));
          const VU rs = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(k, k_32), hn::Zero(di)), k_31));
          const VU threshold = hn::Shr(hn::Shl(sig, ls), rs);
          const auto up = hn::AndNot(hn::Eq(vb, hn::Zero(du)), hn::Lt(r, threshold));
          tiny_q = hn::IfThenElseZero(up, hn::BitCast(du, k_q));
        }
        rq = hn::IfThenElse(tiny, tiny_q, hn::And(main, keep));
        zero_cnt = hn::Sub(zero_cnt, hn::VecFromMask(du, hn::Eq(rq, hn::Zero(du))));
        low_cnt = hn::Sub(low_cnt, hn::BitCast(du, hn::VecFromMask(
                                                   di, hn::Lt(hn::BitCast(di, rq), k_minnorm))));
      }
      const VF q = hn::Mul(hn::BitCast(df, rq), inv);
      if constexpr (kNormalOnly && kExactDiff) {
        // |x| - |q| exact in fp32 (p.fast_exact_diff); its square exact in double.
        const VF d = hn::Sub(xa, q);
        const VD d0 = PromotePart<0>(d);
        const size_t a0 = AccIndex(u, 0);
        err[a0] = hn::MulAdd(d0, d0, err[a0]);
        if constexpr (kParts == 2) {
          const VD d1 = PromotePart<1>(d);
          const size_t a1 = AccIndex(u, 1);
          err[a1] = hn::MulAdd(d1, d1, err[a1]);
        }
      } else {
        const VD d0 = hn::Sub(PromotePart<0>(xa), PromotePart<0>(q));
        const size_t a0 = AccIndex(u, 0);
        err[a0] = hn::Add(err[a0], hn::Mul(d0, d0));
        if constexpr (kParts == 2) {
          const VD d1 = hn::Sub(PromotePart<1>(xa), PromotePart<1>(q));
          const size_t a1 = AccIndex(u, 1);
          err[a1] = hn::Add(err[a1], hn::Mul(d1, d1));
        }
      }
    }
  }
  for (size_t j = 0; j < kK; ++j) hn::StoreU(err[j], dd, st->err + j * kND);
  st->zero_in += zeros;
  if constexpr (!kNormalOnly) {
    HWY_ALIGN uint32_t lanes[kNF];
    uint64_t to_zero = 0, below = 0;
    hn::Store(zero_cnt, du, lanes);
    for (size_t j = 0; j < kNF; ++j) to_zero += lanes[j];
    hn::Store(low_cnt, du, lanes);
    for (size_t j = 0; j < kNF; ++j) below += lanes[j];
    st->underflow += to_zero - zeros;
    st->subnormal += below - to_zero;
  }
}

// SlotBlock for a run-time rounding mode and block mode (1 or 2).
HWY_INLINE void SlotBlockAny(const internal::CastParams& p, const SlotPlan& plan, int mode,
                             const float* x, size_t n, size_t pos, uint32_t zeros,
                             internal::CastState* st) {
  const bool exact = p.fast_exact_diff;
  switch (p.rounding) {
    case Rounding::kNearestEven:
      if (mode == 1) return SlotBlock<Rounding::kNearestEven, false, false>(p, plan, x, n, pos, zeros, st);
      if (exact) return SlotBlock<Rounding::kNearestEven, true, true>(p, plan, x, n, pos, zeros, st);
      return SlotBlock<Rounding::kNearestEven, true, false>(p, plan, x, n, pos, zeros, st);
    case Rounding::kTowardZero:
      if (mode == 1) return SlotBlock<Rounding::kTowardZero, false, false>(p, plan, x, n, pos, zeros, st);
      if (exact) return SlotBlock<Rounding::kTowardZero, true, true>(p, plan, x, n, pos, zeros, st);
      return SlotBlock<Rounding::kTowardZero, true, false>(p, plan, x, n, pos, zeros, st);
    case Rounding::kStochastic:
      if (mode == 1) return SlotBlock<Rounding::kStochastic, false, false>(p, plan, x, n, pos, zeros, st);
      if (exact) return SlotBlock<Rounding::kStochastic, true, true>(p, plan, x, n, pos, zeros, st);
      return SlotBlock<Rounding::kStochastic, true, false>(p, plan, x, n, pos, zeros, st);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
