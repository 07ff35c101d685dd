// Per-target bodies of mmu/gemm.h: one panel of columns, lanes across
// columns (each lane is one dot product), bit-exact with mmu/dot_ref.h.
//
// Why doubles are enough for a block FMA: every product of the input formats
// (at most 24-bit significands, exponents within +-300) is exact in double.
// Floats are (twice the lanes) for fp8 and fp16 inputs, whose products are
// exact in float, when the aligned sum fits 24 bits: it is then an fp32
// value and the final rounding changes nothing (H100's 13 bits).
// Aligning a term t to the largest term 2^emax keeping W fraction bits is
// q = round(t * 2^(W - emax)) to an integer (a power-of-two scaling, exact,
// then one RoundInt/Trunc/Floor); |q| <= 2^(W+1), so a group of n terms sums
// exactly in double while W + 1 + log2(n + 1) <= 53, and the sum times
// 2^(emax - W) is the block FMA's exact pre-rounding value. The final
// rounding into fp32 is DemoteTo (to nearest) or a mask of the low bits
// (toward zero). Lanes that meet Inf or NaN are flagged and the driver
// recomputes them with the scalar reference.

#if defined(LPSIM_MMU_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_MMU_GEMM_INL_H_
#undef LPSIM_MMU_GEMM_INL_H_
#else
#define LPSIM_MMU_GEMM_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "mmu/internal/kernel.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace mmu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Field layout of the lane type.
template <typename T>
struct Bits;
template <>
struct Bits<double> {
  static constexpr int kMant = 52;
  static constexpr int64_t kExpMask = 0x7ff;
  static constexpr int64_t kMaxNormal = 2046;
  static constexpr int64_t kBias = 1023;
};
template <>
struct Bits<float> {
  static constexpr int kMant = 23;
  static constexpr int32_t kExpMask = 0xff;
  static constexpr int32_t kMaxNormal = 254;
  static constexpr int32_t kBias = 127;
};

// Biased exponent of each lane (0 for zero and subnormals).
template <class D, class V>
HWY_INLINE auto ExponentField(D /*d*/, V v) {
  using T = hn::TFromD<D>;
  const hn::RebindToSigned<D> di;
  return hn::And(hn::ShiftRight<Bits<T>::kMant>(hn::BitCast(di, v)),
                 hn::Set(di, Bits<T>::kExpMask));
}

// 2^(e - bias) from a biased exponent e, clamped into the normal range.
template <class D, class VI>
HWY_INLINE hn::Vec<D> Pow2Biased(D d, VI e) {
  using T = hn::TFromD<D>;
  const hn::RebindToSigned<D> di;
  e = hn::Min(hn::Max(e, hn::Set(di, 1)), hn::Set(di, Bits<T>::kMaxNormal));
  return hn::BitCast(d, hn::ShiftLeft<Bits<T>::kMant>(e));
}

