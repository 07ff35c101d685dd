// The fresh7 group of the validation corpus (validation.cc): 16 programs
// written after corpus.h and the fresh .. fresh6 groups, blind to the
// low-precision rules' predictions on them, so that a rule change can be
// judged on trainings nobody tuned anything against. Each was designed from
// what the hardware does to numbers (formats' ranges and resolution, per-
// tensor current and delayed scaling, block scales, subnormal flushing,
// rounding), with only its fp32 training and its simulated truth looked at,
// never the prediction, nor the rules' code. Five were changed once, before
// the group's truth was simulated, because their fp32 training fell short
// (the check that showed it also simulated bf16-accelerator, where none of
// the five broke): GeM's clamp (1e-6^8 underflows fp32 and every step was
// skipped), the distillation's labels (25% noisy labels made the reported
// cross-entropy rise), the soft tree's inverse temperature (it learned too
// slowly), the FiLM MLP's steps and learning rate, the FT-Transformer's
// data set (it did not learn sign products); none was changed after that.
// To tune against it would make it seen data too: write another group
// instead.
//
// Seven train fine in fp32 and, by design, on fp8 hardware, on architectures
// no earlier group's healthy programs use: a U-Net-style encoder-decoder
// with skip concatenation that denoises images, a FiLM-conditioned MLP whose
// context sets the rule, a diagonal linear recurrence (LRU-style, decays
// exp(-exp(nu)) in (0, 1) by construction), a ResNeXt-style CNN with grouped
// 3x3 convolutions, a feature-tokenizer transformer over tabular columns
// (FT-Transformer), a diffusion-style noise-prediction MLP conditioned on a
// sinusoidal time embedding, an Inception-style CNN with parallel 1x1, 3x3,
// 5x5 and pooled branches; with optimizer and schedule pairs among Adam with
// warm-up, RMSprop with cosine, AdamW with warm-up+cosine, SGD momentum with
// step decay, Adam with cosine, AdamW with warm-up and AdamW with step decay.
//
// Nine plant a breaker of a kind no other group has: a "massive activation"
// sink token whose residual-stream row is 1e4 times the others (an outlier
// in a few rows, not in a channel: one per-tensor scale is set by it, while
// row-wise blocks keep it to its own row); one glitched first batch (inputs
// x1e4, a unit error in the pipeline) that a LayerNorm makes harmless in
// fp32 but that sits in a delayed-scaling recipe's amax history for the rest
// of the run; a heteroscedastic Gaussian NLL whose learned precision
// exp(-log var) heads for ~1e6 on the low-noise inputs (where the stored
// precision of the noisy ones is flushed, the NLL's log-variance term alone
// drives their log variance down without bound); generalised-mean (GeM)
// pooling at p = 8, whose stored x^8 spans eight times the decades of the
// features; knowledge distillation at temperature 20, whose near-uniform
// softened distributions carry the teacher's information in differences of
// a few percent, multiplied back by T^2 in the gradient; distances in the
// Poincare ball, whose 1 - |x|^2 is taken from a stored |x|^2 near 1; a
// Switch-style top-1 router that takes the argmax of stored router
// probabilities (ties at coarse resolution go to the lowest expert; Switch
// Transformer keeps its router in fp32 for this reason); a soft decision
// tree of depth 8 whose leaf probabilities are products of 8 stored routing
// sigmoids and their complements 1 - s; a spiking (LIF) network trained
// through a fast-sigmoid surrogate gradient of slope 25, evaluated at the
// stored membrane potentials (the surrogate is ~1/slope wide, finer than
// fp8's step near the threshold). Several act in the backward pass (the
// distillation gradient, the surrogate gradient, the glitch in the gradient
// amax history) or through the optimizer following a loss term (the
// heteroscedastic NLL). Whether and where each breaks is for the simulation
// to say, not for its label.
//
//   for (const Program& p : Fresh7Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH7_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH7_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"
#include "examples/validation/corpus_fresh6.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// 1x16x16 images of up to three Gaussian blobs (width 1.5..2.5 pixels,
// amplitude +-0.5..1.5) under pixel noise 0.4: x noisy, y clean (a
// denoiser's pairs); batches of 32.
inline Data NoisyBlobImages(int64_t n = 768, int64_t side = 16) {
  torch::Tensor r = torch::arange(side, torch::kFloat);
  torch::Tensor rows = r.view({1, 1, side, 1}), cols = r.view({1, 1, 1, side});
  torch::Tensor clean = torch::zeros({n, 1, side, side});
  for (int b = 0; b < 3; ++b) {
    torch::Tensor cy = torch::rand({n, 1, 1, 1}) * side, cx = torch::rand({n, 1, 1, 1}) * side;
    torch::Tensor width = 1.5 + torch::rand({n, 1, 1, 1});
    torch::Tensor sign = torch::where(torch::rand({n, 1, 1, 1}) < 0.5, -torch::ones({1}), torch::ones({1}));
    torch::Tensor present = (torch::rand({n, 1, 1, 1}) < 0.8).to(torch::kFloat);
    torch::Tensor amp = present * sign * (0.5 + torch::rand({n, 1, 1, 1}));
    clean = clean + amp * torch::exp(-((rows - cy).pow(2) + (cols - cx).pow(2)) / (2 * width.pow(2)));
  }
  Data d{clean + 0.4 * torch::randn_like(clean), clean};
  d.batch = 32;
  return d;
}

// 16 Gaussian features and one of 4 contexts (one-hot, columns 16..19): the
// class (of 4) is the argmax of 4 linear scores that depend on the context,
// so the same features mean different classes in different contexts.
inline Data ContextRules(int64_t n = 2048) {
  torch::Tensor rules = torch::randn({4, 4, 16});  // [context, class, feature]
  torch::Tensor x = torch::randn({n, 16});
  torch::Tensor c = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor score = torch::einsum("nf,nkf->nk", {x, rules.index_select(0, c)});
  return {torch::cat({x, nn::functional::one_hot(c, 4).to(torch::kFloat)}, 1), score.argmax(1)};
}

// Denoising-diffusion training pairs on the 3-arm spirals (corpus.h) x1.5:
// t uniform in [0.02, 0.98], alpha_bar = cos^2(pi t / 2), x_t = sqrt(alpha_bar)
// x_0 + sqrt(1 - alpha_bar) eps; x = [x_t, t], y = eps (the noise to
// predict); batches of 128.
inline Data NoisedSpiralPoints(int64_t n = 4096) {
  torch::Tensor x0 = 1.5 * Spirals(n).x;
  torch::Tensor t = 0.02 + 0.96 * torch::rand({n, 1});
  torch::Tensor alpha_bar = torch::cos(M_PI / 2 * t).pow(2);
  torch::Tensor eps = torch::randn({n, 2});
  torch::Tensor xt = alpha_bar.sqrt() * x0 + (1 - alpha_bar).sqrt() * eps;
  Data d{torch::cat({xt, t}, 1), eps};
  d.batch = 128;
  return d;
}

