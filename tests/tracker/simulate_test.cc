// Simulate mode trains: delayed scaling's first steps (scale 1, empty
// history) and a grown amax never turn into Inf/NaN, an update whose
// gradients are non-finite after their simulated cast is skipped before the
// optimizer sees them, and the built-in demo models trained in simulate mode
// under every recipe end within a stated tolerance of their fp32 run.
//
// SimulateShort.* runs by default; SimulateLong.* (label simulate_long) is the
// full matrix: both demo models x seven recipes x 200 steps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <filesystem>
#include <string>
#include <vector>

#include "simd/scaling.h"
#include "tracker/demo.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;

// The simulated run's final loss may exceed fp32's by this share of it plus
// the absolute slack (the demo tasks end near loss 0.0-0.3, where a relative
// bound alone is too tight for e4m3's 3 mantissa bits).
constexpr double kFinalLossRelTolerance = 0.5;
constexpr double kFinalLossAbsTolerance = 0.1;
constexpr int kSteps = 200;

std::string TempDir(const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / ("lpsim_sim_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

DemoResult Train(const std::string& model, const std::string& recipe, bool simulate) {
  DemoOptions o;
  o.model = model;
  o.steps = kSteps;
  o.recipe = recipe;
  o.simulate = simulate;
  o.progress = false;
  o.formats = {"e4m3fn"};  // analysis cost only; simulate uses e4m3fn/e5m2
  o.every = 50;
  o.run_dir = TempDir(model + "_" + recipe + (simulate ? "_sim" : "_fp32"));
  StatusOr<DemoResult> r = RunDemo(o, nullptr);
  EXPECT_TRUE(r.ok()) << r.status().message();
  fs::remove_all(o.run_dir);
  return r.ok() ? r.value() : DemoResult{};
}

void ExpectTrainsLikeFp32(const std::string& model, const std::vector<std::string>& recipes) {
  const DemoResult fp32 = Train(model, "none", /*simulate=*/false);
  ASSERT_TRUE(std::isfinite(fp32.final_loss));
  ASSERT_LT(fp32.final_loss, fp32.first_loss);
  for (const std::string& recipe : recipes) {
    const DemoResult sim = Train(model, recipe, /*simulate=*/true);
    const double bound = fp32.final_loss * (1 + kFinalLossRelTolerance) + kFinalLossAbsTolerance;
    std::printf("%s %-8s fp32 %.4f simulated %.4f (bound %.4f), skipped %lld\n", model.c_str(),
                recipe.c_str(), fp32.final_loss, sim.final_loss, bound,
                static_cast<long long>(sim.skipped_steps));
    EXPECT_TRUE(std::isfinite(sim.final_loss)) << model << " " << recipe;
    EXPECT_LE(sim.final_loss, bound) << model << " " << recipe;
    EXPECT_EQ(sim.skipped_steps, 0) << model << " " << recipe;
  }
}

TEST(SimulateShort, DemoMlpTrainsUnderDelayedScaling) { ExpectTrainsLikeFp32("mlp", {"delayed16"}); }

TEST(SimulateLong, DemoMlpTrainsUnderEveryRecipe) {
  ExpectTrainsLikeFp32("mlp", {"none", "current", "delayed16", "mx", "row", "1x128", "128x128"});
}

TEST(SimulateLong, DemoCnnTrainsUnderEveryRecipe) {
  ExpectTrainsLikeFp32("cnn", {"none", "current", "delayed16", "mx", "row", "1x128", "128x128"});
}

struct Tiny : torch::nn::Module {
  Tiny() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::nn::Linear fc{nullptr};
};

// An activation whose amax grows past its delayed history: scaled beyond
// e4m3fn's 448, it saturates (as hardware casts do) instead of becoming NaN.
TEST(SimulateShort, GrownAmaxUnderDelayedScalingSaturates) {
  Tiny net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.0));
  TrackerOptions o;
  o.simulate = true;
  o.scaling = Scaling::Delayed(16);
  o.checks = false;
  o.run_dir = TempDir("grown");
  Tracker tracker(net, opt, o);
  // Step 0: scale 1 (empty history); 1000 is beyond 448 and clamps.
  torch::Tensor y0 = tracker.tap("x", torch::tensor({1000.0f, -1.0f, 0.5f, 2.0f}));
  EXPECT_EQ(y0[0].item<float>(), 448.0f);
  tracker.step(torch::zeros({}));
  // Step 1: scale 448 / 1000; an amax 4x larger lands at 4 x 448 and clamps.
  torch::Tensor y1 = tracker.tap("x", torch::tensor({4000.0f, 1.0f, 0.5f, 2.0f}));
  const float s = CurrentScale(*ParseFormat("e4m3fn"), 1000.0f);
  EXPECT_EQ(y1[0].item<float>(), 448.0f / s);
  EXPECT_TRUE(torch::isfinite(y1).all().item<bool>());
  fs::remove_all(o.run_dir);
}

