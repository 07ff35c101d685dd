// What the corpus examples (examples/healthy, examples/validation) build their
// small trainings from: activations by name, a residual block, a two-conv CNN,
// the optimizers and the learning-rate schedules. Header-only, so that each
// example stays one LibTorch translation unit (each costs minutes to compile
// on a small machine).
//
//   TrackedSequential cnn = examples::Cnn(/*batch_norm=*/true, /*classes=*/10, /*width=*/8, /*side=*/16);
//   auto opt = examples::MakeOptimizer({"adamw", 1e-3}, cnn->parameters());
//   for (auto& g : opt->param_groups()) g.options().set_lr(examples::LrAt("cosine", 1e-3, step, steps));
#ifndef LPSIM_EXAMPLES_COMMON_TRAINING_H_
#define LPSIM_EXAMPLES_COMMON_TRAINING_H_

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tracker/tracker.h"

namespace lpsim::examples {

namespace nn = torch::nn;

// relu (also for a name it does not know), tanh, sigmoid, gelu, leaky
// (negative slope 0.05).
inline nn::AnyModule Act(const std::string& act) {
  if (act == "tanh") return nn::AnyModule(nn::Tanh());
  if (act == "sigmoid") return nn::AnyModule(nn::Sigmoid());
  if (act == "gelu") return nn::AnyModule(nn::GELU());
  if (act == "leaky") return nn::AnyModule(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.05)));
  return nn::AnyModule(nn::ReLU());
}

// x + fc2(relu(fc1(norm(x)))): a residual block (tapped as one module); the
// norm is a LayerNorm or none.
struct ResidualImpl : nn::Module {
  ResidualImpl(int64_t width, bool layer_norm) {
    fc1 = register_module("fc1", nn::Linear(width, width));
    fc2 = register_module("fc2", nn::Linear(width, width));
    if (layer_norm) ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({width})));
  }
  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor h = ln ? ln->forward(x) : x;
    return x + fc2->forward(torch::relu(fc1->forward(h)));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr};
  nn::LayerNorm ln{nullptr};
};
TORCH_MODULE(Residual);

// conv 3x3 (1 -> width), [BatchNorm], ReLU, max-pool 2, conv 3x3 (width ->
// 2 width), [BatchNorm], ReLU, max-pool 2, Linear to `classes`: a classifier
// of 1 x side x side images (side a multiple of 4).
inline TrackedSequential Cnn(bool batch_norm, int64_t classes, int64_t width, int64_t side) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("conv1", nn::AnyModule(nn::Conv2d(nn::Conv2dOptions(1, width, 3).padding(1))));
  if (batch_norm) m.insert("bn1", nn::AnyModule(nn::BatchNorm2d(width)));
  m.insert("act1", nn::AnyModule(nn::ReLU()));
  m.insert("pool1", nn::AnyModule(nn::MaxPool2d(2)));
  m.insert("conv2", nn::AnyModule(nn::Conv2d(nn::Conv2dOptions(width, 2 * width, 3).padding(1))));
  if (batch_norm) m.insert("bn2", nn::AnyModule(nn::BatchNorm2d(2 * width)));
  m.insert("act2", nn::AnyModule(nn::ReLU()));
  m.insert("pool2", nn::AnyModule(nn::MaxPool2d(2)));
  m.insert("flat", nn::AnyModule(nn::Flatten()));
  m.insert("out", nn::AnyModule(nn::Linear(2 * width * (side / 4) * (side / 4), classes)));
  return TrackedSequential(std::move(m));
}

struct OptimizerSpec {
  std::string name = "adam";  // adam (also for a name it does not know), adamw, sgd, momentum (0.9), rmsprop
  double lr = 1e-3;
  double weight_decay = 0;  // adamw: 0 means AdamW's usual 1e-2; rmsprop: not applied
  double adam_eps = 1e-8;   // adam and adamw
};

inline std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const OptimizerSpec& o,
                                                              std::vector<torch::Tensor> params) {
  if (o.name == "adamw") {
    return std::make_unique<torch::optim::AdamW>(
        params, torch::optim::AdamWOptions(o.lr).weight_decay(o.weight_decay > 0 ? o.weight_decay : 1e-2).eps(o.adam_eps));
  }
  if (o.name == "sgd" || o.name == "momentum") {
    return std::make_unique<torch::optim::SGD>(
        params, torch::optim::SGDOptions(o.lr).momentum(o.name == "momentum" ? 0.9 : 0).weight_decay(o.weight_decay));
  }
  if (o.name == "rmsprop") {
    return std::make_unique<torch::optim::RMSprop>(params, torch::optim::RMSpropOptions(o.lr));
  }
  return std::make_unique<torch::optim::Adam>(
      params, torch::optim::AdamOptions(o.lr).weight_decay(o.weight_decay).eps(o.adam_eps));
}

// The learning rate at `step` of `steps` under a schedule: constant (also for
// a name it does not know), warmup (linear over 20 steps), cosine (decay to
// 0), warmup_cosine (both), step (x0.1 from half-way).
inline double LrAt(const std::string& schedule, double lr, int step, int steps) {
  const double t = static_cast<double>(step) / steps;
  const double warm = std::min(1.0, (step + 1) / 20.0);
  if (schedule == "warmup") return lr * warm;
  if (schedule == "cosine") return lr * 0.5 * (1 + std::cos(M_PI * t));
  if (schedule == "warmup_cosine") return lr * warm * 0.5 * (1 + std::cos(M_PI * t));
  if (schedule == "step") return lr * (step < steps / 2 ? 1.0 : 0.1);
  return lr;
}

}  // namespace lpsim::examples

#endif  // LPSIM_EXAMPLES_COMMON_TRAINING_H_
