// Tracker with a hardware target (TrackerOptions::target): the target's
// recipes and formats reach the analysis (explicit role_scaling still wins),
// and simulate mode stores every role as the target does, bit for bit with
// the formats/ and simd/ primitives: int8 NPU weights per channel and
// activations per tensor with a zero point, BF16 optimizer state.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/target.h"
#include "formats/integer.h"
#include "store/run_db.h"
#include "tests/tracker/test_net.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

std::string TempRunDir(const std::string& tag) { return TestRunDir("target_tracker", tag); }

class TargetTracker : public ::testing::Test {
 protected:
  void SetUp() override { setenv("LPSIM_TARGETS_DIR", LPSIM_TEST_TARGETS_DIR, 1); }
};

torch::Tensor IntQuantized(const torch::Tensor& t, const char* format, bool per_row,
                           bool symmetric) {
  torch::Tensor x = t.detach().contiguous().clone();
  const size_t rows = per_row ? static_cast<size_t>(x.size(0)) : 1;
  const size_t cols = static_cast<size_t>(x.numel()) / rows;
  IntQuantizeOptions o;
  o.per_row = per_row;
  o.symmetric = symmetric;
  torch::Tensor out = torch::empty_like(x);
  IntQuantizeRef(*ParseIntFormat(format), x.data_ptr<float>(), rows, cols, o,
                 out.data_ptr<float>(), nullptr, nullptr);
  return out;
}

bool SameBits(const torch::Tensor& a, const torch::Tensor& b) {
  const torch::Tensor x = a.detach().contiguous(), y = b.detach().contiguous();
  return x.numel() == y.numel() &&
         std::memcmp(x.data_ptr<float>(), y.data_ptr<float>(), x.numel() * sizeof(float)) == 0;
}

TEST_F(TargetTracker, SimulatesTheInt8NpuBitForBit) {
  torch::manual_seed(3);
  Net net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.01));
  TrackerOptions o;
  o.run_dir = TempRunDir("npu");
  o.simulate = true;
  o.target = "int8-npu";
  const torch::Tensor master0 = net.fc1->weight.detach().clone();
  Tracker tracker(net, opt, o);
  // Weights: int8 [-127, 127], symmetric, one scale per output channel.
  EXPECT_TRUE(SameBits(net.fc1->weight, IntQuantized(master0, "int8:narrow", true, true)));
  // Activations: int8 per tensor with a zero point (straight-through, so the
  // forward value is x + (q - x)).
  const torch::Tensor x = torch::randn({4, 8});
  const torch::Tensor a = net.fc1->forward(x).detach();
  const torch::Tensor y = tracker.tap("probe", a);
  const torch::Tensor q = IntQuantized(a, "int8", false, false);
  EXPECT_TRUE(SameBits(y, a + (q - a)));
  EXPECT_FALSE(SameBits(y, a));
  // After an update the weights are again the int8 image of the fp32 master.
  opt.zero_grad();
  torch::Tensor loss = net.forward(tracker, x).pow(2).mean();
  loss.backward();
  const torch::Tensor g = net.fc1->weight.grad().detach().clone();
  tracker.step(loss);
  EXPECT_TRUE(SameBits(net.fc1->weight, IntQuantized(master0 - 0.01 * g, "int8:narrow", true,
                                                     true)));
}

TEST_F(TargetTracker, OptimizerStateStoredAsTheTargetSays) {
  torch::manual_seed(5);
  Net net;
  torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(1e-3));
  TrackerOptions o;
  o.run_dir = TempRunDir("ds");
  o.simulate = true;
  o.target = "deepseek-v3-fp8";  // BF16 optimizer state
  Tracker tracker(net, opt, o);
  const torch::Tensor x = torch::randn({8, 8});
  opt.zero_grad();
  torch::Tensor loss = net.forward(tracker, x).pow(2).mean();
  loss.backward();
  tracker.step(loss);
  auto& state = opt.state();
  auto it = state.find(c10::guts::to_string(net.fc1->weight.unsafeGetTensorImpl()));
  ASSERT_NE(it, state.end());
  auto* adam = dynamic_cast<torch::optim::AdamParamState*>(it->second.get());
  ASSERT_NE(adam, nullptr);
  const torch::Tensor m = adam->exp_avg().contiguous();
  EXPECT_TRUE(SameBits(m, m.to(torch::kBFloat16).to(torch::kFloat)))
      << "exp_avg is not bf16-representable";
  // The forward weights are e4m3fn with 128x128 blocks: one block here, so
  // every value times the block's fp32 scale lies on e4m3fn's grid (up to
  // the roundoff of scaling back and forth in fp32).
  constexpr float kScaleRoundoff = 1.0f / (1 << 20);
  const torch::Tensor w = net.fc1->weight.detach().contiguous();
  const Format e4m3 = *ParseFormat("e4m3fn:sat");
  const float s = 448.0f / w.abs().max().item<float>();
  for (int64_t i = 0; i < w.numel(); ++i) {
    const float v = w.data_ptr<float>()[i] * s;
    const float grid = DecodeRef(e4m3, EncodeRef(e4m3, v, Rounding::kNearestEven, 0).code);
    ASSERT_LE(std::fabs(v - grid), std::fabs(v) * kScaleRoundoff) << i << " " << v;
  }
}