// Sum of the terms t[0], t[stride], ... (count of them) and `extra`, aligned
// to the exponent of `amax` (the largest magnitude among them) with `bits`
// fraction bits, exactly. Lanes with an Inf or NaN term, or (floats) whose
// largest term is too small for the scaling to stay exact, are marked in
// `special`.
template <int kMode, class D>
HWY_INLINE hn::Vec<D> AlignedSum(D d, const hn::TFromD<D>* HWY_RESTRICT t, size_t count,
                                 size_t stride, hn::Vec<D> extra, hn::Vec<D> amax, int bits,
                                 hn::Vec<hn::RebindToSigned<D>>* special) {
  using T = hn::TFromD<D>;
  const hn::RebindToSigned<D> di;
  constexpr size_t kL = hn::MaxLanes(D());
  const auto emax = ExponentField(d, amax);
  const auto w = hn::Set(di, bits);
  auto bad = hn::Eq(emax, hn::Set(di, Bits<T>::kExpMask));
  if constexpr (sizeof(T) == 4) {
    // scale and its inverse must be normal floats: emax >= bits + 1, unless
    // every term is zero.
    bad = hn::Or(bad, hn::And(hn::Lt(emax, hn::Add(w, hn::Set(di, 1))),
                              hn::RebindMask(di, hn::Ne(amax, hn::Zero(d)))));
  }
  *special = hn::Or(*special, hn::VecFromMask(di, bad));
  // scale = 2^(bits - emax), inverse 2^(emax - bits).
  const auto scale = Pow2Biased(d, hn::Sub(hn::Add(w, hn::Set(di, 2 * Bits<T>::kBias)), emax));
  const auto inv = Pow2Biased(d, hn::Sub(emax, w));
  auto align = [&](hn::Vec<D> x) {
    const auto y = hn::Mul(x, scale);
    if constexpr (kMode == 0) return hn::Trunc(y);
    if constexpr (kMode == 1) return hn::Floor(y);
    return hn::Round(y);  // ties to even
  };
  // Four sums in flight: one chain of adds waits on each add's latency.
  // Every partial sum is an integer below the bound above, so any order
  // adds exactly; the extra sums start at -0, the identity of addition
  // (x + -0 = x for x = +-0 too), so even the sign of a zero is unchanged.
  const auto neg_zero = hn::Set(d, static_cast<T>(-0.0));
  auto s0 = align(extra), s1 = neg_zero, s2 = neg_zero, s3 = neg_zero;
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    s0 = hn::Add(s0, align(hn::Load(d, t + i * stride * kL)));
    s1 = hn::Add(s1, align(hn::Load(d, t + (i + 1) * stride * kL)));
    s2 = hn::Add(s2, align(hn::Load(d, t + (i + 2) * stride * kL)));
    s3 = hn::Add(s3, align(hn::Load(d, t + (i + 3) * stride * kL)));
  }
  for (; i < count; ++i) s0 = hn::Add(s0, align(hn::Load(d, t + i * stride * kL)));
  const auto s = hn::Add(hn::Add(s0, s1), hn::Add(s2, s3));
  return hn::Mul(s, inv);
}

// Rounds exact doubles into fp32 (returned as doubles).
template <class D>
HWY_INLINE hn::Vec<D> RoundFp32(D dd, hn::Vec<D> v, bool toward_zero, bool flush) {
  const hn::RebindToSigned<D> di;
  const hn::Rebind<float, D> df;
  if (toward_zero) {
    const auto bits = hn::BitCast(di, v);
    const auto e = ExponentField(dd, v);
    // fp32 keeps 23 fraction bits down to 2^-126 (biased 897), one fewer
    // per binade below, none below 2^-149 (biased 874).
    const auto sub = hn::Sub(hn::Set(di, 897), hn::Min(hn::Max(e, hn::Set(di, 874)), hn::Set(di, 897)));
    const auto drop = hn::Add(hn::Set(di, 29), sub);  // 29..52
    const auto sign = hn::And(bits, hn::Set(di, static_cast<int64_t>(uint64_t{1} << 63)));
    auto kept = hn::AndNot(hn::Sub(hn::Set(di, 1) << drop, hn::Set(di, 1)), bits);
    kept = hn::IfThenElse(hn::Lt(e, hn::Set(di, 874)), sign, kept);
    v = hn::BitCast(dd, kept);
    const auto max = hn::Set(dd, 3.4028234663852886e38);
    v = hn::IfThenElse(hn::Gt(hn::Abs(v), max), hn::CopySignToAbs(max, v), v);
  }
  auto r = hn::PromoteTo(dd, hn::DemoteTo(df, v));
  if (flush) {
    const auto tiny = hn::Set(dd, 1.1754943508222875e-38);
    r = hn::IfThenElse(hn::Lt(hn::Abs(r), tiny), hn::And(r, hn::Set(dd, -0.0)), r);
  }
  return r;
}

// The block FMA's sum rounded into fp32. Float lanes hold exact sums of at
// most 24 bits: already fp32 values, and normal ones (AlignedSum sends the
// rest to the reference), so neither rounding nor flushing changes them.
template <class D>
HWY_INLINE hn::Vec<D> Finish(D d, hn::Vec<D> sum, const internal::KernelParams& kp) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    return RoundFp32(d, sum, kp.toward_zero, kp.flush_output);
  } else {
    (void)kp;
    return sum;
  }
}

