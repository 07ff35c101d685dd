// The corpus of the low-precision rules' ground truth (validation.cc): the
// data sets, the models and the 32 programs, those that train fine and the
// planted breakers. A header of validation.cc's only, so that the example
// stays one LibTorch translation unit.
//
//   for (const Program& p : Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "examples/common/training.h"
#include "tracker/tracker.h"

namespace lpsim::validation {

namespace nn = torch::nn;
using examples::Act;
using examples::Residual;
using Batch = std::pair<torch::Tensor, torch::Tensor>;

// The tracker of the run in progress (Train sets it), for modules that tap
// inside.
inline Tracker* g_tracker = nullptr;

inline torch::Tensor Tap(const std::string& name, const torch::Tensor& x, const std::string& type = "") {
  return g_tracker ? g_tracker->tap(name, x, type) : x;
}

// --- data: a fixed set per program, batches in a fixed order -----------------

struct Data {
  torch::Tensor x, y;
  int64_t batch = 64;
  Batch At(int step) const {
    const int64_t n = x.size(0), nb = n / batch;
    const int64_t b = step % nb;
    return {x.slice(0, b * batch, (b + 1) * batch), y.slice(0, b * batch, (b + 1) * batch)};
  }
};

// k Gaussian clusters in d dimensions (class = cluster).
inline Data Clusters(int64_t d = 32, int64_t k = 10, double noise = 0.8, int64_t n = 1024) {
  torch::Tensor centers = torch::randn({k, d});
  torch::Tensor y = torch::randint(0, k, {n}, torch::kLong);
  return {centers.index_select(0, y) + noise * torch::randn({n, d}), y};
}

// Two interleaved spirals with 3 arms.
inline Data Spirals(int64_t n = 1024) {
  torch::Tensor y = torch::randint(0, 3, {n}, torch::kLong);
  torch::Tensor r = torch::rand({n});
  torch::Tensor t = y.to(torch::kFloat) * (2 * M_PI / 3) + r * 3.5 + 0.15 * torch::randn({n});
  return {torch::stack({r * torch::cos(t), r * torch::sin(t)}, 1), y};
}

// Regression: y = tanh(x . a) + 0.3 sin(x . b), 16 features.
inline Data Regression(int64_t n = 1024) {
  torch::Tensor a = torch::randn({16, 1}) * 0.4, b = torch::randn({16, 1}) * 0.4;
  torch::Tensor x = torch::randn({n, 16});
  return {x, torch::tanh(x.matmul(a)) + 0.3 * torch::sin(x.matmul(b)) + 0.02 * torch::randn({n, 1})};
}

// 1x12x12 images: class c (of 4) is a bright bar at a class-specific place
// and orientation, on noise.
inline Data Bars(int64_t n = 768) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = 0.4 * torch::randn({n, 1, 12, 12});
  auto acc = y.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = acc[i], pos = 2 + (i % 5);
    if (c == 0) x[i][0].select(0, pos).add_(1.5);
    if (c == 1) x[i][0].select(1, pos).add_(1.5);
    if (c == 2) x[i][0].select(0, pos + 4).slice(0, 0, 6).add_(1.5);
    if (c == 3) x[i][0].select(1, pos + 4).slice(0, 6, 12).add_(1.5);
  }
  return {x, y};
}

// Sequences of 8 tokens (16-d): one token carries the prototype of the class
// (of 4) at a random position, the rest is noise; attention has to find it.
inline Data Needles(int64_t n = 768) {
  torch::Tensor protos = torch::randn({4, 16}) * 1.5;
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = torch::randn({n, 8, 16}) * 0.7;
  torch::Tensor pos = torch::randint(0, 8, {n}, torch::kLong);
  auto ya = y.accessor<int64_t, 1>();
  auto pa = pos.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) x[i][pa[i]].add_(protos[ya[i]]);
  return {x, y};
}

// Features on two scales, interleaved: odd features x100 carry the class,
// even ones are noise at scale 1. The weights that read the x100 features
// are ~100x smaller than the others in the same rows.
inline Data TwoScales(int64_t n = 1024) {
  Data d = Clusters(32, 6, 0.9, n);
  torch::Tensor scale = torch::ones({32});
  for (int64_t j = 1; j < 32; j += 2) scale[j] = 100.0;
  torch::Tensor noise = torch::randn({n, 32}) * 0.5;
  torch::Tensor mask = (torch::arange(32) % 2 == 1).to(torch::kFloat);
  d.x = (d.x * mask + noise * (1 - mask)) * scale;
  return d;
}

