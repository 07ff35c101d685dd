// The fresh3 group of the validation corpus (validation.cc): 16 programs
// written after corpus.h, corpus_fresh.h and corpus_fresh2.h had all been
// used to change the low-precision rules, so that a rule change can be
// judged on trainings nobody tuned anything against. Each was designed from
// what the hardware does to numbers (formats' ranges and resolution, scaling
// recipes, block scales), with only its fp32 training and its simulated truth
// looked at, never the prediction; a program is not changed after its truth
// has been simulated. To tune against it would make it seen data too: write
// another group instead.
//
// Seven train fine in fp32 and, by design, on fp8 hardware: what
// practitioners train on small data (a CNN with BatchNorm on seven-segment
// digits, an MLP-Mixer over token sequences, a denoising autoencoder, an
// attention-pooling classifier over token embeddings, a two-head multi-task
// regression, a batch of 256 with SGD warm-up and cosine, a Conv1d net on
// noisy waves for 200 steps). Nine plant a breaker, at magnitudes and on
// models no other group uses, five of them kinds no other group has: a
// cosine classifier at temperature 0.02, a linear autoencoder whose
// reconstruction error becomes tiny, LayerScale residual branches at 1e-6,
// a signal riding on a DC offset of 1e3 that BatchNorm removes, frames of
// a decaying note spanning 150 dB under a per-frame LayerNorm; and the
// known kinds elsewhere: attention logits of a learned query x300 growing
// from zero, loss x1e-4 on an MLP-Mixer, a Conv1d channel x3e5, a
// 20-layer leaky-ReLU stack at the default init. Whether and where each
// breaks is for the simulation to say, not for its label.
//
//   for (const Program& p : Fresh3Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH3_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH3_H_

#include <torch/torch.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"
#include "examples/validation/corpus_fresh.h"
#include "examples/validation/corpus_fresh2.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// 1x16x16 images of the ten seven-segment digits (strokes of 1.5 on noise
// 0.5), the 6x11 digit shifted by up to 3 rows and 6 columns: class = digit.
inline Data Segments(int64_t n = 1024) {
  // Segments a..g (top, top right, bottom right, bottom, bottom left, top
  // left, middle) lit per digit.
  constexpr std::array<const char*, 10> kLit = {"abcdef", "bc", "abged", "abgcd", "fgbc",
                                                "afgcd", "afgedc", "abc", "abcdefg", "abcdfg"};
  torch::Tensor y = torch::randint(0, 10, {n}, torch::kLong);
  torch::Tensor dy = torch::randint(0, 4, {n}, torch::kLong), dx = torch::randint(0, 6, {n}, torch::kLong);
  torch::Tensor x = 0.5 * torch::randn({n, 1, 16, 16});
  auto xa = x.accessor<float, 4>();
  auto ya = y.accessor<int64_t, 1>();
  auto dya = dy.accessor<int64_t, 1>();
  auto dxa = dx.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r0 = 2 + dya[i], c0 = 4 + dxa[i];
    auto row = [&](int64_t r) {
      for (int64_t c = c0; c <= c0 + 5; ++c) xa[i][0][r][c] += 1.5f;
    };
    auto col = [&](int64_t c, int64_t from) {
      for (int64_t r = from; r <= from + 5; ++r) xa[i][0][r][c] += 1.5f;
    };
    for (const char* s = kLit[ya[i]]; *s; ++s) {
      switch (*s) {
        case 'a': row(r0); break;
        case 'b': col(c0 + 5, r0); break;
        case 'c': col(c0 + 5, r0 + 5); break;
        case 'd': row(r0 + 10); break;
        case 'e': col(c0, r0 + 5); break;
        case 'f': col(c0, r0); break;
        default: row(r0 + 5); break;  // g
      }
    }
  }
  return {x, y};
}

