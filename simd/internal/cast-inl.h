// Per-target cast core: fp32 vectors -> format codes -> fp32, bit-exact with
// formats/reference.cc (EncodeScaledRef, DecodeRef) and QuantizeRef's sums.
//
// Included by the kernels' -inl.h files inside their HWY_NAMESPACE passes;
// nothing here is exported on its own. CastRange is the one entry point:
//
//   CastRange<Rounding::kNearestEven, kOutFloat, /*kSums=*/true, /*kSig=*/true,
//             /*kLaneScale=*/false>(params, in, n, pos, out, nullptr, nullptr, &state);
//
// Each f32 vector takes one of three paths, chosen per vector:
//  A. every lane is zero or rounds inside the format's normal range: rounding
//     is integer arithmetic on the fp32 bits (bias, then mask) -- few ops;
//  B. every lane of x*scale is finite (zero only where x is zero): the
//     reference's steps 2-7 lane by lane (normalize, variable shifts, round,
//     pack, classify);
//  C. otherwise (Inf or NaN in x*scale, or a nonzero x that scaled to zero):
//     each lane goes through EncodeScaledRef itself.
// Decoding builds fp32 bits directly (normal results) or multiplies by exact
// powers of two (results below 2^-126), then blends the special codes.
//
// Contract: p comes from MakeCastParams; positions are summation positions
// (fixed_sum.h): the vector body starts at a multiple of kSumLanes, heads and
// tails go through CastElement, so any [pos, pos + n) inside one chunk works.

#if defined(LPSIM_SIMD_INTERNAL_CAST_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_INTERNAL_CAST_INL_H_
#undef LPSIM_SIMD_INTERNAL_CAST_INL_H_
#else
#define LPSIM_SIMD_INTERNAL_CAST_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "formats/fixed_sum.h"
#include "formats/reference.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "simd/internal/cast_params.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;
using VI = hn::Vec<DI>;

// Layout of the kSumLanes double accumulators of fixed_sum.h: a f32 vector of
// kNF lanes is promoted in kParts f64 vectors of kND lanes; kK f64 vectors
// hold the 8 accumulators; kU f32 vectors form a step of kStep elements
// (a multiple of kSumLanes) so every part lands on a fixed accumulator.
#if HWY_TARGET == HWY_SCALAR
constexpr size_t kParts = 1;
using DD = hn::Rebind<double, DF>;
#else
constexpr size_t kParts = 2;
using DH = hn::Half<DF>;
using DD = hn::Rebind<double, DH>;
#endif
using VD = hn::Vec<DD>;
constexpr size_t kNF = hn::MaxLanes(DF());
constexpr size_t kND = kNF / kParts;
constexpr size_t kK = kSumLanes / kND;
constexpr size_t kU = kNF >= kSumLanes ? 1 : kSumLanes / kNF;
constexpr size_t kStep = kU * kNF;
static_assert(kND * kParts == kNF && kK * kND == kSumLanes, "unexpected vector layout");

template <size_t kPart>
HWY_INLINE VD PromotePart(VF v) {
#if HWY_TARGET == HWY_SCALAR
  return hn::PromoteTo(DD(), v);
#else
  return kPart == 0 ? hn::PromoteTo(DD(), hn::LowerHalf(DH(), v))
                    : hn::PromoteTo(DD(), hn::UpperHalf(DH(), v));
#endif
}

// Which of the kK accumulator vectors part `part` of vector `u` of a step feeds.
constexpr size_t AccIndex(size_t u, size_t part) { return (u * kParts + part) % kK; }

enum OutKind { kOutNone, kOutFloat, kOutU8, kOutU16, kOutU32 };

template <int kOut> struct OutType { using T = void; };
template <> struct OutType<kOutFloat> { using T = float; };
template <> struct OutType<kOutU8> { using T = uint8_t; };
template <> struct OutType<kOutU16> { using T = uint16_t; };
template <> struct OutType<kOutU32> { using T = uint32_t; };

// formats/stochastic.h Mix32, lane by lane.
HWY_INLINE VU Mix32(VU x) {
  const DU du;
  x = hn::Xor(x, hn::ShiftRight<16>(x));
  x = hn::Mul(x, hn::Set(du, 0x7feb352du));
  x = hn::Xor(x, hn::ShiftRight<15>(x));
  x = hn::Mul(x, hn::Set(du, 0x846ca68bu));
  return hn::Xor(x, hn::ShiftRight<16>(x));
}

// StochasticBits(key, index + lane) for every lane; index is 64-bit, so lanes
// that wrap the low word carry into the high word.
HWY_INLINE VU StochasticBitsVec(uint32_t key, uint64_t index) {
  const DU du;
  const uint32_t lo = static_cast<uint32_t>(index);
  const VU vlo = hn::Add(hn::Set(du, lo), hn::Iota(du, 0));
  VU vhi = hn::Set(du, static_cast<uint32_t>(index >> 32));
  if (lo > 0xffffffffu - static_cast<uint32_t>(kNF - 1)) {
    vhi = hn::Sub(vhi, hn::VecFromMask(du, hn::Lt(vlo, hn::Set(du, lo))));
  }
  return Mix32(hn::Add(Mix32(hn::Xor(vlo, hn::Set(du, key))), vhi));
}

