// Capture and replay of a failing training step (the "monster bug").
//
// When the loss or a gradient turns NaN/Inf, Tracker::step skips the update
// and writes RUN_DIR/captures/step_N/ (WriteCapture below):
//   manifest.json   step, model name, loss, lr, reason, file list, lpsim version
//   finding.json    the finding that triggered the capture
//   inputs.pt       the batch (Tracker::set_batch), when registered
//   targets.pt
//   model.pt        every parameter and buffer, by name (torch::serialize)
//   optimizer.pt    torch::save(optimizer)
//   rng.pt          the default CPU generator's state when the batch was set
//                   (or at the step, without set_batch)
// Because the update was skipped, model.pt and optimizer.pt hold exactly the
// state the failing forward/backward saw.
//
// Replay reloads a capture into a fresh model and optimizer of the same
// architecture and re-runs the step, reporting the first tensor that went
// non-finite: the first activation in tap order, then the first parameter
// gradient in parameter order.
//
//   StatusOr<Replay> r = Replay::Load("runs/a/captures/step_41");
//   TrackedSequential model = DemoTask("mlp").MakeModel();
//   torch::optim::Adam opt(model->parameters());
//   StatusOr<ReplayResult> res = r->Run(*model, &opt, CrossEntropyLoss);
//   if (res->reproduced) std::cout << res->first_nonfinite << "\n";
#ifndef LPSIM_TRACKER_CAPTURE_H_
#define LPSIM_TRACKER_CAPTURE_H_

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "core/records.h"
#include "core/status.h"
#include "tracker/capture_manifest.h"

namespace lpsim {

// Everything the tracker knows about the failing step.
struct CaptureInput {
  CaptureManifest manifest;
  Finding finding;
  torch::Tensor inputs, targets;  // undefined when no batch was registered
  torch::Tensor rng_state;        // undefined: the current default CPU generator state
};

// Writes the folder `dir` (created; an existing folder is replaced).
Status WriteCapture(const std::string& dir, const torch::nn::Module& model,
                    const torch::optim::Optimizer& optimizer, const CaptureInput& in);

// The loss of a replayed step from the model's output and the targets.
using ReplayLoss = std::function<torch::Tensor(const torch::Tensor& output, const torch::Tensor& targets)>;
torch::Tensor CrossEntropyLoss(const torch::Tensor& output, const torch::Tensor& targets);

struct ReplayResult {
  bool reproduced = false;        // the loss or a gradient is non-finite again
  double loss = 0;
  std::string first_nonfinite;    // "activation 'fc1'", "loss", "gradient 'fc2.weight'", or ""
  std::string first_activation;   // first non-finite module output in tap order ("" if none)
  std::string first_gradient;     // first non-finite parameter gradient in parameter order
  std::vector<std::string> nonfinite_gradients;  // all of them, in parameter order
};

class Replay {
 public:
  static StatusOr<Replay> Load(const std::string& dir);

  const CaptureManifest& manifest() const { return manifest_; }
  const std::string& dir() const { return dir_; }
  const torch::Tensor& inputs() const { return inputs_; }
  const torch::Tensor& targets() const { return targets_; }

  // Loads the captured parameters, buffers (by name) and optimizer state into
  // `model` and `optimizer` (may be null), and the RNG state. Fails with a
  // message naming the first tensor that is missing or has another shape.
  Status Restore(torch::nn::Module& model, torch::optim::Optimizer* optimizer) const;

  // Restore, then forward the captured inputs and backward the loss. A
  // TrackedSequential model is run child by child so each output is checked
  // (tap order); any other model is run through `forward` and only its
  // output, the loss and the gradients are checked.
  StatusOr<ReplayResult> Run(torch::nn::Module& model, torch::optim::Optimizer* optimizer,
                             const ReplayLoss& loss,
                             const std::function<torch::Tensor(const torch::Tensor&)>& forward = {}) const;

 private:
  std::string dir_;
  CaptureManifest manifest_;
  torch::Tensor inputs_, targets_, rng_state_;
};

}  // namespace lpsim

#endif  // LPSIM_TRACKER_CAPTURE_H_
