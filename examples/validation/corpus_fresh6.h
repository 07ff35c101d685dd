// The fresh6 group of the validation corpus (validation.cc): 16 programs
// written after corpus.h and the fresh, fresh2, fresh3, fresh4 and fresh5
// groups, blind to the low-precision rules' predictions on them, so that a
// rule change can be judged on trainings nobody tuned anything against.
// Each was designed from what the hardware does to numbers (formats'
// ranges, resolution, scaling recipes, block scales, subnormal flushing,
// rounding), with only its fp32 training and its simulated truth looked at,
// never the prediction; no program was changed after its truth had been
// simulated, and none needed a change for its fp32 training. To tune
// against it would make it seen data too: write another group instead.
//
// Seven train fine in fp32 and, by design, on fp8 hardware, on architectures
// no earlier group's healthy programs use: a MobileNet-style depthwise-
// separable CNN with BatchNorm and ReLU6, a WaveNet-style gated temporal
// convolutional net with dilations 1..8, a highway network, a Perceiver-
// style set of learned latents cross-attending to the tokens, a radial
// basis function network with learned centres and widths, a weight-tied
// (recurrent-depth, ALBERT-style) residual MLP, a CNN with a squeeze-and-
// excitation block; with optimizer and schedule pairs among AdamW with
// cosine, Adam with warm-up+cosine, RMSprop with warm-up, Adam with step
// decay, Adam with cosine, AdamW with warm-up and SGD momentum with cosine.
// Nine plant a breaker of a kind no other group has, most of them acting in
// the backward pass or through a loss term: Euclidean distances to learned
// class centres taken as the unguarded sqrt of a stored squared distance
// (a tiny squared distance flushed to 0 makes sqrt's gradient infinite, a
// NaN gradient that skips the update, while the forward stays finite);
// global average pooling over 64x64 feature maps (every position's gradient
// is the pooled one / 4096: tiny in the conv layers only); an exponential
// moving average state (decay 0.98) stored at each of 128 frames (the
// increments 0.02 (u - h) fall below the state's rounding step); GLM-130B's
// embedding gradient shrink written with alpha 1e-4 (forward unchanged, the
// embedding's gradients x1e-4, in that layer only); a confidence penalty
// weighted 1e-4 written as sum(p log p) on stored softmax probabilities and
// attached to the logits as an auxiliary loss (Megatron's aux-loss
// autoscaler pattern; a flushed p gives 0 * log 0 and a NaN gradient that
// the weight 1e-4 does not tame); Chebyshev features of degree 16 by the
// three-term recurrence with every T_k stored (rounding errors grow through
// the recurrence); a two-target regression whose second target's loss is
// weighted 1e-5, both targets' gradients meeting in one output tensor; a
// finite-difference Jacobian penalty (f(x + 1e-3 u) - f(x)) / 1e-3 on
// stored logits, attached as an auxiliary loss (the difference is below
// the stored logits' rounding step); graph diffusion features from
// S^8..S^256 by repeated squaring of the normalised adjacency, each power
// stored (the error of the top eigen-direction doubles with each
// squaring). Whether and where each breaks is for the simulation to say, not
// for its label.
//
//   for (const Program& p : Fresh6Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH6_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH6_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"
#include "examples/validation/corpus_fresh5.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// 1x64x64 images of sinusoidal stripes (amplitude 0.5, wavelength 6..10
// pixels, random phase) at one of four orientations (class: 0, 45, 90, 135
// degrees) under pixel noise 0.5; batches of 32.
inline Data OrientedStripes(int64_t n = 512, int64_t size = 64) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor theta = (y.to(torch::kFloat) * (M_PI / 4)).view({n, 1, 1});
  torch::Tensor wavelength = 6 + 4 * torch::rand({n, 1, 1});
  torch::Tensor phase = 2 * M_PI * torch::rand({n, 1, 1});
  torch::Tensor r = torch::arange(size, torch::kFloat);
  torch::Tensor rows = r.view({1, size, 1}), cols = r.view({1, 1, size});
  torch::Tensor img = 0.5 * torch::sin(2 * M_PI * (cols * torch::cos(theta) + rows * torch::sin(theta)) / wavelength + phase) +
                      0.5 * torch::randn({n, size, size});
  Data d{img.unsqueeze(1), y};
  d.batch = 32;
  return d;
}

// Frames [n, T, 8]: unit noise per frame around a class mean (of 4) of rms
// 0.3; the class is only visible averaged over tens of frames.
inline Data DriftFrames(int64_t n = 1024, int64_t frames = 128) {
  torch::Tensor protos = torch::randn({4, 8});
  protos = 0.3 * protos / protos.pow(2).mean(1, true).sqrt();
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  return {protos.index_select(0, y).unsqueeze(1) + torch::randn({n, frames, 8}), y};
}

