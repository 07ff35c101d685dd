#include "core/tensor_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/bits.h"

namespace lpsim {
TensorStats::ExponentBins TensorStats::NonzeroExponentBins() const {
  ExponentBins bins;
  for (int b = 0; b < kExponentBins; ++b) {
    const uint64_t c = exponent_hist[static_cast<size_t>(b)];
    if (c == 0) continue;
    bins.exponents.push_back(b + kMinExponent);
    bins.counts.push_back(c);
  }
  return bins;
}

float TensorStats::Quantile(double p) const {
  // Every count lies in the bins of [min_abs, max_abs] (the result is
  // clamped to them anyway), so only that span is read: rules and the store
  // ask several quantiles of every record.
  const size_t first = std::min<size_t>(AbsBitsOf(min_abs) >> kLogBinShift, log_hist.size());
  const size_t last = std::min<size_t>((AbsBitsOf(max_abs) >> kLogBinShift) + 1, log_hist.size());
  uint64_t total = 0;
  for (size_t b = first; b < last; ++b) total += log_hist[b];
  if (total == 0) return 0.0f;
  if (!(p > 0.0)) p = 0.0;  // NaN too
  if (p > 1.0) p = 1.0;
  // Nearest rank: the smallest value with at least ceil(p N) values <= it.
  uint64_t rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(total)));
  rank = std::min(std::max<uint64_t>(rank, 1), total);
  uint64_t seen = 0;
  size_t bin = first;
  for (; bin < last; ++bin) {
    seen += log_hist[bin];
    if (seen >= rank) break;
  }
  const double lo = FloatOf(static_cast<uint32_t>(bin) << kLogBinShift);
  const uint32_t hi_bits = static_cast<uint32_t>(bin + 1) << kLogBinShift;
  const double hi = hi_bits >= 0x7f800000u ? std::numeric_limits<float>::max() : FloatOf(hi_bits);
  // The bin's midpoint, pulled into [min_abs, max_abs] (which hold the true
  // quantile, so this only moves the estimate closer).
  double q = (lo + hi) / 2;
  q = std::min(std::max(q, static_cast<double>(min_abs)), static_cast<double>(max_abs));
  return static_cast<float>(q);
}

}  // namespace lpsim
