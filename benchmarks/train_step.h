// The training the tracker benchmarks time (tracker_bench.cc, live_bench.cc):
// a demo model seeded the same way in every benchmark, batches made before
// the timed loop and reused in turn, one step as a training loop takes it,
// and a run folder of the benchmark's own under the temporary directory.
//
//   DemoTraining t("mlp");  // torch::manual_seed(0), the model, Adam (lr 1e-3)
//   auto tracker = std::make_unique<Tracker>(*t.model, t.optimizer, options);
//   Batches batches(16, [&] { return t.task.Batch(64); });
//   for (auto _ : state) TrainStep(t.model, t.optimizer, tracker.get(), batches.Next());
#ifndef LPSIM_BENCHMARKS_TRAIN_STEP_H_
#define LPSIM_BENCHMARKS_TRAIN_STEP_H_

#include <torch/torch.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tracker/demo.h"
#include "tracker/tracker.h"

namespace lpsim {

using Batch = std::pair<torch::Tensor, torch::Tensor>;  // inputs, targets

// n batches from make(), made now (outside the timed loop); Next() hands them
// out in turn.
class Batches {
 public:
  template <typename Make>
  Batches(int n, Make make) {
    for (int i = 0; i < n; ++i) batches_.push_back(make());
  }
  const Batch& Next() { return batches_[next_++ % batches_.size()]; }

 private:
  std::vector<Batch> batches_;
  size_t next_ = 0;
};

// One training step: forward, cross-entropy, backward, then the update:
// Tracker::step applies it (and tracks the step), or the optimizer alone
// when there is no tracker (the untracked baseline).
template <typename Model>
void TrainStep(Model& model, torch::optim::Optimizer& optimizer, Tracker* tracker, const Batch& b) {
  optimizer.zero_grad();
  torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(b.first), b.second);
  loss.backward();
  if (tracker) {
    tracker->step(loss);
  } else {
    optimizer.step();
  }
}

// A demo model (tracker/demo.h: "mlp" or "cnn") after torch::manual_seed(0),
// with its Adam optimizer.
struct DemoTraining {
  explicit DemoTraining(const std::string& model_name) : task(Seeded(model_name)) {}

  const DemoTask task;
  TrackedSequential model = task.MakeModel();
  torch::optim::Adam optimizer{model->parameters(), torch::optim::AdamOptions(1e-3)};

 private:
  static DemoTask Seeded(const std::string& model_name) {
    torch::manual_seed(0);
    return DemoTask(model_name);
  }
};

// TMP/<bench>_<pid>_<tag>: a run folder no other process uses.
inline std::string BenchRunDir(const std::string& bench, const std::string& tag) {
  return (std::filesystem::temp_directory_path() /
          (bench + "_" + std::to_string(::getpid()) + "_" + tag))
      .string();
}

}  // namespace lpsim

#endif  // LPSIM_BENCHMARKS_TRAIN_STEP_H_
