// SmallSampleFit: TFCheck's "cannot fit a small sample" check (rule
// cannot_fit_small_sample). A correct model with a correct loss overfits a
// handful of examples easily; when a fresh copy of the model, trained without
// regularization on a few examples per class, cannot drive the loss down or
// reach high accuracy on them, the bug is in the model or the loss (softmax
// applied twice, a loss that cancels itself, constant initialization, a
// missing activation, dead units), not in the data or the schedule. Run it
// once before the real training; it never touches your model, optimizer or
// RNG stream.
//
//   auto r = lpsim::SmallSampleFit<Net>(
//       [] { return Net(); },
//       [](const torch::Tensor& out, const torch::Tensor& y) {
//         return torch::nn::functional::cross_entropy(out, y);
//       },
//       x_train, y_train);                  // a pool to draw the sample from
//   if (!r.ok()) std::cerr << r.status().message();
//   else if (r->finding) std::cerr << r->finding->message;
//
// Defaults (and their sources) come from the rule's entry in RuleCatalog();
// SmallSampleOptions::FromConfig reads them from a CheckConfig.
#ifndef LPSIM_TRACKER_SMALL_SAMPLE_H_
#define LPSIM_TRACKER_SMALL_SAMPLE_H_

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "checks/checker.h"
#include "core/records.h"
#include "core/status.h"

namespace lpsim {

struct SmallSampleOptions {
  // The sample. Class-index targets (an integer tensor [N]): the first
  // per_class examples of each class in the pool, at most max_examples in
  // all. Any other targets: the first min(max_examples, 16) examples
  // (TheDeepChecker's one batch of 16).
  int per_class = 4;
  int max_examples = 64;
  // Training: at most max_steps updates, stopping as soon as it fits.
  int max_steps = 300;
  // Fits when, at some step, accuracy on the sample >= min_accuracy (class
  // targets with [N, C] outputs) and the loss <= max_loss_ratio x the
  // initial loss (when that is > 0).
  double min_accuracy = 0.95;
  double max_loss_ratio = 0.1;
  // The optimizer: Adam(lr) without weight decay unless make_optimizer is
  // set (then keep regularization out of it yourself).
  double lr = 1e-2;
  std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor>)> make_optimizer;
  // The seed of torch's CPU generator while the fresh model is built and
  // trained; the generator's previous state is restored afterwards.
  uint64_t seed = 0;
  Severity severity = Severity::kError;

  // per_class, max_examples, max_steps, min_accuracy, max_loss_ratio and the
  // severity from the rule "cannot_fit_small_sample" of `config`.
  static SmallSampleOptions FromConfig(const CheckConfig& config);
};

struct SmallSampleResult {
  bool fits = false;
  bool classification = false;  // accuracy was judged
  int64_t examples = 0;         // size of the sample
  int64_t classes = 0;          // distinct classes in it (classification)
  int steps = 0;                // updates made
  double initial_loss = 0;
  double final_loss = 0;
  double min_loss = 0;
  double accuracy = 0;          // best accuracy on the sample (0 when not judged)
  // Rule cannot_fit_small_sample (step 0, no tensor) when it does not fit.
  std::optional<Finding> finding;
};

using SmallSampleModelFactory = std::function<std::shared_ptr<torch::nn::Module>()>;
using SmallSampleForward = std::function<torch::Tensor(torch::nn::Module&, const torch::Tensor&)>;
using SmallSampleLoss = std::function<torch::Tensor(const torch::Tensor& output, const torch::Tensor& target)>;

// make_model must return a fresh, untrained model each call (the way your
// program builds it, bugs included); forward runs it on a batch, e.g.
// `dynamic_cast<NetImpl&>(m).forward(x)` (Module is a virtual base). inputs and
// targets are the pool the sample is drawn from (dim 0 = examples). Errors
// (empty pool, shapes, a LibTorch exception) come back as a Status.
StatusOr<SmallSampleResult> SmallSampleFit(SmallSampleModelFactory make_model, SmallSampleForward forward,
                                           SmallSampleLoss loss, const torch::Tensor& inputs,
                                           const torch::Tensor& targets, SmallSampleOptions options = {});

// The same for a module holder (TORCH_MODULE(Net), TrackedSequential, ...):
//   lpsim::SmallSampleFit<Net>([] { return Net(3); }, loss, x, y);
template <typename Holder>
StatusOr<SmallSampleResult> SmallSampleFit(std::function<Holder()> make_model, SmallSampleLoss loss,
                                           const torch::Tensor& inputs, const torch::Tensor& targets,
                                           SmallSampleOptions options = {}) {
  using Impl = typename Holder::ContainedType;
  return SmallSampleFit(
      [make_model]() -> std::shared_ptr<torch::nn::Module> { return make_model().ptr(); },
      [](torch::nn::Module& m, const torch::Tensor& x) { return dynamic_cast<Impl&>(m).forward(x); },
      std::move(loss), inputs, targets, std::move(options));
}

}  // namespace lpsim

#endif  // LPSIM_TRACKER_SMALL_SAMPLE_H_
