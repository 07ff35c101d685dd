// The fresh2 group of the validation corpus (validation.cc): 16 programs
// written after corpus.h and corpus_fresh.h had both been used to change the
// low-precision rules, so that a rule change could be judged on trainings
// nobody tuned anything against. It was the unseen check until the rules
// were changed with its predictions in view: it is seen data now too, and
// corpus_fresh3.h is the unseen check. Each was designed from what the
// hardware does to numbers (formats' ranges, scaling recipes, where a
// recipe is missing), with only its fp32 training and its simulated truth
// looked at, never the prediction; a program is not changed after its
// prediction has been seen.
//
// Seven train fine in fp32 and, by design, on fp8 hardware (new data sets:
// a checkerboard, blobs in image quadrants, bags of topic tokens, a
// multi-output regression; new shapes; RMSprop, Adam with step decay, SGD
// with warm-up and cosine). Nine plant a breaker, at magnitudes and on
// models the other groups do not use, five of them kinds no other group
// has: a 2048-way softmax whose wrong-class logit gradients are ~1/(V*B), an
// MSE averaged over 384 outputs, a sigmoid stack (no small init) whose
// early gradients vanish, weights that fold a per-column standardization
// (columns spanning 1e3), a residual stream that grows x1e4 with depth
// under a final LayerNorm; and the known kinds elsewhere: loss x1e-3 under
// RMSprop, two post-LayerNorm channels x3e3, attention logits x2e3 over 16
// tokens, per-sample gains spread log-uniformly over 1e-5..1. Whether and
// where each breaks is for the simulation to say, not for its label.
//
//   for (const Program& p : Fresh2Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH2_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH2_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"
#include "examples/validation/corpus_fresh.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// Points uniform in [-1, 1]^2, class = colour of a 3x3 checkerboard (2
// classes).
inline Data Checkerboard(int64_t n = 1536) {
  torch::Tensor x = torch::rand({n, 2}) * 2 - 1;
  torch::Tensor cell = torch::floor((x + 1) * 1.5).clamp(0, 2).sum(1);
  return {x, torch::fmod(cell, 2).to(torch::kLong)};
}

// 1x16x16 images on noise (0.5) with a Gaussian blob (sigma 1.5, peak 2) at a
// random place inside one quadrant: class = quadrant.
inline Data Blobs(int64_t n = 768) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor cy = 1.5 + torch::rand({n}) * 5 + 8 * torch::div(y, 2, /*rounding_mode=*/"floor").to(torch::kFloat);
  torch::Tensor cx = 1.5 + torch::rand({n}) * 5 + 8 * (y % 2).to(torch::kFloat);
  torch::Tensor grid = torch::arange(16).to(torch::kFloat);
  torch::Tensor dy = grid.view({1, 16, 1}) - cy.view({n, 1, 1});
  torch::Tensor dx = grid.view({1, 1, 16}) - cx.view({n, 1, 1});
  torch::Tensor blob = 2 * torch::exp(-(dy * dy + dx * dx) / (2 * 1.5 * 1.5));
  return {(blob + 0.5 * torch::randn({n, 16, 16})).unsqueeze(1), y};
}

// Bags of `len` tokens from a vocabulary of `vocab`: each topic (class, of
// `topics`) owns vocab/topics consecutive tokens; a token is drawn from its
// bag's topic with probability 0.5, else uniformly from the vocabulary.
inline Data Topics(int64_t n = 1024, int64_t vocab = 200, int64_t len = 8, int64_t topics = 5) {
  const int64_t per = vocab / topics;
  torch::Tensor y = torch::randint(0, topics, {n}, torch::kLong);
  torch::Tensor own = y.unsqueeze(1) * per + torch::randint(0, per, {n, len}, torch::kLong);
  torch::Tensor any = torch::randint(0, vocab, {n, len}, torch::kLong);
  return {torch::where(torch::rand({n, len}) < 0.5, own, any), y};
}

