// Per-target pieces every cast kernel shares: vector types and the layout of
// the fixed-order sums (and the general sum step of the lattice casts), the
// stochastic bits, path A's rounding of a magnitude, the decoder, the
// per-lane counters and the finite amax of a run. Part of the cast core
// (cast-inl.h includes it; see there for the paths).
//
//   const VU rq = RoundMagnitude<Rounding::kNearestEven>(p, vabs, k_low, index);
//   const VF q = DecodeVec(p, code);

#if defined(LPSIM_SIMD_INTERNAL_CAST_CORE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_INTERNAL_CAST_CORE_INL_H_
#undef LPSIM_SIMD_INTERNAL_CAST_CORE_INL_H_
#else
#define LPSIM_SIMD_INTERNAL_CAST_CORE_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "formats/fixed_sum.h"
#include "formats/reference.h"
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

// The fixed-order sums of st in registers (err, sig: kK vectors each) and back.
HWY_INLINE void LoadSums(const internal::CastState& st, VD* err, VD* sig) {
  const DD dd;
  for (size_t k = 0; k < kK; ++k) {
    err[k] = hn::LoadU(dd, st.err + k * kND);
    sig[k] = hn::LoadU(dd, st.sig + k * kND);
  }
}
HWY_INLINE void StoreSums(const VD* err, const VD* sig, internal::CastState* st) {
  const DD dd;
  for (size_t k = 0; k < kK; ++k) {
    hn::StoreU(err[k], dd, st->err + k * kND);
    hn::StoreU(sig[k], dd, st->sig + k * kND);
  }
}

// err += (x - q)^2 and sig += x^2 for vector u of a step, each lane on its
// accumulator: in double, the difference, the square and the sum each
// rounded once, as formats/internal/cast_counter.h does per element. xs and
// qs are x and q with the lanes that add nothing (non-finite) set to 0.
HWY_INLINE void AddErrSig(VF xs, VF qs, size_t u, VD* err, VD* sig) {
  {
    const VD xd = PromotePart<0>(xs);
    const VD d0 = hn::Sub(xd, PromotePart<0>(qs));
    const size_t a = AccIndex(u, 0);
    err[a] = hn::Add(err[a], hn::Mul(d0, d0));
    sig[a] = hn::Add(sig[a], hn::Mul(xd, xd));
  }
  if constexpr (kParts == 2) {
    const VD xd = PromotePart<1>(xs);
    const VD d1 = hn::Sub(xd, PromotePart<1>(qs));
    const size_t a = AccIndex(u, 1);
    err[a] = hn::Add(err[a], hn::Mul(d1, d1));
    sig[a] = hn::Add(sig[a], hn::Mul(xd, xd));
  }
}

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

// The sum of a per-lane counter's lanes.
HWY_INLINE uint64_t SumLanes(VU v) {
  HWY_ALIGN uint32_t lanes[kNF];
  hn::Store(v, DU(), lanes);
  uint64_t t = 0;
  for (size_t j = 0; j < kNF; ++j) t += lanes[j];
  return t;
}

// Adds per-lane counters into the scalar counts of st.
HWY_INLINE void AddCounters(const CastCounters& c, internal::CastState* st) {
  st->zero_in += SumLanes(c.zero_in);
  st->underflow += SumLanes(c.underflow);
  st->flushed += SumLanes(c.flushed);
  st->subnormal += SumLanes(c.subnormal);
  st->overflow += SumLanes(c.overflow);
}

// Counters of one lattice cast (block floating point, integer grids), per
// lane, as CastCounters: the inputs' special values and the results that
// left the grid.
struct LatticeCounters {
  VU zero_in, nan_in, inf_in, underflow, overflow;
};

HWY_INLINE LatticeCounters ZeroLatticeCounters() {
  const VU z = hn::Zero(DU());
  return LatticeCounters{z, z, z, z, z};
}

HWY_INLINE void AddCounters(const LatticeCounters& c, internal::CastState* st) {
  st->zero_in += SumLanes(c.zero_in);
  st->nan_in += SumLanes(c.nan_in);
  st->inf_in += SumLanes(c.inf_in);
  st->underflow += SumLanes(c.underflow);
  st->overflow += SumLanes(c.overflow);
}

// Largest fp32 bits of a finite |x| over x[0, n) (0 if none): the amax as
// bits, since finite fp32 magnitudes order like their bit patterns. Two
// accumulators over long runs; one vector, then single elements, at the end.
HWY_INLINE uint32_t MaxFiniteAbsBits(const float* HWY_RESTRICT x, size_t n) {
  const DF df;
  const DI di;
  uint32_t m = 0;
  size_t i = 0;
  if (n >= kNF) {
    const VI k_abs = hn::Set(di, 0x7fffffff);
    const VI k_inf = hn::Set(di, 0x7f800000);
    VI m0 = hn::Zero(di), m1 = hn::Zero(di);
    for (; i + 2 * kNF <= n; i += 2 * kNF) {
      const VI a0 = hn::And(hn::BitCast(di, hn::LoadU(df, x + i)), k_abs);
      const VI a1 = hn::And(hn::BitCast(di, hn::LoadU(df, x + i + kNF)), k_abs);
      m0 = hn::Max(m0, hn::IfThenElseZero(hn::Lt(a0, k_inf), a0));
      m1 = hn::Max(m1, hn::IfThenElseZero(hn::Lt(a1, k_inf), a1));
    }
    if (i + kNF <= n) {
      const VI a0 = hn::And(hn::BitCast(di, hn::LoadU(df, x + i)), k_abs);
      m0 = hn::Max(m0, hn::IfThenElseZero(hn::Lt(a0, k_inf), a0));
      i += kNF;
    }
    HWY_ALIGN int32_t lanes[kNF];
    hn::Store(hn::Max(m0, m1), di, lanes);
    for (size_t j = 0; j < kNF; ++j) m = std::max(m, static_cast<uint32_t>(lanes[j]));
  }
  for (; i < n; ++i) {
    uint32_t b;
    __builtin_memcpy(&b, &x[i], sizeof b);
    b &= 0x7fffffffu;
    if (b < 0x7f800000u) m = std::max(m, b);
  }
  return m;
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
