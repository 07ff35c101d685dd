// The fresh group of the validation corpus (validation.cc): 16 programs
// written after the low-precision rules' thresholds were set. The 32
// programs of corpus.h were all in view while the thresholds were chosen,
// so their "tune" and "holdout" halves are both seen data. This group was
// the unseen check until the rules were changed with its predictions in
// view: it is seen data now too, and corpus_fresh2.h is the unseen check.
// Each was designed from what the hardware does to numbers (formats'
// ranges, scaling recipes), with only its fp32 training and its simulated
// truth looked at, never the prediction.
//
// Seven train fine in fp32 and, by design, on fp8 hardware (new shapes, data
// sets and optimizer schedules); nine plant a breaker of a kind corpus.h has
// (tiny gradients, outlier channels, hot attention logits, a deep net with a
// small init, features on two scales, mixed-magnitude samples, a growing
// activation) at other magnitudes, on other models. Whether and where each
// breaks is for the simulation to say, not for its label.
//
//   for (const Program& p : FreshPrograms()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// 1x16x16 images of stripes on noise: class = orientation (horizontal,
// vertical) x period (2, 4 pixels), at a random phase.
inline Data Stripes(int64_t n = 768) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor period = torch::where(y >= 2, torch::full({n}, 4.0), torch::full({n}, 2.0));
  torch::Tensor phase = torch::randint(0, 4, {n}).to(torch::kFloat);
  // [n, 16]: the profile across the stripes.
  torch::Tensor at = torch::arange(16).to(torch::kFloat).unsqueeze(0) + phase.unsqueeze(1);
  torch::Tensor profile = torch::cos(2 * M_PI * at / period.unsqueeze(1));
  torch::Tensor rows = profile.unsqueeze(2).expand({n, 16, 16});  // varies down the rows: horizontal stripes
  torch::Tensor cols = profile.unsqueeze(1).expand({n, 16, 16});  // varies along a row: vertical stripes
  torch::Tensor vertical = (y % 2 == 1).view({n, 1, 1});
  torch::Tensor x = torch::where(vertical, cols, rows).unsqueeze(1) + 0.6 * torch::randn({n, 1, 16, 16});
  return {x, y};
}

// Three concentric rings in 2-d (radius 0.3, 0.6, 0.9, jitter 0.06): class =
// ring.
inline Data Rings(int64_t n = 1024) {
  torch::Tensor y = torch::randint(0, 3, {n}, torch::kLong);
  torch::Tensor r = 0.3 * (y.to(torch::kFloat) + 1) + 0.06 * torch::randn({n});
  torch::Tensor t = torch::rand({n}) * (2 * M_PI);
  return {torch::stack({r * torch::cos(t), r * torch::sin(t)}, 1), y};
}

// Needles (corpus.h) in longer, wider sequences with more classes: `len`
// tokens of `dim` features, one of which carries its class's prototype.
inline Data LongNeedles(int64_t n = 768, int64_t len = 12, int64_t dim = 24, int64_t classes = 6) {
  torch::Tensor protos = torch::randn({classes, dim}) * 1.5;
  torch::Tensor y = torch::randint(0, classes, {n}, torch::kLong);
  torch::Tensor x = torch::randn({n, len, dim}) * 0.7;
  torch::Tensor pos = torch::randint(0, len, {n}, torch::kLong);
  x.index_put_({torch::arange(n), pos}, x.index({torch::arange(n), pos}) + protos.index_select(0, y));
  return {x, y};
}

// 40 features in groups of 4, alternating noise at scale 1 and class-carrying
// features at scale `ratio`: the weights reading the informative groups are
// ~1/ratio of their neighbours in the same rows.
inline Data ScaledGroups(double ratio, int64_t n = 1024) {
  constexpr int64_t kD = 40, kGroup = 4;
  Data d = Clusters(kD, 6, 0.9, n);
  torch::Tensor group = torch::div(torch::arange(kD), kGroup, /*rounding_mode=*/"floor");
  torch::Tensor informative = (group % 2 == 1).to(torch::kFloat);
  torch::Tensor noise = torch::randn({n, kD}) * 0.5;
  d.x = (d.x * informative + noise * (1 - informative)) * (1 + (ratio - 1) * informative);
  return d;
}

// Every third sample scaled by `small` (an un-normalized input pipeline);
// clusters in 24-d, 6 classes.
inline Data MixedScale(double small, int64_t n = 1024) {
  Data d = Clusters(24, 6, 0.8, n);
  torch::Tensor s = torch::where(torch::arange(n) % 3 == 0, torch::full({n}, small), torch::ones({n}));
  d.x = d.x * s.unsqueeze(1);
  return d;
}

