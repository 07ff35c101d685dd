// The low-precision rules' ground truth: does "this training breaks on that
// hardware", predicted from one fp32 run, hold when the training is simulated
// on the hardware?
//
// For every program of the corpus below (MLPs, CNNs, a small transformer,
// residual nets; Adam, AdamW, SGD; warm-up and decay; dropout, weight decay,
// BatchNorm, LayerNorm; planted breakers and programs that train fine):
//   1. train once in fp32 with a Tracker (default options): the loss and
//      accuracy of fp32, and every tensor record;
//   2. per built-in training target: the prediction is the first lp_* warning
//      or error the rules raise on those records judged in the target's
//      formats (report/target_rewrite.h, as `lpsim check RUN --target T`);
//   3. per target: the truth is the same program trained in simulate mode on
//      the target (every role stored as the target stores it): broken when
//      the loss becomes non-finite, or ends worse than fp32 by more than
//      kLossTolerance of fp32's improvement, or (classification) its accuracy
//      ends more than kAccuracyTolerance below fp32's.
// Per target: the confusion matrix, precision and recall of the prediction,
// and the median lead time (break step - first prediction step).
//
//   lpsim_validation --list
//   lpsim_validation --table [--json] [--programs a,b] [--targets t1,t2] [--root DIR]
//   lpsim_validation mlp_clusters_adam      # one program, per target in full
//
// The corpus is split in two halves (`tune`: even positions, `holdout`: odd);
// the table reports the whole corpus and each half, so a threshold tuned on
// one half is seen on programs it was not tuned on.
//
// One translation unit on purpose: each LibTorch TU costs minutes on a small
// machine.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/checker.h"
#include "core/target.h"
#include "report/target_rewrite.h"
#include "tracker/tracker.h"

