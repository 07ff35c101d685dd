// Per-target bodies of mmu/gemm.h: one panel of columns, lanes across
// columns (each lane is one dot product), bit-exact with mmu/dot_ref.h.
//
// Why doubles are enough for a block FMA: every product of the input formats
// (at most 24-bit significands, exponents within +-300) is exact in double.
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

using DD = hn::ScalableTag<double>;
using DU64 = hn::RebindToUnsigned<DD>;
using DI64 = hn::RebindToSigned<DD>;
using DF32 = hn::Rebind<float, DD>;  // half-width floats, one per double lane
using VD = hn::Vec<DD>;
using VI64 = hn::Vec<DI64>;

HWY_INLINE VD LoadA(const internal::Panel& p, size_t kk, size_t j) {
  const DD dd;
  if (p.saj == 0) return hn::Set(dd, static_cast<double>(p.a[kk * p.sa]));
  return hn::PromoteTo(dd, hn::LoadU(DF32(), p.a + kk * p.sa + j));
}

HWY_INLINE VD LoadB(const internal::Panel& p, size_t kk, size_t j) {
  return hn::PromoteTo(DD(), hn::LoadU(DF32(), p.b + kk * p.sb + j));
}

// Biased double exponent of each lane (0 for zero), as int64.
HWY_INLINE VI64 ExponentField(VD v) {
  const DI64 di;
  return hn::And(hn::ShiftRight<52>(hn::BitCast(di, v)), hn::Set(di, 0x7ff));
}

// 2^(e - 1023) from a biased exponent e, clamped into [1, 2046].
HWY_INLINE VD Pow2Biased(VI64 e) {
  const DI64 di;
  e = hn::Min(hn::Max(e, hn::Set(di, 1)), hn::Set(di, 2046));
  return hn::BitCast(DD(), hn::ShiftLeft<52>(e));
}

// Sum of the terms t[0], t[stride], ... (count of them) and `extra` aligned to
// the largest magnitude with `bits` fraction bits, exactly, as a double.
// `special` collects lanes with an Inf or NaN term.
template <int kMode>
HWY_INLINE VD AlignedSum(const double* HWY_RESTRICT t, size_t count, size_t stride, VD extra,
                         int bits, VI64* special) {
  const DD dd;
  const DI64 di;
  constexpr size_t kL = hn::MaxLanes(DD());
  VD amax = hn::Abs(extra);
  for (size_t i = 0; i < count; ++i) amax = hn::Max(amax, hn::Abs(hn::Load(dd, t + i * stride * kL)));
  const VI64 emax = ExponentField(amax);
  *special = hn::Or(*special, hn::VecFromMask(di, hn::Eq(emax, hn::Set(di, 0x7ff))));
  // scale = 2^(bits - emax), inverse 2^(emax - bits); the clamp in
  // Pow2Biased only matters when every term is zero.
  const VI64 w = hn::Set(di, bits);
  const VD scale = Pow2Biased(hn::Sub(hn::Add(w, hn::Set(di, 2046)), emax));
  const VD inv = Pow2Biased(hn::Sub(emax, w));
  auto align = [&](VD x) {
    const VD y = hn::Mul(x, scale);
    if constexpr (kMode == 0) return hn::Trunc(y);
    if constexpr (kMode == 1) return hn::Floor(y);
    return hn::Round(y);  // ties to even
  };
  VD s = align(extra);
  for (size_t i = 0; i < count; ++i) s = hn::Add(s, align(hn::Load(dd, t + i * stride * kL)));
  return hn::Mul(s, inv);
}

// Rounds exact doubles into fp32 (returned as doubles).
HWY_INLINE VD RoundFp32(VD v, bool toward_zero, bool flush) {
  const DD dd;
  const DI64 di;
  const DF32 df;
  if (toward_zero) {
    const VI64 bits = hn::BitCast(di, v);
    const VI64 e = ExponentField(v);
    // fp32 keeps 23 fraction bits down to 2^-126 (biased 897), one fewer
    // per binade below, none below 2^-149 (biased 874).
    const VI64 sub = hn::Sub(hn::Set(di, 897), hn::Min(hn::Max(e, hn::Set(di, 874)), hn::Set(di, 897)));
    const VI64 drop = hn::Add(hn::Set(di, 29), sub);  // 29..52
    const VI64 sign = hn::And(bits, hn::Set(di, static_cast<int64_t>(uint64_t{1} << 63)));
    VI64 kept = hn::AndNot(hn::Sub(hn::Set(di, 1) << drop, hn::Set(di, 1)), bits);
    kept = hn::IfThenElse(hn::Lt(e, hn::Set(di, 874)), sign, kept);
    v = hn::BitCast(dd, kept);
    const VD max = hn::Set(dd, 3.4028234663852886e38);
    v = hn::IfThenElse(hn::Gt(hn::Abs(v), max), hn::CopySignToAbs(max, v), v);
  }
  VD r = hn::PromoteTo(dd, hn::DemoteTo(df, v));
  if (flush) {
    const VD tiny = hn::Set(dd, 1.1754943508222875e-38);
    r = hn::IfThenElse(hn::Lt(hn::Abs(r), tiny), hn::And(r, hn::Set(dd, -0.0)), r);
  }
  return r;
}

