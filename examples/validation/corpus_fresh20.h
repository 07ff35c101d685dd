// The fresh20 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh19 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor
// any prediction was looked at), so that the rules can be measured on
// trainings nobody tuned anything against. What was looked at: corpus.h,
// corpus_fresh19.h (for the conventions), corpus_fresh6.h's first lines
// (where AttachAuxLoss lives; not used here), `lpsim validate --list`'s
// names and one-line descriptions of every earlier program (to avoid
// repeating an architecture or a breaker's practice), validation.cc's group
// registration and its Train() loop, examples/common/training.h (the
// optimizers and schedules), tracker/tracker.h's comments on simulate mode
// (taps, roles, a non-finite gradient skipping the update),
// examples/validation/CMakeLists.txt, the target files in targets/ and
// docs/targets.md. Each planted one was designed from what the hardware
// does to numbers, with only its fp32 training and its simulated truth on
// bf16-accelerator looked at, in trial runs of the check's form (fp32 on
// three seeds, bf16-accelerator on one simulated seed; read through a
// filter that prints only the fp32 runs' losses and accuracies and the
// runs' final loss, accuracy and broken).
//
// All 8 ran without throwing and learned in fp32 on every seed (seeds 11,
// 12, 13): ShuffleNet 1.0, 1.0, 1.0 (loss 1.56 to 0.0003..0.0007, chance
// 0.25); the gated-attention MIL 0.97, 0.97, 0.97 (1.38 to 0.10..0.11); the
// sigmoid-attention encoder 1.0, 1.0, 1.0 (1.39 to 0.0006..0.0008); IndRNN
// 0.98, 0.97, 0.93 (4.06 to 0.076..0.22); the house prices (MSE in
// dollars^2, no accuracy) 5.7e9 to 2.16e8, 2.20e8, 2.03e8 (predicting the
// mean: ~6.4e9; the noise alone: 1.44e8); the beer styles 0.95, 0.95, 0.95
// (1.37 to 0.12..0.13); the HDR stripes 0.95, 0.99, 0.97 (1.41 to
// 0.17..0.30); the Likert profiles 0.91, 0.90, 0.91 (1.36 to 0.25..0.26).
// Changed after the first trial run: one program that did not learn. The HDR
// stripe net (conv 16, conv 32 without normalisation, stripes +-35%, period
// 4..7, 10% multiplicative noise, AdamW 2e-3 for 200 steps) stayed near
// chance (0.27, 0.28, 0.31; loss 1.38): it now has BatchNorm after each
// conv, stripes of +-50% with period 4..6, 5% noise, AdamW 3e-3 for 300
// steps (then the numbers above); the radiance, its glints and the log1p in
// the model are unchanged. The other seven kept their first run's numbers.
// On bf16-accelerator (one seed) one broke and seven did not: the beer
// styles (loss 0.47 against fp32's 0.12..0.13, accuracy 0.80 against 0.95),
// as designed. The house prices (2.16e8 against 2.16e8), the HDR stripes
// (0.96 against 0.95) and the Likert profiles (0.90 against 0.91), meant
// not to break on bf16, matched fp32, as did the four healthy ones
// (ShuffleNet 1.0 against 1.0; MIL 0.97 against 0.97; the sigmoid-attention
// encoder 1.0 against 1.0; IndRNN 0.99 against 0.98).
//
// Four train fine in fp32 and, by design, on fp8 hardware, on architectures
// no earlier group uses: ShuffleNet (grouped pointwise convs, channel
// shuffle, depthwise convs, BatchNorm), attention-based multiple-instance
// learning with gated attention, an encoder with sigmoid attention (no
// softmax) and IndRNN (per-unit recurrent weights, ReLU); with optimizer and
// schedule pairs SGD momentum warm-up+cosine to a high peak (0.3), RMSprop
// 2e-3 cosine, AdamW 1e-2 warm-up+cosine (large steps for attention) and
// Adam 5e-3 step decay. ShuffleNet's bars and the encoder's needles are
// corpus.h's data sets.
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: large gradients, small differences of
// values near 1, one block scale shared by unlike values, integers needing
// more than a format's mantissa; the practice is new), meant to break on
// different sets of targets:
//   - a house-price regression whose target scaler's inverse transform is
//     folded into the model (price = 300000 + 100000 z, as when a model is
//     exported to predict dollars) and whose MSE is taken in dollars^2. The
//     forward pass is all O(1) (z is the stored tensor; the dollars are not
//     stored); the backward is not: dL/dz = 2 (price - y) / 64 x 100000,
//     ~1e7..1e8 even at fp32's noise floor, every step. fp16 (no
//     saturation) turns it into inf, the step's gradients are non-finite
//     and every update is skipped; on ipu-fp8 the activation gradient is
//     scaled e5m2 but the weight gradients are fp16, ~1e8..1e9, inf as well.
//     bf16 and the scaled e5m2 / e4m3 gradients of the other targets keep
//     it. Meant to break on fp16-npu-ftz and ipu-fp8 only, in the backward
//     pass alone.
//   - a beer's style from a homebrewer's hydrometer log (original, day-3
//     and final specific gravity, 1.004..1.085) stored as read, ABV = 131.25
//     (OG - FG) and apparent attenuation (OG - FG) / (OG - 1) in the model.
//     bf16 steps by 2^-7 in [1, 2) (ABV off by up to ~0.5% per reading, the
//     classes 0.5..2% of ABV and 3..10 points of attenuation apart), e4m3 by
//     1/8 and e2m1 by more, block floating point with a 7-bit mantissa by
//     2^-6; fp16 (2^-10: ABV off by ~0.06%) keeps most. Meant to break on
//     bf16, fp8, fp4 and block floating point, fp16 at the edge.
//   - stripe orientation from 16x16 HDR renders in linear radiance as the
//     renderer writes them (diffuse 0.5..3, specular glints on 8% of the
//     pixels at 200..2000, 100..4000 x the diffuse), log1p in the model. A
//     block of 16 (one image row) holding a glint keeps nothing of the
//     diffuse under e2m1 (below 1/12 of the block's largest) or under block
//     floating point with a 7-bit mantissa (below 1/128); about 3 rows in 4
//     hold one. e4m3 per tensor, per block of 32 or per row of 128 keeps the
//     diffuse (within its range below the glints' scale, with 3-bit
//     mantissas: the stripes are +-50%); fp16 (glints under 65504) and bf16
//     keep everything. Meant to break on the fp4 and block floating-point
//     targets only.
//   - the elevated subscale of a 24-item questionnaire from its answers on
//     a 7-point Likert scale (1..7) stored as recorded, 4 subscale means in
//     the model (the elevated one 1.2 points above the others). e2m1 under
//     an nvfp4 block scale of ~7/6 reads 1..7 as about 1.17, 2.33, 3.5, 3.5, 4.67,
//     4.67, 7 (3 and 4, 5 and 6 merge); e4m3 holds the integers to 16
//     exactly, bfp8, fp16 and bf16 too. Meant to break on b200-nvfp4 alone
//     (tenstorrent-bfp4 stores activations in bfp8).
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
// Brushes with rule material, none of which changed a design: grepping
// validation.cc for the group registration printed one line of the group
// comment (line ~113: "which showed lp_rollout's at_once_start_share; and
// `fresh19`,"), and the lines read around it to add this group's clause
// showed that comment's sentences on fresh18 and fresh19: a healthy
// Transformer-XL drew lp_rollout on 7 targets, recall 0.97; fresh19 was
// judged once, unseen, precision 0.75, recall 0.96, no cell moved with a
// change. examples/validation/CMakeLists.txt (read for the registration)
// names rules lp_forward_loss and lp_rollout and their settings
// (log_scale, max_gain_share, at_once_start_share) in its comments and
// regexes. So rules named lp_rollout and lp_forward_loss exist and
// lp_rollout once flagged a healthy attention model; nothing here was
// designed after that (the healthy attention model here was asked for by
// the group's brief, not chosen for or against it). The failing
// validation.truths_cover_corpus test printed only that truths.json has no
// run of this group's first program. Nothing else (no rule code,
// description, commit message or prediction) was seen.
//
//   for (const Program& p : Fresh20Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH20_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH20_H_

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

