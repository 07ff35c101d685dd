// The recommender's "what if" estimates (report/recommend.h): what a cast
// into a format, per tensor or per block, would do, bounded from a record's
// histograms alone, and the scale a replayable recipe gives.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/bits.h"
#include "report/recommend.h"
#include "simd/scaling.h"

namespace lpsim {

namespace {

// x * s is formed in fp32; its rounding moves a value by at most 2^-24
// relative (2^-23 for fp32 subnormal products, which only the fp32 format's
// own thresholds could see). Widening bin edges by 2^-22 covers both.
constexpr double kEdgeSlack = 1.0 / (1 << 22);

constexpr int kLogShift = TensorStats::kLogBinShift;

}  // namespace

namespace {

// Calls fn(count, lo, hi) for every nonempty log bin, [lo, hi] clipped to
// [min_abs, max_abs] (which hold every finite nonzero |x|).
template <typename Fn>
void ForEachBin(const TensorStats& stats, Fn fn) {
  // Nonzero finite elements in log bin 0 (fp32 subnormals): whatever the
  // exponent histogram holds beyond the other log bins, so the estimate does
  // not depend on whether bin 0 ever held zeros.
  uint64_t nonzero = 0;
  for (uint64_t c : stats.exponent_hist) nonzero += c;
  uint64_t rest = 0;
  for (size_t b = 1; b < stats.log_hist.size(); ++b) rest += stats.log_hist[b];
  const uint64_t bin0 = nonzero > rest ? nonzero - rest : 0;
  const double lo_clip = stats.min_abs, hi_clip = stats.max_abs;
  for (size_t b = 0; b < stats.log_hist.size(); ++b) {
    const uint64_t c = b == 0 ? bin0 : stats.log_hist[b];
    if (c == 0) continue;
    double lo = FloatOf(static_cast<uint32_t>(b) << kLogShift);
    const uint32_t hi_bits = static_cast<uint32_t>(b + 1) << kLogShift;
    double hi = hi_bits >= 0x7f800000u ? std::numeric_limits<float>::max() : FloatOf(hi_bits);
    if (hi_clip > 0) {
      lo = std::max(lo, lo_clip);
      hi = std::min(hi, hi_clip);
      if (lo > hi) lo = hi;
    }
    fn(c, lo, hi);
  }
}

// The thresholds of a format on |x * s| (round to nearest even).
struct Thresholds {
  double u_thr, o_thr;
  explicit Thresholds(const Format& format) {
    // Underflow iff |x s| <= u_thr (RNE: min_sub/2 ties to the even code 0).
    // FTZ: results below min_normal flush; [min_normal - min_sub/2,
    // min_normal) rounds up to min_normal.
    const double min_sub = format.MinSubnormal();
    u_thr = format.ftz() ? format.MinNormal() - min_sub / 2 : min_sub / 2;
    // Overflow iff |x s| >= o_thr (a tie at o_thr may round down to an even
    // max; counted as possible overflow, so the bound stays valid).
    const double ulp_max = std::ldexp(1.0, format.max_exponent() - format.mantissa_bits());
    o_thr = format.MaxValue() + ulp_max / 2;
  }
  // Adds c to the bounds for elements whose product x * s lies in [plo, phi].
  void Count(uint64_t c, double plo, double phi, CastEstimate* e) const {
    plo *= 1 - kEdgeSlack;
    phi *= 1 + kEdgeSlack;
    if (phi <= u_thr) {
      e->underflow.lower += c;
      e->underflow.upper += c;
    } else if (plo <= u_thr) {
      e->underflow.upper += c;
    }
    if (plo >= o_thr) {
      e->overflow.lower += c;
      e->overflow.upper += c;
    } else if (phi >= o_thr) {
      e->overflow.upper += c;
    }
  }
};

}  // namespace

CastEstimate EstimateCast(const TensorStats& stats, const Format& format, float scale) {
  CastEstimate e;
  e.numel = stats.count;
  const double s = scale;
  const double min_sub = format.MinSubnormal();
  const double min_normal = format.MinNormal();
  const double max = format.MaxValue();
  const Thresholds t(format);
  const bool saturate = format.overflow_result() == OverflowResult::kMax;
  const int m = format.mantissa_bits();

  ForEachBin(stats, [&](uint64_t c, double lo, double hi) {
    t.Count(c, lo * s, hi * s, &e);
    // Error model at the bin's midpoint.
    const double v = (lo + hi) / 2, y = v * s;
    double err2;  // per element, in the tensor's units
    if (y <= t.u_thr) {
      err2 = v * v;
    } else if (y >= t.o_thr) {
      if (!saturate) return;  // Inf/NaN output: not in sq_error or sq_signal
      err2 = (v - max / s) * (v - max / s);
    } else {
      double ulp;
      if (y < min_normal) {
        ulp = min_sub;
      } else {
        ulp = std::ldexp(1.0, std::ilogb(y) - m);
      }
      ulp /= s;
      err2 = ulp * ulp / 12;
    }
    e.sq_error += err2 * static_cast<double>(c);
    e.sq_signal += v * v * static_cast<double>(c);
  });
  return e;
}

namespace {

// The multiplier a block with amax `a` (> 0, finite) gets, as BlockQuantize
// computes it.
double BlockMultiplier(const Format& f, const BlockSpec& spec, float a) {
  if (spec.scale_type == BlockSpec::ScaleType::kE8m0) {
    return std::ldexp(1.0, -(static_cast<int>(MxScaleCode(f, a)) - 127));
  }
  return CurrentScale(f, a, spec.scale);
}

// Blocks of a tensor of `shape` cut as the tracker does ([numel / last_dim,
// last_dim]); 0 when unknown.
uint64_t BlockCount(const BlockSpec& spec, const std::vector<int64_t>& shape) {
  if (shape.empty()) return 0;
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
  if (n == 0) return 0;
  uint64_t cols = static_cast<uint64_t>(std::max<int64_t>(shape.back(), 1));
  const uint64_t rows = n / cols;
  return spec.BlocksPerRow(cols) * spec.BlocksPerCol(rows);
}

}  // namespace

CastEstimate EstimateBlockCast(const TensorStats& stats, const Format& format,
                               const BlockSpec& spec, const std::vector<int64_t>& shape) {
  // OCP MX: elements of E8M0-scaled blocks saturate.
  const Format elem =
      spec.scale_type == BlockSpec::ScaleType::kE8m0 ? format.WithSaturate(true) : format;
  const float amax = stats.max_abs;
  if (!(amax > 0) || !std::isfinite(amax)) return EstimateCast(stats, elem, 1.0f);
  const double m_all = BlockMultiplier(format, spec, amax);
  // The SNR model (and, for a single block, the whole estimate): every block
  // has the tensor's amax.
  CastEstimate e = EstimateCast(stats, elem, static_cast<float>(m_all));
  if (BlockCount(spec, shape) == 1) return e;
  e.underflow = {};
  e.overflow = {};
  const Thresholds t(elem);
  // A cap on x * m(x) for fp32 scales: m(x) <= fl(S / x) (its clamps only
  // lower it, except the FLT_MIN floor), so x m(x) <= S (1 + 2^-24) or
  // x * FLT_MIN.
  const double big_s = std::ldexp(format.MaxValue(), -spec.scale.margin) * (1 + kEdgeSlack);
  ForEachBin(stats, [&](uint64_t c, double lo, double hi) {
    // Largest product: x with its own multiplier, m(x) <= m(lo).
    double top = hi * BlockMultiplier(format, spec, static_cast<float>(lo));
    if (spec.scale_type == BlockSpec::ScaleType::kFp32) {
      top = std::min(top, std::max(big_s, hi * std::numeric_limits<float>::min()));
    }
    t.Count(c, lo * m_all, top, &e);
  });
  return e;
}

StatusOr<float> WhatIfScale(const std::string& recipe, const Format& format,
                            const TensorStats& stats) {
  if (recipe == "none") return 1.0f;
  if (recipe == "current") return CurrentScale(format, stats.max_abs);
  return Status::Error("recipe '" + recipe +
                       "' cannot be replayed from one record (only none and current): delayed "
                       "scaling needs the amax history, block recipes EstimateBlockCast");
}

}  // namespace lpsim
