// The recommender's "what if" estimates (report/recommend.h): what a cast
// into a format, per tensor or per block, would do, bounded from a record's
// histograms alone, and the scale a replayable recipe gives.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/bits.h"
#include "formats/reference.h"
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

// The share of [plo, phi] (values log-uniform within it; uniform when plo
// is 0) that is <= thr.
double ShareAtOrBelow(double plo, double phi, double thr) {
  if (phi <= thr) return 1;
  if (plo > thr) return 0;
  if (!(phi > plo)) return 1;
  const double share = plo > 0 ? std::log(thr / plo) / std::log(phi / plo) : (thr - plo) / (phi - plo);
  return std::min(std::max(share, 0.0), 1.0);
}

// The thresholds of a format on |x * s| (round to nearest even).
struct Thresholds {
  double u_thr, o_thr;
  double round_thr;  // what rounds to zero without FTZ
  bool ftz;
  double min_normal, min_sub;  // the format's (ErrorModel's grid)
  explicit Thresholds(const Format& format) {
    // Underflow iff |x s| <= u_thr (RNE: min_sub/2 ties to the even code 0).
    // FTZ: results below min_normal flush; [min_normal - min_sub/2,
    // min_normal) rounds up to min_normal.
    min_normal = format.MinNormal();
    min_sub = format.MinSubnormal();
    ftz = format.ftz();
    round_thr = min_sub / 2;
    u_thr = ftz ? min_normal - min_sub / 2 : round_thr;
    // Overflow iff |x s| >= o_thr (a tie at o_thr may round down to an even
    // max; counted as possible overflow, so the bound stays valid).
    const double ulp_max = std::ldexp(1.0, format.max_exponent() - format.mantissa_bits());
    o_thr = format.MaxValue() + ulp_max / 2;
  }
  // Shares of a bin [lo, hi] times s that underflow / overflow (the model).
  double UnderShare(double lo, double hi, double s) const { return ShareAtOrBelow(lo * s, hi * s, u_thr); }
  // FTZ: results between the rounding-to-zero threshold and min_normal.
  double FlushShare(double lo, double hi, double s) const {
    return ftz ? UnderShare(lo, hi, s) - ShareAtOrBelow(lo * s, hi * s, round_thr) : 0;
  }
  double OverShare(double lo, double hi, double s) const {
    return lo * s >= o_thr ? 1 : 1 - ShareAtOrBelow(lo * s, hi * s, o_thr);
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

// 2^floor(log2 y) * 2^-shift for a finite y > 0: std::ldexp(1.0,
// std::ilogb(y) - shift), the exponent read from the bits where y and the
// result are normal doubles (the same value; the estimate calls it per pair
// of histogram bins).
double BinadeStep(double y, int shift) {
  uint64_t bits;
  std::memcpy(&bits, &y, sizeof bits);
  const int field = static_cast<int>((bits >> 52) & 0x7ff);
  const int e = field - 1023 - shift;  // the result's exponent
  if (field == 0 || field == 0x7ff || e < -1022 || e > 1023) return std::ldexp(1.0, std::ilogb(y) - shift);
  const uint64_t out = static_cast<uint64_t>(e + 1023) << 52;
  double r;
  std::memcpy(&r, &out, sizeof r);
  return r;
}

// The squared error of casting v * s (v > 0, in the tensor's units): x^2
// when it underflows, the clamp error when it saturates, else the uniform
// rounding error ulp^2 / 12 at v. False when the output is Inf/NaN (such
// elements are in neither sq_error nor sq_signal).
bool ErrorModel(const Format& format, const Thresholds& t, double v, double s, double* err2) {
  const double y = v * s;
  if (y <= t.u_thr) {
    *err2 = v * v;
  } else if (y >= t.o_thr) {
    if (format.overflow_result() != OverflowResult::kMax) return false;
    const double clamp = format.MaxValue() / s;
    *err2 = (v - clamp) * (v - clamp);
  } else {
    double ulp = y < t.min_normal ? t.min_sub : BinadeStep(y, format.mantissa_bits());
    ulp /= s;
    *err2 = ulp * ulp / 12;
  }
  return true;
}

}  // namespace

CastEstimate EstimateCast(const TensorStats& stats, const Format& format, float scale) {
  CastEstimate e;
  e.numel = stats.count;
  const double s = scale;
  const Thresholds t(format);

  ForEachBin(stats, [&](uint64_t c, double lo, double hi) {
    t.Count(c, lo * s, hi * s, &e);
    e.underflow.expected += static_cast<double>(c) * t.UnderShare(lo, hi, s);
    e.overflow.expected += static_cast<double>(c) * t.OverShare(lo, hi, s);
    e.flushed += static_cast<double>(c) * t.FlushShare(lo, hi, s);
    const double v = (lo + hi) / 2;
    double err2;
    if (!ErrorModel(format, t, v, s, &err2)) return;
    e.sq_error += err2 * static_cast<double>(c);
    e.sq_signal += v * v * static_cast<double>(c);
  });
  return e;
}

namespace {

// The multiplier a block with amax `a` (> 0, finite) gets (BlockScaleOf);
// 0 for an NVFP4 block whose E4M3 scale rounds to zero (the block reads
// back as zeros).
double BlockMultiplier(const Format& f, const BlockSpec& spec, float a, float tensor_scale) {
  const BlockScale s = BlockScaleOf(f, spec, a, tensor_scale);
  return s.inv > 0 ? s.mult : 0.0;
}

uint64_t Numel(const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
  return n;
}

// Blocks of a tensor of `shape` cut as the tracker does ([numel / last_dim,
// last_dim]), `per_row(cols)` blocks along a row and `per_col(rows)` along a
// column; 0 when unknown.
template <typename PerRow, typename PerCol>
uint64_t BlockCount(const std::vector<int64_t>& shape, PerRow per_row, PerCol per_col) {
  if (shape.empty()) return 0;
  const uint64_t n = Numel(shape);
  if (n == 0) return 0;
  const uint64_t cols = static_cast<uint64_t>(std::max<int64_t>(shape.back(), 1));
  return per_row(cols) * per_col(n / cols);
}

struct Bin {
  uint64_t c;
  double lo, hi;
  double Mid() const { return (lo + hi) / 2; }
};

// The log histogram's bins share one width (hi / lo), so the points' powers
// of it are computed once per width (`cache`: the width and its powers).
struct BinPoints {
  static constexpr int kPoints = 8;
  double ratio = -1;
  double factor[kPoints] = {};
};

// The mean of err2(x) over a bin, x log-uniform in [lo, hi] (8 points):
// what a block's amax contributes, whose cast error depends on where in
// the bin it lies (its mantissa under a power-of-two scale).
template <typename Err2>
double MeanOverBin(const Bin& b, Err2 err2, BinPoints* cache) {
  constexpr int kPoints = BinPoints::kPoints;
  if (b.lo > 0 && !(b.hi / b.lo == cache->ratio)) {
    cache->ratio = b.hi / b.lo;
    for (int k = 0; k < kPoints; ++k) cache->factor[k] = std::pow(cache->ratio, (k + 0.5) / kPoints);
  }
  double sum = 0;
  for (int k = 0; k < kPoints; ++k) {
    const double x = b.lo > 0 ? b.lo * cache->factor[k] : b.hi * (k + 0.5) / kPoints;
    sum += err2(x);
  }
  return sum / kPoints;
}

// What one element of a bin does in a block (the model's unit).
struct ElementOutcome {
  double under = 0, over = 0;  // shares of the bin
  double flushed = 0;          // share of the bin
  double err2 = 0;             // per element
  bool finite = true;          // false: Inf/NaN output (no error or signal)
};

// The random-placement model (see EstimateBlockCast): each element's block
// amax is the larger of itself and the largest of the block's B - 1 others,
// drawn from the histogram. `param(a)` is what a block amax a decides (its
// multiplier, its grid); `outcome(bin, p, self)` what an element of the bin
// does under it (self: the element is its block's amax). Fills the expected counts, sq_error and sq_signal.
template <typename Param, typename Outcome>
void ExpectBlocks(const TensorStats& stats, uint64_t block, Param param, Outcome outcome, CastEstimate* e) {
  std::vector<Bin> bins;
  ForEachBin(stats, [&](uint64_t c, double lo, double hi) { bins.push_back({c, lo, hi}); });
  uint64_t nonzero = 0;
  for (const Bin& b : bins) nonzero += b.c;
  const double n = static_cast<double>(std::max<uint64_t>(stats.count, nonzero));
  if (bins.empty() || !(n > 0)) return;
  // q[j]: P(the largest of B - 1 others is at or below bin j's top); the
  // others at or below it are zeros (and NaN/Inf, which take no part in a
  // block amax) plus bins 0..j.
  const double others = static_cast<double>(std::max<uint64_t>(block, 1) - 1);
  std::vector<double> q(bins.size()), p(bins.size());
  double cum = n - static_cast<double>(nonzero);
  for (size_t j = 0; j < bins.size(); ++j) {
    cum += static_cast<double>(bins[j].c);
    const double g = std::min(cum / n, 1.0);
    q[j] = g > 0 ? std::exp(others * std::log(g)) : 0;
    p[j] = param(bins[j].Mid());
  }
  q.back() = 1;
  e->underflow.expected = e->overflow.expected = e->flushed = 0;
  e->sq_error = e->sq_signal = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    const Bin& b = bins[i];
    const double v = b.Mid(), c = static_cast<double>(b.c);
    double under = 0, over = 0, flushed = 0, err2 = 0, signal = 0;
    auto add = [&](double w, const ElementOutcome& o) {
      under += w * o.under, over += w * o.over, flushed += w * o.flushed;
      if (o.finite) err2 += w * o.err2, signal += w * v * v;
    };
    if (q[i] > 0) add(q[i], outcome(b, p[i], true));  // the element is its block's amax (to a bin)
    // A larger amax elsewhere in the block. Bins whose amax gives the same
    // parameter (a power-of-two scale: one per binade) give the same
    // outcome, computed once per run of them (the sums unchanged).
    ElementOutcome o;
    std::optional<double> o_param;  // the parameter `o` is the outcome under
    for (size_t j = i + 1; j < bins.size(); ++j) {
      const double w = q[j] - q[j - 1];
      if (!(w > 0)) continue;
      if (!o_param || !(*o_param == p[j])) {
        o = outcome(b, p[j], false);
        o_param = p[j];
      }
      add(w, o);
    }
    e->underflow.expected += c * under;
    e->flushed += c * flushed;
    e->overflow.expected += c * over;
    e->sq_error += c * err2;
    e->sq_signal += c * signal;
  }
}

}  // namespace

