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
//
// Files: cast-core-inl.h (types, stochastic bits, path A rounding, decoder,
// counters), cast-encode-inl.h (paths B and C), this file (the run loop).

#if defined(LPSIM_SIMD_INTERNAL_CAST_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_INTERNAL_CAST_INL_H_
#undef LPSIM_SIMD_INTERNAL_CAST_INL_H_
#else
#define LPSIM_SIMD_INTERNAL_CAST_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "formats/fixed_sum.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "simd/internal/cast-core-inl.h"
#include "simd/internal/cast-encode-inl.h"
#include "simd/internal/cast_params.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace simd {
namespace HWY_NAMESPACE {

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
// one chunk), one instantiation per configuration. kOut selects what is
// written to `out` (indexed like `in`); kSums accumulates err (and sig if
// kSig) into st; kLaneScale takes the scale and its fp32 reciprocal per
// element from lane_scale / lane_inv (indexed like `in`) instead of
// p.scale / p.inv_scale.
//
// Vectors run in blocks of kModeSteps steps, each block in one of two loops:
// the fast loop tries path A and sends misses out of line; the general loop
// runs paths B/C inline. A block where more than a quarter of the vectors
// missed path A switches to the general loop, which re-tries the fast one
// every 8 blocks. Both are exact, so the choice only affects speed.
//
// The run's state (accumulators, counters, flags) lives in one object on the
// stack whose member functions are all inlined into Run, so the compiler
// keeps it in registers as it would locals.
template <Rounding R, int kOut, bool kSums, bool kSig, bool kLaneScale>
class CastRun {
 public:
  using OutT = typename OutType<kOut>::T;
  static constexpr bool kQ = kOut == kOutFloat || kSums;
  static constexpr bool kCode = kOut != kOutFloat && kOut != kOutNone;

  HWY_INLINE CastRun(const internal::CastParams& params, const float* HWY_RESTRICT in, size_t pos,
                     void* out, const float* lane_scale, const float* lane_inv,
                     internal::CastState* st)
      : p_(params),
        in_(in),
        out_(static_cast<OutT*>(out)),
        pos_(pos),
        lane_scale_(lane_scale),
        lane_inv_(lane_inv),
        st_(st) {}

  HWY_INLINE void Run(size_t n) {
    size_t i = 0;
    for (; i < n && (pos_ + i) % kSumLanes != 0; ++i) Scalar(i);
    if (n - i >= kStep) i = Vectors(i, n);
    for (; i < n; ++i) Scalar(i);
  }

 private:
  // One element through CastElement (heads and tails).
  HWY_INLINE void Scalar(size_t i) {
    const float sc = kLaneScale ? lane_scale_[i] : p_.scale;
    const float inv = kLaneScale ? lane_inv_[i] : p_.inv_scale;
    float q;
    const uint32_t code = internal::CastElement(p_, in_[i], sc, inv, pos_ + i, kSums, kSig, st_,
                                                kOut == kOutFloat ? &q : nullptr);
    if constexpr (kOut == kOutFloat) {
      out_[i] = q;
    } else if constexpr (kOut != kOutNone) {
      out_[i] = static_cast<OutT>(code);
    } else {
      (void)code;
    }
  }

  // The vector body from i (a multiple of kSumLanes away from pos) while a
  // whole step remains; returns where it stopped.
  HWY_INLINE size_t Vectors(size_t i, size_t n) {
    const DU du;
    const DD dd;
    c_ = CastCounters{hn::Zero(du), hn::Zero(du), hn::Zero(du), hn::Zero(du), hn::Zero(du)};
    for (size_t k = 0; k < kK; ++k) {
      err_[k] = hn::LoadU(dd, st_->err + k * kND);
      sig_[k] = hn::LoadU(dd, st_->sig + k * kND);
    }
    unit_scale_ = p_.scale == 1.0f;
    exact_diff_ = !kLaneScale && p_.fast_exact_diff;
    if constexpr (kOut == kOutFloat) {
      stream_ = p_.stream_out && reinterpret_cast<uintptr_t>(out_ + i) % 16 == 0;
    }

    constexpr size_t kModeSteps = 16;
    bool fast_mode = p_.fast;
    size_t general_blocks = 0;
    while (n - i >= kStep) {
      const size_t steps = HWY_MIN(kModeSteps, (n - i) / kStep);
      if (fast_mode) {
        size_t missed = 0;
        for (size_t k = 0; k < steps; ++k, i += kStep) {
          for (size_t u = 0; u < kU; ++u) missed += FastVector(i + u * kNF, u);
        }
        if (missed * 4 > steps * kU) fast_mode = false;
      } else if (!kCode && p_.common) {
        for (size_t k = 0; k < steps; ++k, i += kStep) {
          for (size_t u = 0; u < kU; ++u) SlowVector<true>(i + u * kNF, u);
        }
        if (++general_blocks % 8 == 0) fast_mode = true;
      } else {
        for (size_t k = 0; k < steps; ++k, i += kStep) {
          for (size_t u = 0; u < kU; ++u) SlowVector<false>(i + u * kNF, u);
        }
        if (p_.fast && ++general_blocks % 8 == 0) fast_mode = true;
      }
    }
    for (size_t k = 0; k < kK; ++k) {
      hn::StoreU(err_[k], dd, st_->err + k * kND);
      hn::StoreU(sig_[k], dd, st_->sig + k * kND);
    }
    if (mismatch_) st_->sig_mismatch = true;
    AddCounters(c_, st_);
    if (stream_) hwy::FlushStream();  // order the streamed stores before any later ones
    return i;
  }

