// The scalar side of simd/analyze.h: AnalyzeRef and
// the finishing formulas both implementations share (internal/stats.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/bits.h"
#include "formats/fixed_sum.h"
#include "simd/analyze.h"
#include "simd/internal/stats.h"

namespace lpsim {
namespace simd {
namespace internal {

void StatsPartial::Merge(const StatsPartial& o) {
  nans += o.nans;
  pos_infs += o.pos_infs;
  neg_infs += o.neg_infs;
  for (size_t i = 0; i < 23; ++i) exp_subnormal[i] += o.exp_subnormal[i];
  for (size_t i = 0; i < kRawLogBins; ++i) hist[i] += o.hist[i];
  min_key = std::min(min_key, o.min_key);
  max_key = std::max(max_key, o.max_key);
  min_abs_m1 = std::min(min_abs_m1, o.min_abs_m1);
}

size_t FirstFinite(const float* x, size_t n, float* k) {
  *k = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(x[i])) {
      *k = x[i];
      return i;
    }
  }
  return n;
}

void FinishStats(const StatsPartial& part, size_t n, double s1, double s2, double s3, float k,
                 TensorStats* t) {
  t->count = n;
  t->zeros = part.Zeros();
  t->nans = part.nans;
  t->pos_infs = part.pos_infs;
  t->neg_infs = part.neg_infs;
  // Exponent bins: fp32 subnormals by leading bit; normal binade b (biased)
  // is the sum of its 2^kLogMantissaBits log bins, at bin b + 22 (= e + 149).
  t->exponent_hist.fill(0);
  for (size_t i = 0; i < 23; ++i) t->exponent_hist[i] = part.exp_subnormal[i];
  constexpr size_t kPerBinade = size_t{1} << TensorStats::kLogMantissaBits;
  for (size_t b = 1; b < 255; ++b) {
    uint64_t c = 0;
    for (size_t j = 0; j < kPerBinade; ++j) c += part.hist[b * kPerBinade + j];
    t->exponent_hist[b + 22] = c;
  }
  t->log_hist.assign(part.hist.begin(), part.hist.begin() + TensorStats::kLogBins);
  t->log_hist[0] -= t->zeros;

  const uint64_t finite = t->finite();
  if (finite == 0) {
    t->mean = t->std = t->rms = std::numeric_limits<double>::quiet_NaN();
    t->min = t->max = 0.0f;
  } else {
    const double nf = static_cast<double>(finite);
    const double m1 = s1 / nf;
    t->mean = static_cast<double>(k) + m1;
    t->std = std::sqrt(std::max(0.0, s2 / nf - m1 * m1));
    t->rms = std::sqrt(s3 / nf);
    t->min = FloatOf(FromOrderKey(part.min_key));
    t->max = FloatOf(FromOrderKey(part.max_key));
  }
  t->min_abs = part.min_abs_m1 >= 0x7f7fffffu ? 0.0f : FloatOf(part.min_abs_m1 + 1);
  t->max_abs = FloatOf(part.MaxAbsBits());
}

}  // namespace internal

AnalyzeResult AnalyzeRef(const float* x, size_t n, const std::vector<FormatSlot>& slots) {
  AnalyzeResult r;
  internal::StatsPartial part;
  float k;
  internal::FirstFinite(x, n, &k);
  std::vector<double> c1, c2, c3;
  double s1[kSumLanes] = {}, s2[kSumLanes] = {}, s3[kSumLanes] = {};
  for (size_t i = 0; i < n; ++i) {
    internal::StatsElement(x[i], i, k, &part, s1, s2, s3);
    if ((i + 1) % kSumChunk == 0 || i + 1 == n) {
      c1.push_back(ReduceLanes(s1));
      c2.push_back(ReduceLanes(s2));
      c3.push_back(ReduceLanes(s3));
      std::fill(s1, s1 + kSumLanes, 0.0);
      std::fill(s2, s2 + kSumLanes, 0.0);
      std::fill(s3, s3 + kSumLanes, 0.0);
    }
  }
  internal::FinishStats(part, n, PairwiseSum(c1.data(), c1.size()),
                        PairwiseSum(c2.data(), c2.size()), PairwiseSum(c3.data(), c3.size()), k,
                        &r.stats);
  std::vector<float> q(n);
  for (size_t s = 0; s < std::min(slots.size(), kMaxAnalyzeFormats); ++s) {
    QuantizeOptions opt;
    opt.rounding = slots[s].rounding;
    opt.seed = slots[s].seed;
    opt.scale = slots[s].scale;
    CastCounts c;
    QuantizeRef(slots[s].format, x, n, opt, q.data(), &c);
    r.formats.push_back(c);
  }
  return r;
}

}  // namespace simd
}  // namespace lpsim
