// TensorStats: the format-independent numerics of one tensor, as analyze
// (simd/analyze.h) computes them and every record (core/records.h) keeps them:
// counts of special values, the fp32 exponent histogram, a log histogram for
// |x| quantiles, moments and extremes.
//
//   TensorStats s = simd::Analyze(x, n, {}).stats;
//   float p99 = s.Quantile(0.99);
#ifndef LPSIM_CORE_TENSOR_STATS_H_
#define LPSIM_CORE_TENSOR_STATS_H_

#include <array>
#include <cstdint>
#include <vector>

namespace lpsim {

// Format-independent statistics of one tensor.
struct TensorStats {
  // Exponent bins: bin (e - kMinExponent) holds |x| in [2^e, 2^(e+1)) for
  // every finite nonzero fp32 value, subnormals included (e >= -149).
  static constexpr int kMinExponent = -149;
  static constexpr int kMaxExponent = 127;
  static constexpr int kExponentBins = kMaxExponent - kMinExponent + 1;
  // Log histogram: bin b holds finite nonzero |x| whose fp32 bits satisfy
  // (bits >> (23 - kLogMantissaBits)) == b, i.e. 2^kLogMantissaBits bins per
  // binade; fp32 subnormals land in bins 0 .. 2^kLogMantissaBits - 1 (linear,
  // not logarithmic, there). Zeros are only in `zeros`.
  static constexpr int kLogMantissaBits = 3;
  static constexpr int kLogBins = 255 << kLogMantissaBits;
  // A finite nonzero |x| is in log bin (its fp32 bits >> kLogBinShift).
  static constexpr int kLogBinShift = 23 - kLogMantissaBits;
  // Quantile() returns a value within this relative error of the true |x|
  // quantile (nearest-rank) when that quantile is >= 2^-126: half a bin's
  // width (the estimate is the bin's midpoint, clamped to [min_abs, max_abs]).
  static constexpr double kQuantileRelativeError = 1.0 / (2 << kLogMantissaBits);

  uint64_t count = 0;    // all elements
  uint64_t zeros = 0;    // +-0
  uint64_t nans = 0;
  uint64_t pos_infs = 0;
  uint64_t neg_infs = 0;
  std::array<uint64_t, kExponentBins> exponent_hist{};
  std::vector<uint64_t> log_hist = std::vector<uint64_t>(kLogBins, 0);
  // Over the nf finite elements; NaN when there are none. With K the first
  // finite element and, in the order of formats/fixed_sum.h,
  //   S1 = sum (x - K),  S2 = sum (x - K)^2,  S3 = sum x^2   (in double),
  //   mean = K + S1/nf,  std = sqrt(max(0, S2/nf - (S1/nf)^2)),  rms = sqrt(S3/nf).
  // std is the population standard deviation; all-equal inputs give exactly
  // 0. Its relative error grows with 1 + ((mean - K) / std)^2.
  double mean = 0, std = 0, rms = 0;
  float min = 0, max = 0;      // finite extremes (-0 orders below +0); 0 if none
  float min_abs = 0;           // smallest nonzero finite |x| (0 if none)
  float max_abs = 0;           // largest finite |x| (the amax; 0 if none)

  uint64_t finite() const { return count - nans - pos_infs - neg_infs; }
  // The exponent histogram's nonzero bins, e increasing: counts[k] values
  // have |x| in [2^exponents[k], 2^(exponents[k] + 1)). The histogram the
  // report draws and the live queries send.
  struct ExponentBins {
    std::vector<int> exponents;
    std::vector<uint64_t> counts;
  };
  ExponentBins NonzeroExponentBins() const;
  // Nearest-rank quantile of |x| over finite nonzero elements, p in [0, 1];
  // 0 when there are none.
  float Quantile(double p) const;
};

}  // namespace lpsim

#endif  // LPSIM_CORE_TENSOR_STATS_H_
