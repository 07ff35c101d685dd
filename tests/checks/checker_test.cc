// Checker: every rule fires on a crafted case with a known answer and stays
// silent on a healthy one; findings are de-duplicated; the configuration
// reads JSON and refuses bad input.
#include "checks/checker.h"

#include <gtest/gtest.h>

#include "checks/neurons.h"
#include "checks/rules/rule_support.h"

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <tuple>

#include "formats/format.h"
#include "simd/analyze.h"
#include "simd/scaling.h"

namespace lpsim {
namespace {

std::vector<float> Normal(size_t n, float stddev, uint32_t seed, float mean = 0) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(mean, stddev);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// A record with real stats (and counts of `formats` with `recipe` and `scale`;
// scale 0: the current-amax scale of each format, max / amax).
TensorRecord Rec(int64_t step, const std::string& name, Role role, const std::vector<float>& x,
                 std::vector<int64_t> shape, const std::string& module_type = "",
                 const std::vector<std::string>& formats = {}, const std::string& recipe = "none",
                 float scale = 1.0f) {
  std::vector<FormatSlot> slots;
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  for (const std::string& f : formats) {
    const Format fmt = ParseFormat(f).value();
    slots.push_back({fmt, scale > 0 ? scale : fmt.MaxValue() / amax});
  }
  AnalyzeResult a = simd::AnalyzeRef(x.data(), x.size(), slots);
  TensorRecord r;
  r.step = step;
  r.name = name;
  r.role = role;
  r.shape = std::move(shape);
  r.module_type = module_type;
  r.stats = a.stats;
  for (size_t i = 0; i < formats.size(); ++i) r.formats.push_back({formats[i], recipe, slots[i].scale, a.formats[i]});
  return r;
}

std::vector<std::string> Rules(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs) out.push_back(f.rule);
  return out;
}

bool Fired(const Checker& c, const std::string& rule) {
  for (const Finding& f : c.findings()) {
    if (f.rule == rule) return true;
  }
  return false;
}

std::string Dump(const Checker& c) {
  std::string s;
  for (const Finding& f : c.findings()) s += f.rule + "@" + std::to_string(f.step) + " " + f.tensor + ": " + f.message + "\n";
  return s;
}

// A healthy little run: two layers, weights move a little each step, ReLU
// half zero, gradients ~1e-2, loss falls smoothly, update ratio ~1e-2.
void FeedHealthyStep(Checker* c, int64_t step, const std::vector<std::string>& formats,
                     const std::string& recipe) {
  const float drift = 1.0f + 0.01f * static_cast<float>(step);
  std::vector<float> w1 = Normal(512, 0.1f * drift, 1), w2 = Normal(256, 0.1f * drift, 2);
  c->Add(Rec(step, "fc1.weight", Role::kWeight, w1, {16, 32}, "", formats, recipe, 0));
  c->Add(Rec(step, "fc2.weight", Role::kWeight, w2, {8, 32}, "", formats, recipe, 0));
  c->Add(Rec(step, "fc1.weight", Role::kWeightGrad, Normal(512, 1e-2f, 3 + step), {16, 32}, "", formats, recipe, 0));
  c->Add(Rec(step, "fc2.weight", Role::kWeightGrad, Normal(256, 2e-2f, 4 + step), {8, 32}, "", formats, recipe, 0));
  std::vector<float> act = Normal(1024, 1.0f, 5 + step);
  for (float& v : act) v = std::max(v, 0.0f);
  c->Add(Rec(step, "relu1", Role::kActivation, act, {32, 32}, "ReLU", formats, recipe, 0));
  std::vector<float> sig = Normal(1024, 1.0f, 6 + step);
  for (float& v : sig) v = 1.0f / (1.0f + std::exp(-v));
  c->Add(Rec(step, "sig1", Role::kActivation, sig, {32, 32}, "Sigmoid"));
  c->Add(ScalarRecord{step, "loss", 2.3 * std::exp(-0.05 * step) + 0.01 * ((step % 3) - 1)});
  c->Add(ScalarRecord{step, "update_ratio/fc1.weight", 1e-2});
  c->Add(ScalarRecord{step, "update_ratio/fc2.weight", 2e-2});
}

TEST(Checker, HealthyRunFiresNothing) {
  Checker c;
  for (int64_t s = 0; s < 80; ++s) {
    FeedHealthyStep(&c, s, {"e4m3fn", "e5m2", "bf16"}, "current");
    c.EndStep(s);
  }
  EXPECT_TRUE(c.findings().empty()) << Dump(c);
}

TEST(Checker, HealthyRunWithDelayedScalingFiresNothing) {
  Checker c;
  for (int64_t s = 0; s < 80; ++s) {
    FeedHealthyStep(&c, s, {"e4m3fn", "e5m2", "bf16"}, "delayed16");
    c.EndStep(s);
  }
  EXPECT_TRUE(c.findings().empty()) << Dump(c);
}

TEST(Checker, LowPrecisionRulesSkipOptimizerStateByDefault) {
  // Log-uniform over 2^-40 .. 2^10: 60% below e4m3fn's flush point 2^-10.
  std::vector<float> x(3000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::exp2(-40.0f + 50.0f * static_cast<float>(i) / 3000.0f);
  Checker c;
  c.Add(Rec(0, "fc1.weight.exp_avg_sq", Role::kOptimizerState, x, {3000}, "", {"e4m3fn"}));
  EXPECT_TRUE(c.EndStep(0).empty());
  CheckConfig all = CheckConfig::Defaults();
  ASSERT_TRUE(all.Set("lp_dynamic_range", "roles", 31).ok());
  Checker d(all);
  d.Add(Rec(0, "fc1.weight.exp_avg_sq", Role::kOptimizerState, x, {3000}, "", {"e4m3fn"}));
  EXPECT_EQ(Rules(d.EndStep(0)), std::vector<std::string>{"lp_dynamic_range"});
}

// Every parameter of the catalog, set by name, lands in its own typed field
// and in no other: a name listed twice or pointing at another rule's field
// shows up as a second changed value.
TEST(CheckConfig, EveryParameterNameReachesOneField) {
  const CheckConfig defaults = CheckConfig::Defaults();
  size_t params = 0;
  for (const RuleInfo& rule : RuleCatalog()) {
    for (const auto& [name, value] : rule.params) {
      ++params;
      CheckConfig c = defaults;
      // A value in every parameter's range that differs from its default
      // (a 0/1 switch that is on: 0).
      double changed = value >= 1 ? value + 1 : (value > 0 ? value / 2 : 1);
      if (value == 1 && !CheckConfig(c).Set(rule.name, name, changed).ok()) changed = 0;
      ASSERT_TRUE(c.Set(rule.name, name, changed).ok()) << rule.name << "." << name;
      for (const RuleInfo& other : RuleCatalog()) {
        for (const auto& [k, v] : c.Params(other.name)) {
          const bool same = other.name == rule.name && k == name;
          EXPECT_EQ(v, same ? changed : defaults.Params(other.name).at(k)) << rule.name << "." << name << " -> "
                                                                          << other.name << "." << k;
        }
      }
    }
  }
  EXPECT_GT(params, 50u);
}

TEST(CheckConfig, TypedFieldsAreWhatTheRulesRead) {
  StatusOr<CheckConfig> c = CheckConfig::FromJson(R"({"dead_relu": {"window": 3, "max_zero_share": 0.25},
                                                      "lp_overflow": {"min_numel": 8}})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->activations.dead_relu.window, 3);
  EXPECT_EQ(c->activations.dead_relu.max_zero_share, 0.25);
  EXPECT_EQ(c->low_precision.lp_overflow.min_numel, 8);
  // The rule uses them: a dead layer fires after 3 records, not 10.
  Checker k(*c);
  for (int64_t s = 0; s < 3; ++s) {
    k.Add(Rec(s, "relu1", Role::kActivation, std::vector<float>(64, 0.0f), {8, 8}, "ReLU"));
    k.EndStep(s);
  }
  ASSERT_EQ(k.findings().size(), 1u) << Dump(k);
  EXPECT_EQ(k.findings()[0].step, 2);
}

TEST(CheckConfig, MisspeltParameterOrRuleIsNamed) {
  StatusOr<CheckConfig> r = CheckConfig::FromJson(R"({"diverging_loss": {"facter": 3}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'diverging_loss' has no parameter 'facter'"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("factor"), std::string::npos) << r.status().message();
  // A string value for a misspelt name is still reported as the misspelling.
  r = CheckConfig::FromJson(R"({"diverging_loss": {"facter": "3"}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no parameter 'facter'"), std::string::npos) << r.status().message();
  r = CheckConfig::FromJson(R"({"diverging_los": {"factor": 3}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown rule 'diverging_los'"), std::string::npos);
  EXPECT_NE(r.status().message().find("diverging_loss"), std::string::npos);  // the known ones listed
  r = CheckConfig::FromJson(R"({"nonfinite": {"window": 3}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("it has none"), std::string::npos);
}

TEST(CheckConfig, ValuesOfTheWrongKindOrRangeAreRefused) {
  CheckConfig c = CheckConfig::Defaults();
  Status s = c.Set("dead_relu", "window", 2.5);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("expected an integer"), std::string::npos) << s.message();
  s = c.Set("dead_relu", "window", 0);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("outside [1,"), std::string::npos) << s.message();
  EXPECT_FALSE(c.Set("dead_relu", "max_zero_share", 1.5).ok());
  EXPECT_FALSE(c.Set("lp_snr", "roles", 32).ok());
  EXPECT_FALSE(c.Set("zero_loss", "epsilon", NAN).ok());
  EXPECT_EQ(c.activations.dead_relu.window, 10);  // nothing changed
  // A file with one bad entry changes nothing.
  s = c.Merge(R"({"zero_loss": {"epsilon": 1}, "dead_relu": {"window": -1}})");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(c.loss.zero_loss.epsilon, 1e-12);
}

TEST(Checker, NonFiniteFiresOnceWhileItHoldsAndAgainAfterClearing) {
  Checker c;
  auto step = [&](int64_t s, bool bad) {
    std::vector<float> g = Normal(64, 1e-2f, 7);
    if (bad) g[3] = NAN, g[5] = INFINITY;
    c.Add(Rec(s, "fc1.weight", Role::kWeightGrad, g, {8, 8}));
    return c.EndStep(s);
  };
  EXPECT_EQ(Rules(step(0, false)), std::vector<std::string>{});
  std::vector<Finding> f = step(1, true);
  ASSERT_EQ(Rules(f), std::vector<std::string>{"nonfinite"});
  EXPECT_EQ(f[0].step, 1);
  EXPECT_EQ(f[0].tensor, "fc1.weight");
  EXPECT_EQ(f[0].evidence.at("nans"), 1);
  EXPECT_EQ(f[0].evidence.at("infs"), 1);
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_TRUE(step(2, true).empty());  // still holds: no repeat
  EXPECT_TRUE(step(3, false).empty());
  EXPECT_EQ(Rules(step(4, true)), std::vector<std::string>{"nonfinite"});
  EXPECT_EQ(c.findings().size(), 2u);
}

TEST(Checker, NonFiniteLoss) {
  Checker c;
  c.Add(ScalarRecord{0, "loss", NAN});
  EXPECT_EQ(Rules(c.EndStep(0)), std::vector<std::string>{"nonfinite"});
}

TEST(Checker, ZeroAndNegativeLoss) {
  Checker c;
  c.Add(ScalarRecord{0, "loss", 0.0});
  EXPECT_EQ(Rules(c.EndStep(0)), std::vector<std::string>{"zero_loss"});
  c.Add(ScalarRecord{1, "loss", -0.5});
  EXPECT_EQ(Rules(c.EndStep(1)), std::vector<std::string>{"negative_loss"});
}

TEST(Checker, LossNotDecreasing) {
  Checker c;
  for (int64_t s = 0; s < 70; ++s) {
    c.Add(ScalarRecord{s, "loss", 2.30 + 0.01 * ((s % 2) ? 1 : -1)});
    c.EndStep(s);
  }
  ASSERT_TRUE(Fired(c, "loss_not_decreasing")) << Dump(c);
  // A line through the last 10 windows (50 steps): the first step it can fire is 49.
  EXPECT_EQ(c.findings()[0].step, 49);
  EXPECT_FALSE(Fired(c, "diverging_loss"));
  EXPECT_FALSE(Fired(c, "fluctuating_loss"));
}