TEST_F(TargetTracker, RecipesReachTheAnalysisAndExplicitOptionsWin) {
  torch::manual_seed(7);
  Net net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.01));
  TrackerOptions o;
  o.run_dir = TempRunDir("recipes");
  o.formats = {"bf16"};
  o.target = "h100-fp8-delayed";
  o.role_scaling[Role::kWeight] = Scaling::Current();
  o.background = false;
  Tracker tracker(net, opt, o);
  opt.zero_grad();
  torch::Tensor loss = net.forward(tracker, torch::randn({4, 8})).pow(2).mean();
  loss.backward();
  tracker.step(loss);
  bool act = false, weight = false;
  for (const TensorRecord& r : tracker.last_records()) {
    std::set<std::string> names;
    for (const FormatRecord& f : r.formats) names.insert(f.format);
    EXPECT_EQ(names.count("e4m3fn:sat"), 1u) << r.name;
    EXPECT_EQ(names.count("e5m2:sat"), 1u) << r.name;
    for (const FormatRecord& f : r.formats) {
      if (r.role == Role::kActivation) {
        act = true;
        EXPECT_EQ(f.recipe, "delayed1024") << r.name;
      }
      if (r.role == Role::kWeight) {
        weight = true;
        EXPECT_EQ(f.recipe, "current") << r.name;  // role_scaling overrides the target
      }
    }
  }
  EXPECT_TRUE(act);
  EXPECT_TRUE(weight);
}

TEST_F(TargetTracker, BadTargetFailsAtConstruction) {
  Net net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.01));
  TrackerOptions o;
  o.run_dir = TempRunDir("bad");
  o.target = "tpu-v9";
  try {
    Tracker t(net, opt, o);
    FAIL() << "accepted an unknown target";
  } catch (const TrackerError& e) {
    EXPECT_NE(std::string(e.what()).find("TrackerOptions.target: unknown target 'tpu-v9'"),
              std::string::npos)
        << e.what();
  }
}

// --- probes (TrackerOptions::probe) ----------------------------------------------

// The scalars of a run whose name starts with `prefix`, by name then step.
std::map<std::string, std::map<int64_t, double>> ScalarsOf(const std::string& run_dir, const std::string& prefix) {
  std::map<std::string, std::map<int64_t, double>> out;
  StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(run_dir);
  if (!r.ok()) {
    ADD_FAILURE() << r.status().message();
    return out;
  }
  StatusOr<std::vector<ScalarRecord>> all = (*r)->Scalars();
  if (!all.ok()) {
    ADD_FAILURE() << all.status().message();
    return out;
  }
  for (const ScalarRecord& s : *all) {
    if (s.name.rfind(prefix, 0) == 0) out[s.name][s.step] = s.value;
  }
  return out;
}