// The fast path's rounding of a magnitude's fp32 bits `vabs` to the
// format's precision (dropped bits = k_low): RNE adds the tie-to-even bias,
// stochastic adds (2^s - 1) - (r >> (32 - s)) (up iff r's top bits < the
// dropped bits), RTZ adds nothing; the dropped bits are then cleared.
// `index` is the element index of lane 0 for the stochastic stream.
template <Rounding R>
HWY_INLINE VU RoundMagnitude(const internal::CastParams& p, VU vabs, VU k_low, uint64_t index) {
  const DU du;
  VU rq = vabs;
  if (R == Rounding::kNearestEven) {
    const VU bias = hn::Add(hn::Set(du, p.rne_base),
                            hn::And(hn::ShiftRightSame(vabs, static_cast<int>(p.s)), hn::Set(du, p.odd_mask)));
    rq = hn::Add(vabs, bias);
  } else if (R == Rounding::kStochastic) {
    const VU r = StochasticBitsVec(p.key, index);
    rq = hn::Add(vabs, hn::AndNot(hn::ShiftRightSame(r, static_cast<int>(p.sr_shift)), k_low));
  }
  return hn::AndNot(k_low, rq);
}

// DecodeRef lane by lane (codes must be valid: below 2^total_bits). Integer
// arithmetic only: no fp32 operation sees a subnormal, which would cost a
// microcode assist per vector on x86.
HWY_INLINE VF DecodeVec(const internal::CastParams& p, VU code) {
  const DF df;
  const DU du;
  const DI di;
  const VU mag = hn::And(code, hn::Set(du, p.code_mask & ~p.sign_mask));
  const VU ib = hn::Add(hn::ShiftLeftSame(mag, static_cast<int>(p.s)), hn::Set(du, p.dec_add));
  // Format-normal values with an fp32-normal result: rebias the fields.
  // Zero (magnitude 0 of a format with zero) has its own bits.
  const auto zero = p.has_zero ? hn::Eq(mag, hn::Zero(du)) : hn::Ne(mag, mag);
  VU val = hn::IfThenZeroElse(zero, hn::Add(ib, hn::Set(du, p.dec_exp_add)));
  const auto tiny = hn::AndNot(
      zero,
      hn::RebindMask(du, hn::Lt(hn::BitCast(di, mag), hn::Set(di, static_cast<int32_t>(p.tiny_limit)))));
  if (HWY_UNLIKELY(!hn::AllFalse(du, tiny))) {
    // Format subnormals and results below 2^-126: value = sig * 2^unit.
    const VU field = hn::ShiftRightSame(mag, static_cast<int>(p.m));
    const VU mant = hn::And(mag, hn::Set(du, p.sub_limit - 1));
    const VI one = hn::Set(di, p.has_zero ? 1 : 0);
    const auto fsub = hn::RebindMask(du, hn::Lt(hn::BitCast(di, field), one));
    const VU sig = hn::IfThenElse(fsub, mant, hn::Or(mant, hn::Set(du, p.sub_limit)));
    const VI unit = hn::Add(hn::Sub(hn::Max(hn::BitCast(di, field), one), one),
                            hn::Set(di, p.emin - static_cast<int32_t>(p.m)));
    // fp32-normal result: exact int->float of sig, then add unit to its exponent.
    const VU cv = hn::BitCast(du, hn::ConvertTo(df, hn::BitCast(di, sig)));
    const VU as_normal = hn::Add(cv, hn::BitCast(du, hn::ShiftLeft<23>(unit)));
    const auto normal = hn::Gt(hn::Add(hn::BitCast(di, hn::ShiftRight<23>(cv)), unit), hn::Zero(di));
    // fp32-subnormal result: its bits are sig << (unit + 149).
    const VU as_sub = hn::Shl(sig, hn::BitCast(du, hn::Min(hn::Max(hn::Add(unit, hn::Set(di, 149)),
                                                                  hn::Zero(di)),
                                                          hn::Set(di, 31))));
    val = hn::IfThenElse(tiny, hn::IfThenElse(hn::RebindMask(du, normal), as_normal, as_sub), val);
  }
  const VU sign32 =
      hn::ShiftLeftSame(hn::And(code, hn::Set(du, p.sign_mask)), static_cast<int>(p.code_sign_shift));
  VU bits = hn::Or(val, sign32);
  if (p.has_inf) {
    const auto is_inf = hn::Eq(mag, hn::Set(du, p.inf_code));
    bits = hn::IfThenElse(is_inf, hn::Or(hn::Set(du, 0x7f800000u), sign32), bits);
  }
  switch (static_cast<NanEncoding>(p.nan_kind)) {
    case NanEncoding::kNone: break;
    case NanEncoding::kIeee:
      bits = hn::IfThenElse(hn::Gt(mag, hn::Set(du, p.inf_code)),
                            hn::Or(hn::Set(du, 0x7fc00000u), sign32), bits);
      break;
    case NanEncoding::kAllOnes:
      bits = hn::IfThenElse(hn::Eq(mag, hn::Set(du, p.nan_code)),
                            hn::Or(hn::Set(du, 0x7fc00000u), sign32), bits);
      break;
    case NanEncoding::kNegativeZero:
      bits = hn::IfThenElse(hn::Eq(hn::And(code, hn::Set(du, p.code_mask)), hn::Set(du, p.sign_mask)),
                            hn::Set(du, 0x7fc00000u), bits);
      break;
  }
  return hn::BitCast(df, bits);
}