// Issue 10's false alarms and misses, as synthetic streams.
std::vector<double> NoisyLoss(int steps, const std::function<double(int)>& mean, double noise, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(0, noise);
  std::vector<double> v;
  for (int s = 0; s < steps; ++s) v.push_back(mean(s) * (1 + d(rng)));
  return v;
}

Checker FeedLosses(const std::vector<double>& losses) {
  Checker c;
  for (size_t s = 0; s < losses.size(); ++s) {
    c.Add(ScalarRecord{static_cast<int64_t>(s), "loss", losses[s]});
    c.EndStep(static_cast<int64_t>(s));
  }
  return c;
}

TEST(CheckerIssue10, SlowSteadyDescentIsNotAStall) {
  // 0.93 -> 0.68 in 64 steps (~2.4% per 5 steps) with 3% noise, then on to 120 steps.
  Checker c = FeedLosses(NoisyLoss(120, [](int s) { return 0.93 * std::exp(-0.0049 * s); }, 0.03, 5));
  EXPECT_FALSE(Fired(c, "loss_not_decreasing")) << Dump(c);
}

TEST(CheckerIssue10, EarlyPlateauIsNotAStall) {
  // 40 steps at chance level, then a descent.
  Checker c = FeedLosses(NoisyLoss(
      150, [](int s) { return s < 40 ? 2.30 : 0.2 + 2.1 * std::exp(-0.04 * (s - 40)); }, 0.01, 6));
  EXPECT_FALSE(Fired(c, "loss_not_decreasing")) << Dump(c);
}

TEST(CheckerIssue10, ExplosionInTheFirstStepsIsDivergence) {
  Checker c;
  const double losses[] = {5, 4e6, 1e34, INFINITY};
  for (int64_t s = 0; s < 4; ++s) {
    c.Add(ScalarRecord{s, "loss", losses[s]});
    c.EndStep(s);
  }
  ASSERT_TRUE(Fired(c, "diverging_loss")) << Dump(c);
  EXPECT_EQ(c.findings()[0].step, 1);
  EXPECT_EQ(c.findings()[0].evidence.at("loss"), 4e6);
  // Noise of a healthy run (x2 jumps) is not a jump.
  Checker h = FeedLosses(NoisyLoss(100, [](int s) { return 2.3 * std::exp(-0.02 * s); }, 0.3, 7));
  EXPECT_FALSE(Fired(h, "diverging_loss")) << Dump(h);
}

TEST(CheckerIssue10, TinyUpdatesAfterConvergenceAreNotUnstable) {
  // Adam late in training: ratios 1e-2 for 30 steps, then 1e-6 as the first moment averages out.
  Checker late;
  for (int64_t s = 0; s < 60; ++s) {
    late.Add(ScalarRecord{s, "update_ratio/fc1.weight", s < 30 ? 1e-2 : 1e-6});
    late.EndStep(s);
  }
  EXPECT_FALSE(Fired(late, "unstable_learning")) << Dump(late);
  // Tiny from the start (learning rate 1e-5): fires at the first full window.
  Checker stuck;
  for (int64_t s = 0; s < 20; ++s) {
    stuck.Add(ScalarRecord{s, "update_ratio/fc1.weight", 1e-6});
    stuck.EndStep(s);
  }
  ASSERT_TRUE(Fired(stuck, "unstable_learning")) << Dump(stuck);
  EXPECT_EQ(stuck.findings()[0].step, 9);
}

// A small-initialized head under SGD with momentum: |w| grows 0.01 -> 0.1
// over the first steps, |dw|/|w| starts near 1 and falls.
void FeedSmallHead(Checker* c, bool loss_falls) {
  for (int64_t s = 0; s < 12; ++s) {
    const float scale = 0.01f * (1.0f + 0.8f * static_cast<float>(s));
    c->Add(Rec(s, "out.weight", Role::kWeight, Normal(256, scale, 3), {16, 16}));
    c->Add(ScalarRecord{s, "update_ratio/out.weight", 0.8 / (1.0 + 0.8 * static_cast<double>(s))});
    c->Add(ScalarRecord{s, "loss", loss_falls ? 2.3 - 0.1 * static_cast<double>(s) : 2.3 + 0.1 * static_cast<double>(s)});
    c->EndStep(s);
  }
}

TEST(CheckerIssue10, LargeRatioOfAGrowingSmallHeadIsNotUnstable) {
  Checker healthy;
  FeedSmallHead(&healthy, true);
  EXPECT_FALSE(Fired(healthy, "unstable_learning")) << Dump(healthy);
  // The same ratios while the loss rises: unstable.
  Checker rising;
  FeedSmallHead(&rising, false);
  ASSERT_TRUE(Fired(rising, "unstable_learning")) << Dump(rising);
  EXPECT_NE(rising.findings().back().message.find("large"), std::string::npos);
}

TEST(CheckerIssue10, ZeroGradientBiasIsRedundantNotUntrained) {
  // A Linear bias before BatchNorm: unchanged, gradient exactly 0, loss moving.
  auto run = [](bool loss_moves) {
    Checker c;
    const std::vector<float> bias = Normal(16, 0.1f, 4);
    for (int64_t s = 0; s < 4; ++s) {
      c.Add(Rec(s, "fc1.bias", Role::kWeight, bias, {16}));
      c.Add(Rec(s, "fc1.bias", Role::kWeightGrad, std::vector<float>(16, 0.0f), {16}));
      c.Add(ScalarRecord{s, "loss", loss_moves ? 2.3 - 0.05 * static_cast<double>(s) : 0.0});
      c.EndStep(s);
    }
    return c;
  };
  Checker bn = run(true);
  ASSERT_TRUE(Fired(bn, "redundant_parameter")) << Dump(bn);
  EXPECT_FALSE(Fired(bn, "untrained_parameter")) << Dump(bn);
  EXPECT_EQ(bn.findings()[0].severity, Severity::kInfo);
  // The whole loss constant (ce - ce): nothing trains; untrained_parameter.
  Checker dead = run(false);
  EXPECT_TRUE(Fired(dead, "untrained_parameter")) << Dump(dead);
  EXPECT_FALSE(Fired(dead, "redundant_parameter")) << Dump(dead);
}

TEST(CheckerIssue10, SteadyWeightGrowthIsDivergence) {
  // Wrong-sign weight decay: p75|w| x16 over 600 steps, no fast growth anywhere.
  Checker c;
  for (int64_t s = 0; s < 600; s += 2) {
    const float scale = 0.05f * std::pow(16.0f, static_cast<float>(s) / 600.0f);
    c.Add(Rec(s, "fc1.weight", Role::kWeight, Normal(256, scale, 8), {16, 16}));
    c.EndStep(s);
  }
  ASSERT_TRUE(Fired(c, "diverging_parameters")) << Dump(c);
  EXPECT_NE(c.findings()[0].message.find("steadily"), std::string::npos);
  EXPECT_LE(c.findings()[0].step, 260);
  // A small initialization growing to its working scale and leveling off
  // (x10) while the loss falls.
  auto small_init = [](bool loss_falls) {
    Checker h;
    for (int64_t s = 0; s < 600; s += 2) {
      const float scale = 0.01f + 0.09f * (1.0f - std::exp(-static_cast<float>(s) / 60.0f));
      h.Add(Rec(s, "out.weight", Role::kWeight, Normal(256, scale, 9), {16, 16}));
      h.Add(ScalarRecord{s, "loss", loss_falls ? 2.3 * std::exp(-static_cast<double>(s) / 100.0) : 2.3});
      h.EndStep(s);
    }
    return h;
  };
  Checker h = small_init(true);
  EXPECT_FALSE(Fired(h, "diverging_parameters")) << Dump(h);
  // The same fast growth with a loss that does not fall: the window rule.
  Checker flat = small_init(false);
  EXPECT_TRUE(Fired(flat, "diverging_parameters")) << Dump(flat);
}

TEST(Checker, DivergingLoss) {
  Checker c;
  for (int64_t s = 0; s < 40; ++s) {
    c.Add(ScalarRecord{s, "loss", s < 20 ? 2.0 - 0.05 * s : 1.0 * std::pow(1.3, s - 20)});
    c.EndStep(s);
  }
  EXPECT_TRUE(Fired(c, "diverging_loss")) << Dump(c);
}

TEST(Checker, FluctuatingLoss) {
  Checker c;
  for (int64_t s = 0; s < 60; ++s) {
    c.Add(ScalarRecord{s, "loss", (s % 2) ? 4.0 : 1.0});
    c.EndStep(s);
  }
  ASSERT_TRUE(Fired(c, "fluctuating_loss")) << Dump(c);
  EXPECT_EQ(c.findings()[0].step, 50);  // the first step with 50 changes behind it
}

TEST(Checker, UntrainedParameter) {
  Checker c;
  std::vector<float> w = Normal(64, 0.1f, 9);
  for (int64_t s = 0; s < 3; ++s) {
    c.Add(Rec(s, "fc1.weight", Role::kWeight, w, {8, 8}));
    std::vector<Finding> f = c.EndStep(s);
    if (s < 2) {
      EXPECT_TRUE(f.empty());
    } else {
      EXPECT_EQ(Rules(f), std::vector<std::string>{"untrained_parameter"});
    }
  }
}

TEST(Checker, PoorInitializationConstantAndTinyVariance) {
  Checker c;
  c.Add(Rec(0, "fc1.weight", Role::kWeight, std::vector<float>(64, 0.5f), {8, 8}));
  c.Add(Rec(0, "fc2.weight", Role::kWeight, Normal(64, 1e-4f, 1), {8, 8}));
  c.Add(Rec(0, "fc2.bias", Role::kWeight, std::vector<float>(8, 0.0f), {8}));  // 1-D: not judged
  c.Add(Rec(0, "head.weight", Role::kWeight, Normal(64, 0.1f, 2), {8, 8}));
  std::vector<Finding> f = c.EndStep(0);
  ASSERT_EQ(Rules(f), (std::vector<std::string>{"poor_initialization", "poor_initialization"}));
  EXPECT_EQ(f[0].tensor, "fc1.weight");
  EXPECT_NE(f[0].message.find("symmetry"), std::string::npos);
  EXPECT_EQ(f[1].tensor, "fc2.weight");
}

TEST(Checker, PoorInitializationJudgesInitialWeightsOnce) {
  Checker c;
  c.AddInitialWeight(Rec(0, "fc1.weight", Role::kWeight, std::vector<float>(64, 0.5f), {8, 8}));
  c.Add(Rec(0, "fc1.weight", Role::kWeight, Normal(64, 0.1f, 1), {8, 8}));  // after the update
  EXPECT_EQ(Rules(c.EndStep(0)), std::vector<std::string>{"poor_initialization"});
  c.Add(Rec(1, "fc1.weight", Role::kWeight, std::vector<float>(64, 0.5f), {8, 8}));
  EXPECT_TRUE(c.EndStep(1).empty());
}

TEST(Checker, DivergingParameters) {
  Checker c;
  for (int64_t s = 0; s < 6; ++s) {
    c.Add(Rec(s, "fc1.weight", Role::kWeight, Normal(256, 0.1f * std::pow(1.5f, s), 2), {16, 16}));
    c.EndStep(s);
  }
  ASSERT_TRUE(Fired(c, "diverging_parameters")) << Dump(c);
  EXPECT_EQ(c.findings().back().step, 4);  // 1.5^4 = 5.1 > 2 over a window of 5
  Checker big;
  big.Add(Rec(0, "fc1.bias", Role::kWeight, std::vector<float>(8, 3e8f), {8}));
  EXPECT_EQ(Rules(big.EndStep(0)), std::vector<std::string>{"diverging_parameters"});
}

TEST(Checker, UnstableLearningHighAndLow) {
  Checker c;
  for (int64_t s = 0; s < 10; ++s) {
    c.Add(ScalarRecord{s, "update_ratio/fc1.weight", 0.5});
    c.Add(ScalarRecord{s, "update_ratio/fc2.weight", 1e-6});
    c.Add(ScalarRecord{s, "update_ratio/fc3.weight", 1e-2});
    std::vector<Finding> f = c.EndStep(s);
    if (s < 9) {
      EXPECT_TRUE(f.empty());
    }
  }
  ASSERT_EQ(c.findings().size(), 2u) << Dump(c);
  EXPECT_EQ(c.findings()[0].tensor, "fc1.weight");
  EXPECT_NEAR(c.findings()[0].evidence.at("mean_log10_update_ratio"), std::log10(0.5), 1e-12);
  EXPECT_EQ(c.findings()[1].tensor, "fc2.weight");
}