// A probe at step 0 is the forward pass simulate mode runs at its step 0 on
// that target (the same casts of the same weights and activations), bit for
// bit; the fp32 probe is the step's own loss.
TEST_F(TargetTracker, ProbeIsSimulateModesForwardPass) {
  const std::vector<std::string> targets = {"h100-fp8-delayed", "b200-nvfp4", "int8-npu", "tenstorrent-bfp4",
                                            "fp16-npu-ftz"};
  const torch::Tensor x = torch::randn({16, 8}) * 3, y = torch::randn({16, 4});
  std::map<std::string, double> simulated;
  for (const std::string& target : targets) {
    torch::manual_seed(5);
    Net net;
    torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.01));
    TrackerOptions o;
    o.run_dir = TempRunDir("sim_" + target);
    o.simulate = true;
    o.target = target;
    Tracker t(net, opt, o);
    torch::Tensor loss = torch::mse_loss(net.forward(t, x), y);
    simulated[target] = loss.item<double>();
    loss.backward();
    t.step(loss);
  }
  torch::manual_seed(5);
  Net net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.01));
  TrackerOptions o;
  o.run_dir = TempRunDir("probe");
  o.probe_targets = targets;
  o.probe_every = 2;
  Tracker* tracker = nullptr;
  o.probe = [&] { return torch::mse_loss(net.forward(*tracker, x), y); };
  std::vector<double> losses;
  {
    Tracker t(net, opt, o);
    tracker = &t;
    for (int s = 0; s < 3; ++s) {
      opt.zero_grad();
      torch::Tensor loss = torch::mse_loss(net.forward(t, x), y);
      losses.push_back(loss.item<double>());
      loss.backward();
      t.step(loss);
    }
    ASSERT_TRUE(t.Close().ok());
  }
  const auto probes = ScalarsOf(o.run_dir, "probe_loss");
  ASSERT_EQ(probes.size(), targets.size() + 1);
  // Steps 0 and 2 (probe_every 2), each fp32 probe the step's loss.
  ASSERT_EQ(probes.at("probe_loss").size(), 2u);
  EXPECT_EQ(probes.at("probe_loss").at(0), losses[0]);
  EXPECT_EQ(probes.at("probe_loss").at(2), losses[2]);
  for (const std::string& target : targets) {
    const double p = probes.at("probe_loss:" + target).at(0);
    EXPECT_EQ(p, simulated[target]) << target;
    EXPECT_NE(p, losses[0]) << target << ": the probe cast nothing";
  }
}

// A rollout from step 0 is simulate mode's training on that target (the
// same casts of weights, activations, both gradients, Adam's state and the
// master weights, on the same batch), bit for bit: its loss after K steps
// is simulate mode's loss at step K; the fp32 rollout's is fp32's.
TEST_F(TargetTracker, RolloutIsSimulateModesTraining) {
  // int8-npu, inference only, is not rolled out (below).
  const std::vector<std::string> targets = {"h100-fp8-delayed", "b200-nvfp4", "tenstorrent-bfp4", "fp16-npu-ftz",
                                            "bf16-accelerator"};
  constexpr int kSteps = 3;
  const torch::Tensor x = torch::randn({16, 8}) * 3, y = torch::randn({16, 4});
  // Loss at step kSteps of training on (x, y): simulate mode on `target`,
  // plain fp32 without one.
  auto trained = [&](const std::string& target) {
    torch::manual_seed(5);
    Net net;
    torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(0.02));
    TrackerOptions o;
    o.run_dir = TempRunDir("trained_" + (target.empty() ? std::string("fp32") : target));
    o.simulate = !target.empty();
    o.target = target;
    Tracker t(net, opt, o);
    for (int s = 0;; ++s) {
      opt.zero_grad();
      torch::Tensor loss = torch::mse_loss(net.forward(t, x), y) * 0.5;
      if (s == kSteps) return loss.item<double>();
      (loss * 4).backward();  // a static loss scale
      t.step(loss * 4);
    }
  };
  torch::manual_seed(5);
  Net net;
  torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(0.02));
  TrackerOptions o;
  o.run_dir = TempRunDir("rollout");
  o.probe_targets = targets;
  o.probe_every = 2;
  o.probe_rollout = kSteps;
  o.probe_rollout_every = 2;
  o.probe_loss_scale = 4;
  Tracker* tracker = nullptr;
  o.probe = [&] { return torch::mse_loss(net.forward(*tracker, x), y) * 0.5; };
  {
    Tracker t(net, opt, o);
    tracker = &t;
    for (int s = 0; s < 3; ++s) {
      opt.zero_grad();
      torch::Tensor loss = torch::mse_loss(net.forward(t, x), y) * 0.5;
      (loss * 4).backward();
      t.step(loss * 4);
    }
    ASSERT_TRUE(t.Close().ok());
  }
  const auto rollouts = ScalarsOf(o.run_dir, "rollout_loss");
  ASSERT_EQ(rollouts.size(), targets.size() + 1);
  ASSERT_EQ(rollouts.at("rollout_loss").size(), 2u);  // steps 0 and 2
  // Recorded in the units of step()'s loss: times the loss scale (4: exact).
  const double fp32 = rollouts.at("rollout_loss").at(0);
  EXPECT_EQ(fp32, 4 * trained(""));
  for (const std::string& target : targets) {
    const double r = rollouts.at("rollout_loss:" + target).at(0);
    EXPECT_EQ(r, 4 * trained(target)) << target;
    EXPECT_NE(r, fp32) << target << ": the rollout cast nothing";
  }
  // The probe's loss too: at step 0 the probe as is computes the training's
  // forward pass, so it is recorded as step() recorded the scaled loss.
  EXPECT_EQ(ScalarsOf(o.run_dir, "probe_loss").at("probe_loss").at(0), ScalarsOf(o.run_dir, "loss").at("loss").at(0));
}

