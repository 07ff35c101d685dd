// The fresh16 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh15 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor
// any prediction was looked at), so that the rules can be measured on
// trainings nobody tuned anything against. What was looked at: corpus.h,
// corpus_fresh6.h (AttachAuxLoss), corpus_fresh13.h's data generators and
// corpus_fresh15.h (for the conventions), `lpsim validate --list` (names and
// one-line descriptions, to avoid repeating an architecture or a breaker's
// practice), and validation.cc's group registration. Each planted one was
// designed from what the hardware does to numbers (formats' ranges and
// resolution, block scales, stored intermediate values), with only its fp32
// training and its simulated truth on bf16-accelerator looked at, in trial
// runs of the check's form (fp32 on three seeds, bf16-accelerator on one
// simulated seed; read through a filter that prints only the fp32 runs'
// losses and accuracies and the runs' final loss, accuracy and broken).
//
// All 8 ran without throwing and learned in fp32 on every seed (seeds 11,
// 12, 13): the classifiers ended at 0.88..1.0 accuracy (chance 0.25..0.33:
// the paced ECG 0.95, 0.88, 0.91; the isotopes 0.96, 0.92, 0.95; the
// non-local CNN 0.97, 0.96, 0.95; LoRA 0.99; the Conformer and the spur
// detector 1.0), their losses from 1.09..1.56 to 0.03..0.56; the
// regressions fell ~11x (N-BEATS, 0.67 to 0.058..0.060) and ~10x (the
// polynomial features, 1.12 to 0.104..0.111).
// One program was changed after the first trial run (the group was first
// run in two halves of four), the others not: the paced ECG, with T waves
// of +-0.3 mV, a first kernel of 7 and 200 steps on the unclipped trace,
// reached only 0.64..0.72 (loss 1.15 to 0.73..0.83); with T waves of +-0.4
// mV, a first kernel of 15 and 300 steps it reached 0.78..0.83; it now
// also clips the trace at +-5 mV in the model after reading it (the stored
// trace, where the planted mechanism acts, still holds the spikes):
// 0.88..0.95. The final run of all 8 gave the numbers here (the other
// seven repeated their first run's numbers exactly).
// On bf16-accelerator (one seed) two broke and six did not: the isotope
// deltas (loss 0.80 against fp32's 0.29..0.56, accuracy 0.69 against
// 0.92..0.96) and the spur detector (loss 1.04 against 0.037..0.065,
// accuracy 0.43 against 1.0), both as designed. The paced ECG and the
// polynomial features, meant to break only on block-scaled / fp4 and on
// fp16 / fp8 targets, were within 0.6% of fp32 on bf16, as were the four
// healthy ones (the LoRA MLP's loss 0.029 against 0.027, its accuracy
// 0.994 against 0.992).
//
// Four train fine in fp32 and, by design, on fp8 hardware, on architectures
// no earlier group uses: N-BEATS (generic blocks with backcast residuals), a
// Conformer block (macaron feed-forwards, attention and a convolution module
// with GLU and a depthwise convolution), LoRA adapters on a frozen base MLP,
// and a CNN with a non-local (embedded Gaussian self-attention) block; with
// optimizer and schedule pairs Adam step decay, AdamW warm-up+cosine,
// RMSprop warm-up and SGD momentum cosine.
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: one scale shared by unlike values, range
// overflow of a stored intermediate, resolution of a value far from zero;
// the practice and the way it fails are new), meant to break on different
// sets of targets:
//   - paced ECG traces in raw millivolts: a pacemaker's stimulus artefact
//     (a one-sample spike of ~40 mV) precedes every beat (one every ~32
//     samples), beside a QRS of ~1 mV and the class-bearing T wave of +-0.4
//     mV; the model clips the trace at +-5 mV (de-spiking) only after it
//     is read, so the stored trace holds the spikes. Per-tensor formats keep the small waves (bf16, fp16; e4m3 with a
//     per-tensor scale holds 40 and 0.4 at 1/16 relative); a block scale of
//     32 or 16 samples set by the spike (MXFP4 / NVFP4's E2M1 grid: nothing
//     below ~40 / 12; block floating point with a 3-bit mantissa: steps of
//     ~5) rounds the whole ECG in the block to 0. Meant to break on the fp4
//     / block-scaled targets only.
//   - polynomial features of degree 3 (scikit-learn's PolynomialFeatures)
//     of raw process settings (temperature 20..80 C, time 0.5..10 h, pH
//     3..9), computed and stored in the model and only then divided by each
//     column's largest value (MaxAbsScaler): T^3 reaches 512000, above
//     fp16's 65504 (inf for T > 40.3 C, half of the rows, then NaN) and
//     e5m2's 57344; e4m3 without a scale saturates above 448; a block scale
//     set by T^3 loses the degree-1 columns. bf16 has fp32's range and 2^-8
//     relative error per column, which the scaled columns keep. Meant to
//     break on fp16 and fp8, not on bf16.
//   - stable isotope ratios (13C/12C ~0.011, 2H/1H ~1.5e-4, 18O/16O ~0.002,
//     15N/14N ~0.0037) stored as the mass spectrometer reports them, the
//     delta values (R / R_standard - 1) * 1000 in per mil taken in the
//     model: honey authenticity classes 4 per mil apart in delta 13C (C4
//     sugar added) and 10 per mil apart in delta 2H (region), noise 0.6 and
//     2.5 per mil. bf16 steps by 2^-8..2^-7 relative: 5.6 per mil at 13C /
//     12C, 6.1 at 2H / 1H, so the classes fall on one or two steps; fp16's
//     ~0.7..0.8 per mil keeps them; e4m3's 1/16 loses all. Meant to break on
//     bf16 and fp8.
//   - a weak spur 86 dB below a full-scale carrier (amplitudes 0.9 and 5e-5,
//     coherently sampled, 64 samples) detected from the log power spectrum
//     of the raw ADC capture, the DFT computed in the model as a matmul with
//     stored cosine and sine tables. The spur's DFT bin (~1.6e-3) is far above
//     fp32's floor; rounding the samples and tables to bf16 (2^-9..2^-8
//     relative) spreads ~3e-3 of error into every bin and buries it; fp16
//     (2^-12..2^-11) leaves it ~12 dB above its own floor, but its power
//     (~2.6e-6) is below fp16's smallest normal. Meant to break on bf16 and
//     fp8, and on fp16 without subnormals.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
//   for (const Program& p : Fresh16Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH16_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH16_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"
#include "examples/validation/corpus_fresh.h"
#include "examples/validation/corpus_fresh13.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// Seasonal series for forecasting: 32 samples of a sin(2 pi t / p + phi) +
// b sin(2 pi t / q + psi) + c t / 32 + 0.05 noise (a 0.5..1, p 6..12, b
// 0.2..0.5, q 3..5, c -1..1); x the first 24, y the last 8.
inline Data SeasonalSeries(int64_t n = 2048, int64_t back = 24, int64_t ahead = 8) {
  const int64_t len = back + ahead;
  torch::Tensor t = torch::arange(len, torch::kFloat).unsqueeze(0);
  auto u = [n](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}); };
  torch::Tensor s = u(0.5, 1) * torch::sin(2 * M_PI * t / u(6, 12) + u(0, 2 * M_PI)) +
                    u(0.2, 0.5) * torch::sin(2 * M_PI * t / u(3, 5) + u(0, 2 * M_PI)) + u(-1, 1) * t / double(len) +
                    0.05 * torch::randn({n, len});
  return {s.slice(1, 0, back).contiguous(), s.slice(1, back, len).contiguous()};
}