// Straight-through is the cast exactly in forward and the gradient as it
// comes (cast as the backward stores it) in backward: an attention mask's
// -inf stays -inf in e5m2, which has infinities (x + (q - x) made it NaN),
// a value far beyond the saturating cast's max is its max (x + (q - x)
// rounded to 0), and the gradient reaches x unchanged (values exact in
// e5m2).
TEST(SimulateShort, StraightThroughIsTheCastExactly) {
  Tiny net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.0));
  TrackerOptions o;
  o.simulate = true;
  o.scaling = Scaling::None();
  o.simulate_forward = "e5m2";
  o.checks = false;
  o.run_dir = TempDir("straight");
  Tracker tracker(net, opt, o);
  const float inf = std::numeric_limits<float>::infinity();
  torch::Tensor x = torch::tensor({-inf, 1e30f, 1.0f, 0.3f}).requires_grad_();
  torch::Tensor y = tracker.tap("scores", x);
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y[0].item<float>(), -inf);
  EXPECT_EQ(y[1].item<float>(), 57344.0f);  // e5m2's max: saturated
  EXPECT_EQ(y[2].item<float>(), 1.0f);
  EXPECT_EQ(y[3].item<float>(), 0.3125f);  // 0.3 to the nearest of e5m2's step 2^-4
  const torch::Tensor w = torch::tensor({0.0f, 2.0f, 3.0f, 4.0f});
  (y.masked_fill(torch::isinf(y), 0) * w).sum().backward();
  EXPECT_TRUE(x.grad().equal(w)) << x.grad();
  fs::remove_all(o.run_dir);
}

// Without saturation the e5m2 cast of a grown gradient is Inf: the update is
// skipped and neither the weights nor Adam's state see it.
TEST(SimulateShort, GradientNonFiniteAfterItsCastSkipsTheUpdate) {
  torch::manual_seed(3);
  Tiny net;
  torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(1e-2));
  TrackerOptions o;
  o.simulate = true;
  o.simulate_saturate = false;
  o.scaling = Scaling::Delayed(16);
  o.checks = false;
  o.run_dir = TempDir("skip");
  Tracker tracker(net, opt, o);
  const torch::Tensor x = torch::ones({2, 4});
  for (int s = 0; s < 2; ++s) {
    opt.zero_grad();
    // Step 1's loss is 1e4 x step 0's: its gradient is far past the history.
    torch::Tensor loss = net.fc->forward(x).sum() * (s == 0 ? 1.0f : 1e4f);
    loss.backward();
    const torch::Tensor before = net.fc->weight.detach().clone();
    StepResult r = tracker.step(loss);
    if (s == 0) {
      EXPECT_TRUE(r.applied) << r.reason;
      continue;
    }
    EXPECT_FALSE(r.applied);
    EXPECT_NE(r.reason.find("after its cast to e5m2"), std::string::npos) << r.reason;
    EXPECT_TRUE(net.fc->weight.equal(before));
  }
  for (const auto& p : net.parameters()) EXPECT_TRUE(torch::isfinite(p).all().item<bool>());
  for (const auto& item : opt.state()) {
    auto& st = static_cast<torch::optim::AdamParamState&>(*item.second);
    EXPECT_TRUE(torch::isfinite(st.exp_avg()).all().item<bool>());
    EXPECT_TRUE(torch::isfinite(st.exp_avg_sq()).all().item<bool>());
  }
  fs::remove_all(o.run_dir);
}

