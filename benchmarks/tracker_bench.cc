// What tracking costs a training step: the demo MLP and CNN trained with
// no tracker, with every tensor of every role tracked in three formats every
// step, and every 10 steps. The ratio tracked / untracked of one run is the
// figure that matters (README "Tracking overhead").
//
//   build/bin/lpsim_tracker_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "tracker/demo.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

constexpr int64_t kBatch = 64;

// mode: 0 untracked, else the tracking interval.
void BM_TrainStep(benchmark::State& state, const std::string& model_name) {
  const int every = static_cast<int>(state.range(0));
  torch::manual_seed(0);
  const DemoTask task(model_name);
  TrackedSequential model = task.MakeModel();
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
  std::unique_ptr<Tracker> tracker;
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("lpsim_bench_" + std::to_string(::getpid()) + "_" + model_name))
                              .string();
  if (every > 0) {
    TrackerOptions o;
    o.formats = {"e4m3fn", "e5m2", "bf16"};
    o.scaling = Scaling::Delayed(16);
    o.every = every;
    o.run_dir = dir;
    o.overwrite = true;
    tracker = std::make_unique<Tracker>(*model, optimizer, o);
  }
  std::vector<std::pair<torch::Tensor, torch::Tensor>> batches;
  for (int i = 0; i < 16; ++i) batches.push_back(task.Batch(kBatch));
  size_t i = 0;
  for (auto _ : state) {
    const auto& [x, y] = batches[i++ % batches.size()];
    optimizer.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    if (tracker) {
      tracker->step(loss);
    } else {
      optimizer.step();
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.SetLabel(every == 0 ? "untracked" : "every " + std::to_string(every));
  tracker.reset();
  std::filesystem::remove_all(dir);
}

BENCHMARK_CAPTURE(BM_TrainStep, mlp, std::string("mlp"))->ArgName("every")->Arg(0)->Arg(1)->Arg(10)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_TrainStep, cnn, std::string("cnn"))->ArgName("every")->Arg(0)->Arg(1)->Arg(10)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lpsim

BENCHMARK_MAIN();