// Paced ECG traces of 128 samples in millivolts: a beat every 30..34
// samples from a random phase, each a pacing artefact (one sample, 35..45
// mV) two samples before a QRS (1 mV, Gaussian of width 1.5) and a T wave
// 10 samples after it (width 3): class 0 upright (+0.4 mV), 1 flat, 2
// inverted (-0.4 mV); baseline wander 0.1 and 0.05 noise. Shape [n, 1, 128].
inline Data PacedEcg(int64_t n = 2048, int64_t len = 128) {
  torch::Tensor y = torch::randint(0, 3, {n}, torch::kLong);
  torch::Tensor x = 0.05 * torch::randn({n, len});
  torch::Tensor t = torch::arange(len, torch::kFloat);
  torch::Tensor wander = 0.1 * torch::sin(2 * M_PI * t.unsqueeze(0) / 128 * torch::rand({n, 1}) + 6 * torch::rand({n, 1}));
  x += wander;
  auto ya = y.accessor<int64_t, 1>();
  const float tw[3] = {0.4f, 0.0f, -0.4f};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t period = 30 + torch::randint(0, 5, {1}).item<int64_t>();
    int64_t at = torch::randint(2, 2 + period, {1}).item<int64_t>();
    for (; at < len; at += period) {
      const double spike = 35 + 10 * torch::rand({1}).item<double>();
      x[i][at - 2].add_(spike);
      x[i].add_(torch::exp(-(t - double(at)).pow(2) / (2 * 1.5 * 1.5)) +
              tw[ya[i]] * torch::exp(-(t - double(at + 10)).pow(2) / (2 * 3.0 * 3.0)));
    }
  }
  return {x.unsqueeze(1), y};
}