// Sequences of `len` tokens of `dim` features (noise 0.7) with one of
// `protos` prototypes (x1.5) added to a random token: class = prototype x 2
// + (in the second half of the sequence), so a model must read positions.
inline Data Motifs(int64_t n = 1024, int64_t len = 8, int64_t dim = 12, int64_t protos = 3) {
  torch::Tensor proto = torch::randn({protos, dim}) * 1.5;
  torch::Tensor which = torch::randint(0, protos, {n}, torch::kLong);
  torch::Tensor pos = torch::randint(0, len, {n}, torch::kLong);
  torch::Tensor x = torch::randn({n, len, dim}) * 0.7;
  x.index_put_({torch::arange(n), pos}, x.index({torch::arange(n), pos}) + proto.index_select(0, which));
  return {x, which * 2 + (pos >= len / 2).to(torch::kLong)};
}

// Points on a 4-d curved manifold in 32-d (sin of a random projection of a
// Gaussian latent): x with noise `noise`, y clean (a denoising autoencoder's
// pairs).
inline Data Manifold(double noise, int64_t n = 1024) {
  torch::Tensor a = torch::randn({4, 32});
  torch::Tensor clean = torch::sin(torch::randn({n, 4}).matmul(a));
  return {clean + noise * torch::randn({n, 32}), clean};
}

// Exactly rank-4 data in 32-d (a Gaussian latent through a fixed linear map,
// no noise): a linear autoencoder with a code of 4 or more can reconstruct
// it exactly, so its error heads for zero.
inline Data LowRank(int64_t n = 1024) {
  torch::Tensor x = torch::randn({n, 4}).matmul(torch::randn({4, 32}) * 0.5);
  return {x, x};
}

// Token ids: `len` filler tokens (0..29) and, at a random position, one
// signal token 30 + class (of 6): the classifier has to find it.
inline Data SignalTokens(int64_t n = 1024, int64_t len = 12) {
  torch::Tensor y = torch::randint(0, 6, {n}, torch::kLong);
  torch::Tensor x = torch::randint(0, 30, {n, len}, torch::kLong);
  torch::Tensor pos = torch::randint(0, len, {n}, torch::kLong);
  x.index_put_({torch::arange(n), pos}, y + 30);
  return {x, y};
}

// Two regression tasks on the same 16 features: task A (outputs 0, 1) is
// sin and cos of projections, task B (outputs 2, 3) a square and a tanh of
// others; noise 0.02.
inline Data TwoTasks(int64_t n = 1024) {
  torch::Tensor a = torch::randn({16, 4}) * 0.3;
  torch::Tensor x = torch::randn({n, 16});
  torch::Tensor p = x.matmul(a);
  torch::Tensor y = torch::stack({torch::sin(2 * p.select(1, 0)), torch::cos(2 * p.select(1, 1)),
                                  p.select(1, 2).pow(2) * 0.5 - 0.3, torch::tanh(p.select(1, 3))},
                                 1);
  return {x, y + 0.02 * torch::randn({n, 4})};
}

// [n, 1, 64] signals: a sine of 3, 5, 8 or 12 periods (class) over the 64
// samples at a random phase and amplitude 0.5..1.5, noise 0.8, on a
// constant `offset` (a sensor's DC level).
inline Data Waves(double offset = 0, int64_t n = 1024) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor freq = torch::tensor({3.0f, 5.0f, 8.0f, 12.0f}).index_select(0, y);
  torch::Tensor t = torch::arange(64).to(torch::kFloat).unsqueeze(0);
  torch::Tensor phase = torch::rand({n, 1}) * (2 * M_PI), amp = 0.5 + torch::rand({n, 1});
  torch::Tensor x = amp * torch::sin(2 * M_PI * freq.unsqueeze(1) * t / 64 + phase) + 0.8 * torch::randn({n, 64});
  return {(x + offset).unsqueeze(1), y};
}

// A decaying note: 16 frames of 16 features whose amplitude falls by
// 10^-0.5 per frame (1 -> 3e-8, 150 dB). Frames 0..7 carry a distractor
// prototype, frames 8..15 the class's (of 4), each with noise 0.3 under
// the same envelope: the class is only in the quiet tail.
inline Data DecayingNote(int64_t n = 1024) {
  torch::Tensor head = torch::randn({4, 16}), tail = torch::randn({4, 16});
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong), d = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor distractor = head.index_select(0, d).unsqueeze(1).expand({n, 8, 16});
  torch::Tensor cls = tail.index_select(0, y).unsqueeze(1).expand({n, 8, 16});
  torch::Tensor x = torch::cat({distractor, cls}, 1) + 0.3 * torch::randn({n, 16, 16});
  torch::Tensor envelope = torch::pow(10.0, -0.5 * torch::arange(16).to(torch::kDouble)).to(torch::kFloat);
  return {x * envelope.view({1, 16, 1}), y};
}

