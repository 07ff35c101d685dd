// The fresh4 group of the validation corpus (validation.cc): 16 programs
// written after corpus.h and the fresh, fresh2 and fresh3 groups, blind to
// the low-precision rules' predictions on them, so that a rule change can be
// judged on trainings nobody tuned anything against. Each was designed from
// what the hardware does to numbers (formats' ranges and resolution, scaling
// recipes, block scales), with only its fp32 training and its simulated
// truth looked at, never the prediction; a program is not changed after its
// truth has been simulated. To tune against it would make it seen data too:
// write another group instead.
//
// Seven train fine in fp32 and, by design, on fp8 hardware: what
// practitioners train on small data (a SwiGLU MLP on sign interactions, an
// MLP whose first layer reads 4096 pixels, a GroupNorm CNN that counts dots,
// a DeepSets model of 2-d point clouds, a soft mixture of four experts, a
// wide-and-deep model of tabular data with categorical embeddings, a small
// gated recurrent net over trend sequences), with optimizer and schedule
// pairs no other group uses (plain SGD with warm-up+cosine and with step
// decay, RMSprop with warm-up+cosine and with cosine, Adam with L2 weight
// decay, Adam with warm-up+cosine, AdamW with step decay). Nine plant a
// breaker, eight of them kinds no other group has: regression targets on an
// offset of 300 (Kelvin) with the output bias initialised at the mean, an
// update gate initialised near 1 (bias 4) in a gated recurrence, a SwiGLU
// product that squares raw inputs of scale ~150, statistics pooling with a
// one-pass variance E[h^2] - E[h]^2 of readings on an offset of ~100, an
// HMM forward pass multiplying probabilities over 16 steps without
// rescaling, fine-tuning a pretrained net by a correction smaller than fp8's
// resolution at its weights, Fourier features of absolute timestamps up to
// 1e5, a static loss scale of 2^24; and one known kind elsewhere: an
// in-batch contrastive loss at temperature 0.01 (logits up to 100). Whether
// and where each breaks is for the simulation to say, not for its label.
//
//   for (const Program& p : Fresh4Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH4_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH4_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"
#include "examples/validation/corpus_fresh3.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// 12 Gaussian features; class (of 4) = [x.a > 0] + 2 [(x.b)(x.c) > 0]: a sign
// and a sign interaction, which a gated (multiplicative) unit reads easily.
inline Data SignProducts(int64_t n = 1024) {
  torch::Tensor a = torch::randn({12}), b = torch::randn({12}), c = torch::randn({12});
  torch::Tensor x = torch::randn({n, 12});
  torch::Tensor first = (x.matmul(a) > 0).to(torch::kLong);
  torch::Tensor second = (x.matmul(b) * x.matmul(c) > 0).to(torch::kLong);
  return {x, first + 2 * second};
}

// 64x64 images flattened to 4096 features: class (of 4) = which of four
// gratings (frequencies (1,2), (3,1), (2,3), (4,4) cycles per image) is
// present at amplitude 0.2 under per-pixel noise 1; batches of 32.
inline Data Gratings(int64_t n = 512) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor grid = torch::arange(64).to(torch::kFloat) * (2 * M_PI / 64);
  const double fy[4] = {1, 3, 2, 4}, fx[4] = {2, 1, 3, 4};
  std::vector<torch::Tensor> templates;
  for (int c = 0; c < 4; ++c) {
    templates.push_back(torch::sin(fy[c] * grid.view({64, 1}) + fx[c] * grid.view({1, 64})).reshape({4096}));
  }
  torch::Tensor t = torch::stack(templates).index_select(0, y);
  Data d{0.2 * t + torch::randn({n, 4096}), y};
  d.batch = 32;
  return d;
}

// 1x16x16 images (noise 0.3) with 1 to 4 bright 2x2 dots (1.5) in distinct
// cells of a 7x7 grid of 2x2 cells: class = number of dots - 1.
inline Data DotCount(int64_t n = 768) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = 0.3 * torch::randn({n, 1, 16, 16});
  auto ya = y.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    torch::Tensor cells = torch::randperm(49, torch::kLong);
    auto ca = cells.accessor<int64_t, 1>();
    for (int64_t k = 0; k <= ya[i]; ++k) {
      const int64_t r = 1 + 2 * (ca[k] / 7), c = 1 + 2 * (ca[k] % 7);
      x[i][0].slice(0, r, r + 2).slice(1, c, c + 2).add_(1.5);
    }
  }
  return {x, y};
}