// Counters of one CastRange call, per lane (a range is at most one chunk, so
// 32 bits per lane cannot overflow).
struct CastCounters {
  VU zero_in, underflow, flushed, subnormal, overflow;
};

// Adds per-lane counters into the scalar counts of st.
HWY_INLINE void AddCounters(const CastCounters& c, internal::CastState* st) {
  const DU du;
  HWY_ALIGN uint32_t lanes[kNF];
  auto sum = [&](VU v) {
    hn::Store(v, du, lanes);
    uint64_t t = 0;
    for (size_t j = 0; j < kNF; ++j) t += lanes[j];
    return t;
  };
  st->zero_in += sum(c.zero_in);
  st->underflow += sum(c.underflow);
  st->flushed += sum(c.flushed);
  st->subnormal += sum(c.subnormal);
  st->overflow += sum(c.overflow);
}

// Path B: the reference's steps 2-7 for lanes whose v = x*scale is finite and
// nonzero, or zero with x zero. `r` holds the stochastic bits. Produces the
// code (kCode) and the decoded value's fp32 bits before the 1/scale multiply
// (kQ), the latter straight from the rounded significand when the format
// allows (p.direct_q), else through DecodeVec.
template <Rounding R, bool kCode, bool kQ>
HWY_INLINE void EncodeGeneral(const internal::CastParams& p, VU vb, VU vabs, VU r,
                              CastCounters& c, VU& code_out, VU& qbits_out) {
  const DF df;
  const DU du;
  const DI di;
  const auto neg = hn::RebindMask(du, hn::Lt(hn::BitCast(di, vb), hn::Zero(di)));
  // 4. Normalize: |v| = sig * 2^(biased - 150), sig in [2^23, 2^24).
  VI biased = hn::BitCast(di, hn::ShiftRight<23>(vabs));
  VU sig = hn::Or(hn::And(vabs, hn::Set(du, 0x7fffffu)), hn::Set(du, 0x800000u));
  const auto subnormal = hn::AndNot(hn::Eq(vabs, hn::Zero(du)),
                                    hn::RebindMask(du, hn::Eq(biased, hn::Zero(di))));
  if (HWY_UNLIKELY(!hn::AllFalse(du, subnormal))) {
    // fp32 subnormals: the exact int->float conversion of the bits finds the
    // leading one (lead = its position, 0..22); biased = lead - 22 <= 0.
    const VI lead = hn::Sub(
        hn::BitCast(di, hn::ShiftRight<23>(hn::BitCast(du, hn::ConvertTo(df, hn::BitCast(di, vabs))))),
        hn::Set(di, 127));
    const VU up = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(hn::Set(di, 23), lead), hn::Zero(di)),
                                          hn::Set(di, 31)));
    sig = hn::IfThenElse(subnormal, hn::Shl(vabs, up), sig);
    biased = hn::IfThenElse(hn::RebindMask(di, subnormal), hn::Sub(lead, hn::Set(di, 22)), biased);
  }
  const VI emin_b = hn::Set(di, p.emin + 127);
  // 5. shift = 23 + (e_eff - m) - e = (23 - m) + max(emin - e, 0).
  const VI shift = hn::Add(hn::Set(di, static_cast<int32_t>(p.s)),
                           hn::Max(hn::Sub(emin_b, biased), hn::Zero(di)));
  const VU sv = hn::BitCast(du, hn::Min(shift, hn::Set(di, 31)));
  VU n = hn::Shr(sig, sv);  // 0 once shift >= 24 (sig < 2^24)
  const VU rem = hn::Sub(sig, hn::Shl(n, sv));
  if (R == Rounding::kNearestEven) {
    // Up iff rem > half, or rem == half and (odd or no mantissa); rem != 0
    // rules out shift 0, where half is 0. All values are below 2^31.
    const VU half = hn::ShiftRight<1>(hn::Shl(hn::Set(du, 1u), sv));
    const VU tie = p.m == 0 ? hn::Set(du, 1u) : hn::And(n, hn::Set(du, 1u));
    const auto up = hn::AndNot(hn::Eq(rem, hn::Zero(du)),
                               hn::RebindMask(du, hn::Gt(hn::BitCast(di, hn::Add(rem, tie)),
                                                         hn::BitCast(di, half))));
    n = hn::Sub(n, hn::VecFromMask(du, up));
  } else if (R == Rounding::kStochastic) {
    // threshold = shift <= 32 ? rem << (32 - shift) : rem >> (shift - 32).
    const VI k32 = hn::Set(di, 32);
    const VI k31 = hn::Set(di, 31);
    const VU ls = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(k32, shift), hn::Zero(di)), k31));
    const VU rs = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(shift, k32), hn::Zero(di)), k31));
    const VU threshold = hn::Shr(hn::Shl(rem, ls), rs);
    n = hn::Sub(n, hn::VecFromMask(du, hn::Lt(r, threshold)));
  }
  // 6. Pack: ((e_eff - emin) << m) + n; zero-less formats drop one binade.
  const VI e_off = hn::Max(hn::Sub(biased, emin_b), hn::Zero(di));  // e_eff - emin
  const VU field = hn::ShiftLeftSame(hn::BitCast(du, e_off), static_cast<int>(p.m));
  VU mag = hn::Add(field, n);
  const VU sub_limit = hn::Set(du, p.sub_limit);
  if (!p.has_zero) mag = hn::Sub(hn::Max(mag, sub_limit), sub_limit);

  // 7. Classify.
  const auto vzero = hn::Eq(vabs, hn::Zero(du));
  auto live = hn::Not(vzero);
  if (!p.is_signed) live = hn::AndNot(neg, live);
  const auto over = hn::Gt(mag, hn::Set(du, p.max_code));
  auto to_zero = hn::Ne(mag, mag);  // none
  if (p.has_zero) {
    const auto zres = hn::Eq(mag, hn::Zero(du));
    const auto sub = hn::AndNot(zres, hn::Lt(mag, sub_limit));
    to_zero = p.ftz ? hn::Or(zres, sub) : zres;
    c.underflow = hn::Sub(c.underflow, hn::VecFromMask(du, hn::And(live, to_zero)));
    if (p.ftz) {
      c.flushed = hn::Sub(c.flushed, hn::VecFromMask(du, hn::And(live, sub)));
    } else {
      c.subnormal = hn::Sub(c.subnormal, hn::VecFromMask(du, hn::And(live, sub)));
    }
  }
  c.overflow = hn::Sub(c.overflow, hn::VecFromMask(du, hn::And(live, over)));
  auto zero_in = vzero;
  if (!p.is_signed && p.has_zero) zero_in = hn::AndNot(neg, vzero);  // -0: the negative rule first
  c.zero_in = hn::Sub(c.zero_in, hn::VecFromMask(du, zero_in));

  const bool need_code = kCode || (kQ && !p.direct_q);
  VU code = hn::Zero(du);
  if (need_code) {
    const VU zc = hn::IfThenElseZero(neg, hn::Set(du, p.zero_neg));
    code = hn::Or(hn::IfThenElseZero(neg, hn::Set(du, p.sign_mask)), mag);
    code = hn::IfThenElse(to_zero, zc, code);
    code = hn::IfThenElse(over, hn::IfThenElse(neg, hn::Set(du, p.ovf_neg), hn::Set(du, p.ovf_pos)),
                          code);
    // 2-3. Zero input, and negatives of unsigned formats.
    code = hn::IfThenElse(vzero, p.has_zero ? zc : hn::Set(du, p.bad_code), code);
    if (!p.is_signed) code = hn::IfThenElse(neg, hn::Set(du, p.bad_code), code);
    code_out = code;
  }
  if (kQ) {
    if (!p.direct_q) {
      qbits_out = hn::BitCast(du, DecodeVec(p, code));
      return;
    }
    // value = n * 2^(e_eff - m), an fp32 normal for every n > 0 here: the
    // exact int->float of n with (e_eff - m) added to its exponent field.
    const VI unit = hn::Add(e_off, hn::Set(di, p.emin - static_cast<int32_t>(p.m)));
    const VU cv = hn::BitCast(du, hn::ConvertTo(df, hn::BitCast(di, n)));
    VU q = hn::IfThenZeroElse(hn::Eq(n, hn::Zero(du)),
                              hn::Add(cv, hn::BitCast(du, hn::ShiftLeft<23>(unit))));
    const VU neg32 = hn::IfThenElseZero(neg, hn::Set(du, 0x80000000u));
    const VU zq = p.has_negzero ? neg32 : hn::Zero(du);
    q = hn::IfThenElse(to_zero, zq, hn::Or(q, neg32));
    q = hn::IfThenElse(over, hn::IfThenElse(neg, hn::Set(du, p.q_ovf_neg), hn::Set(du, p.q_ovf_pos)),
                       q);
    q = hn::IfThenElse(vzero, zq, q);  // direct_q formats have zero
    if (!p.is_signed) q = hn::IfThenElse(neg, hn::Set(du, p.q_bad), q);
    qbits_out = q;
  }
}

