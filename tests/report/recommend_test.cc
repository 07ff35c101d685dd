// The recommender and its "what if" estimate: constructed histograms with
// known answers, the estimate's bounds against exact simulated counts
// (simd::Analyze) on real tensors, and bad input.
#include "report/recommend.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "formats/block_fp.h"
#include "report/target_rewrite.h"
#include "simd/analyze.h"
#include "simd/scaling.h"
#include "store/run_db.h"

namespace lpsim {
namespace {

Format F(const std::string& s) { return ParseFormat(s).value(); }

// Stats of exactly these values (the same pass the tracker runs).
TensorStats StatsOf(const std::vector<float>& x) {
  return simd::Analyze(x.data(), x.size(), {}).stats;
}

TEST(EstimateCastTest, PowersOfTwoFarFromThresholdsAreExact) {
  // e4m3fn: min subnormal 2^-9 (underflow at or below 2^-10), max 448.
  std::vector<float> x;
  for (int i = 0; i < 10; ++i) x.push_back(std::ldexp(1.0f, -20));  // underflow
  for (int i = 0; i < 5; ++i) x.push_back(1.0f);                     // fine
  for (int i = 0; i < 3; ++i) x.push_back(4096.0f);                  // overflow
  x.push_back(0.0f);
  const CastEstimate e = EstimateCast(StatsOf(x), F("e4m3fn"), 1.0f);
  EXPECT_EQ(e.numel, 19u);
  EXPECT_EQ(e.underflow.lower, 10u);
  EXPECT_EQ(e.underflow.upper, 10u);
  EXPECT_EQ(e.overflow.lower, 3u);
  EXPECT_EQ(e.overflow.upper, 3u);
}

TEST(EstimateCastTest, ScaleMovesTheThresholds) {
  std::vector<float> x(8, std::ldexp(1.0f, -20));
  // Scaled by 2^12 the values sit at 2^-8, inside e4m3fn's subnormal range.
  const CastEstimate e = EstimateCast(StatsOf(x), F("e4m3fn"), std::ldexp(1.0f, 12));
  EXPECT_EQ(e.underflow.upper, 0u);
  EXPECT_EQ(e.overflow.upper, 0u);
  // Scaled by 2^30 they are 1024 > 448 + 16: all overflow.
  const CastEstimate o = EstimateCast(StatsOf(x), F("e4m3fn"), std::ldexp(1.0f, 30));
  EXPECT_EQ(o.overflow.lower, 8u);
}

TEST(EstimateCastTest, StraddlingBinGivesABound) {
  // Values spread over [2^-11, 2^-9): the underflow threshold 2^-10 cuts a
  // log bin only at its edge, so pick values that make bins straddle it via
  // a non-power-of-two scale.
  std::vector<float> x;
  for (int i = 0; i < 64; ++i) x.push_back(std::ldexp(1.0f + i / 64.0f, -11));
  const float scale = 1.3f;
  const TensorStats st = StatsOf(x);
  const CastEstimate e = EstimateCast(st, F("e4m3fn"), scale);
  const AnalyzeResult exact = simd::Analyze(x.data(), x.size(), {{F("e4m3fn"), scale}});
  EXPECT_LE(e.underflow.lower, exact.formats[0].underflow);
  EXPECT_GE(e.underflow.upper, exact.formats[0].underflow);
  EXPECT_LT(e.underflow.lower, e.underflow.upper);  // a real straddle
  // The bound is at most one log bin (an eighth of a binade) wide here.
  EXPECT_LE(e.underflow.upper - e.underflow.lower, 16u);
}

TEST(EstimateCastTest, FtzRaisesTheUnderflowThreshold) {
  std::vector<float> x(4, std::ldexp(1.0f, -8));  // e4m3fn subnormal
  EXPECT_EQ(EstimateCast(StatsOf(x), F("e4m3fn"), 1.0f).underflow.upper, 0u);
  EXPECT_EQ(EstimateCast(StatsOf(x), F("e4m3fn:ftz"), 1.0f).underflow.lower, 4u);
}

// The bound holds against exact counts on real tensors: log-uniform data over
// 60 binades, Gaussians, for every 8-bit-or-narrower format, recipes none and
// current, and odd scales.
TEST(EstimateCastTest, BoundsHoldAgainstExactCounts) {
  std::mt19937 rng(1234);
  std::vector<std::vector<float>> tensors;
  {
    std::uniform_real_distribution<float> u(-40.0f, 20.0f);
    std::vector<float> x(20000);
    for (float& v : x) v = std::exp2(u(rng)) * (rng() & 1 ? 1.0f : -1.0f);
    tensors.push_back(x);
  }
  {
    std::normal_distribution<float> n(0.0f, 1e-3f);
    std::vector<float> x(20000);
    for (float& v : x) v = n(rng);
    tensors.push_back(x);
  }
  const char* specs[] = {"e2m1fn", "e2m3fn", "e3m2fn", "e4m3fn", "e5m2", "e4m3fnuz",
                         "e5m2:sat", "e4m3fn:ftz", "bf16", "fp16"};
  int checked = 0;
  // The SNR model (uniform rounding error at bin midpoints) is not a bound;
  // where nothing under- or overflows it stays within this of the truth.
  constexpr double kSnrModelToleranceDb = 3.0;
  double worst_snr_gap = 0;
  for (const std::vector<float>& x : tensors) {
    const TensorStats st = StatsOf(x);
    for (const char* spec : specs) {
      const Format f = F(spec);
      for (float scale : {1.0f, CurrentScale(f, st.max_abs), 3.7e5f, 0.013f}) {
        const CastEstimate e = EstimateCast(st, f, scale);
        const CastCounts c = simd::Analyze(x.data(), x.size(), {{f, scale}}).formats[0];
        EXPECT_LE(e.underflow.lower, c.underflow) << spec << " scale " << scale;
        EXPECT_GE(e.underflow.upper, c.underflow) << spec << " scale " << scale;
        EXPECT_LE(e.overflow.lower, c.overflow) << spec << " scale " << scale;
        EXPECT_GE(e.overflow.upper, c.overflow) << spec << " scale " << scale;
        ++checked;
        if (c.underflow == 0 && c.overflow == 0 && c.sq_error > 0) {
          const double est = 10 * std::log10(e.sq_signal / e.sq_error);
          const double gap = std::fabs(est - c.SnrDb());
          if (gap > kSnrModelToleranceDb) {
            ADD_FAILURE() << spec << " scale " << scale << ": SNR model " << est << " dB, exact "
                          << c.SnrDb() << " dB";
          }
          worst_snr_gap = std::max(worst_snr_gap, gap);
        }
      }
    }
  }
  EXPECT_EQ(checked, 80);
  std::printf("worst SNR model gap without under/overflow: %.2f dB\n", worst_snr_gap);
}

TEST(WhatIfScaleTest, NoneCurrentAndUnsupported) {
  const TensorStats st = StatsOf({2.0f, -8.0f});
  EXPECT_EQ(WhatIfScale("none", F("e4m3fn"), st).value(), 1.0f);
  EXPECT_EQ(WhatIfScale("current", F("e4m3fn"), st).value(), 56.0f);  // 448 / 8
  EXPECT_FALSE(WhatIfScale("mx", F("e4m3fn"), st).ok());
}

// Records with a known histogram (defined below).
TensorRecord RecordAt(const std::string& name, Role role, int64_t step, int exponent, int n);

// Exact block counts, as the tracker gets them.
CastCounts BlockExact(const std::vector<float>& x, size_t rows, size_t cols, const Format& f,
                      const BlockSpec& spec) {
  std::vector<float> out(x.size());
  CastCounts c;
  simd::BlockQuantize(f, x.data(), rows, cols, spec, {}, out.data(), nullptr, &c);
  return c;
}

TEST(EstimateBlockCastTest, ConstructedBlocksWithKnownAnswers) {
  // 8 rows of 32, row r constant at 2^(-3r). e2m1fn: min subnormal 0.5
  // (underflow at or below 2^-2), emax 2. MX gives each row its own scale
  // 2^(2+3r): every value lands on 4, nothing underflows. One scale for all
  // (2^2, from the tensor amax 1) flushes rows 2..7: 192 values.
  const Format e2m1 = F("e2m1fn");
  std::vector<float> x;
  for (int r = 0; r < 8; ++r) x.insert(x.end(), 32, std::ldexp(1.0f, -3 * r));
  const TensorStats st = StatsOf(x);
  const CastEstimate e = EstimateBlockCast(st, e2m1, BlockSpec::Mx(), {8, 32});
  EXPECT_EQ(e.underflow.lower, 0u);
  EXPECT_EQ(e.underflow.upper, 192u);
  EXPECT_EQ(e.overflow.upper, 0u);
  EXPECT_EQ(BlockExact(x, 8, 32, e2m1, BlockSpec::Mx()).underflow, 0u);  // = lower

  // The same values with the tensor amax in every row: now every block has
  // scale 2^2 and the exact count is the upper bound.
  std::vector<float> y = x;
  for (int r = 0; r < 8; ++r) y[32 * r] = 1.0f;
  const CastEstimate ey = EstimateBlockCast(StatsOf(y), e2m1, BlockSpec::Mx(), {8, 32});
  EXPECT_EQ(ey.underflow.upper, 186u);  // rows 2..7 less their amax element
  EXPECT_EQ(BlockExact(y, 8, 32, e2m1, BlockSpec::Mx()).underflow, 186u);
  EXPECT_EQ(ey.underflow.lower, 0u);

  // One block (a single row of 32 under MX): every block amax is the tensor
  // amax, so the estimate is per-tensor and exact here.
  std::vector<float> one(x.begin() + 64, x.begin() + 96);  // row 2: 2^-6
  one[0] = 1.0f;
  const CastEstimate e1 = EstimateBlockCast(StatsOf(one), e2m1, BlockSpec::Mx(), {32});
  EXPECT_EQ(e1.underflow.lower, 31u);
  EXPECT_EQ(e1.underflow.upper, 31u);
  EXPECT_EQ(e1.underflow.upper, BlockExact(one, 1, 32, e2m1, BlockSpec::Mx()).underflow);

  // MX clamps a block amax whose mantissa is above the format's: 1.875 * 2^k
  // scaled by 2^(8-k) is 480 > 448 + 16 for e4m3fn, so it overflows (to 448)
  // even with the tensor's own scale: overflow.lower counts it.
  std::vector<float> z(64, 0.25f);
  z[5] = 1.875f;
  const CastEstimate ez = EstimateBlockCast(StatsOf(z), F("e4m3fn"), BlockSpec::Mx(), {2, 32});
  EXPECT_EQ(ez.overflow.lower, 1u);
  EXPECT_EQ(BlockExact(z, 2, 32, F("e4m3fn"), BlockSpec::Mx()).overflow, 1u);
  // fp32 per-row scales never overflow (x * max / amax <= max).
  const CastEstimate er = EstimateBlockCast(StatsOf(z), F("e4m3fn"), BlockSpec::Rowwise(), {2, 32});
  EXPECT_EQ(er.overflow.upper, 0u);
}

TEST(EstimateBlockCastTest, BoundsHoldAgainstExactCounts) {
  std::mt19937 rng(99);
  struct T {
    std::vector<float> x;
    size_t rows, cols;
  };
  std::vector<T> tensors;
  {  // log-uniform over 60 binades
    std::uniform_real_distribution<float> u(-40.0f, 20.0f);
    T t{std::vector<float>(256 * 256), 256, 256};
    for (float& v : t.x) v = std::exp2(u(rng)) * (rng() & 1 ? 1.0f : -1.0f);
    tensors.push_back(t);
  }
  {  // Gaussian rows whose scale varies by row (what block scaling helps)
    std::normal_distribution<float> n(0.0f, 1.0f);
    T t{std::vector<float>(200 * 160), 200, 160};
    for (size_t r = 0; r < t.rows; ++r) {
      for (size_t c = 0; c < t.cols; ++c) t.x[r * t.cols + c] = n(rng) * std::ldexp(1.0f, -int(r % 37));
    }
    tensors.push_back(t);
  }
  const char* specs[] = {"e2m1fn", "e2m3fn", "e3m2fn", "e4m3fn", "e5m2", "e4m3fn:ftz"};
  const char* recipes[] = {"mx", "row", "col", "1x128", "128x128", "1x32:fp32:nopow2", "nvfp4", "16x16:nvfp4"};
  int checked = 0;
  uint64_t width = 0, total = 0;
  for (const T& t : tensors) {
    const TensorStats st = StatsOf(t.x);
    for (const char* spec : specs) {
      for (const char* recipe : recipes) {
        const BlockSpec b = BlockSpec::Parse(recipe).value();
        const Format f = F(spec);
        const CastEstimate e =
            EstimateBlockCast(st, f, b, {int64_t(t.rows), int64_t(t.cols)});
        const CastCounts c = BlockExact(t.x, t.rows, t.cols, f, b);
        EXPECT_LE(e.underflow.lower, c.underflow) << spec << " " << recipe;
        EXPECT_GE(e.underflow.upper, c.underflow) << spec << " " << recipe;
        EXPECT_LE(e.overflow.lower, c.overflow) << spec << " " << recipe;
        EXPECT_GE(e.overflow.upper, c.overflow) << spec << " " << recipe;
        width += e.underflow.upper - e.underflow.lower;
        total += e.numel;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 96);
  std::printf("mean underflow bound width: %.2f%% of elements\n", 100.0 * width / total);
}

// Tensors whose values are independent of their position: the model's
// assumption (values fall into blocks at random) holds, so its expected
// counts and SNR must match the exact block casts up to the histogram's
// resolution (8 bins per binade).
std::vector<std::vector<float>> ShuffledTensors(size_t n) {
  std::mt19937 rng(4242);
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  std::uniform_real_distribution<float> u(-30.0f, 0.0f);
  std::vector<std::vector<float>> out(3, std::vector<float>(n));
  for (size_t i = 0; i < n; ++i) {
    out[0][i] = gauss(rng);
    out[1][i] = std::exp2(u(rng)) * (rng() & 1 ? 1.0f : -1.0f);
    // One value in 64 a 1e6 outlier, at random places: NVFP4's per-tensor
    // scale then leaves the other blocks' E4M3 scales below its subnormals.
    out[2][i] = gauss(rng) * (rng() % 64 == 0 ? 1e6f : 1.0f);
  }
  return out;
}

// Largest gap between the model's expected underflow share and the exact
// one, and between SNRs, on position-independent tensors (measured: 0.4%
// of the values and 1.0 dB for block scales, BFP printed by its test; the tolerances leave room for the histogram's
// resolution, not for a wrong model: putting every element in a block with
// the tensor's amax misses the outlier tensor's NVFP4 underflow by 97%).
constexpr double kModelShareTolerance = 0.03;
constexpr double kModelSnrToleranceDb = 1.5;

TEST(EstimateBlockCastTest, ModelMatchesExactCountsWhenPlacementIsRandom) {
  const size_t rows = 256, cols = 256;
  const std::vector<std::vector<float>> tensors = ShuffledTensors(rows * cols);
  double worst_share = 0, worst_snr = 0;
  int checked = 0;
  for (size_t k = 0; k < tensors.size(); ++k) {
    const TensorStats st = StatsOf(tensors[k]);
    for (const char* spec : {"e2m1fn", "e4m3fn", "e5m2"}) {
      for (const char* recipe : {"mx", "nvfp4", "16x16:nvfp4", "1x128", "1x32:fp32:nopow2"}) {
        // NVFP4 is defined for E2M1 elements only.
        if (std::string(recipe).find("nvfp4") != std::string::npos && std::string(spec) != "e2m1fn") continue;
        const Format f = F(spec);
        const BlockSpec b = BlockSpec::Parse(recipe).value();
        const CastEstimate e = EstimateBlockCast(st, f, b, {int64_t(rows), int64_t(cols)});
        const CastCounts c = BlockExact(tensors[k], rows, cols, f, b);
        const double n = static_cast<double>(c.numel - c.zero_in);
        const double gap = std::fabs(e.underflow.expected - static_cast<double>(c.underflow)) / n;
        EXPECT_LE(gap, kModelShareTolerance) << "tensor " << k << " " << spec << " " << recipe << ": expected "
                                             << e.underflow.expected << ", exact " << c.underflow;
        // Flushed: the elements of blocks whose scale rounds to zero (NVFP4).
        EXPECT_LE(std::fabs(e.flushed - static_cast<double>(c.flushed)) / n, kModelShareTolerance)
            << "tensor " << k << " " << spec << " " << recipe << ": expected flushed " << e.flushed << ", exact "
            << c.flushed;
        EXPECT_LE(e.underflow.expected, static_cast<double>(e.underflow.upper) + 0.5);
        EXPECT_GE(e.underflow.expected, static_cast<double>(e.underflow.lower) - 0.5);
        const double snr = 10 * std::log10(e.sq_signal / e.sq_error);
        const double snr_gap = std::fabs(snr - c.SnrDb());
        EXPECT_LE(snr_gap, kModelSnrToleranceDb) << "tensor " << k << " " << spec << " " << recipe << ": model "
                                                 << snr << " dB, exact " << c.SnrDb() << " dB";
        worst_share = std::max(worst_share, gap), worst_snr = std::max(worst_snr, snr_gap);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 33);
  std::printf("worst model gap: underflow %.2f%% of the values, SNR %.2f dB\n", 100 * worst_share, worst_snr);
  // The mechanism the bounds cannot see: with one outlier in 64, most
  // NVFP4 blocks' scales flush and their values read back as zeros.
  const TensorStats st = StatsOf(tensors[2]);
  const CastEstimate e = EstimateBlockCast(st, F("e2m1fn"), BlockSpec::Nvfp4(), {int64_t(rows), int64_t(cols)});
  const CastCounts c = BlockExact(tensors[2], rows, cols, F("e2m1fn"), BlockSpec::Nvfp4());
  EXPECT_GT(static_cast<double>(c.underflow), 0.5 * static_cast<double>(c.numel));
  EXPECT_GT(e.underflow.expected, 0.5 * static_cast<double>(c.numel));
}

TEST(EstimateBfpCastTest, BoundsAndModelAgainstExactCounts) {
  const size_t rows = 256, cols = 256;
  const std::vector<std::vector<float>> tensors = ShuffledTensors(rows * cols);
  int checked = 0;
  double worst_share = 0, worst_snr = 0;
  for (size_t k = 0; k < tensors.size(); ++k) {
    const TensorStats st = StatsOf(tensors[k]);
    for (const char* spec : {"bfp8", "bfp4", "bfp2", "bfp4:block=32"}) {
      const BfpFormat f = ParseBfpFormat(spec).value();
      std::vector<float> out(tensors[k].size());
      CastCounts c;
      BfpQuantizeRef(f, tensors[k].data(), rows, cols, {}, out.data(), nullptr, &c);
      const CastEstimate e = EstimateBfpCast(st, f, {int64_t(rows), int64_t(cols)});
      EXPECT_EQ(e.numel, c.numel);
      EXPECT_LE(e.underflow.lower, c.underflow) << spec;
      EXPECT_GE(e.underflow.upper, c.underflow) << spec;
      const double n = static_cast<double>(c.numel - c.zero_in);
      const double gap = std::fabs(e.underflow.expected - static_cast<double>(c.underflow)) / n;
      const double snr_gap = std::fabs(10 * std::log10(e.sq_signal / e.sq_error) - c.SnrDb());
      EXPECT_LE(gap, kModelShareTolerance)
          << "tensor " << k << " " << spec << ": expected " << e.underflow.expected << ", exact " << c.underflow;
      EXPECT_LE(snr_gap, kModelSnrToleranceDb) << "tensor " << k << " " << spec;
      worst_share = std::max(worst_share, gap), worst_snr = std::max(worst_snr, snr_gap);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 12);
  std::printf("worst BFP model gap: underflow %.2f%% of the values, SNR %.2f dB\n", 100 * worst_share, worst_snr);
  // One block: its exponent is the tensor's, the bounds meet the model.
  const std::vector<float> one = {1.0f, 0.5f, 1e-3f, 3.0f};
  const CastEstimate e1 = EstimateBfpCast(StatsOf(one), ParseBfpFormat("bfp4").value(), {4});
  EXPECT_EQ(e1.underflow.upper, 1u);  // 1e-3 is far below 2^(1 - 3 + 1) / 2
  EXPECT_NEAR(e1.underflow.expected, 1.0, 1e-9);
}

// A record as a target stores its role: the format, recipe and the
// estimate's expected counts; block floating point included, integer
// storage left without a format record.
TEST(TargetRewriteTest, EachRoleInItsTargetFormatWithExpectedCounts) {
  const std::vector<std::vector<float>> tensors = ShuffledTensors(64 * 64);
  TensorRecord r;
  r.name = "fc1.weight";
  r.step = 0;
  r.role = Role::kWeight;
  r.shape = {64, 64};
  r.stats = StatsOf(tensors[2]);
  r.formats.push_back({"e4m3fn", "delayed16", 1.0f, {}});

  TensorRecord bfp = r;
  TargetRewrite(FindTarget("tenstorrent-bfp4").value())(&bfp);
  ASSERT_EQ(bfp.formats.size(), 1u);
  EXPECT_EQ(bfp.formats[0].format, "bfp4");
  EXPECT_EQ(bfp.formats[0].recipe, "1x16");
  const CastEstimate eb = EstimateBfpCast(r.stats, ParseBfpFormat("bfp4").value(), r.shape);
  EXPECT_EQ(bfp.formats[0].counts.underflow, static_cast<uint64_t>(std::llround(eb.underflow.expected)));
  EXPECT_EQ(bfp.formats[0].counts.numel, r.stats.count);

  TensorRecord nv = r;
  TargetRewrite(FindTarget("b200-nvfp4").value())(&nv);
  ASSERT_EQ(nv.formats.size(), 1u);
  EXPECT_EQ(nv.formats[0].recipe, "16x16:nvfp4");
  const CastEstimate en = EstimateBlockCast(r.stats, F("e2m1fn:sat"), BlockSpec::Nvfp4Weight(), r.shape);
  EXPECT_EQ(nv.formats[0].counts.underflow, static_cast<uint64_t>(std::llround(en.underflow.expected)));
  // The outliers leave most blocks' E4M3 scales below their subnormals.
  EXPECT_GT(nv.formats[0].counts.underflow, r.stats.count / 2);

  TensorRecord cur = r;
  TargetRewrite(FindTarget("h100-fp8-current").value())(&cur);
  ASSERT_EQ(cur.formats.size(), 1u);
  EXPECT_EQ(cur.formats[0].recipe, "current");
  const CastEstimate ec = EstimateCast(r.stats, F(cur.formats[0].format), cur.formats[0].scale);
  EXPECT_EQ(cur.formats[0].counts.underflow, static_cast<uint64_t>(std::llround(ec.underflow.expected)));
  EXPECT_LE(cur.formats[0].counts.underflow, ec.underflow.upper);

  TensorRecord i8 = r;
  TargetRewrite(FindTarget("int8-npu").value())(&i8);
  EXPECT_TRUE(i8.formats.empty());
}

// Records of one tensor whose amax jumps: delayed scaling uses the previous
// records' amax, so the step after a jump overflows / underflows.
TEST(RecommendTest, DelayedScalingReplaysTheAmaxHistory) {
  // Step 0: values at 2^-20. Delayed scaling starts at scale 1, so e4m3fn
  // (underflow at or below 2^-10) flushes all 100 (current scaling would
  // not). Step 1: same values, scale now 448 / 2^-20: exact. Step 2: values
  // at 2^-4 with that scale: 2^-4 * 448 * 2^20 overflows, all 100.
  std::vector<TensorRecord> recs = {RecordAt("g", Role::kWeightGrad, 0, -20, 100),
                                    RecordAt("g", Role::kWeightGrad, 1, -20, 100),
                                    RecordAt("g", Role::kWeightGrad, 2, -4, 100)};
  RecommendOptions o;
  o.formats = {"e4m3fn"};
  o.what_if_recipes = {"delayed16", "current"};
  o.budgets.min_snr_db = 0;
  const Recommendation r = RecommendFromRecords(recs, o).value();
  const LayerAdvice& a = r.rows[1];
  const Candidate* delayed = nullptr;
  const Candidate* current = nullptr;
  for (const Candidate& c : a.candidates) {
    if (c.recipe == "delayed16") delayed = &c;
    if (c.recipe == "current") current = &c;
  }
  ASSERT_NE(delayed, nullptr);
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(delayed->underflow.lower, 100u);
  EXPECT_EQ(delayed->underflow.upper, 100u);
  EXPECT_EQ(delayed->overflow.lower, 100u);
  EXPECT_EQ(delayed->overflow.upper, 100u);
  EXPECT_EQ(current->underflow.upper, 0u);
  EXPECT_EQ(current->overflow.upper, 0u);
  EXPECT_EQ(a.best, "e4m3fn/current");

  // Against exact counts: the tracker's DelayedScaler on the same tensors.
  std::mt19937 rng(5);
  std::vector<TensorRecord> run;
  CastCounts exact;
  DelayedScaler d(F("e5m2"), {4, DelayedScaler::Algo::kMax, {}});
  for (int step = 0; step < 30; ++step) {
    std::normal_distribution<float> n(0.0f, std::ldexp(1.0f, -(step % 11) * 2));
    std::vector<float> x(4096);
    for (float& v : x) v = n(rng);
    AnalyzeResult res = simd::Analyze(x.data(), x.size(), {{F("e5m2"), d.Scale()}});
    d.Update(res.stats.max_abs);
    exact.numel += res.formats[0].numel;
    exact.underflow += res.formats[0].underflow;
    exact.overflow += res.formats[0].overflow;
    TensorRecord t;
    t.step = step;
    t.name = "h";
    t.role = Role::kActivationGrad;
    t.stats = res.stats;
    run.push_back(t);
  }
  o.formats = {"e5m2"};
  o.what_if_recipes = {"delayed4"};
  const Recommendation rr = RecommendFromRecords(run, o).value();
  ASSERT_EQ(rr.rows[1].candidates.size(), 1u);
  const Candidate& c = rr.rows[1].candidates[0];
  EXPECT_EQ(c.numel, exact.numel);
  EXPECT_LE(c.underflow.lower, exact.underflow);
  EXPECT_GE(c.underflow.upper, exact.underflow);
  EXPECT_LE(c.overflow.lower, exact.overflow);
  EXPECT_GE(c.overflow.upper, exact.overflow);
  EXPECT_GT(exact.overflow, 0u);  // the amax jumps do overflow
}

TEST(RecommendTest, BlockEstimateSaysWhenItCannotDecide) {
  // The constructed MX case above as a record: e2m1fn/mx is within budgets
  // on its lower bounds only, and its verdict says to simulate it.
  TensorRecord t;
  t.name = "w";
  t.role = Role::kWeight;
  t.shape = {8, 32};
  std::vector<float> x;
  for (int r = 0; r < 8; ++r) x.insert(x.end(), 32, std::ldexp(1.0f, -3 * r));
  t.stats = StatsOf(x);
  RecommendOptions o;
  o.formats = {"e2m1fn"};
  o.what_if_recipes = {"mx"};
  o.budgets.min_snr_db = 0;
  const Recommendation r = RecommendFromRecords({t}, o).value();
  ASSERT_EQ(r.rows[1].candidates.size(), 1u);
  const Candidate& c = r.rows[1].candidates[0];
  EXPECT_FALSE(c.within_budget);
  EXPECT_NE(c.verdict.find("simulate mx to decide"), std::string::npos) << c.verdict;
  // Block recipes are replayed for narrow formats only.
  o.formats = {"bf16"};
  EXPECT_TRUE(RecommendFromRecords({t}, o).value().rows[1].candidates.empty());
}

// Records with a known histogram: values at 2^-12 only.
TensorRecord RecordAt(const std::string& name, Role role, int64_t step, int exponent, int n) {
  TensorRecord r;
  r.step = step;
  r.name = name;
  r.role = role;
  std::vector<float> x(n, std::ldexp(1.0f, exponent));
  r.stats = StatsOf(x);
  return r;
}

TEST(RecommendTest, NarrowestWithinBudgetsWins) {
  // Values all at 2^-12 with no scaling: e4m3fn (min subnormal 2^-9) and
  // every narrower format flush them, e5m2 (2^-16) keeps them exactly.
  std::vector<TensorRecord> recs = {RecordAt("fc1", Role::kActivationGrad, 0, -12, 100),
                                    RecordAt("fc1", Role::kActivationGrad, 1, -12, 100)};
  RecommendOptions o;
  o.formats = {"e2m1fn", "e4m3fn", "e5m2", "bf16"};
  o.what_if_recipes = {"none"};
  const Recommendation r = RecommendFromRecords(recs, o).value();
  ASSERT_EQ(r.rows.size(), 2u);  // the role row and fc1
  EXPECT_EQ(r.rows[0].layer, "*");
  const LayerAdvice& a = r.rows[1];
  EXPECT_EQ(a.layer, "fc1");
  EXPECT_EQ(a.steps, 2);
  EXPECT_EQ(a.best, "e5m2/none");
  EXPECT_EQ(a.candidates.front().underflow.upper, 0u);
  EXPECT_EQ(a.candidates.front().numel, 200u);
  EXPECT_FALSE(a.candidates.front().exact);
  EXPECT_NE(a.reason.find("e4m3fn/none (8 bits): underflow up to 100%"), std::string::npos)
      << a.reason;
  EXPECT_NE(a.reason.find("e2m1fn/none (4 bits)"), std::string::npos) << a.reason;
}

TEST(RecommendTest, CurrentScalingRescuesTheNarrowFormat) {
  std::vector<TensorRecord> recs = {RecordAt("w", Role::kWeight, 0, -12, 50)};
  RecommendOptions o;
  o.formats = {"e4m3fn", "e5m2"};
  o.budgets.min_snr_db = 0;
  const Recommendation r = RecommendFromRecords(recs, o).value();
  // Powers of two scaled onto 448/2^-12 ... all land on one exact value.
  EXPECT_EQ(r.rows[1].best, "e4m3fn/current");
}

TEST(RecommendTest, ExactCountsBeatEstimatesAndBudgetsApply) {
  TensorRecord r = RecordAt("fc2", Role::kActivation, 3, 0, 1000);
  CastCounts c;
  c.numel = 1000;
  c.underflow = 5;  // 0.5 %: over the default 0.1 % budget
  c.sq_signal = 1000;
  c.sq_error = 1e-3;
  r.formats.push_back({"e4m3fn", "delayed16", 1.0f, c});
  RecommendOptions o;
  o.formats = {"e4m3fn"};
  o.what_if_recipes = {};
  Recommendation rec = RecommendFromRecords({r}, o).value();
  ASSERT_EQ(rec.rows[1].candidates.size(), 1u);
  EXPECT_TRUE(rec.rows[1].candidates[0].exact);
  EXPECT_EQ(rec.rows[1].best, "");
  EXPECT_NE(rec.rows[1].reason.find("no candidate keeps within the budgets"), std::string::npos);
  o.budgets.max_underflow = 0.01;
  rec = RecommendFromRecords({r}, o).value();
  EXPECT_EQ(rec.rows[1].best, "e4m3fn/delayed16");
}

TEST(RecommendTest, BadInput) {
  RecommendOptions o;
  o.formats = {"e9m9"};
  EXPECT_FALSE(RecommendFromRecords({}, o).ok());
  o.formats = {"e8m0fnu"};
  EXPECT_NE(RecommendFromRecords({}, o).status().message().find("scale format"), std::string::npos);
  o.formats = {};
  o.budgets.max_underflow = 2;
  EXPECT_FALSE(RecommendFromRecords({}, o).ok());
  o.budgets.max_underflow = 0;
  o.what_if_recipes = {"bogus"};
  EXPECT_NE(RecommendFromRecords({}, o).status().message().find("bogus"), std::string::npos);
  o.what_if_recipes = {"delayed0"};
  EXPECT_FALSE(RecommendFromRecords({}, o).ok());
}

// Through the run database: written, read back, recommended.
TEST(RecommendTest, FromARunDatabase) {
  std::string tmpl = ::testing::TempDir() + "lpsim_recommend_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  {
    auto w = RunWriter::Open(tmpl, "t", "{}").value();
    for (int s = 0; s < 3; ++s) {
      ASSERT_TRUE(w->Add(RecordAt("fc1", Role::kActivationGrad, s, -12, 64)).ok());
      ASSERT_TRUE(w->EndStep(s).ok());
    }
    ASSERT_TRUE(w->Close(Status()).ok());
  }
  auto reader = RunReader::Open(tmpl).value();
  RecommendOptions o;
  o.formats = {"e4m3fn", "e5m2"};
  o.what_if_recipes = {"none"};
  const Recommendation r = Recommend(*reader, o).value();
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[1].best, "e5m2/none");
  EXPECT_EQ(r.rows[1].steps, 3);
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace lpsim