// Clusters in 32-d (10 classes), one batch of 64 per step with no repeat in
// `steps` steps, the first batch x`glitch` (a unit error in the pipeline
// for one file: millivolts read as volts).
inline Data GlitchedClusters(int64_t steps = 150, double glitch = 1e4) {
  Data d = Clusters(32, 10, 0.8, steps * 64);
  d.x.slice(0, 0, 64).mul_(glitch);
  return d;
}

// Regression on 8 Gaussian features whose noise level depends on the input:
// y = x.a + 0.2 tanh(x.b) + sigma(x) eps, sigma = 10^(-3 + 3 sigmoid(3 x_0))
// from 1e-3 to 1. x: [n, 9], the target in column 8 as well (for the NLL
// written in the model); y: [n, 1].
inline Data HeteroscedasticRegression(int64_t n = 2048) {
  torch::Tensor a = torch::randn({8, 1}) * 0.5, b = torch::randn({8, 1}) * 0.5;
  torch::Tensor x = torch::randn({n, 8});
  torch::Tensor sigma = torch::pow(10.0, -3 + 3 * torch::sigmoid(3 * x.slice(1, 0, 1)));
  torch::Tensor y = x.matmul(a) + 0.2 * torch::tanh(x.matmul(b)) + sigma * torch::randn({n, 1});
  return {torch::cat({x, y}, 1), y};
}

// Clusters in 32-d (10 classes, noise 1.2) with a teacher's logits (the
// Gaussian class log-likelihoods up to a constant, columns 32..41) and hard
// labels that are the teacher's argmax.
inline Data TeacherLogits(int64_t n = 2048) {
  const double noise = 1.2;
  torch::Tensor centers = torch::randn({10, 32});
  torch::Tensor k = torch::randint(0, 10, {n}, torch::kLong);
  torch::Tensor x = centers.index_select(0, k) + noise * torch::randn({n, 32});
  torch::Tensor teacher = (x.matmul(centers.t()) - 0.5 * centers.pow(2).sum(1).unsqueeze(0)) / (noise * noise);
  return {torch::cat({x, teacher}, 1), teacher.argmax(1)};
}

// --- helpers --------------------------------------------------------------------

// Heaviside spike forward; SuperSpike's fast-sigmoid surrogate derivative
// 1 / (1 + slope |v|)^2 backward, evaluated at the v it was given (the
// stored membrane potential minus the threshold).
struct SurrogateSpike : torch::autograd::Function<SurrogateSpike> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor v, double slope) {
    ctx->save_for_backward({v});
    ctx->saved_data["slope"] = slope;
    return (v > 0).to(v.scalar_type());
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list g) {
    torch::Tensor v = ctx->get_saved_variables()[0];
    const double slope = ctx->saved_data["slope"].toDouble();
    return {g[0] / (1 + slope * v.abs()).pow(2), torch::Tensor()};
  }
};

// Nearest-neighbour upsampling x2 of [N, C, H, W].
inline torch::Tensor Upsample2(const torch::Tensor& x) { return x.repeat_interleave(2, 2).repeat_interleave(2, 3); }

// --- healthy models -------------------------------------------------------------

// U-Net-style denoiser over 1x16x16: encoder conv 8 (16x16), pool, conv 16
// (8x8), pool, bottleneck conv 32 (4x4); decoder upsample, concatenate the
// encoder's map of that size, conv 16, upsample, concatenate, conv 8; 1x1
// conv to the clean image. ReLU throughout.
struct UNetImpl : nn::Module {
  UNetImpl() {
    enc1 = register_module("enc1", nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)));
    enc2 = register_module("enc2", nn::Conv2d(nn::Conv2dOptions(8, 16, 3).padding(1)));
    mid = register_module("mid", nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)));
    dec2 = register_module("dec2", nn::Conv2d(nn::Conv2dOptions(32 + 16, 16, 3).padding(1)));
    dec1 = register_module("dec1", nn::Conv2d(nn::Conv2dOptions(16 + 8, 8, 3).padding(1)));
    out = register_module("out", nn::Conv2d(nn::Conv2dOptions(8, 1, 1)));
  }
  torch::Tensor Stage(const std::string& name, nn::Conv2d& conv, const torch::Tensor& x) {
    return Tap(name + ".relu", torch::relu(Tap(name, conv->forward(x), "Conv2d")), "ReLU");
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor e1 = Stage("enc1", enc1, x);                             // 16x16
    torch::Tensor e2 = Stage("enc2", enc2, torch::max_pool2d(e1, 2));      // 8x8
    torch::Tensor m = Stage("mid", mid, torch::max_pool2d(e2, 2));         // 4x4
    torch::Tensor d2 = Stage("dec2", dec2, torch::cat({Upsample2(m), e2}, 1));
    torch::Tensor d1 = Stage("dec1", dec1, torch::cat({Upsample2(d2), e1}, 1));
    return out->forward(d1);
  }
  nn::Conv2d enc1{nullptr}, enc2{nullptr}, mid{nullptr}, dec2{nullptr}, dec1{nullptr}, out{nullptr};
};
TORCH_MODULE(UNet);

// FiLM-conditioned MLP: the features (first `in` columns) through two
// Linear(width) layers, each modulated as (1 + gamma(c)) * h + beta(c) by a
// linear map of the context one-hot c (the last `contexts` columns), ReLU,
// classifier. The FiLM maps start small (x0.1), so the start is a plain MLP.
struct FilmMlpImpl : nn::Module {
  FilmMlpImpl(int64_t in, int64_t contexts, int64_t width, int64_t classes) : in_(in), contexts_(contexts) {
    fc1 = register_module("fc1", nn::Linear(in, width));
    fc2 = register_module("fc2", nn::Linear(width, width));
    film1 = register_module("film1", nn::Linear(contexts, 2 * width));
    film2 = register_module("film2", nn::Linear(contexts, 2 * width));
    head = register_module("head", nn::Linear(width, classes));
    torch::NoGradGuard g;
    for (nn::Linear* f : {&film1, &film2}) {
      (*f)->weight.mul_(0.1);
      (*f)->bias.mul_(0.1);
    }
  }
  torch::Tensor Layer(const std::string& name, nn::Linear& fc, nn::Linear& film, const torch::Tensor& h,
                      const torch::Tensor& c) {
    std::vector<torch::Tensor> gb = Tap(name + ".film", film->forward(c), "Linear").chunk(2, 1);
    torch::Tensor z = Tap(name, fc->forward(h), "Linear");
    return Tap(name + ".relu", torch::relu((1 + gb[0]) * z + gb[1]), "ReLU");
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor f = x.slice(1, 0, in_), c = x.slice(1, in_, in_ + contexts_);
    torch::Tensor h = Layer("fc1", fc1, film1, f, c);
    h = Layer("fc2", fc2, film2, h, c);
    return head->forward(h);
  }
  int64_t in_, contexts_;
  nn::Linear fc1{nullptr}, fc2{nullptr}, film1{nullptr}, film2{nullptr}, head{nullptr};
};
TORCH_MODULE(FilmMlp);