// Bags of 16 instances of 10 standard normal features; the class is which of
// 3 key-instance prototypes (norm ~3) 1..3 instances of the bag were
// replaced by (with N(0, 0.5) noise), or none (class 0).
inline Data InstanceBags(int64_t n = 2048, int64_t size = 16, int64_t d = 10) {
  torch::Tensor protos = torch::randn({3, d});
  protos = 3.0 * protos / protos.norm(2, 1, true);
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = torch::randn({n, size, d});
  torch::Tensor k = torch::randint(1, 4, {n}, torch::kLong);
  auto ya = y.accessor<int64_t, 1>(), ka = k.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    if (ya[i] == 0) continue;
    torch::Tensor where = torch::randperm(size, torch::kLong).slice(0, 0, ka[i]);
    auto wa = where.accessor<int64_t, 1>();
    for (int64_t j = 0; j < ka[i]; ++j) x[i][wa[j]] = protos[ya[i] - 1] + 0.5 * torch::randn({d});
  }
  return {x, y};
}

// 24 steps of 2 channels: a noisy trajectory (N(0, 0.35) on a trend of
// 0.12 per step) rising or falling in the first half and rising or falling
// in the second (4 classes), from a random level, beside a random-walk
// distractor channel.
inline Data TwoLegTrends(int64_t n = 2048, int64_t steps = 24) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor first = 2 * (y / 2).to(torch::kFloat) - 1, second = 2 * (y % 2).to(torch::kFloat) - 1;
  torch::Tensor t = torch::arange(steps, torch::kFloat).unsqueeze(0);
  torch::Tensor slope = torch::where(t < double(steps / 2), first.unsqueeze(1).expand({n, steps}), second.unsqueeze(1).expand({n, steps}));
  torch::Tensor sig = torch::randn({n, 1}) + torch::cumsum(0.12 * slope, 1) + 0.35 * torch::randn({n, steps});
  torch::Tensor walk = torch::cumsum(0.3 * torch::randn({n, steps}), 1);
  return {torch::stack({sig, walk}, 2), y};  // [N, T, 2]
}