// Sets of 16 points in 2-d drawn from one of four shapes (class): a circle,
// a segment, a square's perimeter, two blobs; each set rotated at random,
// scaled by 0.8..1.2, with noise 0.05. Shape: [n, 16, 2].
inline Data PointShapes(int64_t n = 1024, int64_t k = 16) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor u = torch::rand({n, k});
  torch::Tensor circle = torch::stack({torch::cos(2 * M_PI * u), torch::sin(2 * M_PI * u)}, 2);
  torch::Tensor segment = torch::stack({2 * u - 1, torch::zeros({n, k})}, 2);
  // The square's perimeter: side floor(4u), position along it frac(4u).
  torch::Tensor side = torch::floor(4 * u), along = 4 * u - side;
  torch::Tensor sx = torch::where(side == 0, 2 * along - 1, torch::where(side == 1, torch::ones_like(u),
                                  torch::where(side == 2, 1 - 2 * along, -torch::ones_like(u))));
  torch::Tensor sy = torch::where(side == 0, -torch::ones_like(u), torch::where(side == 1, 2 * along - 1,
                                  torch::where(side == 2, torch::ones_like(u), 1 - 2 * along)));
  torch::Tensor square = torch::stack({sx, sy}, 2) * 0.8;
  torch::Tensor sign = torch::where(u < 0.5, -torch::ones_like(u), torch::ones_like(u));
  torch::Tensor blobs = torch::stack({0.7 * sign, torch::zeros({n, k})}, 2) + 0.15 * torch::randn({n, k, 2});
  torch::Tensor cls = y.view({n, 1, 1});
  torch::Tensor pts = torch::where(cls == 0, circle, torch::where(cls == 1, segment, torch::where(cls == 2, square,
                                                                                                 blobs)));
  torch::Tensor theta = torch::rand({n}) * (2 * M_PI), scale = 0.8 + 0.4 * torch::rand({n});
  torch::Tensor rot = torch::stack({torch::stack({torch::cos(theta), -torch::sin(theta)}, 1),
                                    torch::stack({torch::sin(theta), torch::cos(theta)}, 1)},
                                   1);  // [n, 2, 2]
  pts = torch::matmul(pts, rot.transpose(1, 2)) * scale.view({n, 1, 1});
  return {pts + 0.05 * torch::randn({n, k, 2}), y};
}

// Piecewise regression on 8 features: the quadrant of (x0, x1) picks one of
// four functions 1.5 tanh(x . a_r), plus 0.3 sin(x . b) and noise 0.02.
inline Data Piecewise(int64_t n = 1024) {
  torch::Tensor a = torch::randn({4, 8}) * 0.5, b = torch::randn({8}) * 0.4;
  torch::Tensor x = torch::randn({n, 8});
  torch::Tensor region = (x.select(1, 0) > 0).to(torch::kLong) + 2 * (x.select(1, 1) > 0).to(torch::kLong);
  torch::Tensor proj = (x * a.index_select(0, region)).sum(1);
  torch::Tensor y = 1.5 * torch::tanh(proj) + 0.3 * torch::sin(x.matmul(b)) + 0.02 * torch::randn({n});
  return {x, y.unsqueeze(1)};
}

// Tabular rows: three categorical fields (10, 7 and 5 values, stored as
// floats in columns 0..2) and six Gaussian numeric columns; the binary label
// thresholds per-category effects, a linear term, a product of two numeric
// columns and a category x numeric interaction, plus noise 0.3.
inline Data Tabular(int64_t n = 2048) {
  torch::Tensor e1 = torch::randn({10}), e2 = torch::randn({7}), e3 = torch::randn({5}) * 0.5;
  torch::Tensor w = torch::randn({6}) * 0.6;
  torch::Tensor c1 = torch::randint(0, 10, {n}, torch::kLong), c2 = torch::randint(0, 7, {n}, torch::kLong);
  torch::Tensor c3 = torch::randint(0, 5, {n}, torch::kLong);
  torch::Tensor num = torch::randn({n, 6});
  torch::Tensor score = e1.index_select(0, c1) + e2.index_select(0, c2) + e3.index_select(0, c3) + num.matmul(w) +
                        0.8 * num.select(1, 0) * num.select(1, 1) +
                        0.5 * torch::tanh(num.select(1, 2)) * (c3.to(torch::kFloat) - 2) + 0.3 * torch::randn({n});
  torch::Tensor cats = torch::stack({c1, c2, c3}, 1).to(torch::kFloat);
  return {torch::cat({cats, num}, 1), (score > score.median()).to(torch::kLong)};
}

// Sequences of 8 steps of 3 features: feature 0 rises, falls, stays flat or
// alternates (class) from a random level (0.5 sigma), noise 0.5 on every
// feature. Shape: [n, 8, 3].
inline Data Trends(int64_t n = 1024, int64_t len = 8) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor t = torch::linspace(-1, 1, len);
  torch::Tensor alt = torch::where(torch::arange(len) % 2 == 0, torch::ones({len}), -torch::ones({len}));
  torch::Tensor shapes = torch::stack({t, -t, torch::zeros({len}), alt});  // [4, len]
  torch::Tensor x = 0.5 * torch::randn({n, len, 3});
  x.select(2, 0).add_(shapes.index_select(0, y) + 0.5 * torch::randn({n, 1}));
  return {x, y};
}

