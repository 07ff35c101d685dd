// The fresh23 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh22 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor
// any prediction was looked at), so that the rules can be measured on
// trainings nobody tuned anything against. What was looked at: corpus.h (the
// data helpers, Program, Make, ProgramAdder, Programs()), corpus_fresh22.h
// (for the conventions), the names of every earlier program (grepped from
// the corpus headers' Make<...>("name" calls) and `lpsim validate --list`'s
// lines grepped for the architectures and practices used here (to avoid
// repeating one), validation.cc's file list at its top, its group comment,
// includes, Group, kGroupNames, Corpus(), LossOf() and Train(),
// examples/common/training.h (the optimizers and schedules),
// examples/validation/CMakeLists.txt, targets/*.json (each role's format,
// scaling, subnormals and saturation), docs/formats.md's block floating
// point and block-scaled floats, docs/targets.md's table and matrix units,
// and tracker/tracker.h's comment on tap (it fake-quantizes in simulate
// mode). Each planted one was designed from what the hardware does to
// numbers, with only its fp32 training and its simulated truth on
// bf16-accelerator looked at, in trial runs of the check's form (fp32 on
// three seeds, bf16-accelerator on one simulated seed; read through a
// filter that prints only the fp32 runs' losses and accuracies and the
// runs' final loss, accuracy and broken).
//
// All 8 ran without throwing and learned in fp32 on every seed (seeds 11,
// 12, 13): the Tree-LSTM 0.99, 0.99, 0.99 (loss 1.35 to 0.037, 0.075,
// 0.041; the most common class 0.46); the Legendre Memory Unit (MSE on a
// unit-variance signal; the mean: ~1.0) 1.41 to 0.0058, 0.0077, 0.0065; the
// EGNN (MSE on displacements of unit standard deviation; 0: ~1.0) 1.36 to
// 0.045, 0.045, 0.046; the neural cellular automaton 0.91, 0.86, 0.93 (loss
// 1.37 to 0.27, 0.38, 0.23; chance 0.25); the meter's load types 1.0, 1.0,
// 1.0 (1.38 to 0.0094, 0.0075, 0.0069); the BMI categories 0.99, 0.99, 0.99
// (1.42 to 0.089, 0.085, 0.083); the Kendrick series 1.0, 1.0, 1.0 (1.38 to
// 0.039, 0.034, 0.031); the star classes 1.0, 1.0, 1.0 (1.40 to 0.038,
// 0.032, 0.036). Each fp32 run takes well under a minute (the two slowest,
// the automaton and the EGNN: their 6 fp32 and 2 simulated runs in 155 s).
// Changed after the first trial run: two healthy programs, neither a
// planted one. The EGNN first moved positions by the raw (x_i - x_j) times
// an unbounded phi_x, with SGD momentum 0.02: seed 11 learned (MSE 0.028),
// seed 12 ended non-finite in fp32. It now moves them by (x_i - x_j) /
// (|x_i - x_j| + 1) times tanh(phi_x) (as the EGNN authors' code bounds it)
// at 0.01; a first try of that took the root of the zero distances on the
// diagonal, whose infinite gradient (times the mask's 0: NaN) left every
// step non-finite (MSE 1.28..2.06, no learning); the root is now of d^2 +
// 1e-6 (then the numbers above). The neural cellular automaton first
// pooled by the mean over the grid with RMSprop 1e-3 for 250 steps on
// N(0, 0.3) noise: accuracy 0.44..0.45 (loss 1.15..1.17); with the max over
// the grid at 2e-3, 0.54..0.77; with N(0, 0.2) noise and 400 steps, the
// numbers above. The other six kept their first run's numbers.
// On bf16-accelerator (one seed) one broke and seven did not: the Kendrick
// series (loss 1.39 against fp32's 0.031..0.039, accuracy 0.27 against
// 1.0), as designed. The meter's load types (1.0 against 1.0), the BMI
// categories (0.99 against 0.99) and the star classes (1.0 against 1.0),
// meant not to break on bf16, did not, nor did the four healthy ones (the
// Tree-LSTM 0.99 against 0.99; the LMU 0.0058 against 0.0058..0.0077; the
// EGNN 0.045 against 0.045; the cellular automaton 0.93 against
// 0.86..0.93, and 0.44 against 0.44 in its first form).
//
// Four train fine in fp32 and, by design, on fp8 hardware, on architectures
// no earlier group uses: a binary Tree-LSTM (N-ary, a forget gate per child)
// over game trees, a Legendre Memory Unit (a fixed Legendre delay system,
// discretised by zero-order hold, beside a learned tanh state), an
// E(n)-equivariant graph network over charged particles and a
// self-classifying neural cellular automaton (fixed Sobel perception, a
// 1x1-conv update rule on a random half of the cells); with optimizer and
// schedule pairs AdamW 3e-3 warm-up+cosine (no norm), Adam 3e-3 step decay
// (LayerNorm), SGD momentum 0.01 warm-up (BatchNorm) and RMSprop 2e-3
// cosine (dropout 0.1); two regressions (MSE) and two classifications.
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: values beyond fp16's range, small
// differences in the low bits of large stored values, values that need more
// than fp8's mantissa, a tensor spanning more decades than a per-tensor
// scale can hold; the practice is new), meant to break on different sets of
// targets:
//   - a plug-in power meter's cycle in volts and milliamps (as loggers store
//     current, integers up to ~23000: fp16 holds them, 1 mA steps below
//     2048, 16 at the peaks), the products v i, v' i, v^2 and i^2 and their
//     means taken in the model: v^2 reaches 1.2e5 and i^2 5e8, v i 8e6, the
//     apparent power sqrt(mean v^2 mean i^2) 2e6, all beyond fp16's 65504
//     (inf, then inf / inf = NaN power factors). bf16 keeps fp32's range
//     and 0.4% (the factors are means of 32 products, their class margins
//     ~0.1); e4m3 and e2m1 under a per-tensor or block scale hold the range
//     and average their rounding over the cycle; block floating point is
//     bf16-like. Meant to break on fp16 only.
//   - a clinic's WHO BMI category from its rows as stored (height in cm,
//     weight in kg), BMI = 1e4 kg / cm^2 taken in the model (cm^2 22500..
//     38000 and kg / cm^2 ~2e-3 are inside fp16's normal range, 0.05%).
//     The categories are 18.5, 25 and 30 apart (20..35% wide); bf16 puts
//     ~0.5% on the BMI (0.13 units: ~1% of the rows cross a line), fp16
//     ~0.1%; e4m3's 3 bits put up to 6% on each of height, weight, the
//     square and the quotient (BMI off by several units), e2m1's 1 bit far
//     more; bfp8 steps by 2 on a 128..256 block holding heights (a 7-bit
//     mantissa against the block's top: +-1 cm and +-1 kg, up to ~4% on a
//     light row's BMI). Meant to break on fp8, fp4
//     and, at the edge, block floating point; not on bf16 or fp16.
//   - a mass spectrometer peak's homologous series from its m/z as the peak
//     list stores it (150..950, fp32 steps of 1.5e-5..6e-5), the Kendrick
//     mass m/z x 14 / 14.01565 and its defect round(KM) - KM (0..0.24, the
//     series 0.08 apart with 0.012 scatter) taken in the model. fp16 steps
//     by 0.125..0.5 at these masses, bf16 by 1..4, e4m3 and e2m1 by far
//     more, block floating point like bf16: the defect is gone. Meant to
//     break on every low-precision target.
//   - a star's temperature class from a catalogue's 5-band magnitudes (r
//     12..24, colours up to ~3 mag), the linear fluxes 10^(-0.4 m) (Pogson)
//     and each band's share of their sum taken in the model. The fluxes are
//     1.6e-5..1e-11: below fp16's smallest normal (6.1e-5; flushed, then 0 /
//     0 = NaN); bf16 has fp32's range; in a batch they span ~6e6 (2^22.5),
//     more than e4m3 holds under one per-tensor scale (~2^17.5 with its
//     subnormals: the faint stars' fluxes flush or keep a bit), while a
//     block of one row (MX's 32, NVFP4's 16, DeepSeek's 128, a bfp8 block)
//     holds one star's 5 fluxes, a few magnitudes apart, under its own
//     scale or exponent (NVFP4 then with e2m1's coarse shares). Meant to
//     break on fp16 and per-tensor-scaled fp8; not on bf16, not
//     (or only at the edge) on the block-scaled ones.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
// Brushes with rule material, none of which changed a design:
// validation.cc's group comment and the comments above Train() (read for
// the registration and the training loop) name rules lp_forward_loss and
// lp_rollout, the probes (every 8 steps) and rollouts (8 steps every 16),
// earlier groups' precision and recall, lp_forward_loss's allowance of 0.3
// and its five probes in a row, lp_rollout's at_once_start_share, and that
// a healthy Transformer-XL once drew lp_rollout on 7 targets;
// corpus_fresh22.h's header names the same rules and settings;
// examples/validation/CMakeLists.txt names them too (log_scale,
// max_gain_share, at_once_start_share) in a test's regex, and that the
// truth's tolerance is checks/rules/rule_support.h's AllowedLoss (not
// opened); printing validation.cc around Group showed the last lines of
// Predict() (the names IsBreakSign and first_by_rule, nothing of their
// logic). Nothing here was designed after that. After the group was final
// and while its truths were being saved, a progress check printed the last
// 300 characters of that run's stderr: four lines "egnn_equivariant_..._
// momentum_warmup <target>: - / fine" (ipu-fp8, mi300-fp8,
// tenstorrent-bfp4, tenstorrent-bfp8), whose "-" may be the prediction
// column; nothing was changed after it, and the stderr was not read again.
// Nothing else (no rule code, description, commit message or prediction)
// was seen.
//
//   for (const Program& p : Fresh23Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH23_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH23_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// Depth-3 game trees: 8 leaf values 0..3 (token ids as floats, [N, 8]); the
// level above the leaves takes the max of each pair, the next the min, the
// root the max. The class is the root's minimax value (0..3; 2 is the most
// common, ~46%).
inline Data MinimaxTrees(int64_t n = 4096) {
  torch::Tensor leaves = torch::randint(0, 4, {n, 8}, torch::kLong);
  torch::Tensor l1 = std::get<0>(leaves.view({n, 4, 2}).max(2));
  torch::Tensor l2 = std::get<0>(l1.view({n, 2, 2}).min(2));
  torch::Tensor root = std::get<0>(l2.max(1));
  return {leaves.to(torch::kFloat), root};
}