// Houses: 8 standardised features (floor area, rooms, age, distance to the
// centre, lot size, condition, school score, a noise column) and the sale
// price in dollars, ~300000 +- 100000: 300000 + 100000 (0.55 area + 0.25
// rooms - 0.3 age - 0.35 tanh(distance) + 0.3 area * condition + 0.2
// school) + N(0, 12000). Targets [N, 1].
inline Data HousePrices(int64_t n = 2048) {
  torch::Tensor x = torch::randn({n, 8});
  auto c = [&x](int64_t i) { return x.select(1, i); };
  torch::Tensor f = 0.55 * c(0) + 0.25 * c(1) - 0.3 * c(2) - 0.35 * torch::tanh(c(3)) + 0.3 * c(0) * c(5) + 0.2 * c(6);
  torch::Tensor price = 300000.0 + 100000.0 * f + 12000.0 * torch::randn({n});
  return {x, price.unsqueeze(1)};
}

// Hydrometer readings of a batch of beer as a homebrewer logs them: original
// gravity, the gravity on day 3 and the final gravity (specific gravities,
// 1.004..1.085, read to +-0.0005). The style is the class: ABV above 5.5%
// or not, apparent attenuation above 78% or not; ABV 3.5..7.5%, attenuation
// 68..88%, day 3 at 45..75% of the way. Computed in double.
inline Data GravityLogs(int64_t n = 2048) {
  auto u = [n](double lo, double hi) { return lo + (hi - lo) * torch::rand({n}, torch::kDouble); };
  torch::Tensor abv = u(3.5, 7.5), att = u(0.68, 0.88), day3 = u(0.45, 0.75);
  torch::Tensor drop = abv / 131.25;  // OG - FG
  torch::Tensor og = 1 + drop / att, fg = og - drop, g3 = og - day3 * drop;
  torch::Tensor y = 2 * (abv > 5.5).to(torch::kLong) + (att > 0.78).to(torch::kLong);
  torch::Tensor x = torch::stack({og, g3, fg}, 1) + 0.0005 * torch::randn({n, 3}, torch::kDouble);
  return {x.to(torch::kFloat), y};
}