// A rollout counts the updates it skips because the gradients, as the
// target stores them, are not finite ("rollout_skipped:TARGET"): under a
// loss scale of 2^20, fp16's weight gradients overflow to Inf and every
// update of fp16-npu-ftz's rollout is skipped, so it ends where it started,
// at its probe loss, bit for bit (what lp_rollout reads as a stall); bf16
// and fp32 hold the same gradients and skip none.
TEST_F(TargetTracker, RolloutCountsTheUpdatesItSkips) {
  torch::manual_seed(5);
  Net net;
  torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(0.02));
  TrackerOptions o;
  o.run_dir = TempRunDir("rollout_skipped");
  o.probe_targets = {"fp16-npu-ftz", "bf16-accelerator"};
  o.probe_every = 2;
  o.probe_rollout = 3;
  o.probe_rollout_every = 2;
  const double scale = 1 << 20;
  o.probe_loss_scale = scale;
  const torch::Tensor x = torch::randn({16, 8}) * 3, y = torch::randn({16, 4});
  Tracker* tracker = nullptr;
  o.probe = [&] { return torch::mse_loss(net.forward(*tracker, x), y); };
  {
    Tracker t(net, opt, o);
    tracker = &t;
    for (int s = 0; s < 3; ++s) {
      opt.zero_grad();
      torch::Tensor loss = torch::mse_loss(net.forward(t, x), y) * scale;
      loss.backward();
      t.step(loss);
    }
    ASSERT_TRUE(t.Close().ok());
  }
  const auto skipped = ScalarsOf(o.run_dir, "rollout_skipped");
  ASSERT_EQ(skipped.size(), 3u);  // fp32 and both targets
  using Steps = std::map<int64_t, double>;
  EXPECT_EQ(skipped.at("rollout_skipped:fp16-npu-ftz"), (Steps{{0, 3}, {2, 3}}));
  EXPECT_EQ(skipped.at("rollout_skipped:bf16-accelerator"), (Steps{{0, 0}, {2, 0}}));
  EXPECT_EQ(skipped.at("rollout_skipped"), (Steps{{0, 0}, {2, 0}}));
  const auto rollouts = ScalarsOf(o.run_dir, "rollout_loss");
  const auto probes = ScalarsOf(o.run_dir, "probe_loss");
  EXPECT_EQ(rollouts.at("rollout_loss:fp16-npu-ftz"), probes.at("probe_loss:fp16-npu-ftz"));
  for (const char* name : {"rollout_loss", "rollout_loss:bf16-accelerator"}) {
    const std::string start = std::string(name) == "rollout_loss" ? "probe_loss" : "probe_loss:bf16-accelerator";
    for (int64_t step : {0, 2}) EXPECT_LT(rollouts.at(name).at(step), probes.at(start).at(step)) << name << " trains";
  }
}

