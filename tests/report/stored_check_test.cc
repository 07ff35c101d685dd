// CheckStoredRun: the rule catalog on a stored run, judged on a target or
// not. A run probed on two targets, one whose forward pass loses most of what
// the training gains: judged on that target lp_forward_loss fires, on the
// other it does not (another target's probes are not read), and without a
// target both are judged; fed step by step (TargetJudge, as a running job
// feeds it), the same.
#include "report/stored_check.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "checks/check_config.h"

namespace lpsim {
namespace {

class StoredCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "lpsim_stored_check_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
    StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(dir_, "probed", "{}");
    ASSERT_TRUE(w.ok()) << w.status().message();
    for (int64_t s = 0; s < kSteps; ++s) {
      const double loss = 2.0 - 1.5 * static_cast<double>(s) / kSteps;  // a steady descent
      ASSERT_TRUE((*w)->Add(ScalarRecord{s, "loss", loss}).ok());
      if (s % 8 == 0) {
        const double gain = 2.0 - loss;
        ASSERT_TRUE((*w)->Add(ScalarRecord{s, "probe_loss", loss}).ok());
        ASSERT_TRUE((*w)->Add(ScalarRecord{s, "probe_loss:" + kFine, loss + 0.01 * gain}).ok());
        ASSERT_TRUE((*w)->Add(ScalarRecord{s, "probe_loss:" + kLossy, loss + 0.9 * gain}).ok());
      }
      ASSERT_TRUE((*w)->EndStep(s).ok());
    }
    ASSERT_TRUE((*w)->Close(Status()).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The lp_forward_loss findings of the stored run judged on `target`
  // (empty: none), by the probe they name.
  std::vector<std::string> ForwardLossOn(const std::string& target) {
    StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(dir_);
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) return {};
    std::optional<Target> t;
    if (!target.empty()) t = FindTarget(target).value();
    StatusOr<std::vector<Finding>> found = CheckStoredRun(**r, CheckConfig::Defaults(), t ? &*t : nullptr);
    EXPECT_TRUE(found.ok()) << found.status().message();
    std::vector<std::string> out;
    if (!found.ok()) return out;
    for (const Finding& f : *found) {
      if (f.rule == "lp_forward_loss" && std::find(out.begin(), out.end(), f.tensor) == out.end()) {
        out.push_back(f.tensor);
      }
    }
    return out;
  }

  static constexpr int64_t kSteps = 64;
  const std::string kFine = "bf16-accelerator", kLossy = "b200-nvfp4";
  std::string dir_;
};

TEST_F(StoredCheck, JudgesOnlyTheTargetsProbes) {
  EXPECT_EQ(ForwardLossOn(kLossy), std::vector<std::string>{"probe_loss:" + kLossy});
  EXPECT_EQ(ForwardLossOn(kFine), std::vector<std::string>{});
  EXPECT_EQ(ForwardLossOn(""), std::vector<std::string>{"probe_loss:" + kLossy}) << "every probe judged";
}

// A running job's judge (TargetJudge), fed the run step by step as the
// tracker feeds it, finds what CheckStoredRun finds on the stored run, each
// finding at the step it came: on the lossy target its probe's
// lp_forward_loss, on the fine one nothing (the lossy target's probes are
// not read there).
TEST_F(StoredCheck, AJudgeFedStepByStepFindsWhatTheStoredRunGives) {
  StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(dir_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<ScalarRecord> scalars = (*r)->Scalars().value();
  for (const std::string& name : {kLossy, kFine}) {
    const Target t = FindTarget(name).value();
    TargetJudge judge(CheckConfig::Defaults(), &t);
    std::vector<Finding> live;
    size_t next = 0;
    for (int64_t s = 0; s < kSteps; ++s) {
      for (; next < scalars.size() && scalars[next].step == s; ++next) judge.Add(scalars[next]);
      for (const Finding& f : judge.EndStep(s)) {
        EXPECT_EQ(f.step, s) << f.rule;
        live.push_back(f);
      }
    }
    const std::vector<Finding> stored = CheckStoredRun(**r, CheckConfig::Defaults(), &t).value();
    ASSERT_EQ(live.size(), stored.size()) << name;
    for (size_t i = 0; i < live.size(); ++i) {
      EXPECT_EQ(live[i].rule, stored[i].rule);
      EXPECT_EQ(live[i].step, stored[i].step);
      EXPECT_EQ(live[i].tensor, stored[i].tensor);
    }
    const bool forward_loss = std::any_of(live.begin(), live.end(), [](const Finding& f) {
      return f.rule == "lp_forward_loss";
    });
    EXPECT_EQ(forward_loss, name == kLossy) << name;
  }
}

TEST(ScalarJudgedOn, LeavesOutOtherTargetsProbesAndRollouts) {
  const Target t = FindTarget("b200-nvfp4").value();
  for (const char* name : {"loss", "lr", "probe_loss", "rollout_loss", "probe_loss:b200-nvfp4",
                           "rollout_loss:b200-nvfp4", "update_ratio/fc1.weight"}) {
    EXPECT_TRUE(ScalarJudgedOn({0, name, 1.0}, &t)) << name;
    EXPECT_TRUE(ScalarJudgedOn({0, name, 1.0}, nullptr)) << name;
  }
  for (const char* name : {"probe_loss:b200-mxfp8", "rollout_loss:b200-nvfp4x", "rollout_loss:b200"}) {
    EXPECT_FALSE(ScalarJudgedOn({0, name, 1.0}, &t)) << name;
    EXPECT_TRUE(ScalarJudgedOn({0, name, 1.0}, nullptr)) << name;
  }
}

}  // namespace
}  // namespace lpsim