// 16x16 linear-radiance HDR renders of a glossy tiled surface, as a renderer
// writes them (no tone mapping): diffuse radiance 0.5..3 carrying faint
// stripes (+-50%, period 4..6 pixels) that run horizontally (0), vertically (1), diagonally (2)
// or not at all (3), 5% multiplicative noise, and specular glints on ~8% of
// the pixels at 200..2000 (log-uniform).
inline Data HdrGlints(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  auto u = [n](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1, 1}); };
  torch::Tensor r = torch::arange(16, torch::kFloat).view({1, 16, 1}), c = torch::arange(16, torch::kFloat).view({1, 1, 16});
  torch::Tensor yc = y.to(torch::kFloat).view({n, 1, 1});
  torch::Tensor coord = torch::where(yc == 0, r + 0 * c, torch::where(yc == 1, c + 0 * r, (r + c) / std::sqrt(2.0)));
  torch::Tensor period = u(4, 6), phase = u(0, 2 * M_PI);
  torch::Tensor stripes = torch::where(yc == 3, torch::zeros({n, 16, 16}), 0.5 * torch::sin(2 * M_PI * coord / period + phase));
  torch::Tensor base = u(0.5, 3.0) * (1 + stripes) * (1 + 0.05 * torch::randn({n, 16, 16}));
  torch::Tensor glint = (torch::rand({n, 16, 16}) < 0.08).to(torch::kFloat);
  torch::Tensor glint_value = torch::exp(std::log(200.0) + (std::log(2000.0) - std::log(200.0)) * torch::rand({n, 16, 16}));
  torch::Tensor img = torch::where(glint > 0, glint_value, base);
  return {img.unsqueeze(1), y};
}

// Answers to a 24-item questionnaire on a 7-point Likert scale (1..7), 4
// subscales of 6 items (items interleaved: item i belongs to subscale i % 4).
// The class is the respondent's elevated subscale: its items centred 1.2
// points above the others' (a respondent's level 2.5..4.5), each answer
// N(0, 1.1) around its centre, rounded and clipped to 1..7.
inline Data LikertAnswers(int64_t n = 2048, int64_t items = 24) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor level = 2.5 + 2.0 * torch::rand({n, 1});
  torch::Tensor sub = torch::arange(items, torch::kLong).remainder(4).unsqueeze(0);
  torch::Tensor centre = level + 1.2 * (sub == y.unsqueeze(1)).to(torch::kFloat);
  torch::Tensor a = torch::round(centre + 1.1 * torch::randn({n, items})).clamp(1, 7);
  return {a, y};
}

// --- healthy models -------------------------------------------------------------

// ShuffleNet unit (Zhang et al. 2018): grouped 1x1 conv (3 groups) + BN +
// ReLU, channel shuffle, depthwise 3x3 (stride 1 or 2) + BN, grouped 1x1
// conv + BN; stride 1: residual add, stride 2: concatenated with a 3x3
// average-pooled shortcut; ReLU.
struct ShuffleUnitImpl : nn::Module {
  ShuffleUnitImpl(int64_t in, int64_t out, int64_t stride, const std::string& name)
      : stride_(stride), groups_(3), name_(name) {
    const int64_t branch_out = stride == 1 ? out : out - in, mid = out / 2 / 3 * 3;
    g1 = register_module("g1", nn::Conv2d(nn::Conv2dOptions(in, mid, 1).groups(groups_).bias(false)));
    bn1 = register_module("bn1", nn::BatchNorm2d(mid));
    dw = register_module("dw", nn::Conv2d(nn::Conv2dOptions(mid, mid, 3).stride(stride).padding(1).groups(mid).bias(false)));
    bn2 = register_module("bn2", nn::BatchNorm2d(mid));
    g2 = register_module("g2", nn::Conv2d(nn::Conv2dOptions(mid, branch_out, 1).groups(groups_).bias(false)));
    bn3 = register_module("bn3", nn::BatchNorm2d(branch_out));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap(name_ + ".g1.relu", torch::relu(bn1->forward(g1->forward(x))), "ReLU");
    const int64_t n = h.size(0), ch = h.size(1), hh = h.size(2), ww = h.size(3);
    h = h.view({n, groups_, ch / groups_, hh, ww}).transpose(1, 2).contiguous().view({n, ch, hh, ww});  // shuffle
    h = Tap(name_ + ".dw", bn2->forward(dw->forward(h)), "BatchNorm");
    h = bn3->forward(g2->forward(h));
    torch::Tensor o = stride_ == 1 ? x + h : torch::cat({torch::avg_pool2d(x, 3, 2, 1), h}, 1);
    return Tap(name_ + ".out", torch::relu(o), "ReLU");
  }
  int64_t stride_, groups_;
  std::string name_;
  nn::Conv2d g1{nullptr}, dw{nullptr}, g2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
};
TORCH_MODULE(ShuffleUnit);

