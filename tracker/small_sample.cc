#include "tracker/small_sample.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace lpsim {

namespace {

constexpr const char* kRule = "cannot_fit_small_sample";
constexpr int64_t kUnlabeledExamples = 16;  // TheDeepChecker: one batch of 16

std::string Fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Restores torch's default CPU generator on scope exit, so the caller's RNG
// stream is the same with or without the check.
class RngGuard {
 public:
  explicit RngGuard(uint64_t seed) {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    saved_ = gen.get_state();
    gen.set_current_seed(seed);
  }
  ~RngGuard() {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(saved_);
  }

 private:
  torch::Tensor saved_;
};

}  // namespace

SmallSampleOptions SmallSampleOptions::FromConfig(const CheckConfig& config) {
  SmallSampleOptions o;
  const SmallSampleParams& p = config.loss.cannot_fit_small_sample;
  o.per_class = p.per_class;
  o.max_examples = p.max_examples;
  o.max_steps = p.max_steps;
  o.min_accuracy = p.min_accuracy;
  o.max_loss_ratio = p.max_loss_ratio;
  auto it = config.rules.find(kRule);
  if (it != config.rules.end()) o.severity = it->second.severity;
  return o;
}

StatusOr<SmallSampleResult> SmallSampleFit(SmallSampleModelFactory make_model, SmallSampleForward forward,
                                           SmallSampleLoss loss, const torch::Tensor& inputs,
                                           const torch::Tensor& targets, SmallSampleOptions o) {
  if (!make_model || !forward || !loss) {
    return Status::Error("SmallSampleFit: make_model, forward and loss must all be set");
  }
  if (!inputs.defined() || !targets.defined() || inputs.dim() == 0 || targets.dim() == 0 ||
      inputs.size(0) == 0 || inputs.size(0) != targets.size(0)) {
    return Status::Error("SmallSampleFit: inputs and targets must be non-empty tensors with the same "
                         "number of examples in dim 0");
  }
  if (o.max_steps < 1 || o.max_examples < 1 || o.per_class < 1) {
    return Status::Error("SmallSampleFit: max_steps, max_examples and per_class must be >= 1");
  }
  SmallSampleResult r;
  try {
    torch::NoGradGuard outer_no_grad;  // only the training steps below need autograd
    // 1. The sample.
    const bool class_targets = targets.dim() == 1 && !targets.is_floating_point() && !targets.is_complex();
    std::vector<int64_t> pick;
    if (class_targets) {
      const torch::Tensor labels = targets.to(torch::kCPU, torch::kLong).contiguous();
      const int64_t* y = labels.data_ptr<int64_t>();
      std::map<int64_t, int> taken;
      for (int64_t i = 0; i < labels.numel() && static_cast<int>(pick.size()) < o.max_examples; ++i) {
        if (taken[y[i]] < o.per_class) ++taken[y[i]], pick.push_back(i);
      }
      r.classes = static_cast<int64_t>(taken.size());
    } else {
      const int64_t n = std::min<int64_t>({inputs.size(0), o.max_examples, kUnlabeledExamples});
      for (int64_t i = 0; i < n; ++i) pick.push_back(i);
    }
    r.examples = static_cast<int64_t>(pick.size());
    const torch::Tensor index = torch::tensor(pick, torch::kLong).to(inputs.device());
    const torch::Tensor x = inputs.detach().index_select(0, index);
    const torch::Tensor y = targets.detach().index_select(0, index.to(targets.device()));

    // 2. A fresh model and optimizer, seeded; the caller's RNG is restored.
    RngGuard rng(o.seed);
    std::shared_ptr<torch::nn::Module> model = make_model();
    if (!model) return Status::Error("SmallSampleFit: make_model returned no model");
    model->train();
    std::vector<torch::Tensor> params = model->parameters();
    std::unique_ptr<torch::optim::Optimizer> opt =
        o.make_optimizer ? o.make_optimizer(params)
                         : std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(o.lr).weight_decay(0));
    if (!opt) return Status::Error("SmallSampleFit: make_optimizer returned no optimizer");

    // 3. Train until it fits or max_steps updates were made; every step
    //    evaluates the loss and accuracy before its update.
    bool judged_accuracy = false;
    for (int step = 0; step <= o.max_steps; ++step) {
      torch::AutoGradMode grad_on(true);
      opt->zero_grad();
      const torch::Tensor out = forward(*model, x);
      const torch::Tensor l = loss(out, y);
      const double value = l.item<double>();
      if (step == 0) r.initial_loss = r.min_loss = value;
      r.final_loss = value;
      r.min_loss = std::min(r.min_loss, value);
      if (class_targets && out.dim() == 2 && out.size(0) == r.examples && out.size(1) > 1) {
        judged_accuracy = true;
        const double acc = out.detach().argmax(1).eq(y.to(out.device())).to(torch::kDouble).mean().item<double>();
        r.accuracy = std::max(r.accuracy, acc);
      }
      if (!std::isfinite(value)) break;  // cannot fit; nonfinite is the rules' job
      const bool loss_ok = !(r.initial_loss > 0) || r.min_loss <= o.max_loss_ratio * r.initial_loss;
      const bool acc_ok = !judged_accuracy || r.accuracy >= o.min_accuracy;
      if (loss_ok && acc_ok) {
        r.fits = true;
        break;
      }
      if (step == o.max_steps) break;
      if (!l.requires_grad()) break;  // nothing to train: the loss does not depend on the model
      l.backward();
      opt->step();
      ++r.steps;
    }
    r.classification = judged_accuracy;
  } catch (const c10::Error& e) {
    return Status::Error(std::string("SmallSampleFit: LibTorch error while training the sample: ") +
                         e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Status::Error(std::string("SmallSampleFit: error while training the sample: ") + e.what());
  }
  if (r.fits) return r;

  Finding f;
  f.rule = kRule;
  f.severity = o.severity;
  f.step = 0;
  std::string what = "a fresh copy of the model cannot fit a small sample: trained on " +
                     std::to_string(r.examples) + " examples" +
                     (r.classification ? " (" + std::to_string(r.classes) + " classes)" : std::string()) +
                     " for " + std::to_string(r.steps) + " steps without regularization, ";
  std::vector<std::string> why;
  if (r.classification && r.accuracy < o.min_accuracy) {
    why.push_back("its accuracy on them reached only " + Fmt(100 * r.accuracy) + "% (< " +
                  Fmt(100 * o.min_accuracy) + "%)");
  }
  if (r.initial_loss > 0 && !(r.min_loss <= o.max_loss_ratio * r.initial_loss)) {
    why.push_back("its loss only went from " + Fmt(r.initial_loss) + " to " + Fmt(r.min_loss) + " (needs < " +
                  Fmt(100 * o.max_loss_ratio) + "% of the initial loss)");
  }
  if (why.empty()) why.push_back("its loss is not finite (" + Fmt(r.final_loss) + ")");
  for (size_t i = 0; i < why.size(); ++i) what += (i ? " and " : "") + why[i];
  f.message = what +
              ". A correct model with a correct loss overfits a few examples easily, so the bug is "
              "likely in the model or the loss: check that the loss matches the output (logits vs "
              "probabilities, e.g. softmax applied twice; the sign and terms of the loss), the output "
              "layer, missing activations between linear layers, constant or symmetric "
              "initialization, dead units (large negative biases), and that gradients reach every layer.";
  f.evidence = {{"initial_loss", r.initial_loss}, {"final_loss", r.final_loss},   {"min_loss", r.min_loss},
                {"accuracy", r.accuracy},         {"steps", r.steps},             {"examples", static_cast<double>(r.examples)},
                {"min_accuracy", o.min_accuracy}, {"max_loss_ratio", o.max_loss_ratio}};
  r.finding = std::move(f);
  return r;
}

}  // namespace lpsim