CastEstimate EstimateBlockCast(const TensorStats& stats, const Format& format,
                               const BlockSpec& spec, const std::vector<int64_t>& shape) {
  const Format elem = BlockElementFormat(format, spec);
  const float amax = stats.max_abs;
  if (!(amax > 0) || !std::isfinite(amax)) return EstimateCast(stats, elem, 1.0f);
  const float tensor_scale = Nvfp4TensorScale(format, amax);
  auto mult = [&](double a) { return BlockMultiplier(format, spec, static_cast<float>(a), tensor_scale); };
  const double m_all = mult(amax);
  // Without a shape, or for a single block: every block has the tensor's
  // amax (model and bounds).
  CastEstimate e = EstimateCast(stats, elem, static_cast<float>(m_all));
  const uint64_t blocks = BlockCount(shape, [&](uint64_t cols) { return spec.BlocksPerRow(cols); },
                                     [&](uint64_t rows) { return spec.BlocksPerCol(rows); });
  if (blocks <= 1) return e;
  e.underflow = {};
  e.overflow = {};
  const Thresholds t(elem);
  // A cap on x * m(x) for fp32 scales: m(x) <= fl(S / x) (its clamps only
  // lower it, except the FLT_MIN floor), so x m(x) <= S (1 + 2^-24) or
  // x * FLT_MIN. NVFP4: a block's multiplier is at most the tensor scale
  // over E4M3's smallest subnormal (2^-9), whatever its amax.
  const double big_s = std::ldexp(format.MaxValue(), -spec.scale.margin) * (1 + kEdgeSlack);
  const double nvfp4_cap = std::ldexp(static_cast<double>(tensor_scale), 9);
  ForEachBin(stats, [&](uint64_t c, double lo, double hi) {
    // Largest product: x with its own multiplier, m(x) <= m(lo) (for NVFP4,
    // a block that flushes at lo may not flush with a larger amax).
    double own = mult(lo);
    if (spec.scale_type == BlockSpec::ScaleType::kNvfp4 && own == 0) own = nvfp4_cap;
    double top = hi * own;
    if (spec.scale_type == BlockSpec::ScaleType::kFp32) {
      top = std::min(top, std::max(big_s, hi * std::numeric_limits<float>::min()));
    }
    t.Count(c, lo * m_all, top, &e);
  });
  BinPoints points;
  ExpectBlocks(stats, Numel(shape) / blocks, mult,
               [&](const Bin& b, double m, bool self) {
                 ElementOutcome o;
                 const double v = b.Mid();
                 if (m == 0) {
                   o.under = o.flushed = 1, o.err2 = v * v;
                   return o;
                 }
                 o.under = t.UnderShare(b.lo, b.hi, m);
                 o.flushed = t.FlushShare(b.lo, b.hi, m);
                 o.over = t.OverShare(b.lo, b.hi, m);
                 o.finite = ErrorModel(elem, t, v, m, &o.err2);
                 if (self && o.finite) {
                   // A block's amax lands where its own scale puts it (on
                   // the format's max for fp32 scales): not a uniform error.
                   o.err2 = MeanOverBin(b, [&](double x) {
                     const double mx = mult(x);
                     if (mx == 0) return x * x;
                     const float y = static_cast<float>(x * mx);
                     const double d = (DecodeRef(elem, EncodeRef(elem, y, Rounding::kNearestEven, 0).code) - y) / mx;
                     return d * d;
                   }, &points);
                 }
                 return o;
               },
               &e);
  return e;
}