// x uniform in [-1, 1]^4; the class (of 4) is the argmax of four random
// combinations of the Chebyshev polynomials T_0..T_16 of each coordinate,
// the degrees 8..16 weighted 5x the lower ones.
inline Data ChebyshevClasses(int64_t n = 2048, int64_t degree = 16) {
  torch::Tensor x = 2 * torch::rand({n, 4}, torch::kDouble) - 1;
  std::vector<torch::Tensor> t = {torch::ones_like(x), x};
  for (int64_t k = 1; k < degree; ++k) t.push_back(2 * x * t[k] - t[k - 1]);
  torch::Tensor feats = torch::stack(t, 2);  // [n, 4, degree + 1]
  torch::Tensor w = torch::full({degree + 1}, 0.2, torch::kDouble);
  w.slice(0, 8, degree + 1).fill_(1.0);
  torch::Tensor coeff = torch::randn({4, 4, degree + 1}, torch::kDouble) * w;
  torch::Tensor score = torch::einsum("nik,cik->nc", {feats, coeff});
  return {x.to(torch::kFloat), score.argmax(1)};
}

// Two regression targets of unit scale from 16 Gaussian features: a
// nonlinear one (tanh(x.a) + 0.3 sin(x.b)) and a linear one (x.c, |c| = 1,
// noise 0.05). y: [n, 2].
inline Data TwoTargetRegression(int64_t n = 1024) {
  torch::Tensor a = torch::randn({16, 1}) * 0.4, b = torch::randn({16, 1}) * 0.4, c = torch::randn({16, 1});
  c = c / c.norm();
  torch::Tensor x = torch::randn({n, 16});
  torch::Tensor ya = torch::tanh(x.matmul(a)) + 0.3 * torch::sin(x.matmul(b));
  torch::Tensor yb = x.matmul(c) + 0.05 * torch::randn({n, 1});
  return {x, torch::cat({ya, yb}, 1)};
}

// --- helpers --------------------------------------------------------------------

// Attaches an auxiliary loss to a tensor on the way to the main loss, as
// Megatron-LM's MoEAuxLossAutoScaler does: forward returns `out` unchanged,
// backward passes out's gradient through and gives `aux` (a scalar, its
// weight included) the gradient 1, so the training minimises main + aux
// while the loss the harness reports is the main one.
struct AttachAuxLoss : torch::autograd::Function<AttachAuxLoss> {
  static torch::Tensor forward(torch::autograd::AutogradContext* /*ctx*/, torch::Tensor out, torch::Tensor /*aux*/) {
    return out.clone();
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* /*ctx*/,
                                                 torch::autograd::variable_list g) {
    return {g[0], torch::ones({}, g[0].options())};
  }
};

// x forward, its gradient multiplied by `w` (a number or a broadcastable
// tensor) backward: a loss weight or a gradient shrink written as
// x * w + x.detach() * (1 - w).
inline torch::Tensor ScaleGrad(const torch::Tensor& x, const torch::Tensor& w) {
  return x * w + x.detach() * (1 - w);
}

// --- healthy models -------------------------------------------------------------

// MobileNet-style CNN over 1x12x12: stem conv 16 + BatchNorm + ReLU6, then
// two depthwise-separable blocks (depthwise 3x3 + BN + ReLU6, pointwise 1x1
// + BN + ReLU6; the second depthwise with stride 2), flattened classifier.
struct DwSepCnnImpl : nn::Module {
  explicit DwSepCnnImpl(int64_t classes) {
    stem = register_module("stem", nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)));
    dw1 = register_module("dw1", nn::Conv2d(nn::Conv2dOptions(16, 16, 3).padding(1).groups(16)));
    pw1 = register_module("pw1", nn::Conv2d(nn::Conv2dOptions(16, 32, 1)));
    dw2 = register_module("dw2", nn::Conv2d(nn::Conv2dOptions(32, 32, 3).padding(1).stride(2).groups(32)));
    pw2 = register_module("pw2", nn::Conv2d(nn::Conv2dOptions(32, 32, 1)));
    for (int i = 0; i < 5; ++i) bn.push_back(register_module("bn" + std::to_string(i), nn::BatchNorm2d(i < 2 ? 16 : 32)));
    head = register_module("head", nn::Linear(32 * 6 * 6, classes));
  }
  torch::Tensor Stage(const std::string& name, nn::Conv2d& conv, int i, const torch::Tensor& x) {
    torch::Tensor h = Tap(name, conv->forward(x), "Conv2d");
    return Tap(name + ".relu6", torch::clamp(bn[i]->forward(h), 0, 6), "ReLU6");
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Stage("stem", stem, 0, x);
    h = Stage("pw1", pw1, 2, Stage("dw1", dw1, 1, h));
    h = Stage("pw2", pw2, 4, Stage("dw2", dw2, 3, h));
    return head->forward(h.flatten(1));
  }
  nn::Conv2d stem{nullptr}, dw1{nullptr}, pw1{nullptr}, dw2{nullptr}, pw2{nullptr};
  std::vector<nn::BatchNorm2d> bn;
  nn::Linear head{nullptr};
};
TORCH_MODULE(DwSepCnn);