// Path B for the common formats (p.common: signed, with zero, no FTZ, m >= 1,
// direct q), when no code is wanted: the same steps as EncodeGeneral with the
// format's flags known, signed compares (magnitudes stay below 2^31) and zero
// inputs folded into the arithmetic (sig = 0 gives magnitude 0, so they
// need no blend of their own). Returns q's fp32 bits.
template <Rounding R, bool kCount>
HWY_INLINE VU EncodeCommon(const internal::CastParams& p, VU vb, VU vabs, VU r,
                           CastCounters& c) {
  const DF df;
  const DU du;
  const DI di;
  const VI vb_i = hn::BitCast(di, vb);
  const auto vzero = hn::Eq(vabs, hn::Zero(du));
  VI biased = hn::BitCast(di, hn::ShiftRight<23>(vabs));
  VU sig = hn::IfThenZeroElse(
      vzero, hn::Or(hn::And(vabs, hn::Set(du, 0x7fffffu)), hn::Set(du, 0x800000u)));
  const auto subnormal = hn::AndNot(vzero, hn::RebindMask(du, hn::Eq(biased, hn::Zero(di))));
  if (HWY_UNLIKELY(!hn::AllFalse(du, subnormal))) {
    const VI lead = hn::Sub(
        hn::BitCast(di, hn::ShiftRight<23>(hn::BitCast(du, hn::ConvertTo(df, hn::BitCast(di, vabs))))),
        hn::Set(di, 127));
    const VU up = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(hn::Set(di, 23), lead), hn::Zero(di)),
                                          hn::Set(di, 31)));
    sig = hn::IfThenElse(subnormal, hn::Shl(vabs, up), sig);
    biased = hn::IfThenElse(hn::RebindMask(di, subnormal), hn::Sub(lead, hn::Set(di, 22)), biased);
  }
  const VI emin_b = hn::Set(di, p.emin + 127);
  const VI below = hn::Max(hn::Sub(emin_b, biased), hn::Zero(di));  // emin - e if positive
  const VI shift = hn::Add(hn::Set(di, static_cast<int32_t>(p.s)), below);
  const VU sv = hn::BitCast(du, hn::Min(shift, hn::Set(di, 31)));
  VU n = hn::Shr(sig, sv);
  const VU rem = hn::Sub(sig, hn::Shl(n, sv));
  if (R == Rounding::kNearestEven) {
    const VI half = hn::BitCast(di, hn::ShiftRight<1>(hn::Shl(hn::Set(du, 1u), sv)));
    const VI tie = hn::BitCast(di, hn::And(n, hn::Set(du, 1u)));
    const VI rem_i = hn::BitCast(di, rem);
    const auto up = hn::AndNot(hn::Eq(rem_i, hn::Zero(di)), hn::Gt(hn::Add(rem_i, tie), half));
    n = hn::Sub(n, hn::BitCast(du, hn::VecFromMask(di, up)));
  } else if (R == Rounding::kStochastic) {
    const VI k32 = hn::Set(di, 32);
    const VI k31 = hn::Set(di, 31);
    const VU ls = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(k32, shift), hn::Zero(di)), k31));
    const VU rs = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(shift, k32), hn::Zero(di)), k31));
    n = hn::Sub(n, hn::VecFromMask(du, hn::Lt(r, hn::Shr(hn::Shl(rem, ls), rs))));
  }
  const VI e_off = hn::Max(hn::Sub(biased, emin_b), hn::Zero(di));
  const VI mag = hn::BitCast(
      di, hn::Add(hn::ShiftLeftSame(hn::BitCast(du, e_off), static_cast<int>(p.m)), n));
  const auto zres = hn::Eq(mag, hn::Zero(di));
  const auto sub = hn::AndNot(zres, hn::Lt(mag, hn::Set(di, static_cast<int32_t>(p.sub_limit))));
  const auto over = hn::Gt(mag, hn::Set(di, static_cast<int32_t>(p.max_code)));
  if (kCount) {
    c.underflow =
        hn::Sub(c.underflow, hn::VecFromMask(du, hn::AndNot(vzero, hn::RebindMask(du, zres))));
    c.subnormal = hn::Sub(c.subnormal, hn::BitCast(du, hn::VecFromMask(di, sub)));
    c.overflow = hn::Sub(c.overflow, hn::BitCast(du, hn::VecFromMask(di, over)));
    c.zero_in = hn::Sub(c.zero_in, hn::VecFromMask(du, vzero));
  }
  // value = n * 2^(e_eff - m): exact int->float of n, exponent field + unit.
  const VI unit = hn::Add(e_off, hn::Set(di, p.emin - static_cast<int32_t>(p.m)));
  const VI cv = hn::BitCast(di, hn::ConvertTo(df, hn::BitCast(di, n)));
  const VI neg32 = hn::And(vb_i, hn::Set(di, static_cast<int32_t>(0x80000000u)));
  VI q = hn::Or(hn::IfThenZeroElse(zres, hn::Add(cv, hn::ShiftLeft<23>(unit))),
                p.has_negzero ? neg32 : hn::IfThenZeroElse(zres, neg32));
  const VI ovf = hn::IfThenElse(hn::Lt(vb_i, hn::Zero(di)),
                                hn::Set(di, static_cast<int32_t>(p.q_ovf_neg)),
                                hn::Set(di, static_cast<int32_t>(p.q_ovf_pos)));
  return hn::BitCast(du, hn::IfThenElse(over, ovf, q));
}