// Band-limited signals of 40 steps: 6 sines of random frequency (0.01..0.08
// cycles a step), phase and N(0, 1) amplitude, scaled to unit variance,
// [N, 40]. Targets the signal 2, 6, 10 and 14 steps before the last, [N, 4]:
// a delay line. Computed in double.
inline Data DelayedSignals(int64_t n = 2048, int64_t t = 40) {
  torch::Tensor f = 0.01 + 0.07 * torch::rand({n, 6, 1}, torch::kDouble);
  torch::Tensor ph = 2 * M_PI * torch::rand({n, 6, 1}, torch::kDouble);
  torch::Tensor a = torch::randn({n, 6, 1}, torch::kDouble);
  torch::Tensor steps = torch::arange(t, torch::kDouble).view({1, 1, t});
  torch::Tensor s = (a * torch::sin(2 * M_PI * f * steps + ph)).sum(1) / std::sqrt(3.0);  // [N, T]
  torch::Tensor y = torch::stack({s.select(1, t - 3), s.select(1, t - 7), s.select(1, t - 11), s.select(1, t - 15)}, 1);
  return {s.to(torch::kFloat), y.to(torch::kFloat)};
}

// Systems of 5 charged particles in 3-d: positions N(0, 1), velocities
// N(0, 0.5), charges +-1, unit masses, softened Coulomb forces q_i q_j r /
// (|r|^2 + 0.3)^1.5, 20 semi-implicit Euler steps of 0.025. Inputs [N, 5, 7]
// (position, velocity, charge), targets the displacements after 0.5 time
// units divided by their standard deviation over the set, [N, 15].
// Computed in double.
inline Data ChargedParticles(int64_t n = 2048, int64_t k = 5) {
  torch::Tensor pos = torch::randn({n, k, 3}, torch::kDouble);
  torch::Tensor vel = 0.5 * torch::randn({n, k, 3}, torch::kDouble);
  torch::Tensor q = 2 * torch::randint(0, 2, {n, k, 1}, torch::kDouble) - 1;
  torch::Tensor qq = q.unsqueeze(2) * q.unsqueeze(1);  // [N, i, j, 1]
  torch::Tensor x = pos.clone(), v = vel.clone();
  for (int s = 0; s < 20; ++s) {
    torch::Tensor r = x.unsqueeze(2) - x.unsqueeze(1);  // x_i - x_j
    torch::Tensor d = r.pow(2).sum(-1, true) + 0.3;
    torch::Tensor acc = (qq * r / d.pow(1.5)).sum(2);
    v = v + 0.025 * acc;
    x = x + 0.025 * v;
  }
  torch::Tensor disp = (x - pos).reshape({n, 3 * k});
  disp = disp / disp.std();
  return {torch::cat({pos, vel, q}, 2).to(torch::kFloat), disp.to(torch::kFloat)};
}