// --- models ---------------------------------------------------------------------

// An MLP-Mixer over [N, L, in] token sequences: a linear embedding to d,
// `blocks` pre-LayerNorm blocks of token mixing (an MLP across the L
// positions, 2L wide) and channel mixing (across d, 2d wide), a final
// LayerNorm, mean over positions, a classifier.
struct MixerImpl : nn::Module {
  MixerImpl(int64_t len, int64_t in, int64_t d, int64_t classes, int blocks) {
    embed = register_module("embed", nn::Linear(in, d));
    for (int b = 0; b < blocks; ++b) {
      const std::string n = std::to_string(b + 1);
      ln_tok.push_back(register_module("ln_tok" + n, nn::LayerNorm(nn::LayerNormOptions({d}))));
      tok1.push_back(register_module("tok1_" + n, nn::Linear(len, 2 * len)));
      tok2.push_back(register_module("tok2_" + n, nn::Linear(2 * len, len)));
      ln_ch.push_back(register_module("ln_ch" + n, nn::LayerNorm(nn::LayerNormOptions({d}))));
      ch1.push_back(register_module("ch1_" + n, nn::Linear(d, 2 * d)));
      ch2.push_back(register_module("ch2_" + n, nn::Linear(2 * d, d)));
    }
    ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({d})));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = Tap("embed", embed->forward(x), "Linear");
    for (size_t b = 0; b < tok1.size(); ++b) {
      const std::string n = std::to_string(b + 1);
      torch::Tensor h = Tap("ln_tok" + n, ln_tok[b]->forward(x), "LayerNorm").transpose(1, 2);  // [N, d, L]
      h = Tap("tok_gelu" + n, torch::gelu(Tap("tok1_" + n, tok1[b]->forward(h), "Linear")), "GELU");
      x = x + Tap("tok2_" + n, tok2[b]->forward(h), "Linear").transpose(1, 2);
      h = Tap("ln_ch" + n, ln_ch[b]->forward(x), "LayerNorm");
      h = Tap("ch_gelu" + n, torch::gelu(Tap("ch1_" + n, ch1[b]->forward(h), "Linear")), "GELU");
      x = x + Tap("ch2_" + n, ch2[b]->forward(h), "Linear");
    }
    return head->forward(Tap("ln_f", ln_f->forward(x), "LayerNorm").mean(1));
  }
  nn::Linear embed{nullptr}, head{nullptr};
  std::vector<nn::LayerNorm> ln_tok, ln_ch;
  std::vector<nn::Linear> tok1, tok2, ch1, ch2;
  nn::LayerNorm ln_f{nullptr};
};
TORCH_MODULE(Mixer);

// A classifier of token sequences by attention pooling: token and position
// embeddings, a LayerNorm, keys and values; one learned query (zero at
// init, so attention starts uniform) scores the keys, the logits multiplied
// by gain / sqrt(d) (tapped, "attn.logits"); the pooled value goes through
// a GELU layer to the classifier.
struct AttnPoolImpl : nn::Module {
  AttnPoolImpl(int64_t vocab, int64_t len, int64_t d, int64_t classes, double gain) : d_(d), gain_(gain) {
    embed = register_module("embed", nn::Embedding(vocab, d));
    pos = register_parameter("pos", torch::randn({len, d}) * 0.1);
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({d})));
    key = register_module("key", nn::Linear(d, d));
    value = register_module("value", nn::Linear(d, d));
    query = register_parameter("query", torch::zeros({d}));
    fc = register_module("fc", nn::Linear(d, d));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(torch::Tensor ids) {
    torch::Tensor h = Tap("ln", ln->forward(Tap("embed", embed->forward(ids), "Embedding") + pos), "LayerNorm");
    torch::Tensor k = Tap("key", key->forward(h), "Linear"), v = Tap("value", value->forward(h), "Linear");
    torch::Tensor logits = Tap("attn.logits", k.matmul(query) * (gain_ / std::sqrt(double(d_))), "MatMul");  // [N, L]
    torch::Tensor attn = Tap("attn.softmax", torch::softmax(logits, -1), "Softmax");
    torch::Tensor pooled = Tap("pooled", (attn.unsqueeze(2) * v).sum(1), "MatMul");
    return head->forward(Tap("gelu", torch::gelu(Tap("fc", fc->forward(pooled), "Linear")), "GELU"));
  }
  int64_t d_;
  double gain_;
  nn::Embedding embed{nullptr};
  nn::LayerNorm ln{nullptr};
  nn::Linear key{nullptr}, value{nullptr}, fc{nullptr}, head{nullptr};
  torch::Tensor pos, query;
};
TORCH_MODULE(AttnPool);