// Clusters in 32-d (10 classes) whose samples grow in scale along the data
// set, from x1 to x`growth`, one batch of 64 per step with no repeat in
// `steps`: a raw feature that drifts (a counter, a timestamp, an amplitude
// that rises through the recording) read without normalization.
inline Data Drifting(double growth, int steps) {
  const int64_t n = 64 * static_cast<int64_t>(steps);
  Data d = Clusters(32, 10, 0.8, n);
  torch::Tensor s = torch::pow(growth, torch::arange(n).to(torch::kDouble) / double(n)).to(torch::kFloat);
  d.x = d.x * s.unsqueeze(1);
  return d;
}

// --- models ---------------------------------------------------------------------

// The 2-conv CNN of 1x16x16 images whose first feature map, as stored
// (after the ReLU and through pooling), carries channel 0 at `outlier` times
// its size; a fixed scale takes it back before conv2, so fp32 trains exactly
// as without it. (Folding 1/outlier into conv2's weights instead, as
// OutlierMlp does, changes the training: Adam moves every weight by about
// the learning rate, so the tiny weights reading channel 0 outgrow their
// scale within a step and the CNN no longer learns in fp32.)
inline TrackedSequential OutlierCnn(int64_t width, int64_t classes, double outlier) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("conv1", nn::AnyModule(nn::Conv2d(nn::Conv2dOptions(1, width, 3).padding(1))));
  m.insert("act1", nn::AnyModule(nn::ReLU()));
  torch::Tensor up = torch::ones({width, 1, 1}), down = torch::ones({width, 1, 1});
  up[0] = outlier;
  down[0] = 1.0 / outlier;
  m.insert("outlier", nn::AnyModule(ChannelScale(up)));
  m.insert("pool1", nn::AnyModule(nn::MaxPool2d(2)));
  m.insert("restore", nn::AnyModule(ChannelScale(down)));
  m.insert("conv2", nn::AnyModule(nn::Conv2d(nn::Conv2dOptions(width, 2 * width, 3).padding(1))));
  m.insert("act2", nn::AnyModule(nn::ReLU()));
  m.insert("pool2", nn::AnyModule(nn::MaxPool2d(2)));
  m.insert("flat", nn::AnyModule(nn::Flatten()));
  m.insert("out", nn::AnyModule(nn::Linear(2 * width * 16, classes)));
  return TrackedSequential(std::move(m));
}

// A residual net without norm whose stream carries channel 0 at `outlier`
// times its size: the stem's output is scaled up, every reader of the
// stream (each block's fc1, the head) takes channel 0 back at 1/outlier.
inline TrackedSequential OutlierResNet(int64_t in, int64_t width, int64_t out, int blocks, double outlier) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("stem", nn::AnyModule(nn::Linear(in, width)));
  torch::Tensor up = torch::ones({width});
  up[0] = outlier;
  m.insert("outlier", nn::AnyModule(ChannelScale(up)));
  torch::NoGradGuard g;
  for (int b = 1; b <= blocks; ++b) {
    Residual block(width, /*layer_norm=*/false);
    block->fc1->weight.select(1, 0).div_(outlier);
    m.insert("res" + std::to_string(b), nn::AnyModule(block));
  }
  nn::Linear head(width, out);
  head->weight.select(1, 0).div_(outlier);
  m.insert("out", nn::AnyModule(head));
  return TrackedSequential(std::move(m));
}

// --- programs -------------------------------------------------------------------