// 12x12 images of one of 4 glyphs of 5x5 pixels (a plus, a hollow square, a
// diagonal cross, a T) placed anywhere it fits, amplitude 1, on N(0, 0.2)
// noise, [N, 1, 12, 12].
inline Data Glyphs(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor at = torch::randint(0, 8, {n, 2}, torch::kLong);
  torch::Tensor x = 0.2 * torch::randn({n, 1, 12, 12});
  auto xa = x.accessor<float, 4>();
  auto ya = y.accessor<int64_t, 1>();
  auto aa = at.accessor<int64_t, 2>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t r = 0; r < 5; ++r) {
      for (int64_t c = 0; c < 5; ++c) {
        bool on = false;
        if (ya[i] == 0) on = r == 2 || c == 2;
        if (ya[i] == 1) on = r == 0 || r == 4 || c == 0 || c == 4;
        if (ya[i] == 2) on = r == c || r + c == 4;
        if (ya[i] == 3) on = r == 0 || c == 2;
        if (on) xa[i][0][aa[i][0] + r][aa[i][1] + c] += 1.0f;
      }
    }
  }
  return {x, y};
}

// One 50 Hz cycle of a plug-in power meter's sample buffers: 32 voltage
// samples in volts (230 V rms +-5%, 0.1 V resolution) and 32 current samples
// in milliamps (integers), from a random phase, [N, 64] (volts, then
// milliamps). The class is the load: a resistive heater (current in phase),
// an induction motor (sinusoidal, lagging, power factor 0.65..0.85), a
// switched-mode supply (a capacitor-input rectifier: pulses at the voltage
// peaks above 0.75..0.85 of the peak) or a phase-cut dimmer (conducting from
// 70..120 degrees of each half-cycle); 0.5..8 A rms, so 700..23000 mA at the
// peaks; N(0, 1 V) and N(0, 20 mA) noise. Computed in double.
inline Data MeterCycles(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  torch::Tensor t =
      2 * M_PI * (torch::rand({n, 1}, torch::kDouble) + torch::arange(32, torch::kDouble).view({1, 32}) / 32);
  torch::Tensor vpk = 230 * std::sqrt(2.0) * (0.95 + 0.1 * torch::rand({n, 1}, torch::kDouble));
  torch::Tensor v = vpk * torch::sin(t);
  torch::Tensor lag = torch::acos(0.65 + 0.2 * torch::rand({n, 1}, torch::kDouble));
  torch::Tensor knee = 0.75 + 0.1 * torch::rand({n, 1}, torch::kDouble);
  torch::Tensor fire = (70 + 50 * torch::rand({n, 1}, torch::kDouble)) * (M_PI / 180);
  torch::Tensor resistive = torch::sin(t);
  torch::Tensor motor = torch::sin(t - lag);
  torch::Tensor smps = torch::sign(torch::sin(t)) * torch::relu(torch::sin(t).abs() - knee) / (1 - knee);
  torch::Tensor dimmer = torch::sin(t) * (torch::fmod(t, M_PI) >= fire).to(torch::kDouble);
  torch::Tensor w = torch::where(y == 0, resistive, torch::where(y == 1, motor, torch::where(y == 2, smps, dimmer)));
  torch::Tensor irms = 500 + 7500 * torch::rand({n, 1}, torch::kDouble);  // mA
  torch::Tensor i = w * irms / w.pow(2).mean(1, true).sqrt() + 20 * torch::randn({n, 32}, torch::kDouble);
  v = torch::round((v + torch::randn({n, 32}, torch::kDouble)) * 10) / 10;
  return {torch::cat({v, torch::round(i)}, 1).to(torch::kFloat), y.squeeze(1)};
}

