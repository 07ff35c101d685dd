// Per-target bodies of simd/integer.h: the finite range of a tensor or row,
// and the affine integer cast, bit-exact with formats/integer.cc
// (QuantizeIntRef, DequantizeIntRef) and the sums of
// formats/internal/cast_counter.h. Parameters, threading and dispatch live
// in integer.cc.
//
// The cast of one vector, for finite nonzero x:
//   v = x / scale (fp32, as the reference divides);
//   R = round(v): half away from zero as trunc(v) + sign(v) when
//       |v - trunc(v)| >= 1/2 (v - trunc(v) is exact in fp32); RNE by
//       Round; stochastic in double, as the reference forms floor(v),
//       the fraction and its 32-bit threshold;
//   R is clamped to [qmin - zp - 1, qmax - zp + 1] in fp32 (small integers,
//       exact; the clamp keeps which side overflowed), then
//   q = clamp(int(R) + zp, qmin, qmax), overflow where that clamped;
// NaN, Inf and zero lanes are blended in from their special results.

#if defined(LPSIM_SIMD_INTEGER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_INTEGER_INL_H_
#undef LPSIM_SIMD_INTEGER_INL_H_
#else
#define LPSIM_SIMD_INTEGER_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "formats/fixed_sum.h"
#include "hwy/highway.h"
#include "simd/internal/cast-inl.h"
#include "simd/internal/cast_params.h"
#include "simd/internal/lattice_params.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace simd {
namespace HWY_NAMESPACE {

// min(0, finite x) and max(0, finite x) over x[0, n): non-finite lanes are
// replaced by 0, which cannot move either end.
void FiniteRange(const float* HWY_RESTRICT x, size_t n, float* lo_out, float* hi_out) {
  const DF df;
  VF lo = hn::Zero(df), hi = hn::Zero(df);
  size_t i = 0;
  for (; i + kNF <= n; i += kNF) {
    const VF v = hn::LoadU(df, x + i);
    const VF m = hn::IfThenElseZero(hn::IsFinite(v), v);
    lo = hn::Min(lo, m);
    hi = hn::Max(hi, m);
  }
  HWY_ALIGN float lanes_lo[kNF];
  HWY_ALIGN float lanes_hi[kNF];
  hn::Store(lo, df, lanes_lo);
  hn::Store(hi, df, lanes_hi);
  float a = 0.0f, b = 0.0f;
  for (size_t j = 0; j < kNF; ++j) {
    a = std::min(a, lanes_lo[j]);
    b = std::max(b, lanes_hi[j]);
  }
  for (; i < n; ++i) {
    if (std::isfinite(x[i])) {
      a = std::min(a, x[i]);
      b = std::max(b, x[i]);
    }
  }
  *lo_out = a;
  *hi_out = b;
}

// The reference's stochastic rounding of v (fp32 values, promoted exactly):
// floor(v) + 1 iff r < floor((v - floor(v)) * 2^32), all in double and exact.
template <size_t kPart>
HWY_INLINE VD StochasticPart(VF v, VI r_signed) {
  const DD dd;
  const VD vd = PromotePart<kPart>(v);
  const VD fl = hn::Floor(vd);
  const VD two32 = hn::Set(dd, 4294967296.0);
  // floor(frac * 2^32) as the reference forms it: floor(v 2^32) - fl 2^32.
  const VD threshold = hn::Sub(hn::Floor(hn::Mul(vd, two32)), hn::Mul(fl, two32));
#if HWY_TARGET == HWY_SCALAR
  const VD rd = hn::PromoteTo(dd, r_signed);
#else
  const hn::Half<DI> dih;
  const VD rd = hn::PromoteTo(dd, kPart == 0 ? hn::LowerHalf(dih, r_signed)
                                             : hn::UpperHalf(dih, r_signed));
#endif
  // r_signed is r - 2^31; both sides are exact integers in double.
  const VD r = hn::Add(rd, hn::Set(dd, 2147483648.0));
  return hn::IfThenElse(hn::Lt(r, threshold), hn::Add(fl, hn::Set(dd, 1.0)), fl);
}

template <IntRounding R>
HWY_INLINE VF RoundInt(VF v, uint32_t key, uint64_t index) {
  const DF df;
  if (R == IntRounding::kHalfAway) {
    const VF t = hn::Trunc(v);
    const VF up = hn::CopySignToAbs(hn::Set(df, 1.0f), v);
    return hn::IfThenElse(hn::Ge(hn::Abs(hn::Sub(v, t)), hn::Set(df, 0.5f)), hn::Add(t, up), t);
  } else if (R == IntRounding::kNearestEven) {
    return hn::Round(v);
  } else {
    const DI di;
    const VI rs = hn::BitCast(di, hn::Xor(StochasticBitsVec(key, index),
                                          hn::Set(DU(), 0x80000000u)));
    // Integers of magnitude <= 2^24 + 1 or fp32 values already integral:
    // exact in fp32.
#if HWY_TARGET == HWY_SCALAR
    return hn::DemoteTo(df, StochasticPart<0>(v, rs));
#else
    const DH dh;
    return hn::Combine(df, hn::DemoteTo(dh, StochasticPart<1>(v, rs)),
                       hn::DemoteTo(dh, StochasticPart<0>(v, rs)));
#endif
  }
}

// in[0, n) at summation positions pos.., with one grid; q to out[0, n).
template <IntRounding R, bool kSums>
HWY_NOINLINE void IntCastRangeT(const internal::IntCastParams& params,
                                const float* in, size_t n, size_t pos,
                                float* out, internal::CastState* st) {
  const internal::IntCastParams p = params;
  size_t i = 0;
  for (; i < n && (pos + i) % kSumLanes != 0; ++i) {
    out[i] = internal::IntCastElement(p, in[i], pos + i, kSums, st);
  }
  if (n - i >= kStep) {
    const DF df;
    const DI di;
    const DU du;
    const int32_t zp = p.qp.zero_point;
    const VF scale = hn::Set(df, p.qp.scale);
    const VF r_lo = hn::Set(df, static_cast<float>(p.qmin - zp - 1));
    const VF r_hi = hn::Set(df, static_cast<float>(p.qmax - zp + 1));
    const VI vzp = hn::Set(di, zp);
    const VI vqmin = hn::Set(di, p.qmin);
    const VI vqmax = hn::Set(di, p.qmax);
    LatticeCounters counts = ZeroLatticeCounters();
    VD err[kK], sig[kK];
    LoadSums(*st, err, sig);
    // Counters add 1 per true lane: a mask's vector is all ones (-1).
    auto count = [&](VU& c, hn::Mask<DF> m) {
      c = hn::Sub(c, hn::BitCast(du, hn::VecFromMask(df, m)));
    };
    for (; n - i >= kStep; i += kStep) {
      for (size_t u = 0; u < kU; ++u) {
        const size_t iu = i + u * kNF;
        const VF x = hn::LoadU(df, in + iu);
        const VF v = hn::Div(x, scale);
        VF rv = RoundInt<R>(v, p.key, p.index_offset + pos + iu);
        rv = hn::IfThenZeroElse(hn::IsNaN(rv), rv);  // x NaN: replaced below
        rv = hn::Min(hn::Max(rv, r_lo), r_hi);
        const VI t = hn::Add(hn::ConvertTo(di, rv), vzp);
        VI q = hn::Min(hn::Max(t, vqmin), vqmax);
        const auto is_nan = hn::IsNaN(x);
        const auto is_zero = hn::Eq(x, hn::Zero(df));
        const auto is_inf = hn::IsInf(x);
        const auto special = hn::Or(hn::Or(is_nan, is_zero), is_inf);
        const auto over = hn::RebindMask(df, hn::Ne(t, q));
        const auto under = hn::RebindMask(df, hn::Eq(q, vzp));
        q = hn::IfThenElse(hn::RebindMask(di, hn::Or(is_nan, is_zero)), vzp, q);
        count(counts.nan_in, is_nan);
        count(counts.zero_in, is_zero);
        count(counts.inf_in, is_inf);
        count(counts.overflow, hn::AndNot(special, over));
        count(counts.underflow, hn::AndNot(special, under));
        // Inf lanes already hold qmax / qmin: v = +-Inf clamps there.
        const VF qf = hn::Mul(scale, hn::ConvertTo(df, hn::Sub(q, vzp)));
        hn::StoreU(qf, df, out + iu);
        if constexpr (kSums) {
          const auto ok = hn::And(hn::IsFinite(x), hn::IsFinite(qf));
          const VF xs = hn::IfThenElseZero(ok, x);
          const VF qs = hn::IfThenElseZero(ok, qf);
          AddErrSig(xs, qs, u, err, sig);
        }
      }
    }
    StoreSums(err, sig, st);
    AddCounters(counts, st);
  }
  for (; i < n; ++i) out[i] = internal::IntCastElement(p, in[i], pos + i, kSums, st);
}

// Picks the instantiation for a run-time rounding mode. A range is at most
// one summation chunk (the lane counters are 32-bit).
void IntCastRange(const internal::IntCastParams& p, const float* in, size_t n, size_t pos,
                  float* out, bool sums, internal::CastState* st) {
#define LPSIM_INT_CAST(R)                                                       \
  return sums ? IntCastRangeT<R, true>(p, in, n, pos, out, st)                  \
              : IntCastRangeT<R, false>(p, in, n, pos, out, st)
  switch (p.rounding) {
    case IntRounding::kHalfAway: LPSIM_INT_CAST(IntRounding::kHalfAway);
    case IntRounding::kNearestEven: LPSIM_INT_CAST(IntRounding::kNearestEven);
    case IntRounding::kStochastic: LPSIM_INT_CAST(IntRounding::kStochastic);
  }
#undef LPSIM_INT_CAST
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
