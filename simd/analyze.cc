#include "simd/analyze.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/bits.h"
#include "formats/fixed_sum.h"
#include "simd/internal/cast_params.h"
#include "simd/parallel.h"
#include "simd/internal/stats.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/analyze.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/analyze-inl.h"

#if HWY_ONCE
namespace lpsim {
namespace simd {

HWY_EXPORT(AnalyzeChunks);

namespace {

const Format& Fp16Format() {
  static const Format kFp16 = *ParseFormat("fp16");
  return kFp16;
}

float Widen(internal::AnalyzeJob::Source source, const void* src, size_t i) {
  switch (source) {
    case internal::AnalyzeJob::kF32: return static_cast<const float*>(src)[i];
    case internal::AnalyzeJob::kBf16: {
      return FloatOf(static_cast<uint32_t>(static_cast<const uint16_t*>(src)[i]) << 16);
    }
    case internal::AnalyzeJob::kFp16: break;
  }
  return DecodeRef(Fp16Format(), static_cast<const uint16_t*>(src)[i]);
}

AnalyzeResult AnalyzeDriver(const void* src, internal::AnalyzeJob::Source source, size_t n,
                            const std::vector<FormatSlot>& slots, int threads) {
  const size_t num_slots = std::min(slots.size(), kMaxAnalyzeFormats);
  std::vector<internal::CastParams> params;
  for (size_t s = 0; s < num_slots; ++s) {
    params.push_back(internal::MakeCastParams(slots[s].format, slots[s].rounding, slots[s].seed,
                                              0, slots[s].scale));
  }
  const internal::CastParams fp16 =
      internal::MakeCastParams(Fp16Format(), Rounding::kNearestEven, 0, 0, 1.0f);

  internal::AnalyzeJob job;
  job.src = src;
  job.source = source;
  job.n = n;
  for (size_t i = 0; i < n; ++i) {
    const float x = Widen(source, src, i);
    if (std::isfinite(x)) {
      job.k = x;
      break;
    }
  }
  job.fp16 = &fp16;
  job.slots = params.data();
  job.num_slots = num_slots;
  const size_t chunks = NumSumChunks(n);
  std::vector<double> sums((3 + 2 * num_slots) * chunks);
  job.chunk_s1 = sums.data();
  job.chunk_s2 = sums.data() + chunks;
  job.chunk_s3 = sums.data() + 2 * chunks;
  for (size_t s = 0; s < num_slots; ++s) {
    job.slot_err[s] = sums.data() + (3 + 2 * s) * chunks;
    job.slot_sig[s] = sums.data() + (4 + 2 * s) * chunks;
  }

  const size_t workers = ThreadsFor(n, threads);
  std::vector<internal::StatsPartial> parts(workers);
  std::vector<std::vector<internal::CastState>> counts(
      workers, std::vector<internal::CastState>(num_slots));
  ForEachChunkRange(n, workers, [&](size_t w, size_t c0, size_t c1) {
    HWY_DYNAMIC_DISPATCH(AnalyzeChunks)(job, c0, c1, &parts[w], counts[w].data());
  });

  for (size_t w = 1; w < workers; ++w) parts[0].Merge(parts[w]);
  AnalyzeResult r;
  internal::FinishStats(parts[0], n, PairwiseSum(job.chunk_s1, chunks),
                        PairwiseSum(job.chunk_s2, chunks), PairwiseSum(job.chunk_s3, chunks), job.k,
                        &r.stats);
  for (size_t s = 0; s < num_slots; ++s) {
    internal::CastState total;
    for (size_t w = 0; w < workers; ++w) total.AddCounts(counts[w][s]);
    CastCounts c;
    c.numel = n;
    total.CopyCountsTo(&c);
    c.sq_error = PairwiseSum(job.slot_err[s], chunks);
    c.sq_signal = PairwiseSum(job.slot_sig[s], chunks);
    r.formats.push_back(c);
  }
  return r;
}

}  // namespace

AnalyzeResult Analyze(const float* x, size_t n, const std::vector<FormatSlot>& slots,
                      int threads) {
  return AnalyzeDriver(x, internal::AnalyzeJob::kF32, n, slots, threads);
}

AnalyzeResult AnalyzeBf16(const uint16_t* x, size_t n, const std::vector<FormatSlot>& slots,
                          int threads) {
  return AnalyzeDriver(x, internal::AnalyzeJob::kBf16, n, slots, threads);
}

AnalyzeResult AnalyzeFp16(const uint16_t* x, size_t n, const std::vector<FormatSlot>& slots,
                          int threads) {
  return AnalyzeDriver(x, internal::AnalyzeJob::kFp16, n, slots, threads);
}

}  // namespace simd
}  // namespace lpsim
#endif  // HWY_ONCE