// WaveNet-style temporal convolutional net over [N, T, in]: 1x1 input conv
// to 24 channels, four causal gated layers (kernel 2, dilations 1, 2, 4, 8:
// tanh(filter) * sigmoid(gate), 1x1 residual and skip), ReLU of the summed
// skips, max over time, classifier.
struct GatedTcnImpl : nn::Module {
  GatedTcnImpl(int64_t in, int64_t ch, int64_t classes) {
    input = register_module("input", nn::Conv1d(nn::Conv1dOptions(in, ch, 1)));
    for (int l = 0; l < 4; ++l) {
      const std::string s = std::to_string(l);
      filt.push_back(register_module("filt" + s, nn::Conv1d(nn::Conv1dOptions(ch, ch, 2).dilation(1 << l))));
      gate.push_back(register_module("gate" + s, nn::Conv1d(nn::Conv1dOptions(ch, ch, 2).dilation(1 << l))));
      res.push_back(register_module("res" + s, nn::Conv1d(nn::Conv1dOptions(ch, ch, 1))));
      skip.push_back(register_module("skip" + s, nn::Conv1d(nn::Conv1dOptions(ch, ch, 1))));
    }
    head = register_module("head", nn::Linear(ch, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("input", input->forward(x.transpose(1, 2)), "Conv1d");  // [N, ch, T]
    torch::Tensor skips = torch::zeros_like(h);
    for (int l = 0; l < 4; ++l) {
      const std::string s = std::to_string(l);
      torch::Tensor p = nn::functional::pad(h, nn::functional::PadFuncOptions({1 << l, 0}));  // causal
      torch::Tensor f = torch::tanh(Tap("filt" + s, filt[l]->forward(p), "Conv1d"));
      torch::Tensor g = torch::sigmoid(Tap("gate" + s, gate[l]->forward(p), "Conv1d"));
      torch::Tensor z = Tap("gated" + s, f * g, "Mul");
      skips = skips + Tap("skip" + s, skip[l]->forward(z), "Conv1d");
      h = h + Tap("res" + s, res[l]->forward(z), "Conv1d");
    }
    torch::Tensor pooled = std::get<0>(torch::relu(skips).max(2));
    return head->forward(pooled);
  }
  nn::Conv1d input{nullptr};
  std::vector<nn::Conv1d> filt, gate, res, skip;
  nn::Linear head{nullptr};
};
TORCH_MODULE(GatedTcn);

// Highway network: Linear(in, w) ReLU, then highway layers h = t * relu(H h)
// + (1 - t) * h with transform gates t = sigmoid(T h), gate bias -1 (carry
// at the start, as Srivastava et al. initialise it), classifier.
struct HighwayMlpImpl : nn::Module {
  HighwayMlpImpl(int64_t in, int64_t width, int64_t classes, int layers) {
    stem = register_module("stem", nn::Linear(in, width));
    for (int l = 0; l < layers; ++l) {
      h.push_back(register_module("h" + std::to_string(l), nn::Linear(width, width)));
      t.push_back(register_module("t" + std::to_string(l), nn::Linear(width, width)));
      torch::NoGradGuard g;
      t.back()->bias.fill_(-1.0);
    }
    head = register_module("head", nn::Linear(width, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor z = Tap("stem", torch::relu(stem->forward(x)), "ReLU");
    for (size_t l = 0; l < h.size(); ++l) {
      const std::string s = std::to_string(l);
      torch::Tensor gate = Tap("gate" + s, torch::sigmoid(t[l]->forward(z)), "Sigmoid");
      torch::Tensor cand = Tap("cand" + s, torch::relu(h[l]->forward(z)), "ReLU");
      z = Tap("highway" + s, gate * cand + (1 - gate) * z, "Add");
    }
    return head->forward(z);
  }
  nn::Linear stem{nullptr}, head{nullptr};
  std::vector<nn::Linear> h, t;
};
TORCH_MODULE(HighwayMlp);

// Perceiver-style: 4 learned latents (d) cross-attend to the embedded tokens
// of [N, L, in] (pre-LayerNorm, single head), a latent GELU MLP with a
// residual, mean over latents, classifier.
struct PerceiverNetImpl : nn::Module {
  PerceiverNetImpl(int64_t in, int64_t d, int64_t latents, int64_t classes) : d_(d) {
    lat = register_parameter("latents", torch::randn({latents, d}) * 0.5);
    embed = register_module("embed", nn::Linear(in, d));
    ln_lat = register_module("ln_lat", nn::LayerNorm(nn::LayerNormOptions({d})));
    ln_in = register_module("ln_in", nn::LayerNorm(nn::LayerNormOptions({d})));
    q = register_module("q", nn::Linear(d, d));
    kv = register_module("kv", nn::Linear(d, 2 * d));
    proj = register_module("proj", nn::Linear(d, d));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({d})));
    fc1 = register_module("fc1", nn::Linear(d, 2 * d));
    fc2 = register_module("fc2", nn::Linear(2 * d, d));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor t = Tap("embed", embed->forward(x), "Linear");
    torch::Tensor z = lat.unsqueeze(0).expand({x.size(0), -1, -1});
    torch::Tensor qq = Tap("q", q->forward(ln_lat->forward(z)), "Linear");
    std::vector<torch::Tensor> k_v = Tap("kv", kv->forward(ln_in->forward(t)), "Linear").chunk(2, -1);
    torch::Tensor logits = Tap("xattn.logits", torch::matmul(qq, k_v[0].transpose(1, 2)) / std::sqrt(double(d_)), "MatMul");
    torch::Tensor a = Tap("xattn.softmax", torch::softmax(logits, -1), "Softmax");
    z = z + Tap("proj", proj->forward(torch::matmul(a, k_v[1])), "Linear");
    torch::Tensor h = Tap("gelu", torch::gelu(Tap("fc1", fc1->forward(ln2->forward(z)), "Linear")), "GELU");
    z = z + Tap("fc2", fc2->forward(h), "Linear");
    return head->forward(z.mean(1));
  }
  int64_t d_;
  torch::Tensor lat;
  nn::Linear embed{nullptr}, q{nullptr}, kv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr}, head{nullptr};
  nn::LayerNorm ln_lat{nullptr}, ln_in{nullptr}, ln2{nullptr};
};
TORCH_MODULE(PerceiverNet);

// Radial basis function network: k Gaussian units exp(-gamma_j |x - c_j|^2)
// with learned centres c_j (uniform in [-1, 1]^in) and learned log widths
// (gamma 8 at the start), linear readout.
struct RbfNetImpl : nn::Module {
  RbfNetImpl(int64_t in, int64_t k, int64_t classes) {
    centers = register_parameter("centers", 2 * torch::rand({k, in}) - 1);
    log_gamma = register_parameter("log_gamma", torch::full({k}, std::log(8.0)));
    head = register_module("head", nn::Linear(k, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor d2 = Tap("sqdist", (x.unsqueeze(1) - centers.unsqueeze(0)).pow(2).sum(-1), "Sum");
    torch::Tensor phi = Tap("rbf", torch::exp(-torch::exp(log_gamma) * d2), "Exp");
    return head->forward(phi);
  }
  torch::Tensor centers, log_gamma;
  nn::Linear head{nullptr};
};
TORCH_MODULE(RbfNet);

// Weight-tied residual MLP (recurrent depth, as ALBERT shares its layers):
// stem Linear(in, d), one pre-LayerNorm GELU block (d -> 2d -> d) applied
// `iters` times, final LayerNorm, linear head.
struct TiedDepthMlpImpl : nn::Module {
  TiedDepthMlpImpl(int64_t in, int64_t d, int64_t out, int iters) : iters_(iters) {
    stem = register_module("stem", nn::Linear(in, d));
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({d})));
    fc1 = register_module("fc1", nn::Linear(d, 2 * d));
    fc2 = register_module("fc2", nn::Linear(2 * d, d));
    ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({d})));
    head = register_module("head", nn::Linear(d, out));
    torch::NoGradGuard g;
    fc2->weight.mul_(0.5);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("stem", stem->forward(x), "Linear");
    for (int i = 0; i < iters_; ++i) {
      const std::string s = std::to_string(i);
      torch::Tensor a = Tap("gelu" + s, torch::gelu(fc1->forward(ln->forward(h))), "GELU");
      h = h + Tap("branch" + s, fc2->forward(a), "Linear");
    }
    return head->forward(ln_f->forward(h));
  }
  int iters_;
  nn::Linear stem{nullptr}, fc1{nullptr}, fc2{nullptr}, head{nullptr};
  nn::LayerNorm ln{nullptr}, ln_f{nullptr};
};
TORCH_MODULE(TiedDepthMlp);