// Paths B and C for one vector: code (kCode), q = decoded value * inv (kQ),
// and whether every x lane is finite (false only after path C).
template <Rounding R, bool kCode, bool kQ, bool kCommon = false, bool kCount = true>
HWY_INLINE void GeneralVector(const internal::CastParams& p, VF x, VF sc, VF inv, VF v, VU r,
                              size_t pos, CastCounters& c, internal::CastState* st, VU& code,
                              VF& q, bool& x_finite) {
  const DF df;
  const DU du;
  const DI di;
  const VU vb = hn::BitCast(du, v);
  const VI vabs_i = hn::BitCast(di, hn::And(vb, hn::Set(du, 0x7fffffffu)));
  const VI xabs_i = hn::BitCast(di, hn::And(hn::BitCast(du, x), hn::Set(du, 0x7fffffffu)));
  // Path C for Inf/NaN in v, and for nonzero x that scaled to zero.
  const auto slow = hn::Or(hn::Gt(vabs_i, hn::Set(di, 0x7f7fffff)),
                           hn::And(hn::Eq(vabs_i, hn::Zero(di)), hn::Ne(xabs_i, hn::Zero(di))));
  if (HWY_UNLIKELY(!hn::AllFalse(di, slow))) {
    HWY_ALIGN float xs[kNF];
    HWY_ALIGN float scs[kNF];
    HWY_ALIGN uint32_t codes[kNF];
    hn::Store(x, df, xs);
    hn::Store(sc, df, scs);
    for (size_t j = 0; j < kNF; ++j) {
      codes[j] = internal::CastElement(p, xs[j], scs[j], 1.0f, pos + j, /*sums=*/false, false, st,
                                       nullptr);
    }
    code = hn::Load(du, codes);
    if (kQ) q = hn::Mul(DecodeVec(p, code), inv);
    x_finite = false;
    return;
  }
  x_finite = true;
  if constexpr (kCommon && !kCode) {
    q = hn::Mul(hn::BitCast(df, EncodeCommon<R, kCount>(p, vb, hn::BitCast(du, vabs_i), r, c)),
                inv);
    return;
  }
  VU qbits = hn::Zero(du);
  EncodeGeneral<R, kCode, kQ>(p, vb, hn::BitCast(du, vabs_i), r, c, code, qbits);
  if (kQ) q = hn::Mul(hn::BitCast(df, qbits), inv);
}