TEST(Checker, ActivationOutOfRange) {
  Checker c;
  c.Add(Rec(0, "sig", Role::kActivation, {0.1f, 0.5f, 1.5f}, {3}, "Sigmoid"));
  c.Add(Rec(0, "relu", Role::kActivation, {0.0f, -0.5f, 1.5f}, {3}, "ReLU"));
  c.Add(Rec(0, "tanh", Role::kActivation, {-0.9f, 0.5f}, {2}, "Tanh"));
  c.Add(Rec(0, "lin", Role::kActivation, {-9.0f, 9.0f}, {2}, "Linear"));
  std::vector<Finding> f = c.EndStep(0);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].tensor, "sig");
  EXPECT_EQ(f[1].tensor, "relu");
}

TEST(Checker, SaturationAndDeadRelu) {
  Checker c;
  for (int64_t s = 0; s < 10; ++s) {
    std::vector<float> sat = Normal(1000, 20.0f, s);
    for (float& v : sat) v = std::tanh(v);
    std::vector<float> dead = Normal(1000, 1.0f, s, -3.0f);
    for (float& v : dead) v = std::max(v, 0.0f);
    c.Add(Rec(s, "tanh1", Role::kActivation, sat, {1000}, "Tanh"));
    c.Add(Rec(s, "relu1", Role::kActivation, dead, {1000}, "ReLU"));
    c.EndStep(s);
  }
  ASSERT_EQ(c.findings().size(), 2u) << Dump(c);
  EXPECT_EQ(c.findings()[0].rule, "activation_saturation");
  EXPECT_GT(c.findings()[0].evidence.at("rho_b"), 0.95);
  EXPECT_EQ(c.findings()[0].step, 9);  // a full buffer of 10 records
  EXPECT_EQ(c.findings()[1].rule, "dead_relu");
  EXPECT_GT(c.findings()[1].evidence.at("zero_share"), 0.99);
  EXPECT_EQ(c.findings()[1].evidence.at("per_neuron"), 0);  // no summaries: whole-layer fallback
}

TEST(Checker, SaturationRhoOfUniformTanhIsHalf) {
  // g uniform in [-1, 1]: rho_B = mean |g| = 0.5 (within the histogram's bin error).
  CheckConfig cfg = CheckConfig::Defaults();
  ASSERT_TRUE(cfg.Set("activation_saturation", "window", 1).ok());
  ASSERT_TRUE(cfg.Set("activation_saturation", "max_rho", 0.0).ok());
  Checker c(cfg);
  std::vector<float> u(10001);
  for (size_t i = 0; i < u.size(); ++i) u[i] = -1.0f + 2.0f * static_cast<float>(i) / 10000.0f;
  c.Add(Rec(0, "t", Role::kActivation, u, {10001}, "Tanh"));
  std::vector<Finding> f = c.EndStep(0);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(f[0].evidence.at("rho_b"), 0.5, 0.5 * TensorStats::kQuantileRelativeError);
}

// --- per-neuron summaries and rules ---

// A record of `x` (shape `shape`) with its per-neuron summary.
TensorRecord NeuronRec(int64_t step, const std::string& name, const std::vector<float>& x,
                       std::vector<int64_t> shape, const std::string& type) {
  TensorRecord r = Rec(step, name, Role::kActivation, x, shape, type);
  r.neurons = SummarizeNeurons(x.data(), r.shape, type, 1e-5);
  return r;
}

TEST(Neurons, SummaryCountsPerNeuron) {
  // [3, 2]: neuron 0 = {0, 1e-6, 2}, neuron 1 = {5, NaN, 0}.
  const std::vector<float> relu = {0.0f, 5.0f, 1e-6f, NAN, 2.0f, 0.0f};
  std::optional<NeuronSummary> s = SummarizeNeurons(relu.data(), {3, 2}, "ReLU", 1e-5);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->axis, 1);
  EXPECT_EQ(s->count, (std::vector<uint32_t>{3, 2}));
  EXPECT_EQ(s->near_zero, (std::vector<uint32_t>{2, 1}));
  EXPECT_TRUE(s->bin_count.empty());
  // Sigmoid [2, 1]: g = 2y - 1 = -1 (bin 0) and 0.9 (bin 9).
  const std::vector<float> sig = {0.0f, 0.95f};
  s = SummarizeNeurons(sig.data(), {2, 1}, "Sigmoid", 0);
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->bin_count.size(), 10u);
  EXPECT_EQ(s->bin_count[0], 1u);
  EXPECT_EQ(s->bin_count[9], 1u);
  EXPECT_FLOAT_EQ(s->bin_sum[0], -1.0f);
  EXPECT_NEAR(s->bin_sum[9], 0.9f, 1e-6);
  // Conv [N, C, H, W] = [2, 3, 2, 2]: neurons are the 3 channels, 8 values each.
  std::vector<float> conv(24);
  for (size_t i = 0; i < conv.size(); ++i) conv[i] = static_cast<float>((i / 4) % 3);  // channel index
  s = SummarizeNeurons(conv.data(), {2, 3, 2, 2}, "relu", 1e-5);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->axis, 1);
  EXPECT_EQ(s->count, (std::vector<uint32_t>{8, 8, 8}));
  EXPECT_EQ(s->near_zero, (std::vector<uint32_t>{8, 0, 0}));
  // Other types, scalars: nothing.
  EXPECT_FALSE(SummarizeNeurons(relu.data(), {3, 2}, "Linear", 1e-5).has_value());
  EXPECT_FALSE(SummarizeNeurons(relu.data(), {}, "ReLU", 1e-5).has_value());
  EXPECT_EQ(NeuronAxis({7}), 0);
  EXPECT_EQ(NeuronAxis({4, 5, 6}), 2);
  EXPECT_STREQ(NeuronRuleFor("Tanh"), "activation_saturation");
  EXPECT_STREQ(NeuronRuleFor("ReLU6"), "dead_relu");
  EXPECT_EQ(NeuronRuleFor("LeakyReLU"), nullptr);
}

// A [rows, 10] ReLU output: neurons 0..dead-1 always 0; the others 0 in
// `live_zero` of the rows (exactly), positive otherwise.
std::vector<float> ReluNeurons(int rows, int dead, double live_zero) {
  std::vector<float> x(static_cast<size_t>(rows) * 10);
  for (int i = 0; i < rows; ++i) {
    for (int n = 0; n < 10; ++n) {
      const bool zero = n < dead || i < static_cast<int>(live_zero * rows);
      x[static_cast<size_t>(i) * 10 + n] = zero ? 0.0f : 0.5f + 0.01f * static_cast<float>(i);
    }
  }
  return x;
}

TEST(Checker, DeadReluPerNeuronCountsDeadNeurons) {
  // 6 of 10 neurons dead, the live ones at 0 for 30% of the inputs: the
  // layer's zero share is 0.6 + 0.4 * 0.3 = 0.72, under the layer-level
  // fallback's 0.85, but 60% of the neurons are dead (> 50%).
  Checker per_neuron, per_layer;
  for (int64_t s = 0; s < 10; ++s) {
    const std::vector<float> x = ReluNeurons(40, 6, 0.3);
    per_neuron.Add(NeuronRec(s, "relu1", x, {40, 10}, "ReLU"));
    per_layer.Add(Rec(s, "relu1", Role::kActivation, x, {40, 10}, "ReLU"));
    per_neuron.EndStep(s);
    per_layer.EndStep(s);
  }
  ASSERT_EQ(per_neuron.findings().size(), 1u) << Dump(per_neuron);
  const Finding& f = per_neuron.findings()[0];
  EXPECT_EQ(f.rule, "dead_relu");
  EXPECT_EQ(f.step, 9);
  EXPECT_EQ(f.evidence.at("dead_neurons"), 6);
  EXPECT_EQ(f.evidence.at("neurons"), 10);
  EXPECT_DOUBLE_EQ(f.evidence.at("dead_share"), 0.6);
  EXPECT_NEAR(f.evidence.at("zero_share"), 0.72, 1e-12);
  EXPECT_EQ(f.evidence.at("per_neuron"), 1);
  EXPECT_TRUE(per_layer.findings().empty()) << Dump(per_layer);
  // 5 of 10 dead is not more than half: silent.
  Checker half;
  for (int64_t s = 0; s < 10; ++s) {
    half.Add(NeuronRec(s, "relu1", ReluNeurons(40, 5, 0.0), {40, 10}, "ReLU"));
    half.EndStep(s);
  }
  EXPECT_TRUE(half.findings().empty()) << Dump(half);
}

TEST(Checker, DeadReluPerNeuronUsesTheWholeWindow) {
  // A neuron at 0 for 9 of 10 records (90% < 95%) is not dead; at 0 for all
  // 10, it is. 8 neurons: all of them zero except at one step for 4 of them.
  auto run = [](int alive_at) {
    Checker c;
    for (int64_t s = 0; s < 10; ++s) {
      std::vector<float> x(8 * 8, 0.0f);
      if (s == alive_at) {
        for (int i = 0; i < 8; ++i) {
          for (int n = 0; n < 4; ++n) x[static_cast<size_t>(i) * 8 + n] = 1.0f;
        }
      }
      c.Add(NeuronRec(s, "relu", x, {8, 8}, "ReLU"));
      c.EndStep(s);
    }
    return c.findings();
  };
  std::vector<Finding> f = run(3);  // 4 of 8 dead: 50%, not > 50%
  EXPECT_TRUE(f.empty());
  f = run(-1);                      // all 8 dead
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].evidence.at("dead_neurons"), 8);
}

TEST(Checker, SaturationPerNeuronRhoB) {
  // Tanh [200, 10]: neurons 0..5 at +-0.99 (rho_B 0.99), neurons 6..9
  // uniform in [-1, 1] (rho_B = mean |g| = 0.5): 60% saturated.
  std::vector<float> x(200 * 10);
  for (int i = 0; i < 200; ++i) {
    for (int n = 0; n < 10; ++n) {
      x[static_cast<size_t>(i) * 10 + n] =
          n < 6 ? (i % 2 ? 0.99f : -0.99f) : -1.0f + 2.0f * (static_cast<float>(i) + 0.5f) / 200.0f;
    }
  }
  Checker c;
  for (int64_t s = 0; s < 10; ++s) {
    c.Add(NeuronRec(s, "tanh1", x, {200, 10}, "Tanh"));
    c.EndStep(s);
  }
  ASSERT_EQ(c.findings().size(), 1u) << Dump(c);
  const Finding& f = c.findings()[0];
  EXPECT_EQ(f.rule, "activation_saturation");
  EXPECT_EQ(f.step, 9);
  EXPECT_EQ(f.evidence.at("saturated_neurons"), 6);
  EXPECT_DOUBLE_EQ(f.evidence.at("saturated_share"), 0.6);
  EXPECT_NEAR(f.evidence.at("rho_b"), 0.6 * 0.99 + 0.4 * 0.5, 1e-5);  // the layer's pooled rho_B
  EXPECT_EQ(f.evidence.at("per_neuron"), 1);
  // Known answer for one neuron: uniform g gives rho_B = 0.5, exactly (bins split at 0).
  CheckConfig cfg = CheckConfig::Defaults();
  ASSERT_TRUE(cfg.Set("activation_saturation", "window", 1).ok());
  ASSERT_TRUE(cfg.Set("activation_saturation", "max_rho", 0.0).ok());
  ASSERT_TRUE(cfg.Set("activation_saturation", "max_saturated_neurons", 0.0).ok());
  Checker one(cfg);
  std::vector<float> u(1000);
  for (size_t i = 0; i < u.size(); ++i) u[i] = -1.0f + 2.0f * (static_cast<float>(i) + 0.5f) / 1000.0f;
  one.Add(NeuronRec(0, "t", u, {1000, 1}, "Tanh"));
  std::vector<Finding> g = one.EndStep(0);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_NEAR(g[0].evidence.at("rho_b"), 0.5, 1e-6);
}

TEST(Checker, PerNeuronWindowRestartsWhenTheLayerChangesShape) {
  Checker c;
  for (int64_t s = 0; s < 10; ++s) {
    const int64_t width = s < 5 ? 10 : 12;
    std::vector<float> x(static_cast<size_t>(4 * width), 0.0f);
    c.Add(NeuronRec(s, "relu", x, {4, width}, "ReLU"));
    c.EndStep(s);
  }
  EXPECT_TRUE(c.findings().empty());  // only 5 records of the 12-wide layer
}