// Two-task regression: a shared GELU trunk (in -> 64 -> 64), head A
// (64 -> 32 GELU -> 2) and head B (64 -> 32 tanh -> 2), outputs
// concatenated [A, B] for one MSE.
struct TwoHeadImpl : nn::Module {
  explicit TwoHeadImpl(int64_t in) {
    fc1 = register_module("fc1", nn::Linear(in, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    a1 = register_module("a1", nn::Linear(64, 32));
    a2 = register_module("a2", nn::Linear(32, 2));
    b1 = register_module("b1", nn::Linear(64, 32));
    b2 = register_module("b2", nn::Linear(32, 2));
  }
  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor h = Tap("act1", torch::gelu(Tap("fc1", fc1->forward(x), "Linear")), "GELU");
    h = Tap("act2", torch::gelu(Tap("fc2", fc2->forward(h), "Linear")), "GELU");
    torch::Tensor a = Tap("a_act", torch::gelu(Tap("a1", a1->forward(h), "Linear")), "GELU");
    torch::Tensor b = Tap("b_act", torch::tanh(Tap("b1", b1->forward(h), "Linear")), "Tanh");
    return torch::cat({a2->forward(a), b2->forward(b)}, 1);
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, a1{nullptr}, a2{nullptr}, b1{nullptr}, b2{nullptr};
};
TORCH_MODULE(TwoHead);

// A Conv1d classifier of [N, 1, 64] signals: conv k5 (1 -> width, no
// padding, so no edge sees part of a constant offset), [BatchNorm], ReLU,
// max-pool 2, conv k5 (width -> 2 width), [BatchNorm], ReLU, max-pool 2,
// Linear to `classes`. `outlier` != 1: the first feature map, as stored
// (after the ReLU), carries channel 0 at `outlier` times its size and a
// fixed scale takes it back before pooling and conv2 (as OutlierCnn).
inline TrackedSequential Conv1dNet(int64_t width, int64_t classes, bool batch_norm, double outlier = 1) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("conv1", nn::AnyModule(nn::Conv1d(nn::Conv1dOptions(1, width, 5))));
  if (batch_norm) m.insert("bn1", nn::AnyModule(nn::BatchNorm1d(width)));
  m.insert("act1", nn::AnyModule(nn::ReLU()));
  if (outlier != 1) {
    torch::Tensor up = torch::ones({width, 1}), down = torch::ones({width, 1});
    up[0] = outlier;
    down[0] = 1.0 / outlier;
    m.insert("outlier", nn::AnyModule(ChannelScale(up)));
    m.insert("restore", nn::AnyModule(ChannelScale(down)));
  }
  m.insert("pool1", nn::AnyModule(nn::MaxPool1d(2)));  // 60 -> 30
  m.insert("conv2", nn::AnyModule(nn::Conv1d(nn::Conv1dOptions(width, 2 * width, 5))));
  if (batch_norm) m.insert("bn2", nn::AnyModule(nn::BatchNorm1d(2 * width)));
  m.insert("act2", nn::AnyModule(nn::ReLU()));
  m.insert("pool2", nn::AnyModule(nn::MaxPool1d(2)));  // 26 -> 13
  m.insert("flat", nn::AnyModule(nn::Flatten()));
  m.insert("out", nn::AnyModule(nn::Linear(2 * width * 13, classes)));
  return TrackedSequential(std::move(m));
}

// Cosine-similarity logits: the L2-normalised input against `classes`
// L2-normalised prototypes (learned), divided by a fixed temperature (as
// contrastive and face-recognition heads do): logits in [-1/T, 1/T].
struct CosineHeadImpl : nn::Module {
  CosineHeadImpl(int64_t d, int64_t classes, double temperature) : t_(temperature) {
    weight = register_parameter("weight", torch::randn({classes, d}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    namespace F = torch::nn::functional;
    const auto unit = F::NormalizeFuncOptions().dim(1);
    return F::normalize(x, unit).matmul(F::normalize(weight, unit).t()) / t_;
  }
  double t_;
  torch::Tensor weight;
};
TORCH_MODULE(CosineHead);

// x + ls * fc2(gelu(fc1(ln(x)))) with a learned per-channel LayerScale ls
// (CaiT) initialised at `init`: the branch starts as a tiny correction of
// the stream. The branch's output (before ls) and its scaled contribution
// are tapped.
struct LayerScaleBlockImpl : nn::Module {
  LayerScaleBlockImpl(int64_t width, double init, std::string name) : name_(std::move(name)) {
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({width})));
    fc1 = register_module("fc1", nn::Linear(width, 2 * width));
    fc2 = register_module("fc2", nn::Linear(2 * width, width));
    ls = register_parameter("ls", torch::full({width}, init));
  }
  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor h = Tap(name_ + ".gelu", torch::gelu(fc1->forward(ln->forward(x))), "GELU");
    return x + Tap(name_ + ".scaled", ls * Tap(name_ + ".fc2", fc2->forward(h), "Linear"), "Mul");
  }
  std::string name_;
  nn::LayerNorm ln{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor ls;
};
TORCH_MODULE(LayerScaleBlock);

inline TrackedSequential LayerScaleResNet(int64_t in, int64_t width, int64_t out, int blocks, double init) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("stem", nn::AnyModule(nn::Linear(in, width)));
  for (int b = 1; b <= blocks; ++b) {
    const std::string n = "block" + std::to_string(b);
    m.insert(n, nn::AnyModule(LayerScaleBlock(width, init, n)));
  }
  m.insert("ln_f", nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({width}))));
  m.insert("out", nn::AnyModule(nn::Linear(width, out)));
  return TrackedSequential(std::move(m));
}

