// Per-target bodies of simd/block_fp.h: shared exponents of a row's blocks
// and the cast onto each block's grid, bit-exact with formats/block_fp.cc
// (BfpEncodeRef, BfpDecodeRef) and the sums of
// formats/internal/cast_counter.h. Threading and dispatch live in
// block_fp.cc.
//
// The cast is integer arithmetic on fp32 bits. With F the block's exponent
// field (E + 127; the fp32 exponent field of its amax, 0 for an amax below
// 2^-126) and |x| = sig * 2^(ex - 150) (ex >= 1, sig < 2^24), the
// reference's v = |x| * 2^(M - 1 - E) is sig / 2^s with
//   s = (24 - M) + F - ex >= 0   (|x| <= amax < 2^(E + 1)),
// so rounding v is rounding a right shift: RNE adds half - 1 plus the kept
// parity bit, RTZ truncates, stochastic compares the random bits with the
// dropped bits scaled to 32 (floor(frac * 2^32)). Shifts are clamped to 31:
// sig < 2^24 rounds to 0 long before. The value is mag * 2^(F - 126 - M),
// exact in fp32 (mag < 2^M), with the sign put back on.

#if defined(LPSIM_SIMD_BLOCK_FP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_BLOCK_FP_INL_H_
#undef LPSIM_SIMD_BLOCK_FP_INL_H_
#else
#define LPSIM_SIMD_BLOCK_FP_INL_H_
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

// Exponent fields (E + 127) of the blocks of rows [r0, r1) of in[rows x
// cols], bpr per row, into fields[r * bpr + j].
void BfpExponentRows(const float* in, size_t cols, size_t block, size_t bpr, size_t r0,
                     size_t r1, uint8_t* fields) {
  for (size_t r = r0; r < r1; ++r) {
    for (size_t j = 0; j < bpr; ++j) {
      const size_t c0 = j * block;
      const uint32_t amax = MaxFiniteAbsBits(in + r * cols + c0, std::min(block, cols - c0));
      fields[r * bpr + j] = static_cast<uint8_t>(amax >> 23);
    }
  }
}