// ShuffleNet on 1x12x12: stem 3x3 conv 24 + BN + ReLU, a stride-1 unit (24),
// a stride-2 unit (24 -> 48), a stride-1 unit (48), global average pooling,
// a linear classifier.
struct ShuffleNetImpl : nn::Module {
  explicit ShuffleNetImpl(int64_t classes) {
    stem = register_module("stem", nn::Conv2d(nn::Conv2dOptions(1, 24, 3).padding(1).bias(false)));
    bn = register_module("bn", nn::BatchNorm2d(24));
    u1 = register_module("u1", ShuffleUnit(24, 24, 1, "unit1"));
    u2 = register_module("u2", ShuffleUnit(24, 48, 2, "unit2"));
    u3 = register_module("u3", ShuffleUnit(48, 48, 1, "unit3"));
    head = register_module("head", nn::Linear(48, classes));
  }
  torch::Tensor forward(const torch::Tensor& img) {
    torch::Tensor x = Tap("stem.relu", torch::relu(bn->forward(stem->forward(img))), "ReLU");
    x = u3->forward(u2->forward(u1->forward(x)));
    return head->forward(x.mean({2, 3}));
  }
  nn::Conv2d stem{nullptr};
  nn::BatchNorm2d bn{nullptr};
  ShuffleUnit u1{nullptr}, u2{nullptr}, u3{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(ShuffleNet);

// Attention-based deep multiple-instance learning (Ilse et al. 2018), gated
// attention: instance MLP 10-64-32 ReLU, a_k = w^T (tanh(V h_k) *
// sigmoid(U h_k)) (V, U: 32 -> 16), softmax over the bag's instances, the
// attention-weighted mean into a classifier MLP 32-32-classes.
struct GatedAttentionMilImpl : nn::Module {
  explicit GatedAttentionMilImpl(int64_t classes) {
    fc1 = register_module("fc1", nn::Linear(10, 64));
    fc2 = register_module("fc2", nn::Linear(64, 32));
    v = register_module("v", nn::Linear(32, 16));
    u = register_module("u", nn::Linear(32, 16));
    w = register_module("w", nn::Linear(16, 1));
    c1 = register_module("c1", nn::Linear(32, 32));
    out = register_module("out", nn::Linear(32, classes));
  }
  torch::Tensor forward(const torch::Tensor& bag) {  // [N, K, 10]
    torch::Tensor h = Tap("inst.fc1.relu", torch::relu(fc1->forward(bag)), "ReLU");
    h = Tap("inst.fc2.relu", torch::relu(fc2->forward(h)), "ReLU");
    torch::Tensor gate = Tap("attn.gated", torch::tanh(v->forward(h)) * torch::sigmoid(u->forward(h)), "Mul");
    torch::Tensor a = Tap("attn.softmax", torch::softmax(w->forward(gate).squeeze(2), 1), "Softmax");  // [N, K]
    torch::Tensor z = (a.unsqueeze(2) * h).sum(1);
    return out->forward(Tap("c1.relu", torch::relu(c1->forward(z)), "ReLU"));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, v{nullptr}, u{nullptr}, w{nullptr}, c1{nullptr}, out{nullptr};
};
TORCH_MODULE(GatedAttentionMil);

// Sigmoid self-attention (Ramapuram et al. 2024): attention weights
// sigmoid(q k / sqrt(d_h) - log n) per pair instead of a softmax over keys;
// a pre-LN block with 4 heads of 8, output projection, GELU MLP 32-64-32.
struct SigmoidAttnBlockImpl : nn::Module {
  SigmoidAttnBlockImpl(int64_t d, int64_t heads, const std::string& name) : d_(d), h_(heads), name_(name) {
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({d})));
    qkv = register_module("qkv", nn::Linear(d, 3 * d));
    proj = register_module("proj", nn::Linear(d, d));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({d})));
    fc1 = register_module("fc1", nn::Linear(d, 2 * d));
    fc2 = register_module("fc2", nn::Linear(2 * d, d));
  }
  torch::Tensor forward(torch::Tensor x) {  // [N, T, d]
    const int64_t n = x.size(0), t = x.size(1), dh = d_ / h_;
    torch::Tensor h = ln1->forward(x);
    std::vector<torch::Tensor> p = qkv->forward(h).view({n, t, 3, h_, dh}).permute({2, 0, 3, 1, 4}).unbind(0);
    torch::Tensor logits = Tap(name_ + ".attn.logits", torch::matmul(p[0], p[1].transpose(-1, -2)) / std::sqrt(double(dh)),
                               "MatMul");
    torch::Tensor attn = Tap(name_ + ".attn.sigmoid", torch::sigmoid(logits - std::log(double(t))), "Sigmoid");
    torch::Tensor o = torch::matmul(attn, p[2]).permute({0, 2, 1, 3}).reshape({n, t, d_});
    x = x + Tap(name_ + ".proj", proj->forward(o), "Linear");
    h = Tap(name_ + ".gelu", torch::gelu(fc1->forward(ln2->forward(x))), "GELU");
    return x + fc2->forward(h);
  }
  int64_t d_, h_;
  std::string name_;
  nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(SigmoidAttnBlock);