TEST(Checker, VanishingAndExplodingGradients) {
  Checker c;
  c.Add(Rec(0, "fc1.weight", Role::kWeightGrad, Normal(256, 1e-9f, 1), {16, 16}));
  c.Add(Rec(0, "fc2.weight", Role::kWeightGrad, Normal(256, 1e-2f, 2), {16, 16}));
  std::vector<Finding> f = c.EndStep(0);
  ASSERT_EQ(Rules(f), (std::vector<std::string>{"vanishing_gradient", "vanishing_gradient"}));
  EXPECT_EQ(f[0].tensor, "fc1.weight");  // median
  EXPECT_EQ(f[1].tensor, "fc1.weight");  // first/last ratio
  EXPECT_NEAR(f[1].evidence.at("ratio"), 1e-7, 2e-8);

  Checker e;
  for (int64_t s = 0; s < 3; ++s) {
    e.Add(Rec(s, "fc1.weight", Role::kWeightGrad, Normal(256, 100.0f, 1), {16, 16}));
    e.Add(Rec(s, "fc2.weight", Role::kWeightGrad, Normal(256, 1.0f, 2), {16, 16}));
    std::vector<Finding> g = e.EndStep(s);
    EXPECT_EQ(g.empty(), s < 2) << s;  // patience 3
  }
  Checker huge;
  huge.Add(Rec(0, "fc1.weight", Role::kWeightGrad, Normal(64, 1e7f, 1), {8, 8}));
  EXPECT_EQ(Rules(huge.EndStep(0)), std::vector<std::string>{"exploding_gradient"});
}

TEST(Checker, LowPrecisionUnderflowAndOverflow) {
  Checker c, grad;  // grad: a gradient 10^12 above fc1.weight's would make that one residue
  std::vector<Finding> f;
  for (int64_t s = 0; s < 3; ++s) {
    // e5m2's smallest subnormal is 2^-16 ~ 1.5e-5: gradients ~1e-6 flush.
    c.Add(Rec(s, "fc1.weight", Role::kWeightGrad, Normal(256, 1e-6f, 1), {16, 16}, "", {"e5m2", "bf16"}));
    // e4m3fn's max is 448: an unscaled activation in e4m3fn (NaN on
    // overflow) is judged at its first overflow, the same values clipped by a saturating
    // e4m3fn (1.2 binades above max) and a gradient (Inf: a skipped step
    // under loss scaling) once the overflow persists in 3 of the last 10
    // records.
    c.Add(Rec(s, "fc2", Role::kActivation, Normal(256, 1000.0f, 2), {16, 16}, "", {"e4m3fn"}));
    c.Add(Rec(s, "fc3", Role::kActivation, Normal(256, 1000.0f, 2), {16, 16}, "", {"e4m3fn:sat"}));
    grad.Add(Rec(s, "fc3.grad", Role::kActivationGrad, Normal(256, 1e6f, 3), {16, 16}, "", {"e5m2"}));
    std::vector<Finding> g = c.EndStep(s), h = grad.EndStep(s);
    g.insert(g.end(), h.begin(), h.end());
    std::vector<std::string> overflows;
    for (const Finding& x : g) {
      if (x.rule == "lp_overflow") overflows.push_back(x.tensor);
    }
    EXPECT_EQ(overflows, s == 0   ? std::vector<std::string>{"fc2"}
                         : s == 2 ? (std::vector<std::string>{"fc3", "fc3.grad"})
                                  : std::vector<std::string>{})
        << s;
    f.insert(f.end(), g.begin(), g.end());
  }
  std::vector<std::string> r = Rules(f);
  EXPECT_EQ(std::count(r.begin(), r.end(), "lp_underflow"), 1);  // e5m2 only, not bf16
  EXPECT_EQ(std::count(r.begin(), r.end(), "lp_overflow"), 3);
  for (const Finding& x : f) {
    if (x.rule == "lp_underflow") {
      EXPECT_EQ(x.tensor, "fc1.weight");
      EXPECT_GT(x.evidence.at("underflow_share"), 0.9);
      EXPECT_NE(x.message.find("[e5m2, none]"), std::string::npos);
    }
    if (x.rule == "lp_overflow") {
      EXPECT_GT(x.evidence.at("overflow_share"), 0.5);
    }
  }
}

// Delayed scaling's warm-up: three tensors overflow e4m3fn in their first
// records (scale 1, amax 1000). One lp_delayed_warmup warning for the recipe,
// no lp_overflow per tensor until the warm-up (16 records) ends; after it,
// a tensor that keeps overflowing is reported by lp_overflow.
TEST(Checker, DelayedWarmUpOverflowIsOneWarningAboutTheRecipe) {
  Checker c;
  std::vector<Finding> all;
  for (int64_t s = 0; s < 20; ++s) {
    for (const char* name : {"fc1", "fc2", "fc3"}) {
      c.Add(Rec(s, name, Role::kActivation, Normal(256, 1000.0f, 2), {16, 16}, "", {"e4m3fn"}, "delayed16", 1.0f));
    }
    std::vector<Finding> f = c.EndStep(s);
    for (const Finding& x : f) {
      if (x.rule == "lp_overflow") {
        // Record 17 (step 16) is the first after the warm-up; a scaled
        // tensor's overflow must persist (3 records), even in e4m3fn (NaN on
        // overflow): the scale follows amax after a step.
        EXPECT_EQ(s, 18) << "lp_overflow during the warm-up or late";
      }
    }
    all.insert(all.end(), f.begin(), f.end());
  }
  std::vector<std::string> r = Rules(all);
  ASSERT_EQ(std::count(r.begin(), r.end(), "lp_delayed_warmup"), 1) << Dump(c);
  for (const Finding& x : all) {
    if (x.rule == "lp_delayed_warmup") {
      EXPECT_EQ(x.severity, Severity::kWarning);
      EXPECT_EQ(x.step, 1);  // the first record is skipped, the second overflows
      EXPECT_TRUE(x.tensor.empty());
    }
  }
  EXPECT_EQ(std::count(r.begin(), r.end(), "lp_overflow"), 3);  // after the warm-up, per tensor
}

TEST(Checker, LowPrecisionSnrAndDynamicRange) {
  // Log-uniform magnitudes over 2^lo .. 2^10, unscaled (recipe none):
  // e4m3fn flushes what is below 2^-10 (half its smallest subnormal 2^-9),
  // e2m1fn what is below 2^-2.
  auto wide = [](float lo) {
    std::vector<float> x(3000);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::exp2(lo + (10.0f - lo) * static_cast<float>(i) / 3000.0f);
    return x;
  };
  auto fired = [](const std::vector<Finding>& f) {
    std::vector<std::string> formats;
    for (const Finding& g : f) {
      if (g.rule != "lp_dynamic_range") continue;
      formats.push_back(g.message.substr(1, g.message.find(',') - 1));
      EXPECT_GT(g.evidence.at("underflow_share"), 0.5);
      EXPECT_GT(g.evidence.at("spread_binades"), g.evidence.at("format_binades"));
    }
    return formats;
  };
  // 2^-40 .. 2^10: 60% of the values below 2^-10, 76% below 2^-2.
  Checker c;
  std::vector<float> x = wide(-40.0f);
  c.Add(Rec(0, "wide", Role::kActivation, x, {3000}, "", {"e4m3fn", "e2m1fn"}));
  EXPECT_EQ(fired(c.EndStep(0)), (std::vector<std::string>{"e4m3fn", "e2m1fn"}));
  // 2^-20 .. 2^10: 30 binades, more than e4m3fn's 17.8, but only a third
  // of the values flush there (the smallest: sparsity, not lost
  // information); e2m1fn still loses 73%.
  Checker third;
  third.Add(Rec(0, "wide", Role::kActivation, wide(-20.0f), {3000}, "", {"e4m3fn", "e2m1fn"}));
  EXPECT_EQ(fired(third.EndStep(0)), std::vector<std::string>{"e2m1fn"});
  // e2m1fn on Gaussian data: ~3 significant bits, SNR ~ 15 dB; require 20.
  // Gradients are not judged by lp_dynamic_range (their tiny values carry
  // no energy; lp_underflow judges what a gradient loses).
  Checker grad;
  grad.Add(Rec(0, "wide", Role::kActivationGrad, x, {3000}, "", {"e4m3fn", "e2m1fn"}));
  for (const Finding& g : grad.EndStep(0)) EXPECT_NE(g.rule, "lp_dynamic_range");
  // lp_snr: activations and weights, in `records` (5) consecutive records;
  // the same gradient never.
  CheckConfig cfg = CheckConfig::Defaults();
  ASSERT_TRUE(cfg.Set("lp_snr", "min_snr_db", 20).ok());
  Checker s(cfg);
  for (int64_t step = 0; step < 6; ++step) {
    s.Add(Rec(step, "g", Role::kActivation, Normal(1000, 1.0f, 3), {1000}, "", {"e2m1fn", "bf16"}));
    s.Add(Rec(step, "dg", Role::kActivationGrad, Normal(1000, 1.0f, 3), {1000}, "", {"e2m1fn", "bf16"}));
    int snr = 0;
    for (const Finding& g : s.EndStep(step)) {
      snr += g.rule == "lp_snr";
      if (g.rule == "lp_snr") {
        EXPECT_EQ(g.tensor, "g");
      }
    }
    EXPECT_EQ(snr, step == 4 ? 1 : 0) << step;
  }
}