// GeneralVector out of line, for the fast loop's rare misses: loads its
// inputs, writes code / q to arrays and its counts straight into st.
template <Rounding R, bool kCode, bool kQ>
HWY_NOINLINE void GeneralVectorOutOfLine(const internal::CastParams& p, const float* in,
                                         const float* lane_scale, const float* lane_inv,
                                         size_t pos, internal::CastState* st, uint32_t* code_out,
                                         float* q_out, bool* x_finite) {
  const DF df;
  const DU du;
  const VF x = hn::LoadU(df, in);
  const VF sc = lane_scale ? hn::LoadU(df, lane_scale) : hn::Set(df, p.scale);
  const VF inv = lane_inv ? hn::LoadU(df, lane_inv) : hn::Set(df, p.inv_scale);
  VU r = hn::Zero(du);
  if (R == Rounding::kStochastic) r = StochasticBitsVec(p.key, p.index_offset + pos);
  CastCounters c{hn::Zero(du), hn::Zero(du), hn::Zero(du), hn::Zero(du), hn::Zero(du)};
  VU code = hn::Zero(du);
  VF q = hn::Zero(df);
  GeneralVector<R, kCode, kQ>(p, x, sc, inv, hn::Mul(x, sc), r, pos, c, st, code, q, *x_finite);
  AddCounters(c, st);
  hn::Store(code, du, code_out);
  hn::Store(q, df, q_out);
}

// Non-temporal store of q to out, 16-byte aligned (see CastParams::stream_out):
// whole vectors on 16-byte targets, 128-bit halves on 32-byte ones (a
// malloc'd array is 16-byte aligned, not always 32). Wider targets store
// normally unless the address is a multiple of the vector size.
HWY_INLINE void StoreMaybeStream(VF q, float* HWY_RESTRICT out, bool stream) {
#if HWY_TARGET == HWY_SCALAR
  (void)stream;
  hn::StoreU(q, DF(), out);
#else
  constexpr size_t kBytes = kNF * sizeof(float);
  if (stream) {
    if constexpr (kBytes == 16) {
      return hn::Stream(q, DF(), out);
    } else if constexpr (kBytes == 32) {
      const DH dh;
      hn::Stream(hn::LowerHalf(dh, q), dh, out);
      hn::Stream(hn::UpperHalf(dh, q), dh, out + kNF / 2);
      return;
    } else {
      if (reinterpret_cast<uintptr_t>(out) % kBytes == 0) return hn::Stream(q, DF(), out);
    }
  }
  hn::StoreU(q, DF(), out);
#endif
}

