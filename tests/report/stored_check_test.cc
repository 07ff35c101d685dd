// CheckStoredRun: the rule catalog on a stored run, judged on a target or
// not. A run probed on two targets, one whose forward pass loses most of what
// the training gains: judged on that target lp_forward_loss fires, on the
// other it does not (another target's probes are not read), and without a
// target both are judged.
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