// lp_underflow speaks of the network: a finding when at least a quarter of
// the step's judged gradients lose most of their energy to flushing, in two
// consecutive steps (a network whose branches start at zero passes almost no
// gradient until its first update); the rounding residue of an exact zero
// (rms below 2^-16 of the step's largest) is not judged.
TEST(Checker, LowPrecisionUnderflowIsJudgedPerStep) {
  // e5m2's smallest subnormal is 2^-16 ~ 1.5e-5: gradients ~1e-6 flush,
  // gradients ~1e-2 keep their energy.
  auto step = [](Checker* c, int64_t s, int flushing, int fine, float big = 1e-2f) {
    for (int i = 0; i < fine; ++i) {
      c->Add(Rec(s, "ok" + std::to_string(i), Role::kWeightGrad, Normal(256, big, 10 + i), {256}, "", {"e5m2"}));
    }
    for (int i = 0; i < flushing; ++i) {
      c->Add(Rec(s, "tiny" + std::to_string(i), Role::kWeightGrad, Normal(256, 1e-6f, 20 + i), {256}, "", {"e5m2"}));
    }
    return c->EndStep(s);
  };
  Checker c;
  EXPECT_TRUE(step(&c, 0, 1, 4).empty());  // 1 of 5: one layer
  EXPECT_TRUE(step(&c, 1, 2, 3).empty());  // 2 of 5, the first step
  std::vector<Finding> f = step(&c, 2, 2, 3);  // ... and the second in a row
  ASSERT_EQ(Rules(f), std::vector<std::string>{"lp_underflow"});
  EXPECT_EQ(f[0].step, 2);
  EXPECT_EQ(f[0].tensor, "tiny0");
  EXPECT_DOUBLE_EQ(f[0].evidence.at("tensor_share"), 0.4);
  EXPECT_EQ(f[0].evidence.at("steps_in_a_row"), 2);
  EXPECT_GT(f[0].evidence.at("underflow_share"), 0.9);
  EXPECT_NE(f[0].message.find("2 of the step's 5 gradients"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("(2 steps in a row)"), std::string::npos) << f[0].message;
  // A step that flushes between two that do not: no streak, no finding.
  Checker gap;
  EXPECT_TRUE(step(&gap, 0, 2, 3).empty());
  EXPECT_TRUE(step(&gap, 1, 0, 5).empty());
  EXPECT_TRUE(step(&gap, 2, 2, 3).empty());
  EXPECT_EQ(Rules(step(&gap, 3, 2, 3)), std::vector<std::string>{"lp_underflow"});
  // A step whose gradients were not recorded (TrackerOptions::every)
  // neither extends nor breaks the streak, and repeats no finding.
  Checker sampled;
  EXPECT_TRUE(step(&sampled, 0, 2, 3).empty());
  EXPECT_TRUE(sampled.EndStep(1).empty());
  EXPECT_EQ(Rules(step(&sampled, 2, 2, 3)), std::vector<std::string>{"lp_underflow"});
  EXPECT_TRUE(sampled.EndStep(3).empty());
  EXPECT_TRUE(step(&sampled, 4, 2, 3).empty());  // the same finding, still open
  // steps 1: the first flushing step is a finding.
  CheckConfig one = CheckConfig::Defaults();
  ASSERT_TRUE(one.Set("lp_underflow", "steps", 1).ok());
  Checker at_once(one);
  f = step(&at_once, 0, 2, 3);
  ASSERT_EQ(Rules(f), std::vector<std::string>{"lp_underflow"});
  EXPECT_EQ(f[0].message.find("in a row"), std::string::npos) << f[0].message;  // one step is no streak
  // The same flushing gradient next to gradients 10^6 larger: residue.
  Checker r;
  EXPECT_TRUE(step(&r, 0, 1, 1, 1.0f).empty());
  EXPECT_TRUE(step(&r, 1, 1, 1, 1.0f).empty());
  Checker control;
  EXPECT_TRUE(step(&control, 0, 1, 1).empty());
  EXPECT_EQ(Rules(step(&control, 1, 1, 1)), std::vector<std::string>{"lp_underflow"});
}

// A parameter's gradient is residue against its module's output gradient
// (the terms its sum cancels), not against the step's largest gradient: in
// a deep net at small init the first layer's gradients are 10^7 below the
// last layer's and flush in fp16, which is a finding; a bias before
// BatchNorm, 10^-7 of its own module's output gradient, is residue.
TEST(Checker, LowPrecisionUnderflowResidueIsJudgedAgainstTheModuleOutput) {
  auto run = [](float out_grad, float param_grad) {
    Checker c;
    std::vector<std::string> rules;
    for (int64_t s = 0; s < 2; ++s) {  // lp_underflow's two steps in a row
      c.Add(Rec(s, "head.weight", Role::kWeightGrad, Normal(256, 1e-2f, 1), {256}, "", {"fp16"}));
      c.Add(Rec(s, "fc1", Role::kActivationGrad, Normal(256, out_grad, 2), {256}, "", {"e5m2"}, "current", 0.0f));
      c.Add(Rec(s, "fc1.weight", Role::kWeightGrad, Normal(256, param_grad, 3), {256}, "", {"fp16"}));
      c.Add(Rec(s, "fc1.bias", Role::kWeightGrad, Normal(16, param_grad, 4), {16}, "", {"fp16"}));
      std::vector<std::string> r = Rules(c.EndStep(s));
      rules.insert(rules.end(), r.begin(), r.end());
    }
    return rules;
  };
  // fp16's smallest subnormal is 2^-24 ~ 6e-8: gradients ~1e-9 flush.
  EXPECT_EQ(run(1e-10f, 1e-9f), std::vector<std::string>{"lp_underflow"});  // deep net
  EXPECT_TRUE(run(1e-2f, 1e-9f).empty());                                   // residue
  // No output gradient recorded: against the step's largest, as before
  // (1e-9 is below 2^-16 of 1e-2: residue).
  Checker none;
  for (int64_t s = 0; s < 2; ++s) {
    none.Add(Rec(s, "head.weight", Role::kWeightGrad, Normal(256, 1e-2f, 1), {256}, "", {"fp16"}));
    none.Add(Rec(s, "fc1.weight", Role::kWeightGrad, Normal(256, 1e-9f, 3), {256}, "", {"fp16"}));
    EXPECT_TRUE(none.EndStep(s).empty()) << s;
  }
}

// Gradients that flush once the loss has converged (the last 5 steps' mean
// at or below a quarter of the first 5 steps', the classic rules' gate): the
// training is done, not stalled. The same gradients while the loss is still
// high are a finding; so are they when the first window is not above 0 (no
// floor at 0 to judge by).
TEST(Checker, LowPrecisionUnderflowIsNotJudgedAfterConvergence) {
  // Steps 0..9 healthy gradients, from step 10 on every gradient flushes
  // (a finding at step 11, the second step in a row). Returns the step of
  // the first lp_underflow finding, or -1.
  auto run = [](const std::function<double(int64_t)>& loss) {
    Checker c;
    for (int64_t s = 0; s < 20; ++s) {
      const float scale = s < 10 ? 1e-2f : 1e-6f;
      c.Add(Rec(s, "g", Role::kWeightGrad, Normal(256, scale, 30 + static_cast<int>(s)), {256}, "", {"e5m2"}));
      c.Add(ScalarRecord{s, "loss", loss(s)});
      for (const Finding& f : c.EndStep(s)) {
        if (f.rule == "lp_underflow") return s;
      }
    }
    return int64_t{-1};
  };
  // 2.0 falling to 0.1 from step 5 on: converged by step 9 (0.1 <= 0.25 of
  // the first 5 steps' mean 1.4).
  EXPECT_EQ(run([](int64_t s) { return s < 5 ? 2.0 - 0.3 * static_cast<double>(s) : 0.1; }), -1);
  // Still at 0.6 of its start: stalled.
  EXPECT_EQ(run([](int64_t s) { return s < 5 ? 2.0 - 0.08 * static_cast<double>(s) : 1.2; }), 11);
  // A flat loss: judged.
  EXPECT_EQ(run([](int64_t) { return 1.0; }), 11);
  // The boundary: 0.26 of the start is judged, 0.25 is converged.
  EXPECT_EQ(run([](int64_t s) { return s < 5 ? 1.0 : 0.26; }), 11);
  EXPECT_EQ(run([](int64_t s) { return s < 5 ? 1.0 : 0.25; }), -1);
  // A first window whose mean is below 0: no floor, judged throughout.
  EXPECT_EQ(run([](int64_t s) { return s < 5 ? -1.0 : 0.01; }), 11);
  // No loss recorded: judged throughout.
  Checker none;
  std::vector<std::string> rules;
  for (int64_t s = 0; s < 12; ++s) {
    none.Add(Rec(s, "g", Role::kWeightGrad, Normal(256, s < 10 ? 1e-2f : 1e-6f, 50), {256}, "", {"e5m2"}));
    for (const Finding& f : none.EndStep(s)) rules.push_back(f.rule);
  }
  EXPECT_EQ(rules, std::vector<std::string>{"lp_underflow"});
}

// One activation gradient that flushes is not a finding by itself (a
// layer whose parameters reach the loss by another path trains on); with a
// rollout on the target that lags fp32's by more than a quarter of the
// stake, at the flush's step or later, it is: the flushing costs learning.
TEST(Checker, LowPrecisionUnderflowOfOneGradientConfirmedByARollout) {
  // Returns the lp_underflow and lp_rollout findings; the activation
  // gradient "attn" flushes in e5m2 (~1e-6, below its 2^-16) from step
  // `flush_from` on, beside four gradients that keep their energy.
  auto run = [](int64_t flush_from, double target_rollout, CheckConfig config = CheckConfig::Defaults()) {
    Checker c(config);
    std::vector<Finding> out;
    for (int64_t s = 0; s < 40; ++s) {
      for (int i = 0; i < 4; ++i) {
        c.Add(Rec(s, "ok" + std::to_string(i), Role::kWeightGrad, Normal(256, 1e-2f, 10 + i), {256}, "", {"e5m2"}));
      }
      const float attn = s >= flush_from ? 1e-6f : 1e-2f;
      c.Add(Rec(s, "attn", Role::kActivationGrad, Normal(256, attn, 20), {256}, "", {"e5m2"}));
      c.Add(ScalarRecord{s, "loss", 2.0});  // no gain so far: the rollout's own gain is at stake
      if (s % 8 == 0) {
        c.Add(ScalarRecord{s, "probe_loss", 2.0});
        c.Add(ScalarRecord{s, "rollout_loss", 1.0});  // fp32 gains 1.0
        c.Add(ScalarRecord{s, "rollout_loss:t", target_rollout});
      }
      for (Finding& f : c.EndStep(s)) {
        if (f.rule == "lp_underflow" || f.rule == "lp_rollout") out.push_back(f);
      }
    }
    return out;
  };
  // A lag of 0.3 of the stake: over a quarter on both scales (in orders the
  // most is 2^0.25 = 1.19), under lp_rollout's half (2^0.5 = 1.41).
  std::vector<Finding> f = run(12, 1.3);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "lp_underflow");
  EXPECT_EQ(f[0].tensor, "attn");
  EXPECT_EQ(f[0].step, 16);  // the first rollout after the flush
  EXPECT_EQ(f[0].evidence.at("flush_step"), 12);
  EXPECT_NEAR(f[0].evidence.at("allowed_loss"), std::pow(2.0, 0.25), 1e-12);
  EXPECT_GT(f[0].evidence.at("underflow_share"), 0.9);
  EXPECT_NE(f[0].message.find("on t [e5m2, none] activation_grad 'attn' loses over half its energy"),
            std::string::npos)
      << f[0].message;
  EXPECT_NE(f[0].message.find("25% of the 1 at stake"), std::string::npos) << f[0].message;
  // A rollout just over the allowance: the message tells the two apart
  // (4 digits, not "1.19 ... above 1.19").
  f = run(12, 1.1897);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("reach loss 1.19 where fp32 reaches 1: above 1.189,"), std::string::npos)
      << f[0].message;
  // The flush and the rollout at the same step count.
  f = run(16, 1.3);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].step, 16);
  // A rollout within a quarter (1.15 < 1.19), or no flush: nothing.
  EXPECT_TRUE(run(12, 1.15).empty());
  EXPECT_TRUE(run(1000, 1.3).empty());
  // Switched off.
  CheckConfig off = CheckConfig::Defaults();
  ASSERT_TRUE(off.Set("lp_underflow", "rollout_lag_share", 0).ok());
  EXPECT_TRUE(run(12, 1.3, off).empty());
}

// Saturating formats clip: lp_overflow only when amax lands more than a
// binade above max.
TEST(Checker, LowPrecisionOverflowOfSaturatingFormats) {
  auto run = [](const std::string& format, float outlier) {
    Checker c;
    std::vector<float> x(256, 1.0f);
    for (size_t i = 0; i < x.size(); i += 10) x[i] = outlier;  // 10%
    int n = 0;
    for (int64_t s = 0; s < 3; ++s) {
      c.Add(Rec(s, "fc2", Role::kActivation, x, {256}, "", {format}));
      for (const Finding& f : c.EndStep(s)) n += f.rule == "lp_overflow";
    }
    return n;
  };
  EXPECT_EQ(run("e4m3fn:sat", 600.0f), 0);   // 0.42 binades above 448
  EXPECT_EQ(run("e4m3fn", 600.0f), 1);       // NaN on overflow: judged as before
  EXPECT_EQ(run("e4m3fn:sat", 2000.0f), 1);  // 2.2 binades above
}

