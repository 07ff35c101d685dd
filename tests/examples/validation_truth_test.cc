// The validation harness's truth (examples/validation/truth.h): one
// simulated run judged against fp32's runs, and several seeds' truths
// combined by majority.
#include "examples/validation/truth.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace lpsim::validation {
namespace {

// A loss that falls linearly from `from` to `to` over `steps` steps, then
// stays there for kFinalWindow more.
Curve Falling(double from, double to, int steps = 40) {
  Curve c;
  for (int s = 0; s < steps; ++s) c.loss.push_back(from + (to - from) * s / (steps - 1));
  for (int s = 0; s < kFinalWindow; ++s) c.loss.push_back(to);
  return c;
}

TEST(ValidationTruth, JudgesAgainstTheWorstFp32SeedByAShareOfTheImprovement) {
  // The tracked run improves 2.0 -> 0.2: the tolerance is a quarter of
  // (mean of its first kFinalWindow losses - 0.2).
  const Curve tracked = Falling(2.0, 0.2), other = Falling(2.0, 0.4);
  double first = 0;
  for (int i = 0; i < kFinalWindow; ++i) first += tracked.loss[i] / kFinalWindow;
  const double tol = kLossTolerance * (first - 0.2);
  // Against the tracked run alone, 0.2 + tol * 1.2 is broken; against the
  // worst of both (0.4) it is within the spread plus the tolerance.
  const Curve sim = Falling(2.0, 0.2 + tol * 1.2);
  EXPECT_TRUE(Judge({tracked}, sim).broken);
  EXPECT_FALSE(Judge({tracked, other}, sim).broken);
  const Truth beyond = Judge({tracked, other}, Falling(2.0, 0.4 + tol * 1.1));
  EXPECT_TRUE(beyond.broken);
  EXPECT_NE(beyond.why.find("the worst of 2 seeds"), std::string::npos) << beyond.why;
  EXPECT_DOUBLE_EQ(beyond.final_loss, 0.4 + tol * 1.1);
  // The break step: the first whose kBreakWindow mean is above both fp32
  // runs' by the tolerance, inside the descent.
  EXPECT_GE(beyond.step, kBreakWindow - 1);
  EXPECT_LT(beyond.step, 40 + kFinalWindow);
}

TEST(ValidationTruth, ALossThatFallsByOrdersIsJudgedInOrders) {
  // fp32 falls 1 -> 1e-4: a quarter of its improvement is 0.25 on the
  // linear scale but a factor of 10^(4/4) on the log scale, the tighter.
  const Curve fp32 = Falling(1.0, 1e-4);
  double first = 0;
  for (int i = 0; i < kFinalWindow; ++i) first += fp32.loss[i] / kFinalWindow;
  const double factor = std::pow(first / 1e-4, kLossTolerance);
  EXPECT_GT(factor, 9.0);
  EXPECT_LT(factor, 10.0);
  EXPECT_DOUBLE_EQ(Bound(1e-4, first, 1e-4), 1e-4 * factor);
  // 40x fp32's final loss (0.004, far inside 0.25) is broken; 5x is not.
  const Truth t = Judge({fp32}, Falling(1.0, 4e-3));
  EXPECT_TRUE(t.broken);
  EXPECT_FALSE(Judge({fp32}, Falling(1.0, 5e-4)).broken);
  // The break step: the first whose window mean is above the bound of
  // fp32's window mean, late in the descent where fp32 is near 1e-4.
  EXPECT_GT(t.step, 30);
  EXPECT_LT(t.step, 40 + kFinalWindow);
  // A small improvement: the two scales nearly agree and the log one is
  // still the tighter (x^(1/4) <= 1 + (x - 1) / 4).
  EXPECT_LT(Bound(0.5, 1.0, 0.5), 0.5 + kLossTolerance * 0.5);
  EXPECT_NEAR(Bound(0.5, 1.0, 0.5), 0.5 * std::pow(2.0, kLossTolerance), 1e-15);
  // No log scale where a loss is not positive or fp32 did not improve: the
  // linear bound.
  EXPECT_DOUBLE_EQ(Bound(-2.0, 1.0, -2.0), -2.0 + kLossTolerance * 3.0);
  EXPECT_DOUBLE_EQ(Bound(0.5, 0.5, 0.5), 0.5 + kLossTolerance * 1e-12);
  EXPECT_DOUBLE_EQ(Bound(0.0, 1.0, 0.1), kLossTolerance * 0.9);
  // A negative loss (a density's NLL) falls 1 -> -3: linear.
  const Curve nll = Falling(1.0, -3.0);
  EXPECT_TRUE(Judge({nll}, Falling(1.0, -1.5)).broken);
  EXPECT_FALSE(Judge({nll}, Falling(1.0, -2.5)).broken);
}

TEST(ValidationTruth, NonFiniteAndAccuracy) {
  const Curve fp32 = Falling(2.0, 0.2);
  Curve nan = Falling(2.0, 0.2);
  nan.loss[7] = NAN, nan.nonfinite = true;
  const Truth t = Judge({fp32}, nan);
  EXPECT_TRUE(t.broken);
  EXPECT_EQ(t.step, 7);
  EXPECT_EQ(t.why, "non-finite loss");
  // Same loss, accuracy 6 points below the worst fp32 run's: broken at the
  // last step (only the accuracy fell behind).
  Curve a = Falling(2.0, 0.2), b = Falling(2.0, 0.2);
  a.accuracy.assign(a.loss.size(), 0.90);
  b.accuracy.assign(b.loss.size(), 0.85);
  Curve sim = Falling(2.0, 0.2);
  sim.accuracy.assign(sim.loss.size(), 0.85 - kAccuracyTolerance - 0.01);
  const Truth acc = Judge({a, b}, sim);
  EXPECT_TRUE(acc.broken);
  EXPECT_EQ(acc.step, static_cast<int64_t>(sim.loss.size()) - 1);
  sim.accuracy.assign(sim.loss.size(), 0.85 - kAccuracyTolerance + 0.01);
  EXPECT_FALSE(Judge({a, b}, sim).broken);
}

Truth Seed(bool broken, int64_t step, double loss, double accuracy = 0) {
  Truth t;
  t.broken = broken, t.step = broken ? step : -1, t.why = broken ? "why" + std::to_string(step) : "";
  t.final_loss = loss, t.final_accuracy = accuracy;
  return t;
}

TEST(ValidationTruth, CombineTakesTheMajority) {
  // One of three seeds breaks: fine; the medians are reported.
  Truth one = Combine({Seed(false, 0, 0.3, 0.9), Seed(true, 20, 5.0, 0.2), Seed(false, 0, 0.1, 0.95)});
  EXPECT_FALSE(one.broken);
  EXPECT_EQ(one.step, -1);
  EXPECT_DOUBLE_EQ(one.final_loss, 0.3);
  EXPECT_DOUBLE_EQ(one.final_accuracy, 0.9);
  ASSERT_EQ(one.seeds.size(), 3u);
  EXPECT_TRUE(one.seeds[1].broken);
  // Two of three: broken at the step by which two had broken (the later of
  // the two), with that run's reason.
  Truth two = Combine({Seed(true, 30, 4.0), Seed(false, 0, 0.2), Seed(true, 12, NAN)});
  EXPECT_TRUE(two.broken);
  EXPECT_EQ(two.step, 30);
  EXPECT_EQ(two.why, "2 of 3 seeds: why30");
  EXPECT_DOUBLE_EQ(two.final_loss, 4.0);  // a NaN loss counts as the largest
  // All three: the second earliest.
  Truth all = Combine({Seed(true, 9, 1), Seed(true, 3, 1), Seed(true, 50, 1)});
  EXPECT_EQ(all.step, 9);
  EXPECT_EQ(all.why, "3 of 3 seeds: why9");
  // Two of four is no majority; a single run is its own truth.
  EXPECT_FALSE(Combine({Seed(true, 1, 1), Seed(true, 2, 1), Seed(false, 0, 1), Seed(false, 0, 1)}).broken);
  Truth single = Combine({Seed(true, 4, 2.0)});
  EXPECT_TRUE(single.broken);
  EXPECT_EQ(single.why, "why4");
  EXPECT_TRUE(single.seeds.empty());
}

TEST(ValidationTruth, ProportionIntervalIsClopperPearsons) {
  // At the edges the exact interval has a closed form: 0 of n leaves 2.5%
  // for k = 0 below the upper end, (1 - hi)^n = 0.025; n of n mirrors it.
  for (int n : {1, 10, 60}) {
    SCOPED_TRACE(n);
    const Interval none = ProportionInterval(0, n), all = ProportionInterval(n, n);
    EXPECT_EQ(none.lo, 0);
    EXPECT_NEAR(none.hi, 1 - std::pow(0.025, 1.0 / n), 1e-12);
    EXPECT_NEAR(all.lo, std::pow(0.025, 1.0 / n), 1e-12);
    EXPECT_EQ(all.hi, 1);
  }
  // 5 of 10: the textbook [0.1871, 0.8129], symmetric about 1/2.
  const Interval half = ProportionInterval(5, 10);
  EXPECT_NEAR(half.lo, 0.187086, 1e-6);
  EXPECT_NEAR(half.hi, 0.812914, 1e-6);
  // k of n mirrors n - k of n, and holds k / n inside.
  for (int k = 0; k <= 60; ++k) {
    const Interval a = ProportionInterval(k, 60), b = ProportionInterval(60 - k, 60);
    EXPECT_NEAR(a.lo, 1 - b.hi, 1e-9) << k;
    EXPECT_LE(a.lo, k / 60.0) << k;
    EXPECT_GE(a.hi, k / 60.0) << k;
  }
  // 54 of 60 (0.90): the interval is wide enough that 0.80 and 0.96 are in it.
  const Interval ninety = ProportionInterval(54, 60);
  EXPECT_LT(ninety.lo, 0.80);
  EXPECT_GT(ninety.hi, 0.96);
  EXPECT_TRUE(std::isnan(ProportionInterval(0, 0).lo));
  EXPECT_TRUE(std::isnan(ProportionInterval(3, 2).hi));
}

// The pooled row's interval: clusters drawn with replacement. Identical
// clusters leave nothing to vary (a point); clusters whose cells all agree
// (a program right or wrong on every target) are as uncertain as one cell
// per cluster, not as their pooled count says; the interval holds the
// estimate and one input always gives the same interval.
TEST(ValidationTruth, ClusterBootstrapIsAsWideAsTheClustersVary) {
  const std::vector<ClusterCounts> same(30, ClusterCounts{3, 1, 2});
  const PrecisionRecallIntervals point = ClusterBootstrapIntervals(same);
  EXPECT_EQ(point.precision.lo, 0.75);
  EXPECT_EQ(point.precision.hi, 0.75);
  EXPECT_EQ(point.recall.lo, 0.6);
  EXPECT_EQ(point.recall.hi, 0.6);

  // 40 programs of 12 targets each: the prediction right on all 12 in 34,
  // a false alarm on all 12 in 6 (precision 0.85 of 480 predictions).
  std::vector<ClusterCounts> whole;
  for (int i = 0; i < 40; ++i) whole.push_back(i < 34 ? ClusterCounts{12, 0, 0} : ClusterCounts{0, 12, 0});
  const Interval boot = ClusterBootstrapIntervals(whole).precision;
  const Interval cells = ProportionInterval(34 * 12, 40 * 12), programs = ProportionInterval(34, 40);
  EXPECT_LE(boot.lo, 0.85);
  EXPECT_GE(boot.hi, 0.85);
  EXPECT_GT(boot.hi - boot.lo, 2 * (cells.hi - cells.lo)) << "as narrow as independent cells";
  EXPECT_NEAR(boot.hi - boot.lo, programs.hi - programs.lo, 0.1) << "not as wide as one cell per program";
  EXPECT_EQ(ClusterBootstrapIntervals(whole).recall.lo, 1);  // no break is ever missed
  const Interval again = ClusterBootstrapIntervals(whole).precision;
  EXPECT_EQ(again.lo, boot.lo);
  EXPECT_EQ(again.hi, boot.hi);
  EXPECT_TRUE(std::isnan(ClusterBootstrapIntervals({}).precision.lo));
}

}  // namespace
}  // namespace lpsim::validation