// Half the samples scaled by 1e-6 (an input pipeline without normalization):
// fine for a model that normalizes each sample after its first layer.
inline Data MixedMagnitude(int64_t n = 1024) {
  Data d = Clusters(32, 8, 0.8, n);
  torch::Tensor s = torch::where(torch::arange(n) % 2 == 0, torch::ones({n}), torch::full({n}, 1e-6));
  d.x = d.x * s.unsqueeze(1);
  return d;
}

// --- models ---------------------------------------------------------------------

struct MlpSpec {
  int64_t in = 32, hidden = 64, out = 10;
  int layers = 2;
  std::string act = "relu";
  std::string norm = "none";  // none, batch, layer
  double dropout = 0;
  double init_gain = 1;       // every Linear's weight multiplied by this
  bool bias = true;
};

inline TrackedSequential Mlp(const MlpSpec& s) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  int64_t width = s.in;
  for (int i = 1; i <= s.layers; ++i) {
    const std::string n = std::to_string(i);
    nn::Linear fc(nn::LinearOptions(width, s.hidden).bias(s.bias));
    if (s.init_gain != 1) {
      torch::NoGradGuard g;
      fc->weight.mul_(s.init_gain);
    }
    m.insert("fc" + n, nn::AnyModule(fc));
    if (s.norm == "batch") m.insert("bn" + n, nn::AnyModule(nn::BatchNorm1d(s.hidden)));
    if (s.norm == "layer") m.insert("ln" + n, nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({s.hidden}))));
    m.insert("act" + n, Act(s.act));
    if (s.dropout > 0) m.insert("drop" + n, nn::AnyModule(nn::Dropout(s.dropout)));
    width = s.hidden;
  }
  m.insert("out", nn::AnyModule(nn::Linear(width, s.out)));
  return TrackedSequential(std::move(m));
}

// x * s per channel, s fixed (not trained): an outlier feature, as large
// language models grow in a few channels.
struct ChannelScaleImpl : nn::Module {
  explicit ChannelScaleImpl(torch::Tensor s) : s_(register_buffer("s", std::move(s))) {}
  torch::Tensor forward(const torch::Tensor& x) { return x * s_; }
  torch::Tensor s_;
};
TORCH_MODULE(ChannelScale);

// Linear -> ReLU with channel 0 of the hidden layer scaled by `outlier` and
// the next layer reading it back at 1/outlier: the same function in fp32.
inline TrackedSequential OutlierMlp(int64_t in, int64_t hidden, int64_t out, double outlier) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("fc1", nn::AnyModule(nn::Linear(in, hidden)));
  m.insert("act1", nn::AnyModule(nn::ReLU()));
  torch::Tensor up = torch::ones({hidden}), down = torch::ones({hidden});
  up[0] = outlier;
  down[0] = 1.0 / outlier;
  m.insert("outlier", nn::AnyModule(ChannelScale(up)));
  m.insert("fc2", nn::AnyModule(nn::Linear(hidden, hidden)));
  m.insert("act2", nn::AnyModule(nn::ReLU()));
  m.insert("out", nn::AnyModule(nn::Linear(hidden, out)));
  // fc2 reads channel 0 back at 1 / outlier.
  auto* fc2 = m["fc2"].get<nn::Linear>().get();
  {
    torch::NoGradGuard g;
    fc2->weight.mul_(down.unsqueeze(0));
  }
  return TrackedSequential(std::move(m));
}

// The 2-conv CNN of the 1x12x12 bars (4 classes).
inline TrackedSequential Cnn(bool batch_norm) { return lpsim::examples::Cnn(batch_norm, 4, 8, 12); }

inline TrackedSequential ResNet(int64_t in, int64_t width, int64_t out, int blocks, bool layer_norm) {
  torch::OrderedDict<std::string, nn::AnyModule> m;
  m.insert("stem", nn::AnyModule(nn::Linear(in, width)));
  for (int b = 1; b <= blocks; ++b) m.insert("res" + std::to_string(b), nn::AnyModule(Residual(width, layer_norm)));
  m.insert("out", nn::AnyModule(nn::Linear(width, out)));
  return TrackedSequential(std::move(m));
}