// lp_block_scale_flush on the exact counts of an NVFP4 cast: channel 0 of
// a [64, 64] activation at `outlier` times the rest.
TEST(Checker, LowPrecisionBlockScaleFlush) {
  auto run = [](float outlier, Role role, size_t rows, const std::string& recipe) {
    const size_t cols = 64;
    std::vector<float> x(rows * cols), out(x.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f + static_cast<float>(i % 5);
    for (size_t r = 0; r < rows; ++r) x[r * cols] = outlier;
    TensorRecord r = Rec(0, "act", role, x, {int64_t(rows), int64_t(cols)});
    const Format e2m1 = ParseFormat("e2m1fn:sat").value();
    CastCounts counts;
    simd::BlockQuantizeRef(e2m1, x.data(), rows, cols, BlockSpec::Parse("nvfp4").value(), {}, out.data(),
                           nullptr, &counts);
    r.formats.push_back({"e2m1fn:sat", recipe, 1.0f, counts});
    Checker c;
    c.Add(r);
    int n = 0;
    for (const Finding& f : c.EndStep(0)) n += f.rule == "lp_block_scale_flush";
    return std::make_pair(n, counts.flushed);
  };
  // 1e8: 3 of 4 blocks per row flush (75% of the values).
  EXPECT_EQ(run(1e8f, Role::kActivation, 64, "nvfp4"), std::make_pair(1, uint64_t{48 * 64}));
  EXPECT_EQ(run(1e8f, Role::kWeight, 64, "nvfp4").first, 1);
  EXPECT_EQ(run(1e4f, Role::kActivation, 64, "nvfp4"), std::make_pair(0, uint64_t{0}));  // no block flushes
  EXPECT_EQ(run(1e8f, Role::kActivationGrad, 64, "nvfp4").first, 0);  // a gradient: lp_underflow's
  EXPECT_EQ(run(1e8f, Role::kActivation, 8, "nvfp4").first, 0);       // 512 < min_numel
  // The same counts under a per-tensor recipe (FTZ flushes) are not judged.
  EXPECT_EQ(run(1e8f, Role::kActivation, 64, "current").first, 0);
}

TEST(Checker, LowPrecisionHeadroomPredictsTheStep) {
  Checker c;
  // amax doubles every 4 steps from 2^0: log2 amax = s / 4 reaches
  // log2(448) = 8.807 at step 35.2, predicted from the first 20 records.
  for (int64_t s = 0; s < 20; ++s) {
    std::vector<float> x = {std::exp2(static_cast<float>(s) / 4.0f), 0.5f};
    c.Add(Rec(s, "fc1", Role::kActivation, x, {2}, "", {"e4m3fn"}));
    std::vector<Finding> f = c.EndStep(s);
    if (s < 19) {
      EXPECT_TRUE(f.empty()) << Dump(c);
    }
  }
  ASSERT_EQ(c.findings().size(), 1u) << Dump(c);
  EXPECT_EQ(c.findings()[0].rule, "lp_headroom");
  EXPECT_EQ(c.findings()[0].evidence.at("predicted_step"), 36);
  EXPECT_NEAR(c.findings()[0].evidence.at("slope_binades_per_step"), 0.25, 1e-6);
}

TEST(Checker, LowPrecisionStaleDelayedScale) {
  Checker c;
  for (int64_t s = 0; s < 33; ++s) {  // the first delayed record is skipped (no history)
    std::vector<float> x = {s % 2 ? 4.0f : 1.0f, 0.25f};
    c.Add(Rec(s, "fc1", Role::kActivation, x, {2}, "", {"e4m3fn"}, "delayed16", 2.0f));
    c.EndStep(s);
  }
  ASSERT_TRUE(Fired(c, "lp_stale_scaling")) << Dump(c);
  EXPECT_EQ(c.findings().back().step, 32);
}

TEST(Checker, ConfigFromJsonOverridesAndDisables) {
  StatusOr<CheckConfig> cfg = CheckConfig::FromJson(
      R"({"zero_loss": {"enabled": false}, "negative_loss": {"policy": "stop", "severity": "info", "epsilon": 1}})");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  Checker c(*cfg);
  EXPECT_EQ(c.PolicyFor("negative_loss"), Policy::kStop);
  EXPECT_EQ(c.PolicyFor("zero_loss"), Policy::kWarn);
  c.Add(ScalarRecord{0, "loss", 0.0});
  EXPECT_TRUE(c.EndStep(0).empty());
  c.Add(ScalarRecord{1, "loss", -0.5});  // within epsilon 1
  EXPECT_TRUE(c.EndStep(1).empty());
  c.Add(ScalarRecord{2, "loss", -1.5});
  std::vector<Finding> f = c.EndStep(2);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  // Round trip.
  StatusOr<CheckConfig> again = CheckConfig::FromJson(cfg->ToJson());
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_FALSE(again->rules.at("zero_loss").enabled);
  EXPECT_EQ(again->loss.negative_loss.epsilon, 1);
}

TEST(Checker, ConfigRefusesBadInput) {
  EXPECT_FALSE(CheckConfig::FromJson("{").ok());
  EXPECT_FALSE(CheckConfig::FromJson("[]").ok());
  StatusOr<CheckConfig> r = CheckConfig::FromJson(R"({"no_such_rule": {}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no_such_rule"), std::string::npos);
  EXPECT_FALSE(CheckConfig::FromJson(R"({"dead_relu": {"max_zero": 1}})").ok());
  EXPECT_FALSE(CheckConfig::FromJson(R"({"dead_relu": {"max_zero_share": "x"}})").ok());
  EXPECT_FALSE(CheckConfig::FromJson(R"({"dead_relu": {"policy": "explode"}})").ok());
  EXPECT_FALSE(CheckConfig::FromFile("/nonexistent/rules.json").ok());
  CheckConfig d = CheckConfig::Defaults();
  EXPECT_FALSE(d.Set("dead_relu", "nope", 1).ok());
  EXPECT_FALSE(d.Set("nope", "window", 1).ok());
}

// Found by fuzz/rule_config_fuzz.cc: counts and role sets are converted to
// integers where the rules use them, so 1e300 was undefined behaviour (UBSan:
// "outside the range of representable values"), not a setting.
TEST(Checker, ConfigRefusesCountsAndRolesOutOfRange) {
  const std::pair<const char*, const char*> cases[] = {
      {"roles", R"({"lp_underflow": {"roles": 1e300}})"},
      {"roles", R"({"lp_underflow": {"roles": 32}})"},
      {"roles", R"({"lp_underflow": {"roles": -1}})"},
      {"roles", R"({"lp_underflow": {"roles": 1.5}})"},
      {"window", R"({"dead_relu": {"window": 1e300}})"},
      {"window", R"({"dead_relu": {"window": -3}})"},
      {"window", R"({"dead_relu": {"window": 2.5}})"},
      {"min_hits", R"({"lp_overflow": {"min_hits": 1e19}})"},
      {"patience", R"({"loss_not_decreasing": {"patience": 1e12}})"},
      {"steps", R"({"lp_stale_scaling": {"steps": -1e300}})"}};
  for (const auto& [param, json] : cases) {
    StatusOr<CheckConfig> r = CheckConfig::FromJson(json);
    ASSERT_FALSE(r.ok()) << json;
    EXPECT_NE(r.status().message().find(std::string("'") + param + "'"), std::string::npos)
        << r.status().message();
  }
  StatusOr<CheckConfig> ok = CheckConfig::FromJson(
      R"({"lp_underflow": {"roles": 31}, "dead_relu": {"window": 1}, "lp_overflow": {"min_hits": 1000000000}})");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->low_precision.lp_underflow.roles, 31);
  CheckConfig d = CheckConfig::Defaults();
  EXPECT_FALSE(d.Set("lp_snr", "roles", 4e9).ok());
}

TEST(Checker, SortForDisplayPutsSevereAndNewFirst) {
  std::vector<Finding> v(3);
  v[0].severity = Severity::kWarning, v[0].step = 9;
  v[1].severity = Severity::kError, v[1].step = 1;
  v[2].severity = Severity::kError, v[2].step = 5;
  SortForDisplay(&v);
  EXPECT_EQ(v[0].step, 5);
  EXPECT_EQ(v[1].step, 1);
  EXPECT_EQ(v[2].step, 9);
}


// A small output layer (the last >=2-D weight) is deliberate; the same
// variance in a hidden layer is poor initialization, and a constant head is
// still broken symmetry.
TEST(Checker, PoorInitializationSparesASmallOutputLayer) {
  Checker small_head;
  small_head.Add(Rec(0, "fc1.weight", Role::kWeight, Normal(64, 0.1f, 1), {8, 8}));
  small_head.Add(Rec(0, "head.weight", Role::kWeight, Normal(64, 1e-4f, 2), {8, 8}));
  small_head.Add(Rec(0, "head.bias", Role::kWeight, std::vector<float>(8, 0.0f), {8}));
  EXPECT_TRUE(small_head.EndStep(0).empty()) << Dump(small_head);

  Checker small_hidden;
  small_hidden.AddInitialWeight(Rec(0, "fc1.weight", Role::kWeight, Normal(64, 1e-4f, 1), {8, 8}));
  small_hidden.AddInitialWeight(Rec(0, "head.weight", Role::kWeight, Normal(64, 0.1f, 2), {8, 8}));
  std::vector<Finding> f = small_hidden.EndStep(0);
  ASSERT_EQ(Rules(f), std::vector<std::string>{"poor_initialization"});
  EXPECT_EQ(f[0].tensor, "fc1.weight");

  Checker constant_head;
  constant_head.Add(Rec(0, "fc1.weight", Role::kWeight, Normal(64, 0.1f, 1), {8, 8}));
  constant_head.Add(Rec(0, "head.weight", Role::kWeight, std::vector<float>(64, 0.0f), {8, 8}));
  f = constant_head.EndStep(0);
  ASSERT_EQ(Rules(f), std::vector<std::string>{"poor_initialization"});
  EXPECT_EQ(f[0].tensor, "head.weight");
}

// loss_not_decreasing asks the data to show a stall: a steady descent of
// ~12% per 50 steps buried in batch noise of ~+-15% per step (MSE on noisy
// targets) does not fire; a plateau with little noise does.
TEST(Checker, LossNotDecreasingAllowsForBatchNoise) {
  auto run = [](double noise, uint32_t seed, bool plateau) {
    Checker c;
    std::vector<double> l = NoisyLoss(
        200, [plateau](int s) { return plateau ? 0.7 : 0.9 * std::exp(-s / 400.0); }, noise, seed);
    for (int64_t s = 0; s < 200; ++s) {
      c.Add(ScalarRecord{s, "loss", l[static_cast<size_t>(s)]});
      c.EndStep(s);
    }
    return Fired(c, "loss_not_decreasing");
  };
  for (uint32_t seed = 1; seed <= 20; ++seed) EXPECT_FALSE(run(0.1, seed, false)) << "seed " << seed;
  EXPECT_TRUE(run(0.001, 1, true));
  EXPECT_FALSE(run(0.001, 1, false));
}

// A learning rate annealed to ~0 at the end of a schedule stops the weights
// after they trained: not untrained until the stop outlasts the training.
TEST(Checker, AnnealedWeightIsNotUntrainedUntilTheStopOutlastsTraining) {
  Checker c;
  std::vector<float> w = Normal(64, 0.1f, 9);
  int64_t first_fire = -1;
  for (int64_t s = 0; s < 60; ++s) {
    if (s < 20) {
      for (float& v : w) v *= 1.01f;  // trains for 20 steps, then stops
    }
    c.Add(ScalarRecord{s, "loss", 2.0 - 0.01 * static_cast<double>(std::min<int64_t>(s, 20))});
    c.Add(Rec(s, "fc1.weight", Role::kWeight, w, {8, 8}));
    for (const Finding& f : c.EndStep(s)) {
      if (f.rule == "untrained_parameter" && first_fire < 0) first_fire = s;
    }
  }
  // Changed at records 1..19 (19 changes), still from record 20 on: fires
  // once it has been still for 19 records, at step 38.
  EXPECT_EQ(first_fire, 38) << Dump(c);
}

// In fp32 the gradient of a bias before BatchNorm is the rounding noise of an
// exact cancellation, not 0: negligible next to the step's other gradients,
// it is still redundant. The same gradient as the step's largest is not.
TEST(CheckerIssue10, RoundingNoiseGradientIsRedundant) {
  auto run = [](float other_grad) {
    Checker c;
    const std::vector<float> bias = Normal(16, 0.1f, 4);
    for (int64_t s = 0; s < 4; ++s) {
      c.Add(Rec(s, "fc1.bias", Role::kWeight, bias, {16}));
      c.Add(Rec(s, "fc1.bias", Role::kWeightGrad, Normal(16, 1e-9f, static_cast<uint32_t>(s)), {16}));
      c.Add(Rec(s, "fc2.weight", Role::kWeightGrad, Normal(64, other_grad, static_cast<uint32_t>(s) + 7), {8, 8}));
      c.Add(ScalarRecord{s, "loss", 2.3 - 0.05 * static_cast<double>(s)});
      c.EndStep(s);
    }
    return c;
  };
  Checker bn = run(0.1f);
  EXPECT_TRUE(Fired(bn, "redundant_parameter")) << Dump(bn);
  EXPECT_FALSE(Fired(bn, "untrained_parameter")) << Dump(bn);
  Checker alone = run(1e-9f);
  EXPECT_FALSE(Fired(alone, "redundant_parameter")) << Dump(alone);
  EXPECT_TRUE(Fired(alone, "untrained_parameter")) << Dump(alone);
}

// Issue 10, second pass: statistics that tell batch noise from the fault.
// A loss with heavy-tailed batch noise: each loss is mean(s) x a factor
// with mean 1 and a coefficient of variation ~0.5 (exp of N(0, 0.47),
// divided by its mean), independent between steps, as MSE on targets with
// outliers under plain SGD.
std::vector<double> HeavyTailedLoss(int steps, const std::function<double(int)>& mean, uint32_t seed) {
  constexpr double kLogSigma = 0.47;
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(0, kLogSigma);
  std::vector<double> v;
  for (int s = 0; s < steps; ++s) v.push_back(mean(s) * std::exp(d(rng) - kLogSigma * kLogSigma / 2));
  return v;
}

// The first finding of `rule` (Fired(c, rule) must hold).
const Finding& First(const Checker& c, const std::string& rule) {
  for (const Finding& f : c.findings()) {
    if (f.rule == rule) return f;
  }
  return c.findings().front();
}

