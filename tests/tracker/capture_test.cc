// Capture and replay: a NaN planted in a demo-model batch skips the update,
// writes the capture folder and its captures row, and Replay reproduces the
// non-finite step naming the first tensor; the live rules store findings and
// apply their policies (stop, raise, capture).
#include "tracker/capture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "store/run_db.h"
#include "tracker/demo.h"
#include "tests/tracker/test_net.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;

std::string TempRunDir(const std::string& tag) { return TestRunDir("capture", tag); }

TEST(Capture, PlantedNanIsCapturedAndReplayed) {
  torch::manual_seed(0);
  const DemoTask task("mlp");
  TrackedSequential model = task.MakeModel();
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  TrackerOptions o;
  o.formats = {"e4m3fn"};
  o.run_dir = TempRunDir("nan");
  o.capture_model = "mlp";
  Tracker tracker(*model, opt, o);
  std::vector<torch::Tensor> params_at_capture;
  StepResult bad;
  for (int s = 0; s < 5; ++s) {
    auto [x, y] = task.Batch(16);
    if (s == 3) x[2][7] = NAN;  // the planted NaN
    tracker.set_batch(x, y);
    opt.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    StepResult r = tracker.step(loss);
    if (s == 3) {
      bad = r;
      for (const auto& p : model->parameters()) params_at_capture.push_back(p.detach().clone());
    } else {
      EXPECT_TRUE(r.applied) << s;
      EXPECT_TRUE(r.capture_dir.empty()) << s;
    }
  }
  EXPECT_TRUE(tracker.Close().ok());
  ASSERT_FALSE(bad.applied);
  const fs::path dir = fs::path(o.run_dir) / "captures" / "step_3";
  EXPECT_EQ(bad.capture_dir, dir.string());
  for (const char* f : {"manifest.json", "finding.json", "inputs.pt", "targets.pt", "model.pt", "optimizer.pt", "rng.pt"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  auto reader = RunReader::Open(o.run_dir);
  ASSERT_TRUE(reader.ok());
  auto caps = (*reader)->Captures();
  ASSERT_TRUE(caps.ok());
  ASSERT_EQ(caps->size(), 1u);
  EXPECT_EQ((*caps)[0].step, 3);
  EXPECT_EQ((*caps)[0].path, dir.string());
  // The live nonfinite rule saw the NaN in the first tap and the loss.
  bool nonfinite_fc1 = false;
  for (const Finding& f : tracker.findings()) nonfinite_fc1 |= f.rule == "nonfinite" && f.tensor == "fc1";
  EXPECT_TRUE(nonfinite_fc1);

  StatusOr<Replay> replay = Replay::Load(dir.string());
  ASSERT_TRUE(replay.ok()) << replay.status().message();
  EXPECT_EQ(replay->manifest().step, 3);
  EXPECT_EQ(replay->manifest().model, "mlp");
  EXPECT_TRUE(replay->manifest().has_batch);
  EXPECT_FALSE(replay->manifest().update_applied);
  EXPECT_TRUE(std::isnan(replay->inputs()[2][7].item<float>()));

  torch::manual_seed(123);  // a different init: Restore must bring the captured weights
  TrackedSequential fresh = DemoTask("mlp").MakeModel();
  torch::optim::Adam fresh_opt(fresh->parameters(), torch::optim::AdamOptions(1e-3));
  StatusOr<ReplayResult> r = replay->Run(*fresh, &fresh_opt, CrossEntropyLoss);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->reproduced);
  EXPECT_EQ(r->first_activation, "fc1");
  EXPECT_EQ(r->first_nonfinite, "activation 'fc1'");
  EXPECT_EQ(r->first_gradient, "fc1.weight");
  EXPECT_TRUE(std::isnan(r->loss));
  const auto fresh_params = fresh->parameters();
  ASSERT_EQ(fresh_params.size(), params_at_capture.size());
  for (size_t i = 0; i < fresh_params.size(); ++i) EXPECT_TRUE(torch::equal(fresh_params[i], params_at_capture[i])) << i;
  // The optimizer state came back too (Adam has stepped 3 times).
  EXPECT_FALSE(fresh_opt.state().empty());

  // A model of another shape is refused with the tensor's name.
  TrackedSequential cnn = DemoTask("cnn").MakeModel();
  StatusOr<ReplayResult> wrong = replay->Run(*cnn, nullptr, CrossEntropyLoss);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("capture has no tensor"), std::string::npos) << wrong.status().message();
  EXPECT_FALSE(Replay::Load(o.run_dir).ok());  // not a capture folder
}

