// Per-target paths B and C of the cast core (cast-inl.h has the overview):
// the reference's steps 2-7 lane by lane (EncodeGeneral, and EncodeCommon for
// the common formats), the per-vector dispatch to path C (GeneralVector) and
// its out-of-line form for the fast loop's misses.
//
//   GeneralVector<R, kCode, kQ>(p, x, sc, inv, x * sc, r, pos, counters, st, code, q, finite);

#if defined(LPSIM_SIMD_INTERNAL_CAST_ENCODE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_INTERNAL_CAST_ENCODE_INL_H_
#undef LPSIM_SIMD_INTERNAL_CAST_ENCODE_INL_H_
#else
#define LPSIM_SIMD_INTERNAL_CAST_ENCODE_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "formats/reference.h"
#include "hwy/highway.h"
#include "simd/internal/cast-core-inl.h"
#include "simd/internal/cast_params.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace simd {
namespace HWY_NAMESPACE {

// Step 4 for fp32 subnormal inputs (the `subnormal` lanes, rare): the exact
// int->float conversion of the bits finds the leading one (lead = its
// position, 0..22); sig gets it at bit 23 and biased = lead - 22 <= 0.
// Shared by EncodeGeneral and EncodeCommon.
template <class M>
HWY_INLINE void NormalizeSubnormals(VU vabs, M subnormal, VU& sig, VI& biased) {
  const DF df;
  const DU du;
  const DI di;
  if (HWY_UNLIKELY(!hn::AllFalse(du, subnormal))) {
    const VI lead = hn::Sub(
        hn::BitCast(di, hn::ShiftRight<23>(hn::BitCast(du, hn::ConvertTo(df, hn::BitCast(di, vabs))))),
        hn::Set(di, 127));
    const VU up = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(hn::Set(di, 23), lead), hn::Zero(di)),
                                          hn::Set(di, 31)));
    sig = hn::IfThenElse(subnormal, hn::Shl(vabs, up), sig);
    biased = hn::IfThenElse(hn::RebindMask(di, subnormal), hn::Sub(lead, hn::Set(di, 22)), biased);
  }
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
  NormalizeSubnormals(vabs, subnormal, sig, biased);
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
  NormalizeSubnormals(vabs, subnormal, sig, biased);
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

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