// Reaction yield (standardised) from raw process settings: temperature
// 20..80 C, time 0.5..10 h, pH 3..9; the yield a smooth surface (an optimum
// near 55 C, pH 6, saturating in time) plus 0.05 noise.
inline Data ProcessSettings(int64_t n = 2048) {
  torch::Tensor temp = 20 + 60 * torch::rand({n, 1}), time = 0.5 + 9.5 * torch::rand({n, 1}),
                ph = 3 + 6 * torch::rand({n, 1});
  torch::Tensor yield = torch::exp(-((temp - 55) / 20).pow(2)) * (1 - torch::exp(-time / 3)) *
                            torch::exp(-((ph - 6) / 2.5).pow(2)) +
                        0.2 * (temp - 50) / 30 * (ph - 6) / 3;
  yield = (yield - yield.mean()) / yield.std() + 0.05 * torch::randn({n, 1});
  return {torch::cat({temp, time, ph}, 1), yield};
}

// Stable isotope ratios of honey samples as the mass spectrometer reports
// them: [13C/12C, 2H/1H, 18O/16O, 15N/14N] = R_std (1 + delta / 1000), with
// delta 13C -25.5 (pure) or -21.5 per mil (C4 sugar added), delta 2H -95 or
// -85 per mil (two regions) (classes = the 4 combinations), noise 0.6 and
// 2.5 per mil; delta 18O (~ -5 +- 2) and delta 15N (~ 3 +- 1.5) carry no
// class. Computed in double, stored in float.
inline Data IsotopeRatios(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor yd = y.to(torch::kDouble);
  torch::Tensor d13 = -25.5 + 4 * torch::remainder(yd, 2) + 0.6 * torch::randn({n}, torch::kDouble);
  torch::Tensor d2 = -95 + 10 * torch::floor(yd / 2) + 2.5 * torch::randn({n}, torch::kDouble);
  torch::Tensor d18 = -5 + 2 * torch::randn({n}, torch::kDouble), d15 = 3 + 1.5 * torch::randn({n}, torch::kDouble);
  torch::Tensor delta = torch::stack({d13, d2, d18, d15}, 1);
  torch::Tensor std_ratio = torch::tensor({0.0111802, 0.00015576, 0.0020052, 0.0036765}, torch::kDouble);
  return {(std_ratio * (1 + delta / 1000)).to(torch::kFloat), y};
}

// ADC captures of 64 samples, coherently sampled: a carrier of amplitude
// 0.9 on bin 3..7 with random phase, 1e-6 thermal noise; class 0 nothing
// more, 1 a spur of amplitude 5e-5 (-86 dBc) on bin 13, 2 the same on bin
// 21 (random phase). Computed in double, stored in float.
inline Data AdcSpurs(int64_t n = 2048, int64_t len = 64) {
  torch::Tensor y = torch::randint(0, 3, {n}, torch::kLong);
  torch::Tensor t = torch::arange(len, torch::kDouble).unsqueeze(0);
  torch::Tensor carrier_bin = torch::randint(3, 8, {n, 1}, torch::kLong).to(torch::kDouble);
  torch::Tensor x = 0.9 * torch::sin(2 * M_PI * carrier_bin * t / double(len) + 2 * M_PI * torch::rand({n, 1}, torch::kDouble));
  torch::Tensor yc = y.unsqueeze(1);
  torch::Tensor spur_bin = torch::where(yc == 1, torch::full({n, 1}, 13.0, torch::kDouble), torch::full({n, 1}, 21.0, torch::kDouble));
  torch::Tensor spur = 5e-5 * torch::sin(2 * M_PI * spur_bin * t / double(len) + 2 * M_PI * torch::rand({n, 1}, torch::kDouble));
  x = x + spur * (yc > 0).to(torch::kDouble) + 1e-6 * torch::randn({n, len}, torch::kDouble);
  return {x.to(torch::kFloat), y};
}