// Next token in a vocabulary of 8 * `contexts`: context token t (uniform)
// is followed by token 8t + z, z in 0..7 drawn Zipf-like (P(z) ~
// (z+1)^-1.5), so the best loss is the entropy of z (~1.5 nats) and the
// classifier has 8 * contexts outputs.
inline Data NextToken(int64_t contexts = 256, int64_t n = 4096) {
  torch::Tensor t = torch::randint(0, contexts, {n}, torch::kLong);
  torch::Tensor w = torch::pow(torch::arange(1, 9).to(torch::kFloat), -1.5);
  torch::Tensor z = torch::multinomial(w, n, /*replacement=*/true);
  return {t, t * 8 + z};
}

// Regression with 4 outputs of 12 features: sin, tanh, a product and a
// norm, each of a random projection, plus noise 0.02.
inline Data MultiRegression(int64_t n = 1024) {
  torch::Tensor a = torch::randn({12, 4}) * 0.35;
  torch::Tensor x = torch::randn({n, 12});
  torch::Tensor p = x.matmul(a);
  torch::Tensor y = torch::stack({torch::sin(2 * p.select(1, 0)), torch::tanh(p.select(1, 1)),
                                  p.select(1, 2) * p.select(1, 3) * 0.5, x.slice(1, 0, 4).norm(2, 1) * 0.3 - 0.5},
                                 1);
  return {x, y + 0.02 * torch::randn({n, 4})};
}

// A dense prediction: `out` outputs that are a fixed random decoding of 16
// nonlinear features of the 24 inputs (values ~0.5), plus noise 0.02.
inline Data WideTargets(int64_t out = 384, int64_t n = 1024) {
  torch::Tensor a = torch::randn({24, 16}) * 0.3, b = torch::randn({16, out}) * 0.25;
  torch::Tensor x = torch::randn({n, 24});
  return {x, torch::tanh(x.matmul(a)).matmul(b) + 0.02 * torch::randn({n, out})};
}

// Clusters in 24-d (6 classes) whose columns are in different units: column
// j multiplied by 10^u_j, u_j evenly spread over [-1.5, 1.5] (a ratio of
// 1e3 between the largest and smallest column), as raw tabular data.
inline torch::Tensor ColumnScales(int64_t d = 24) { return torch::pow(10.0, torch::linspace(-1.5, 1.5, d)); }
inline Data UnitColumns(int64_t n = 1024) {
  Data d = Clusters(24, 6, 0.9, n);
  d.x = d.x * ColumnScales().unsqueeze(0);
  return d;
}

// Clusters in 32-d (8 classes) whose samples each carry a gain 10^u, u
// uniform in [-5, 0]: a sensor whose amplification varies from recording
// to recording over five decades.
inline Data SampleGain(int64_t n = 1024) {
  Data d = Clusters(32, 8, 0.8, n);
  d.x = d.x * torch::pow(10.0, -5 * torch::rand({n, 1}));
  return d;
}

// --- models ---------------------------------------------------------------------

// Mean over dimension 1: [N, L, D] -> [N, D] (a bag of token embeddings).
struct MeanPoolImpl : nn::Module {
  torch::Tensor forward(const torch::Tensor& x) { return x.mean(1); }
};
TORCH_MODULE(MeanPool);

// Each sample divided by its root mean square (no learned gain, an eps far
// below any sample's scale): the model does not see a sample's gain.
struct SampleRmsNormImpl : nn::Module {
  torch::Tensor forward(const torch::Tensor& x) { return x * torch::rsqrt(x.pow(2).mean(1, true) + 1e-30); }
};
TORCH_MODULE(SampleRmsNorm);

// Embedding(vocab, dim) of a bag of tokens, mean-pooled, then an MLP
// dim-hidden-classes.
inline TrackedSequential BagOfTokens(int64_t vocab, int64_t dim, int64_t hidden, int64_t classes) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("embed", nn::AnyModule(nn::Embedding(vocab, dim)));
  m.insert("pool", nn::AnyModule(MeanPool()));
  m.insert("fc1", nn::AnyModule(nn::Linear(dim, hidden)));
  m.insert("act1", nn::AnyModule(nn::ReLU()));
  m.insert("out", nn::AnyModule(nn::Linear(hidden, classes)));
  return TrackedSequential(std::move(m));
}