// Diagonal linear recurrence (LRU-style) over [N, T, in]: u_t = B x_t,
// h_t = lambda * h_{t-1} + sqrt(1 - lambda^2) * u_t with lambda =
// exp(-exp(nu)) (in (0, 1) whatever nu: stable by construction; initialised
// in [0.5, 0.95]), the states stored once as a scan kernel's output; GELU of
// a readout C h_t, max over time, classifier.
struct DiagRecurrenceImpl : nn::Module {
  DiagRecurrenceImpl(int64_t in, int64_t state, int64_t classes) {
    torch::Tensor lambda = 0.5 + 0.45 * torch::rand({state});
    nu = register_parameter("nu", torch::log(-torch::log(lambda)));
    b = register_module("b", nn::Linear(nn::LinearOptions(in, state).bias(false)));
    c = register_module("c", nn::Linear(state, state));
    head = register_module("head", nn::Linear(state, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor u = Tap("b", b->forward(x), "Linear");  // [N, T, state]
    torch::Tensor lambda = torch::exp(-torch::exp(nu));
    torch::Tensor gain = torch::sqrt(1 - lambda.pow(2));
    torch::Tensor h = torch::zeros({x.size(0), u.size(2)});
    std::vector<torch::Tensor> states;
    for (int64_t t = 0; t < x.size(1); ++t) {
      h = lambda * h + gain * u.select(1, t);
      states.push_back(h);
    }
    torch::Tensor hs = Tap("scan", torch::stack(states, 1), "Scan");
    torch::Tensor y = Tap("gelu", torch::gelu(Tap("c", c->forward(hs), "Linear")), "GELU");
    return head->forward(std::get<0>(y.max(1)));
  }
  torch::Tensor nu;
  nn::Linear b{nullptr}, c{nullptr}, head{nullptr};
};
TORCH_MODULE(DiagRecurrence);

// ResNeXt-style CNN over 1x16x16: stem conv 16 + BatchNorm + ReLU, then two
// bottleneck blocks (1x1 to 32, grouped 3x3 with 8 groups of 4 channels,
// 1x1 back to 16, BatchNorm after each, residual add, ReLU), max pool
// between them, average pool to 4x4, classifier.
struct ResNeXtCnnImpl : nn::Module {
  explicit ResNeXtCnnImpl(int64_t classes) {
    stem = register_module("stem", nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)));
    bn.push_back(register_module("bn_stem", nn::BatchNorm2d(16)));
    for (int blk = 0; blk < 2; ++blk) {
      const std::string s = std::to_string(blk);
      reduce.push_back(register_module("reduce" + s, nn::Conv2d(nn::Conv2dOptions(16, 32, 1))));
      grouped.push_back(register_module("grouped" + s, nn::Conv2d(nn::Conv2dOptions(32, 32, 3).padding(1).groups(8))));
      expand.push_back(register_module("expand" + s, nn::Conv2d(nn::Conv2dOptions(32, 16, 1))));
      bn.push_back(register_module("bn_reduce" + s, nn::BatchNorm2d(32)));
      bn.push_back(register_module("bn_grouped" + s, nn::BatchNorm2d(32)));
      bn.push_back(register_module("bn_expand" + s, nn::BatchNorm2d(16)));
    }
    head = register_module("head", nn::Linear(16 * 4 * 4, classes));
  }
  torch::Tensor Block(int blk, const torch::Tensor& x) {
    const std::string s = std::to_string(blk);
    torch::Tensor h = torch::relu(bn[1 + 3 * blk]->forward(Tap("reduce" + s, reduce[blk]->forward(x), "Conv2d")));
    h = torch::relu(bn[2 + 3 * blk]->forward(Tap("grouped" + s, grouped[blk]->forward(h), "Conv2d")));
    h = bn[3 + 3 * blk]->forward(Tap("expand" + s, expand[blk]->forward(h), "Conv2d"));
    return Tap("block" + s, torch::relu(x + h), "ReLU");
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = torch::relu(bn[0]->forward(Tap("stem", stem->forward(x), "Conv2d")));
    h = torch::max_pool2d(Block(0, h), 2);  // 8x8
    h = torch::avg_pool2d(Block(1, h), 2);  // 4x4
    return head->forward(h.flatten(1));
  }
  nn::Conv2d stem{nullptr};
  std::vector<nn::Conv2d> reduce, grouped, expand;
  std::vector<nn::BatchNorm2d> bn;
  nn::Linear head{nullptr};
};
TORCH_MODULE(ResNeXtCnn);

// Feature-tokenizer transformer (FT-Transformer) over tabular rows [N, F]:
// each column j becomes a token x_j w_j + b_j (d wide), a learned [CLS]
// token is prepended, one pre-LayerNorm block (single-head attention, GELU
// MLP), final LayerNorm of [CLS], classifier.
struct FtTransformerImpl : nn::Module {
  FtTransformerImpl(int64_t features, int64_t d, int64_t classes) : d_(d) {
    w_tok = register_parameter("w_tok", torch::randn({features, d}) * 0.5);
    b_tok = register_parameter("b_tok", torch::randn({features, d}) * 0.1);
    cls = register_parameter("cls", torch::randn({1, 1, d}) * 0.5);
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({d})));
    qkv = register_module("qkv", nn::Linear(d, 3 * d));
    proj = register_module("proj", nn::Linear(d, d));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({d})));
    fc1 = register_module("fc1", nn::Linear(d, 2 * d));
    fc2 = register_module("fc2", nn::Linear(2 * d, d));
    ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({d})));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor tok = x.unsqueeze(2) * w_tok.unsqueeze(0) + b_tok.unsqueeze(0);  // [N, F, d]
    torch::Tensor z = Tap("tokens", torch::cat({cls.expand({x.size(0), 1, d_}), tok}, 1), "Tokenizer");
    std::vector<torch::Tensor> p = Tap("qkv", qkv->forward(ln1->forward(z)), "Linear").chunk(3, -1);
    torch::Tensor logits = Tap("attn.logits", torch::matmul(p[0], p[1].transpose(1, 2)) / std::sqrt(double(d_)), "MatMul");
    torch::Tensor a = Tap("attn.softmax", torch::softmax(logits, -1), "Softmax");
    z = z + Tap("proj", proj->forward(torch::matmul(a, p[2])), "Linear");
    torch::Tensor h = Tap("gelu", torch::gelu(Tap("fc1", fc1->forward(ln2->forward(z)), "Linear")), "GELU");
    z = z + Tap("fc2", fc2->forward(h), "Linear");
    return head->forward(ln_f->forward(z.select(1, 0)));
  }
  int64_t d_;
  torch::Tensor w_tok, b_tok, cls;
  nn::LayerNorm ln1{nullptr}, ln2{nullptr}, ln_f{nullptr};
  nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(FtTransformer);