// A clinic's table of adults: height in cm (150..195, to 0.5 cm), weight in
// kg (to 0.1 kg), age in years (18..80), sex (0/1), [N, 4]. The class is
// the WHO category of the body mass index kg / m^2 (BMI uniform over
// 15..40): underweight (< 18.5), normal (< 25), overweight (< 30), obese.
inline Data ClinicRows(int64_t n = 2048) {
  torch::Tensor h = torch::round((150 + 45 * torch::rand({n}, torch::kDouble)) * 2) / 2;
  torch::Tensor bmi = 15 + 25 * torch::rand({n}, torch::kDouble);
  torch::Tensor w = torch::round(bmi * (h / 100).pow(2) * 10) / 10;
  torch::Tensor b = w / (h / 100).pow(2);
  torch::Tensor y = (b >= 18.5).to(torch::kLong) + (b >= 25).to(torch::kLong) + (b >= 30).to(torch::kLong);
  torch::Tensor age = torch::randint(18, 81, {n}, torch::kDouble);
  torch::Tensor sex = torch::randint(0, 2, {n}, torch::kDouble);
  return {torch::stack({h, w, age, sex}, 1).to(torch::kFloat), y};
}

// A high-resolution mass spectrometer's peak list: each peak's m/z (singly
// charged, 150..950) and relative intensity (0.05..1), [N, 2]. The class is
// the homologous series (of 4) the peak belongs to: on the Kendrick scale
// (CH2 = 14 exactly, KM = m/z x 14 / 14.01565) the members of a series share
// a mass defect round(KM) - KM, here 0, 0.08, 0.16 or 0.24 with N(0, 0.012)
// scatter (double bonds, instrument error); the nominal Kendrick mass is
// uniform. Computed in double.
inline Data PeakLists(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor nominal = torch::randint(150, 951, {n}, torch::kDouble);
  torch::Tensor kmd = 0.08 * y.to(torch::kDouble) + 0.012 * torch::randn({n}, torch::kDouble);
  torch::Tensor mz = (nominal - kmd) * (14.01565 / 14.0);
  torch::Tensor intensity = 0.05 + 0.95 * torch::rand({n}, torch::kDouble);
  return {torch::stack({mz, intensity}, 1).to(torch::kFloat), y};
}

// A photometric catalogue's stars: AB-like magnitudes in 5 bands (u, g, r,
// i, z at 355, 469, 617, 748, 893 nm) as the catalogue stores them, [N, 5].
// The class is the temperature class (hot 9000..20000 K, 5600..7500 K,
// 3900..5300 K, cool 2800..3700 K); the colours are a black body's (Planck
// per unit wavelength) plus N(0, 0.04) mag per band, the r magnitude
// uniform over 12..24 (the distance). Computed in double.
inline Data StarMagnitudes(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  torch::Tensor lo = torch::tensor({9000.0, 5600.0, 3900.0, 2800.0}, torch::kDouble).index_select(0, y.squeeze(1));
  torch::Tensor hi = torch::tensor({20000.0, 7500.0, 5300.0, 3700.0}, torch::kDouble).index_select(0, y.squeeze(1));
  torch::Tensor temp = (lo + (hi - lo) * torch::rand({n}, torch::kDouble)).unsqueeze(1);
  torch::Tensor lam = torch::tensor({355.0, 469.0, 617.0, 748.0, 893.0}, torch::kDouble).unsqueeze(0);
  torch::Tensor planck = lam.pow(-5) / torch::expm1(1.4388e7 / (lam * temp));  // hc / k in nm K
  torch::Tensor colour = -2.5 * torch::log10(planck / planck.select(1, 2).unsqueeze(1));
  torch::Tensor r = 12 + 12 * torch::rand({n, 1}, torch::kDouble);
  torch::Tensor mag = r + colour + 0.04 * torch::randn({n, 5}, torch::kDouble);
  return {mag.to(torch::kFloat), y.squeeze(1)};
}

// --- healthy models -------------------------------------------------------------