inline std::vector<Program> FreshPrograms() {
  std::vector<Program> v;
  using TS = TrackedSequential;
  auto mlp = [](MlpSpec s) { return std::function<TS()>([s] { return Mlp(s); }); };
  const ProgramAdder add{&v};
  auto clusters24 = [] { return Clusters(24, 12, 0.8); };
  auto stripes = [] { return Stripes(); };
  auto needles = [] { return LongNeedles(); };

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<TS>("many_clusters_adamw", "MLP 48-96-96-16 ReLU on 16 clusters in 48-d, AdamW 2e-3 warm-up+cosine",
               mlp({48, 96, 16, 2}), [] { return Clusters(48, 16, 0.7); }), "adamw", 2e-3, "warmup_cosine", 120);
  add(Make<TS>("cnn_stripes_batchnorm_adamw", "2-conv CNN (6, 12) with BatchNorm on 16x16 stripes, AdamW 2e-3",
               std::function<TS()>([] { return lpsim::examples::Cnn(true, 4, 6, 16); }), stripes),
      "adamw", 2e-3, "constant", 60);
  add(Make<TS>("resnet4_layernorm_momentum_cosine", "4 pre-LayerNorm residual blocks (48), SGD 0.02 momentum cosine",
               std::function<TS()>([] { return ResNet(24, 48, 12, 4, true); }), clusters24),
      "momentum", 0.02, "cosine", 100);
  add(Make<Transformer>("transformer_long_needles_adam", "transformer block d=24 on 12-token sequences, 6 classes, "
                        "Adam 2e-3 warm-up", std::function<Transformer()>([] { return Transformer(24, 6, 1.0); }),
                        needles), "adam", 2e-3, "warmup", 120);
  add(Make<TS>("rings_leaky_step", "MLP 2-96-96-3 leaky ReLU on 3 concentric rings, Adam 3e-3 step decay",
               mlp({2, 96, 3, 2, "leaky"}), [] { return Rings(); }), "adam", 3e-3, "step", 150);
  add(Make<TS>("wide_dropout_wd_sgd", "MLP 64-256-10 ReLU dropout 0.3, SGD 0.03 momentum wd 1e-3, warm-up",
               mlp({64, 256, 10, 1, "relu", "none", 0.3}), [] { return Clusters(64, 10, 1.0); }),
      "momentum", 0.03, "warmup", 100)->weight_decay = 1e-3;
  add(Make<TS>("deep_gelu_layernorm_adamw", "8-layer GELU MLP 40 wide with LayerNorm, AdamW 1e-3",
               mlp({32, 40, 10, 8, "gelu", "layer"}), [] { return Clusters(); }), "adamw", 1e-3, "constant", 100);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware at a magnitude, or on a model, that corpus.h does not use.
  Program* p = add(Make<TS>("tiny_grads_1e5_resnet", "loss x 1e-5 (AdamW eps 1e-13), 3 pre-LN residual blocks (48)",
                            std::function<TS()>([] { return ResNet(24, 48, 12, 3, true); }), clusters24),
                   "adamw", 2e-3, "warmup", 120);
  p->loss_scale = 1e-5, p->adam_eps = 1e-13, p->planted = true;
  // SGD is not scale-free: the learning rate carries 1/3e-8, so fp32 takes
  // the steps of SGD 0.03 on the unscaled loss.
  p = add(Make<TS>("tiny_grads_3e8_sgd", "loss x 3e-8, lr x 1/3e-8 (SGD 0.03 momentum), MLP 32-64-64-10 GELU",
                   mlp({32, 64, 10, 2, "gelu"}), [] { return Clusters(); }), "momentum", 0.03 / 3e-8, "constant", 100);
  p->loss_scale = 3e-8, p->planted = true;
  p = add(Make<TS>("outlier_channel_1e5_cnn", "CNN with conv1 channel 0 x1e5 (read back x1e-5), Adam 2e-3, stripes",
                   std::function<TS()>([] { return OutlierCnn(6, 4, 1e5); }), stripes), "adam", 2e-3, "constant", 80);
  p->planted = true;
  p = add(Make<TS>("outlier_channel_1e3_resnet", "residual net (48, 3 blocks) whose stream carries channel 0 x1e3, "
                   "Adam 1e-3", std::function<TS()>([] { return OutlierResNet(24, 48, 12, 3, 1e3); }), clusters24),
          "adam", 1e-3, "constant", 120);
  p->planted = true;
  p = add(Make<Transformer>("attention_logits_3e4_adam", "transformer block d=24, attention logits x3e4, Adam 2e-3",
                            std::function<Transformer()>([] { return Transformer(24, 6, 3e4); }), needles),
          "adam", 2e-3, "constant", 120);
  p->planted = true;
  p = add(Make<TS>("deep_gelu_small_init", "10-layer GELU MLP 48 wide, init x0.7, Adam 2e-3 eps 1e-12",
                   mlp({32, 48, 10, 10, "gelu", "none", 0, 0.7}), [] { return Clusters(); }),
          "adam", 2e-3, "constant", 120);
  p->adam_eps = 1e-12, p->planted = true;
  p = add(Make<TS>("scaled_groups_x30", "MLP 40-64-6 ReLU, class in feature groups x30 beside noise at x1, AdamW 1e-3",
                   mlp({40, 64, 6, 1}), [] { return ScaledGroups(30); }), "adamw", 1e-3, "constant", 120);
  p->planted = true;
  p = add(Make<TS>("mixed_scale_1e4_layernorm", "every third sample x1e-4, MLP 24-96-6 with LayerNorm (no bias), "
                   "SGD 0.05 momentum", mlp({24, 96, 6, 1, "relu", "layer", 0, 1, false}),
                   [] { return MixedScale(1e-4); }), "momentum", 0.05, "constant", 120);
  p->planted = true;
  // Growing activations: fc1's output rises x1e4 over the training with
  // its input; the LayerNorm after it keeps fp32 indifferent.
  p = add(Make<TS>("drifting_input_1e4_layernorm", "inputs growing x1 -> x1e4 over the run, MLP 32-64-64-10 with "
                   "LayerNorm, Adam 2e-3", mlp({32, 64, 10, 2, "relu", "layer"}), [] { return Drifting(1e4, 150); }),
          "adam", 2e-3, "constant", 150);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH_H_