// A tracker that probes (and rolls out) every step trains exactly as one
// that does not: weights, gradients, optimizer state, BatchNorm statistics
// and dropout's random draws untouched.
TEST_F(TargetTracker, ProbeLeavesTheTrainingAsItFound) {
  auto run = [&](int probe, const std::string& tag) {
    torch::manual_seed(9);
    torch::nn::Sequential m(torch::nn::Linear(8, 16), torch::nn::BatchNorm1d(16), torch::nn::Dropout(0.3),
                            torch::nn::Linear(16, 4));
    torch::optim::Adam opt(m->parameters(), torch::optim::AdamOptions(1e-2));
    TrackerOptions o;
    o.run_dir = TempRunDir(tag);
    torch::Tensor x, y;
    Tracker* tracker = nullptr;
    auto forward = [&] {
      torch::Tensor h = m[1]->as<torch::nn::BatchNorm1d>()->forward(m[0]->as<torch::nn::Linear>()->forward(x));
      h = tracker->tap("bn", h, "BatchNorm");
      return torch::mse_loss(m[3]->as<torch::nn::Linear>()->forward(m[2]->as<torch::nn::Dropout>()->forward(h)), y);
    };
    if (probe) {
      o.probe = forward;
      o.probe_targets = {"h100-fp8-current", "b200-nvfp4"};
      o.probe_every = 1;
      o.probe_rollout = probe == 2 ? 2 : 0;
      o.probe_rollout_every = 1;
    }
    std::vector<double> losses;
    Tracker t(*m, opt, o);
    tracker = &t;
    for (int s = 0; s < 4; ++s) {
      x = torch::randn({32, 8}), y = torch::randn({32, 4});
      opt.zero_grad();
      torch::Tensor loss = forward();
      losses.push_back(loss.item<double>());
      loss.backward();
      t.step(loss);
    }
    // The probe records nothing: the last tracked step has the same records.
    std::vector<std::string> records;
    for (const TensorRecord& r : t.last_records()) records.push_back(ToString(r.role) + ":" + r.name);
    losses.push_back(static_cast<double>(records.size()));
    std::vector<torch::Tensor> state;
    for (const torch::Tensor& p : m->parameters()) state.push_back(p.detach().clone());
    for (const torch::Tensor& b : m->buffers()) state.push_back(b.detach().clone());
    state.push_back(torch::rand({4}));  // the random state after the run
    return std::make_pair(losses, state);
  };
  const auto [plain_losses, plain] = run(0, "plain");
  for (int probe : {1, 2}) {
    const auto [probed_losses, probed] = run(probe, probe == 1 ? "probed" : "rolled_out");
    EXPECT_EQ(plain_losses, probed_losses) << (probe == 1 ? "probes" : "rollouts");
    ASSERT_EQ(plain.size(), probed.size());
    for (size_t i = 0; i < plain.size(); ++i) EXPECT_TRUE(torch::equal(plain[i], probed[i])) << "tensor " << i;
  }
}

// A closure that throws inside a rollout: the exception reaches step()'s
// caller and the run is as it was: weights, this step's gradients and the
// optimizer state (Adam's moments after one update).
TEST_F(TargetTracker, RolloutThatThrowsLeavesTheRunAsItFound) {
  torch::manual_seed(5);
  Net net;
  torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(0.02));
  TrackerOptions o;
  o.run_dir = TempRunDir("rollout_throws");
  o.probe_targets = {"h100-fp8-current"};
  o.probe_every = 1;
  o.probe_rollout = 2;
  o.probe_rollout_every = 1;
  const torch::Tensor x = torch::randn({16, 8}), y = torch::randn({16, 4});
  Tracker* tracker = nullptr;
  int calls = 0;
  o.probe = [&] {
    // Probes run without gradients, rollouts with: the fourth rollout call
    // is the target's second step, after an update of its optimizer state.
    if (torch::GradMode::is_enabled() && ++calls == 4) throw std::runtime_error("closure failed");
    return torch::mse_loss(net.forward(*tracker, x), y);
  };
  Tracker t(net, opt, o);
  tracker = &t;
  auto train_step = [&] {
    opt.zero_grad();
    torch::Tensor loss = torch::mse_loss(net.forward(t, x), y);
    loss.backward();
    t.step(loss);
  };
  calls = -100;  // step 0 rolls out without throwing: Adam has state after it
  train_step();
  calls = 0;
  opt.zero_grad();
  torch::Tensor loss = torch::mse_loss(net.forward(t, x), y);
  loss.backward();
  // Weights, gradients and Adam's moments, copied.
  auto snapshot = [&] {
    std::vector<torch::Tensor> out;
    for (const torch::Tensor& p : net.parameters()) {
      const auto& s = static_cast<const torch::optim::AdamParamState&>(
          *opt.state().at(c10::guts::to_string(p.unsafeGetTensorImpl())));
      for (const torch::Tensor& t : {p.detach(), p.grad(), s.exp_avg(), s.exp_avg_sq()}) out.push_back(t.clone());
    }
    return out;
  };
  const std::vector<torch::Tensor> before = snapshot();
  EXPECT_THROW(t.step(loss), std::runtime_error);
  EXPECT_EQ(calls, 4);
  const std::vector<torch::Tensor> after = snapshot();
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(torch::equal(before[i], after[i])) << "tensor " << i;
}

