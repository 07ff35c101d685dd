// The validation harness's table (examples/validation/tally.h): cells
// counted into a confusion matrix with leads and intervals, and what each
// lp_* rule contributes.
#include "examples/validation/tally.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace lpsim::validation {
namespace {

// A cell of `program`: predicted at `first_by_rule`'s earliest step (none:
// not predicted), broken at `break_step` (< 0: trains fine).
Cell MakeCell(const std::string& program, std::map<std::string, int64_t> first_by_rule, int64_t break_step) {
  Cell c;
  c.program = program;
  c.target = "t";
  for (const auto& [rule, step] : first_by_rule) {
    if (!c.pred.fires || step < c.pred.step) c.pred.fires = true, c.pred.step = step, c.pred.rule = rule;
  }
  c.pred.first_by_rule = std::move(first_by_rule);
  c.truth.broken = break_step >= 0;
  c.truth.step = break_step;
  return c;
}

TEST(ValidationTally, CountsTheConfusionMatrixAndTheHitsLeads) {
  Tally t;
  EXPECT_TRUE(std::isnan(t.Precision()));
  EXPECT_TRUE(std::isnan(t.Recall()));
  EXPECT_TRUE(std::isnan(t.MedianLead()));
  t.Add(MakeCell("a", {{"lp_rollout", 4}}, 10));    // hit, lead 6
  t.Add(MakeCell("b", {{"lp_rollout", 0}}, 3));     // hit, lead 3
  t.Add(MakeCell("c", {{"lp_overflow", 2}}, -1));   // false alarm
  t.Add(MakeCell("d", {}, 7));                      // miss
  t.Add(MakeCell("e", {}, -1));                     // fine, silent
  t.Add(MakeCell("f", {{"lp_rollout", 20}}, 12));   // hit, called late: lead -8
  EXPECT_EQ(t.tp, 3);
  EXPECT_EQ(t.fp, 1);
  EXPECT_EQ(t.fn, 1);
  EXPECT_EQ(t.tn, 1);
  EXPECT_DOUBLE_EQ(t.Precision(), 0.75);
  EXPECT_DOUBLE_EQ(t.Recall(), 0.75);
  EXPECT_DOUBLE_EQ(t.MedianLead(), 3);  // of 6, 3, -8
  t.Add(MakeCell("g", {{"lp_rollout", 1}}, 2));     // lead 1: the median of four is the mean of the middle two
  EXPECT_DOUBLE_EQ(t.MedianLead(), 2);
  // One target: each cell on its own, Clopper-Pearson's interval.
  const PrecisionRecallIntervals ci = t.Intervals();
  EXPECT_DOUBLE_EQ(ci.precision.lo, ProportionInterval(4, 5).lo);
  EXPECT_DOUBLE_EQ(ci.recall.hi, ProportionInterval(4, 5).hi);
}

TEST(ValidationTally, PooledIntervalsResampleWholePrograms) {
  // Two programs, each on four targets: one always hit, one always a false
  // alarm. Resampled by program, the precision is 0, 1/2 or 1 only.
  Tally t;
  t.pooled = true;
  for (int k = 0; k < 4; ++k) {
    t.Add(MakeCell("hit", {{"lp_rollout", 0}}, 5));
    t.Add(MakeCell("alarm", {{"lp_rollout", 0}}, -1));
  }
  const PrecisionRecallIntervals ci = t.Intervals();
  EXPECT_DOUBLE_EQ(ci.precision.lo, 0);
  EXPECT_DOUBLE_EQ(ci.precision.hi, 1);
  // Clopper-Pearson on the eight cells as if independent is narrower.
  EXPECT_GT(ProportionInterval(4, 8).lo, 0.1);
}

TEST(ValidationTally, ByRuleCountsFirstCallsEveryFiringAndLoneFirings) {
  const std::vector<Cell> cells = {
      MakeCell("a", {{"lp_rollout", 4}, {"lp_forward_loss", 8}}, 10),    // rollout first, both fired: hit
      MakeCell("b", {{"lp_overflow", 2}}, -1),                            // overflow alone: false alarm
      MakeCell("c", {{"lp_rollout", 0}}, 3),                              // rollout alone: hit
      MakeCell("d", {}, 7),                                               // a miss: no rule's
      MakeCell("e", {{"lp_forward_loss", 5}}, 5),                         // forward alone: hit
      MakeCell("f", {{"lp_forward_loss", 7}, {"lp_underflow", 9}}, -1),   // forward first: false alarm
  };
  std::vector<const Cell*> ptrs;
  for (const Cell& c : cells) ptrs.push_back(&c);
  const auto by = ByRule(ptrs, /*pooled=*/true);
  // Most first calls first, ties by name; a rule that fired but was never
  // first is listed with no first call.
  ASSERT_EQ(by.size(), 4u);
  EXPECT_EQ(by[0].first, "lp_forward_loss");
  EXPECT_EQ(by[1].first, "lp_rollout");
  EXPECT_EQ(by[2].first, "lp_overflow");
  EXPECT_EQ(by[3].first, "lp_underflow");

  const RuleTally& forward = by[0].second;
  EXPECT_EQ(forward.first.tp, 1);  // e
  EXPECT_EQ(forward.first.fp, 1);  // f
  EXPECT_EQ(forward.first.fn + forward.first.tn, 0);
  EXPECT_DOUBLE_EQ(forward.first.MedianLead(), 0);
  EXPECT_EQ(forward.fired_tp, 2);  // a, e
  EXPECT_EQ(forward.fired_fp, 1);  // f
  EXPECT_EQ(forward.alone_tp, 1);  // e
  EXPECT_EQ(forward.alone_fp, 0);

  const RuleTally& rollout = by[1].second;
  EXPECT_EQ(rollout.first.tp, 2);
  EXPECT_EQ(rollout.first.fp, 0);
  EXPECT_DOUBLE_EQ(rollout.first.MedianLead(), 4.5);  // of 6 and 3
  EXPECT_EQ(rollout.fired_tp, 2);
  EXPECT_EQ(rollout.alone_tp, 1);  // c

  const RuleTally& overflow = by[2].second;
  EXPECT_EQ(overflow.first.fp, 1);
  EXPECT_EQ(overflow.fired_fp, 1);
  EXPECT_EQ(overflow.alone_fp, 1);
  EXPECT_DOUBLE_EQ(overflow.first.Precision(), 0);

  const RuleTally& underflow = by[3].second;
  EXPECT_EQ(underflow.first.tp + underflow.first.fp, 0);
  EXPECT_TRUE(std::isnan(underflow.first.Precision()));
  EXPECT_EQ(underflow.fired_fp, 1);
  EXPECT_EQ(underflow.alone_fp, 0);

  // The first calls partition the predicted cells: they add up to the
  // table's hits and false alarms.
  Tally all;
  for (const Cell& c : cells) all.Add(c);
  int tp = 0, fp = 0;
  for (const auto& [rule, r] : by) {
    tp += r.first.tp, fp += r.first.fp;
    EXPECT_TRUE(r.first.pooled) << rule;
  }
  EXPECT_EQ(tp, all.tp);
  EXPECT_EQ(fp, all.fp);
  EXPECT_FALSE(ByRule(ptrs, /*pooled=*/false)[0].second.first.pooled);
}

}  // namespace
}  // namespace lpsim::validation