// --- healthy models -------------------------------------------------------------

// N-BEATS (Oreshkin et al. 2020), generic blocks: each an MLP 24-64-64-64
// ReLU with linear backcast (24) and forecast (8) heads; the input minus
// each block's backcast feeds the next (doubly residual), the forecasts
// add up.
struct NBeatsImpl : nn::Module {
  NBeatsImpl(int64_t back, int64_t ahead, int64_t d, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) {
      const std::string s = std::to_string(b);
      fc1.push_back(register_module("b" + s + "_fc1", nn::Linear(back, d)));
      fc2.push_back(register_module("b" + s + "_fc2", nn::Linear(d, d)));
      fc3.push_back(register_module("b" + s + "_fc3", nn::Linear(d, d)));
      backcast.push_back(register_module("b" + s + "_back", nn::Linear(d, back)));
      forecast.push_back(register_module("b" + s + "_fore", nn::Linear(d, ahead)));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor r = x, f;
    for (size_t b = 0; b < fc1.size(); ++b) {
      const std::string s = "b" + std::to_string(b);
      torch::Tensor h = Tap(s + ".fc1.relu", torch::relu(fc1[b]->forward(r)), "ReLU");
      h = Tap(s + ".fc2.relu", torch::relu(fc2[b]->forward(h)), "ReLU");
      h = Tap(s + ".fc3.relu", torch::relu(fc3[b]->forward(h)), "ReLU");
      r = r - backcast[b]->forward(h);
      torch::Tensor fb = forecast[b]->forward(h);
      f = b == 0 ? fb : f + fb;
    }
    return f;
  }
  std::vector<nn::Linear> fc1, fc2, fc3, backcast, forecast;
};
TORCH_MODULE(NBeats);