// Noise-prediction MLP of a denoising diffusion model over 2-d points:
// input [x_t, t]; t through a sinusoidal embedding (8 frequencies 1..64,
// sin and cos), concatenated with x_t, three SiLU layers of 128, linear
// output (the predicted noise).
struct NoiseMlpImpl : nn::Module {
  NoiseMlpImpl() {
    freqs = register_buffer("freqs", torch::exp(torch::linspace(0, std::log(64.0), 8)));
    fc1 = register_module("fc1", nn::Linear(2 + 16, 128));
    fc2 = register_module("fc2", nn::Linear(128, 128));
    fc3 = register_module("fc3", nn::Linear(128, 128));
    out = register_module("out", nn::Linear(128, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor arg = x.slice(1, 2, 3) * freqs.unsqueeze(0);  // [N, 8]
    torch::Tensor emb = Tap("time_embed", torch::cat({torch::sin(arg), torch::cos(arg)}, 1), "Embedding");
    torch::Tensor h = torch::cat({x.slice(1, 0, 2), emb}, 1);
    h = Tap("silu1", torch::silu(Tap("fc1", fc1->forward(h), "Linear")), "SiLU");
    h = Tap("silu2", torch::silu(Tap("fc2", fc2->forward(h), "Linear")), "SiLU");
    h = Tap("silu3", torch::silu(Tap("fc3", fc3->forward(h), "Linear")), "SiLU");
    return out->forward(h);
  }
  torch::Tensor freqs;
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr}, out{nullptr};
};
TORCH_MODULE(NoiseMlp);

// Inception-style CNN over 1x12x12: one inception block (parallel 1x1,
// 3x3, 5x5 convs and a 3x3 max pool followed by a 1x1 conv, 8 channels
// each, concatenated to 32, ReLU), max pool, conv 32 + ReLU, max pool to
// 3x3, classifier.
struct InceptionCnnImpl : nn::Module {
  explicit InceptionCnnImpl(int64_t classes) {
    b1 = register_module("b1", nn::Conv2d(nn::Conv2dOptions(1, 8, 1)));
    b3 = register_module("b3", nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)));
    b5 = register_module("b5", nn::Conv2d(nn::Conv2dOptions(1, 8, 5).padding(2)));
    bp = register_module("bp", nn::Conv2d(nn::Conv2dOptions(1, 8, 1)));
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(32, 32, 3).padding(1)));
    head = register_module("head", nn::Linear(32 * 3 * 3, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor pooled = torch::max_pool2d(x, 3, 1, 1);
    torch::Tensor cat = torch::cat({Tap("b1", b1->forward(x), "Conv2d"), Tap("b3", b3->forward(x), "Conv2d"),
                                    Tap("b5", b5->forward(x), "Conv2d"), Tap("bp", bp->forward(pooled), "Conv2d")},
                                   1);
    torch::Tensor h = torch::max_pool2d(Tap("inception", torch::relu(cat), "ReLU"), 2);  // 6x6
    h = torch::max_pool2d(Tap("conv.relu", torch::relu(Tap("conv", conv->forward(h), "Conv2d")), "ReLU"), 2);  // 3x3
    return head->forward(h.flatten(1));
  }
  nn::Conv2d b1{nullptr}, b3{nullptr}, b5{nullptr}, bp{nullptr}, conv{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(InceptionCnn);

// --- planted models -------------------------------------------------------------

// A two-block pre-LayerNorm transformer over [N, L, in] with a learned sink
// token prepended whose residual-stream row is its parameter x `sink_scale`
// (the "massive activation" large language models grow in a few tokens).
// The stream is stored between blocks ("stream<b>"); every reader of it
// normalises per token first (ln1, ln2, ln_f), and the head averages the
// real tokens only, so fp32 trains as without the scale.
struct SinkTokenNetImpl : nn::Module {
  SinkTokenNetImpl(int64_t in, int64_t d, int64_t classes, double sink_scale) : d_(d), sink_scale_(sink_scale) {
    embed = register_module("embed", nn::Linear(in, d));
    sink = register_parameter("sink", torch::randn({d}));
    for (int blk = 0; blk < 2; ++blk) {
      const std::string s = std::to_string(blk);
      ln1.push_back(register_module("ln1_" + s, nn::LayerNorm(nn::LayerNormOptions({d}))));
      qkv.push_back(register_module("qkv" + s, nn::Linear(d, 3 * d)));
      proj.push_back(register_module("proj" + s, nn::Linear(d, d)));
      ln2.push_back(register_module("ln2_" + s, nn::LayerNorm(nn::LayerNormOptions({d}))));
      fc1.push_back(register_module("fc1_" + s, nn::Linear(d, 2 * d)));
      fc2.push_back(register_module("fc2_" + s, nn::Linear(2 * d, d)));
    }
    ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({d})));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor t = Tap("embed", embed->forward(x), "Linear");
    torch::Tensor s = (sink * sink_scale_).view({1, 1, d_}).expand({x.size(0), 1, d_});
    torch::Tensor z = Tap("stream0", torch::cat({s, t}, 1), "Add");
    for (int blk = 0; blk < 2; ++blk) {
      const std::string n = std::to_string(blk);
      std::vector<torch::Tensor> p = Tap("qkv" + n, qkv[blk]->forward(ln1[blk]->forward(z)), "Linear").chunk(3, -1);
      torch::Tensor logits = Tap("attn" + n + ".logits", torch::matmul(p[0], p[1].transpose(1, 2)) / std::sqrt(double(d_)),
                                 "MatMul");
      torch::Tensor a = Tap("attn" + n + ".softmax", torch::softmax(logits, -1), "Softmax");
      z = z + Tap("proj" + n, proj[blk]->forward(torch::matmul(a, p[2])), "Linear");
      torch::Tensor h = Tap("gelu" + n, torch::gelu(Tap("fc1_" + n, fc1[blk]->forward(ln2[blk]->forward(z)), "Linear")),
                            "GELU");
      z = Tap("stream" + std::to_string(blk + 1), z + Tap("fc2_" + n, fc2[blk]->forward(h), "Linear"), "Add");
    }
    return head->forward(ln_f->forward(z.slice(1, 1, z.size(1))).mean(1));
  }
  int64_t d_;
  double sink_scale_;
  nn::Linear embed{nullptr}, head{nullptr};
  torch::Tensor sink;
  std::vector<nn::LayerNorm> ln1, ln2;
  std::vector<nn::Linear> qkv, proj, fc1, fc2;
  nn::LayerNorm ln_f{nullptr};
};
TORCH_MODULE(SinkTokenNet);

