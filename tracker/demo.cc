#include "tracker/demo.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <new>

#include "live/agent.h"

#include "tracker/layers.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

constexpr int64_t kClasses = 10;
constexpr int64_t kFeatures = 32;
constexpr int64_t kImage = 16;

TrackedSequential MakeMlp() {
  namespace nn = torch::nn;
  return TrackedSequential(torch::OrderedDict<std::string, nn::AnyModule>{
      {"fc1", nn::AnyModule(Linear(kFeatures, 128))},
      {"relu1", nn::AnyModule(nn::ReLU())},
      {"fc2", nn::AnyModule(Linear(128, 128))},
      {"relu2", nn::AnyModule(nn::ReLU())},
      {"fc3", nn::AnyModule(Linear(128, kClasses))},
  });
}

TrackedSequential MakeCnn() {
  namespace nn = torch::nn;
  return TrackedSequential(torch::OrderedDict<std::string, nn::AnyModule>{
      {"conv1", nn::AnyModule(Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)))},
      {"relu1", nn::AnyModule(nn::ReLU())},
      {"pool1", nn::AnyModule(nn::MaxPool2d(2))},
      {"conv2", nn::AnyModule(Conv2d(nn::Conv2dOptions(8, 16, 3).padding(1)))},
      {"relu2", nn::AnyModule(nn::ReLU())},
      {"pool2", nn::AnyModule(nn::MaxPool2d(2))},
      {"flatten", nn::AnyModule(nn::Flatten())},
      {"fc", nn::AnyModule(Linear(16 * 4 * 4, kClasses))},
  });
}

}  // namespace

DemoTask::DemoTask(const std::string& model)
    : model_(model == "cnn" ? "cnn" : "mlp"), centers_(2.0 * torch::randn({kClasses, kFeatures})) {}

TrackedSequential DemoTask::MakeModel() const { return model_ == "mlp" ? MakeMlp() : MakeCnn(); }

// A batch of the synthetic task; `centers_` fixes the MLP clusters.
std::pair<torch::Tensor, torch::Tensor> DemoTask::Batch(int64_t n) const {
  const std::string& model = model_;
  const torch::Tensor& centers = centers_;
  torch::Tensor y = torch::randint(kClasses, {n}, torch::kLong);
  if (model == "mlp") {
    torch::Tensor x = centers.index_select(0, y) + 0.5 * torch::randn({n, kFeatures});
    return {x, y};
  }
  torch::Tensor x = 0.3 * torch::randn({n, 1, kImage, kImage});
  auto acc = y.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = acc[i];
    const int64_t r0 = (c / 4) * 5, c0 = (c % 4) * 4;  // 3 rows x 4 cols of slots
    x.index({i, 0, torch::indexing::Slice(r0, r0 + 4), torch::indexing::Slice(c0, c0 + 4)}) += 1.0;
  }
  return {x, y};
}