// Casts in[0, n) whose first element sits at summation position pos (inside
// one chunk). kOut selects what is written to `out` (indexed like `in`);
// kSums accumulates err (and sig if kSig) into st; kLaneScale takes the scale
// and its fp32 reciprocal per element from lane_scale / lane_inv (indexed
// like `in`) instead of p.scale / p.inv_scale.
//
// Vectors run in blocks of kModeSteps steps, each block in one of two loops:
// the fast loop tries path A and sends misses out of line; the general loop
// runs paths B/C inline. A block where more than a quarter of the vectors
// missed path A switches to the general loop, which re-tries the fast one
// every 8 blocks. Both are exact, so the choice only affects speed.
template <Rounding R, int kOut, bool kSums, bool kSig, bool kLaneScale>
HWY_NOINLINE void CastRange(const internal::CastParams& params, const float* HWY_RESTRICT in,
                            size_t n, size_t pos, void* out_void, const float* lane_scale,
                            const float* lane_inv, internal::CastState* st) {
  // A local copy: stores through `out` (uint8_t may alias anything) then
  // cannot force the constants to be reloaded.
  const internal::CastParams p = params;
  using OutT = typename OutType<kOut>::T;
  OutT* HWY_RESTRICT out = static_cast<OutT*>(out_void);
  constexpr bool kQ = kOut == kOutFloat || kSums;
  constexpr bool kCode = kOut != kOutFloat && kOut != kOutNone;

  auto scalar = [&](size_t i) {
    const float sc = kLaneScale ? lane_scale[i] : p.scale;
    const float inv = kLaneScale ? lane_inv[i] : p.inv_scale;
    float q;
    const uint32_t code = internal::CastElement(p, in[i], sc, inv, pos + i, kSums, kSig, st,
                                                kOut == kOutFloat ? &q : nullptr);
    if constexpr (kOut == kOutFloat) {
      out[i] = q;
    } else if constexpr (kOut != kOutNone) {
      out[i] = static_cast<OutT>(code);
    } else {
      (void)code;
    }
  };

  size_t i = 0;
  for (; i < n && (pos + i) % kSumLanes != 0; ++i) scalar(i);
  if (n - i >= kStep) {
    const DF df;
    const DU du;
    const DI di;
    const DD dd;
    CastCounters c{hn::Zero(du), hn::Zero(du), hn::Zero(du), hn::Zero(du), hn::Zero(du)};
    VD err[kK], sig[kK];
    for (size_t k = 0; k < kK; ++k) {
      err[k] = hn::LoadU(dd, st->err + k * kND);
      sig[k] = hn::LoadU(dd, st->sig + k * kND);
    }
    const bool unit_scale = p.scale == 1.0f;
    bool mismatch = false;


    const bool exact_diff = !kLaneScale && p.fast_exact_diff;
    bool stream = false;
    if constexpr (kOut == kOutFloat) {
      stream = p.stream_out && reinterpret_cast<uintptr_t>(out + i) % 16 == 0;
    }

    // Output and sums of one vector. `fast`: q came from path A.
    auto finish = [&](size_t iu, size_t u, VF x, VU code, VF q, bool x_finite, bool fast) {
      if constexpr (kOut == kOutFloat) {
        StoreMaybeStream(q, out + iu, stream);
      } else if constexpr (kOut == kOutU32) {
        hn::StoreU(code, du, out + iu);
      } else if constexpr (kOut == kOutU16) {
        const hn::Rebind<uint16_t, DI> d16;
        hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, code)), d16, out + iu);
      } else if constexpr (kOut == kOutU8) {
        const hn::Rebind<uint8_t, DI> d8;
        hn::StoreU(hn::DemoteTo(d8, hn::BitCast(di, code)), d8, out + iu);
      } else {
        (void)code;
      }
      if constexpr (kSums) {
        if (fast && exact_diff) {
          // x, q finite, x - q exact in fp32. Squares of fp32 values are
          // exact in double, so MulAdd (fused or not) rounds only the sum.
          const VF d = hn::Sub(x, q);
          {
            const VD d0 = PromotePart<0>(d);
            const size_t a = AccIndex(u, 0);
            err[a] = hn::MulAdd(d0, d0, err[a]);
            if (kSig) {
              const VD xd = PromotePart<0>(x);
              sig[a] = hn::MulAdd(xd, xd, sig[a]);
            }
          }
          if constexpr (kParts == 2) {
            const VD d1 = PromotePart<1>(d);
            const size_t a = AccIndex(u, 1);
            err[a] = hn::MulAdd(d1, d1, err[a]);
            if (kSig) {
              const VD xd = PromotePart<1>(x);
              sig[a] = hn::MulAdd(xd, xd, sig[a]);
            }
          }
          return;
        }
        auto ok = hn::IsFinite(q);
        if (!x_finite) {
          const auto x_fin = hn::IsFinite(x);
          if (!kSig && !hn::AllFalse(df, hn::AndNot(ok, x_fin))) mismatch = true;
          ok = hn::And(ok, x_fin);
        } else if (!kSig && !hn::AllTrue(df, ok)) {
          mismatch = true;
        }
        const VF xs = hn::IfThenElseZero(ok, x);
        const VF qs = hn::IfThenElseZero(ok, q);
        {
          const VD xd = PromotePart<0>(xs);
          const VD d0 = hn::Sub(xd, PromotePart<0>(qs));
          const size_t a = AccIndex(u, 0);
          err[a] = hn::Add(err[a], hn::Mul(d0, d0));
          if (kSig) sig[a] = hn::Add(sig[a], hn::Mul(xd, xd));
        }
        if constexpr (kParts == 2) {
          const VD xd = PromotePart<1>(xs);
          const VD d1 = hn::Sub(xd, PromotePart<1>(qs));
          const size_t a = AccIndex(u, 1);
          err[a] = hn::Add(err[a], hn::Mul(d1, d1));
          if (kSig) sig[a] = hn::Add(sig[a], hn::Mul(xd, xd));
        }
      } else {
        (void)u;
        (void)x;
        (void)q;
        (void)x_finite;
        (void)fast;
      }
    };

    // Fast loop body: path A, misses out of line. Returns whether it missed.
    auto fast_vector = [&](size_t iu, size_t u) -> bool {
      const VU k_abs = hn::Set(du, 0x7fffffffu);
      const VU k_low = hn::Set(du, p.low_mask);
      // Large streamed outputs: fetch the input 4 KiB ahead (the hardware
      // prefetcher alone left the loop waiting on memory here).
      if (stream) hwy::Prefetch(in + iu + 1024);
      const VF x = hn::LoadU(df, in + iu);
      const VF sc = kLaneScale ? hn::LoadU(df, lane_scale + iu) : hn::Set(df, p.scale);
      const VF inv = kLaneScale ? hn::LoadU(df, lane_inv + iu) : hn::Set(df, p.inv_scale);
      const VF v = (kLaneScale || !unit_scale) ? hn::Mul(x, sc) : x;  // x * 1 == x
      const VU vb = hn::BitCast(du, v);
      const VU vabs = hn::And(vb, k_abs);
      const VU rq = RoundMagnitude<R>(p, vabs, k_low, p.index_offset + pos + iu);
      const auto xzero = hn::Eq(hn::BitCast(di, hn::And(hn::BitCast(du, x), k_abs)), hn::Zero(di));
      // rq is compared unsigned: NaN lanes may carry past bit 31.
      const auto in_range = hn::AndNot(
          hn::RebindMask(di, hn::Gt(rq, hn::Set(du, p.max_bits))),
          hn::Gt(hn::BitCast(di, vabs), hn::Set(di, static_cast<int32_t>(p.min_bits - 1))));
      VU code = hn::Zero(du);
      VF q = hn::Zero(df);
      if (HWY_LIKELY(hn::AllTrue(di, hn::Or(xzero, in_range)))) {
        const auto zero = hn::RebindMask(du, xzero);
        if (kSums) c.zero_in = hn::Sub(c.zero_in, hn::VecFromMask(du, zero));
        VU sign = hn::And(vb, hn::Set(du, 0x80000000u));
        if (!p.has_negzero) sign = hn::IfThenZeroElse(zero, sign);
        if (kQ) q = hn::Mul(hn::BitCast(df, hn::Or(rq, sign)), inv);
        if (kCode) {
          const VU mag = hn::IfThenZeroElse(
              zero, hn::Sub(hn::ShiftRightSame(rq, static_cast<int>(p.s)), hn::Set(du, p.rebias)));
          code = hn::Or(mag, hn::ShiftRightSame(sign, static_cast<int>(p.code_sign_shift)));
        }
        finish(iu, u, x, code, q, true, true);
        return false;
      }
      HWY_ALIGN uint32_t code_buf[kNF];
      HWY_ALIGN float q_buf[kNF];
      bool x_finite = true;
      GeneralVectorOutOfLine<R, kCode, kQ>(p, in + iu, kLaneScale ? lane_scale + iu : nullptr,
                                           kLaneScale ? lane_inv + iu : nullptr, pos + iu, st,
                                           code_buf, q_buf, &x_finite);
      finish(iu, u, x, hn::Load(du, code_buf), hn::Load(df, q_buf), x_finite, false);
      return true;
    };

    // General loop body: paths B/C inline.
    auto general_vector = [&](auto common, size_t iu, size_t u) {
      constexpr bool kCommon = decltype(common)::value;
      const VF x = hn::LoadU(df, in + iu);
      const VF sc = kLaneScale ? hn::LoadU(df, lane_scale + iu) : hn::Set(df, p.scale);
      const VF inv = kLaneScale ? hn::LoadU(df, lane_inv + iu) : hn::Set(df, p.inv_scale);
      const VF v = (kLaneScale || !unit_scale) ? hn::Mul(x, sc) : x;
      VU r = hn::Zero(du);
      if (R == Rounding::kStochastic) r = StochasticBitsVec(p.key, p.index_offset + pos + iu);
      VU code = hn::Zero(du);
      VF q = hn::Zero(df);
      bool x_finite = true;
      GeneralVector<R, kCode, kQ, kCommon, kSums>(p, x, sc, inv, v, r, pos + iu, c, st, code, q,
                                                  x_finite);
      finish(iu, u, x, code, q, x_finite, false);
    };

    constexpr size_t kModeSteps = 16;
    bool fast_mode = p.fast;
    size_t general_blocks = 0;
    while (n - i >= kStep) {
      const size_t steps = HWY_MIN(kModeSteps, (n - i) / kStep);
      if (fast_mode) {
        size_t missed = 0;
        for (size_t k = 0; k < steps; ++k, i += kStep) {
          for (size_t u = 0; u < kU; ++u) missed += fast_vector(i + u * kNF, u);
        }
        if (missed * 4 > steps * kU) fast_mode = false;
      } else if (!kCode && p.common) {
        for (size_t k = 0; k < steps; ++k, i += kStep) {
          for (size_t u = 0; u < kU; ++u) general_vector(std::true_type(), i + u * kNF, u);
        }
        if (++general_blocks % 8 == 0) fast_mode = true;
      } else {
        for (size_t k = 0; k < steps; ++k, i += kStep) {
          for (size_t u = 0; u < kU; ++u) general_vector(std::false_type(), i + u * kNF, u);
        }
        if (p.fast && ++general_blocks % 8 == 0) fast_mode = true;
      }
    }
    for (size_t k = 0; k < kK; ++k) {
      hn::StoreU(err[k], dd, st->err + k * kND);
      hn::StoreU(sig[k], dd, st->sig + k * kND);
    }
    if (mismatch) st->sig_mismatch = true;
    AddCounters(c, st);
    if (stream) hwy::FlushStream();  // order the streamed stores before any later ones
  }
  for (; i < n; ++i) scalar(i);
}

// Picks the CastRange instantiation for a run-time rounding mode.
template <int kOut, bool kSums, bool kSig, bool kLaneScale>
HWY_INLINE void CastRangeAny(const internal::CastParams& p, const float* in, size_t n, size_t pos,
                             void* out, const float* lane_scale, const float* lane_inv,
                             internal::CastState* st) {
  switch (p.rounding) {
    case Rounding::kNearestEven:
      return CastRange<Rounding::kNearestEven, kOut, kSums, kSig, kLaneScale>(
          p, in, n, pos, out, lane_scale, lane_inv, st);
    case Rounding::kTowardZero:
      return CastRange<Rounding::kTowardZero, kOut, kSums, kSig, kLaneScale>(
          p, in, n, pos, out, lane_scale, lane_inv, st);
    case Rounding::kStochastic:
      return CastRange<Rounding::kStochastic, kOut, kSums, kSig, kLaneScale>(
          p, in, n, pos, out, lane_scale, lane_inv, st);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