// One pre-LayerNorm transformer block (single-head attention, GELU MLP) over
// [N, L, D] tokens, mean-pooled into a classifier. The attention logits are
// tapped ("attn.logits"), so simulate mode stores them as the target would;
// `logit_gain` multiplies them (1/sqrt(D) when 1: a missing or wrong
// temperature makes them overflow).
struct TransformerImpl : nn::Module {
  TransformerImpl(int64_t d, int64_t classes, double logit_gain) : d_(d), gain_(logit_gain) {
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({d})));
    qkv = register_module("qkv", nn::Linear(d, 3 * d));
    proj = register_module("proj", nn::Linear(d, d));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({d})));
    fc1 = register_module("fc1", nn::Linear(d, 2 * d));
    fc2 = register_module("fc2", nn::Linear(2 * d, d));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor h = Tap("ln1", ln1->forward(x), "LayerNorm");
    std::vector<torch::Tensor> parts = Tap("qkv", qkv->forward(h), "Linear").chunk(3, -1);
    torch::Tensor logits = torch::matmul(parts[0], parts[1].transpose(-2, -1)) * (gain_ / std::sqrt(double(d_)));
    logits = Tap("attn.logits", logits, "MatMul");
    torch::Tensor attn = Tap("attn.softmax", torch::softmax(logits, -1), "Softmax");
    x = x + Tap("proj", proj->forward(torch::matmul(attn, parts[2])), "Linear");
    h = Tap("ln2", ln2->forward(x), "LayerNorm");
    h = Tap("gelu", torch::gelu(Tap("fc1", fc1->forward(h), "Linear")), "GELU");
    x = x + Tap("fc2", fc2->forward(h), "Linear");
    return head->forward(x.mean(1));
  }
  int64_t d_;
  double gain_;
  nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(Transformer);

// --- programs -------------------------------------------------------------------

enum class Loss { kCe, kMse };

struct Program {
  std::string name, description;
  bool planted = false;  // a planted breaker (for the reader; the truth is simulated)
  std::function<std::shared_ptr<nn::Module>()> model;
  std::function<torch::Tensor(nn::Module&, const torch::Tensor&)> forward;
  std::function<Data()> data;
  Loss loss = Loss::kCe;
  double loss_scale = 1;        // the loss is multiplied by this before backward
  std::string optimizer = "adam";  // adam, adamw, sgd, momentum
  double lr = 1e-3;
  double weight_decay = 0;
  double adam_eps = 1e-8;
  std::string schedule = "constant";  // constant, warmup, cosine, warmup_cosine, step
  int steps = 100;
};

template <typename M>
Program Make(std::string name, std::string what, std::function<M()> model, std::function<Data()> data) {
  Program p;
  p.name = std::move(name);
  p.description = std::move(what);
  p.model = [model] { return model().ptr(); };
  p.forward = [](nn::Module& m, const torch::Tensor& x) { return dynamic_cast<typename M::ContainedType&>(m).forward(x); };
  p.data = std::move(data);
  return p;
}

// Appends programs to one list: `ProgramAdder add{&v}; add(p, "adam", 1e-3);`
// appends p trained with optimizer `opt` at `lr` on `schedule` for `steps`
// steps and returns it for further settings (valid until the next append).
struct ProgramAdder {
  std::vector<Program>* v;
  Program* operator()(Program p, std::string opt, double lr, std::string schedule = "constant",
                      int steps = 100) const {
    p.optimizer = std::move(opt);
    p.lr = lr;
    p.schedule = std::move(schedule);
    p.steps = steps;
    v->push_back(std::move(p));
    return &v->back();
  }
};