template <int kMode>
void BlockPanel(const internal::KernelParams& kp, const internal::Panel& p, size_t j,
                uint8_t* special_out) {
  const DD dd;
  const DI64 di;
  constexpr size_t kL = hn::MaxLanes(DD());
  HWY_ALIGN double prod[internal::kMaxKernelGroup * kL];
  HWY_ALIGN double partial[internal::kMaxKernelGroup * kL];
  const size_t group = static_cast<size_t>(kp.group);
  const size_t sub = static_cast<size_t>(std::max(1, kp.subgroups));
  const size_t interval = kp.promote_every > 0 ? static_cast<size_t>(kp.promote_every) : p.k;
  VI64 special = hn::Zero(di);
  VD acc = p.c ? hn::PromoteTo(dd, hn::LoadU(DF32(), p.c + j)) : hn::Zero(dd);
  for (size_t s = 0; s < p.k; s += interval) {
    const size_t end = std::min(p.k, s + interval);
    VD part = kp.promote_every > 0 ? hn::Zero(dd) : acc;
    for (size_t g = s; g < end; g += group) {
      const size_t n = std::min(group, end - g);
      for (size_t t = 0; t < n; ++t) {
        hn::Store(hn::Mul(LoadA(p, g + t, j), LoadB(p, g + t, j)), dd, prod + t * kL);
      }
      VD sum;
      if (sub == 1) {
        sum = AlignedSum<kMode>(prod, n, 1, part, kp.bits, &special);
      } else {
        for (size_t r = 0; r < sub; ++r) {
          const size_t count = r < n ? (n - r + sub - 1) / sub : 0;
          hn::Store(AlignedSum<kMode>(prod + r * kL, count, sub, hn::Zero(dd), kp.bits, &special), dd,
                    partial + r * kL);
        }
        sum = AlignedSum<kMode>(partial, sub, 1, part, kp.bits, &special);
      }
      part = RoundFp32(sum, kp.toward_zero, kp.flush_output);
    }
    acc = kp.promote_every > 0 ? hn::PromoteTo(dd, hn::DemoteTo(DF32(), hn::Add(acc, part))) : part;
  }
  hn::StoreU(hn::DemoteTo(DF32(), acc), DF32(), p.d + j);
  // A lane whose accumulator overflowed to Inf recomputes too (same answer).
  special = hn::Or(special, hn::VecFromMask(di, hn::Eq(ExponentField(acc), hn::Set(di, 0x7ff))));
  HWY_ALIGN int64_t flags[kL];
  hn::Store(special, di, flags);
  for (size_t l = 0; l < kL; ++l) special_out[j + l] = flags[l] != 0;
}

// Sequential fmaf per lane; only where FMA is a native instruction.
void FmaPanel(const internal::Panel& p, size_t j) {
  const hn::ScalableTag<float> df;
  auto acc = p.c ? hn::LoadU(df, p.c + j) : hn::Zero(df);
  for (size_t kk = 0; kk < p.k; ++kk) {
    const auto a = p.saj == 0 ? hn::Set(df, p.a[kk * p.sa]) : hn::LoadU(df, p.a + kk * p.sa + j);
    acc = hn::MulAdd(a, hn::LoadU(df, p.b + kk * p.sb + j), acc);
  }
  hn::StoreU(acc, df, p.d + j);
}

// Columns [0, done) of the panel, done a multiple of the lane count; the
// caller finishes the rest and every column with special[j] != 0.
size_t PanelLanes() { return hn::Lanes(DD()); }

size_t RunPanel(const internal::KernelParams& kp, const internal::Panel& p, uint8_t* special) {
  constexpr size_t kL = hn::MaxLanes(DD());
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
  const size_t done = p.n / kL * kL;
  for (size_t j = 0; j < done; j += kL) {
    switch (kp.align_rounding) {
      case 0: BlockPanel<0>(kp, p, j, special); break;
      case 1: BlockPanel<1>(kp, p, j, special); break;
      default: BlockPanel<2>(kp, p, j, special); break;
    }
  }
  return done;
}

}  // namespace HWY_NAMESPACE
}  // namespace mmu
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