// Gradients of 2e-4 flush to zero in e4m3fn (min subnormal 2^-9) but not in
// e5m2 (2^-16). Judged in every candidate format lp_underflow fires for
// e4m3fn; judged as fp8 training does (gradients in e5m2) it does not, and
// the stored record still carries both formats.
// Three ways: every candidate judged (JudgeFormats::All()), the default (by
// role, e4m3fn forward / e5m2 backward) and the explicit HybridFp8().
TEST(JudgeFormats, GradientsAreJudgedInTheirRolesFormatOnly) {
  for (const int how : {0, 1, 2}) {
    const bool by_role = how != 0;
    Tiny net;
    torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.0));
    TrackerOptions o;
    o.formats = {"e4m3fn", "e5m2"};
    o.scaling = Scaling::None();
    o.background = false;
    if (how == 0) o.judge = JudgeFormats::All();
    if (how == 2) o.judge = JudgeFormats::HybridFp8();
    o.run_dir = TempDir("judge_" + std::to_string(how));
    Tracker tracker(net, opt, o);
    for (int s = 0; s < 2; ++s) {  // lp_underflow asks for two steps in a row
      opt.zero_grad();
      torch::Tensor loss = 1e-4f * net.fc->forward(torch::ones({2, 4})).sum();
      loss.backward();
      tracker.step(loss);
    }
    bool e4m3_underflow = false;
    for (const Finding& f : tracker.findings()) {
      e4m3_underflow |= f.rule == "lp_underflow" && f.message.find("[e4m3fn") != std::string::npos;
    }
    EXPECT_EQ(e4m3_underflow, !by_role);
    for (const TensorRecord& r : tracker.last_records()) EXPECT_EQ(r.formats.size(), 2u) << r.name;
    fs::remove_all(o.run_dir);
  }
}

// With a target, each role is judged in the target's storage format and
// recipe: on fp16-npu-ftz (fp16, no scaling, subnormals flushed below
// 2^-14) gradients of 1e-6 flush to zero; bf16-accelerator's bf16 keeps them.
TEST(JudgeFormats, ATargetJudgesEachRoleInItsStorageFormat) {
  for (const std::string target : {"fp16-npu-ftz", "bf16-accelerator"}) {
    Tiny net;
    torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.0));
    TrackerOptions o;
    o.target = target;
    o.background = false;
    o.run_dir = TempDir("judge_target_" + target);
    Tracker tracker(net, opt, o);
    for (int s = 0; s < 2; ++s) {  // lp_underflow asks for two steps in a row
      opt.zero_grad();
      torch::Tensor loss = 1e-6f * net.fc->forward(torch::ones({2, 4})).sum();
      loss.backward();
      tracker.step(loss);
    }
    bool underflow = false, other_format = false;
    for (const Finding& f : tracker.findings()) {
      if (f.rule.rfind("lp_", 0) != 0) continue;
      underflow |= f.rule == "lp_underflow";
      other_format |= f.message.find("[e4m3fn") != std::string::npos || f.message.find("[e5m2") != std::string::npos;
    }
    EXPECT_EQ(underflow, target == "fp16-npu-ftz") << target;
    EXPECT_FALSE(other_format) << target;  // candidates outside the target feed recommend only
    fs::remove_all(o.run_dir);
  }
}

TEST(JudgeFormats, AFormatOutsideTheCandidatesIsRefused) {
  Tiny net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.0));
  TrackerOptions o;
  o.formats = {"e4m3fn"};
  o.judge = JudgeFormats::HybridFp8();
  o.run_dir = TempDir("judge_bad");
  StatusOr<std::unique_ptr<Tracker>> t = Tracker::Create(net, opt, o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("'e5m2', is not one of TrackerOptions.formats"), std::string::npos)
      << t.status().message();
  EXPECT_FALSE(fs::exists(o.run_dir));  // nothing written
}

TEST(JudgeFormats, FormatsWithoutTheListedModeAreRefused) {
  Tiny net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.0));
  TrackerOptions o;
  o.formats = {"e4m3fn", "e5m2"};
  o.judge.formats = JudgeFormats::HybridFp8().formats;  // mode left at kByRole
  o.run_dir = TempDir("judge_mode");
  StatusOr<std::unique_ptr<Tracker>> t = Tracker::Create(net, opt, o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("TrackerOptions.judge: formats are listed"), std::string::npos)
      << t.status().message();
  EXPECT_FALSE(fs::exists(o.run_dir));
}

}  // namespace
}  // namespace lpsim