// A Conformer block (Gulati et al. 2020) over [N, L, 1] sequences: input
// projection to d with learned positions; half-step feed-forward (SiLU),
// 2-head self-attention, a convolution module (pointwise to 2d, GLU,
// depthwise convolution of kernel 7 along time, BatchNorm, SiLU, pointwise),
// half-step feed-forward, each pre-LN and residual, a final LayerNorm; mean
// pooling into a classifier. The depthwise convolution is written as the
// padded sequence's windows times the kernels.
struct ConformerImpl : nn::Module {
  ConformerImpl(int64_t len, int64_t d, int64_t heads, int64_t kernel, int64_t classes)
      : d_(d), h_(heads), k_(kernel) {
    in = register_module("in", nn::Linear(1, d));
    pos = register_parameter("pos", 0.1 * torch::randn({len, d}));
    ln_ff1 = register_module("ln_ff1", nn::LayerNorm(nn::LayerNormOptions({d})));
    ff1a = register_module("ff1a", nn::Linear(d, 4 * d));
    ff1b = register_module("ff1b", nn::Linear(4 * d, d));
    ln_att = register_module("ln_att", nn::LayerNorm(nn::LayerNormOptions({d})));
    qkv = register_module("qkv", nn::Linear(d, 3 * d));
    proj = register_module("proj", nn::Linear(d, d));
    ln_conv = register_module("ln_conv", nn::LayerNorm(nn::LayerNormOptions({d})));
    pw1 = register_module("pw1", nn::Linear(d, 2 * d));
    dw = register_parameter("dw", torch::randn({d, kernel}) / std::sqrt(double(kernel)));
    bn = register_module("bn", nn::BatchNorm1d(d));
    pw2 = register_module("pw2", nn::Linear(d, d));
    ln_ff2 = register_module("ln_ff2", nn::LayerNorm(nn::LayerNormOptions({d})));
    ff2a = register_module("ff2a", nn::Linear(d, 4 * d));
    ff2b = register_module("ff2b", nn::Linear(4 * d, d));
    ln_out = register_module("ln_out", nn::LayerNorm(nn::LayerNormOptions({d})));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    const int64_t n = x.size(0), len = x.size(1), hd = d_ / h_;
    torch::Tensor e = in->forward(x) + pos;
    e = e + 0.5 * ff1b->forward(Tap("ff1.silu", torch::silu(ff1a->forward(ln_ff1->forward(e))), "SiLU"));
    std::vector<torch::Tensor> p = qkv->forward(ln_att->forward(e)).chunk(3, 2);
    auto heads = [&](const torch::Tensor& t) { return t.view({n, len, h_, hd}).transpose(1, 2); };
    torch::Tensor logits = torch::matmul(heads(p[0]), heads(p[1]).transpose(-2, -1)) / std::sqrt(double(hd));
    torch::Tensor attn = Tap("attn.softmax", torch::softmax(logits, -1), "Softmax");
    e = e + proj->forward(torch::matmul(attn, heads(p[2])).transpose(1, 2).reshape({n, len, d_}));
    torch::Tensor g = Tap("conv.glu", torch::glu(pw1->forward(ln_conv->forward(e)), 2), "GLU");  // [N, L, d]
    torch::Tensor padded = nn::functional::pad(g.transpose(1, 2), nn::functional::PadFuncOptions({k_ / 2, k_ / 2}));
    torch::Tensor c = (padded.unfold(2, k_, 1) * dw.unsqueeze(1)).sum(3);  // [N, d, L]
    c = Tap("conv.silu", torch::silu(bn->forward(c)), "SiLU").transpose(1, 2);
    e = e + pw2->forward(c);
    e = e + 0.5 * ff2b->forward(Tap("ff2.silu", torch::silu(ff2a->forward(ln_ff2->forward(e))), "SiLU"));
    return head->forward(ln_out->forward(e).mean(1));
  }
  int64_t d_, h_, k_;
  nn::Linear in{nullptr}, ff1a{nullptr}, ff1b{nullptr}, qkv{nullptr}, proj{nullptr}, pw1{nullptr}, pw2{nullptr},
      ff2a{nullptr}, ff2b{nullptr}, head{nullptr};
  nn::LayerNorm ln_ff1{nullptr}, ln_att{nullptr}, ln_conv{nullptr}, ln_ff2{nullptr}, ln_out{nullptr};
  nn::BatchNorm1d bn{nullptr};
  torch::Tensor pos, dw;
};
TORCH_MODULE(Conformer);