// A next-token model: Embedding(contexts, dim) -> Linear(dim, hidden) ->
// GELU -> Linear(hidden, vocab), the classifier over the whole vocabulary.
inline TrackedSequential TokenLm(int64_t contexts, int64_t dim, int64_t hidden, int64_t vocab) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("embed", nn::AnyModule(nn::Embedding(contexts, dim)));
  m.insert("fc1", nn::AnyModule(nn::Linear(dim, hidden)));
  m.insert("act1", nn::AnyModule(nn::GELU()));
  m.insert("out", nn::AnyModule(nn::Linear(hidden, vocab)));
  return TrackedSequential(std::move(m));
}

// Linear -> LayerNorm -> GELU whose stored output carries `channels`
// channels at `outlier` times their size (as LLMs grow a few large
// post-norm channels); a fixed scale takes them back before fc2, so fp32
// trains exactly as without them (folding 1/outlier into fc2's weights
// instead would not train under Adam: see OutlierCnn).
inline TrackedSequential PostNormOutlierMlp(int64_t in, int64_t hidden, int64_t out, int channels, double outlier) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("fc1", nn::AnyModule(nn::Linear(in, hidden)));
  m.insert("ln1", nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({hidden}))));
  m.insert("act1", nn::AnyModule(nn::GELU()));
  torch::Tensor up = torch::ones({hidden}), down = torch::ones({hidden});
  for (int c = 0; c < channels; ++c) up[c] = outlier, down[c] = 1.0 / outlier;
  m.insert("outlier", nn::AnyModule(ChannelScale(up)));
  m.insert("restore", nn::AnyModule(ChannelScale(down)));
  m.insert("fc2", nn::AnyModule(nn::Linear(hidden, hidden)));
  m.insert("act2", nn::AnyModule(nn::GELU()));
  m.insert("out", nn::AnyModule(nn::Linear(hidden, out)));
  return TrackedSequential(std::move(m));
}

// MLP in -> hidden (ReLU) -> out whose fc1 folds a per-column
// standardization: its weight column j is divided by the column's scale,
// so fp32 trains as on standardized data while the weight tensor spans the
// columns' ratio (a StandardScaler folded into the first layer for
// deployment).
inline TrackedSequential FoldedScalerMlp(const torch::Tensor& scales, int64_t hidden, int64_t out) {
  const int64_t in = scales.size(0);
  torch::OrderedDict<std::string, nn::AnyModule> m;
  nn::Linear fc1(in, hidden);
  {
    torch::NoGradGuard g;
    fc1->weight.div_(scales.unsqueeze(0));
  }
  m.insert("fc1", nn::AnyModule(fc1));
  m.insert("act1", nn::AnyModule(nn::ReLU()));
  m.insert("fc2", nn::AnyModule(nn::Linear(hidden, hidden)));
  m.insert("act2", nn::AnyModule(nn::ReLU()));
  m.insert("out", nn::AnyModule(nn::Linear(hidden, out)));
  return TrackedSequential(std::move(m));
}

// A residual net without norm in its blocks whose branches are initialised
// `branch_gain` times larger (each block's fc2), so the stream grows by
// about sqrt(1 + (0.24 gain)^2) per block; a final LayerNorm before the
// head makes the classifier indifferent to the stream's scale.
inline TrackedSequential GrowingResNet(int64_t in, int64_t width, int64_t out, int blocks, double branch_gain) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("stem", nn::AnyModule(nn::Linear(in, width)));
  for (int b = 1; b <= blocks; ++b) {
    Residual block(width, /*layer_norm=*/false);
    {
      torch::NoGradGuard g;
      block->fc2->weight.mul_(branch_gain);
    }
    m.insert("res" + std::to_string(b), nn::AnyModule(block));
  }
  m.insert("ln_f", nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({width}))));
  m.insert("out", nn::AnyModule(nn::Linear(width, out)));
  return TrackedSequential(std::move(m));
}

