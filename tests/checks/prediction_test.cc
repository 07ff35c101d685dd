// The break prediction's pieces (checks/prediction.h): which findings are
// signs, which target a sign speaks of, and LivePredictions keeping the
// first sign per target as a running job's findings come.
#include "checks/prediction.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace lpsim {
namespace {

Finding Make(const std::string& rule, Severity sev, int64_t step, const std::string& tensor) {
  Finding f;
  f.rule = rule;
  f.severity = sev;
  f.step = step;
  f.tensor = tensor;
  return f;
}

TEST(Prediction, SignsAreLowPrecisionWarningsAndErrors) {
  EXPECT_TRUE(IsBreakSign(Make("lp_underflow", Severity::kWarning, 0, "fc1")));
  EXPECT_TRUE(IsBreakSign(Make("lp_overflow", Severity::kError, 0, "fc1")));
  EXPECT_FALSE(IsBreakSign(Make("lp_underflow", Severity::kInfo, 0, "fc1")));
  EXPECT_FALSE(IsBreakSign(Make("lp_delayed_warmup", Severity::kWarning, 0, "")));
  EXPECT_FALSE(IsBreakSign(Make("exploding_gradient", Severity::kError, 0, "fc1")));
}

TEST(Prediction, ASignSpeaksOfTheTargetItsProbeNamesElseTheJudgedOne) {
  EXPECT_EQ(ProbedTargetOf("probe_loss:gaudi2-fp8"), "gaudi2-fp8");
  EXPECT_EQ(ProbedTargetOf("rollout_loss:b200-nvfp4"), "b200-nvfp4");
  EXPECT_EQ(ProbedTargetOf("probe_loss"), "");
  EXPECT_EQ(ProbedTargetOf("fc1"), "");
  EXPECT_EQ(SignTarget(Make("lp_rollout", Severity::kWarning, 16, "rollout_loss:b200-nvfp4"), "ipu-fp8"),
            "b200-nvfp4");
  EXPECT_EQ(SignTarget(Make("lp_underflow", Severity::kWarning, 3, "fc1"), "ipu-fp8"), "ipu-fp8");
  EXPECT_EQ(SignTarget(Make("lp_underflow", Severity::kWarning, 3, "fc1"), ""), "");
}

TEST(Prediction, LowPrecisionOnlyLeavesTheLpRulesOn) {
  const CheckConfig c = LowPrecisionOnly(CheckConfig::Defaults());
  for (const auto& [name, rule] : c.rules) {
    EXPECT_EQ(rule.enabled, name.rfind("lp_", 0) == 0 && CheckConfig::Defaults().rules.at(name).enabled) << name;
  }
}

// Each target keeps its first sign; a record's sign goes to the target whose
// records are judged; an inference-only target takes no rollout sign.
TEST(Prediction, LiveKeepsTheFirstSignPerTarget) {
  LivePredictions live({{"fp16-npu-ftz", true, true, false},
                        {"h100-fp8-current", false, true, false},
                        {"int8-npu", false, true, true}});
  nlohmann::json j = live.Json();
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["target"], "fp16-npu-ftz");
  EXPECT_EQ(j[1]["target"], "h100-fp8-current");
  for (const auto& p : j) EXPECT_FALSE(p["breaks"].get<bool>());
  EXPECT_TRUE(j[0]["records"].get<bool>());
  EXPECT_FALSE(j[1]["records"].get<bool>());
  EXPECT_TRUE(j[0]["probed"].get<bool>());
  EXPECT_FALSE(j[0]["inference"].get<bool>());
  EXPECT_TRUE(j[2]["inference"].get<bool>());

  EXPECT_FALSE(live.Add(Make("vanishing_gradient", Severity::kWarning, 0, "fc1")));
  EXPECT_FALSE(live.Add(Make("lp_delayed_warmup", Severity::kWarning, 0, "")));
  EXPECT_FALSE(live.Add(Make("lp_rollout", Severity::kWarning, 4, "rollout_loss:mi300-fp8")));  // not predicted on
  EXPECT_FALSE(live.Add(Make("lp_rollout", Severity::kWarning, 4, "rollout_loss:int8-npu")));   // inference only
  EXPECT_TRUE(live.Add(Make("lp_underflow", Severity::kWarning, 5, "fc2")));
  EXPECT_FALSE(live.Add(Make("lp_overflow", Severity::kError, 6, "fc1")));  // not the first
  EXPECT_TRUE(live.Add(Make("lp_forward_loss", Severity::kWarning, 8, "probe_loss:h100-fp8-current")));
  EXPECT_TRUE(live.Add(Make("lp_forward_loss", Severity::kWarning, 9, "probe_loss:int8-npu")));
  j = live.Json();
  EXPECT_EQ(j[0]["step"], 5);
  EXPECT_EQ(j[0]["rule"], "lp_underflow");
  EXPECT_EQ(j[0]["tensor"], "fc2");
  EXPECT_EQ(j[1]["step"], 8);
  EXPECT_EQ(j[1]["rule"], "lp_forward_loss");
  EXPECT_EQ(j[2]["step"], 9);

  // Records not judged on the target (a block-fp target, live): its
  // prediction waits for its probes.
  LivePredictions probes_only({{"tenstorrent-bfp8", false, false, false}});
  EXPECT_EQ(probes_only.Json().size(), 1u);
  EXPECT_FALSE(probes_only.Add(Make("lp_underflow", Severity::kWarning, 0, "fc1")));
  EXPECT_FALSE(probes_only.Json()[0]["probed"].get<bool>());
  EXPECT_TRUE(LivePredictions({}).Json().empty());
}

TEST(Prediction, AnInferenceOnlyTargetTakesNoRolloutSign) {
  const Finding rollout = Make("lp_rollout", Severity::kWarning, 16, "rollout_loss:int8-npu");
  EXPECT_TRUE(IsBreakSign(rollout));
  EXPECT_FALSE(IsBreakSign(rollout, /*inference_only=*/true));
  EXPECT_TRUE(IsBreakSign(Make("lp_forward_loss", Severity::kWarning, 16, "probe_loss:int8-npu"), true));
  EXPECT_TRUE(IsBreakSign(Make("lp_overflow", Severity::kError, 2, "fc1"), true));
}

}  // namespace
}  // namespace lpsim