// Per-frame model of [N, L, in] frames: Linear (no bias, so a quiet frame
// stays quiet) -> LayerNorm over the frame's features (eps 1e-24, far below
// the quietest frame's variance: every frame is brought to unit scale) ->
// GELU -> Linear -> GELU, mean over frames, classifier.
inline TrackedSequential FrameNormNet(int64_t in, int64_t hidden, int64_t classes) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("fc1", nn::AnyModule(nn::Linear(nn::LinearOptions(in, hidden).bias(false))));
  m.insert("ln1", nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({hidden}).eps(1e-24))));
  m.insert("act1", nn::AnyModule(nn::GELU()));
  m.insert("fc2", nn::AnyModule(nn::Linear(hidden, hidden)));
  m.insert("act2", nn::AnyModule(nn::GELU()));
  m.insert("pool", nn::AnyModule(MeanPool()));
  m.insert("out", nn::AnyModule(nn::Linear(hidden, classes)));
  return TrackedSequential(std::move(m));
}

// Layers named in order, each a Linear of the widths given (in, a, b, ...,
// out) with `act` between them ("none": a linear map).
inline TrackedSequential Chain(const std::vector<int64_t>& widths, const std::string& act) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    m.insert("fc" + n, nn::AnyModule(nn::Linear(widths[i], widths[i + 1])));
    if (act != "none" && i + 2 < widths.size()) m.insert("act" + n, Act(act));
  }
  return TrackedSequential(std::move(m));
}

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh3Programs() {
  std::vector<Program> v;
  using TS = TrackedSequential;
  auto seq = [](std::function<TS()> f) { return f; };
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<TS>("segments_cnn_batchnorm_adamw_cosine", "2-conv CNN (8, 16) with BatchNorm on shifted seven-segment "
               "digits, 10 classes, AdamW 3e-3 cosine", seq([] { return lpsim::examples::Cnn(true, 10, 8, 16); }),
               [] { return Segments(); }), "adamw", 3e-3, "cosine", 100);
  add(Make<Mixer>("mixer_motifs_adamw_warmup_cosine", "MLP-Mixer (2 blocks, d=24) over 8-token sequences, class = "
                  "motif x half, AdamW 2e-3 warm-up+cosine",
                  std::function<Mixer()>([] { return Mixer(8, 12, 24, 6, 2); }), [] { return Motifs(); }),
      "adamw", 2e-3, "warmup_cosine", 120);
  add(Make<TS>("denoising_autoencoder_gelu_adam", "denoising autoencoder 32-64-6-64-32 GELU on a curved 4-d "
               "manifold (noise 0.2), MSE, Adam 2e-3 step decay",
               seq([] { return Chain({32, 64, 6, 64, 32}, "gelu"); }), [] { return Manifold(0.2); }),
      "adam", 2e-3, "step", 150)->loss = Loss::kMse;
  add(Make<AttnPool>("attention_pool_tokens_adam", "attention pooling (learned query) over 12 token embeddings "
                     "(d=24), find the signal token, Adam 3e-3 warm-up",
                     std::function<AttnPool()>([] { return AttnPool(36, 12, 24, 6, 1.0); }),
                     [] { return SignalTokens(); }), "adam", 3e-3, "warmup", 100);
  add(Make<TwoHead>("two_head_multitask_rmsprop", "shared GELU trunk 16-64-64, two heads (GELU, tanh) of 2 outputs "
                    "each, MSE, RMSprop 1e-3", std::function<TwoHead()>([] { return TwoHead(16); }),
                    [] { return TwoTasks(); }), "rmsprop", 1e-3, "constant", 150)->loss = Loss::kMse;
  add(Make<TS>("large_batch_256_momentum_warmup_cosine", "MLP 64-128-128-20 ReLU, batch 256 of 20 clusters in "
               "64-d, SGD 0.05 momentum warm-up+cosine", seq([] { return Mlp({64, 128, 20, 2}); }), [] {
                 Data d = Clusters(64, 20, 1.2, 4096);
                 d.batch = 256;
                 return d;
               }), "momentum", 0.05, "warmup_cosine", 100);
  add(Make<TS>("conv1d_waves_batchnorm_adam_step", "Conv1d net (8, 16) with BatchNorm on noisy sines of 4 "
               "frequencies, Adam 2e-3 step decay, 200 steps", seq([] { return Conv1dNet(8, 4, true); }),
               [] { return Waves(); }), "adam", 2e-3, "step", 200);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware at a magnitude, or on a model, that no other group uses.
  // Logits +-50: e4m3 keeps 3 mantissa bits, a step of 4..8 at that size,
  // and the softmax reads differences of a few units.
  Program* p = add(Make<TS>("cosine_classifier_temperature_0p02", "MLP 40-64-64 GELU, cosine-similarity head over "
                            "12 classes at temperature 0.02, Adam 1e-3", seq([] {
                              torch::OrderedDict<std::string, nn::AnyModule> m;
                              m.insert("fc1", nn::AnyModule(nn::Linear(40, 64)));
                              m.insert("act1", nn::AnyModule(nn::GELU()));
                              m.insert("fc2", nn::AnyModule(nn::Linear(64, 64)));
                              m.insert("act2", nn::AnyModule(nn::GELU()));
                              m.insert("cosine", nn::AnyModule(CosineHead(64, 12, 0.02)));
                              return TS(std::move(m));
                            }), [] { return Clusters(40, 12, 1.0); }), "adam", 1e-3, "constant", 120);
  p->planted = true;
  // The reconstruction error heads for zero under a cosine schedule; the
  // output gradient is 2 err / (64 * 32), far below e5m2's and fp16's
  // smallest values once err is ~1e-3 (Adam: fp32 keeps converging).
  p = add(Make<TS>("linear_autoencoder_exact_rank4", "linear autoencoder 32-8-32 on exactly rank-4 data, MSE, "
                   "Adam 1e-2 cosine", seq([] { return Chain({32, 8, 32}, "none"); }), [] { return LowRank(); }),
          "adam", 1e-2, "cosine", 150);
  p->loss = Loss::kMse, p->planted = true;
  // LayerScale 1e-6 (CaiT's init for deep nets): every branch weight's
  // gradient carries the factor 1e-6, ~1e-8 and below.
  p = add(Make<TS>("layerscale_1e6_resnet_adamw", "4 pre-LN residual blocks (48, GELU) with LayerScale init 1e-6, "
                   "AdamW 1e-3 warm-up", seq([] { return LayerScaleResNet(20, 48, 8, 4, 1e-6); }),
                   [] { return Clusters(20, 8, 0.9); }), "adamw", 1e-3, "warmup", 120);
  p->planted = true;
  // conv1's output is ~1e3 * sum(w) + the signal (~0.5 |w|): 3 mantissa
  // bits (a step of 16..64 there) or bf16's 8 (a step of 1..2) leave little
  // of the signal; fp32 keeps it, and BatchNorm removes the constant.
  p = add(Make<TS>("dc_offset_1e3_conv1d_batchnorm", "noisy sines on a DC offset of 1e3, Conv1d net (8, 16) with "
                   "BatchNorm after each conv, Adam 2e-3", seq([] { return Conv1dNet(8, 4, true); }),
                   [] { return Waves(1e3); }), "adam", 2e-3, "constant", 120);
  p->planted = true;
  // fc1's output spans 150 dB over the frames: one per-tensor scale flushes
  // the quiet tail, where the class is; a 16-block scale in e4m3 (NVFP4)
  // underflows below ~4e-6 of the tensor's amax.
  p = add(Make<TS>("decaying_note_1e7_frame_layernorm", "16 frames decaying 1 -> 3e-8, class in the quiet half, "
                   "per-frame Linear (no bias) + LayerNorm (eps 1e-24), Adam 2e-3",
                   seq([] { return FrameNormNet(16, 32, 4); }), [] { return DecayingNote(); }),
          "adam", 2e-3, "constant", 120);
  p->planted = true;
  p = add(Make<Mixer>("tiny_grads_1e4_mixer", "loss x 1e-4 (Adam eps 1e-14), MLP-Mixer (2 blocks, d=32) over "
                      "10-token sequences", std::function<Mixer()>([] { return Mixer(10, 16, 32, 8, 2); }),
                      [] { return Motifs(1024, 10, 16, 4); }), "adam", 2e-3, "constant", 100);
  p->loss_scale = 1e-4, p->adam_eps = 1e-14, p->planted = true;
  p = add(Make<TS>("outlier_channel_3e5_conv1d", "Conv1d net (8, 16) whose first feature map carries channel 0 "
                   "x3e5 (taken back before conv2), Adam 2e-3, noisy sines",
                   seq([] { return Conv1dNet(8, 4, false, 3e5); }), [] { return Waves(); }),
          "adam", 2e-3, "constant", 120);
  p->planted = true;
  // The query starts at zero (uniform attention); x300 (a wrong unit) makes
  // the logits grow fast with it, 0 -> ~30 in 120 steps, each new amax
  // beyond a delayed scale's history, while the saturating softmax passes
  // back logit gradients of ~1e-6.
  p = add(Make<AttnPool>("attention_pool_logits_x300", "attention pooling over 16 token embeddings (d=24), "
                         "attention logits x300, Adam 2e-3",
                         std::function<AttnPool()>([] { return AttnPool(36, 16, 24, 6, 300.0); }),
                         [] { return SignalTokens(1024, 16); }), "adam", 2e-3, "constant", 120);
  p->planted = true;
  // At LibTorch's default init (weights of rms 1/sqrt(3 fan_in)) a leaky
  // ReLU layer passes back ~0.41 of the gradient's rms, ~2e-8 over 20
  // layers (the other deep nets of the corpus shrink their init).
  p = add(Make<TS>("deep_leaky_20_default_init", "20-layer leaky-ReLU MLP 24 wide, default init, Adam 2e-3 eps 1e-12",
                   seq([] { return Mlp({24, 24, 6, 20, "leaky"}); }),
                   [] { return Clusters(24, 6, 0.8); }), "adam", 2e-3, "constant", 200);
  p->adam_eps = 1e-12, p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH3_H_
