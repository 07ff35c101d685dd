// Analyze: one pass over a tensor producing its numerics record.
//
// For a float32 (or bf16 / fp16) tensor: the fp32 exponent histogram, moments,
// extremes, a log histogram for |x| quantiles, and, in the same pass, the cast
// counts of up to kMaxAnalyzeFormats formats, each with its own scale and
// rounding. This record is what the tracker stores per tensor and step and
// what checks/ and report/ read.
//
//   std::vector<FormatSlot> slots = {{e4m3fn, 448 / amax}, {e5m2}};
//   AnalyzeResult r = simd::Analyze(x, n, slots);
//   r.stats.Quantile(0.99);  r.formats[0].underflow;
#ifndef LPSIM_SIMD_ANALYZE_H_
#define LPSIM_SIMD_ANALYZE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/format.h"
#include "formats/reference.h"

namespace lpsim {

constexpr size_t kMaxAnalyzeFormats = 8;

// One candidate format in an analysis: the cast sees x * scale.
struct FormatSlot {
  Format format;
  float scale = 1.0f;  // finite, > 0
  Rounding rounding = Rounding::kNearestEven;
  uint64_t seed = 0;
};

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
  // Nearest-rank quantile of |x| over finite nonzero elements, p in [0, 1];
  // 0 when there are none.
  float Quantile(double p) const;
};

struct AnalyzeResult {
  TensorStats stats;
  std::vector<CastCounts> formats;  // one per slot, in slot order
};

namespace simd {

// At most kMaxAnalyzeFormats slots; more are ignored. Slot s's counts equal
// QuantizeRef's for {rounding, seed, scale, index_offset = 0}. Bit-identical
// to AnalyzeRef for any SIMD target and thread count.
AnalyzeResult Analyze(const float* x, size_t n, const std::vector<FormatSlot>& slots,
                      int threads = 1);
// bf16 / fp16 tensors (raw 16-bit patterns), widened exactly to fp32 (fp16
// NaNs become the canonical fp32 NaN; they are only counted).
AnalyzeResult AnalyzeBf16(const uint16_t* x, size_t n, const std::vector<FormatSlot>& slots,
                          int threads = 1);
AnalyzeResult AnalyzeFp16(const uint16_t* x, size_t n, const std::vector<FormatSlot>& slots,
                          int threads = 1);

// The scalar twin every SIMD target is tested against.
AnalyzeResult AnalyzeRef(const float* x, size_t n, const std::vector<FormatSlot>& slots);

}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_ANALYZE_H_