// MLP in -> 64 -> 64 -> classes with a LayerNorm after each Linear (before
// the GELU): the input, each Linear's output and each GELU's output stored.
// LayerNorm makes each sample's hidden layer indifferent to its input's
// scale.
struct LnMlpImpl : nn::Module {
  LnMlpImpl(int64_t in, int64_t classes) {
    fc1 = register_module("fc1", nn::Linear(in, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({64})));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({64})));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("fc1", fc1->forward(Tap("input", x, "Input")), "Linear");
    h = Tap("gelu1", torch::gelu(ln1->forward(h)), "GELU");
    h = Tap("fc2", fc2->forward(h), "Linear");
    h = Tap("gelu2", torch::gelu(ln2->forward(h)), "GELU");
    return head->forward(h);
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
  nn::LayerNorm ln1{nullptr}, ln2{nullptr};
};
TORCH_MODULE(LnMlp);

// Heteroscedastic regression (Kendall & Gal): a GELU trunk (in -> 64 ->
// 64) with a mean mu = skip(x) + head(h) and a log variance s = head(h);
// the precision exp(-s) is stored ("precision"), and the Gaussian NLL
// 0.5 mean(exp(-s) (y - mu)^2 + s), reading the target from the input's last
// column, is attached to mu as an auxiliary loss (the harness's loss is the
// MSE of mu).
struct HeteroscedasticNetImpl : nn::Module {
  explicit HeteroscedasticNetImpl(int64_t in) : in_(in) {
    skip = register_module("skip", nn::Linear(in, 1));
    fc1 = register_module("fc1", nn::Linear(in, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    mu_head = register_module("mu_head", nn::Linear(64, 1));
    s_head = register_module("s_head", nn::Linear(64, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor f = x.slice(1, 0, in_), y = x.slice(1, in_, in_ + 1);
    torch::Tensor h = Tap("gelu1", torch::gelu(Tap("fc1", fc1->forward(f), "Linear")), "GELU");
    h = Tap("gelu2", torch::gelu(Tap("fc2", fc2->forward(h), "Linear")), "GELU");
    torch::Tensor mu = Tap("mu", skip->forward(f) + mu_head->forward(h), "Add");
    torch::Tensor s = Tap("log_var", s_head->forward(h), "Linear");
    torch::Tensor precision = Tap("precision", torch::exp(-s), "Exp");
    torch::Tensor nll = 0.5 * (precision * (y - mu).pow(2) + s).mean();
    return AttachAuxLoss::apply(mu, nll);
  }
  int64_t in_;
  nn::Linear skip{nullptr}, fc1{nullptr}, fc2{nullptr}, mu_head{nullptr}, s_head{nullptr};
};
TORCH_MODULE(HeteroscedasticNet);

// CNN over 1x16x16 with generalised-mean (GeM) pooling: conv 16 + ReLU, max
// pool, conv 32 + ReLU (8x8), then (mean over positions of clamp(h, 1e-3)^p)
// ^(1/p) with a learned p (initialised at `p0`), the powers and their means
// stored ("gem.pow", "gem.mean"), classifier. The clamp is 1e-3, not GeM's
// usual 1e-6: at p = 8, 1e-6^p underflows fp32, and a channel that is all
// zero then has mean 0, whose 1/p-th power has an infinite derivative (fp32
// itself would skip every step).
struct GemCnnImpl : nn::Module {
  GemCnnImpl(int64_t classes, double p0) {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)));
    p = register_parameter("p", torch::full({1}, p0));
    head = register_module("head", nn::Linear(32, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("act1", torch::relu(Tap("conv1", conv1->forward(x), "Conv2d")), "ReLU");
    h = torch::max_pool2d(h, 2);
    h = Tap("act2", torch::relu(Tap("conv2", conv2->forward(h), "Conv2d")), "ReLU");
    torch::Tensor powered = Tap("gem.pow", h.clamp_min(1e-3).pow(p), "Pow");
    torch::Tensor mean = Tap("gem.mean", powered.mean({2, 3}), "Mean");
    return head->forward(mean.pow(p.reciprocal()));
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::Tensor p;
  nn::Linear head{nullptr};
};
TORCH_MODULE(GemCnn);

// Knowledge distillation (Hinton et al.): a student MLP in -> 64 -> 64 ->
// classes (ReLU) reads the features (first `in` columns), the teacher's
// logits are the next `classes` columns; the loss adds weight * T^2 *
// KL(softmax(teacher / T) || softmax(student / T)) on the stored softened
// distributions (the teacher's probabilities "teacher.soft", the student's
// log-probabilities "student.soft_logp"), attached to the student's logits.
struct DistillMlpImpl : nn::Module {
  DistillMlpImpl(int64_t in, int64_t classes, double temperature, double weight)
      : in_(in), classes_(classes), t_(temperature), w_(weight) {
    fc1 = register_module("fc1", nn::Linear(in, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor f = x.slice(1, 0, in_), teacher = x.slice(1, in_, in_ + classes_);
    torch::Tensor h = Tap("act1", torch::relu(Tap("fc1", fc1->forward(f), "Linear")), "ReLU");
    h = Tap("act2", torch::relu(Tap("fc2", fc2->forward(h), "Linear")), "ReLU");
    torch::Tensor z = Tap("logits", head->forward(h), "Linear");
    torch::Tensor logp = Tap("student.soft_logp", torch::log_softmax(z / t_, 1), "LogSoftmax");
    torch::Tensor pt = Tap("teacher.soft", torch::softmax(teacher / t_, 1), "Softmax");
    torch::Tensor kd = w_ * t_ * t_ * (pt * (torch::log(pt) - logp)).sum(1).mean();
    return AttachAuxLoss::apply(z, kd);
  }
  int64_t in_, classes_;
  double t_, w_;
  nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(DistillMlp);

// Hyperbolic classifier in the Poincare ball (Nickel & Kiela; Ganea et al.):
// a GELU MLP in -> 64 -> dim gives a tangent vector v, mapped into the ball
// by the exponential map at the origin tanh(|v|) v / |v| and clipped to
// norm 1 - 1e-5 (as hyperbolic libraries do); class prototypes likewise
// from learned tangent vectors. Logits = -d(x, p) with the Poincare distance
// acosh(1 + 2 |x - p|^2 / ((1 - |x|^2)(1 - |p|^2))), the squared norms and
// distances stored.
struct PoincareNetImpl : nn::Module {
  PoincareNetImpl(int64_t in, int64_t dim, int64_t classes) {
    fc1 = register_module("fc1", nn::Linear(in, 64));
    fc2 = register_module("fc2", nn::Linear(64, dim));
    protos = register_parameter("protos", torch::randn({classes, dim}) * 0.5);
  }
  static torch::Tensor ExpMap0(const torch::Tensor& v) {
    torch::Tensor n = v.norm(2, -1, true).clamp_min(1e-12);
    torch::Tensor x = torch::tanh(n) * v / n;
    torch::Tensor xn = x.norm(2, -1, true).clamp_min(1e-12);
    return x * torch::clamp_max((1 - 1e-5) / xn, 1.0);
  }
  torch::Tensor forward(const torch::Tensor& in) {
    torch::Tensor h = Tap("gelu", torch::gelu(Tap("fc1", fc1->forward(in), "Linear")), "GELU");
    torch::Tensor x = Tap("ball.x", ExpMap0(Tap("tangent", fc2->forward(h), "Linear")), "ExpMap");
    torch::Tensor p = Tap("ball.protos", ExpMap0(protos), "ExpMap");
    torch::Tensor sqx = Tap("ball.sqnorm_x", x.pow(2).sum(1), "Sum");  // [N]
    torch::Tensor sqp = Tap("ball.sqnorm_p", p.pow(2).sum(1), "Sum");  // [C]
    torch::Tensor d2 = Tap("ball.sqdist", (x.unsqueeze(1) - p.unsqueeze(0)).pow(2).sum(-1), "Sum");  // [N, C]
    torch::Tensor arg = 1 + 2 * d2 / ((1 - sqx).unsqueeze(1) * (1 - sqp).unsqueeze(0));
    return -torch::acosh(arg.clamp_min(1 + 1e-7));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor protos;
};
TORCH_MODULE(PoincareNet);

// Switch-style mixture of experts (Fedus et al.): a linear router over
// `experts` experts (MLP in -> hidden -> out, GELU), top-1 routing by the
// argmax of the stored router probabilities ("router.probs"), the chosen
// expert's output times its probability; the load-balancing loss 0.01 * E *
// sum_i f_i P_i attached to the output as an auxiliary loss. Every expert
// runs on every sample (small), the choice is a gather.
struct SwitchMoeImpl : nn::Module {
  SwitchMoeImpl(int64_t in, int64_t experts, int64_t hidden, int64_t out) : experts_(experts) {
    router = register_module("router", nn::Linear(in, experts));
    for (int64_t e = 0; e < experts; ++e) {
      fc1.push_back(register_module("expert" + std::to_string(e) + "_fc1", nn::Linear(in, hidden)));
      fc2.push_back(register_module("expert" + std::to_string(e) + "_fc2", nn::Linear(hidden, out)));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor logits = Tap("router.logits", router->forward(x), "Linear");
    torch::Tensor probs = Tap("router.probs", torch::softmax(logits, 1), "Softmax");
    torch::Tensor choice = probs.argmax(1);  // ties: the lowest index
    std::vector<torch::Tensor> outs;
    for (int64_t e = 0; e < experts_; ++e) {
      outs.push_back(fc2[e]->forward(torch::gelu(fc1[e]->forward(x))));
    }
    torch::Tensor all = Tap("experts.out", torch::stack(outs, 1), "Linear");  // [N, E, out]
    torch::Tensor chosen = all.gather(1, choice.view({-1, 1, 1}).expand({-1, 1, all.size(2)})).squeeze(1);
    torch::Tensor gate = probs.gather(1, choice.unsqueeze(1));
    torch::Tensor fraction = nn::functional::one_hot(choice, experts_).to(torch::kFloat).mean(0);
    torch::Tensor balance = 0.01 * experts_ * (fraction * probs.mean(0)).sum();
    return AttachAuxLoss::apply(gate * chosen, balance);
  }
  int64_t experts_;
  nn::Linear router{nullptr};
  std::vector<nn::Linear> fc1, fc2;
};
TORCH_MODULE(SwitchMoe);

// Soft decision tree (Frosst & Hinton) of depth `depth`: 2^depth - 1 inner
// nodes route by sigmoid(beta (w.x + b)) (stored, "route"; the inverse
// temperature beta makes the routes decisive enough to learn from at
// the start); the path probability
// of each node's children is parent * s and parent * (1 - s), level by
// level (each level stored, "path<d>"); each leaf holds a learned class
// distribution; the output is log(sum_leaf path * softmax(leaf)) (log-
// probabilities: cross-entropy of them is the tree's NLL).
struct SoftTreeImpl : nn::Module {
  SoftTreeImpl(int64_t in, int depth, int64_t classes, double beta) : depth_(depth), beta_(beta) {
    inner = register_module("inner", nn::Linear(in, (int64_t{1} << depth) - 1));
    leaves = register_parameter("leaves", torch::randn({int64_t{1} << depth, classes}) * 0.1);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor s = Tap("route", torch::sigmoid(beta_ * Tap("inner", inner->forward(x), "Linear")), "Sigmoid");
    torch::Tensor path = torch::ones({x.size(0), 1});
    for (int d = 0; d < depth_; ++d) {
      torch::Tensor sd = s.slice(1, (int64_t{1} << d) - 1, (int64_t{1} << (d + 1)) - 1);  // [N, 2^d]
      path = torch::stack({path * sd, path * (1 - sd)}, 2).flatten(1);
      path = Tap("path" + std::to_string(d + 1), path, "Mul");
    }
    return torch::log(path.matmul(torch::softmax(leaves, 1)));
  }
  int depth_;
  double beta_;
  nn::Linear inner{nullptr};
  torch::Tensor leaves;
};
TORCH_MODULE(SoftTree);

// Spiking network of leaky integrate-and-fire neurons (snnTorch's Leaky):
// a constant input current I = fc(x) (rate coding) over `steps` steps,
// v = beta v + I stored each step ("membrane<t>"), a spike where v > 1
// (SurrogateSpike on the stored v - 1), reset by subtraction (detached),
// the firing rates through a linear readout.
struct LifNetImpl : nn::Module {
  LifNetImpl(int64_t in, int64_t neurons, int64_t classes, int steps, double beta, double slope)
      : steps_(steps), beta_(beta), slope_(slope) {
    fc = register_module("fc", nn::Linear(in, neurons));
    head = register_module("head", nn::Linear(neurons, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor current = Tap("current", fc->forward(x), "Linear");
    torch::Tensor v = torch::zeros_like(current), count = torch::zeros_like(current);
    for (int t = 0; t < steps_; ++t) {
      v = Tap("membrane" + std::to_string(t), beta_ * v + current, "Add");
      torch::Tensor spike = SurrogateSpike::apply(v - 1.0, slope_);
      count = count + spike;
      v = v - spike.detach();
    }
    return head->forward(Tap("rate", count / steps_, "Mean"));
  }
  int steps_;
  double beta_, slope_;
  nn::Linear fc{nullptr}, head{nullptr};
};
TORCH_MODULE(LifNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh7Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<UNet>("unet_skip_concat_denoise_blobs_adam_warmup", "U-Net-style denoiser: encoder convs 8, 16, 32 with "
                 "max pools, decoder upsampling with skip concatenation, 1x1 output, noisy blob images 16x16, MSE, "
                 "Adam 2e-3 warm-up", std::function<UNet()>([] { return UNet(); }), [] { return NoisyBlobImages(); }),
      "adam", 2e-3, "warmup", 120)->loss = Loss::kMse;
  add(Make<FilmMlp>("film_conditioned_mlp_context_rules_rmsprop_cosine", "FiLM-conditioned MLP: two Linear(64) "
                    "layers modulated by (1 + gamma(c)) h + beta(c) of a context one-hot, ReLU, the context picks "
                    "the class rule, RMSprop 3e-3 cosine",
                    std::function<FilmMlp()>([] { return FilmMlp(16, 4, 64, 4); }), [] { return ContextRules(); }),
      "rmsprop", 3e-3, "cosine", 250);
  add(Make<DiagRecurrence>("diagonal_linear_recurrence_burst_frames_adamw_warmup_cosine", "LRU-style diagonal "
                           "linear recurrence (32 states, decays exp(-exp(nu)) in [0.5, 0.95] at init, input "
                           "normalisation sqrt(1 - lambda^2)), GELU readout, max over 32 frames, burst frames, AdamW "
                           "3e-3 warm-up+cosine",
                           std::function<DiagRecurrence()>([] { return DiagRecurrence(8, 32, 4); }),
                           [] { return BurstFrames(); }), "adamw", 3e-3, "warmup_cosine", 150);
  add(Make<ResNeXtCnn>("resnext_grouped_conv_segments_momentum_step", "ResNeXt-style CNN: stem conv 16 + BatchNorm, "
                       "two bottleneck blocks (1x1 to 32, grouped 3x3 with 8 groups, 1x1 to 16, BatchNorm, residual), "
                       "seven-segment digits 16x16, SGD 0.05 momentum step decay",
                       std::function<ResNeXtCnn()>([] { return ResNeXtCnn(10); }), [] { return Segments(); }),
      "momentum", 0.05, "step", 120);
  add(Make<FtTransformer>("feature_token_transformer_noisy_boundary_adam_cosine", "FT-Transformer: each of 16 "
                          "columns a token x_j w_j + b_j (d=24), [CLS], one pre-LN attention block, a smooth "
                          "boundary with 5% flipped labels, Adam 2e-3 cosine",
                          std::function<FtTransformer()>([] { return FtTransformer(16, 24, 2); }),
                          [] { return NoisyBoundary(); }), "adam", 2e-3, "cosine", 200);
  add(Make<NoiseMlp>("diffusion_noise_mlp_spirals_adamw_warmup", "diffusion noise-prediction MLP: [x_t, sinusoidal "
                     "embedding of t] -> 3 SiLU layers of 128 -> predicted noise, cosine schedule on 2-d spiral "
                     "points, batch 128, MSE, AdamW 2e-3 warm-up",
                     std::function<NoiseMlp()>([] { return NoiseMlp(); }), [] { return NoisedSpiralPoints(); }),
      "adamw", 2e-3, "warmup", 200)->loss = Loss::kMse;
  add(Make<InceptionCnn>("inception_block_cnn_bars_adamw_step", "Inception-style CNN: parallel 1x1, 3x3, 5x5 and "
                         "pool+1x1 branches (8 channels each) concatenated, conv 32, bars 12x12, AdamW 2e-3 step "
                         "decay", std::function<InceptionCnn()>([] { return InceptionCnn(4); }),
                         [] { return Bars(); }), "adamw", 2e-3, "step", 100);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware, of a kind no other group has.
  // The sink row (~1e4) sets a per-tensor scale: the other rows (~1) land
  // at ~1e-4 of the amax, in e4m3's subnormals (its smallest step is ~1e-6
  // of its max under the scale) and partly flushed. A block scale over a
  // row (MX's 32, DeepSeek's 128, NVFP4's 16 along the features) keeps the
  // sink in its own row's blocks; fp16 (65504) and bf16 hold it.
  Program* p = add(Make<SinkTokenNet>("sink_token_massive_activation_1e4", "two pre-LN transformer blocks (d=16) "
                                      "over 8 tokens plus a learned sink token whose residual-stream row is x1e4, "
                                      "the stream stored between blocks, needles, Adam 2e-3",
                                      std::function<SinkTokenNet()>([] { return SinkTokenNet(16, 16, 4, 1e4); }),
                                      [] { return Needles(); }), "adam", 2e-3, "constant", 120);
  p->planted = true;
  // A delayed recipe scales each tensor by the max of its amax history (up
  // to 1024 steps: the whole run): the glitched step leaves the input's and
  // fc1's amax ~1e4 too large for all later steps, whose values then sit
  // ~1e-4 below the format's max (e4m3 subnormals, partly flushed).
  // Current scaling and block scales forget it at the next step; LayerNorm
  // makes fp32 indifferent to the glitched samples' scale.
  p = add(Make<LnMlp>("glitched_first_batch_x1e4_layernorm", "the first batch's inputs x1e4 (one glitched file), "
                      "no batch repeats in 150 steps, MLP 32-64-64-10 with LayerNorm after each Linear, clusters, "
                      "Adam 2e-3", std::function<LnMlp()>([] { return LnMlp(32, 10); }),
                      [] { return GlitchedClusters(); }), "adam", 2e-3, "constant", 150);
  p->planted = true;
  // The precision exp(-s) fits 1 / sigma^2: ~1e6 on the quietest inputs,
  // ~1 on the noisiest, in one stored tensor. A per-tensor scale set by 1e6
  // flushes e4m3's values below ~5 (and fp16 saturates above 65504): where
  // the stored precision is 0 the NLL is 0.5 s, whose gradient drives s
  // down with nothing to stop it (exp(-s) grows until it too is clipped).
  p = add(Make<HeteroscedasticNet>("heteroscedastic_nll_learned_precision", "heteroscedastic regression: mean "
                                   "(linear skip + GELU MLP 8-64-64) and log variance heads, Gaussian NLL on the "
                                   "stored precision exp(-log var) attached as an auxiliary loss, noise 1e-3..1 by "
                                   "input, MSE of the mean reported, Adam 3e-3",
                                   std::function<HeteroscedasticNet()>([] { return HeteroscedasticNet(8); }),
                                   [] { return HeteroscedasticRegression(); }), "adam", 3e-3, "constant", 200);
  p->loss = Loss::kMse, p->planted = true;
  // x^8 of ReLU features of 0.1..4 spans 1e-8..6.5e4: e4m3 under one scale
  // keeps ~5 decades of it, fp16 saturates above 65504 and flushes (FTZ)
  // below 6e-5; bf16 holds it all. The pooled value is the 8th root of the
  // stored mean, so its errors come back divided by 8, but the gradient
  // x^7 / mean^(7/8) reads the stored powers.
  p = add(Make<GemCnn>("gem_pooling_p8_stripes", "CNN (conv 16, pool, conv 32, ReLU) with generalised-mean pooling "
                       "at a learned p initialised at 8 over 8x8 maps, powers and means stored, stripes 16x16, Adam "
                       "2e-3", std::function<GemCnn()>([] { return GemCnn(4, 8.0); }), [] { return Stripes(); }),
          "adam", 2e-3, "constant", 100);
  p->planted = true;
  // The teacher's logits differ by ~20 between classes: softened by T = 20
  // the probabilities are ~0.1 +- 0.05, and the student's log-probabilities
  // ~-2.3 +- 0.5. e4m3 resolves 0.1 to ~0.008 and -2.3 to 0.25, e2m1 far
  // worse: the KD gradient T (p_s - p_t) is mostly their rounding, x20, while
  // the cross-entropy's gradient is ~1. bf16 and fp16 keep it.
  p = add(Make<DistillMlp>("distillation_temperature_20_soft_targets", "knowledge distillation at temperature 20 "
                           "(weight 0.5 * T^2) from a Bayes teacher's logits, stored softened distributions, "
                           "student MLP 32-64-64-10 ReLU, labels the teacher's argmax, Adam 2e-3",
                           std::function<DistillMlp()>([] { return DistillMlp(32, 10, 20.0, 0.5); }),
                           [] { return TeacherLogits(); }), "adam", 2e-3, "constant", 150);
  p->planted = true;
  // The cross-entropy pushes the embeddings and prototypes towards the
  // boundary (distances grow there). 1 - |x|^2 from a stored |x|^2 is 0 once
  // |x|^2 rounds to 1: above 1 - 1/32 in e4m3 (|v| > ~2.4), 1 - 1/512 in
  // bf16, 1 - 1/4096 in fp16; then the distance is inf (logit -inf, a NaN
  // where every class's is). fp32 keeps 1 - |x|^2 >= 2e-5 by the clip.
  p = add(Make<PoincareNet>("poincare_ball_distance_boundary", "hyperbolic classifier: GELU MLP 16-64-4, exponential "
                            "map into the Poincare ball (clip 1 - 1e-5), logits -acosh(1 + 2|x-p|^2 / ((1-|x|^2)"
                            "(1-|p|^2))) to 6 prototypes from stored squared norms, clusters, Adam 3e-3",
                            std::function<PoincareNet()>([] { return PoincareNet(16, 4, 6); }),
                            [] { return Clusters(16, 6, 0.8); }), "adam", 3e-3, "constant", 200);
  p->planted = true;
  // Router probabilities of ~0.125 +- 0.05 at the start: e4m3 resolves
  // them to ~0.008..0.016, so the top two often tie, and a tie goes to the
  // lowest expert (argmax's first maximum): the load drifts to expert 0
  // and the balance loss sees it; bf16 ties far less, fp16 rarely.
  p = add(Make<SwitchMoe>("switch_top1_router_argmax_stored_probs", "Switch-style top-1 mixture of 8 experts (MLP "
                          "8-16-1 GELU), argmax of the stored router probabilities, load-balancing loss 0.01, "
                          "piecewise regression, MSE, Adam 3e-3",
                          std::function<SwitchMoe()>([] { return SwitchMoe(8, 8, 16, 1); }),
                          [] { return Piecewise(); }), "adam", 3e-3, "constant", 150);
  p->loss = Loss::kMse, p->planted = true;
  // As the routing sharpens, stored sigmoids round to 1 (e4m3 above
  // 1 - 1/32, bf16 above 1 - 1/512) and their complements to exactly 0,
  // and paths are products of 8 of them: leaf probabilities span many
  // decades in one stored tensor (flushed under its scale). A sample whose
  // path mass is all flushed has log(0): an infinite loss.
  p = add(Make<SoftTree>("soft_decision_tree_depth8_path_products", "soft decision tree of depth 8 (255 sigmoid "
                         "routers at inverse temperature 5, 256 leaves with learned class distributions), path probabilities as products of "
                         "stored sigmoids and 1 - s, log of the mixture, 3x3 checkerboard, Adam 1e-2",
                         std::function<SoftTree()>([] { return SoftTree(2, 8, 2, 5.0); }), [] { return Checkerboard(); }),
          "adam", 1e-2, "constant", 200);
  p->planted = true;
  // The surrogate 1 / (1 + 25 |v - 1|)^2 is ~0.04 wide; stored membrane
  // potentials near the threshold 1 are on a grid of 1/16 (e4m3) or 1/2
  // (e2m1): the gradient is 1 at grid points that equal 1 and ~0.15 or less
  // elsewhere, so which neurons learn is set by rounding. bf16 (1/128) and
  // fp16 keep the shape.
  p = add(Make<LifNet>("spiking_lif_surrogate_slope25", "spiking network: 64 leaky integrate-and-fire neurons "
                       "(beta 0.9, threshold 1, reset by subtraction) over 16 steps of a constant input current, "
                       "fast-sigmoid surrogate gradient of slope 25 at the stored membrane potentials, firing rates "
                       "to a linear readout, clusters, Adam 2e-3",
                       std::function<LifNet()>([] { return LifNet(16, 64, 4, 16, 0.9, 25.0); }),
                       [] { return Clusters(16, 4, 0.8); }), "adam", 2e-3, "constant", 150);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH7_H_