// An inference-only target (int8-npu) is probed but never rolled out: no
// training happens on it. Beside one that trains, only that one rolls out;
// alone, no rollout runs at all (not even fp32's).
TEST_F(TargetTracker, InferenceOnlyTargetsAreProbedNotRolledOut) {
  for (const std::vector<std::string>& targets :
       {std::vector<std::string>{"int8-npu", "h100-fp8-current"}, std::vector<std::string>{"int8-npu"}}) {
    torch::manual_seed(5);
    Net net;
    torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.05));
    TrackerOptions o;
    o.run_dir = TempRunDir("inference_only_" + std::to_string(targets.size()));
    o.probe_targets = targets;
    o.probe_every = 1;
    o.probe_rollout = 2;
    o.probe_rollout_every = 1;
    const torch::Tensor x = torch::randn({16, 8}), y = torch::randn({16, 4});
    Tracker* tracker = nullptr;
    o.probe = [&] { return torch::mse_loss(net.forward(*tracker, x), y); };
    {
      Tracker t(net, opt, o);
      tracker = &t;
      for (int step = 0; step < 3; ++step) {
        opt.zero_grad();
        torch::Tensor loss = torch::mse_loss(net.forward(t, x), y);
        loss.backward();
        t.step(loss);
      }
    }
    const auto probes = ScalarsOf(o.run_dir, "probe_loss");
    EXPECT_EQ(probes.at("probe_loss:int8-npu").size(), 3u);
    const auto rollouts = ScalarsOf(o.run_dir, "rollout_loss");
    EXPECT_EQ(rollouts.count("rollout_loss:int8-npu"), 0u);
    if (targets.size() == 2) {
      EXPECT_EQ(rollouts.at("rollout_loss:h100-fp8-current").size(), 3u);
      EXPECT_EQ(rollouts.at("rollout_loss").size(), 3u);
    } else {
      EXPECT_TRUE(rollouts.empty()) << rollouts.begin()->first;
    }
    std::filesystem::remove_all(o.run_dir);
  }
}