// fp32 + fp32 rounded to nearest, in the lane type (innocuous double
// rounding through double: 53 >= 2 * 24 + 2).
template <class D>
HWY_INLINE hn::Vec<D> AddFp32(D d, hn::Vec<D> a, hn::Vec<D> b) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    return hn::PromoteTo(d, hn::DemoteTo(hn::Rebind<float, D>(), hn::Add(a, b)));
  } else {
    return hn::Add(a, b);
  }
}

// One vector of columns starting at j. kSub: 1 or 2 subgroups in registers,
// 0 any number (the running maxima in memory).
template <typename T, int kMode, int kSub>
void BlockPanel(const internal::KernelParams& kp, const internal::Panel& p, size_t j,
                uint8_t* special_out) {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  using V = hn::Vec<decltype(d)>;
  constexpr size_t kL = hn::MaxLanes(d);
  HWY_ALIGN T prod[internal::kMaxKernelGroup * kL];
  HWY_ALIGN T partial[internal::kMaxKernelGroup * kL];
  HWY_ALIGN T maxima[internal::kMaxKernelGroup * kL];
  const T* HWY_RESTRICT a = static_cast<const T*>(p.a);
  const T* HWY_RESTRICT b = static_cast<const T*>(p.b) + j;
  const size_t group = static_cast<size_t>(kp.group);
  const size_t sub = kSub ? static_cast<size_t>(kSub) : static_cast<size_t>(kp.subgroups);
  const size_t interval = kp.promote_every > 0 ? static_cast<size_t>(kp.promote_every) : p.k;
  auto special = hn::Zero(di);
  V acc = p.c ? hn::LoadU(d, static_cast<const T*>(p.c) + j) : hn::Zero(d);
  for (size_t s = 0; s < p.k; s += interval) {
    const size_t end = std::min(p.k, s + interval);
    V part = kp.promote_every > 0 ? hn::Zero(d) : acc;
    for (size_t g = s; g < end; g += group) {
      const size_t n = std::min(group, end - g);
      // Products, and the largest magnitude of each subgroup on the way.
      V m0 = hn::Zero(d), m1 = hn::Zero(d);
      if (kSub == 0) {
        for (size_t r = 0; r < sub; ++r) hn::Store(hn::Zero(d), d, maxima + r * kL);
      }
      for (size_t t = 0; t < n; ++t) {
        const size_t kk = g + t;
        const V av = p.saj == 0 ? hn::Set(d, a[kk * p.sa]) : hn::LoadU(d, a + kk * p.sa + j);
        const V x = hn::Mul(av, hn::LoadU(d, b + kk * p.sb));
        hn::Store(x, d, prod + t * kL);
        if (kSub == 1) {
          m0 = hn::Max(m0, hn::Abs(x));
        } else if (kSub == 2) {
          if (t & 1) {
            m1 = hn::Max(m1, hn::Abs(x));
          } else {
            m0 = hn::Max(m0, hn::Abs(x));
          }
        } else {
          T* m = maxima + (t % sub) * kL;
          hn::Store(hn::Max(hn::Load(d, m), hn::Abs(x)), d, m);
        }
      }
      V sum;
      if (kSub == 1) {
        sum = AlignedSum<kMode>(d, prod, n, 1, part, hn::Max(m0, hn::Abs(part)), kp.bits, &special);
      } else {
        V m2 = hn::Abs(part);
        for (size_t r = 0; r < sub; ++r) {
          const size_t count = r < n ? (n - r + sub - 1) / sub : 0;
          const V mr = kSub == 2 ? (r == 0 ? m0 : m1) : hn::Load(d, maxima + r * kL);
          const V pr = AlignedSum<kMode>(d, prod + r * kL, count, sub, hn::Zero(d), mr, kp.bits, &special);
          hn::Store(pr, d, partial + r * kL);
          m2 = hn::Max(m2, hn::Abs(pr));
        }
        sum = AlignedSum<kMode>(d, partial, sub, 1, part, m2, kp.bits, &special);
      }
      part = Finish(d, sum, kp);
    }
    acc = kp.promote_every > 0 ? AddFp32(d, acc, part) : part;
  }
  hn::StoreU(acc, d, static_cast<T*>(p.d) + j);
  // A lane whose accumulator overflowed to Inf recomputes too (same answer).
  special = hn::Or(special, hn::VecFromMask(di, hn::Eq(ExponentField(d, acc),
                                                       hn::Set(di, Bits<T>::kExpMask))));
  HWY_ALIGN hn::TFromD<decltype(di)> flags[kL];
  hn::Store(special, di, flags);
  for (size_t l = 0; l < kL; ++l) special_out[j + l] = flags[l] != 0;
}