inline std::vector<Program> Programs() {
  std::vector<Program> v;
  using TS = TrackedSequential;
  auto mlp = [](MlpSpec s) { return std::function<TS()>([s] { return Mlp(s); }); };
  const ProgramAdder add{&v};
  auto clusters = [] { return Clusters(); };
  auto spirals = [] { return Spirals(); };
  auto bars = [] { return Bars(); };
  auto needles = [] { return Needles(); };
  auto regression = [] { return Regression(); };

  // Train fine in fp32; expected to train fine on fp8 hardware too.
  add(Make<TS>("mlp_clusters_adam", "MLP 32-64-64-10 ReLU, Adam 1e-3", mlp({}), clusters), "adam", 1e-3);
  add(Make<TS>("mlp_spirals_momentum", "MLP 2-64-64-3 ReLU, SGD 0.05 momentum 0.9", mlp({2, 64, 3}), spirals),
      "momentum", 0.05, "constant", 150);
  add(Make<TS>("mlp_tanh_adamw_cosine", "MLP 32-64-64-10 tanh, AdamW 3e-3 cosine decay", mlp({32, 64, 10, 2, "tanh"}),
               clusters), "adamw", 3e-3, "cosine");
  add(Make<TS>("mlp_gelu_warmup", "MLP 32-128-10 GELU, Adam 3e-3 with 20-step warm-up", mlp({32, 128, 10, 1, "gelu"}),
               clusters), "adam", 3e-3, "warmup");
  add(Make<TS>("mlp_dropout_adam", "MLP 32-128-128-10 ReLU dropout 0.2, Adam 1e-3",
               mlp({32, 128, 10, 2, "relu", "none", 0.2}), clusters), "adam", 1e-3);
  add(Make<TS>("mlp_batchnorm_sgd", "MLP Linear+BatchNorm+ReLU x2, SGD 0.1, spirals",
               mlp({2, 64, 3, 2, "relu", "batch"}), spirals), "sgd", 0.1, "constant", 150);
  add(Make<TS>("mlp_layernorm_adamw", "MLP 32-64-64-10 LayerNorm ReLU, AdamW 1e-3 wd 0.05",
               mlp({32, 64, 10, 2, "relu", "layer"}), clusters), "adamw", 1e-3)->weight_decay = 0.05;
  add(Make<TS>("mlp_sgd_weight_decay", "MLP 32-64-10 ReLU, SGD 0.05 momentum, weight decay 5e-4, step decay",
               mlp({32, 64, 10, 1}), clusters), "momentum", 0.05, "step")->weight_decay = 5e-4;
  add(Make<TS>("regression_adam", "MLP 16-64-64-1 ReLU, MSE, Adam 2e-3", mlp({16, 64, 1}), regression), "adam", 2e-3,
      "constant", 150)->loss = Loss::kMse;
  add(Make<TS>("regression_tanh_sgd", "MLP 16-32-1 tanh, MSE, SGD 0.05", mlp({16, 32, 1, 1, "tanh"}), regression),
      "sgd", 0.05, "constant", 150)->loss = Loss::kMse;
  add(Make<TS>("cnn_adam", "2-conv CNN, Adam 2e-3, bars", std::function<TS()>([] { return Cnn(false); }), bars),
      "adam", 2e-3, "constant", 80);
  add(Make<TS>("cnn_batchnorm_momentum", "2-conv CNN with BatchNorm, SGD 0.05 momentum, bars",
               std::function<TS()>([] { return Cnn(true); }), bars), "momentum", 0.05, "constant", 80);
  add(Make<TS>("resnet_adamw_warmup", "3 pre-LayerNorm residual blocks (64), AdamW 1e-3 warm-up",
               std::function<TS()>([] { return ResNet(32, 64, 10, 3, true); }), clusters), "adamw", 1e-3, "warmup");
  add(Make<TS>("resnet_plain_adam", "2 residual blocks without norm (64), Adam 1e-3, spirals",
               std::function<TS()>([] { return ResNet(2, 64, 3, 2, false); }), spirals), "adam", 1e-3, "constant", 150);
  add(Make<Transformer>("transformer_adamw", "pre-LN transformer block (attention, GELU), AdamW 2e-3 warm-up+cosine",
                        std::function<Transformer()>([] { return Transformer(16, 4, 1.0); }), needles),
      "adamw", 2e-3, "warmup_cosine", 120);
  add(Make<Transformer>("transformer_sgd", "pre-LN transformer block, SGD 0.1 momentum",
                        std::function<Transformer()>([] { return Transformer(16, 4, 1.0); }), needles),
      "momentum", 0.05, "constant", 120);
  add(Make<TS>("deep_tanh_adam", "8-layer tanh MLP 32 wide, Adam 1e-3", mlp({32, 32, 10, 8, "tanh"}), clusters),
      "adam", 1e-3);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware (which targets it breaks is for the simulation to say).
  // Gradients below e5m2's and fp16's range without loss scaling (Adam with
  // eps 1e-12 is scale-free, so fp32 trains as usual).
  Program* p = add(Make<TS>("tiny_grads_adam", "loss x 1e-6 (Adam eps 1e-12: fp32 unaffected), MLP 32-64-64-10",
                            mlp({}), clusters), "adam", 1e-3);
  p->loss_scale = 1e-6, p->adam_eps = 1e-12, p->planted = true;
  p = add(Make<TS>("tiny_grads_cnn", "loss x 1e-6 (Adam eps 1e-12), 2-conv CNN, bars",
                   std::function<TS()>([] { return Cnn(false); }), bars), "adam", 2e-3, "constant", 80);
  p->loss_scale = 1e-6, p->adam_eps = 1e-12, p->planted = true;
  p = add(Make<Transformer>("tiny_grads_transformer", "loss x 1e-7 (AdamW eps 1e-14), transformer block",
                   std::function<Transformer()>([] { return Transformer(16, 4, 1.0); }), needles),
          "adamw", 2e-3, "warmup", 120);
  p->loss_scale = 1e-7, p->adam_eps = 1e-14, p->planted = true;
  // Deep nets whose early-layer gradients underflow: a small init shrinks
  // the backward signal layer by layer.
  p = add(Make<TS>("deep_relu_small_init", "16-layer ReLU MLP 32 wide, init x0.6, Adam 1e-3 eps 1e-12",
                   mlp({32, 32, 10, 16, "relu", "none", 0, 0.6}), clusters), "adam", 1e-3, "constant", 120);
  p->adam_eps = 1e-12, p->planted = true;
  p = add(Make<TS>("deep_tanh_small_init", "12-layer tanh MLP 32 wide, init x0.5, Adam 1e-3 eps 1e-12",
                   mlp({32, 32, 10, 12, "tanh", "none", 0, 0.5}), clusters), "adam", 1e-3, "constant", 120);
  p->adam_eps = 1e-12, p->planted = true;
  // Outlier channels beyond e4m3's range under per-tensor scaling.
  p = add(Make<TS>("outlier_channel_1e6", "MLP with hidden channel 0 x1e6 (read back x1e-6), Adam 1e-3",
                   std::function<TS()>([] { return OutlierMlp(32, 64, 10, 1e6); }), clusters), "adam", 1e-3);
  p->planted = true;
  p = add(Make<TS>("outlier_channel_1e4_sgd", "MLP with hidden channel 0 x1e4, SGD 0.05 momentum",
                   std::function<TS()>([] { return OutlierMlp(32, 64, 10, 1e4); }), clusters), "momentum", 0.05);
  p->planted = true;
  p = add(Make<TS>("outlier_channel_1e8_spirals", "MLP 2-64 with hidden channel 0 x1e8, Adam 3e-3, spirals",
                   std::function<TS()>([] { return OutlierMlp(2, 64, 3, 1e8); }), spirals), "adam", 3e-3, "constant",
          150);
  p->planted = true;
  // Attention logits that overflow: the temperature 1/sqrt(d) multiplied by
  // a large gain (a missing scale, a wrong unit).
  p = add(Make<Transformer>("attention_logits_1e4", "transformer block, attention logits x1e4, AdamW 2e-3",
                            std::function<Transformer()>([] { return Transformer(16, 4, 1e4); }), needles),
          "adamw", 2e-3, "constant", 120);
  p->planted = true;
  p = add(Make<Transformer>("attention_logits_1e5_sgd", "transformer block, attention logits x1e5, SGD 0.05 momentum",
                            std::function<Transformer()>([] { return Transformer(16, 4, 1e5); }), needles),
          "momentum", 0.05, "constant", 120);
  p->planted = true;
  // Weights with too little range for fp4: features on two scales (x1 and
  // x100) interleaved, so every weight block mixes weights ~100x apart.
  p = add(Make<TS>("two_scale_features_adam", "MLP 32-64-6 ReLU on features x1 and x100 interleaved, Adam 1e-3",
                   mlp({32, 64, 6, 1}), [] { return TwoScales(); }), "adam", 1e-3, "constant", 120);
  p->planted = true;
  p = add(Make<TS>("two_scale_features_sgd", "MLP 32-64-64-6 ReLU on x1/x100 features, SGD 1e-4 momentum",
                   mlp({32, 64, 6, 2}), [] { return TwoScales(); }), "momentum", 1e-4, "constant", 120);
  p->planted = true;
  // Block scales that underflow: half the samples are 1e-6 of the others;
  // a LayerNorm after the first layer makes fp32 indifferent to it.
  p = add(Make<TS>("mixed_magnitude_layernorm", "half the samples x1e-6, MLP with LayerNorm after fc1, Adam 2e-3",
                   mlp({32, 64, 8, 2, "relu", "layer", 0, 1, false}), [] { return MixedMagnitude(); }), "adam", 2e-3);
  p->planted = true;
  p = add(Make<TS>("mixed_magnitude_batchnorm", "half the samples x1e-6, MLP with LayerNorm, AdamW 2e-3 warm-up",
                   mlp({32, 128, 8, 1, "gelu", "layer", 0, 1, false}), [] { return MixedMagnitude(); }), "adamw", 2e-3,
          "warmup");
  p->planted = true;
  // Growing activations: a learning rate far too high for SGD without
  // normalization; fp32 survives (just), low precision overflows earlier.
  p = add(Make<TS>("regression_large_targets", "MSE on targets x1e3 (no normalization), MLP 16-64-1, Adam 1e-2",
                   mlp({16, 64, 1, 1}), [] {
                     Data d = Regression();
                     d.y = d.y * 1e3;
                     return d;
                   }), "adam", 1e-2, "constant", 150);
  p->loss = Loss::kMse, p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_H_