struct Tiny : torch::nn::Module {
  Tiny() { fc = register_module("fc", torch::nn::Linear(4, 3)); }
  torch::nn::Linear fc{nullptr};
};

// One step of a model whose weight is constant (poor_initialization fires).
StepResult ConstantInitStep(Policy policy, const std::string& tag, std::vector<Finding>* findings,
                            bool background = true) {
  Tiny model;
  {
    torch::NoGradGuard g;
    model.fc->weight.fill_(0.5);
  }
  torch::optim::SGD opt(model.parameters(), torch::optim::SGDOptions(0.1));
  TrackerOptions o;
  o.formats = {"bf16"};
  o.run_dir = TempRunDir(tag);
  o.background = background;
  EXPECT_TRUE(o.check_config.SetPolicy("poor_initialization", policy).ok());
  Tracker tracker(model, opt, o);
  torch::Tensor x = torch::randn({8, 4});
  torch::Tensor y = torch::randint(3, {8});
  tracker.set_batch(x, y);
  torch::Tensor loss = torch::nn::functional::cross_entropy(model.fc->forward(x), y);
  loss.backward();
  StepResult r = tracker.step(loss);
  *findings = tracker.findings();
  EXPECT_TRUE(tracker.Close().ok());
  auto stored = RunReader::Open(o.run_dir).value()->Findings();
  bool in_db = false;
  for (const Finding& f : stored.value()) in_db |= f.rule == "poor_initialization" && f.tensor == "fc.weight";
  EXPECT_TRUE(in_db);
  return r;
}

TEST(Capture, LiveRulePoliciesLogStopCapture) {
  std::vector<Finding> findings;
  // Inline: the step's own findings come back from step().
  StepResult log = ConstantInitStep(Policy::kLog, "log", &findings, /*background=*/false);
  ASSERT_EQ(log.findings.size(), 1u);
  EXPECT_EQ(log.findings[0].rule, "poor_initialization");
  EXPECT_EQ(findings.size(), 1u);
  EXPECT_FALSE(log.stop);
  EXPECT_TRUE(log.capture_dir.empty());
  // Background: the same finding, stored and listed once the queue drains
  // (findings() waits for it); step() may return before it is judged.
  StepResult bg = ConstantInitStep(Policy::kLog, "log_bg", &findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "poor_initialization");
  EXPECT_EQ(findings[0].step, 0);
  EXPECT_LE(bg.findings.size(), 1u);
  // stop, capture and raise act on the step itself, so they make the
  // tracker analyze inline even when background is asked for.
  StepResult stop = ConstantInitStep(Policy::kStop, "stop", &findings);
  EXPECT_TRUE(stop.stop);
  StepResult cap = ConstantInitStep(Policy::kCapture, "cap", &findings);
  ASSERT_FALSE(cap.capture_dir.empty());
  StatusOr<Replay> r = Replay::Load(cap.capture_dir);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->manifest().update_applied);
  EXPECT_NE(r->manifest().reason.find("poor_initialization"), std::string::npos);
}

TEST(Capture, RaisePolicyThrowsFromStep) {
  std::vector<Finding> findings;
  EXPECT_THROW(ConstantInitStep(Policy::kRaise, "raise", &findings), TrackerError);
}

}  // namespace
}  // namespace lpsim
