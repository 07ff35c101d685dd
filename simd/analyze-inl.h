// Per-target body of simd::Analyze: whole summation chunks of one tensor,
// statistics and up to kMaxAnalyzeFormats casts per pass. Threading, dispatch
// and finishing live in analyze.cc.

#if defined(LPSIM_SIMD_ANALYZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_ANALYZE_INL_H_
#undef LPSIM_SIMD_ANALYZE_INL_H_
#else
#define LPSIM_SIMD_ANALYZE_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "formats/fixed_sum.h"
#include "hwy/highway.h"
#include "simd/internal/cast-inl.h"
#include "simd/internal/cast_params.h"
#include "simd/internal/slot_block-inl.h"
#include "simd/internal/stats.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace simd {
namespace HWY_NAMESPACE {

// Elements per block: a block is read once from memory by the statistics pass
// and then from L1 by each format slot.
constexpr size_t kAnalyzeBlock = 2048;
static_assert(kAnalyzeBlock % kStep == 0 && kSumChunk % kAnalyzeBlock == 0, "block layout");

// Four interleaved copies of the raw log histogram, so increments of the same
// bin by neighbouring elements do not wait on each other's stores.
// The copies are 64 bytes more than a histogram apart: at a multiple of
// 4 KiB, the same bin of two copies would share its low 12 address bits and
// the CPU could take one's increments as dependent on the other's (4K
// aliasing), which measured slower.
constexpr size_t kSubHists = 4;
constexpr size_t kSubHistStride = internal::kRawLogBins + 16;
using SubHists = uint32_t (*)[kSubHistStride];

// Statistics of x[0, n) at summation position pos (a multiple of kSumLanes
// except for the tail): histograms, counters and extremes into *part, moment
// sums into the lane accumulators s1/s2/s3.
// With vec_hist false the vector part (the first n - n % kStep elements) is
// not counted in the histogram: FusedRange already counted it.
HWY_NOINLINE void StatsRange(const float* HWY_RESTRICT x, size_t n, size_t pos, float k,
                             internal::StatsPartial* part, SubHists hist, double* s1, double* s2,
                             double* s3, bool vec_hist = true) {
  const DF df;
  const DU du;
  const DI di;
  const DD dd;
  const double kd = k;
  size_t i = 0;
  if (n >= kStep) {
    VD a1[kK], a2[kK], a3[kK];
    for (size_t j = 0; j < kK; ++j) {
      a1[j] = hn::LoadU(dd, s1 + j * kND);
      a2[j] = hn::LoadU(dd, s2 + j * kND);
      a3[j] = hn::LoadU(dd, s3 + j * kND);
    }
    const VD vk = hn::Set(dd, kd);
    const VF vkf = hn::Set(df, k);
    const VU k_abs = hn::Set(du, 0x7fffffffu);
    const VU k_one = hn::Set(du, 1u);
    const VI k_inf = hn::Set(di, 0x7f800000);
    const VI k_minnorm_m1 = hn::Set(di, 0x007fffff);
    VI min_key = hn::Set(di, std::numeric_limits<int32_t>::max());
    VI max_key = hn::Set(di, std::numeric_limits<int32_t>::min());
    VU min_abs_m1 = hn::Set(du, 0xffffffffu);
    HWY_ALIGN uint32_t idx[kNF];
    HWY_ALIGN uint32_t lanes[kNF];

    for (; n - i >= kStep; i += kStep) {
      for (size_t u = 0; u < kU; ++u) {
        const size_t iu = i + u * kNF;
        const VF v = hn::LoadU(df, x + iu);
        const VU bits = hn::BitCast(du, v);
        const VU abs = hn::And(bits, k_abs);
        const VI abs_i = hn::BitCast(di, abs);
        const VU bins = hn::ShiftRight<internal::kLogShift>(abs);
        if (vec_hist) {
          hn::Store(bins, du, idx);
          for (size_t j = 0; j < kNF; ++j) ++hist[(u * kNF + j) % kSubHists][idx[j]];
        }
        const auto zero = hn::Eq(abs, hn::Zero(du));
        min_abs_m1 = hn::Min(min_abs_m1, hn::Sub(abs, k_one));
        // Key: bits ^ (sign ? 0x7fffffff : 0), an int32 order of the values.
        const VI bits_i = hn::BitCast(di, bits);
        const VI key = hn::Xor(bits_i, hn::BitCast(di, hn::ShiftRight<1>(
                                                          hn::BitCast(du, hn::BroadcastSignBit(bits_i)))));
        const auto normal =
            hn::AndNot(hn::Gt(abs_i, hn::Set(di, 0x7f7fffff)), hn::Gt(abs_i, k_minnorm_m1));
        VF xk = v, xz = v;
        if (HWY_LIKELY(hn::AllTrue(di, hn::Or(normal, hn::RebindMask(di, zero))))) {
          min_key = hn::Min(min_key, key);
          max_key = hn::Max(max_key, key);
        } else {
          // fp32 specials or subnormals in this vector.
          const auto finite = hn::Lt(abs_i, k_inf);
          part->nans += hn::CountTrue(di, hn::Gt(abs_i, k_inf));
          part->pos_infs += hn::CountTrue(di, hn::Eq(bits_i, k_inf));
          part->neg_infs += hn::CountTrue(du, hn::Eq(bits, hn::Set(du, 0xff800000u)));
          hn::Store(abs, du, lanes);
          for (size_t j = 0; j < kNF; ++j) {
            if (lanes[j] != 0 && lanes[j] < 0x00800000u) {
              ++part->exp_subnormal[31 - __builtin_clz(lanes[j])];
            }
          }
          min_key = hn::Min(min_key, hn::IfThenElse(finite, key, hn::Set(di, std::numeric_limits<int32_t>::max())));
          max_key = hn::Max(max_key, hn::IfThenElse(finite, key, hn::Set(di, std::numeric_limits<int32_t>::min())));
          xk = hn::IfThenElse(hn::RebindMask(df, finite), v, vkf);
          xz = hn::IfThenElseZero(hn::RebindMask(df, finite), v);
        }
        {
          const VD t = hn::Sub(PromotePart<0>(xk), vk);
          const VD xd = PromotePart<0>(xz);
          const size_t a = AccIndex(u, 0);
          a1[a] = hn::Add(a1[a], t);
          a2[a] = hn::Add(a2[a], hn::Mul(t, t));
          a3[a] = hn::Add(a3[a], hn::Mul(xd, xd));
        }
        if constexpr (kParts == 2) {
          const VD t = hn::Sub(PromotePart<1>(xk), vk);
          const VD xd = PromotePart<1>(xz);
          const size_t a = AccIndex(u, 1);
          a1[a] = hn::Add(a1[a], t);
          a2[a] = hn::Add(a2[a], hn::Mul(t, t));
          a3[a] = hn::Add(a3[a], hn::Mul(xd, xd));
        }
      }
    }
    for (size_t j = 0; j < kK; ++j) {
      hn::StoreU(a1[j], dd, s1 + j * kND);
      hn::StoreU(a2[j], dd, s2 + j * kND);
      hn::StoreU(a3[j], dd, s3 + j * kND);
    }
    HWY_ALIGN int32_t ilanes[kNF];
    hn::Store(min_key, di, ilanes);
    for (size_t j = 0; j < kNF; ++j) part->min_key = std::min(part->min_key, ilanes[j]);
    hn::Store(max_key, di, ilanes);
    for (size_t j = 0; j < kNF; ++j) part->max_key = std::max(part->max_key, ilanes[j]);
    hn::Store(min_abs_m1, du, lanes);
    for (size_t j = 0; j < kNF; ++j) part->min_abs_m1 = std::min(part->min_abs_m1, lanes[j]);
  }
  // Tail: the scalar twin, straight into the final histogram.
  for (; i < n; ++i) internal::StatsElement(x[i], pos + i, kd, part, s1, s2, s3);
}

// The kPart-th f64 half of the f32 vector at p, converted from memory.
template <size_t kPart>
HWY_INLINE VD LoadPromote(const float* HWY_RESTRICT p) {
#if HWY_TARGET == HWY_SCALAR
  return hn::PromoteTo(DD(), hn::LoadU(DF(), p));
#else
  return hn::PromoteTo(DD(), hn::LoadU(DH(), p + kPart * kND));
#endif
}

// What FusedRange managed.
enum FusedStatus { kFusedNone, kFusedStats, kFusedBoth };

// The statistics of StatsRange and, with kFused = 1, the cast sums and counts
// of one format slot, in one loop over x[0, n) (n a multiple of kStep,
// pos a multiple of kSumLanes), for the common case. Totals are added in the
// fixed_sum.h order, so the results are those of StatsRange + CastRange over
// the same range; what does not fit the common case is detected once at the
// end and left to them:
//  - statistics: every x is zero or an fp32 normal. The loop carries no
//    special-value tests: extremes are max/min of the raw bits as uint32 and
//    int32 (turned into order keys once per call), and the range's smallest
//    |x|-1 and largest bits tell afterwards whether the assumption held. If
//    not, only the raw histogram has been updated (it counts every element
//    alike) and kFusedNone is returned: the caller re-runs the range on the
//    exact path without the histogram.
//  - slot: p.fast && p.fast_exact_diff (uniform scale; every path-A result is
//    an fp32 normal, so x - q is exact in fp32). Path A runs inline on |x|
//    (the squared error does not depend on the sign: |x| - |q| = +-(x - q));
//    vectors with a nonzero lane below the normal range or one rounding above
//    max go out of line as in CastRange (*misses counts them). Zero lanes
//    pass path A as zeros, so a nonzero x whose x * scale is 0 would be
//    missed: if the smallest nonzero |x| scales to 0, the slot's work is
//    dropped (kFusedStats) and the caller casts the range itself. zero_in is
//    the growth of raw histogram bin 0 (only zeros there in a clean range).
// *info receives the range's extremes and zeros when it was clean (for the
// other slots' SlotBlock).
template <Rounding R, size_t kFused>
HWY_NOINLINE FusedStatus FusedRange(const float* HWY_RESTRICT x, size_t n, size_t pos, float k,
                                    internal::StatsPartial* part, SubHists hist, double* s1,
                                    double* s2, double* s3, const internal::CastParams* slot,
                                    internal::CastState* st, size_t* misses, BlockInfo* info) {
  const DF df;
  const DU du;
  const DI di;
  const DD dd;
  VD a1[kK], a2[kK], a3[kK], err[kK];
  for (size_t j = 0; j < kK; ++j) {
    a1[j] = hn::LoadU(dd, s1 + j * kND);
    a2[j] = hn::LoadU(dd, s2 + j * kND);
    a3[j] = hn::LoadU(dd, s3 + j * kND);
    err[j] = kFused ? hn::LoadU(dd, st->err + j * kND) : hn::Zero(dd);
  }
  const VD vk = hn::Set(dd, static_cast<double>(k));
  const VU k_abs = hn::Set(du, 0x7fffffffu);
  const VU k_one = hn::Set(du, 1u);
  VU min_abs_m1 = hn::Set(du, 0xffffffffu);
  VU max_u = hn::Zero(du);
  VU min_u = hn::Set(du, 0xffffffffu);
  VI max_i = hn::Set(di, std::numeric_limits<int32_t>::min());
  uint32_t zeros_before = 0;
  for (size_t h = 0; h < kSubHists; ++h) zeros_before += hist[h][0];

  // Slot constants (unused when kFused == 0).
  internal::CastParams p;
  if (kFused) p = *slot;
  const VF sc = hn::Set(df, p.scale);
  const VF inv = hn::Set(df, p.inv_scale);
  const VU k_low = hn::Set(du, p.low_mask);
  const VI k_max = hn::Set(di, static_cast<int32_t>(p.max_bits));
  // (|v| - 1) below (min_bits - 1) as uint32, i.e. a nonzero |v| below
  // min_bits, as one signed compare: |v| + 0x7fffffff maps 0 to INT32_MAX
  // and |v| >= 1 to INT32_MIN + |v| - 1.
  const VI k_wrap = hn::Set(di, 0x7fffffff);
  const VI k_low_limit = hn::Set(
      di, static_cast<int32_t>(0x80000000u + (p.min_bits - 1u)));
  internal::CastState missed;  // counts of the out-of-line vectors
  bool mismatch = false;
  size_t num_missed = 0;

  for (size_t i = 0; i < n; i += kStep) {
    for (size_t u = 0; u < kU; ++u) {
      const size_t iu = i + u * kNF;
      const VU bits = hn::BitCast(du, hn::LoadU(df, x + iu));
      const VU abs = hn::And(bits, k_abs);
#if HWY_TARGET != HWY_SCALAR && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      // Bins from the raw bits two at a time in general registers: this
      // keeps the vector units free for the sums and measured faster than
      // extracting lanes (the increments are the loop's bottleneck).
      for (size_t j = 0; j < kNF; j += 2) {
        uint64_t w;
        __builtin_memcpy(&w, x + iu + j, sizeof w);
        ++hist[(u * kNF + j) % kSubHists][(w >> internal::kLogShift) & (internal::kRawLogBins - 1)];
        ++hist[(u * kNF + j + 1) % kSubHists]
              [(w >> (32 + internal::kLogShift)) & (internal::kRawLogBins - 1)];
      }
#else
      {
        HWY_ALIGN uint32_t idx[kNF];
        hn::Store(hn::ShiftRight<internal::kLogShift>(abs), du, idx);
        for (size_t j = 0; j < kNF; ++j) ++hist[(u * kNF + j) % kSubHists][idx[j]];
      }
#endif
      min_abs_m1 = hn::Min(min_abs_m1, hn::Sub(abs, k_one));
      max_u = hn::Max(max_u, bits);
      min_u = hn::Min(min_u, bits);
      max_i = hn::Max(max_i, hn::BitCast(di, bits));
      // Moments. x^2 is exact in double, so MulAdd (fused or not) rounds once.
      {
        const VD xd = LoadPromote<0>(x + iu);
        const VD t = hn::Sub(xd, vk);
        const size_t a = AccIndex(u, 0);
        a1[a] = hn::Add(a1[a], t);
        a2[a] = hn::Add(a2[a], hn::Mul(t, t));
        a3[a] = hn::MulAdd(xd, xd, a3[a]);
      }
      if constexpr (kParts == 2) {
        const VD xd = LoadPromote<1>(x + iu);
        const VD t = hn::Sub(xd, vk);
        const size_t a = AccIndex(u, 1);
        a1[a] = hn::Add(a1[a], t);
        a2[a] = hn::Add(a2[a], hn::Mul(t, t));
        a3[a] = hn::MulAdd(xd, xd, a3[a]);
      }
      if constexpr (kFused == 1) {
        // Path A on |x| * scale (= |x * scale|: scale > 0). In a clean range
        // |v| <= +Inf, so every value below stays under 2^31: signed compares.
        const VF xa = hn::BitCast(df, abs);
        const VU vabs = hn::BitCast(du, hn::Mul(xa, sc));
        const VU rq = RoundMagnitude<R>(p, vabs, k_low, p.index_offset + pos + iu);
        const auto low = hn::Lt(hn::Add(hn::BitCast(di, vabs), k_wrap), k_low_limit);
        const auto high = hn::Gt(hn::BitCast(di, rq), k_max);
        if (HWY_LIKELY(hn::AllFalse(di, hn::Or(low, high)))) {
          // |x| - |q|, exact (p.fast_exact_diff); +0 for zero lanes.
          const VF d = hn::Sub(xa, hn::Mul(hn::BitCast(df, rq), inv));
          const VD d0 = PromotePart<0>(d);
          const size_t a0 = AccIndex(u, 0);
          err[a0] = hn::MulAdd(d0, d0, err[a0]);  // d^2 exact in double
          if constexpr (kParts == 2) {
            const VD d1 = PromotePart<1>(d);
            const size_t a1i = AccIndex(u, 1);
            err[a1i] = hn::MulAdd(d1, d1, err[a1i]);
          }
        } else {
          HWY_ALIGN uint32_t code_buf[kNF];
          HWY_ALIGN float q_buf[kNF];
          bool x_finite = true;
          GeneralVectorOutOfLine<R, false, true>(p, x + iu, nullptr, nullptr, pos + iu, &missed,
                                                 code_buf, q_buf, &x_finite);
          ++num_missed;
          // As CastRange's finish(): lanes with a non-finite x or q add +0.
          const VF xv = hn::LoadU(df, x + iu);
          const VF q = hn::Load(df, q_buf);
          const auto ok = hn::And(hn::IsFinite(q), hn::IsFinite(xv));
          if (!hn::AllTrue(df, ok)) mismatch = true;
          const VF xs = hn::IfThenElseZero(ok, xv);
          const VF qs = hn::IfThenElseZero(ok, q);
          {
            const VD xd = PromotePart<0>(xs);
            const VD d0 = hn::Sub(xd, PromotePart<0>(qs));
            const size_t a0 = AccIndex(u, 0);
            err[a0] = hn::Add(err[a0], hn::Mul(d0, d0));
          }
          if constexpr (kParts == 2) {
            const VD xd = PromotePart<1>(xs);
            const VD d1 = hn::Sub(xd, PromotePart<1>(qs));
            const size_t a1i = AccIndex(u, 1);
            err[a1i] = hn::Add(err[a1i], hn::Mul(d1, d1));
          }
        }
      }
    }
  }
  *misses = num_missed;

  // Reductions in registers (storing the accumulators to an array here made
  // GCC keep them in memory throughout the loop).
  const uint32_t m1 = hn::GetLane(hn::MinOfLanes(du, min_abs_m1));
  const uint32_t hi_u = hn::GetLane(hn::MaxOfLanes(du, max_u));
  const uint32_t lo_u = hn::GetLane(hn::MinOfLanes(du, min_u));
  const int32_t hi_i = hn::GetLane(hn::MaxOfLanes(di, max_i));
  // An fp32 subnormal (|x|-1 below 2^-126 - 1), +Inf/NaN (int32 bits at
  // least +Inf's) or -Inf/NaN (uint32 bits at least -Inf's).
  info->clean = false;
  if (m1 < 0x007fffffu || hi_i >= 0x7f800000 || hi_u >= 0xff800000u) return kFusedNone;

  for (size_t j = 0; j < kK; ++j) {
    hn::StoreU(a1[j], dd, s1 + j * kND);
    hn::StoreU(a2[j], dd, s2 + j * kND);
    hn::StoreU(a3[j], dd, s3 + j * kND);
  }
  // All finite: negative bits order above non-negative ones as uint32, and
  // non-negative ones among themselves as int32. The minimum is the largest
  // uint32 if any is negative, else the smallest; the maximum the largest
  // int32 if any is non-negative, else the smallest uint32.
  const uint32_t min_bits = hi_u >= 0x80000000u ? hi_u : lo_u;
  const uint32_t max_bits = lo_u < 0x80000000u ? static_cast<uint32_t>(hi_i) : lo_u;
  part->min_key = std::min(part->min_key, internal::OrderKey(min_bits));
  part->max_key = std::max(part->max_key, internal::OrderKey(max_bits));
  part->min_abs_m1 = std::min(part->min_abs_m1, m1);
  uint32_t zeros_after = 0;
  for (size_t h = 0; h < kSubHists; ++h) zeros_after += hist[h][0];
  info->clean = true;
  info->min_abs_m1 = m1;
  info->max_abs_bits = std::max(min_bits & 0x7fffffffu, max_bits & 0x7fffffffu);
  info->zeros = zeros_after - zeros_before;
  if (!kFused) return kFusedStats;
  if (m1 != 0xffffffffu) {
    float min_abs;
    const uint32_t min_abs_bits = m1 + 1;
    __builtin_memcpy(&min_abs, &min_abs_bits, sizeof min_abs);
    if (min_abs * p.scale == 0.0f) return kFusedStats;  // some nonzero x scaled to 0
  }
  for (size_t j = 0; j < kK; ++j) hn::StoreU(err[j], dd, st->err + j * kND);
  missed.zero_in = 0;  // already in the histogram's count
  st->AddCounts(missed);
  st->zero_in += zeros_after - zeros_before;
  if (mismatch) st->sig_mismatch = true;
  return kFusedBoth;
}

// FusedRange for a run-time rounding mode (kFused = 1).
HWY_INLINE FusedStatus FusedRangeSlot(const float* x, size_t n, size_t pos, float k,
                                      internal::StatsPartial* part, SubHists hist, double* s1,
                                      double* s2, double* s3, const internal::CastParams* slot,
                                      internal::CastState* st, size_t* misses, BlockInfo* info) {
  switch (slot->rounding) {
    case Rounding::kNearestEven:
      return FusedRange<Rounding::kNearestEven, 1>(x, n, pos, k, part, hist, s1, s2, s3, slot, st,
                                                   misses, info);
    case Rounding::kTowardZero:
      return FusedRange<Rounding::kTowardZero, 1>(x, n, pos, k, part, hist, s1, s2, s3, slot, st,
                                                  misses, info);
    case Rounding::kStochastic:
      return FusedRange<Rounding::kStochastic, 1>(x, n, pos, k, part, hist, s1, s2, s3, slot, st,
                                                  misses, info);
  }
  return kFusedNone;
}

// bf16 / fp16 sources widened exactly to fp32.
HWY_INLINE void WidenBf16(const uint16_t* HWY_RESTRICT src, size_t n, float* HWY_RESTRICT dst) {
  const DF df;
  const DU du;
  const hn::Rebind<uint16_t, DU> d16;
  size_t i = 0;
  for (; i + kNF <= n; i += kNF) {
    hn::StoreU(hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, src + i)))), df,
               dst + i);
  }
  for (; i < n; ++i) {
    const uint32_t b = static_cast<uint32_t>(src[i]) << 16;
    __builtin_memcpy(&dst[i], &b, sizeof b);
  }
}