// An MLP whose first layer (no bias) is followed by a per-sample RMS norm:
// in -> hidden, norm, GELU, hidden -> hidden, GELU, out.
inline TrackedSequential SampleNormMlp(int64_t in, int64_t hidden, int64_t out) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("fc1", nn::AnyModule(nn::Linear(nn::LinearOptions(in, hidden).bias(false))));
  m.insert("norm1", nn::AnyModule(SampleRmsNorm()));
  m.insert("act1", nn::AnyModule(nn::GELU()));
  m.insert("fc2", nn::AnyModule(nn::Linear(hidden, hidden)));
  m.insert("act2", nn::AnyModule(nn::GELU()));
  m.insert("out", nn::AnyModule(nn::Linear(hidden, out)));
  return TrackedSequential(std::move(m));
}

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh2Programs() {
  std::vector<Program> v;
  using TS = TrackedSequential;
  auto mlp = [](MlpSpec s) { return std::function<TS()>([s] { return Mlp(s); }); };
  auto seq = [](std::function<TS()> f) { return f; };
  const ProgramAdder add{&v};
  auto blobs = [] { return Blobs(); };

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<TS>("checkerboard_gelu_rmsprop", "MLP 2-64-64-64-2 GELU on a 3x3 checkerboard, RMSprop 5e-3",
               mlp({2, 64, 2, 3, "gelu"}), [] { return Checkerboard(); }), "rmsprop", 5e-3, "constant", 200);
  add(Make<TS>("cnn_blobs_momentum_warmup_cosine", "2-conv CNN (4, 8) on blobs in image quadrants, SGD 0.02 "
               "momentum warm-up+cosine", seq([] { return lpsim::examples::Cnn(false, 4, 4, 16); }), blobs),
      "momentum", 0.02, "warmup_cosine", 60);
  add(Make<Transformer>("transformer_d32_adam_step", "transformer block d=32 on 6-token sequences, 8 classes, "
                        "Adam 2e-3 step decay", std::function<Transformer()>([] { return Transformer(32, 8, 1.0); }),
                        [] { return LongNeedles(768, 6, 32, 8); }), "adam", 2e-3, "step", 100);
  add(Make<TS>("embedding_topics_adam", "bag of 8 tokens: Embedding(200, 24) mean-pooled, MLP 24-32-5, Adam 1e-2",
               seq([] { return BagOfTokens(200, 24, 32, 5); }), [] { return Topics(); }), "adam", 1e-2, "constant",
      100);
  add(Make<TS>("multi_regression_layernorm_rmsprop", "MLP 12-64-64-4 GELU with LayerNorm, MSE on 4 targets, "
               "RMSprop 1e-3", mlp({12, 64, 4, 2, "gelu", "layer"}), [] { return MultiRegression(); }),
      "rmsprop", 1e-3, "constant", 150)->loss = Loss::kMse;
  add(Make<TS>("resnet6_plain_momentum_step", "6 residual blocks without norm (32), SGD 0.02 momentum step decay",
               seq([] { return ResNet(32, 32, 10, 6, false); }), [] { return Clusters(32, 10, 0.9); }),
      "momentum", 0.02, "step", 100);
  add(Make<TS>("sigmoid_mlp_128d_adamw_cosine", "MLP 128-64-64-20 sigmoid on 20 clusters in 128-d, AdamW 1e-2 "
               "cosine", mlp({128, 64, 20, 2, "sigmoid"}), [] { return Clusters(128, 20, 1.5); }),
      "adamw", 1e-2, "cosine", 100);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware at a magnitude, or on a model, that no other group uses.
  // A 2048-way softmax: every wrong class's logit gradient is p/B, ~1/(2048
  // * 64) = 7.6e-6 at the start and smaller as p concentrates (e5m2's
  // smallest subnormal is 1.5e-5, fp16's smallest normal 6.1e-5).
  Program* p = add(Make<TS>("vocab_2048_softmax_adam", "next token over a 2048-token vocabulary: Embedding(256, 64), "
                            "GELU 128, Linear to 2048, Adam 3e-3", seq([] { return TokenLm(256, 64, 128, 2048); }),
                            [] { return NextToken(256); }), "adam", 3e-3, "constant", 120);
  p->planted = true;
  // An MSE averaged over 64 x 384 outputs: each output's gradient is
  // 2 err / 24576, ~1e-5 and below as the error falls (Adam: fp32 is
  // indifferent to the mean's size).
  p = add(Make<TS>("mse_mean_384_outputs_adam", "MLP 24-128-128-384 ReLU, MSE averaged over 384 outputs, Adam 2e-3",
                   mlp({24, 128, 384, 2}), [] { return WideTargets(); }), "adam", 2e-3, "constant", 120);
  p->loss = Loss::kMse, p->planted = true;
  // RMSprop (eps 1e-8) is nearly scale-free at gradients ~1e-6: the loss as
  // a sum normalised by a fixed budget 1e3 times the batch.
  p = add(Make<TS>("tiny_grads_1e3_rmsprop_cnn", "loss x 1e-3, 2-conv CNN (6, 12) on blobs, RMSprop 1e-3",
                   seq([] { return lpsim::examples::Cnn(false, 4, 6, 16); }), blobs), "rmsprop", 1e-3, "constant", 80);
  p->loss_scale = 1e-3, p->planted = true;
  // A sigmoid stack at the usual init and Adam's usual eps: each layer
  // passes back at most a quarter of the gradient (sigma' <= 1/4), ~0.14 of
  // it in rms, so the first layer sees ~1e-4 of the head's, ~1e-6 and below.
  p = add(Make<TS>("deep_sigmoid_adam", "5-layer sigmoid MLP 32 wide (usual init), Adam 3e-3",
                   mlp({32, 32, 10, 5, "sigmoid"}), [] { return Clusters(); }), "adam", 3e-3, "constant", 250);
  p->planted = true;
  p = add(Make<TS>("postnorm_outliers_3e3_adamw", "MLP with two post-LayerNorm channels x3e3 (read back x1/3e3), "
                   "AdamW 2e-3 cosine", seq([] { return PostNormOutlierMlp(32, 64, 10, 2, 3e3); }),
                   [] { return Clusters(32, 10, 0.8); }), "adamw", 2e-3, "cosine", 100);
  p->planted = true;
  p = add(Make<Transformer>("attention_logits_2e3_rmsprop", "transformer block d=32 on 16-token sequences, attention "
                            "logits x2e3, RMSprop 1e-3 warm-up",
                            std::function<Transformer()>([] { return Transformer(32, 8, 2e3); }),
                            [] { return LongNeedles(768, 16, 32, 8); }), "rmsprop", 1e-3, "warmup", 100);
  p->planted = true;
  // fp4 weights with too little range: fc1's weight columns are divided by
  // the data's column scales, so a row spans 1e3 at the start and each of
  // its 16-blocks ~1e2 (e2m1 holds 0.5..6 under one block scale).
  p = add(Make<TS>("folded_scaler_1e3_adam", "MLP 24-64-64-6 ReLU whose fc1 folds a standardization of columns "
                   "spanning 1e3, Adam 3e-4", seq([] { return FoldedScalerMlp(ColumnScales(), 64, 6); }),
                   [] { return UnitColumns(); }), "adam", 3e-4, "constant", 120);
  p->planted = true;
  p = add(Make<TS>("sample_gain_1e5_rmsnorm", "per-sample gain log-uniform over 1e-5..1, MLP 32-64-64-8 GELU with "
                   "a per-sample RMS norm after fc1, Adam 2e-3", seq([] { return SampleNormMlp(32, 64, 8); }),
                   [] { return SampleGain(); }), "adam", 2e-3, "constant", 100);
  p->planted = true;
  // Growing activations through depth: branches at 10x init grow the
  // stream ~2.6x per block, ~1e4 after ten; the gradient reaching the
  // stream through the final LayerNorm is ~1e-4 of the head's.
  p = add(Make<TS>("residual_growth_1e4_final_ln", "10 residual blocks (32) with branches x10 at init, final "
                   "LayerNorm, AdamW 1e-3 warm-up", seq([] { return GrowingResNet(24, 32, 8, 10, 10.0); }),
                   [] { return Clusters(24, 8, 1.0); }), "adamw", 1e-3, "warmup", 100);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH2_H_