StatusOr<DemoResult> RunDemo(const DemoOptions& o, std::ostream* progress) {
  if (o.model != "mlp" && o.model != "cnn") {
    return Status::Error("unknown demo model '" + o.model + "': use mlp or cnn");
  }
  if (o.steps < 1 || o.steps > kDemoMaxSteps) {
    return Status::Error("--steps must be in 1.." + std::to_string(kDemoMaxSteps));
  }
  if (o.batch < 1 || o.batch > kDemoMaxBatch) {
    return Status::Error("--batch must be in 1.." + std::to_string(kDemoMaxBatch));
  }
  if (!(std::isfinite(o.lr) && o.lr > 0 && o.lr <= kDemoMaxLr)) {
    return Status::Error("--lr must be a number in (0, " + std::to_string(static_cast<int>(kDemoMaxLr)) +
                         "], e.g. 0.001");
  }
  if (o.every < 1) return Status::Error("--every must be >= 1");
  StatusOr<Scaling> recipe = Scaling::Parse(o.recipe);
  if (!recipe.ok()) return recipe.status();

  torch::manual_seed(o.seed);
  const DemoTask task(o.model);
  TrackedSequential model = task.MakeModel();
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(o.lr));

  TrackerOptions topt;
  topt.formats = o.formats;
  topt.scaling = recipe.value();
  topt.every = o.every;
  topt.run_dir = o.run_dir;
  topt.overwrite = o.overwrite;
  topt.simulate = o.simulate;
  topt.simulate_forward = o.simulate_forward;
  topt.simulate_backward = o.simulate_backward;
  topt.target = o.target;
  topt.matmul_unit = o.matmul_unit;
  topt.capture_model = o.model;  // `lpsim replay` rebuilds it
  topt.live_port = o.live_port;
  topt.live_port_name = o.live_port_name;
  torch::Tensor probe_x, probe_y;  // the batch of the step in progress
  if (!o.probe_targets.empty()) {
    topt.probe = [&] { return torch::nn::functional::cross_entropy(model->forward(probe_x), probe_y); };
    topt.probe_targets = o.probe_targets;
    topt.probe_every = o.probe_every;
    topt.probe_rollout = o.probe_rollout;
    topt.probe_rollout_every = o.probe_rollout_every;
  }
  // The demo's summary lists the findings; no warnings on stderr mid-bar.
  for (auto& rule : topt.check_config.rules) rule.second.policy = Policy::kLog;
  StatusOr<std::unique_ptr<Tracker>> made = Tracker::Create(*model, optimizer, topt);
  if (!made.ok()) return made.status();
  Tracker& tracker = *made.value();
  if (live::Agent* agent = tracker.live_agent()) {
    Status s = agent->AddKnob({"lr", "Adam's learning rate", live::KnobType::kNumber, 0, kDemoMaxLr}, o.lr,
                              [&optimizer](const nlohmann::json& v) {
                                if (!(v.get<double>() > 0)) return Status::Error("lr must be > 0");
                                for (auto& group : optimizer.param_groups()) {
                                  static_cast<torch::optim::AdamOptions&>(group.options()).lr(v.get<double>());
                                }
                                return Status();
                              });
    if (!s.ok()) return s;
  }

  DemoResult r;
  r.run_path = tracker.run_path();
  const bool tty = progress == &std::cerr && ::isatty(2);
  const auto start = std::chrono::steady_clock::now();
  // A run that training cannot finish is marked failed, never "ok": an
  // exception (LibTorch, no memory) or no step applied at all.
  int s = 0;
  try {
    for (; s < o.steps; ++s) {
      auto [x, y] = task.Batch(o.batch);
      probe_x = x, probe_y = y;
      tracker.set_batch(x, y);
      optimizer.zero_grad();
      torch::Tensor logits = model->forward(x);
      torch::Tensor loss = torch::nn::functional::cross_entropy(logits, y);
      loss.backward();
      StepResult sr = tracker.step(loss);
      const double l = loss.item<double>();
      if (s == 0) r.first_loss = l;
      r.final_loss = l;
      r.losses.push_back(l);
      if (!sr.applied) ++r.skipped_steps;
      // A live bar on a terminal; on a pipe or file, a line per tenth of the run.
      const bool bar_step = tty ? (s % 10 == 9) : ((s + 1) % std::max(1, o.steps / 10) == 0);
      if (progress && o.progress && (bar_step || s + 1 == o.steps)) {
        const size_t width = 30;
        const size_t filled = static_cast<size_t>(static_cast<int64_t>(width) * (s + 1) / o.steps);
        char line[160];
        std::snprintf(line, sizeof line, "%s[%s%s] step %d/%d  loss %.4f%s", tty ? "\r" : "", std::string(filled, '#').c_str(),
                      std::string(width - filled, '.').c_str(), s + 1, o.steps, l, tty ? "" : "\n");
        *progress << line << std::flush;
      }
    }
    if (progress && o.progress && tty) *progress << "\n";

    {  // accuracy on a fresh batch, without tracking (eval outside the loop)
      torch::NoGradGuard no_grad;
      model->eval();  // TrackedSequential taps only in training mode
      auto [x, y] = task.Batch(1024);
      torch::Tensor logits = model->forward(x);
      r.accuracy = logits.argmax(1).eq(y).to(torch::kFloat).mean().item<double>();
    }
    tracker.scalar("accuracy", r.accuracy);
  } catch (const c10::Error& e) {
    const std::string why = "training failed at step " + std::to_string(s) + ": " +
                            e.what_without_backtrace();
    (void)tracker.Close("failed: " + why);
    return Status::Failed(why);
  } catch (const std::bad_alloc&) {
    const std::string why = "training ran out of memory at step " + std::to_string(s);
    (void)tracker.Close("failed: " + why);
    return Status::Failed(why + ": use a smaller --batch or model");
  }
  if (r.skipped_steps == o.steps) {
    const std::string why = "no step of " + std::to_string(o.steps) +
                            " was applied: every loss or gradient was NaN or Inf";
    (void)tracker.Close("failed: " + why);
    char lr[32];
    std::snprintf(lr, sizeof lr, "%g", o.lr);
    return Status::Failed(why + "; the run is marked failed (look at --lr " + lr +
                          " and at simulated formats that overflow to Inf)");
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.last_records = tracker.last_records();
  r.notes = tracker.notes();
  r.findings = tracker.findings();
  Status closed = tracker.Close("finished");
  if (!closed.ok()) return closed;
  return r;
}

}  // namespace lpsim