// A weight average kept as the program stores a tap's output (an EMA of
// the weights copied from tap "avg") is followed per probe target: on
// bf16-accelerator an update of 0.001 (w - avg) is below half of bf16's step
// at 1.0 and is lost at every step, so the probe reads an average that never
// left 1.0 while fp32's moved on; a larger update follows fp32's within the
// bf16 steady-state lag; the same average kept without a tap, or tapped
// where it is (the tap reads it; its cast is not what is kept), is the fp32
// buffer on the target too. A second weight of the same shape (trained
// elsewhere) is not taken for the averaged one.
TEST_F(TargetTracker, ProbesReadWeightAveragesAsTheTargetKeepsThem) {
  struct Averaged : torch::nn::Module {
    Averaged() {
      w = register_parameter("w", torch::ones({64}));
      v = register_parameter("v", torch::ones({64}));
      avg = register_buffer("avg_w", torch::ones({64}));
    }
    torch::Tensor w, v, avg;
  };
  std::vector<std::string> notes;
  enum Kept { kThroughTheTap, kUntapped, kTappedInPlace };
  auto run = [&](double rate, Kept kept) {
    Averaged m;
    torch::optim::SGD opt(m.parameters(), torch::optim::SGDOptions(0.1));
    const torch::Tensor goal = torch::linspace(1.2, 1.8, 64);
    TrackerOptions o;
    o.run_dir = TempRunDir("average_" + std::to_string(rate) + "_" + std::to_string(kept));
    o.probe_targets = {"bf16-accelerator"};
    o.probe_every = 8;
    o.probe = [&] { return m.avg.mean(); };
    {
      Tracker t(m, opt, o);
      for (int step = 0; step <= 32; ++step) {
        opt.zero_grad();
        {
          torch::NoGradGuard no_grad;
          const torch::Tensor next = m.avg + rate * (m.w.detach() - m.avg);
          m.avg.copy_(kept == kThroughTheTap ? t.tap("avg", next, "Add") : next);
          if (kept == kTappedInPlace) t.tap("avg", m.avg, "Add");  // read where it is: the cast is not kept
        }
        torch::Tensor loss = 0.5 * ((m.w - goal).square().sum() + (m.v + 2).square().sum());
        loss.backward();
        t.step(loss);
      }
      notes = t.notes();
    }
    const auto probes = ScalarsOf(o.run_dir, "probe_loss");
    std::filesystem::remove_all(o.run_dir);
    return std::make_pair(probes.at("probe_loss").at(32), probes.at("probe_loss:bf16-accelerator").at(32));
  };
  const auto [fp32_slow, bf16_slow] = run(0.001, kThroughTheTap);
  // The user is told which buffer is followed, and as the average of what.
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("buffer 'avg_w', stored from tap 'avg', moves as an average of 'w' (b += 0.001 (w - b)"),
            std::string::npos)
      << notes[0];
  EXPECT_GT(fp32_slow, 1.005);
  EXPECT_EQ(bf16_slow, 1.0) << "the bf16 average moved: its updates were not lost";
  const auto [fp32_fast, bf16_fast] = run(0.25, kThroughTheTap);
  EXPECT_GT(fp32_fast, 1.2);
  EXPECT_NEAR(bf16_fast, fp32_fast, 0.01);
  EXPECT_NE(bf16_fast, fp32_fast);
  for (Kept kept : {kUntapped, kTappedInPlace}) {
    const auto [fp32_kept, bf16_kept] = run(0.001, kept);
    EXPECT_TRUE(notes.empty()) << kept << ": " << notes[0];
    EXPECT_EQ(fp32_kept, fp32_slow) << kept;
    EXPECT_EQ(bf16_kept, fp32_kept) << kept;
  }
}

TEST_F(TargetTracker, BadProbeSettingsFailAtConstruction) {
  Net net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.01));
  auto error = [&](TrackerOptions o) -> std::string {
    o.run_dir = TempRunDir("bad_probe");
    StatusOr<std::unique_ptr<Tracker>> t = Tracker::Create(net, opt, o);
    return t.ok() ? "" : t.status().message();
  };
  auto probe = [] { return torch::zeros({}); };
  TrackerOptions o;
  o.probe_targets = {"b200-nvfp4"};
  EXPECT_NE(error(o).find("probe_targets is set but TrackerOptions.probe is empty"), std::string::npos) << error(o);
  o.probe = probe;
  o.probe_targets = {"tpu-v9"};
  EXPECT_NE(error(o).find("TrackerOptions.probe_targets: unknown target 'tpu-v9'"), std::string::npos) << error(o);
  o.probe_targets = {};
  EXPECT_NE(error(o).find("names no hardware"), std::string::npos) << error(o);
  o.target = "b200-nvfp4";
  EXPECT_EQ(error(o), "");  // the run's target is probed
  o.simulate = true;
  EXPECT_NE(error(o).find("set simulate = false or leave probe empty"), std::string::npos) << error(o);
  o.simulate = false;
  o.probe_every = 0;
  EXPECT_NE(error(o).find("probe_every must be >= 1"), std::string::npos) << error(o);
  o.probe_every = 4;
  o.probe_rollout = -1;
  EXPECT_NE(error(o).find("probe_rollout must be >= 0"), std::string::npos) << error(o);
  o.probe_rollout = 8;
  o.probe_rollout_every = 6;
  EXPECT_NE(error(o).find("probe_rollout_every must be a positive multiple of probe_every (4)"), std::string::npos)
      << error(o);
  o.probe_rollout_every = 8;
  o.probe_loss_scale = 0;
  EXPECT_NE(error(o).find("probe_loss_scale must be a finite number > 0"), std::string::npos) << error(o);
  o.probe_loss_scale = 1;
  EXPECT_EQ(error(o), "");
  o.probe_targets = {"b200-nvfp4", "b200-nvfp4"};
  EXPECT_NE(error(o).find("names 'b200-nvfp4' twice"), std::string::npos) << error(o);
}

}  // namespace
}  // namespace lpsim
