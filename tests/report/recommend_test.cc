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
  o.what_if_recipes = {"mx"};
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