// LoRA (Hu et al. 2021): a frozen base MLP 2-128-128-3 ReLU (its weights
// buffers, standing in for a pretrained model) with rank-8 adapters on all
// three layers, W x + (alpha / r) B A x, A random, B from 0, alpha 16; only
// the adapters train.
struct LoraMlpImpl : nn::Module {
  LoraMlpImpl(std::vector<int64_t> dims, int64_t rank, double alpha) : scale_(alpha / double(rank)) {
    for (size_t l = 0; l + 1 < dims.size(); ++l) {
      nn::Linear base(dims[l], dims[l + 1]);
      const std::string s = std::to_string(l);
      w.push_back(register_buffer("w" + s, base->weight.detach().clone()));
      b.push_back(register_buffer("b" + s, base->bias.detach().clone()));
      a.push_back(register_parameter("lora_a" + s, torch::randn({rank, dims[l]}) / std::sqrt(double(dims[l]))));
      bb.push_back(register_parameter("lora_b" + s, torch::zeros({dims[l + 1], rank})));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = x;
    for (size_t l = 0; l < w.size(); ++l) {
      h = torch::nn::functional::linear(h, w[l], b[l]) + scale_ * torch::matmul(torch::matmul(h, a[l].t()), bb[l].t());
      if (l + 1 < w.size()) h = Tap("layer" + std::to_string(l) + ".relu", torch::relu(h), "ReLU");
    }
    return h;
  }
  double scale_;
  std::vector<torch::Tensor> w, b, a, bb;
};
TORCH_MODULE(LoraMlp);

// A CNN with a non-local block (Wang et al. 2018, embedded Gaussian): conv
// 3x3 (16, ReLU); theta, phi, g 1x1 convolutions to 8, softmax(theta^T phi)
// over the 144 positions, g aggregated, a 1x1 convolution back to 16 added
// to the input; conv 3x3 stride 2 (32, ReLU), global average pooling.
struct NonLocalCnnImpl : nn::Module {
  NonLocalCnnImpl(int64_t c1, int64_t inner, int64_t c2, int64_t classes) {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, c1, 3).padding(1)));
    theta = register_module("theta", nn::Conv2d(nn::Conv2dOptions(c1, inner, 1)));
    phi = register_module("phi", nn::Conv2d(nn::Conv2dOptions(c1, inner, 1)));
    g = register_module("g", nn::Conv2d(nn::Conv2dOptions(c1, inner, 1)));
    wz = register_module("wz", nn::Conv2d(nn::Conv2dOptions(inner, c1, 1)));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(c1, c2, 3).stride(2).padding(1)));
    head = register_module("head", nn::Linear(c2, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("conv1.relu", torch::relu(conv1->forward(x)), "ReLU");
    const int64_t n = h.size(0);
    torch::Tensor q = theta->forward(h).flatten(2).transpose(1, 2);  // [N, HW, inner]
    torch::Tensor k = phi->forward(h).flatten(2);                    // [N, inner, HW]
    torch::Tensor v = g->forward(h).flatten(2).transpose(1, 2);      // [N, HW, inner]
    torch::Tensor attn = Tap("nonlocal.softmax", torch::softmax(torch::matmul(q, k), -1), "Softmax");
    torch::Tensor y = torch::matmul(attn, v).transpose(1, 2).reshape({n, -1, h.size(2), h.size(3)});
    h = h + wz->forward(y);
    h = Tap("conv2.relu", torch::relu(conv2->forward(h)), "ReLU");
    return head->forward(h.mean({2, 3}));
  }
  nn::Conv2d conv1{nullptr}, theta{nullptr}, phi{nullptr}, g{nullptr}, wz{nullptr}, conv2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(NonLocalCnn);

// --- planted models -------------------------------------------------------------

// A 1-d CNN over the raw paced ECG in millivolts ("ecg.trace", stored as
// read), clipped at +-5 mV (de-spiking) after it is read: convolutions of
// kernel 15 (8 channels) and 5 (16 channels), ReLU, written as windows
// times kernels; global average pooling into a classifier (the T wave's
// polarity).
struct PacedEcgCnnImpl : nn::Module {
  PacedEcgCnnImpl(int64_t c1, int64_t c2, int64_t classes) {
    w1 = register_parameter("w1", torch::randn({c1, 15}) / std::sqrt(15.0));
    b1 = register_parameter("b1", torch::zeros({c1}));
    w2 = register_parameter("w2", torch::randn({c2, c1 * 5}) / std::sqrt(5.0 * double(c1)));
    b2 = register_parameter("b2", torch::zeros({c2}));
    head = register_module("head", nn::Linear(c2, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 1, L]
    torch::Tensor s = Tap("ecg.trace", x, "Input");
    torch::Tensor win1 = torch::clamp(s, -5, 5).unfold(2, 15, 1).squeeze(1);  // [N, L - 14, 15]
    torch::Tensor h1 = Tap("conv1.relu", torch::relu(torch::matmul(win1, w1.t()) + b1), "ReLU");  // [N, L1, c1]
    torch::Tensor win2 = h1.transpose(1, 2).unfold(2, 5, 1).permute({0, 2, 1, 3}).flatten(2);  // [N, L2, c1 * 5]
    torch::Tensor h2 = Tap("conv2.relu", torch::relu(torch::matmul(win2, w2.t()) + b2), "ReLU");
    return head->forward(h2.mean(1));
  }
  torch::Tensor w1, b1, w2, b2;
  nn::Linear head{nullptr};
};
TORCH_MODULE(PacedEcgCnn);

// Polynomial regression the scikit-learn way, in the model: the 20
// monomials of degree <= 3 of the raw settings (temperature, time, pH)
// stored ("poly.features": 1 .. T^3 = 512000), then each divided by its
// largest value over the settings' range (MaxAbsScaler, a buffer), into an
// MLP 20-64-64-1 GELU.
struct PolyFeatureNetImpl : nn::Module {
  PolyFeatureNetImpl() {
    const torch::Tensor top = torch::tensor({80.0f, 10.0f, 9.0f});
    max_abs = register_buffer("max_abs", Monomials(top.unsqueeze(0)).squeeze(0));
    fc1 = register_module("fc1", nn::Linear(20, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 1));
  }
  static torch::Tensor Monomials(const torch::Tensor& x) {
    std::vector<torch::Tensor> cols = {torch::ones_like(x.select(1, 0))};
    for (int64_t i = 0; i < 3; ++i) cols.push_back(x.select(1, i));
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = i; j < 3; ++j) cols.push_back(x.select(1, i) * x.select(1, j));
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = i; j < 3; ++j)
        for (int64_t k = j; k < 3; ++k) cols.push_back(x.select(1, i) * x.select(1, j) * x.select(1, k));
    return torch::stack(cols, 1);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor f = Tap("poly.features", Monomials(Tap("settings", x, "Input")), "Mul");
    torch::Tensor h = Tap("fc1.gelu", torch::gelu(fc1->forward(f / max_abs)), "GELU");
    return out->forward(Tap("fc2.gelu", torch::gelu(fc2->forward(h)), "GELU"));
  }
  torch::Tensor max_abs;
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(PolyFeatureNet);

// Delta notation in the model: the raw isotope ratios ("isotope.ratios",
// stored as reported) over the international standards' (VPDB, VSMOW,
// VSMOW, AIR), minus 1, times 1000 ("isotope.delta_permil", stored), / 10
// into an MLP 4-32-32-4 GELU.
struct IsotopeDeltaNetImpl : nn::Module {
  IsotopeDeltaNetImpl() {
    standard = register_buffer("standard", torch::tensor({0.0111802f, 0.00015576f, 0.0020052f, 0.0036765f}));
    fc1 = register_module("fc1", nn::Linear(4, 32));
    fc2 = register_module("fc2", nn::Linear(32, 32));
    out = register_module("out", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor r = Tap("isotope.ratios", x, "Input");
    torch::Tensor delta = Tap("isotope.delta_permil", (r / standard - 1) * 1000, "Sub");
    torch::Tensor h = Tap("fc1.gelu", torch::gelu(fc1->forward(delta / 10)), "GELU");
    return out->forward(Tap("fc2.gelu", torch::gelu(fc2->forward(h)), "GELU"));
  }
  torch::Tensor standard;
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(IsotopeDeltaNet);

// Spur detection from the raw capture ("adc.samples", stored as read): the
// DFT as a matmul with stored cosine and sine tables ("dft.cos",
// "dft.sin", [33, 64]), the power re^2 + im^2 ("dft.power", stored),
// 10 log10(power + 1e-12) / 40 into an MLP 33-64-64-3 ReLU.
struct SpurDetectorImpl : nn::Module {
  explicit SpurDetectorImpl(int64_t len) {
    torch::Tensor k = torch::arange(len / 2 + 1, torch::kDouble).unsqueeze(1);
    torch::Tensor t = torch::arange(len, torch::kDouble).unsqueeze(0);
    cos_table = register_buffer("cos_table", torch::cos(2 * M_PI * k * t / double(len)).to(torch::kFloat));
    sin_table = register_buffer("sin_table", torch::sin(2 * M_PI * k * t / double(len)).to(torch::kFloat));
    fc1 = register_module("fc1", nn::Linear(len / 2 + 1, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 3));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor s = Tap("adc.samples", x, "Input");
    torch::Tensor re = torch::matmul(s, Tap("dft.cos", cos_table, "Input").t());
    torch::Tensor im = torch::matmul(s, Tap("dft.sin", sin_table, "Input").t());
    torch::Tensor power = Tap("dft.power", re.pow(2) + im.pow(2), "Add");
    torch::Tensor db = 10 * torch::log10(power + 1e-12) / 40;
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward(db)), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  torch::Tensor cos_table, sin_table;
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(SpurDetector);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh16Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  Program* p = add(Make<NBeats>("nbeats_generic_blocks_seasonal_forecast_adam_step", "N-BEATS: three generic blocks "
                                "(MLP 24-64-64-64 ReLU, linear backcast and forecast), doubly residual; forecasting 8 "
                                "steps of seasonal series from 24, MSE, Adam 2e-3 step decay",
                                std::function<NBeats()>([] { return NBeats(24, 8, 64, 3); }),
                                [] { return SeasonalSeries(); }),
                   "adam", 2e-3, "step", 300);
  p->loss = Loss::kMse;
  add(Make<Conformer>("conformer_block_conv_module_chirps_adamw_warmup_cosine", "Conformer block: macaron half-step "
                      "SiLU feed-forwards, 2-head self-attention and a convolution module (pointwise, GLU, depthwise "
                      "kernel 7, BatchNorm, SiLU, pointwise), d 32, learned positions, mean pooling; rising, falling, "
                      "low and high chirps, AdamW 3e-3 warm-up+cosine",
                      std::function<Conformer()>([] { return Conformer(32, 32, 2, 7, 4); }), [] { return Chirps(); }),
      "adamw", 3e-3, "warmup_cosine", 200);
  add(Make<LoraMlp>("lora_rank8_frozen_base_rings_rmsprop_warmup", "LoRA: rank-8 adapters (alpha 16, B from 0) on "
                    "every layer of a frozen base MLP 2-128-128-3 ReLU, only the adapters trained; rings, RMSprop "
                    "3e-3 warm-up",
                    std::function<LoraMlp()>([] { return LoraMlp(std::vector<int64_t>{2, 128, 128, 3}, 8, 16); }),
                    [] { return Rings(); }),
      "rmsprop", 3e-3, "warmup", 200);
  add(Make<NonLocalCnn>("nonlocal_block_cnn_bars_momentum_cosine", "CNN with a non-local block: conv 3x3 16 ReLU, "
                        "embedded-Gaussian non-local block (theta, phi, g to 8, softmax over 144 positions, 1x1 back, "
                        "residual), conv 3x3 stride 2 32 ReLU, global average pooling; bars, SGD 0.05 momentum cosine",
                        std::function<NonLocalCnn()>([] { return NonLocalCnn(16, 8, 32, 4); }),
                        [] { return Bars(); }),
      "momentum", 0.05, "cosine", 200);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  p = add(Make<PacedEcgCnn>("paced_ecg_pacing_spikes_raw_millivolts", "T-wave polarity from paced ECG traces in raw "
                            "millivolts (128 samples; a ~40 mV pacing artefact before every ~1 mV beat, T wave +-0.4 "
                            "mV) stored as read, clipped at +-5 mV in the model, 1-d CNN 8-16 ReLU, global average pooling; Adam 3e-3 cosine",
                            std::function<PacedEcgCnn()>([] { return PacedEcgCnn(8, 16, 3); }),
                            [] { return PacedEcg(); }),
          "adam", 3e-3, "cosine", 300);
  p->planted = true;
  p = add(Make<PolyFeatureNet>("polynomial_features_degree3_raw_process_settings", "reaction yield from degree-3 "
                               "polynomial features of raw process settings (temperature 20..80 C, time, pH; T^3 up "
                               "to 512000) stored, then MaxAbs-scaled in the model, MLP 20-64-64-1 GELU, MSE, Adam "
                               "3e-3 cosine",
                               std::function<PolyFeatureNet()>([] { return PolyFeatureNet(); }),
                               [] { return ProcessSettings(); }),
          "adam", 3e-3, "cosine", 300);
  p->loss = Loss::kMse, p->planted = true;
  p = add(Make<IsotopeDeltaNet>("isotope_delta_permil_from_stored_raw_ratios", "honey authenticity and region from "
                                "stable isotope ratios stored as the mass spectrometer reports them (13C/12C ~0.011, "
                                "2H/1H ~1.5e-4, ...), delta values in per mil taken in the model (classes 4 and 10 "
                                "per mil apart), MLP 4-32-32-4 GELU, AdamW 1e-2 warm-up+cosine",
                                std::function<IsotopeDeltaNet()>([] { return IsotopeDeltaNet(); }),
                                [] { return IsotopeRatios(); }),
          "adamw", 1e-2, "warmup_cosine", 200);
  p->planted = true;
  p = add(Make<SpurDetector>("adc_spur_86db_below_carrier_dft_in_model", "spur (-86 dBc, bin 13 or 21, or none) "
                             "beside a full-scale carrier in a raw 64-sample ADC capture stored as read, DFT by "
                             "stored cosine and sine tables in the model, log power spectrum into an MLP 33-64-64-3 "
                             "ReLU, Adam 3e-3 step decay",
                             std::function<SpurDetector()>([] { return SpurDetector(64); }),
                             [] { return AdcSpurs(); }),
          "adam", 3e-3, "step", 200);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH16_H_
