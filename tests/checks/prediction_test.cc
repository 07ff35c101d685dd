// The break prediction's pieces (checks/prediction.h): which findings are
// signs, which target a probe or rollout is of, and LivePredictions keeping
// the first sign per target as a running job's findings come.
#include "checks/prediction.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/target.h"

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

TEST(Prediction, AProbeOrRolloutNamesItsTarget) {
  EXPECT_EQ(ProbedTargetOf("probe_loss:gaudi2-fp8"), "gaudi2-fp8");
  EXPECT_EQ(ProbedTargetOf("rollout_loss:b200-nvfp4"), "b200-nvfp4");
  EXPECT_EQ(ProbedTargetOf("probe_loss"), "");
  EXPECT_EQ(ProbedTargetOf("fc1"), "");
}

TEST(Prediction, LowPrecisionOnlyLeavesTheLpRulesOn) {
  const CheckConfig c = LowPrecisionOnly(CheckConfig::Defaults());
  for (const auto& [name, rule] : c.rules) {
    EXPECT_EQ(rule.enabled, name.rfind("lp_", 0) == 0 && CheckConfig::Defaults().rules.at(name).enabled) << name;
  }
}

// Each target keeps its first sign, of the findings of the run judged on it;
// an inference-only target takes no rollout sign.
TEST(Prediction, LiveKeepsTheFirstSignPerTarget) {
  LivePredictions live({{FindTarget("fp16-npu-ftz").value(), true},
                        {FindTarget("h100-fp8-current").value(), false},
                        {FindTarget("int8-npu").value(), true}});
  nlohmann::json j = live.Json();
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["target"], "fp16-npu-ftz");
  EXPECT_EQ(j[1]["target"], "h100-fp8-current");
  for (const auto& p : j) EXPECT_FALSE(p["breaks"].get<bool>());
  EXPECT_TRUE(j[0]["probed"].get<bool>());
  EXPECT_FALSE(j[1]["probed"].get<bool>());
  EXPECT_FALSE(j[0]["inference"].get<bool>());
  EXPECT_TRUE(j[2]["inference"].get<bool>());
  EXPECT_FALSE(j[0].contains("records"));
  EXPECT_EQ(j[1]["text"].get<std::string>().rfind("on h100-fp8-current no low-precision warning or error so far; "
                                                  "judged without probes",
                                                  0),
            0u);

  EXPECT_FALSE(live.Add(0, Make("vanishing_gradient", Severity::kWarning, 0, "fc1")));
  EXPECT_FALSE(live.Add(0, Make("lp_delayed_warmup", Severity::kWarning, 0, "")));
  EXPECT_FALSE(live.Add(2, Make("lp_rollout", Severity::kWarning, 4, "rollout_loss:int8-npu")));  // inference only
  EXPECT_FALSE(live.decided(0));
  EXPECT_TRUE(live.Add(0, Make("lp_underflow", Severity::kWarning, 5, "fc2")));
  EXPECT_TRUE(live.decided(0));
  EXPECT_FALSE(live.decided(1));
  EXPECT_FALSE(live.Add(0, Make("lp_overflow", Severity::kError, 6, "fc1")));  // not the first
  EXPECT_TRUE(live.Add(1, Make("lp_overflow", Severity::kError, 6, "fc1")));
  EXPECT_TRUE(live.Add(2, Make("lp_forward_loss", Severity::kWarning, 9, "probe_loss:int8-npu")));
  j = live.Json();
  EXPECT_EQ(j[0]["step"], 5);
  EXPECT_EQ(j[0]["rule"], "lp_underflow");
  EXPECT_EQ(j[0]["tensor"], "fc2");
  EXPECT_EQ(j[1]["step"], 6);
  EXPECT_EQ(j[1]["rule"], "lp_overflow");
  EXPECT_EQ(j[2]["step"], 9);
  EXPECT_EQ(j[2]["text"], "on int8-npu (inference only) inference breaks, first sign at step 9 (lp_forward_loss on "
                          "'probe_loss:int8-npu')");
  EXPECT_TRUE(LivePredictions({}).Json().empty());
}

// One wording wherever the prediction is shown; names from the run escaped.
TEST(Prediction, TextWordsEachCase) {
  BreakPrediction p;
  p.probed = true;
  EXPECT_EQ(PredictionText("ipu-fp8", p), "on ipu-fp8 it trains as in fp32 (no low-precision warning or error)");
  EXPECT_EQ(PredictionText("ipu-fp8", p, /*so_far=*/true), "on ipu-fp8 no low-precision warning or error so far");
  p.sign = Make("lp_underflow", Severity::kWarning, 12, "fc1\n");
  const std::string breaks = "on ipu-fp8 the training breaks, first sign at step 12 (lp_underflow on 'fc1\\n')";
  EXPECT_EQ(PredictionText("ipu-fp8", p), breaks);
  EXPECT_EQ(PredictionText("ipu-fp8", p, true), breaks);
  p.sign->tensor.clear();
  EXPECT_EQ(PredictionText("ipu-fp8", p), "on ipu-fp8 the training breaks, first sign at step 12 (lp_underflow)");
  p.probed = false;
  EXPECT_EQ(PredictionText("ipu-fp8", p).rfind("on ipu-fp8 the training breaks, first sign at step 12 (lp_underflow); "
                                               "judged without probes of ipu-fp8 (TrackerOptions::probe, lpsim demo "
                                               "--probe ipu-fp8), whose forward probes and rollouts",
                                               0),
            0u);
  BreakPrediction inference;
  inference.inference = true;
  inference.probed = true;
  EXPECT_EQ(PredictionText("int8-npu", inference),
            "on int8-npu (inference only) inference runs as in fp32 (no low-precision warning or error on its forward "
            "pass)");
  EXPECT_EQ(PredictionText("int8-npu", inference, true),
            "on int8-npu (inference only) no low-precision warning or error on its forward pass so far");
  inference.sign = Make("lp_forward_loss", Severity::kWarning, 8, "probe_loss:int8-npu");
  EXPECT_EQ(PredictionText("int8-npu", inference),
            "on int8-npu (inference only) inference breaks, first sign at step 8 (lp_forward_loss on "
            "'probe_loss:int8-npu')");
  const nlohmann::json j = PredictionJson("int8-npu", inference);
  EXPECT_EQ(j["text"], PredictionText("int8-npu", inference));
  EXPECT_EQ(j["step"], 8);
  EXPECT_TRUE(j["breaks"].get<bool>());
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