// Binary Tree-LSTM (Tai et al. 2015, N-ary with N = 2) over the balanced tree
// of the 8 leaves: leaves read Embedding(4, 16) of their value, each
// internal node a learned vector of its level (16) and its two children's
// states through separate weights (input, a forget gate per child, output
// and candidate; 32 units); a linear classifier on the root's state.
struct BinaryTreeLstmImpl : nn::Module {
  BinaryTreeLstmImpl() {
    embed = register_module("embed", nn::Embedding(4, 16));
    level = register_parameter("level", 0.5 * torch::randn({3, 16}));
    wx = register_module("wx", nn::Linear(16, 5 * 32));
    uh = register_module("uh", nn::Linear(nn::LinearOptions(64, 5 * 32).bias(false)));
    head = register_module("head", nn::Linear(32, 4));
  }
  // A level of k nodes: inputs [N, k, 16], children's h and c [N, k, 2, 32].
  std::pair<torch::Tensor, torch::Tensor> Nodes(const torch::Tensor& x, const torch::Tensor& ch,
                                                const torch::Tensor& cc) {
    const int64_t n = x.size(0), k = x.size(1);
    std::vector<torch::Tensor> g = (wx->forward(x) + uh->forward(ch.reshape({n, k, 64}))).chunk(5, -1);
    torch::Tensor c = torch::sigmoid(g[0]) * torch::tanh(g[4]) + torch::sigmoid(g[1]) * cc.select(2, 0) +
                      torch::sigmoid(g[2]) * cc.select(2, 1);
    return {torch::sigmoid(g[3]) * torch::tanh(c), c};
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 8] leaf values
    const int64_t n = x.size(0);
    torch::Tensor e = Tap("tree.leaves", embed->forward(x.to(torch::kLong)), "Embedding");
    torch::Tensor none = torch::zeros({n, 8, 2, 32}, e.options());
    auto [h, c] = Nodes(e, none, none);
    h = Tap("tree.level0", h, "TreeLSTM");
    for (int64_t l = 0; l < 3; ++l) {
      const int64_t k = h.size(1) / 2;
      std::tie(h, c) = Nodes(level[l].expand({n, k, 16}), h.reshape({n, k, 2, 32}), c.reshape({n, k, 2, 32}));
      h = Tap("tree.level" + std::to_string(l + 1), h, "TreeLSTM");
    }
    return head->forward(h.squeeze(1));
  }
  nn::Embedding embed{nullptr};
  nn::Linear wx{nullptr}, uh{nullptr}, head{nullptr};
  torch::Tensor level;
};
TORCH_MODULE(BinaryTreeLstm);

// The Legendre delay system of order d over a window of theta steps (Voelker
// et al. 2019), discretised by zero-order hold with a step of 1 (the matrix
// exponential of [[A, B], [0, 0]]): {A_d [d, d], B_d [d]}, double.
inline std::pair<torch::Tensor, torch::Tensor> LegendreDelay(int64_t d, double theta) {
  torch::Tensor m = torch::zeros({d + 1, d + 1}, torch::kDouble);
  auto ma = m.accessor<double, 2>();
  for (int64_t i = 0; i < d; ++i) {
    for (int64_t j = 0; j < d; ++j) ma[i][j] = (2 * i + 1) / theta * (i < j || (i - j + 1) % 2 ? -1.0 : 1.0);
    ma[i][d] = (2 * i + 1) / theta * (i % 2 ? -1.0 : 1.0);
  }
  torch::Tensor e = torch::matrix_exp(m);
  return {e.slice(0, 0, d).slice(1, 0, d).clone(), e.slice(0, 0, d).select(1, d).clone()};
}

// Legendre Memory Unit: u_t = e . [x_t, h_(t-1)], the memory m_t = A_d
// m_(t-1) + B_d u_t (order 8, window 16 steps, fixed), h_t = tanh(W [x_t,
// h_(t-1), m_t]) (32 units); LayerNorm of the last h, a linear read-out of
// the 4 delayed values.
struct LmuImpl : nn::Module {
  LmuImpl() {
    auto [ad, bd] = LegendreDelay(8, 16.0);
    a_t = register_buffer("a_t", ad.t().contiguous().to(torch::kFloat));
    b = register_buffer("b", bd.unsqueeze(0).to(torch::kFloat));
    enc = register_module("enc", nn::Linear(1 + 32, 1));
    cell = register_module("cell", nn::Linear(1 + 32 + 8, 32));
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({32})));
    head = register_module("head", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, T]
    const int64_t n = x.size(0), t = x.size(1);
    torch::Tensor h = torch::zeros({n, 32}, x.options()), m = torch::zeros({n, 8}, x.options());
    std::vector<torch::Tensor> ms;
    for (int64_t s = 0; s < t; ++s) {
      torch::Tensor xs = x.slice(1, s, s + 1);
      torch::Tensor u = enc->forward(torch::cat({xs, h}, 1));
      m = m.matmul(a_t) + u * b;
      h = torch::tanh(cell->forward(torch::cat({xs, h, m}, 1)));
      ms.push_back(m);
    }
    Tap("lmu.memory", torch::stack(ms, 1), "LMU");
    h = Tap("lmu.hidden", h, "Tanh");
    return head->forward(Tap("lmu.norm", ln->forward(h), "LayerNorm"));
  }
  torch::Tensor a_t, b;
  nn::Linear enc{nullptr}, cell{nullptr}, head{nullptr};
  nn::LayerNorm ln{nullptr};
};
TORCH_MODULE(Lmu);