// Token embedding 16 -> 32 with learned positions, two sigmoid-attention
// blocks, final LayerNorm, mean pooling, a linear classifier.
struct SigmoidAttnEncoderImpl : nn::Module {
  SigmoidAttnEncoderImpl(int64_t tokens, int64_t in, int64_t classes) {
    embed = register_module("embed", nn::Linear(in, 32));
    pos = register_parameter("pos", 0.1 * torch::randn({tokens, 32}));
    b1 = register_module("b1", SigmoidAttnBlock(32, 4, "block1"));
    b2 = register_module("b2", SigmoidAttnBlock(32, 4, "block2"));
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({32})));
    head = register_module("head", nn::Linear(32, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("embed", embed->forward(x) + pos, "Linear");
    h = Tap("stream", b2->forward(b1->forward(h)), "Add");
    return head->forward(ln->forward(h).mean(1));
  }
  nn::Linear embed{nullptr};
  torch::Tensor pos;
  SigmoidAttnBlock b1{nullptr}, b2{nullptr};
  nn::LayerNorm ln{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(SigmoidAttnEncoder);

// IndRNN (Li et al. 2018): h_t = relu(W x_t + u * h_{t-1} + b) with a
// per-unit recurrent weight u (init U(0, 1), clipped to [-1, 1]); two layers
// of 48, the last state of the second through a linear classifier.
struct IndRnnImpl : nn::Module {
  IndRnnImpl(int64_t in, int64_t hidden, int64_t classes) : hid_(hidden) {
    w1 = register_module("w1", nn::Linear(in, hidden));
    w2 = register_module("w2", nn::Linear(hidden, hidden));
    u1 = register_parameter("u1", torch::rand({hidden}));
    u2 = register_parameter("u2", torch::rand({hidden}));
    out = register_module("out", nn::Linear(hidden, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, T, in]
    const int64_t n = x.size(0), steps = x.size(1);
    torch::Tensor a = u1.clamp(-1, 1), b = u2.clamp(-1, 1);
    torch::Tensor h1 = torch::zeros({n, hid_}), h2 = torch::zeros({n, hid_});
    torch::Tensor in1 = w1->forward(x);  // [N, T, H]
    for (int64_t t = 0; t < steps; ++t) {
      h1 = torch::relu(in1.select(1, t) + a * h1);
      h2 = torch::relu(w2->forward(h1) + b * h2);
      if (t % 6 == 5) {
        h1 = Tap("indrnn1.t" + std::to_string(t), h1, "ReLU");
        h2 = Tap("indrnn2.t" + std::to_string(t), h2, "ReLU");
      }
    }
    return out->forward(h2);
  }
  int64_t hid_;
  nn::Linear w1{nullptr}, w2{nullptr};
  torch::Tensor u1, u2;
  nn::Linear out{nullptr};
};
TORCH_MODULE(IndRnn);

// --- planted models -------------------------------------------------------------

// House price regression with the target scaler's inverse transform folded
// into the model, as when a model is exported to predict dollars: the MLP
// 8-64-64-1 GELU gives the standardised price ("price.standardised",
// stored), the output 300000 + 100000 z in dollars, the MSE taken in
// dollars^2.
struct DollarPriceNetImpl : nn::Module {
  DollarPriceNetImpl() {
    fc1 = register_module("fc1", nn::Linear(8, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("fc1.gelu", torch::gelu(fc1->forward(x)), "GELU");
    h = Tap("fc2.gelu", torch::gelu(fc2->forward(h)), "GELU");
    torch::Tensor z = Tap("price.standardised", out->forward(h), "Linear");
    return 300000.0 + 100000.0 * z;
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(DollarPriceNet);

// Beer style from the hydrometer log ("brew.gravity", stored as read): ABV
// = 131.25 (OG - FG), apparent attenuation (OG - FG) / (OG - 1) and the
// share fermented by day 3 (OG - G3) / (OG - FG) taken in the model
// ("brew.abv_attenuation_day3", stored), standardised, MLP 3-64-64-4 ReLU.
struct BrewStyleNetImpl : nn::Module {
  BrewStyleNetImpl() {
    fc1 = register_module("fc1", nn::Linear(3, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor g = Tap("brew.gravity", x, "Input");
    torch::Tensor og = g.select(1, 0), g3 = g.select(1, 1), fg = g.select(1, 2);
    torch::Tensor drop = og - fg;
    torch::Tensor f = torch::stack({131.25 * drop, drop / (og - 1), (og - g3) / drop}, 1);
    f = Tap("brew.abv_attenuation_day3", f, "Div");
    torch::Tensor s = (f - torch::tensor({5.5, 0.78, 0.6})) / torch::tensor({1.2, 0.06, 0.1});
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward(s)), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(BrewStyleNet);

// Stripe orientation from an HDR render's linear radiance ("hdr.radiance",
// stored as written), log1p taken in the model ("hdr.log_radiance"), CNN:
// conv 3x3 16 + BN + ReLU, max pool 2, conv 3x3 32 + BN + ReLU, global
// average pooling, a linear classifier.
struct HdrStripeNetImpl : nn::Module {
  HdrStripeNetImpl() {
    c1 = register_module("c1", nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)));
    bn1 = register_module("bn1", nn::BatchNorm2d(16));
    c2 = register_module("c2", nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)));
    bn2 = register_module("bn2", nn::BatchNorm2d(32));
    head = register_module("head", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor r = Tap("hdr.radiance", x, "Input");
    torch::Tensor l = Tap("hdr.log_radiance", torch::log1p(r), "Log");
    torch::Tensor h = Tap("c1.relu", torch::relu(bn1->forward(c1->forward(l))), "ReLU");
    h = Tap("c2.relu", torch::relu(bn2->forward(c2->forward(torch::max_pool2d(h, 2)))), "ReLU");
    return head->forward(h.mean({2, 3}));
  }
  nn::Conv2d c1{nullptr}, c2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(HdrStripeNet);

// Elevated subscale from the questionnaire's answers ("survey.answers",
// stored as recorded, 1..7): the 4 subscale means taken in the model
// ("survey.subscale_means", stored) and their differences from the
// respondent's overall mean, MLP 8-32-32-4 ReLU.
struct LikertProfileNetImpl : nn::Module {
  LikertProfileNetImpl() {
    fc1 = register_module("fc1", nn::Linear(8, 32));
    fc2 = register_module("fc2", nn::Linear(32, 32));
    out = register_module("out", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor a = Tap("survey.answers", x, "Input");
    const int64_t n = a.size(0);
    torch::Tensor m = Tap("survey.subscale_means", a.view({n, -1, 4}).mean(1), "Mean");  // [N, 4]
    torch::Tensor f = torch::cat({(m - 4) / 1.5, 2 * (m - m.mean(1, true))}, 1);
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward(f)), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(LikertProfileNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh20Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<ShuffleNet>("shufflenet_grouped_pointwise_channel_shuffle_bars_momentum_warmup_cosine_0p3", "ShuffleNet: "
                       "stem conv 24 + BN, units of grouped 1x1 convs (3 groups) with a channel shuffle and a "
                       "depthwise 3x3 (BN), one of them stride 2 with an average-pooled concatenated shortcut (24 -> "
                       "48), global average pooling; bars 12x12, SGD momentum warm-up+cosine to a peak of 0.3",
                       std::function<ShuffleNet()>([] { return ShuffleNet(4); }), [] { return Bars(); }),
      "momentum", 0.3, "warmup_cosine", 200);
  add(Make<GatedAttentionMil>("gated_attention_mil_key_instance_bags_rmsprop_cosine", "attention-based deep "
                              "multiple-instance learning with gated attention (tanh and sigmoid branches, softmax "
                              "over 16 instances), instance MLP 10-64-32, which key instance (of 3, or none) a bag "
                              "holds, RMSprop 2e-3 cosine",
                              std::function<GatedAttentionMil()>([] { return GatedAttentionMil(4); }),
                              [] { return InstanceBags(); }),
      "rmsprop", 2e-3, "cosine", 200);
  add(Make<SigmoidAttnEncoder>("sigmoid_attention_encoder_needles_adamw_1e2_warmup_cosine", "encoder of two pre-LN "
                               "blocks with sigmoid attention (sigmoid(q.k / sqrt(d) - log n) per pair, no softmax; "
                               "d 32, 4 heads), learned positions, mean pooling; needles among 8 tokens, AdamW 1e-2 "
                               "warm-up+cosine",
                               std::function<SigmoidAttnEncoder()>([] { return SigmoidAttnEncoder(8, 16, 4); }),
                               [] { return Needles(); }),
      "adamw", 1e-2, "warmup_cosine", 200);
  add(Make<IndRnn>("indrnn_two_layers_two_leg_trends_adam_step", "IndRNN: two layers of 48 ReLU units with "
                   "per-unit recurrent weights (clipped to [-1, 1]) over 24 steps of a trajectory beside a "
                   "random-walk distractor, rising or falling in each half, Adam 5e-3 step decay",
                   std::function<IndRnn()>([] { return IndRnn(2, 48, 4); }), [] { return TwoLegTrends(); }),
      "adam", 5e-3, "step", 200);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  Program* p = add(Make<DollarPriceNet>("house_price_scaler_inverse_folded_mse_in_dollars", "house price "
                                        "regression whose target scaler's inverse transform is folded into the "
                                        "model (300000 + 100000 z), MSE taken in dollars^2, MLP 8-64-64-1 GELU, "
                                        "Adam 3e-3 cosine",
                                        std::function<DollarPriceNet()>([] { return DollarPriceNet(); }),
                                        [] { return HousePrices(); }),
                   "adam", 3e-3, "cosine", 200);
  p->loss = Loss::kMse, p->planted = true;
  p = add(Make<BrewStyleNet>("beer_style_abv_attenuation_from_stored_specific_gravities", "beer style from a "
                             "homebrew hydrometer log (original, day-3 and final specific gravity, 1.004..1.085) "
                             "stored as read, ABV 131.25 (OG - FG) and apparent attenuation taken in the model, MLP "
                             "3-64-64-4 ReLU, Adam 3e-3 warm-up",
                             std::function<BrewStyleNet()>([] { return BrewStyleNet(); }),
                             [] { return GravityLogs(); }),
          "adam", 3e-3, "warmup", 200);
  p->planted = true;
  p = add(Make<HdrStripeNet>("hdr_linear_radiance_specular_glints_log_in_model", "stripe orientation from 16x16 "
                             "linear-radiance HDR renders stored as written (diffuse 0.5..3, specular glints on 8% "
                             "of the pixels at 200..2000), log1p in the model, CNN 16-32 with BatchNorm, AdamW 3e-3 cosine",
                             std::function<HdrStripeNet()>([] { return HdrStripeNet(); }), [] { return HdrGlints(); }),
          "adamw", 3e-3, "cosine", 300);
  p->planted = true;
  p = add(Make<LikertProfileNet>("likert_7_point_answers_subscale_means_in_model", "elevated subscale from 24 "
                                 "answers on a 7-point Likert scale (1..7) stored as recorded, 4 subscale means in "
                                 "the model, MLP 8-32-32-4 ReLU, RMSprop 1e-3 warm-up+cosine",
                                 std::function<LikertProfileNet()>([] { return LikertProfileNet(); }),
                                 [] { return LikertAnswers(); }),
          "rmsprop", 1e-3, "warmup_cosine", 200);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH20_H_