CastEstimate EstimateBfpCast(const TensorStats& stats, const BfpFormat& format, const std::vector<int64_t>& shape) {
  CastEstimate e;
  e.numel = stats.count;
  const float amax = stats.max_abs;
  if (!(amax > 0) || !std::isfinite(amax)) return e;
  // A block of amax a: grid step 2^(E - M + 1), E = floor(log2 a); |x| at
  // or below half a step rounds to zero (ties to the even 0).
  auto step = [&](double a) {
    return std::ldexp(1.0, BfpSharedExponent(static_cast<float>(a)) - format.magnitude_bits + 1);
  };
  const double step_all = step(amax);
  ForEachBin(stats, [&](uint64_t c, double lo, double) {
    // In its own block x keeps its leading bit (lower bound 0); with the
    // tensor's amax as its block's, the most underflow.
    if (lo * (1 - kEdgeSlack) <= step_all / 2) e.underflow.upper += c;
  });
  // Blocks of `block` values along a row; one block per row at most.
  const uint64_t blocks = BlockCount(shape, [&](uint64_t cols) { return format.BlocksPerRow(cols); },
                                     [](uint64_t rows) { return rows; });
  // One block: every element shares the tensor's exponent (a block larger
  // than the tensor puts every element with the top bin's).
  const uint64_t block = blocks == 1 ? std::numeric_limits<uint64_t>::max()
                         : blocks > 0 ? Numel(shape) / blocks
                                      : format.block;
  BinPoints points;
  ExpectBlocks(stats, block, step,
               [&](const Bin& b, double st, bool self) {
                 ElementOutcome o;
                 const double v = b.Mid();
                 o.under = ShareAtOrBelow(b.lo, b.hi, st / 2);
                 o.err2 = v <= st / 2 ? v * v : st * st / 12;
                 if (self && b.hi - b.lo < 4 * step(v)) {
                   // The block's amax on a grid coarse against its bin: its
                   // magnitude keeps M bits and clamps at 2^M - 1 (bfp2
                   // clamps half of it); on a fine grid the uniform error.
                   o.err2 = MeanOverBin(b, [&](double x) {
                     const float xf = static_cast<float>(x);
                     const int e = BfpSharedExponent(xf);
                     const double d =
                         BfpDecodeRef(format, BfpEncodeRef(format, xf, e, Rounding::kNearestEven, 0).code, e) - x;
                     return d * d;
                   }, &points);
                 }
                 return o;
               },
               &e);
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