// E(n)-equivariant graph network (Satorras et al. 2021, with velocities):
// node features from the charge and the speed (Linear 2-32, BatchNorm), 3
// layers on the complete graph of 5 particles: messages phi_e(h_i, h_j,
// |x_i - x_j|^2, q_i q_j) (MLP 66-32-32 SiLU), positions moved by phi_v(h_i)
// v_i plus the mean of (x_i - x_j) / (|x_i - x_j| + 1) tanh(phi_x(m_ij)) (the
// bounded update of the EGNN authors' code), features updated residually
// by phi_h(h_i, sum_j m_ij) (Linear, BatchNorm, SiLU, Linear); the output is
// the final positions minus the first (equivariant), [N, 15].
struct EgnnImpl : nn::Module {
  static constexpr int64_t kH = 32, kLayers = 3;
  EgnnImpl() {
    embed = register_module("embed", nn::Linear(2, kH));
    bn0 = register_module("bn0", nn::BatchNorm1d(kH));
    for (int64_t l = 0; l < kLayers; ++l) {
      const std::string s = std::to_string(l);
      e1.push_back(register_module("e1_" + s, nn::Linear(2 * kH + 2, kH)));
      e2.push_back(register_module("e2_" + s, nn::Linear(kH, kH)));
      x1.push_back(register_module("x1_" + s, nn::Linear(kH, kH)));
      x2.push_back(register_module("x2_" + s, nn::Linear(kH, 1)));
      pv.push_back(register_module("v_" + s, nn::Linear(kH, 1)));
      h1.push_back(register_module("h1_" + s, nn::Linear(2 * kH, kH)));
      bn.push_back(register_module("bn_" + s, nn::BatchNorm1d(kH)));
      h2.push_back(register_module("h2_" + s, nn::Linear(kH, kH)));
      torch::NoGradGuard g;
      x2.back()->weight.mul_(0.1);
    }
  }
  torch::Tensor forward(const torch::Tensor& in) {  // [N, K, 7]
    const int64_t n = in.size(0), k = in.size(1);
    torch::Tensor pos0 = in.slice(2, 0, 3), vel = in.slice(2, 3, 6), q = in.slice(2, 6, 7);
    torch::Tensor h = embed->forward(torch::cat({q, vel.pow(2).sum(-1, true).sqrt()}, 2));
    h = Tap("egnn.embed", bn0->forward(h.reshape({n * k, kH})).reshape({n, k, kH}), "BatchNorm");
    torch::Tensor mask = (1 - torch::eye(k, in.options())).view({1, k, k, 1});
    torch::Tensor qq = q.unsqueeze(2) * q.unsqueeze(1);
    torch::Tensor pos = pos0;
    for (int64_t l = 0; l < kLayers; ++l) {
      const std::string s = std::to_string(l);
      torch::Tensor r = pos.unsqueeze(2) - pos.unsqueeze(1);  // x_i - x_j
      torch::Tensor d2 = Tap("egnn.sq_dist" + s, r.pow(2).sum(-1, true), "Sum");
      torch::Tensor hi = h.unsqueeze(2).expand({n, k, k, kH}), hj = h.unsqueeze(1).expand({n, k, k, kH});
      torch::Tensor m = torch::silu(e2[l]->forward(torch::silu(e1[l]->forward(torch::cat({hi, hj, d2, qq}, 3)))));
      m = Tap("egnn.messages" + s, m * mask, "SiLU");
      torch::Tensor w = torch::tanh(x2[l]->forward(torch::silu(x1[l]->forward(m))));
      torch::Tensor dir = r / ((d2 + 1e-6).sqrt() + 1);
      pos = pos + pv[l]->forward(h) * vel + (dir * w * mask).sum(2) / double(k - 1);
      torch::Tensor u = bn[l]->forward(h1[l]->forward(torch::cat({h, m.sum(2)}, 2)).reshape({n * k, kH}));
      h = Tap("egnn.h" + s, h + h2[l]->forward(torch::silu(u)).reshape({n, k, kH}), "Add");
    }
    return (pos - pos0).reshape({n, 3 * k});
  }
  nn::Linear embed{nullptr};
  nn::BatchNorm1d bn0{nullptr};
  std::vector<nn::Linear> e1, e2, x1, x2, pv, h1, h2;
  std::vector<nn::BatchNorm1d> bn;
};
TORCH_MODULE(Egnn);