// TheDeepChecker's statistics alone, over the last `w` losses ending at `end`:
// the sign-change share and mean |change| / mean loss.
std::pair<double, double> SignChangesAndAmplitude(const std::vector<double>& l, size_t end, size_t w) {
  double changes = 0, amp = 0, mean = 0;
  for (size_t i = end - w; i < end; ++i) {
    const double d = l[i] - l[i - 1];
    amp += std::fabs(d), mean += l[i];
    // The previous change exists from the window's second step on (l[i - 2]
    // is before the data at the first window's first step).
    if (i >= end - w + 1 && d * (l[i - 1] - l[i - 2]) < 0) ++changes;
  }
  return {changes / static_cast<double>(w - 1), amp / mean};
}

TEST(CheckerIssue10, HeavyTailedBatchNoiseIsNotFluctuation) {
  const std::vector<double> l = HeavyTailedLoss(200, [](int s) { return 6.0 * std::exp(-0.006 * s); }, 11);
  // TheDeepChecker's test alone fires here (the rule before this change):
  // independent noise changes direction at ~2/3 of steps.
  bool deepchecker_fires = false;
  for (size_t end = 51; end <= l.size(); ++end) {
    const auto [share, amp] = SignChangesAndAmplitude(l, end, 50);
    deepchecker_fires = deepchecker_fires || (share > 0.5 && amp > 0.5);
  }
  ASSERT_TRUE(deepchecker_fires);
  Checker c = FeedLosses(l);
  EXPECT_FALSE(Fired(c, "fluctuating_loss")) << Dump(c);
  // An optimizer that overshoots: the loss alternates around its trend with
  // the same noise on top; consecutive deviations are anti-correlated.
  std::vector<double> zigzag = HeavyTailedLoss(200, [](int s) { return (s % 2 ? 1.9 : 0.1) * 3.0; }, 12);
  Checker z = FeedLosses(zigzag);
  ASSERT_TRUE(Fired(z, "fluctuating_loss")) << Dump(z);
  EXPECT_LT(First(z, "fluctuating_loss").evidence.at("lag1_autocorrelation"), -3 / std::sqrt(50.0));
}

TEST(CheckerIssue10, OneOutlyingBatchIsNotDivergence) {
  // A flat loss with 5% noise and one batch at 8x: every sliding window of 5
  // that holds it has mean ~2.4x the lowest, five windows in a row (what the
  // rule counted before); only one of two disjoint windows does.
  std::vector<double> l = NoisyLoss(120, [](int) { return 1.0; }, 0.05, 13);
  l[60] = 8.0;
  Checker c = FeedLosses(l);
  EXPECT_FALSE(Fired(c, "diverging_loss")) << Dump(c);
  // A rise to 3x that holds: fires once the second window is above too.
  std::vector<double> r = NoisyLoss(120, [](int s) { return s < 60 ? 1.0 : 3.0; }, 0.05, 14);
  Checker d = FeedLosses(r);
  ASSERT_TRUE(Fired(d, "diverging_loss")) << Dump(d);
  EXPECT_GE(First(d, "diverging_loss").step, 60 + 2 * 5 - 1 - 2);  // two windows mostly past the rise
  EXPECT_LE(First(d, "diverging_loss").step, 60 + 2 * 5 - 1);
}

// Update ratios whose log10 scatters around `level` by 0.15 decades (batch
// noise of a small layer under plain SGD), for 120 steps; no loss recorded.
Checker FeedNoisyRatios(double level, uint32_t seed) {
  constexpr double kScatter = 0.15;
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(level, kScatter);
  Checker c;
  for (int64_t s = 0; s < 120; ++s) {
    c.Add(ScalarRecord{s, "update_ratio/out.weight", std::pow(10.0, d(rng))});
    c.EndStep(s);
  }
  return c;
}

TEST(CheckerIssue10, RatiosScatteringAtTheBoundAreNotUnstable) {
  // At TheDeepChecker's bound, 10^-1: half the window means land above it
  // by chance (the rule fired on the first of them before this change).
  Checker at_bound = FeedNoisyRatios(-1.0, 15);
  EXPECT_FALSE(Fired(at_bound, "unstable_learning")) << Dump(at_bound);
  // Clearly above (10^-0.7, the same scatter): fires at the first full window.
  Checker above = FeedNoisyRatios(-0.7, 16);
  ASSERT_TRUE(Fired(above, "unstable_learning")) << Dump(above);
  EXPECT_EQ(First(above, "unstable_learning").step, 9);
  EXPECT_NE(First(above, "unstable_learning").message.find("large"), std::string::npos);
  // And clearly below 10^-4 from the start: tiny.
  Checker below = FeedNoisyRatios(-4.5, 17);
  ASSERT_TRUE(Fired(below, "unstable_learning")) << Dump(below);
  EXPECT_NE(First(below, "unstable_learning").message.find("tiny"), std::string::npos);
}

TEST(CheckerIssue10, DeadUnitsWaitForAStallTheDataShow) {
  // 90% of a ReLU layer's outputs are 0 (the whole-layer fallback fires
  // above 85%); the loss is flat with 20% batch noise, or with 1%.
  auto run = [](double noise) {
    Checker c;
    const std::vector<double> l = NoisyLoss(80, [](int) { return 0.47; }, noise, 17);
    for (int64_t s = 0; s < 80; ++s) {
      std::vector<float> y = Normal(1000, 1.0f, static_cast<uint32_t>(s), -1.3f);
      for (float& v : y) v = std::max(v, 0.0f);
      c.Add(Rec(s, "act1", Role::kActivation, y, {1000}, "ReLU"));
      c.Add(ScalarRecord{s, "loss", l[static_cast<size_t>(s)]});
      c.EndStep(s);
    }
    return c;
  };
  // 20% noise: two 10-step means compare either way by chance (the gate
  // before this change fired whenever the later one came out higher); a line
  // through 20 steps cannot show a stall under this noise.
  Checker noisy = run(0.2);
  EXPECT_FALSE(Fired(noisy, "dead_relu")) << Dump(noisy);
  Checker flat = run(0.01);
  ASSERT_TRUE(Fired(flat, "dead_relu")) << Dump(flat);
  EXPECT_EQ(First(flat, "dead_relu").step, 19);  // 20 losses for the line
}
// lp_forward_loss: a target's probe loss above fp32's by more than 0.3 of
// the gain so far (by default on the tighter of the linear and the log
// scale: the loss halved, so 2^0.3 = 1.23x the probe loss, not 1.3x),
// five probes in a row; each target judged on its own; a non-finite probe
// at once. "near" costs 21% of the gain, 1.21x: past the truth's own
// quarter (2^0.25 = 1.19x) but within the probe's allowance.
TEST(Checker, ForwardLossJudgesEachProbeTarget) {
  Checker c;
  std::vector<Finding> fired;
  for (int64_t s = 0; s < 60; ++s) {
    const double loss = s < 5 ? 2.0 : 1.0;  // first window 2.0, then a gain of 1.0
    c.Add(ScalarRecord{s, "loss", loss});
    if (s >= 8 && s % 8 == 0) {
      c.Add(ScalarRecord{s, "probe_loss", loss});
      c.Add(ScalarRecord{s, "probe_loss:costly", loss + 0.4});  // 40% of the gain
      c.Add(ScalarRecord{s, "probe_loss:near", loss + 0.21});   // 21%
      c.Add(ScalarRecord{s, "probe_loss:fine", loss + 0.15});   // 15%
      c.Add(ScalarRecord{s, "probe_loss:nan", s == 48 ? NAN : loss});
    }
    for (Finding& f : c.EndStep(s)) {
      if (f.rule == "lp_forward_loss") fired.push_back(f);
    }
  }
  ASSERT_EQ(fired.size(), 2u) << Dump(c);
  EXPECT_EQ(fired[0].tensor, "probe_loss:costly");
  EXPECT_EQ(fired[0].step, 40);  // the fifth probe: 8, 16, 24, 32, 40
  EXPECT_NEAR(fired[0].evidence.at("gain_share"), 0.4, 1e-12);
  EXPECT_NEAR(fired[0].evidence.at("allowed_loss"), std::pow(2.0, 0.3), 1e-12);
  EXPECT_NE(fired[0].message.find("on costly the forward pass alone"), std::string::npos) << fired[0].message;
  EXPECT_NE(fired[0].message.find("above 1.23,"), std::string::npos) << fired[0].message;
  EXPECT_EQ(fired[1].tensor, "probe_loss:nan");
  EXPECT_EQ(fired[1].step, 48);
}

// Before the training has gained anything there is nothing to lose: a
// costly probe at the start is not judged.
TEST(Checker, ForwardLossWaitsForAGain) {
  Checker c;
  for (int64_t s = 0; s < 40; ++s) {
    c.Add(ScalarRecord{s, "loss", 2.0});
    c.Add(ScalarRecord{s, "probe_loss", 2.0});
    c.Add(ScalarRecord{s, "probe_loss:costly", 3.0});
    c.EndStep(s);
  }
  EXPECT_FALSE(Fired(c, "lp_forward_loss")) << Dump(c);
}

// A training whose loss falls from 1 to `fallen` after its first window,
// probed every 8 steps from step 8 (probe_loss: the loss) with `probes`
// beside it; the findings of `rule` with its log_scale set.
std::vector<Finding> FallingLossFindings(const std::string& rule, int log_scale, double fallen,
                                         const std::vector<std::pair<std::string, double>>& probes) {
  CheckConfig config = CheckConfig::Defaults();
  EXPECT_TRUE(config.Set(rule, "log_scale", log_scale).ok());
  Checker c(config);
  std::vector<Finding> fired;
  for (int64_t s = 0; s < 56; ++s) {
    const double loss = s < 5 ? 1.0 : fallen;
    c.Add(ScalarRecord{s, "loss", loss});
    if (s >= 8 && s % 8 == 0) {
      c.Add(ScalarRecord{s, "probe_loss", loss});
      for (const auto& [name, value] : probes) c.Add(ScalarRecord{s, name, value});
    }
    for (Finding& f : c.EndStep(s)) {
      if (f.rule == rule) fired.push_back(f);
    }
  }
  return fired;
}

// log_scale 1: a loss that falls by orders of magnitude is judged in
// orders, as lpsim validate's truth judges it. The loss falls 1 -> 1e-4; a
// target whose forward pass floors at 1e-2 costs 1% of the gain (linear:
// fine) but sits 100x above fp32, beyond (1 / 1e-4)^0.3 = 15.8x (log: fired);
// one at 5e-4 (5x) is within both. A gain of x2 is judged nearly as
// linearly (1.19x against 1.25x of the probe loss).
TEST(Checker, ForwardLossOnTheLogScaleJudgesAFloorInOrders) {
  auto run = [](int log_scale) {
    return FallingLossFindings("lp_forward_loss", log_scale, 1e-4, {{"probe_loss:floor", 1e-2}, {"probe_loss:near", 5e-4}});
  };
  EXPECT_TRUE(run(0).empty());
  const std::vector<Finding> log = run(1);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].tensor, "probe_loss:floor");
  EXPECT_EQ(log[0].step, 40);
  EXPECT_NEAR(log[0].evidence.at("allowed_loss"), 1e-4 * std::pow(1e4, 0.3), 1e-15);
  // Halving: the log bound 2^0.25 = 1.19 of the probe loss, the linear 1.25.
  EXPECT_DOUBLE_EQ(rules::AllowedLoss(1.0, 2.0, 1.0, 0.25, true), std::pow(2.0, 0.25));
  EXPECT_DOUBLE_EQ(rules::AllowedLoss(1.0, 2.0, 1.0, 0.25, false), 1.25);
  // A loss that is not positive, or did not fall: the linear bound alone.
  EXPECT_DOUBLE_EQ(rules::AllowedLoss(-2.0, 1.0, -2.0, 0.25, true), -2.0 + 0.75);
  EXPECT_DOUBLE_EQ(rules::AllowedLoss(1.0, 1.0, 1.0, 0.25, true), 1.0 + 0.25e-12);
}