// in[0, n) at summation positions pos.., element k in a block with
// exponent field lane_f[k]; q to out[0, n).
template <Rounding R, bool kSums>
HWY_NOINLINE void BfpCastRangeT(const internal::BfpCastParams& params,
                                const float* in, size_t n, size_t pos,
                                const int32_t* HWY_RESTRICT lane_f, float* out,
                                internal::CastState* st) {
  const internal::BfpCastParams p = params;
  const int m_bits = p.format->magnitude_bits;
  size_t i = 0;
  for (; i < n && (pos + i) % kSumLanes != 0; ++i) {
    out[i] = internal::BfpCastElement(p, in[i], lane_f[i] - 127, pos + i, kSums, st);
  }
  if (n - i >= kStep) {
    const DF df;
    const DI di;
    const DU du;
    const VU k_abs = hn::Set(du, 0x7fffffffu);
    const VU k_sign = hn::Set(du, 0x80000000u);
    const VU k_inf = hn::Set(du, 0x7f800000u);
    const VU k_mant = hn::Set(du, 0x007fffffu);
    const VU k_hidden = hn::Set(du, 0x00800000u);
    const VU k_one = hn::Set(du, 1u);
    const VI k_s_base = hn::Set(di, 24 - m_bits);
    const VI k_kb_base = hn::Set(di, 1 - m_bits);
    const VI k_zero_i = hn::Zero(di);
    const VI k_31 = hn::Set(di, 31);
    const VU k_max_mag = hn::Set(du, (1u << m_bits) - 1);
    LatticeCounters counts = ZeroLatticeCounters();
    VD err[kK], sig[kK];
    LoadSums(*st, err, sig);
    auto count = [&](VU& c, hn::Mask<DU> m) { c = hn::Sub(c, hn::VecFromMask(du, m)); };
    for (; n - i >= kStep; i += kStep) {
      for (size_t u = 0; u < kU; ++u) {
        const size_t iu = i + u * kNF;
        const VF x = hn::LoadU(df, in + iu);
        const VI fld = hn::LoadU(di, lane_f + iu);
        const VU b = hn::BitCast(du, x);
        const VU abs = hn::And(b, k_abs);
        const VU ex = hn::ShiftRight<23>(abs);
        const auto is_sub = hn::Eq(ex, hn::Zero(du));
        const VI ex_eff = hn::BitCast(di, hn::Max(ex, k_one));
        const VU sig_u = hn::Or(hn::And(abs, k_mant), hn::IfThenZeroElse(is_sub, k_hidden));
        // Inf / NaN lanes (ex 255) get s < 0: clamped, their result is blended below.
        const VI s = hn::Max(hn::Sub(hn::Add(k_s_base, fld), ex_eff), k_zero_i);
        const VU s2 = hn::BitCast(du, hn::Min(hn::Add(s, hn::Set(di, 1)), k_31));
        const VU sig2 = hn::ShiftLeft<1>(sig_u);
        VU mag;
        if (R == Rounding::kNearestEven) {
          const VU half_m1 = hn::Sub((k_one << hn::Sub(s2, k_one)), k_one);
          const VU odd = hn::And((sig2 >> s2), k_one);
          mag = (hn::Add(hn::Add(sig2, half_m1), odd) >> s2);
        } else if (R == Rounding::kTowardZero) {
          mag = (sig2 >> s2);
        } else {
          const VU fl = (sig2 >> s2);
          const VU left = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(hn::Set(di, 32), s), k_zero_i),
                                                  k_31));
          const VU right = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(s, hn::Set(di, 32)), k_zero_i),
                                                   k_31));
          VU thr = hn::IfThenElse(hn::RebindMask(du, hn::Gt(s, hn::Set(di, 32))),
                                  (sig_u >> right), (sig_u << left));
          thr = hn::IfThenZeroElse(hn::RebindMask(du, hn::Eq(s, k_zero_i)), thr);
          const VU r = StochasticBitsVec(p.key, p.index_offset + pos + iu);
          mag = hn::Sub(fl, hn::VecFromMask(du, hn::Lt(r, thr)));
        }
        const auto is_nan = hn::Gt(abs, k_inf);
        const auto is_inf = hn::Eq(abs, k_inf);
        const auto is_zero = hn::Eq(abs, hn::Zero(du));
        const auto special = hn::Or(hn::Or(is_nan, is_inf), is_zero);
        const auto over = hn::Gt(mag, k_max_mag);
        mag = hn::Min(mag, k_max_mag);
        count(counts.nan_in, is_nan);
        count(counts.inf_in, is_inf);
        count(counts.zero_in, is_zero);
        count(counts.overflow, hn::AndNot(special, over));
        count(counts.underflow, hn::AndNot(special, hn::Eq(mag, hn::Zero(du))));
        mag = hn::IfThenElse(is_inf, k_max_mag, mag);
        mag = hn::IfThenZeroElse(is_nan, mag);
        // 2^(F - 126 - M) as fp32 bits: normal when its biased exponent
        // kb = F + 1 - M is >= 1, else the subnormal 2^(kb - 1) * 2^-126.
        const VI kb = hn::Add(fld, k_kb_base);
        const auto kb_normal = hn::Gt(kb, k_zero_i);
        const VU sub_shift =
            hn::BitCast(du, hn::Min(hn::Max(hn::Add(kb, hn::Set(di, 22)), k_zero_i), k_31));
        const VU pow_bits = hn::IfThenElse(hn::RebindMask(du, kb_normal),
                                           hn::ShiftLeft<23>(hn::BitCast(du, kb)),
                                           (k_one << sub_shift));
        const VF mag_f = hn::ConvertTo(df, hn::BitCast(di, mag));
        const VU q_abs = hn::BitCast(du, hn::Mul(mag_f, hn::BitCast(df, pow_bits)));
        const VU sign = hn::IfThenZeroElse(is_nan, hn::And(b, k_sign));
        const VF qf = hn::BitCast(df, hn::Or(q_abs, sign));
        hn::StoreU(qf, df, out + iu);
        if constexpr (kSums) {
          // q is always finite; x must be.
          const auto ok = hn::RebindMask(df, hn::Lt(abs, k_inf));
          const VF xs = hn::IfThenElseZero(ok, x);
          const VF qs = hn::IfThenElseZero(ok, qf);
          if (R != Rounding::kStochastic) {
            // RNE and RTZ leave q = 0 or q within [x/2, 2x] (the grid step
            // is at most 2|x| wherever q != 0), so x - q is exact in fp32
            // (Sterbenz) and its square exact in double: MulAdd, fused or
            // not, rounds only the sum, as the reference's err += d * d.
            const VF d = hn::Sub(xs, qs);
            {
              const VD d0 = PromotePart<0>(d);
              const VD xd = PromotePart<0>(xs);
              const size_t a = AccIndex(u, 0);
              err[a] = hn::MulAdd(d0, d0, err[a]);
              sig[a] = hn::MulAdd(xd, xd, sig[a]);
            }
            if constexpr (kParts == 2) {
              const VD d1 = PromotePart<1>(d);
              const VD xd = PromotePart<1>(xs);
              const size_t a = AccIndex(u, 1);
              err[a] = hn::MulAdd(d1, d1, err[a]);
              sig[a] = hn::MulAdd(xd, xd, sig[a]);
            }
            continue;
          }
          AddErrSig(xs, qs, u, err, sig);
        }
      }
    }
    StoreSums(err, sig, st);
    AddCounters(counts, st);
  }
  for (; i < n; ++i) {
    out[i] = internal::BfpCastElement(p, in[i], lane_f[i] - 127, pos + i, kSums, st);
  }
}

// Picks the instantiation for a run-time rounding mode. A range is at most
// one summation chunk (the lane counters are 32-bit).
void BfpCastRange(const internal::BfpCastParams& p, const float* in, size_t n, size_t pos,
                  const int32_t* lane_f, float* out, bool sums, internal::CastState* st) {
#define LPSIM_BFP_CAST(R)                                                       \
  return sums ? BfpCastRangeT<R, true>(p, in, n, pos, lane_f, out, st)          \
              : BfpCastRangeT<R, false>(p, in, n, pos, lane_f, out, st)
  switch (p.rounding) {
    case Rounding::kNearestEven: LPSIM_BFP_CAST(Rounding::kNearestEven);
    case Rounding::kTowardZero: LPSIM_BFP_CAST(Rounding::kTowardZero);
    case Rounding::kStochastic: LPSIM_BFP_CAST(Rounding::kStochastic);
  }
#undef LPSIM_BFP_CAST
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