// CNN with a squeeze-and-excitation block over 1x32x32: conv 8 + ReLU, max
// pool, conv 16 + ReLU, SE (global average -> 4 ReLU -> 16 sigmoid, channel
// gains), average pool to 4x4, flattened classifier.
struct SeCnnImpl : nn::Module {
  explicit SeCnnImpl(int64_t classes) {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(8, 16, 3).padding(1)));
    se1 = register_module("se1", nn::Linear(16, 4));
    se2 = register_module("se2", nn::Linear(4, 16));
    head = register_module("head", nn::Linear(16 * 4 * 4, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("act1", torch::relu(Tap("conv1", conv1->forward(x), "Conv2d")), "ReLU");
    h = torch::max_pool2d(h, 2);  // 16x16
    h = Tap("act2", torch::relu(Tap("conv2", conv2->forward(h), "Conv2d")), "ReLU");
    torch::Tensor s = torch::relu(Tap("se1", se1->forward(h.mean({2, 3})), "Linear"));
    s = Tap("se.gate", torch::sigmoid(se2->forward(s)), "Sigmoid");
    h = Tap("se.out", h * s.unsqueeze(2).unsqueeze(3), "Mul");
    h = torch::avg_pool2d(h, 4);  // 4x4
    return head->forward(h.flatten(1));
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::Linear se1{nullptr}, se2{nullptr}, head{nullptr};
};
TORCH_MODULE(SeCnn);

// --- planted models -------------------------------------------------------------

// Distance-to-centre classifier: MLP in -> 64 GELU -> 3 (tapped "embed"),
// learned class centres (k x 3), squared distances (tapped "sqdist"), the
// Euclidean distance as the unguarded sqrt of it, logits = -scale * dist.
struct ProtoDistNetImpl : nn::Module {
  ProtoDistNetImpl(int64_t in, int64_t k, double scale) : scale_(scale) {
    fc1 = register_module("fc1", nn::Linear(in, 64));
    fc2 = register_module("fc2", nn::Linear(64, 3));
    centers = register_parameter("centers", torch::randn({k, 3}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("gelu", torch::gelu(Tap("fc1", fc1->forward(x), "Linear")), "GELU");
    torch::Tensor e = Tap("embed", fc2->forward(h), "Linear");
    torch::Tensor d2 = Tap("sqdist", (e.unsqueeze(1) - centers.unsqueeze(0)).pow(2).sum(-1), "Sum");  // [N, k]
    return -scale_ * torch::sqrt(d2);
  }
  double scale_;
  nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor centers;
};
TORCH_MODULE(ProtoDistNet);

// Two 3x3 convs (8 channels, ReLU) over 1x64x64 maps at full resolution,
// global average pooling over the 4096 positions (tapped "gap"), linear
// classifier.
struct GapCnnImpl : nn::Module {
  explicit GapCnnImpl(int64_t classes) {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(8, 8, 3).padding(1)));
    head = register_module("head", nn::Linear(8, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("act1", torch::relu(Tap("conv1", conv1->forward(x), "Conv2d")), "ReLU");
    h = Tap("act2", torch::relu(Tap("conv2", conv2->forward(h), "Conv2d")), "ReLU");
    return head->forward(Tap("gap", h.mean({2, 3}), "Mean"));
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(GapCnn);

// Exponential moving average over frames: u_t = Linear(in, 16)(x_t) (tapped
// "proj"), h_t = a h_{t-1} + (1 - a) u_t stored at every frame ("ema<t>"),
// MLP 16 -> 32 ReLU -> classes on the last state.
struct EmaNetImpl : nn::Module {
  EmaNetImpl(int64_t in, int64_t classes, double decay) : decay_(decay) {
    proj = register_module("proj", nn::Linear(in, 16));
    fc = register_module("fc", nn::Linear(16, 32));
    head = register_module("head", nn::Linear(32, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor u = Tap("proj", proj->forward(x), "Linear");  // [N, T, 16]
    torch::Tensor h = torch::zeros({x.size(0), 16});
    for (int64_t t = 0; t < x.size(1); ++t) {
      h = Tap("ema" + std::to_string(t), decay_ * h + (1 - decay_) * u.select(1, t), "Add");
    }
    return head->forward(Tap("act", torch::relu(Tap("fc", fc->forward(h), "Linear")), "ReLU"));
  }
  double decay_;
  nn::Linear proj{nullptr}, fc{nullptr}, head{nullptr};
};
TORCH_MODULE(EmaNet);

// Bag of embeddings with GLM-130B's embedding gradient shrink: e = embed *
// alpha + embed.detach() * (1 - alpha) (the embedding's output tapped
// "embed" before the shrink), mean over the tokens, MLP dim -> 64 GELU ->
// classes.
struct ShrunkBagNetImpl : nn::Module {
  ShrunkBagNetImpl(int64_t vocab, int64_t dim, int64_t classes, double alpha) : alpha_(alpha) {
    embed = register_module("embed", nn::Embedding(vocab, dim));
    fc = register_module("fc", nn::Linear(dim, 64));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor e = Tap("embed", embed->forward(x.to(torch::kLong)), "Embedding");
    e = ScaleGrad(e, torch::full({}, alpha_));
    torch::Tensor pooled = Tap("pool", e.mean(1), "Mean");
    return head->forward(Tap("gelu", torch::gelu(Tap("fc", fc->forward(pooled), "Linear")), "GELU"));
  }
  double alpha_;
  nn::Embedding embed{nullptr};
  nn::Linear fc{nullptr}, head{nullptr};
};
TORCH_MODULE(ShrunkBagNet);

// MLP in -> 64 -> 64 -> classes (ReLU) with a confidence penalty (Pereyra et
// al.: minus the entropy) weighted beta, written as beta * mean(sum(p log
// p)) on the stored softmax probabilities (tapped "probs") and attached to
// the logits as an auxiliary loss.
struct EntropyPenaltyMlpImpl : nn::Module {
  EntropyPenaltyMlpImpl(int64_t in, int64_t classes, double beta) : beta_(beta) {
    fc1 = register_module("fc1", nn::Linear(in, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("act1", torch::relu(Tap("fc1", fc1->forward(x), "Linear")), "ReLU");
    h = Tap("act2", torch::relu(Tap("fc2", fc2->forward(h), "Linear")), "ReLU");
    torch::Tensor logits = Tap("logits", head->forward(h), "Linear");
    torch::Tensor p = Tap("probs", torch::softmax(logits, 1), "Softmax");
    torch::Tensor penalty = beta_ * (p * torch::log(p)).sum(1).mean();
    return AttachAuxLoss::apply(logits, penalty);
  }
  double beta_;
  nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(EntropyPenaltyMlp);

// Chebyshev basis network (ChebyKAN-style features): T_0..T_degree of each
// input coordinate by the three-term recurrence T_{k+1} = 2 x T_k -
// T_{k-1}, each T_k stored ("cheb<k>"), concatenated, MLP -> 64 GELU ->
// classes.
struct ChebyNetImpl : nn::Module {
  ChebyNetImpl(int64_t in, int64_t degree, int64_t classes) : degree_(degree) {
    fc = register_module("fc", nn::Linear(in * (degree + 1), 64));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    std::vector<torch::Tensor> t = {torch::ones_like(x), Tap("cheb1", x, "Input")};
    for (int64_t k = 1; k < degree_; ++k) {
      t.push_back(Tap("cheb" + std::to_string(k + 1), 2 * x * t[k] - t[k - 1], "Sub"));
    }
    torch::Tensor f = torch::cat(t, 1);
    return head->forward(Tap("gelu", torch::gelu(Tap("fc", fc->forward(f), "Linear")), "GELU"));
  }
  int64_t degree_;
  nn::Linear fc{nullptr}, head{nullptr};
};
TORCH_MODULE(ChebyNet);

// Two-target regression from one trunk (MLP in -> 64 -> 64 ReLU) and one
// output layer Linear(64, 2) (tapped "out"); the targets' losses are
// weighted (1, w2) by scaling each column's gradient (forward unchanged).
struct TwoTaskMlpImpl : nn::Module {
  TwoTaskMlpImpl(int64_t in, double w2) : w2_(w2) {
    fc1 = register_module("fc1", nn::Linear(in, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("act1", torch::relu(Tap("fc1", fc1->forward(x), "Linear")), "ReLU");
    h = Tap("act2", torch::relu(Tap("fc2", fc2->forward(h), "Linear")), "ReLU");
    torch::Tensor o = Tap("out", out->forward(h), "Linear");
    return ScaleGrad(o, torch::tensor({1.0, w2_}, torch::kFloat));
  }
  double w2_;
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(TwoTaskMlp);

// MLP in -> 64 -> 64 -> classes (GELU) with a finite-difference Jacobian
// (smoothness) penalty lambda * mean |f(x + delta u) - f(x)|^2 / delta^2 for
// a random unit direction u per sample; both passes stored (taps prefixed
// "clean." and "shifted."), the penalty attached to the logits as an
// auxiliary loss.
struct FdPenaltyMlpImpl : nn::Module {
  FdPenaltyMlpImpl(int64_t in, int64_t classes, double delta, double lambda) : delta_(delta), lambda_(lambda) {
    fc1 = register_module("fc1", nn::Linear(in, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor Logits(const std::string& pre, const torch::Tensor& x) {
    torch::Tensor h = Tap(pre + "gelu1", torch::gelu(Tap(pre + "fc1", fc1->forward(x), "Linear")), "GELU");
    h = Tap(pre + "gelu2", torch::gelu(Tap(pre + "fc2", fc2->forward(h), "Linear")), "GELU");
    return Tap(pre + "logits", head->forward(h), "Linear");
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor u = torch::randn_like(x);
    u = u / u.norm(2, 1, true);
    torch::Tensor f = Logits("clean.", x);
    torch::Tensor fs = Logits("shifted.", x + delta_ * u);
    torch::Tensor penalty = lambda_ * (fs - f).pow(2).sum(1).mean() / (delta_ * delta_);
    return AttachAuxLoss::apply(f, penalty);
  }
  double delta_, lambda_;
  nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(FdPenaltyMlp);

// Graph diffusion features: the symmetrically normalised adjacency S of a
// GraphShapes row squared repeatedly (S^2, S^4, ..., S^256, each power
// stored, "pow<2^k>"), the sorted diagonals (return weights) of S^8..S^256
// x10, MLP -> 64 ReLU -> classes.
struct SquaringNetImpl : nn::Module {
  SquaringNetImpl(int64_t k, int64_t classes) : k_(k) {
    fc = register_module("fc", nn::Linear(6 * k, 64));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor q = x.slice(2, 0, k_);  // [N, k, k]
    std::vector<torch::Tensor> feats;
    for (int s = 1; s <= 8; ++s) {
      q = Tap("pow" + std::to_string(1 << s), torch::matmul(q, q), "MatMul");
      if (s >= 3) feats.push_back(std::get<0>(torch::sort(q.diagonal(0, 1, 2), 1)) * 10.0);
    }
    torch::Tensor f = torch::cat(feats, 1);
    return head->forward(Tap("act", torch::relu(Tap("fc", fc->forward(f), "Linear")), "ReLU"));
  }
  int64_t k_;
  nn::Linear fc{nullptr}, head{nullptr};
};
TORCH_MODULE(SquaringNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh6Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<DwSepCnn>("depthwise_separable_cnn_bars_adamw_cosine", "MobileNet-style CNN: stem conv 16 + BatchNorm + "
                     "ReLU6, two depthwise-separable blocks (the second with stride 2), on the 12x12 bars, AdamW "
                     "3e-3 cosine", std::function<DwSepCnn()>([] { return DwSepCnn(4); }), [] { return Bars(); }),
      "adamw", 3e-3, "cosine", 80);
  add(Make<GatedTcn>("gated_dilated_tcn_burst_frames_adam_warmup_cosine", "WaveNet-style gated causal TCN (24 "
                     "channels, dilations 1, 2, 4, 8, residual and skip 1x1 convs), max over 32 frames, class of "
                     "the burst frame, Adam 3e-3 warm-up+cosine",
                     std::function<GatedTcn()>([] { return GatedTcn(8, 24, 4); }), [] { return BurstFrames(); }),
      "adam", 3e-3, "warmup_cosine", 120);
  add(Make<HighwayMlp>("highway_mlp_noisy_boundary_rmsprop_warmup", "highway network: stem 16 -> 64 ReLU, 3 highway "
                       "layers (gate bias -1), on a smooth boundary with 5% flipped labels, RMSprop 1e-3 warm-up",
                       std::function<HighwayMlp()>([] { return HighwayMlp(16, 64, 2, 3); }),
                       [] { return NoisyBoundary(); }), "rmsprop", 1e-3, "warmup", 150);
  add(Make<PerceiverNet>("perceiver_latents_needles_adam_step", "Perceiver-style: 4 learned latents (d=32) "
                         "cross-attend to 8 embedded tokens, latent GELU MLP, mean over latents, needles, Adam 2e-3 "
                         "step decay", std::function<PerceiverNet()>([] { return PerceiverNet(16, 32, 4, 4); }),
                         [] { return Needles(); }), "adam", 2e-3, "step", 120);
  add(Make<RbfNet>("rbf_network_spirals_adam_cosine", "radial basis function network: 64 Gaussian units with learned "
                   "centres and widths, linear readout, 3-arm spirals, Adam 1e-2 cosine",
                   std::function<RbfNet()>([] { return RbfNet(2, 64, 3); }), [] { return Spirals(); }),
      "adam", 1e-2, "cosine", 200);
  add(Make<TiedDepthMlp>("weight_tied_depth_mlp_regression_adamw_warmup", "weight-tied residual MLP: one pre-LN GELU "
                         "block (48 -> 96 -> 48) applied 6 times, final LayerNorm, MSE regression, AdamW 2e-3 warm-up",
                         std::function<TiedDepthMlp()>([] { return TiedDepthMlp(16, 48, 1, 6); }),
                         [] { return Regression(); }), "adamw", 2e-3, "warmup", 150)->loss = Loss::kMse;
  add(Make<SeCnn>("squeeze_excitation_cnn_quadrants_momentum_cosine", "CNN with a squeeze-and-excitation block "
                  "(conv 8, pool, conv 16, SE 16 -> 4 -> 16), average pool to 4x4, bright square's quadrant in "
                  "32x32 images, SGD 0.05 momentum cosine",
                  std::function<SeCnn()>([] { return SeCnn(4); }), [] { return QuadrantSquares(); }),
      "momentum", 0.05, "cosine", 100);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware, of a kind no other group has.
  // As the embeddings close on their centres the squared distance to the own
  // centre falls to ~1e-3..1e-5 beside ~10 to the others in the same tensor:
  // below e4m3's smallest subnormal under a per-tensor or block scale,
  // below fp16's normal range on a flush-to-zero unit. A stored 0 gives
  // sqrt(0) = 0 forward and an infinite derivative backward (inf * 0 =
  // NaN), and a step with a NaN gradient is skipped. fp32 never reaches 0.
  Program* p = add(Make<ProtoDistNet>("prototype_sqrt_sq_distance_unguarded", "distance-to-centre classifier: MLP "
                                      "16-64-3 GELU embedding, 6 learned centres, logits = -3 sqrt(squared "
                                      "distance) with no eps, clusters, Adam 3e-3",
                                      std::function<ProtoDistNet()>([] { return ProtoDistNet(16, 6, 3.0); }),
                                      [] { return Clusters(16, 6, 0.7); }), "adam", 3e-3, "constant", 150);
  p->planted = true;
  // The pooled gradient (~1e-3) reaches each of the 4096 positions divided by
  // 4096 (~3e-7 and below): below fp16's normal range (flushed on an FTZ
  // unit), in fp16's subnormals, in the conv layers' activation gradients
  // only; a per-tensor scale lifts them, Adam makes fp32 indifferent.
  p = add(Make<GapCnn>("gap_over_64x64_maps_conv_grads", "two 3x3 convs (8 channels, ReLU) at full 64x64 "
                       "resolution, global average pooling over 4096 positions, stripe orientation, batch 32, Adam "
                       "3e-3", std::function<GapCnn()>([] { return GapCnn(4); }), [] { return OrientedStripes(); }),
          "adam", 3e-3, "constant", 80);
  p->planted = true;
  // The state h (~0.3) moves by 0.02 (u - h) a frame (~0.02): e4m3 keeps
  // steps of 1/32 at 0.25..0.5 (a half step is most of an increment, so
  // most increments round away or double), bf16 of 1/512, fp16 of 1/4096.
  p = add(Make<EmaNet>("ema_state_decay_098_128_frames", "exponential moving average (decay 0.98) of projected "
                       "frames stored at each of 128 frames, class mean of rms 0.3 under unit frame noise, MLP "
                       "16-32-4 on the last state, Adam 3e-3",
                       std::function<EmaNet()>([] { return EmaNet(8, 4, 0.98); }), [] { return DriftFrames(); }),
          "adam", 3e-3, "constant", 100);
  p->planted = true;
  // The embedding's gradients are x1e-4 of the rest (~1e-9 per row entry):
  // below fp16's smallest subnormal in the weight gradient and flushed by an
  // FTZ unit in its activation gradient; bf16 and per-tensor scales hold
  // them. Adam with eps 1e-14 makes fp32 indifferent to the shrink (as it
  // would be to GLM's 0.1). Random fixed embeddings of 8 dimensions tell the
  // motif tokens apart poorly in a bag.
  p = add(Make<ShrunkBagNet>("embedding_grad_shrink_alpha_1e4", "bag of embeddings (64 tokens x 8) with the "
                             "embedding gradient shrink e * 1e-4 + e.detach() * (1 - 1e-4), mean over 20 tokens, "
                             "MLP 8-64-4 GELU, planted trigrams, Adam 3e-3 eps 1e-14",
                             std::function<ShrunkBagNet()>([] { return ShrunkBagNet(64, 8, 4, 1e-4); }),
                             [] { return MotifTokens(); }), "adam", 3e-3, "constant", 150);
  p->adam_eps = 1e-14, p->planted = true;
  // The wrong classes' probabilities fall to ~1e-6..1e-10 as the clusters
  // separate: flushed to 0 below e4m3's range under the row's or tensor's
  // scale (and below fp16's normal range on an FTZ unit); p log p is then
  // 0 * -inf = NaN, and its gradient log p + 1 = -inf, NaN through the
  // softmax, whatever the weight 1e-4. bf16 and fp32 hold 1e-30.
  p = add(Make<EntropyPenaltyMlp>("confidence_penalty_plogp_1e4_attached", "MLP 32-64-64-10 ReLU with a confidence "
                                  "penalty 1e-4 * mean(sum(p log p)) on the stored softmax, attached to the logits as "
                                  "an auxiliary loss, clusters, Adam 3e-3",
                                  std::function<EntropyPenaltyMlp()>([] { return EntropyPenaltyMlp(32, 10, 1e-4); }),
                                  [] { return Clusters(); }), "adam", 3e-3, "constant", 150);
  p->planted = true;
  // Each stored T_k carries a rounding error that the recurrence carries on
  // (errors obey the same recurrence and grow ~k in [-1, 1]): e4m3's 6%
  // per step leaves T_12..T_16, where the classes are, at noise; bf16's
  // 0.4% a few tens of percent; fp16 and fp32 hold them.
  p = add(Make<ChebyNet>("chebyshev_recurrence_degree_16", "Chebyshev features T_0..T_16 of 4 inputs by the "
                         "three-term recurrence, each T_k stored, MLP 68-64-4 GELU, classes from degrees 8..16, "
                         "Adam 3e-3", std::function<ChebyNet()>([] { return ChebyNet(4, 16, 4); }),
                         [] { return ChebyshevClasses(); }), "adam", 3e-3, "constant", 300);
  p->planted = true;
  // The second target's gradient is 1e-5 of the first's in the output's
  // activation gradient (one tensor, one 16/32-block per row): flushed under
  // e4m3's ~2e5 range and e2m1's 12, below fp16's normal range (~1e-7);
  // e5m2's range and bf16 keep it. Adam makes fp32 learn the second column
  // through its own weights; the reported MSE weighs both columns alike.
  p = add(Make<TwoTaskMlp>("multitask_loss_weight_1e5_shared_output", "two-target regression (nonlinear and "
                           "linear targets of unit scale) from one MLP 16-64-64 ReLU and one Linear(64, 2) output, "
                           "the second target's loss weighted 1e-5, MSE, AdamW 2e-3 cosine",
                           std::function<TwoTaskMlp()>([] { return TwoTaskMlp(16, 1e-5); }),
                           [] { return TwoTargetRegression(); }), "adamw", 2e-3, "cosine", 150);
  p->loss = Loss::kMse, p->planted = true;
  // A step of 1e-3 along u changes the logits (~5) by ~1e-3: e4m3 keeps
  // steps of 0.5 there, bf16 of 0.03, fp16 of 0.004, so the stored
  // difference is rounding (0 or a step), divided by 1e-6 in the penalty:
  // its gradient (~1e4) swamps the cross-entropy's. fp32 keeps ~5e-7.
  p = add(Make<FdPenaltyMlp>("finite_difference_jacobian_penalty_delta_1e3", "MLP 32-64-64-6 GELU with a "
                             "finite-difference smoothness penalty 1e-2 * |f(x + 1e-3 u) - f(x)|^2 / 1e-6 on the "
                             "stored logits, attached as an auxiliary loss, clusters, Adam 2e-3",
                             std::function<FdPenaltyMlp()>([] { return FdPenaltyMlp(32, 6, 1e-3, 1e-2); }),
                             [] { return Clusters(32, 6, 0.9); }), "adam", 2e-3, "constant", 120);
  p->planted = true;
  // S has eigenvalue 1; a relative rounding error in that eigen-direction
  // doubles with each squaring, ~2^8 times the format's step by S^256: e4m3
  // (6%) loses the powers' scale, bf16 (0.4%) is off by tens of percent,
  // fp16 by a few; fp32 holds it.
  p = add(Make<SquaringNet>("graph_diffusion_repeated_squaring_s256", "graph diffusion features: the normalised "
                            "adjacency squared 8 times (S^2..S^256, each power stored), sorted diagonals of "
                            "S^8..S^256, MLP 60-64-4 ReLU, graph shapes, Adam 3e-3 cosine",
                            std::function<SquaringNet()>([] { return SquaringNet(10, 4); }),
                            [] { return GraphShapes(); }), "adam", 3e-3, "cosine", 120);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH6_H_