// lp_rollout with log_scale 1: each stake on its own scale, the larger
// allowance. The training fell 1 -> 1e-3 (so far: 1000x), fp32's rollout
// from 1e-3 reaches 9e-4; half the stake allows (1000)^0.5 = 31.6x on the
// log scale, 0.5 linearly. A rollout ending at 0.1 (111x) fires on the log
// scale only; one at 2e-2 (22x) on neither.
TEST(Checker, RolloutOnTheLogScaleJudgesTheLagInOrders) {
  auto run = [](int log_scale) {
    return FallingLossFindings("lp_rollout", log_scale, 1e-3,
                               {{"rollout_loss", 9e-4}, {"rollout_loss:lagging", 0.1}, {"rollout_loss:near", 2e-2}});
  };
  EXPECT_TRUE(run(0).empty());
  const std::vector<Finding> log = run(1);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].tensor, "rollout_loss:lagging");
  EXPECT_EQ(log[0].step, 16);  // the second lagging rollout in a row
  EXPECT_NEAR(log[0].evidence.at("allowed_loss"), 9e-4 * std::sqrt(1000.0), 1e-15);
  // 0.8 of the stake on the log scale: 1000^0.8 = 251x.
  EXPECT_NEAR(log[0].evidence.at("at_once_loss"), 9e-4 * std::pow(1000.0, 0.8), 1e-12);
}

// lp_rollout: a target's rollout ends above fp32's by more than half of
// the gain at stake (fp32's gain in the rollout, or the training's so far,
// whichever is larger) in two rollouts in a row, or by more than
// at_once_lag_share (0.8) of it in one; each target judged on its own; a
// non-finite rollout at once; nothing at stake, nothing judged.
TEST(Checker, RolloutJudgesEachTargetAgainstTheGainAtStake) {
  Checker c;
  std::vector<Finding> fired;
  for (int64_t s = 0; s < 40; ++s) {
    c.Add(ScalarRecord{s, "loss", 2.0});  // no gain so far: the rollout's own gain is at stake
    if (s % 8 == 0) {
      c.Add(ScalarRecord{s, "probe_loss", 2.0});
      c.Add(ScalarRecord{s, "rollout_loss", 1.0});                     // fp32 gains 1.0
      c.Add(ScalarRecord{s, "rollout_loss:lagging", s >= 16 ? 1.6 : 1.4});  // 60% of it from step 16
      c.Add(ScalarRecord{s, "rollout_loss:once", s == 8 || s == 24 ? 1.7 : 1.4});  // 70% (0.77 in orders), then catches up
      c.Add(ScalarRecord{s, "rollout_loss:lost", s == 16 ? 1.85 : 1.0});  // 85% (0.89 in orders): keeps less than a fifth
      c.Add(ScalarRecord{s, "rollout_loss:fine", 1.4});                // 40%
      c.Add(ScalarRecord{s, "rollout_loss:nan", s == 32 ? NAN : 1.0});
    }
    for (Finding& f : c.EndStep(s)) {
      if (f.rule == "lp_rollout") fired.push_back(f);
    }
  }
  ASSERT_EQ(fired.size(), 3u) << Dump(c);
  EXPECT_EQ(fired[0].tensor, "rollout_loss:lost");
  EXPECT_EQ(fired[0].step, 16);
  EXPECT_NEAR(fired[0].evidence.at("lag_share"), 0.85, 1e-12);
  // 0.8 of the stake, on the tighter scale: 2^0.8 = 1.74 in orders (1.8 linearly).
  EXPECT_NEAR(fired[0].evidence.at("at_once_loss"), std::pow(2.0, 0.8), 1e-12);
  EXPECT_NE(fired[0].message.find("a lag of 80% of the 1 at stake, on the tighter of the linear and the log "
                                  "scale, in one rollout"),
            std::string::npos)
      << fired[0].message;
  EXPECT_EQ(fired[1].tensor, "rollout_loss:lagging");
  EXPECT_EQ(fired[1].step, 24);  // its second lagging rollout
  EXPECT_NEAR(fired[1].evidence.at("lag_share"), 0.6, 1e-12);
  EXPECT_EQ(fired[1].evidence.at("stake"), 1.0);
  EXPECT_NE(fired[1].message.find("on lagging a few training steps"), std::string::npos) << fired[1].message;
  EXPECT_NE(fired[1].message.find("50% of the 1 at stake, on the tighter of the linear and the log scale, in 2 "
                                  "rollouts in a row"),
            std::string::npos)
      << fired[1].message;
  EXPECT_EQ(fired[2].tensor, "rollout_loss:nan");
  EXPECT_EQ(fired[2].step, 32);
  // One rollout at a time, as before: the single lag of "once" fires.
  CheckConfig single = CheckConfig::Defaults();
  ASSERT_TRUE(single.Set("lp_rollout", "rollouts", 1).ok());
  Checker one(single);
  for (int64_t s = 0; s < 16; ++s) {
    one.Add(ScalarRecord{s, "loss", 2.0});
    if (s % 8 == 0) {
      one.Add(ScalarRecord{s, "probe_loss", 2.0});
      one.Add(ScalarRecord{s, "rollout_loss", 1.0});
      one.Add(ScalarRecord{s, "rollout_loss:once", s == 8 ? 1.7 : 1.4});
    }
    one.EndStep(s);
  }
  EXPECT_TRUE(Fired(one, "lp_rollout")) << Dump(one);
}

// A rollout that loses the whole stake counts at once where the target
// never kept up ("fromstart": lost in its first judged rollout) or where
// its forward pass already costs ("costly": its own start 0.6 of the stake
// above fp32's, beyond at_once_start_share 0.25). One that kept up before
// and starts level ("overshoots": own start 2.1, 0.1 of the stake above)
// counts as one lagging rollout: it fires only if the next lags too
// ("persists" at 24), not if it catches up ("overshoots" ends at 1.2).
// With at_once_start_share 0 every whole-stake lag counts at once.
TEST(Checker, RolloutDefersAWholeLagOfATargetThatKeptUpAndStartsLevel) {
  auto run = [](double at_once_start_share) {
    CheckConfig config = CheckConfig::Defaults();
    EXPECT_TRUE(config.Set("lp_rollout", "at_once_start_share", at_once_start_share).ok());
    Checker c(config);
    std::map<std::string, int64_t> first;
    for (int64_t s = 0; s < 40; ++s) {
      c.Add(ScalarRecord{s, "loss", 2.0});  // no gain so far: fp32's rollout gain (1.0) is at stake
      if (s % 8 == 0) {
        c.Add(ScalarRecord{s, "probe_loss", 2.0});
        c.Add(ScalarRecord{s, "rollout_loss", 1.0});
        // target: {own start, rollout end}
        const std::map<std::string, std::pair<double, double>> targets = {
            {"fromstart", {2.0, 2.2}},
            {"costly", {s == 16 ? 2.6 : 2.0, s == 16 ? 2.2 : 1.2}},
            {"overshoots", {2.1, s == 16 ? 2.2 : 1.2}},
            {"persists", {2.1, s == 16 ? 2.2 : s == 24 ? 1.7 : 1.2}}};
        for (const auto& [target, v] : targets) {
          c.Add(ScalarRecord{s, "probe_loss:" + target, v.first});
          c.Add(ScalarRecord{s, "rollout_loss:" + target, v.second});
        }
      }
      for (Finding& f : c.EndStep(s)) {
        if (f.rule == "lp_rollout") first.emplace(f.tensor.substr(f.tensor.find(':') + 1), f.step);
      }
    }
    return first;
  };
  const std::map<std::string, int64_t> deferred = run(0.25);
  EXPECT_EQ(deferred, (std::map<std::string, int64_t>{{"fromstart", 0}, {"costly", 16}, {"persists", 24}}));
  const std::map<std::string, int64_t> at_once = run(0);
  EXPECT_EQ(at_once,
            (std::map<std::string, int64_t>{{"fromstart", 0}, {"costly", 16}, {"overshoots", 16}, {"persists", 16}}));
}

// Late in training the gain so far is at stake: a lag that is large against
// the rollout's own small gain but small against what the training has
// learnt is not judged broken; a rollout in which fp32 learns nothing (a
// warm-up's first steps) is not judged; nor one where fp32 itself diverges.
TEST(Checker, RolloutWeighsTheLagAgainstTheTrainingsGain) {
  Checker c;
  for (int64_t s = 0; s < 64; ++s) {
    const double loss = s < 5 ? 2.0 : 0.4;  // first window 2.0, then a gain of 1.6
    c.Add(ScalarRecord{s, "loss", loss});
    if (s == 16) {  // fp32 gains 0.1, the target ends 0.2 short of it: 12.5% of 1.6
      c.Add(ScalarRecord{s, "probe_loss", 0.4});
      c.Add(ScalarRecord{s, "rollout_loss", 0.3});
      c.Add(ScalarRecord{s, "rollout_loss:t", 0.5});
    }
    if (s == 24) {  // fp32's rollout diverges: no reference
      c.Add(ScalarRecord{s, "probe_loss", 0.4});
      c.Add(ScalarRecord{s, "rollout_loss", NAN});
      c.Add(ScalarRecord{s, "rollout_loss:t", NAN});
    }
    c.EndStep(s);
  }
  EXPECT_FALSE(Fired(c, "lp_rollout")) << Dump(c);
  Checker start;
  for (int64_t s = 0; s < 4; ++s) {  // before the first window: only the rollout's gain, 4% of the start
    start.Add(ScalarRecord{s, "loss", 2.0});
    start.Add(ScalarRecord{s, "probe_loss", 2.0});
    start.Add(ScalarRecord{s, "rollout_loss", 1.92});
    start.Add(ScalarRecord{s, "rollout_loss:t", 2.5});
    start.EndStep(s);
  }
  EXPECT_FALSE(Fired(start, "lp_rollout")) << Dump(start);
}

// lp_rollout's stall test: late in training the gain so far sets a wide
// allowance (a rollout at 0.45 where fp32 reaches 0.3 lags by 9% of 1.6),
// but a target that makes no progress from its own start while fp32 gains
// 25% of the step's loss lags: its loss rises ("rises"), or stays with its
// updates skipped ("skipped": its gradients not finite). One that stays
// with no update skipped ("frozen": updates below the stored weights'
// resolution, which fp32 master weights accumulate) and one that gains a
// little ("slow") are not stalls. Two in a row fire, as any lag.
TEST(Checker, RolloutCountsATargetThatMakesNoProgress) {
  auto run = [](double stall_gain_share, double fp32_rollout) {
    CheckConfig config = CheckConfig::Defaults();
    EXPECT_TRUE(config.Set("lp_rollout", "stall_gain_share", stall_gain_share).ok());
    Checker c(config);
    std::vector<Finding> fired;
    for (int64_t s = 0; s < 64; ++s) {
      c.Add(ScalarRecord{s, "loss", s < 5 ? 2.0 : 0.4});
      if (s >= 16 && s % 16 == 0) {
        c.Add(ScalarRecord{s, "probe_loss", 0.4});
        c.Add(ScalarRecord{s, "rollout_loss", fp32_rollout});
        for (const auto& [target, start, end, skipped] :
             std::vector<std::tuple<std::string, double, double, double>>{{"rises", 0.42, 0.45, 0},
                                                                          {"skipped", 0.41, 0.41, 8},
                                                                          {"frozen", 0.41, 0.41, 0},
                                                                          {"slow", 0.4, 0.39, 0}}) {
          c.Add(ScalarRecord{s, "probe_loss:" + target, start});
          c.Add(ScalarRecord{s, "rollout_loss:" + target, end});
          c.Add(ScalarRecord{s, "rollout_skipped:" + target, skipped});
        }
      }
      for (Finding& f : c.EndStep(s)) {
        if (f.rule == "lp_rollout") fired.push_back(f);
      }
    }
    return fired;
  };
  const std::vector<Finding> fired = run(0.1, 0.3);
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].tensor, "rollout_loss:rises");
  EXPECT_EQ(fired[0].step, 32);  // the second stalled rollout
  EXPECT_EQ(fired[0].evidence.at("stalled"), 1.0);
  EXPECT_EQ(fired[0].evidence.at("target_start_loss"), 0.42);
  EXPECT_NE(fired[0].message.find("no progress from its own start 0.42 (its updates make the loss worse) where "
                                  "fp32 gains 25% of the loss"),
            std::string::npos)
      << fired[0].message;
  EXPECT_EQ(fired[1].tensor, "rollout_loss:skipped");
  EXPECT_EQ(fired[1].step, 32);
  EXPECT_EQ(fired[1].evidence.at("skipped_updates"), 8.0);
  EXPECT_NE(fired[1].message.find("(8 of its updates skipped: its gradients are not finite as it stores them)"),
            std::string::npos)
      << fired[1].message;
  // fp32 gains 5% of the loss, under the default 10%: fp32 barely learns
  // from this batch, and the target's standing still is no evidence.
  EXPECT_TRUE(run(0.1, 0.38).empty());
  // 0 turns the stall test off.
  EXPECT_TRUE(run(0, 0.3).empty());
}

}  // namespace
}  // namespace lpsim