// Temperatures in Kelvin: 8 features, target 300 + 4 tanh(x . a) + 2
// sin(x . b) + noise 0.1 (a physical quantity regressed in its own units,
// on its offset).
inline Data KelvinTemps(int64_t n = 1024) {
  torch::Tensor a = torch::randn({8}) * 0.4, b = torch::randn({8}) * 0.4;
  torch::Tensor x = torch::randn({n, 8});
  torch::Tensor y = 300 + 4 * torch::tanh(x.matmul(a)) + 2 * torch::sin(x.matmul(b)) + 0.1 * torch::randn({n});
  return {x, y.unsqueeze(1)};
}

// Sequences of 16 steps of 6 features: each step is 0.4 x the class's
// prototype (of 4) plus noise 1, so the class is in the running mean, not
// in any one step. Shape: [n, 16, 6].
inline Data NoisyEvidence(int64_t n = 1024, int64_t len = 16) {
  torch::Tensor protos = torch::randn({4, 6});
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  return {0.4 * protos.index_select(0, y).unsqueeze(1) + torch::randn({n, len, 6}), y};
}

// Raw sensor counts: clusters in 16-d (6 classes, noise 1) times 150, fed
// without normalization.
inline Data RawCounts(int64_t n = 1024) {
  Data d = Clusters(16, 6, 1.0, n);
  d.x = d.x * 150;
  return d;
}

// Two views of each sample for an in-batch contrastive loss: a latent in
// 6-d through a fixed tanh map to 24 features, each view with its own noise
// 0.4. x: [n, 2, 24]; y: the sample's position in its batch of 64 (the
// matching column of the batch's similarity matrix).
inline Data TwoViews(int64_t n = 1024) {
  torch::Tensor m = torch::randn({6, 24}) * 0.5;
  torch::Tensor base = torch::tanh(torch::randn({n, 6}).matmul(m));
  torch::Tensor x = torch::stack({base + 0.4 * torch::randn({n, 24}), base + 0.4 * torch::randn({n, 24})}, 1);
  return {x, torch::arange(n, torch::kLong) % 64};
}

// Sets of 16 readings of a sensor on a large offset (uniform 80..120 per
// set) with a spread of 0.5, 1, 2 or 4 (class): x [n, 16].
inline Data OffsetSets(int64_t n = 1024, int64_t k = 16) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor sigma = torch::pow(2.0, y.to(torch::kFloat) - 1).unsqueeze(1);
  torch::Tensor offset = 80 + 40 * torch::rand({n, 1});
  return {offset + sigma * torch::randn({n, k}), y};
}

// Symbol sequences (16 steps, 6 symbols, stored as floats) emitted by one
// of 3 hidden Markov models (class) of 4 states, their transition and
// emission rows softmaxes of Gaussian logits x1.5.
inline Data HmmSequences(int64_t n = 1024, int64_t len = 16) {
  constexpr int64_t kClasses = 3, kStates = 4, kSymbols = 6;
  torch::Tensor trans = torch::softmax(torch::randn({kClasses, kStates, kStates}) * 1.5, -1);
  torch::Tensor emit = torch::softmax(torch::randn({kClasses, kStates, kSymbols}) * 1.5, -1);
  torch::Tensor y = torch::randint(0, kClasses, {n}, torch::kLong);
  torch::Tensor state = torch::randint(0, kStates, {n}, torch::kLong);
  torch::Tensor x = torch::empty({n, len});
  for (int64_t t = 0; t < len; ++t) {
    x.select(1, t).copy_(torch::multinomial(emit.index({y, state}), 1).squeeze(1).to(torch::kFloat));
    state = torch::multinomial(trans.index({y, state}), 1).squeeze(1);
  }
  return {x, y};
}

// The weights of a "pretrained" tanh MLP 16-64-64-4 (weights 1.5 /
// sqrt(fan_in) Gaussian, biases 0.1), each moved by `delta` x a Gaussian
// (the correction a fine-tuning task asks for): weight, bias per layer.
// Seeds of its own, so that the data and the model agree.
inline std::vector<torch::Tensor> PretrainedWeights(double delta) {
  torch::manual_seed(101);
  const std::vector<int64_t> widths = {16, 64, 64, 4};
  std::vector<torch::Tensor> w;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    w.push_back(torch::randn({widths[i + 1], widths[i]}) * (1.5 / std::sqrt(double(widths[i]))));
    w.push_back(torch::randn({widths[i + 1]}) * 0.1);
  }
  if (delta != 0) {
    torch::manual_seed(102);
    for (torch::Tensor& t : w) t = t + delta * torch::randn(t.sizes());
  }
  return w;
}

// The fine-tuning task: 16 Gaussian features, targets the 4 outputs of the
// pretrained MLP moved by `delta` (no noise).
inline Data FinetuneTask(double delta, int64_t n = 1024) {
  const std::vector<torch::Tensor> w = PretrainedWeights(delta);
  torch::manual_seed(103);
  torch::Tensor x = torch::randn({n, 16}), h = x;
  for (size_t i = 0; i < w.size(); i += 2) {
    h = h.matmul(w[i].t()) + w[i + 1];
    if (i + 2 < w.size()) h = torch::tanh(h);
  }
  return {x, h};
}