// Sequential fmaf per lane; only where FMA is a native instruction.
void FmaPanel(const internal::Panel& p, size_t j) {
  const hn::ScalableTag<float> df;
  const float* a = static_cast<const float*>(p.a);
  const float* b = static_cast<const float*>(p.b);
  auto acc = p.c ? hn::LoadU(df, static_cast<const float*>(p.c) + j) : hn::Zero(df);
  for (size_t kk = 0; kk < p.k; ++kk) {
    const auto av = p.saj == 0 ? hn::Set(df, a[kk * p.sa]) : hn::LoadU(df, a + kk * p.sa + j);
    acc = hn::MulAdd(av, hn::LoadU(df, b + kk * p.sb + j), acc);
  }
  hn::StoreU(acc, df, static_cast<float*>(p.d) + j);
}

// Lanes of the kernel's vectors: float lanes when `f32`, else double lanes.
size_t PanelLanes(bool f32) {
  return f32 ? hn::Lanes(hn::ScalableTag<float>()) : hn::Lanes(hn::ScalableTag<double>());
}

template <typename T, int kMode>
void BlockColumns(const internal::KernelParams& kp, const internal::Panel& p, size_t done,
                  uint8_t* special) {
  constexpr size_t kL = hn::MaxLanes(hn::ScalableTag<T>());
  for (size_t j = 0; j < done; j += kL) {
    if (kp.subgroups == 1) {
      BlockPanel<T, kMode, 1>(kp, p, j, special);
    } else if (kp.subgroups == 2) {
      BlockPanel<T, kMode, 2>(kp, p, j, special);
    } else {
      BlockPanel<T, kMode, 0>(kp, p, j, special);
    }
  }
}

// Columns [0, done) of the panel, done a multiple of the lane count; the
// caller finishes the rest and every column with special[j] != 0. The
// panel's arrays hold floats when kp.f32, else doubles (d: always the lane
// type; the driver narrows doubles).
size_t RunPanel(const internal::KernelParams& kp, const internal::Panel& p, uint8_t* special) {
  if (kp.fp32_fma) {
#if HWY_NATIVE_FMA
    constexpr size_t kLF = hn::MaxLanes(hn::ScalableTag<float>());
    const size_t done_f = p.n / kLF * kLF;
    for (size_t j = 0; j < done_f; j += kLF) FmaPanel(p, j);
    std::memset(special, 0, done_f);
    return done_f;
#else
    (void)special;
    return 0;  // MulAdd would round twice: the scalar std::fma loop does it
#endif
  }
  const size_t lanes = PanelLanes(kp.f32);
  const size_t done = p.n / lanes * lanes;
  if (kp.f32) {
    if (kp.align_rounding == 0) BlockColumns<float, 0>(kp, p, done, special);
    else BlockColumns<float, 2>(kp, p, done, special);  // floor never runs on floats
  } else {
    switch (kp.align_rounding) {
      case 0: BlockColumns<double, 0>(kp, p, done, special); break;
      case 1: BlockColumns<double, 1>(kp, p, done, special); break;
      default: BlockColumns<double, 2>(kp, p, done, special); break;
    }
  }
  return done;
}

}  // namespace HWY_NAMESPACE
}  // namespace mmu
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