// Neural cellular automaton (Mordvintsev et al. 2020, self-classifying): 16
// channels per cell, channel 0 the pixel (fixed), the rest starting at 0; 8
// steps of perception (each channel's identity and Sobel x, y: a fixed
// depthwise 3x3 convolution, 48 channels), an update rule of 1x1
// convolutions 48-64 ReLU 64-15 (the last zero-initialised), applied to a
// random half of the cells each step; the max of the 15 free channels over
// the grid, dropout 0.1, a linear classifier.
struct NeuralCaImpl : nn::Module {
  NeuralCaImpl() {
    torch::Tensor id = torch::zeros({3, 3});
    id[1][1] = 1;
    torch::Tensor sx = torch::tensor({-1.0f, 0.0f, 1.0f, -2.0f, 0.0f, 2.0f, -1.0f, 0.0f, 1.0f}).view({3, 3}) / 8;
    percept = register_buffer("percept", torch::stack({id, sx, sx.t()}).repeat({16, 1, 1}).unsqueeze(1));
    fc1 = register_module("fc1", nn::Conv2d(nn::Conv2dOptions(48, 64, 1)));
    fc2 = register_module("fc2", nn::Conv2d(nn::Conv2dOptions(64, 15, 1)));
    drop = register_module("drop", nn::Dropout(0.1));
    head = register_module("head", nn::Linear(15, 4));
    torch::NoGradGuard g;
    fc2->weight.zero_();
    fc2->bias.zero_();
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 1, 12, 12]
    const int64_t n = x.size(0);
    torch::Tensor s = torch::cat({x, torch::zeros({n, 15, x.size(2), x.size(3)}, x.options())}, 1);
    torch::Tensor fixed = torch::zeros({n, 1, x.size(2), x.size(3)}, x.options());
    for (int64_t step = 0; step < 8; ++step) {
      const std::string st = std::to_string(step);
      torch::Tensor p = Tap("nca.perception" + st,
                            nn::functional::conv2d(s, percept, nn::functional::Conv2dFuncOptions().padding(1).groups(16)),
                            "Conv2d");
      torch::Tensor d = fc2->forward(Tap("nca.hidden" + st, torch::relu(fc1->forward(p)), "ReLU"));
      torch::Tensor fire = (torch::rand({n, 1, x.size(2), x.size(3)}, x.options()) < 0.5).to(x.dtype());
      s = s + torch::cat({fixed, d * fire}, 1);
    }
    torch::Tensor pooled = Tap("nca.pooled", s.slice(1, 1, 16).amax({2, 3}), "Max");
    return head->forward(drop->forward(pooled));
  }
  torch::Tensor percept;
  nn::Conv2d fc1{nullptr}, fc2{nullptr};
  nn::Dropout drop{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(NeuralCa);

// --- planted models -------------------------------------------------------------

// MLP 4-64-64-4 ReLU on features a meter computes, over the classes.
inline TrackedSequential FeatureMlp(int64_t in, const std::string& act = "relu") {
  return Mlp({in, 64, 4, 2, act});
}

// Load type from the meter's buffers ("meter.samples", stored as read:
// volts and milliamps): the sample products v i (real power), v' i (v a
// quarter cycle earlier: reactive power), v^2 and i^2 taken in the model
// ("meter.v_times_i", ...: stored), their means over the cycle
// ("meter.means"), the apparent power sqrt(mean v^2 mean i^2)
// ("meter.apparent_power", in V mA); features the power factor P / S, Q / S,
// the current's crest factor max |i| / rms i and its rms in A; MLP 4-64-64-4.
struct MeterLoadNetImpl : nn::Module {
  MeterLoadNetImpl() { mlp = register_module("mlp", FeatureMlp(4)); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 64]
    torch::Tensor b = Tap("meter.samples", x, "Input");
    torch::Tensor v = b.slice(1, 0, 32), i = b.slice(1, 32, 64);
    torch::Tensor vq = torch::roll(v, {8}, {1});
    torch::Tensor vi = Tap("meter.v_times_i", v * i, "Mul"), vqi = Tap("meter.vq_times_i", vq * i, "Mul");
    torch::Tensor vv = Tap("meter.v_squared", v * v, "Mul"), ii = Tap("meter.i_squared", i * i, "Mul");
    torch::Tensor means =
        Tap("meter.means", torch::stack({vi.mean(1), vqi.mean(1), vv.mean(1), ii.mean(1)}, 1), "Mean");
    torch::Tensor s =
        Tap("meter.apparent_power", (means.select(1, 2) * means.select(1, 3)).sqrt().unsqueeze(1), "Sqrt");
    torch::Tensor irms = means.select(1, 3).sqrt().unsqueeze(1);
    torch::Tensor crest = std::get<0>(i.abs().max(1, true)) / irms;
    torch::Tensor f = torch::cat({means.slice(1, 0, 2) / s, crest - 2, irms / 4000 - 1}, 1);
    return mlp->forward(f);
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(MeterLoadNet);

// BMI category from the clinic's row ("clinic.row", stored as read: cm, kg,
// years, sex): height squared in cm^2 ("clinic.height_cm2"), kg per cm^2
// ("clinic.kg_per_cm2") and BMI = 1e4 kg / cm^2 ("clinic.bmi") taken in the
// model, stored; features (BMI - 25) / 5, (age - 50) / 20, sex - 0.5; MLP
// 3-64-64-4 ReLU.
struct ClinicBmiNetImpl : nn::Module {
  ClinicBmiNetImpl() { mlp = register_module("mlp", FeatureMlp(3)); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 4]
    torch::Tensor r = Tap("clinic.row", x, "Input");
    torch::Tensor h = r.slice(1, 0, 1), w = r.slice(1, 1, 2);
    torch::Tensor h2 = Tap("clinic.height_cm2", h * h, "Mul");
    torch::Tensor kpc = Tap("clinic.kg_per_cm2", w / h2, "Div");
    torch::Tensor bmi = Tap("clinic.bmi", kpc * 1e4, "Mul");
    torch::Tensor f = torch::cat({(bmi - 25) / 5, (r.slice(1, 2, 3) - 50) / 20, r.slice(1, 3, 4) - 0.5}, 1);
    return mlp->forward(f);
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(ClinicBmiNet);

// Homologous series from a peak ("ms.peak", stored as read: m/z, relative
// intensity): the Kendrick mass m/z x 14 / 14.01565 ("ms.kendrick_mass") and
// its defect round(KM) - KM ("ms.kendrick_mass_defect") taken in the model,
// stored; features 10 KMD - 1, m/z / 500 - 1 and the intensity; MLP
// 3-64-64-4 ReLU.
struct KendrickSeriesNetImpl : nn::Module {
  KendrickSeriesNetImpl() { mlp = register_module("mlp", FeatureMlp(3)); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 2]
    torch::Tensor p = Tap("ms.peak", x, "Input");
    torch::Tensor mz = p.slice(1, 0, 1);
    torch::Tensor km = Tap("ms.kendrick_mass", mz * (14.0 / 14.01565), "Mul");
    torch::Tensor kmd = Tap("ms.kendrick_mass_defect", torch::round(km) - km, "Sub");
    return mlp->forward(torch::cat({kmd * 10 - 1, mz / 500 - 1, p.slice(1, 1, 2)}, 1));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(KendrickSeriesNet);

// Temperature class from the catalogue's magnitudes ("phot.magnitudes",
// stored as read): linear fluxes 10^(-0.4 m) (Pogson; "phot.flux"), their
// sum over the bands ("phot.total_flux") and each band's share of it
// ("phot.band_fractions") taken in the model, stored; features 5 x share - 1;
// MLP 5-64-64-4 GELU.
struct PogsonFluxNetImpl : nn::Module {
  PogsonFluxNetImpl() { mlp = register_module("mlp", FeatureMlp(5, "gelu")); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 5]
    torch::Tensor m = Tap("phot.magnitudes", x, "Input");
    torch::Tensor flux = Tap("phot.flux", torch::pow(10.0, -0.4 * m), "Pow");
    torch::Tensor total = Tap("phot.total_flux", flux.sum(1, true), "Sum");
    torch::Tensor share = Tap("phot.band_fractions", flux / total, "Div");
    return mlp->forward(share * 5 - 1);
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(PogsonFluxNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh23Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<BinaryTreeLstm>("binary_tree_lstm_minimax_game_trees_adamw_warmup_cosine", "binary Tree-LSTM (N-ary, "
                           "separate weights and forget gates per child, 32 units) over the balanced tree of 8 "
                           "leaves, leaf values embedded, a learned input per level; the minimax value of a "
                           "depth-3 max-min-max game tree, AdamW 3e-3 warm-up+cosine",
                           std::function<BinaryTreeLstm()>([] { return BinaryTreeLstm(); }),
                           [] { return MinimaxTrees(); }),
      "adamw", 3e-3, "warmup_cosine", 300);
  add(Make<Lmu>("legendre_memory_unit_delay_line_taps_adam_step", "Legendre Memory Unit: a fixed Legendre delay "
                "memory (order 8, window 16 steps, zero-order hold) fed a learned encoding, a tanh hidden state "
                "of 32, LayerNorm, linear read-out; the signal 2, 6, 10, 14 steps back at the end of 40-step "
                "band-limited signals, MSE, Adam 3e-3 step decay",
                std::function<Lmu()>([] { return Lmu(); }), [] { return DelayedSignals(); }),
      "adam", 3e-3, "step", 300)->loss = Loss::kMse;
  add(Make<Egnn>("egnn_equivariant_charged_particles_displacement_momentum_warmup", "E(n)-equivariant graph network "
                 "(3 layers on the complete graph, messages from features, squared distances and charge products, "
                 "positions moved along velocities and bounded relative directions, BatchNorm in the feature "
                 "updates); the displacements of 5 charged particles after 0.5 time units, MSE, SGD momentum 0.01 "
                 "warm-up",
                 std::function<Egnn()>([] { return Egnn(); }), [] { return ChargedParticles(); }),
      "momentum", 0.01, "warmup", 300)->loss = Loss::kMse;
  add(Make<NeuralCa>("neural_cellular_automaton_self_classifying_glyphs_rmsprop_cosine", "self-classifying neural "
                     "cellular automaton: 16 channels per cell, 8 steps of fixed identity+Sobel perception and a "
                     "1x1-conv update rule (48-64-15, zero-initialised) on a random half of the cells, max over "
                     "the grid, dropout 0.1; 4 glyphs placed anywhere in 12x12 noise, RMSprop 2e-3 cosine",
                     std::function<NeuralCa()>([] { return NeuralCa(); }), [] { return Glyphs(); }),
      "rmsprop", 2e-3, "cosine", 400);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  Program* p = add(Make<MeterLoadNet>("load_type_from_meter_volts_times_milliamps_products", "load type (heater, "
                                      "motor, switched-mode supply, dimmer) from a power meter's 50 Hz cycle "
                                      "stored as read, 32 samples in volts and 32 in milliamps, the products v i, "
                                      "v' i, v^2, i^2 and their means taken in the model, power and crest factors, "
                                      "MLP 4-64-64-4 ReLU, Adam 2e-3 warm-up",
                                      std::function<MeterLoadNet()>([] { return MeterLoadNet(); }),
                                      [] { return MeterCycles(); }),
                   "adam", 2e-3, "warmup", 200);
  p->planted = true;
  p = add(Make<ClinicBmiNet>("bmi_category_from_stored_height_cm_weight_kg", "WHO BMI category from a clinic's "
                             "rows stored as read (height in cm, weight in kg, age, sex), BMI = 1e4 kg / cm^2 "
                             "taken in the model, MLP 3-64-64-4 ReLU, AdamW 3e-3 cosine",
                             std::function<ClinicBmiNet()>([] { return ClinicBmiNet(); }),
                             [] { return ClinicRows(); }),
          "adamw", 3e-3, "cosine", 250);
  p->planted = true;
  p = add(Make<KendrickSeriesNet>("homologous_series_from_kendrick_mass_defect_of_stored_mz", "homologous series "
                                  "(of 4) of a mass spectrometer's peak from its m/z (150..950) stored as read, the "
                                  "Kendrick mass (CH2 = 14) and its defect round(KM) - KM taken in the model, "
                                  "MLP 3-64-64-4 ReLU, RMSprop 1e-3 step decay",
                                  std::function<KendrickSeriesNet()>([] { return KendrickSeriesNet(); }),
                                  [] { return PeakLists(); }),
          "rmsprop", 1e-3, "step", 250);
  p->planted = true;
  p = add(Make<PogsonFluxNet>("star_class_from_catalogue_magnitudes_as_linear_flux_shares", "temperature class "
                              "of a star from 5-band catalogue magnitudes (r 12..24) stored as read, linear fluxes "
                              "10^(-0.4 m) and each band's share of their sum taken in the model, MLP 5-64-64-4 "
                              "GELU, SGD momentum 0.05 warm-up+cosine",
                              std::function<PogsonFluxNet()>([] { return PogsonFluxNet(); }),
                              [] { return StarMagnitudes(); }),
          "momentum", 0.05, "warmup_cosine", 200);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH23_H_