// Event times in seconds, integers uniform in [0, 1e5) (x: [n, 1]): class =
// quarter of the 1000 s cycle the event falls in (a time-of-cycle label
// from an absolute timestamp).
inline Data Timestamps(int64_t n = 1024) {
  torch::Tensor t = torch::randint(0, 100000, {n, 1}).to(torch::kFloat);
  return {t, torch::floor(torch::fmod(t.squeeze(1), 1000.0) / 250.0).to(torch::kLong)};
}

// Points in the unit disc on a twisted polar grid: class = ring (r below or
// above 0.6) x sector (of 3), the sectors turning by 2.5 rad per unit of
// radius; 6 classes.
inline Data TwistedSectors(int64_t n = 1024) {
  torch::Tensor r = torch::sqrt(torch::rand({n})) * 0.95 + 0.05, a = torch::rand({n}) * (2 * M_PI);
  torch::Tensor turned = torch::fmod(a - 2.5 * r + 4 * M_PI, 2 * M_PI);
  torch::Tensor sector = torch::floor(turned / (2 * M_PI / 3)).clamp(0, 2).to(torch::kLong);
  torch::Tensor y = sector + 3 * (r > 0.6).to(torch::kLong);
  return {torch::stack({r * torch::cos(a), r * torch::sin(a)}, 1), y};
}

// --- models ---------------------------------------------------------------------

// A SwiGLU unit (gate and up projections, silu(gate) * up, tapped "swiglu"),
// a down projection to d, [LayerNorm], GELU, classifier.
struct SwiGluNetImpl : nn::Module {
  SwiGluNetImpl(int64_t in, int64_t hidden, int64_t d, int64_t classes, bool layer_norm) {
    gate = register_module("gate", nn::Linear(in, hidden));
    up = register_module("up", nn::Linear(in, hidden));
    down = register_module("down", nn::Linear(hidden, d));
    if (layer_norm) ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({d})));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor g = Tap("gate", gate->forward(x), "Linear"), u = Tap("up", up->forward(x), "Linear");
    torch::Tensor h = Tap("swiglu", torch::silu(g) * u, "Mul");
    torch::Tensor o = Tap("down", down->forward(h), "Linear");
    if (ln) o = Tap("ln", ln->forward(o), "LayerNorm");
    return head->forward(Tap("act", torch::gelu(o), "GELU"));
  }
  nn::Linear gate{nullptr}, up{nullptr}, down{nullptr}, head{nullptr};
  nn::LayerNorm ln{nullptr};
};
TORCH_MODULE(SwiGluNet);

// A minimal gated recurrent unit over [N, T, in] sequences, unrolled: z =
// sigmoid(Wz x + Uz h + bz), c = tanh(Wc x + Uc h + bc), h = z h + (1 - z) c
// (z, c and h tapped per step: "gate3", "cand3", "h3"), classifier on the
// last h. bz starts at `gate_bias` (large: the unit starts by keeping its
// state, as a forget-gate bias init does).
struct GatedRnnImpl : nn::Module {
  GatedRnnImpl(int64_t in, int64_t hidden, int64_t classes, double gate_bias) : hidden_(hidden) {
    wx = register_module("wx", nn::Linear(in, 2 * hidden));
    wh = register_module("wh", nn::Linear(nn::LinearOptions(hidden, 2 * hidden).bias(false)));
    head = register_module("head", nn::Linear(hidden, classes));
    torch::NoGradGuard g;
    wx->bias.slice(0, 0, hidden).fill_(gate_bias);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = torch::zeros({x.size(0), hidden_});
    for (int64_t t = 0; t < x.size(1); ++t) {
      const std::string n = std::to_string(t);
      std::vector<torch::Tensor> pre = (wx->forward(x.select(1, t)) + wh->forward(h)).chunk(2, 1);
      torch::Tensor z = Tap("gate" + n, torch::sigmoid(pre[0]), "Sigmoid");
      torch::Tensor c = Tap("cand" + n, torch::tanh(pre[1]), "Tanh");
      h = Tap("h" + n, z * h + (1 - z) * c, "Mul");
    }
    return head->forward(h);
  }
  int64_t hidden_;
  nn::Linear wx{nullptr}, wh{nullptr}, head{nullptr};
};
TORCH_MODULE(GatedRnn);