  // Writes the output of one vector and adds its sums. `fast`: q came from
  // path A.
  HWY_INLINE void Finish(size_t iu, size_t u, VF x, VU code, VF q, bool x_finite, bool fast) {
    const DF df;
    const DU du;
    const DI di;
    if constexpr (kOut == kOutFloat) {
      StoreMaybeStream(q, out_ + iu, stream_);
    } else if constexpr (kOut == kOutU32) {
      hn::StoreU(code, du, out_ + iu);
    } else if constexpr (kOut == kOutU16) {
      const hn::Rebind<uint16_t, DI> d16;
      hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, code)), d16, out_ + iu);
    } else if constexpr (kOut == kOutU8) {
      const hn::Rebind<uint8_t, DI> d8;
      hn::StoreU(hn::DemoteTo(d8, hn::BitCast(di, code)), d8, out_ + iu);
    } else {
      (void)code;
    }
    if constexpr (kSums) {
      if (fast && exact_diff_) {
        // x, q finite, x - q exact in fp32. Squares of fp32 values are
        // exact in double, so MulAdd (fused or not) rounds only the sum.
        const VF d = hn::Sub(x, q);
        {
          const VD d0 = PromotePart<0>(d);
          const size_t a = AccIndex(u, 0);
          err_[a] = hn::MulAdd(d0, d0, err_[a]);
          if (kSig) {
            const VD xd = PromotePart<0>(x);
            sig_[a] = hn::MulAdd(xd, xd, sig_[a]);
          }
        }
        if constexpr (kParts == 2) {
          const VD d1 = PromotePart<1>(d);
          const size_t a = AccIndex(u, 1);
          err_[a] = hn::MulAdd(d1, d1, err_[a]);
          if (kSig) {
            const VD xd = PromotePart<1>(x);
            sig_[a] = hn::MulAdd(xd, xd, sig_[a]);
          }
        }
        return;
      }
      auto ok = hn::IsFinite(q);
      if (!x_finite) {
        const auto x_fin = hn::IsFinite(x);
        if (!kSig && !hn::AllFalse(df, hn::AndNot(ok, x_fin))) mismatch_ = true;
        ok = hn::And(ok, x_fin);
      } else if (!kSig && !hn::AllTrue(df, ok)) {
        mismatch_ = true;
      }
      const VF xs = hn::IfThenElseZero(ok, x);
      const VF qs = hn::IfThenElseZero(ok, q);
      {
        const VD xd = PromotePart<0>(xs);
        const VD d0 = hn::Sub(xd, PromotePart<0>(qs));
        const size_t a = AccIndex(u, 0);
        err_[a] = hn::Add(err_[a], hn::Mul(d0, d0));
        if (kSig) sig_[a] = hn::Add(sig_[a], hn::Mul(xd, xd));
      }
      if constexpr (kParts == 2) {
        const VD xd = PromotePart<1>(xs);
        const VD d1 = hn::Sub(xd, PromotePart<1>(qs));
        const size_t a = AccIndex(u, 1);
        err_[a] = hn::Add(err_[a], hn::Mul(d1, d1));
        if (kSig) sig_[a] = hn::Add(sig_[a], hn::Mul(xd, xd));
      }
    } else {
      (void)u;
      (void)x;
      (void)q;
      (void)x_finite;
      (void)fast;
    }
  }

  // The fast loop's body: path A, misses out of line. Returns whether it missed.
  HWY_INLINE bool FastVector(size_t iu, size_t u) {
    const DF df;
    const DU du;
    const DI di;
    const VU k_abs = hn::Set(du, 0x7fffffffu);
    const VU k_low = hn::Set(du, p_.low_mask);
    // Large streamed outputs: fetch the input 4 KiB ahead (the hardware
    // prefetcher alone left the loop waiting on memory here).
    if (stream_) hwy::Prefetch(in_ + iu + 1024);
    const VF x = hn::LoadU(df, in_ + iu);
    const VF sc = kLaneScale ? hn::LoadU(df, lane_scale_ + iu) : hn::Set(df, p_.scale);
    const VF inv = kLaneScale ? hn::LoadU(df, lane_inv_ + iu) : hn::Set(df, p_.inv_scale);
    const VF v = (kLaneScale || !unit_scale_) ? hn::Mul(x, sc) : x;  // x * 1 == x
    const VU vb = hn::BitCast(du, v);
    const VU vabs = hn::And(vb, k_abs);
    const VU rq = RoundMagnitude<R>(p_, vabs, k_low, p_.index_offset + pos_ + iu);
    const auto xzero = hn::Eq(hn::BitCast(di, hn::And(hn::BitCast(du, x), k_abs)), hn::Zero(di));
    // rq is compared unsigned: NaN lanes may carry past bit 31.
    const auto in_range = hn::AndNot(
        hn::RebindMask(di, hn::Gt(rq, hn::Set(du, p_.max_bits))),
        hn::Gt(hn::BitCast(di, vabs), hn::Set(di, static_cast<int32_t>(p_.min_bits - 1))));
    VU code = hn::Zero(du);
    VF q = hn::Zero(df);
    if (HWY_LIKELY(hn::AllTrue(di, hn::Or(xzero, in_range)))) {
      const auto zero = hn::RebindMask(du, xzero);
      if (kSums) c_.zero_in = hn::Sub(c_.zero_in, hn::VecFromMask(du, zero));
      VU sign = hn::And(vb, hn::Set(du, 0x80000000u));
      if (!p_.has_negzero) sign = hn::IfThenZeroElse(zero, sign);
      if (kQ) q = hn::Mul(hn::BitCast(df, hn::Or(rq, sign)), inv);
      if (kCode) {
        const VU mag = hn::IfThenZeroElse(
            zero, hn::Sub(hn::ShiftRightSame(rq, static_cast<int>(p_.s)), hn::Set(du, p_.rebias)));
        code = hn::Or(mag, hn::ShiftRightSame(sign, static_cast<int>(p_.code_sign_shift)));
      }
      Finish(iu, u, x, code, q, true, true);
      return false;
    }
    HWY_ALIGN uint32_t code_buf[kNF];
    HWY_ALIGN float q_buf[kNF];
    bool x_finite = true;
    GeneralVectorOutOfLine<R, kCode, kQ>(p_, in_ + iu, kLaneScale ? lane_scale_ + iu : nullptr,
                                         kLaneScale ? lane_inv_ + iu : nullptr, pos_ + iu, st_,
                                         code_buf, q_buf, &x_finite);
    Finish(iu, u, x, hn::Load(du, code_buf), hn::Load(df, q_buf), x_finite, false);
    return true;
  }

  // The general loop's body: paths B/C inline (kCommon: EncodeCommon).
  template <bool kCommon>
  HWY_INLINE void SlowVector(size_t iu, size_t u) {
    const DF df;
    const DU du;
    const VF x = hn::LoadU(df, in_ + iu);
    const VF sc = kLaneScale ? hn::LoadU(df, lane_scale_ + iu) : hn::Set(df, p_.scale);
    const VF inv = kLaneScale ? hn::LoadU(df, lane_inv_ + iu) : hn::Set(df, p_.inv_scale);
    const VF v = (kLaneScale || !unit_scale_) ? hn::Mul(x, sc) : x;
    VU r = hn::Zero(du);
    if (R == Rounding::kStochastic) r = StochasticBitsVec(p_.key, p_.index_offset + pos_ + iu);
    VU code = hn::Zero(du);
    VF q = hn::Zero(df);
    bool x_finite = true;
    GeneralVector<R, kCode, kQ, kCommon, kSums>(p_, x, sc, inv, v, r, pos_ + iu, c_, st_, code, q,
                                                x_finite);
    Finish(iu, u, x, code, q, x_finite, false);
  }

  // A local copy of the parameters: stores through `out` (uint8_t may alias
  // anything) then cannot force the constants to be reloaded.
  const internal::CastParams p_;
  const float* HWY_RESTRICT in_;
  OutT* HWY_RESTRICT out_;
  const size_t pos_;
  const float* lane_scale_;
  const float* lane_inv_;
  internal::CastState* st_;
  CastCounters c_;
  VD err_[kK], sig_[kK];
  bool unit_scale_ = false, exact_diff_ = false, stream_ = false, mismatch_ = false;
};

template <Rounding R, int kOut, bool kSums, bool kSig, bool kLaneScale>
HWY_NOINLINE void CastRange(const internal::CastParams& params, const float* HWY_RESTRICT in,
                            size_t n, size_t pos, void* out, const float* lane_scale,
                            const float* lane_inv, internal::CastState* st) {
  CastRun<R, kOut, kSums, kSig, kLaneScale>(params, in, pos, out, lane_scale, lane_inv, st).Run(n);
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
