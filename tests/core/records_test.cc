#include "core/records.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/tensor_stats.h"

namespace lpsim {
namespace {

TEST(RoleTest, NamesRoundTrip) {
  for (Role r : kSingleRoles) EXPECT_EQ(ParseRole(ToString(r)).value(), r);
  EXPECT_EQ(ToString(Role::kWeight | Role::kWeightGrad), "weight|weight_grad");
  EXPECT_EQ(ParseRole("weight,activation").value(), Role::kActivation | Role::kWeight);
  EXPECT_EQ(ParseRole("all").value(), Role::kAll);
  EXPECT_EQ(ParseRole("none").value(), Role::kNone);
  EXPECT_FALSE(ParseRole("weights").ok());
  EXPECT_TRUE(Contains(Role::kAll, Role::kOptimizerState));
  EXPECT_FALSE(Contains(Role::kWeight, Role::kWeightGrad));
}

TEST(CastCountsTest, SnrAndEquality) {
  CastCounts c;
  EXPECT_TRUE(std::isinf(c.SnrDb()));
  c.sq_signal = 100;
  c.sq_error = 1;
  EXPECT_DOUBLE_EQ(c.SnrDb(), 20.0);
  CastCounts d = c;
  EXPECT_TRUE(c == d);
  d.sq_error = std::nextafter(1.0, 2.0);
  EXPECT_FALSE(c == d);  // sums compare bit for bit
}

// A quantile lands in the bin of the true value, within the stated bound.
TEST(TensorStatsTest, QuantileFromTheLogHistogram) {
  TensorStats s;
  // 100 values: 90 of 1.0 and 10 of 1024.0.
  s.log_hist[0x3f800000u >> TensorStats::kLogBinShift] = 90;
  s.log_hist[0x44800000u >> TensorStats::kLogBinShift] = 10;
  s.min_abs = 1.0f;
  s.max_abs = 1024.0f;
  const double tol = TensorStats::kQuantileRelativeError;
  EXPECT_NEAR(s.Quantile(0.0), 1.0, tol);
  EXPECT_NEAR(s.Quantile(0.9), 1.0, tol);
  EXPECT_NEAR(s.Quantile(0.91), 1024.0, 1024.0 * TensorStats::kQuantileRelativeError);
  EXPECT_EQ(s.Quantile(1.0), 1024.0f);  // clamped to max_abs
  EXPECT_EQ(TensorStats().Quantile(0.5), 0.0f);
}

}  // namespace
}  // namespace lpsim