// An in-batch contrastive (InfoNCE) model of [B, 2, in] view pairs: one
// encoder in -> hidden (GELU) -> dim for both views, L2-normalised, logits
// z1 z2^T / temperature ([B, B], tapped "sim.logits"): the cross-entropy
// against the diagonal is CLIP's and SimCLR's loss (one direction).
struct ContrastiveImpl : nn::Module {
  ContrastiveImpl(int64_t in, int64_t hidden, int64_t dim, double temperature) : t_(temperature) {
    fc1 = register_module("fc1", nn::Linear(in, hidden));
    fc2 = register_module("fc2", nn::Linear(hidden, dim));
  }
  torch::Tensor Embed(const torch::Tensor& v, const std::string& n) {
    torch::Tensor h = Tap(n + ".gelu", torch::gelu(Tap(n + ".fc1", fc1->forward(v), "Linear")), "GELU");
    return nn::functional::normalize(Tap(n + ".fc2", fc2->forward(h), "Linear"),
                                     nn::functional::NormalizeFuncOptions().dim(1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor z1 = Embed(x.select(1, 0), "view1"), z2 = Embed(x.select(1, 1), "view2");
    return Tap("sim.logits", z1.matmul(z2.t()) / t_, "MatMul");
  }
  double t_;
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Contrastive);

// Statistics pooling over a set of K readings (x: [N, K]), as x-vector
// speaker models pool frames: each reading -> `features` (Linear 1 ->
// features), the set's variance per feature in one pass, E[h^2] - E[h]^2
// (the means tapped "mean" and "mean_sq", the difference "var"), its log,
// then GELU hidden -> classes.
struct StatsPoolImpl : nn::Module {
  StatsPoolImpl(int64_t features, int64_t hidden, int64_t classes) {
    fc = register_module("fc", nn::Linear(1, features));
    fc2 = register_module("fc2", nn::Linear(features, hidden));
    head = register_module("head", nn::Linear(hidden, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("fc", fc->forward(x.unsqueeze(2)), "Linear");  // [N, K, F]
    torch::Tensor m1 = Tap("mean", h.mean(1), "Mean"), m2 = Tap("mean_sq", (h * h).mean(1), "Mean");
    torch::Tensor var = Tap("var", m2 - m1 * m1, "Sub");
    torch::Tensor f = Tap("log_var", torch::log(torch::relu(var) + 1e-6), "Log");
    return head->forward(Tap("gelu", torch::gelu(Tap("fc2", fc2->forward(f), "Linear")), "GELU"));
  }
  nn::Linear fc{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(StatsPool);

// One learned hidden Markov model per class (softmaxed initial, transition
// and emission logits) scoring a [N, T] symbol sequence by the forward
// algorithm in probability space, without per-step rescaling: alpha_t =
// (alpha_{t-1} A) * e(obs_t), tapped per step ("alpha3"); the logits are
// the log-likelihoods log sum alpha_T (a Bayes classifier, uniform prior).
struct HmmClassifierImpl : nn::Module {
  HmmClassifierImpl(int64_t classes, int64_t states, int64_t symbols) {
    init = register_parameter("init", torch::randn({classes, states}) * 0.1);
    trans = register_parameter("trans", torch::randn({classes, states, states}) * 0.5);
    emit = register_parameter("emit", torch::randn({classes, states, symbols}) * 0.5);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor obs = x.to(torch::kLong);
    torch::Tensor a = torch::softmax(trans, -1), e = torch::softmax(emit, -1);
    torch::Tensor alpha;
    for (int64_t t = 0; t < obs.size(1); ++t) {
      torch::Tensor et = e.index_select(2, obs.select(1, t)).permute({2, 0, 1});  // [N, C, S]
      alpha = t == 0 ? torch::softmax(init, -1).unsqueeze(0) * et : torch::einsum("ncs,cst->nct", {alpha, a}) * et;
      alpha = Tap("alpha" + std::to_string(t), alpha, "Mul");
    }
    return torch::log(alpha.sum(-1) + 1e-30);
  }
  torch::Tensor init, trans, emit;
};
TORCH_MODULE(HmmClassifier);

// DeepSets over [N, K, in] point sets: phi (in -> h -> h, ReLU) per point,
// the mean over the set, rho (h -> h ReLU -> classes).
struct DeepSetImpl : nn::Module {
  DeepSetImpl(int64_t in, int64_t h, int64_t classes) {
    phi1 = register_module("phi1", nn::Linear(in, h));
    phi2 = register_module("phi2", nn::Linear(h, h));
    rho1 = register_module("rho1", nn::Linear(h, h));
    head = register_module("head", nn::Linear(h, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor p = Tap("phi1", torch::relu(phi1->forward(x)), "ReLU");
    p = Tap("phi2", torch::relu(phi2->forward(p)), "ReLU");
    torch::Tensor pooled = Tap("pool", p.mean(1), "Mean");
    return head->forward(Tap("rho1", torch::relu(rho1->forward(pooled)), "ReLU"));
  }
  nn::Linear phi1{nullptr}, phi2{nullptr}, rho1{nullptr}, head{nullptr};
};
TORCH_MODULE(DeepSet);

// A soft mixture of experts: a softmax gate over `experts` MLPs (in ->
// hidden GELU -> out), the output their gate-weighted sum (gate and the
// stacked experts' outputs tapped).
struct SoftMoeImpl : nn::Module {
  SoftMoeImpl(int64_t in, int64_t hidden, int64_t out, int experts) {
    gate = register_module("gate", nn::Linear(in, experts));
    for (int e = 0; e < experts; ++e) {
      const std::string n = std::to_string(e + 1);
      fc1.push_back(register_module("expert" + n + "_fc1", nn::Linear(in, hidden)));
      fc2.push_back(register_module("expert" + n + "_fc2", nn::Linear(hidden, out)));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor g = Tap("gate", torch::softmax(gate->forward(x), 1), "Softmax");  // [N, E]
    std::vector<torch::Tensor> outs;
    for (size_t e = 0; e < fc1.size(); ++e) {
      const std::string n = "expert" + std::to_string(e + 1);
      outs.push_back(fc2[e]->forward(Tap(n + ".gelu", torch::gelu(fc1[e]->forward(x)), "GELU")));
    }
    torch::Tensor o = Tap("experts", torch::stack(outs, 1), "Stack");  // [N, E, out]
    return (g.unsqueeze(2) * o).sum(1);
  }
  nn::Linear gate{nullptr};
  std::vector<nn::Linear> fc1, fc2;
};
TORCH_MODULE(SoftMoe);

// Wide and deep over Tabular rows: the wide part sums a 2-d embedding per
// categorical field and a linear map of the numeric columns; the deep part
// concatenates 4-d embeddings of the fields with the numeric columns into
// an MLP 18-64-64-2 (ReLU); logits = wide + deep.
struct WideDeepImpl : nn::Module {
  WideDeepImpl() {
    const int64_t card[3] = {10, 7, 5};
    for (int f = 0; f < 3; ++f) {
      const std::string n = std::to_string(f + 1);
      wide_emb.push_back(register_module("wide_emb" + n, nn::Embedding(card[f], 2)));
      deep_emb.push_back(register_module("deep_emb" + n, nn::Embedding(card[f], 4)));
    }
    wide_num = register_module("wide_num", nn::Linear(6, 2));
    fc1 = register_module("fc1", nn::Linear(18, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor num = x.slice(1, 3, 9);
    torch::Tensor wide = wide_num->forward(num);
    std::vector<torch::Tensor> parts;
    for (int64_t f = 0; f < 3; ++f) {
      torch::Tensor ids = x.select(1, f).to(torch::kLong);
      wide = wide + wide_emb[f]->forward(ids);
      parts.push_back(Tap("deep_emb" + std::to_string(f + 1), deep_emb[f]->forward(ids), "Embedding"));
    }
    parts.push_back(num);
    torch::Tensor h = Tap("act1", torch::relu(Tap("fc1", fc1->forward(torch::cat(parts, 1)), "Linear")), "ReLU");
    h = Tap("act2", torch::relu(Tap("fc2", fc2->forward(h), "Linear")), "ReLU");
    return Tap("wide", wide, "Add") + out->forward(h);
  }
  std::vector<nn::Embedding> wide_emb, deep_emb;
  nn::Linear wide_num{nullptr}, fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(WideDeep);

// [N, F] -> [N, 2F]: sin and cos of each feature.
struct SinCosImpl : nn::Module {
  torch::Tensor forward(const torch::Tensor& x) { return torch::cat({torch::sin(x), torch::cos(x)}, 1); }
};
TORCH_MODULE(SinCos);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh4Programs() {
  std::vector<Program> v;
  using TS = TrackedSequential;
  auto seq = [](std::function<TS()> f) { return f; };
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<SwiGluNet>("swiglu_sign_products_rmsprop_warmup_cosine", "SwiGLU unit 12 -> 64 -> 32 (GELU) on sign "
                      "interactions of 12 features, 4 classes, RMSprop 1e-3 warm-up+cosine",
                      std::function<SwiGluNet()>([] { return SwiGluNet(12, 64, 32, 4, false); }),
                      [] { return SignProducts(); }), "rmsprop", 1e-3, "warmup_cosine", 120);
  add(Make<TS>("wide_fanin_4096_gratings_sgd_warmup_cosine", "MLP 4096-32-4 ReLU on 64x64 gratings under noise "
               "(fan-in 4096), batch 32, plain SGD 0.05 warm-up+cosine", seq([] { return Mlp({4096, 32, 4, 1}); }),
               [] { return Gratings(); }), "sgd", 0.05, "warmup_cosine", 80);
  add(Make<TS>("groupnorm_cnn_dot_count_sgd_step", "2-conv CNN (8, 16) with GroupNorm and global average pooling "
               "counting 1..4 dots, plain SGD 0.1 step decay", seq([] {
                 torch::OrderedDict<std::string, nn::AnyModule> m;
                 m.insert("conv1", nn::AnyModule(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1))));
                 m.insert("gn1", nn::AnyModule(nn::GroupNorm(nn::GroupNormOptions(2, 8))));
                 m.insert("act1", nn::AnyModule(nn::ReLU()));
                 m.insert("pool1", nn::AnyModule(nn::MaxPool2d(2)));
                 m.insert("conv2", nn::AnyModule(nn::Conv2d(nn::Conv2dOptions(8, 16, 3).padding(1))));
                 m.insert("gn2", nn::AnyModule(nn::GroupNorm(nn::GroupNormOptions(4, 16))));
                 m.insert("act2", nn::AnyModule(nn::ReLU()));
                 m.insert("gap", nn::AnyModule(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(1))));
                 m.insert("flat", nn::AnyModule(nn::Flatten()));
                 m.insert("out", nn::AnyModule(nn::Linear(16, 4)));
                 return TS(std::move(m));
               }), [] { return DotCount(); }), "sgd", 0.1, "step", 100);
  add(Make<DeepSet>("deepsets_point_shapes_adam_warmup_cosine", "DeepSets (phi 2-32-32, mean, rho 32-32-4) on "
                    "rotated 16-point shapes, Adam 3e-3 warm-up+cosine",
                    std::function<DeepSet()>([] { return DeepSet(2, 32, 4); }), [] { return PointShapes(); }),
      "adam", 3e-3, "warmup_cosine", 120);
  add(Make<SoftMoe>("soft_moe_piecewise_rmsprop_cosine", "soft mixture of 4 experts (8-32-1 GELU) with a softmax "
                    "gate, MSE on a quadrant-wise regression, RMSprop 2e-3 cosine",
                    std::function<SoftMoe()>([] { return SoftMoe(8, 32, 1, 4); }), [] { return Piecewise(); }),
      "rmsprop", 2e-3, "cosine", 150)->loss = Loss::kMse;
  add(Make<WideDeep>("wide_deep_tabular_adam_l2", "wide-and-deep on 3 categorical fields (embeddings) and 6 "
                     "numeric columns, binary label, Adam 2e-3 with L2 weight decay 1e-4",
                     std::function<WideDeep()>([] { return WideDeep(); }), [] { return Tabular(); }),
      "adam", 2e-3, "constant", 120)->weight_decay = 1e-4;
  add(Make<GatedRnn>("gated_rnn_trends_adamw_step", "minimal gated recurrent unit (24) unrolled over 8 steps, "
                     "rising/falling/flat/alternating, AdamW 3e-3 step decay",
                     std::function<GatedRnn()>([] { return GatedRnn(3, 24, 4, 0.0); }), [] { return Trends(); }),
      "adamw", 3e-3, "step", 120);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware, most of a kind no other group has.
  // The prediction is the stored output of the last layer: at 300, e4m3
  // keeps steps of 16..32 (per-tensor scale or not), bf16 steps of 2, fp16
  // of 0.25, while the targets vary by +-5 around 300. The bias starts at
  // the targets' mean, as practitioners initialise it, so fp32 starts near
  // the variance of the targets.
  Program* p = add(Make<TS>("kelvin_targets_offset_300_bias_init", "MSE on temperatures 300 +- 5 K in their "
                            "units, MLP 8-64-64-1 GELU with the output bias initialised at 300, Adam 1e-3 step decay",
                            seq([] {
                              torch::OrderedDict<std::string, nn::AnyModule> m;
                              m.insert("fc1", nn::AnyModule(nn::Linear(8, 64)));
                              m.insert("act1", nn::AnyModule(nn::GELU()));
                              m.insert("fc2", nn::AnyModule(nn::Linear(64, 64)));
                              m.insert("act2", nn::AnyModule(nn::GELU()));
                              nn::Linear out(64, 1);
                              {
                                torch::NoGradGuard g;
                                out->bias.fill_(300.0);
                              }
                              m.insert("out", nn::AnyModule(out));
                              return TS(std::move(m));
                            }), [] { return KelvinTemps(); }), "adam", 1e-3, "step", 150);
  p->loss = Loss::kMse, p->planted = true;
  // z = sigmoid(4 + ...) ~ 0.98: e4m3 holds 0.9375 and 1.0 there (3
  // mantissa bits), so a stored gate of 1 writes nothing into the state
  // (1 - z = 0) and one of 0.9375 forgets 3.5x faster; bf16 keeps 1 - z to
  // ~10%.
  p = add(Make<GatedRnn>("gated_rnn_update_gate_bias4", "minimal gated recurrent unit (32) over 16 steps of noisy "
                         "evidence, update-gate bias initialised at 4 (z ~ 0.98), Adam 3e-3",
                         std::function<GatedRnn()>([] { return GatedRnn(6, 32, 4, 4.0); }),
                         [] { return NoisyEvidence(); }), "adam", 3e-3, "constant", 120);
  p->planted = true;
  // gate and up are ~120 in rms at the start, their product ~7e3 in rms with
  // tails past fp16's 65504; the LayerNorm after the down projection makes
  // fp32 indifferent to the scale.
  p = add(Make<SwiGluNet>("swiglu_raw_counts_x150_layernorm", "SwiGLU unit 16 -> 64 -> 32 on raw counts (clusters "
                          "x150, unnormalized), LayerNorm after the down projection, AdamW 1e-3 warm-up",
                          std::function<SwiGluNet()>([] { return SwiGluNet(16, 64, 32, 6, true); }),
                          [] { return RawCounts(); }), "adamw", 1e-3, "warmup", 100);
  p->planted = true;
  // Logits z1.z2 / 0.01 in [-100, 100] (CLIP clamps its learned scale at
  // 100): e4m3 steps of 8 at 64..100, while the positive and the hardest
  // negatives differ by a few units.
  p = add(Make<Contrastive>("infonce_temperature_0p01_views", "in-batch InfoNCE over two noisy views (encoder "
                            "24-64-16 GELU, L2-normalised), temperature 0.01, Adam 1e-3 warm-up",
                            std::function<Contrastive()>([] { return Contrastive(24, 64, 16, 0.01); }),
                            [] { return TwoViews(); }), "adam", 1e-3, "warmup", 100);
  p->planted = true;
  // h = w x + b ~ 30 on readings of ~100, E[h^2] ~ 1e3, while the variance
  // that carries the class is w^2 sigma^2 ~ 0.01..4: the difference needs
  // ~1e-5 relative precision in both means (fp32 has 6e-8, fp16 5e-4, bf16
  // 4e-3, e4m3 6e-2).
  p = add(Make<StatsPool>("stats_pooling_one_pass_variance_offset_100", "statistics pooling with a one-pass "
                          "variance E[h^2] - E[h]^2 over 16 readings on offsets of 80..120, class = spread, "
                          "Linear 1 -> 8, log, GELU 32, Adam 3e-3",
                          std::function<StatsPool()>([] { return StatsPool(8, 32, 4); }),
                          [] { return OffsetSets(); }), "adam", 3e-3, "constant", 120);
  p->planted = true;
  // alpha_t falls by ~1/6 a step, to ~1e-12 after 16: below fp16's smallest
  // normal (6e-5, flushed) from the sixth step on, and its gradient
  // (d log sum alpha_T / d alpha_t ~ 1 / alpha_t) grows past fp16's and
  // e5m2's maxima without a scale. fp32 holds both ends.
  p = add(Make<HmmClassifier>("hmm_forward_unscaled_16_steps", "3 class HMMs (4 states, 6 symbols) scoring "
                              "16-symbol sequences by an unscaled forward pass in probability space, Adam 3e-2",
                              std::function<HmmClassifier()>([] { return HmmClassifier(3, 4, 6); }),
                              [] { return HmmSequences(); }), "adam", 3e-2, "constant", 120);
  p->planted = true;
  // The weights (rms 0.19..0.38) need corrections of ~0.01 and Adam moves
  // them 2e-4 a step: e4m3 under a per-tensor scale holds steps of ~0.01..
  // 0.03 at those weights, bf16 of ~0.001 (fp32 master weights accumulate
  // the updates, the forward sees them only once they cross a step).
  p = add(Make<TS>("finetune_delta_below_fp8_resolution", "fine-tuning a pretrained tanh MLP 16-64-64-4 to targets "
                   "of its weights moved by 0.01, MSE, Adam 2e-4", seq([] {
                     TS m = Chain({16, 64, 64, 4}, "tanh");
                     const std::vector<torch::Tensor> w = PretrainedWeights(0);
                     torch::NoGradGuard g;
                     std::vector<torch::Tensor> params = m->parameters();
                     for (size_t i = 0; i < params.size(); ++i) params[i].copy_(w[i]);
                     return m;
                   }), [] { return FinetuneTask(0.01); }), "adam", 2e-4, "constant", 150);
  p->loss = Loss::kMse, p->planted = true;
  // The phases t * 2 pi k / 1000 reach 2.5e3 rad: fp32 keeps ~2e-4 rad
  // there, fp16 2 rad, bf16 16 rad, e4m3 hundreds; the class is the phase.
  p = add(Make<TS>("timestamp_fourier_phase_1e5", "Fourier features (k = 1..4 cycles per 1000 s) of absolute "
                   "timestamps up to 1e5 s, sin/cos, MLP 8-32-4 ReLU, plain SGD 0.1 cosine", seq([] {
                     torch::OrderedDict<std::string, nn::AnyModule> m;
                     m.insert("phase", nn::AnyModule(ChannelScale(torch::arange(1, 5).to(torch::kFloat) *
                                                                  (2 * M_PI / 1000.0))));
                     m.insert("sincos", nn::AnyModule(SinCos()));
                     m.insert("fc1", nn::AnyModule(nn::Linear(8, 32)));
                     m.insert("act1", nn::AnyModule(nn::ReLU()));
                     m.insert("out", nn::AnyModule(nn::Linear(32, 4)));
                     return TS(std::move(m));
                   }), [] { return Timestamps(); }), "sgd", 0.1, "cosine", 100);
  p->planted = true;
  // A static loss scale of 2^24 (picked to keep tiny gradients alive, never
  // lowered): the logits' gradients are ~2^24 p / 64 ~ 1e5, past fp16's
  // 65504; Adam (eps negligible) makes fp32 indifferent to the scale.
  p = add(Make<TS>("static_loss_scale_2p24_adam", "loss x 2^24 (a static loss scale), MLP 2-64-64-6 tanh on a "
                   "twisted polar grid, Adam 3e-3", seq([] { return Mlp({2, 64, 6, 2, "tanh"}); }),
                   [] { return TwistedSectors(); }), "adam", 3e-3, "constant", 150);
  p->loss_scale = 16777216.0, p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH4_H_
