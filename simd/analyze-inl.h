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
#include <vector>

#include "formats/fixed_sum.h"
#include "hwy/highway.h"
#include "simd/internal/cast-inl.h"
#include "simd/internal/cast_params.h"
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
constexpr size_t kSubHists = 4;
using SubHists = uint32_t (*)[internal::kRawLogBins];

// Statistics of x[0, n) at summation position pos (a multiple of kSumLanes
// except for the tail): histograms, counters and extremes into *part, moment
// sums into the lane accumulators s1/s2/s3.
HWY_NOINLINE void StatsRange(const float* HWY_RESTRICT x, size_t n, size_t pos, float k,
                             internal::StatsPartial* part, SubHists hist, double* s1, double* s2,
                             double* s3) {
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
        hn::Store(bins, du, idx);
        for (size_t j = 0; j < kNF; ++j) ++hist[(u * kNF + j) % kSubHists][idx[j]];
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
                   internal::StatsPartial* part, internal::CastState* slot_counts) {
  // The sub-histograms stay allocated and zeroed between calls on a thread;
  // only the touched bin range is flushed (small tensors are common).
  static thread_local std::vector<uint32_t> hist_storage(kSubHists * internal::kRawLogBins, 0);
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
    for (size_t b = 0; b < len; b += kAnalyzeBlock) {
      const size_t bl = std::min(kAnalyzeBlock, len - b);
      StatsRange(x + b, bl, begin + b, job.k, part, hist, s1, s2, s3);
      for (size_t s = 0; s < job.num_slots; ++s) {
        CastRangeAny<kOutNone, /*kSums=*/true, /*kSig=*/false, /*kLaneScale=*/false>(
            job.slots[s], x + b, bl, begin + b, nullptr, nullptr, nullptr, &st[s]);
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
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
