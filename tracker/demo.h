// The built-in models and data behind `lpsim demo` (no downloads).
//
// Synthetic, deterministic classification tasks: "mlp" learns 10 Gaussian
// clusters in 32 dimensions, "cnn" learns where a bright square sits in a
// noisy 16x16 image. Both train with the tracker attached, so a new user sees
// per-layer underflow, overflow and SNR for each candidate format.
//
//   DemoOptions o;  o.model = "cnn";  o.steps = 200;
//   StatusOr<DemoResult> r = RunDemo(o, &std::cerr);
#ifndef LPSIM_TRACKER_DEMO_H_
#define LPSIM_TRACKER_DEMO_H_

#include <ostream>
#include <string>
#include <vector>

#include "core/records.h"
#include "core/status.h"
#include "tracker/tracker.h"

namespace lpsim {

// The ranges RunDemo accepts (checked before anything runs): Adam's learning
// rate in (0, kDemoMaxLr], beyond which the demo only diverges; steps and
// batch up to sizes that finish in hours, not years, and fit in memory.
constexpr double kDemoMaxLr = 10;
constexpr int kDemoMaxSteps = 10000000;
constexpr int kDemoMaxBatch = 65536;

struct DemoOptions {
  std::string model = "mlp";  // mlp | cnn
  int steps = 300;
  int batch = 64;
  double lr = 1e-3;
  std::vector<std::string> formats = {"e4m3fn", "e5m2", "bf16"};
  std::string recipe = "delayed16";
  bool simulate = false;
  std::string simulate_forward = "e4m3fn";
  std::string simulate_backward = "e5m2";
  std::string target;  // a hardware target (TrackerOptions::target)
  // Simulate mode: the matrix unit of the models' lpsim::Linear/Conv2d
  // layers (TrackerOptions::matmul_unit); empty: the target's, else none.
  std::string matmul_unit;
  int every = 1;
  // Probes (TrackerOptions::probe): the training loss's forward pass on
  // each of these targets every probe_every steps; lp_forward_loss judges it.
  std::vector<std::string> probe_targets;
  int probe_every = 8;
  // Rollouts (TrackerOptions::probe_rollout): with probe_targets, every
  // probe_rollout_every steps train probe_rollout steps from here in fp32
  // and on each target; lp_rollout judges them. 0: none.
  int probe_rollout = 0;
  int probe_rollout_every = 16;
  std::string run_dir = "runs/demo";
  bool overwrite = true;
  uint64_t seed = 0;
  bool progress = true;  // a progress bar on the given stream
  // Live agent (TrackerOptions::live_port): -1 off, 0 a free port. The demo
  // adds a knob "lr" (Adam's learning rate) to the tracker's.
  int live_port = -1;
  std::string live_port_name = "DemoOptions.live_port";  // how an error names it (the CLI: "--live-port")
};

struct DemoResult {
  std::string run_path;
  double first_loss = 0, final_loss = 0, accuracy = 0;
  std::vector<double> losses;  // every step's training loss
  int64_t skipped_steps = 0;
  double seconds = 0;
  std::vector<TensorRecord> last_records;  // of the last tracked step
  std::vector<std::string> notes;
  std::vector<Finding> findings;  // the live rules' findings (checks/), in order
};

StatusOr<DemoResult> RunDemo(const DemoOptions& opt, std::ostream* progress);

// The demo's model and data, for benchmarks and tests: a fresh model
// (deterministic under torch::manual_seed; built from lpsim::Linear and
// lpsim::Conv2d, tracker/layers.h) and batches of its task.
class DemoTask {
 public:
  // model: "mlp" or "cnn" (anything else is "mlp").
  explicit DemoTask(const std::string& model);
  TrackedSequential MakeModel() const;
  std::pair<torch::Tensor, torch::Tensor> Batch(int64_t n) const;

 private:
  std::string model_;
  torch::Tensor centers_;
};

}  // namespace lpsim

#endif  // LPSIM_TRACKER_DEMO_H_