namespace {

namespace nn = torch::nn;
using lpsim::Finding;
using lpsim::TensorRecord;
using lpsim::TrackedSequential;
using Batch = std::pair<torch::Tensor, torch::Tensor>;

// Truth: a simulated run is broken when its final loss (mean of the last
// kFinalWindow steps) is above fp32's by more than this share of fp32's
// improvement (first window mean - final mean) ...
constexpr double kLossTolerance = 0.25;
// ... or its final accuracy is this much (absolute) below fp32's.
constexpr double kAccuracyTolerance = 0.05;
constexpr int kFinalWindow = 10;
// The break step: the first step whose kBreakWindow-step mean loss is above
// fp32's by more than kLossTolerance of fp32's improvement (or non-finite).
constexpr int kBreakWindow = 5;

// Targets that train: int8-npu is inference only (its gradients stay fp32 on
// the host), so it has nothing to validate here.
const std::set<std::string> kInferenceOnly = {"int8-npu"};

std::string g_root = "/tmp/lpsim_validation";
lpsim::Tracker* g_tracker = nullptr;  // for modules that tap inside

torch::Tensor Tap(const std::string& name, const torch::Tensor& x, const std::string& type = "") {
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
Data Clusters(int64_t d = 32, int64_t k = 10, double noise = 0.8, int64_t n = 1024) {
  torch::Tensor centers = torch::randn({k, d});
  torch::Tensor y = torch::randint(0, k, {n}, torch::kLong);
  return {centers.index_select(0, y) + noise * torch::randn({n, d}), y};
}

// Two interleaved spirals with 3 arms.
Data Spirals(int64_t n = 1024) {
  torch::Tensor y = torch::randint(0, 3, {n}, torch::kLong);
  torch::Tensor r = torch::rand({n});
  torch::Tensor t = y.to(torch::kFloat) * (2 * M_PI / 3) + r * 3.5 + 0.15 * torch::randn({n});
  return {torch::stack({r * torch::cos(t), r * torch::sin(t)}, 1), y};
}

// Regression: y = tanh(x . a) + 0.3 sin(x . b), 16 features.
Data Regression(int64_t n = 1024) {
  torch::Tensor a = torch::randn({16, 1}) * 0.4, b = torch::randn({16, 1}) * 0.4;
  torch::Tensor x = torch::randn({n, 16});
  return {x, torch::tanh(x.matmul(a)) + 0.3 * torch::sin(x.matmul(b)) + 0.02 * torch::randn({n, 1})};
}

// 1x12x12 images: class c (of 4) is a bright bar at a class-specific place
// and orientation, on noise.
Data Bars(int64_t n = 768) {
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
Data Needles(int64_t n = 768) {
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
Data TwoScales(int64_t n = 1024) {
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
Data MixedMagnitude(int64_t n = 1024) {
  Data d = Clusters(32, 8, 0.8, n);
  torch::Tensor s = torch::where(torch::arange(n) % 2 == 0, torch::ones({n}), torch::full({n}, 1e-6));
  d.x = d.x * s.unsqueeze(1);
  return d;
}

// --- models ---------------------------------------------------------------------

nn::AnyModule Act(const std::string& act) {
  if (act == "tanh") return nn::AnyModule(nn::Tanh());
  if (act == "gelu") return nn::AnyModule(nn::GELU());
  if (act == "sigmoid") return nn::AnyModule(nn::Sigmoid());
  return nn::AnyModule(nn::ReLU());
}

struct MlpSpec {
  int64_t in = 32, hidden = 64, out = 10;
  int layers = 2;
  std::string act = "relu";
  std::string norm = "none";  // none, batch, layer
  double dropout = 0;
  double init_gain = 1;       // every Linear's weight multiplied by this
  bool bias = true;
};

TrackedSequential Mlp(const MlpSpec& s) {
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
TrackedSequential OutlierMlp(int64_t in, int64_t hidden, int64_t out, double outlier) {
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

TrackedSequential Cnn(bool batch_norm, int64_t classes = 4, int64_t width = 8) {
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
  m.insert("out", nn::AnyModule(nn::Linear(2 * width * 3 * 3, classes)));
  return TrackedSequential(std::move(m));
}

// x + fc2(relu(fc1(norm(x)))): a residual block (tapped as one module).
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

TrackedSequential ResNet(int64_t in, int64_t width, int64_t out, int blocks, bool layer_norm) {
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

std::vector<Program> Programs() {
  std::vector<Program> v;
  using TS = TrackedSequential;
  auto mlp = [](MlpSpec s) { return std::function<TS()>([s] { return Mlp(s); }); };
  auto add = [&](Program p, std::string opt, double lr, std::string schedule = "constant", int steps = 100) {
    p.optimizer = std::move(opt);
    p.lr = lr;
    p.schedule = std::move(schedule);
    p.steps = steps;
    v.push_back(std::move(p));
    return &v.back();
  };
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

// --- training -------------------------------------------------------------------

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const Program& p, nn::Module& m) {
  auto params = m.parameters();
  if (p.optimizer == "adamw") {
    return std::make_unique<torch::optim::AdamW>(
        params, torch::optim::AdamWOptions(p.lr).weight_decay(p.weight_decay > 0 ? p.weight_decay : 1e-2).eps(p.adam_eps));
  }
  if (p.optimizer == "sgd" || p.optimizer == "momentum") {
    return std::make_unique<torch::optim::SGD>(
        params, torch::optim::SGDOptions(p.lr).momentum(p.optimizer == "momentum" ? 0.9 : 0).weight_decay(p.weight_decay));
  }
  return std::make_unique<torch::optim::Adam>(
      params, torch::optim::AdamOptions(p.lr).weight_decay(p.weight_decay).eps(p.adam_eps));
}

double LrAt(const Program& p, int s) {
  const double t = static_cast<double>(s) / p.steps;
  const double warm = std::min(1.0, (s + 1) / 20.0);
  if (p.schedule == "warmup") return p.lr * warm;
  if (p.schedule == "cosine") return p.lr * 0.5 * (1 + std::cos(M_PI * t));
  if (p.schedule == "warmup_cosine") return p.lr * warm * 0.5 * (1 + std::cos(M_PI * t));
  if (p.schedule == "step") return p.lr * (s < p.steps / 2 ? 1.0 : 0.1);
  return p.lr;
}

struct Curve {
  std::vector<double> loss, accuracy;  // per step (accuracy: classification only)
  bool nonfinite = false;
  double Final(const std::vector<double>& v) const {
    const size_t k = std::min<size_t>(kFinalWindow, v.size());
    double s = 0;
    for (size_t i = v.size() - k; i < v.size(); ++i) s += v[i];
    return k ? s / k : 0;
  }
};

// Trains p; `target` empty: fp32 with tracking (records collected), else
// simulate mode on that target with tracking reduced to step 0.
Curve Train(const Program& p, const std::string& target, std::vector<TensorRecord>* records) {
  torch::manual_seed(7);
  const Data data = p.data();
  torch::manual_seed(11);
  std::shared_ptr<nn::Module> model = p.model();
  std::unique_ptr<torch::optim::Optimizer> opt = MakeOptimizer(p, *model);
  lpsim::TrackerOptions o;
  o.run_dir = g_root + "/" + p.name + "/" + (target.empty() ? "fp32" : target);
  o.overwrite = true;
  o.capture_nonfinite = false;
  for (auto& rule : o.check_config.rules) rule.second.policy = lpsim::Policy::kLog;
  std::mutex mu;
  if (target.empty()) {
    o.checks = false;  // judged per target below
    o.on_record = [&](const TensorRecord& r) {
      std::lock_guard<std::mutex> lock(mu);
      records->push_back(r);
    };
  } else {
    o.target = target;
    o.simulate = true;
    o.checks = false;
    o.every = 1 << 30;  // the truth needs the training, not the records
  }
  Curve c;
  {
    lpsim::Tracker tracker(*model, *opt, o);
    g_tracker = &tracker;
    for (int s = 0; s < p.steps; ++s) {
      for (auto& g : opt->param_groups()) g.options().set_lr(LrAt(p, s));
      auto [x, y] = data.At(s);
      opt->zero_grad();
      torch::Tensor out = p.forward(*model, x);
      torch::Tensor loss = p.loss == Loss::kCe ? nn::functional::cross_entropy(out, y) : nn::functional::mse_loss(out, y);
      const double l = loss.item<double>();
      (loss * p.loss_scale).backward();
      tracker.step(loss * p.loss_scale);
      c.loss.push_back(l);
      c.nonfinite |= !std::isfinite(l);
      if (p.loss == Loss::kCe) c.accuracy.push_back((out.argmax(1) == y).to(torch::kFloat).mean().item<double>());
    }
    g_tracker = nullptr;
    (void)tracker.Close();
  }
  return c;
}

struct Truth {
  bool broken = false;
  int64_t step = -1;  // the break step (broken runs)
  std::string why;    // "NaN", "loss 0.9 vs 0.1", ...
  double final_loss = 0, final_accuracy = 0;
};

Truth Judge(const Curve& fp32, const Curve& sim) {
  Truth t;
  t.final_loss = sim.Final(sim.loss);
  t.final_accuracy = sim.accuracy.empty() ? 0 : sim.Final(sim.accuracy);
  double first = 0;
  for (int i = 0; i < kFinalWindow; ++i) first += fp32.loss[i] / kFinalWindow;
  const double final32 = fp32.Final(fp32.loss);
  const double tol = kLossTolerance * std::max(first - final32, 1e-12);
  char buf[160];
  if (sim.nonfinite || !std::isfinite(t.final_loss)) {
    t.broken = true, t.why = "non-finite loss";
  } else if (t.final_loss > final32 + tol) {
    std::snprintf(buf, sizeof buf, "loss %.3g vs fp32 %.3g", t.final_loss, final32);
    t.broken = true, t.why = buf;
  } else if (!sim.accuracy.empty() && t.final_accuracy < fp32.Final(fp32.accuracy) - kAccuracyTolerance) {
    std::snprintf(buf, sizeof buf, "accuracy %.2f vs fp32 %.2f", t.final_accuracy, fp32.Final(fp32.accuracy));
    t.broken = true, t.why = buf;
  }
  if (!t.broken) return t;
  const size_t n = std::min(fp32.loss.size(), sim.loss.size());
  for (size_t s = 0; s < n; ++s) {
    if (!std::isfinite(sim.loss[s])) {
      t.step = static_cast<int64_t>(s);
      break;
    }
    if (s + 1 < kBreakWindow) continue;
    double a = 0, b = 0;
    for (size_t i = s + 1 - kBreakWindow; i <= s; ++i) a += sim.loss[i] / kBreakWindow, b += fp32.loss[i] / kBreakWindow;
    if (a > b + tol) {
      t.step = static_cast<int64_t>(s);
      break;
    }
  }
  if (t.step < 0) t.step = static_cast<int64_t>(n) - 1;  // only the accuracy fell behind: the end
  return t;
}

struct Prediction {
  bool fires = false;
  int64_t step = -1;
  std::string rule, tensor;
};

// The lp_* rules on the fp32 run's records as the target would store them.
Prediction Predict(const std::vector<TensorRecord>& records, const lpsim::Target& target) {
  lpsim::CheckConfig config = lpsim::CheckConfig::Defaults();
  for (auto& [name, rule] : config.rules) rule.enabled = name.rfind("lp_", 0) == 0;
  lpsim::Checker checker(config);
  lpsim::TargetRewrite rewrite(target);
  Prediction pr;
  int64_t step = records.empty() ? 0 : records.front().step;
  auto end = [&](int64_t s) {
    for (const Finding& f : checker.EndStep(s)) {
      // lp_delayed_warmup speaks of the recipe's first steps (casts saturate
      // while the amax history fills), not of a training that breaks.
      if (!pr.fires && f.severity != lpsim::Severity::kInfo && f.rule != "lp_delayed_warmup") {
        pr = {true, f.step, f.rule, f.tensor};
      }
    }
  };
  for (const TensorRecord& r0 : records) {
    if (r0.step != step) end(step), step = r0.step;
    TensorRecord r = r0;
    rewrite(&r);
    checker.Add(r);
  }
  if (!records.empty()) end(step);
  return pr;
}

struct Cell {
  std::string program, target;
  bool holdout = false;
  Prediction pred;
  Truth truth;
};

struct Tally {
  int tp = 0, fp = 0, fn = 0, tn = 0;
  std::vector<double> leads;
  void Add(const Cell& c) {
    if (c.pred.fires && c.truth.broken) ++tp, leads.push_back(double(c.truth.step - c.pred.step));
    if (c.pred.fires && !c.truth.broken) ++fp;
    if (!c.pred.fires && c.truth.broken) ++fn;
    if (!c.pred.fires && !c.truth.broken) ++tn;
  }
  double Precision() const { return tp + fp ? double(tp) / (tp + fp) : NAN; }
  double Recall() const { return tp + fn ? double(tp) / (tp + fn) : NAN; }
  double MedianLead() const {
    if (leads.empty()) return NAN;
    std::vector<double> l = leads;
    std::sort(l.begin(), l.end());
    const size_t m = l.size() / 2;
    return l.size() % 2 ? l[m] : 0.5 * (l[m - 1] + l[m]);
  }
};

std::string Num(double v, const char* fmt = "%.2f") {
  if (!std::isfinite(v)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

nlohmann::json JsonNum(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int Usage(const char* why) {
  std::fprintf(stderr,
               "lpsim validate: %s\nusage: lpsim validate [--list] [--table] [--json] [--programs a,b] "
               "[--targets t1,t2] [--root DIR] [PROGRAM]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  torch::set_num_threads(1);
  std::vector<Program> all = Programs();
  bool json = false, list = false, verbose = false;
  std::vector<std::string> want_programs, want_targets;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) return "";
      (void)flag;
      return argv[++i];
    };
    if (a == "--json") {
      json = true;
    } else if (a == "--list") {
      list = true;
    } else if (a == "--table") {
    } else if (a == "--programs" || a == "--targets" || a == "--root") {
      const std::string v = value(a.c_str());
      if (v.empty()) return Usage((a + " needs a value").c_str());
      if (a == "--programs") want_programs = Split(v);
      if (a == "--targets") want_targets = Split(v);
      if (a == "--root") g_root = v;
    } else if (!a.empty() && a[0] != '-') {
      want_programs.push_back(a), verbose = true;
    } else {
      return Usage(("unknown option '" + a + "'").c_str());
    }
  }
  if (list) {
    for (size_t i = 0; i < all.size(); ++i) {
      std::printf("%s\t%s\t%s%s\n", all[i].name.c_str(), i % 2 ? "holdout" : "tune", all[i].planted ? "planted: " : "",
                  all[i].description.c_str());
    }
    return 0;
  }
  std::vector<std::pair<Program, bool>> programs;  // (program, holdout)
  for (size_t i = 0; i < all.size(); ++i) {
    if (want_programs.empty() || std::count(want_programs.begin(), want_programs.end(), all[i].name)) {
      programs.push_back({all[i], i % 2 == 1});
    }
  }
  for (const std::string& w : want_programs) {
    bool known = false;
    for (const Program& p : all) known |= p.name == w;
    if (!known) return Usage(("unknown program '" + w + "' (--list shows them)").c_str());
  }
  std::vector<lpsim::Target> targets;
  if (want_targets.empty()) {
    lpsim::StatusOr<std::vector<lpsim::Target>> b = lpsim::BuiltinTargets();
    if (!b.ok()) return Usage(b.status().message().c_str());
    for (lpsim::Target& t : *b) {
      if (!kInferenceOnly.count(t.name)) targets.push_back(std::move(t));
    }
  } else {
    for (const std::string& n : want_targets) {
      lpsim::StatusOr<lpsim::Target> t = lpsim::FindTarget(n);
      if (!t.ok()) return Usage(("--targets: " + t.status().message()).c_str());
      targets.push_back(std::move(t).value());
    }
  }

  const auto start = std::chrono::steady_clock::now();
  std::vector<Cell> cells;
  std::map<std::string, std::pair<double, double>> fp32_final;  // program -> (loss, accuracy)
  for (const auto& [p, holdout] : programs) {
    std::vector<TensorRecord> records;
    const Curve fp32 = Train(p, "", &records);
    std::sort(records.begin(), records.end(),
              [](const TensorRecord& a, const TensorRecord& b) { return a.step < b.step; });
    fp32_final[p.name] = {fp32.Final(fp32.loss), fp32.accuracy.empty() ? NAN : fp32.Final(fp32.accuracy)};
    if (verbose) std::printf("%s: fp32 loss %.4g -> %.4g\n", p.name.c_str(), fp32.loss.front(), fp32.Final(fp32.loss));
    for (const lpsim::Target& t : targets) {
      Cell c{p.name, t.name, holdout, Predict(records, t), Judge(fp32, Train(p, t.name, nullptr))};
      if (verbose) {
        std::printf("  %-20s predicted: %s  simulated: %s (loss %.4g)\n", t.name.c_str(),
                    c.pred.fires ? (c.pred.rule + "@" + std::to_string(c.pred.step) + " " + c.pred.tensor).c_str()
                                 : "fine",
                    c.truth.broken ? ("breaks@" + std::to_string(c.truth.step) + ": " + c.truth.why).c_str() : "fine",
                    c.truth.final_loss);
      }
      if (!json && !verbose) {
        std::fprintf(stderr, "%s %s: %s / %s\n", p.name.c_str(), t.name.c_str(), c.pred.fires ? "predicted" : "-",
                     c.truth.broken ? "breaks" : "fine");
      }
      cells.push_back(std::move(c));
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Per target: all programs, and the tune / holdout halves.
  std::map<std::string, std::array<Tally, 3>> tally;  // [all, tune, holdout]
  std::array<Tally, 3> overall;
  for (const Cell& c : cells) {
    auto& t = tally[c.target];
    t[0].Add(c), t[c.holdout ? 2 : 1].Add(c);
    overall[0].Add(c), overall[c.holdout ? 2 : 1].Add(c);
  }
  if (json) {
    nlohmann::ordered_json j;
    j["tolerance"] = {{"loss_share_of_fp32_improvement", kLossTolerance}, {"accuracy", kAccuracyTolerance},
                      {"final_window", kFinalWindow}, {"break_window", kBreakWindow}};
    j["seconds"] = seconds;
    auto tj = [](const Tally& t) {
      return nlohmann::ordered_json{{"tp", t.tp}, {"fp", t.fp}, {"fn", t.fn}, {"tn", t.tn},
                                    {"precision", JsonNum(t.Precision())}, {"recall", JsonNum(t.Recall())},
                                    {"median_lead_steps", JsonNum(t.MedianLead())}};
    };
    for (const auto& [name, t] : tally) {
      j["targets"].push_back({{"target", name}, {"all", tj(t[0])}, {"tune", tj(t[1])}, {"holdout", tj(t[2])}});
    }
    j["overall"] = {{"all", tj(overall[0])}, {"tune", tj(overall[1])}, {"holdout", tj(overall[2])}};
    for (const Cell& c : cells) {
      j["runs"].push_back({{"program", c.program},
                           {"target", c.target},
                           {"half", c.holdout ? "holdout" : "tune"},
                           {"predicted", c.pred.fires},
                           {"predicted_step", c.pred.fires ? nlohmann::json(c.pred.step) : nlohmann::json()},
                           {"rule", c.pred.rule},
                           {"tensor", c.pred.tensor},
                           {"broken", c.truth.broken},
                           {"break_step", c.truth.broken ? nlohmann::json(c.truth.step) : nlohmann::json()},
                           {"why", c.truth.why},
                           {"final_loss", JsonNum(c.truth.final_loss)},
                           {"fp32_final_loss", JsonNum(fp32_final[c.program].first)}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("\n%zu programs x %zu targets, %.0f s. Broken: simulated loss non-finite, or final loss above fp32's "
              "by > %.0f%% of fp32's improvement, or accuracy > %.0f points below fp32.\n\n",
              programs.size(), targets.size(), seconds, 100 * kLossTolerance, 100 * kAccuracyTolerance);
  std::printf("| target | TP | FP | FN | TN | precision | recall | median lead (steps) | precision / recall tune | "
              "precision / recall holdout |\n|---|---|---|---|---|---|---|---|---|---|\n");
  auto row = [](const std::string& name, const std::array<Tally, 3>& t) {
    std::printf("| %s | %d | %d | %d | %d | %s | %s | %s | %s / %s | %s / %s |\n", name.c_str(), t[0].tp, t[0].fp,
                t[0].fn, t[0].tn, Num(t[0].Precision()).c_str(), Num(t[0].Recall()).c_str(),
                Num(t[0].MedianLead(), "%.0f").c_str(), Num(t[1].Precision()).c_str(), Num(t[1].Recall()).c_str(),
                Num(t[2].Precision()).c_str(), Num(t[2].Recall()).c_str());
  };
  for (const auto& [name, t] : tally) row(name, t);
  row("**all targets**", overall);
  std::printf("\nMisses and false alarms (program @ target: prediction / truth):\n");
  for (const Cell& c : cells) {
    if (c.pred.fires == c.truth.broken) continue;
    std::printf("- %s @ %s: %s / %s\n", c.program.c_str(), c.target.c_str(),
                c.pred.fires ? (c.pred.rule + "@" + std::to_string(c.pred.step) + " " + c.pred.tensor).c_str()
                             : "no prediction",
                c.truth.broken ? ("breaks@" + std::to_string(c.truth.step) + " (" + c.truth.why + ")").c_str()
                               : "trains fine");
  }
  return 0;
}