HWY_INLINE void WidenFp16(const internal::CastParams& fp16, const uint16_t* HWY_RESTRICT src,
                          size_t n, float* HWY_RESTRICT dst) {
  const DF df;
  const DU du;
  const hn::Rebind<uint16_t, DU> d16;
  size_t i = 0;
  for (; i + kNF <= n; i += kNF) {
    hn::StoreU(DecodeVec(fp16, hn::PromoteTo(du, hn::LoadU(d16, src + i))), df, dst + i);
  }
  for (; i < n; ++i) dst[i] = DecodeRef(*fp16.format, src[i]);
}

// Chunks [c0, c1) of the job: per-chunk moment and slot totals into the job's
// arrays; counters, histograms and extremes into *part; slot counts into
// slot_counts[0, num_slots).
void AnalyzeChunks(const internal::AnalyzeJob& job, size_t c0, size_t c1,
                   internal::StatsPartial* worker_part, internal::CastState* slot_counts) {
  // Work on a copy on this thread's stack: the workers' records sit next to
  // each other in one array, and extremes are updated once per block.
  internal::StatsPartial local = std::move(*worker_part);
  internal::StatsPartial* part = &local;
  // The sub-histograms stay allocated and zeroed between calls on a thread;
  // only the touched bin range is flushed (small tensors are common).
  static thread_local std::vector<uint32_t> hist_storage(kSubHists * kSubHistStride, 0);
  SubHists hist = reinterpret_cast<SubHists>(hist_storage.data());
  std::vector<float> wide(job.source == internal::AnalyzeJob::kF32 ? 0 : kSumChunk);
  auto flush = [&] {
    // Every bin touched is bin 0 (zeros) or lies between the bins of the
    // smallest and largest magnitudes seen (Inf/NaN: the top bins).
    const size_t lo = (part->min_abs_m1 + 1u) >> internal::kLogShift;
    const size_t hi = part->nans + part->pos_infs + part->neg_infs > 0
                          ? internal::kRawLogBins - 1
                          : part->MaxAbsBits() >> internal::kLogShift;
    for (size_t h = 0; h < kSubHists; ++h) {
      part->hist[0] += hist[h][0];
      hist[h][0] = 0;
      for (size_t b = std::max<size_t>(lo, 1); b <= hi; ++b) {
        part->hist[b] += hist[h][b];
        hist[h][b] = 0;
      }
    }
  };
  const bool fuse_slot0 =
      job.num_slots > 0 && job.slots[0].fast && job.slots[0].fast_exact_diff;
  SlotPlan plans[kMaxAnalyzeFormats];
  for (size_t s = 0; s < job.num_slots; ++s) plans[s] = MakeSlotPlan(job.slots[s]);
  // Whether slot 0 rides the fused loop: off after a block where path A
  // missed too often, back on after a clean block where it cannot miss
  // (SlotBlock mode 2). Kept across chunks: a slot whose values mostly fall
  // below the format's normal range would otherwise send a whole block out
  // of line at the start of every chunk.
  bool fuse_slot = fuse_slot0;
  for (size_t c = c0; c < c1; ++c) {
    const size_t begin = c * kSumChunk;
    const size_t len = std::min(kSumChunk, job.n - begin);
    const float* x;
    switch (job.source) {
      case internal::AnalyzeJob::kF32: x = static_cast<const float*>(job.src) + begin; break;
      case internal::AnalyzeJob::kBf16:
        WidenBf16(static_cast<const uint16_t*>(job.src) + begin, len, wide.data());
        x = wide.data();
        break;
      default:
        WidenFp16(*job.fp16, static_cast<const uint16_t*>(job.src) + begin, len, wide.data());
        x = wide.data();
        break;
    }
    double s1[kSumLanes] = {}, s2[kSumLanes] = {}, s3[kSumLanes] = {};
    internal::CastState st[kMaxAnalyzeFormats];
    // Per chunk: try the fused loop until a block breaks its assumptions
    // (fp32 specials or subnormals: stop trying; slot 0 missing path A in
    // more than a quarter of the vectors: stop fusing the slot).
    bool try_fused = true;
    for (size_t b = 0; b < len; b += kAnalyzeBlock) {
      const size_t bl = std::min(kAnalyzeBlock, len - b);
      const size_t nv = bl - bl % kStep;  // the vector part
      bool attempted = false, fused = false, slot_done = false;
      BlockInfo info;
      if (try_fused && nv > 0) {
        attempted = true;
        size_t misses = 0;
        FusedStatus status;
        if (fuse_slot) {
          status = FusedRangeSlot(x + b, nv, begin + b, job.k, part, hist, s1, s2, s3,
                                  &job.slots[0], &st[0], &misses, &info);
          if (misses * 4 > nv / kNF) fuse_slot = false;
        } else {
          status = FusedRange<Rounding::kNearestEven, 0>(x + b, nv, begin + b, job.k, part, hist,
                                                         s1, s2, s3, nullptr, nullptr, &misses,
                                                         &info);
        }
        fused = status != kFusedNone;
        slot_done = status == kFusedBoth;
        try_fused = fused;
      }
      if (fused) {
        StatsRange(x + b + nv, bl - nv, begin + b + nv, job.k, part, hist, s1, s2, s3);
      } else {
        // The histogram of the vector part is counted if the fused loop ran.
        StatsRange(x + b, bl, begin + b, job.k, part, hist, s1, s2, s3,
                   /*vec_hist=*/!attempted);
      }
      for (size_t s = 0; s < job.num_slots; ++s) {
        size_t skip = s == 0 && slot_done ? nv : 0;
        if (skip == 0 && nv > 0) {
          // A clean block in the slot's easy range: SlotBlock, else the
          // general cast.
          const int mode = SlotBlockMode(job.slots[s], plans[s], info);
          if (s == 0 && fuse_slot0 && info.clean) fuse_slot = mode == 2;
          if (mode != 0) {
            SlotBlockAny(job.slots[s], plans[s], mode, x + b, nv, begin + b, info.zeros, &st[s]);
            skip = nv;
          }
        }
        CastRangeAny<kOutNone, /*kSums=*/true, /*kSig=*/false, /*kLaneScale=*/false>(
            job.slots[s], x + b + skip, bl - skip, begin + b + skip, nullptr, nullptr, nullptr,
            &st[s]);
      }
    }
    job.chunk_s1[c] = ReduceLanes(s1);
    job.chunk_s2[c] = ReduceLanes(s2);
    job.chunk_s3[c] = ReduceLanes(s3);
    for (size_t s = 0; s < job.num_slots; ++s) {
      slot_counts[s].AddCounts(st[s]);
      job.slot_err[s][c] = ReduceLanes(st[s].err);
      if (!st[s].sig_mismatch) {
        job.slot_sig[s][c] = job.chunk_s3[c];  // same terms in the same order
      } else {
        // Some finite x cast to a non-finite q: that slot sums its own x^2.
        internal::CastState again;
        CastRangeAny<kOutNone, true, /*kSig=*/true, false>(job.slots[s], x, len, begin, nullptr,
                                                          nullptr, nullptr, &again);
        job.slot_sig[s][c] = ReduceLanes(again.sig);
      }
    }
    if ((c - c0 + 1) % 65536 == 0) flush();  // 32-bit bins: flush before 2^32
  }
  flush();
  *worker_part = std::move(local);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
