// The fresh26 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh25 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor
// any prediction was looked at), so that the rules can be measured on
// trainings nobody tuned anything against. What was looked at: corpus.h (its
// top, the data helpers, MlpSpec and Mlp's head, Program, Make,
// ProgramAdder and Programs()' list), corpus_fresh25.h whole (for the
// conventions), the names of every earlier program (grepped from the corpus
// headers' Make<...>("name" calls), the corpus headers grepped for the
// words of the architectures and practices considered here (file names
// only, and four hit lines: the names and first description words of
// drifting_input_1e4_layernorm, mse_mean_384_outputs_adam,
// photon_energies_in_joules and glitched_first_batch_x1e4_layernorm),
// `lpsim_validation --list`'s last lines and its usage line, validation.cc's
// top comment (the architecture list, the steps, the usage and the group
// comment), its includes, GroupSource, kGroupSources, Corpus(), LossOf()
// and Train(), examples/common/training.h (the optimizers and schedules),
// examples/validation/CMakeLists.txt (its header, VALIDATION_GROUP_FIRSTS
// and the tests after it), targets/*.json (each role's format, scaling,
// subnormals and saturation), docs/formats.md whole, docs/targets.md's
// introduction, table and matrix units, and tracker/tracker.h's comments on
// simulate mode, probes, tap and TrackedSequential. Each planted one was
// designed from what the hardware does to numbers (the formats' arithmetic
// worked in Python, by hand-written roundings to bf16, fp16 with FTZ, e4m3
// under a per-tensor or a delayed scale, MX and bfp8, on a Python draw of
// the data's generator: not the same random numbers as LibTorch's, the
// same distributions), with only its fp32 training and its simulated truth
// on bf16-accelerator looked at, in two trial runs of the check's form
// (fp32 on three seeds, bf16-accelerator on one simulated seed; read
// through a filter that prints only the fp32 runs' losses and accuracies
// and the runs' final loss, accuracy and broken), and the simulated finals
// of the truths run (every target, through the same filter).
//
// All 8 ran without throwing and learned in fp32 on every seed (seeds 11,
// 12, 13): the Performer 0.92, 0.91, 0.94 (loss 1.58 to 0.200, 0.234,
// 0.187; chance 0.25); the Res2Net 0.997, 0.995, 0.989 (1.67 to 0.024,
// 0.022, 0.046); the NTM read head 1.0, 1.0, 1.0 (1.40 to 0.708, 0.709,
// 0.732: right on every query of the last batches, with little margin); the
// N-BEATS (MSE of 16-step forecasts; the first step's 1.38) 0.0147,
// 0.0161, 0.0127; the dusk spectra 0.94, 0.94, 0.94 (1.67 to 0.189, 0.157,
// 0.193); the RMSSD bands 0.94, 0.94, 0.94 (1.43 to 0.185, 0.189, 0.190);
// the irradiation bands 0.97, 0.96, 0.97 (1.37 to 0.169, 0.190, 0.175); the
// grid events 0.90, 0.88, 0.91 (1.42 to 0.364, 0.387, 0.418). The first
// trial of all 8 (24 fp32 runs with their probes and rollouts, 8 simulated
// ones) took 97 s (80 s of CPU) beside another build; the second 104 s
// (62 s of CPU) under a heavier one.
// Changed after the first trial run (all 8 in their first forms):
// - the Performer first cut the waveform into 32 patches of 4 samples:
//   0.81, 0.79, 0.83 (loss 0.36, 0.45, 0.36; bf16 0.81, not broken), and
//   it and the Res2Net each took ~40 s of one run's ~100; with 16 patches
//   of 8 the numbers above.
// - the Res2Net first trained 300 steps (1.0 on every seed, loss 0.0077,
//   0.0074, 0.0143; bf16 1.0, not broken): 200 now, to keep the group near
//   a minute.
// - the N-BEATS first trained 300 steps (0.0123, 0.0132, 0.0122; bf16
//   0.0123, not broken; flat from step ~240): 250 now, for the same reason.
// - the other five kept their first run's numbers.
// On bf16-accelerator (one seed) one broke and seven did not: the grid
// events (accuracy 0.41 and loss 1.17 against fp32's 0.88..0.91 and
// 0.36..0.42), as designed. The dusk spectra (0.93 against 0.94..0.94),
// the RMSSD bands (0.92 against 0.94..0.94) and the irradiation bands
// (0.97 against 0.96..0.97), meant not to break on bf16, did not, nor did
// the four healthy ones (the Performer 0.92 against 0.91..0.94; the
// Res2Net 0.997 against 0.989..0.997; the NTM read head 1.0, loss 0.707,
// against 1.0 and 0.708..0.732; the N-BEATS 0.0146 against 0.0127..0.0161).
// The truths run (all 8 on the 12 training targets, three simulated seeds
// each; 632 s wall beside another build), read through the same filter,
// showed: the dusk spectra broken on fp16-npu-ftz, h100-fp8-delayed,
// mi300-fp8 and gaudi2-fp8 (accuracy 0.24..0.25, loss 1.39: chance) and on
// b200-nvfp4 (0.84), not elsewhere (0.90..0.95); the RMSSD bands broken on
// the eight e4m3 and e2m1 targets (0.49..0.67) and on both Tenstorrent
// targets (0.86), not on bf16 (0.92) or fp16-npu-ftz (0.94); the
// irradiation bands broken on fp16-npu-ftz (non-finite) and b200-nvfp4
// (0.88), not elsewhere (0.95..0.97); the grid events broken on every
// target but fp16-npu-ftz (0.89; elsewhere 0.27..0.71). Of the healthy
// ones, the Performer broke on fp16-npu-ftz (0.60) and the N-BEATS on
// b200-nvfp4 (MSE 0.064 against 0.013..0.016), neither by design; the
// Res2Net and the NTM read head broke nowhere. Nothing changed after it.
//
// Four train fine in fp32 and, by design, on fp8 hardware, on architectures
// no earlier group uses (fresh16 has N-BEATS's generic configuration, not
// the interpretable one): a Performer (FAVOR+: softmax attention through
// positive orthogonal random features), a Res2Net (hierarchical residual
// 3x3 convolutions between channel groups inside a block), a Neural Turing
// Machine's read head (content addressing, a learned circular shift,
// sharpening) and an interpretable N-BEATS (trend and seasonality stacks
// with fixed polynomial and Fourier bases), with optimizer and schedule
// pairs AdamW 2e-3 warm-up+cosine (LayerNorm), SGD momentum 0.05 step decay
// (BatchNorm), RMSprop 2e-3 cosine (no norm) and Adam 1e-3 warm-up (no
// norm; a regression to a small MSE); three classifications and one
// regression.
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: values below fp16's smallest normal or
// beyond its largest, small differences of large stored values; the
// practice is new), meant to break on different sets of targets, at
// different times and in different ways (the data of two come in time
// order, each batch seen once):
//   - a field spectroradiometer's calibrated radiance (32 bands, W m^-2
//     sr^-1 nm^-1) of vegetation, soil, water or snow recorded from late
//     afternoon into the night, in time order: the light falls by 10^-7.5
//     over the 300 steps (the integration time following it, so the
//     relative noise holds and fp32, which divides each spectrum by its
//     sum in the model, sees the same shapes all session). The first
//     batches' largest radiance is ~0.65 (snow), the darkest bands ~0.01.
//     fp16 with FTZ flushes every stored value below 2^-14: in Python, 1%
//     of the values at step 80, 9% at 100, 35% at 120, 78% at 140, all
//     from ~155 (the normalised spectrum's largest error, against a mean of
//     1: 0.02, 0.30, 1.4, 1.7; all zero: 0 / 1e-30 = 0, the constant
//     prediction). A delayed per-tensor scale keeps the history's largest
//     amax (history 1024 > 300 steps: the first batches'): e4m3fn under
//     448 / 0.65 keeps the shapes to e4m3's own 3 bits (error 0.06) until
//     step ~140, then 0.24 at 160, 1.15 at 180 (24% of the values 0), 54%
//     0 at 200, 99% at 220. A current scale (h100 current, the IPU's, whose
//     exponent bias reaches 2^31, enough to the end), MX, 1x128 tiles,
//     NVFP4's per-tensor scale and bfp8's block exponents follow the light;
//     bf16 keeps fp32's range. Meant to break late: on fp16-npu-ftz from
//     step ~90 (abruptly, chance from ~155), on h100-fp8-delayed, mi300-fp8
//     and gaudi2-fp8 gradually from step ~140; not on the others (NVFP4's
//     1-bit elements, relative to each 16-band block's largest, as they
//     decide).
//   - RR intervals in whole ms as a Holter recorder stores them, 33 a
//     window, the windows of a sleep lab's nights sorted by time since
//     lights-off (mean RR ~640 at the start to ~1160 ms at the end, +-60;
//     in the Python draw, 720 and 1031 on average in the first and last
//     windows, 1410 the largest), the 32 successive differences taken in
//     the model, the class the RMSSD band (below 8, 8..16, 16..32, 32 ms
//     and above; RMSSD log-uniform 3..64; shares 0.33, 0.23, 0.22, 0.22).
//     An exact-threshold classifier on the stored intervals, in Python, in
//     the first, third, fifth and sixth sixth of the night: fp16 (0.5 ms
//     steps below 1024, 1 ms above) 1.0 throughout; bf16 (4 ms steps below
//     1024, 8 above) 0.974, 0.979, 0.960, 0.955; bfp8 (7-bit magnitudes
//     under the 16-block's exponent: 8 ms steps, 16 above 1024) 0.926,
//     0.948, 0.871, 0.792; e4m3 under a per-tensor scale (the batch's
//     largest interval to 448: ~1000 ms to 448, 32-unit steps, ~70 ms)
//     0.56, 0.51, 0.52, 0.55; MX's power-of-two scale 0.56, 0.53, 0.55,
//     0.55 (every difference 0 or a grid step: the lowest band's share and
//     little more). Meant to break on every e4m3 or e2m1 target from the
//     first step (abruptly); on tenstorrent-bfp8 and -bfp4 (bfp8
//     activations) gradually, worse as the intervals pass 1024 ms late in
//     the night; not on fp16; bf16 near the line late.
//   - a PV logger's 24 hourly global irradiances in whole W/m^2 (latitude
//     48 N, any day of the year, clear to overcast; the largest ~900), the
//     hour's irradiation G x 3600 s in J/m^2 and the day's sum in MJ/m^2
//     (/ 1e6) taken in the model as solar-engineering code writes it; the
//     class the day's band (below 6, 6..12, 12..20, 20 MJ/m^2 and above;
//     shares in Python 0.39, 0.27, 0.21, 0.14). Every hour above 18.2
//     W/m^2 is beyond fp16's 65504 in J/m^2 (up to ~3.2e6): Inf, the day
//     Inf, the loss NaN from the first step. The other formats hold the
//     product (e4m3 under a per-tensor scale: the batch's largest hour to
//     448, 3 bits an hour): an exact-threshold classifier, in Python: bf16
//     0.999, bfp8 0.999, e4m3 0.992. Meant to break on fp16-npu-ftz alone
//     (non-finite from step 0); NVFP4's 1-bit hourly values as they decide;
//     on the delayed targets the first step's unscaled cast saturates every
//     hour (448 or 240), one step.
//   - a phasor measurement unit's frequency reports in Hz as the archive
//     stores them (10 a second, 1 mHz resolution, around 50 Hz), 64-report
//     windows, the deviation from 50 Hz taken in the model (times 20); the
//     class the event: steady (an offset N(0, 0.02) Hz and a random walk),
//     a generator trip (a drop of 0.05..0.25 Hz, half recovered), a load
//     rejection (the same upwards), an inter-area oscillation (0.01..0.05
//     Hz). bf16 steps by 0.25 Hz in [32, 64): every deviation within
//     +-0.125 Hz reads 0 (the steady windows, the oscillations, the offsets
//     and the shallower trips and rejections alike; the deeper ones one
//     step). fp16 steps by 2^-5 = 0.031 Hz (an oscillation of 0.01..0.05 Hz
//     at most a step or two either way). e4m3 under any scale keeps 3 bits
//     of 50 (steps of ~3.6 Hz at a per-tensor scale, ~50.3 -> 448; 4 Hz
//     under MX's 2^-3, 50 -> 400), bfp8 7 (the exponent of 50 is 5: 0.5
//     Hz), NVFP4 1.
//     Meant to break on every target (bf16 and the e4m3, e2m1 and bfp
//     targets from the first step, abruptly), fp16-npu-ftz near the line.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
// Brushes with rule material, none of which changed a design:
// validation.cc's top comment and group comment (read for the
// registration) name the rules lp_forward_loss and lp_rollout, that a
// prediction is the first lp_* warning or error the rules raise on the
// stored run (report/stored_check.h, not opened), the probes (every 8
// steps) and rollouts (8 steps every 16), the flags --rules, --no-probe,
// --probe-every and --rollout, the truth's definition (kLossTolerance of
// fp32's improvement on a linear or log scale, the tighter;
// kAccuracyTolerance), lp_rollout's stalls, lp_forward_loss's allowance of
// 0.3 and its five probes in a row, lp_rollout's at_once_start_share and
// at_once_lag_share 0.8, earlier groups' precision, recall and median
// leads (fresh25's 0.89, 0.81 and -2: "an index's returns and an odometer
// difference break gradually and are called late, raw digitizer counts
// missed on six targets where they break at step ~90"). Printing
// validation.cc from line 250 to Train()'s end showed the last lines
// before LossOf(): g_rollout 8 and g_rollout_every 16 ("lp_rollout
// judges"); a grep of validation.cc for final_loss and final_accuracy
// showed six lines that read and write those JSON fields. corpus_fresh25.h's
// header (read whole, as asked) names the same rules and settings, kSeed
// 11, g_rules, checks/rules/rule_support.h's AllowedLoss (not opened),
// lp_forward_loss's allowance 0.25 as it was, log_scale, max_gain_share
// 0.25 and the accuracy tolerance 0.05. CMakeLists.txt's comments name
// AllowedLoss and testdata/linear_rules.json's lp_forward_loss and
// lp_rollout settings (not opened). tracker/tracker.h's probe comments
// name lp_forward_loss and lp_rollout as the probes' and rollouts'
// judges. `git log --oneline -2` and `git log --oneline -5 --
// examples/validation/` at the start showed the last commit messages
// (fresh25's truths merged: "fresh25 judged once, unseen, with the rules as
// landed (25/3/6/62: precision 0.89, recall 0.81, median lead -2)";
// linear_rules.json's at_once_lag_share 1; the one-line group
// registration; fresh24's truths merged). Nothing else (no rule code,
// description or prediction) was seen.
//
//   for (const Program& p : Fresh26Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH26_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH26_H_

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

// 128-sample waveforms of one of four shapes (the class: sine, square,
// triangle, sawtooth), 2..5 cycles per window, a random phase, amplitude
// 0.5..1.5, an offset N(0, 0.2), in N(0, 0.25) noise, [N, 128].
inline Data WaveformShapes(int64_t n = 2048, int64_t t = 128) {
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  torch::Tensor cycles = 2 + 3 * torch::rand({n, 1}), ph = torch::rand({n, 1});
  torch::Tensor amp = 0.5 + torch::rand({n, 1}), offset = 0.2 * torch::randn({n, 1});
  torch::Tensor u = cycles * torch::arange(t, torch::kFloat).view({1, t}) / double(t) + ph;  // in cycles
  torch::Tensor frac = u - torch::floor(u);
  torch::Tensor sine = torch::sin(2 * M_PI * u);
  torch::Tensor square = torch::where(frac < 0.5, torch::ones_like(frac), -torch::ones_like(frac));
  torch::Tensor triangle = 4 * (frac - 0.5).abs() - 1;
  torch::Tensor saw = 2 * frac - 1;
  torch::Tensor w = torch::where(y == 0, sine, torch::where(y == 1, square, torch::where(y == 2, triangle, saw)));
  return {amp * w + offset + 0.25 * torch::randn({n, t}), y.squeeze(1)};
}

// 16x16 images of one shape outline (the class: a ring, a square outline, a
// plus, an X), half-size 3..6 pixels, centred within +-2 pixels of the
// middle, lines ~1 pixel wide (a Gaussian of the distance to the shape,
// sigma 0.6), contrast 0.7..1.3, in N(0, 0.3) noise, [N, 1, 16, 16].
inline Data ShapeOutlines(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n, 1, 1}, torch::kLong);
  torch::Tensor r = 3 + 3 * torch::rand({n, 1, 1});
  torch::Tensor cx = 7.5 + 4 * (torch::rand({n, 1, 1}) - 0.5), cy = 7.5 + 4 * (torch::rand({n, 1, 1}) - 0.5);
  torch::Tensor g = torch::arange(16, torch::kFloat);
  torch::Tensor dx = (g.view({1, 1, 16}) - cx).abs(), dy = (g.view({1, 16, 1}) - cy).abs();
  torch::Tensor ring = ((dx.pow(2) + dy.pow(2)).sqrt() - r).abs();
  torch::Tensor square = (torch::max(dx, dy) - r).abs();
  torch::Tensor plus = torch::min(dx + torch::relu(dy - r), dy + torch::relu(dx - r));
  torch::Tensor cross = (dx - dy).abs() / std::sqrt(2.0) + torch::relu(torch::max(dx, dy) - r);
  torch::Tensor d = torch::where(y == 0, ring, torch::where(y == 1, square, torch::where(y == 2, plus, cross)));
  torch::Tensor c = 0.7 + 0.6 * torch::rand({n, 1, 1});
  torch::Tensor img = c * torch::exp(-0.5 * (d / 0.6).pow(2)) + 0.3 * torch::randn({n, 16, 16});
  return {img.unsqueeze(1), y.view({n})};
}

// Associative recall of a successor: a memory of 8 slots, each a random
// unit key (12) and its item's label (one-hot of 4), and a query (row 8: a
// slot's key plus N(0, 0.1) per component, the label part 0), [N, 9, 16].
// The class is the label of the slot after the queried one (slot j + 1,
// cyclically).
inline Data SuccessorRecall(int64_t n = 2048) {
  constexpr int64_t kSlots = 8, kKey = 12;
  torch::Tensor keys = torch::randn({n, kSlots, kKey});
  keys = keys / keys.norm(2, 2, true);
  torch::Tensor labels = torch::randint(0, 4, {n, kSlots}, torch::kLong);
  torch::Tensor j = torch::randint(0, kSlots, {n}, torch::kLong);
  torch::Tensor rows = torch::arange(n, torch::kLong);
  torch::Tensor query = keys.index({rows, j}) + 0.1 * torch::randn({n, kKey});
  torch::Tensor mem = torch::cat({keys, torch::one_hot(labels, 4).to(torch::kFloat)}, 2);
  torch::Tensor q = torch::cat({query, torch::zeros({n, 4})}, 1).unsqueeze(1);
  return {torch::cat({mem, q}, 1), labels.index({rows, (j + 1) % kSlots})};
}

// Series of 64 steps: a cubic trend in tau = t / 64 (coefficients N(0,
// 0.5), N(0, 1), N(0, 0.7), N(0, 0.4)) plus a seasonal cycle of period 8,
// 12, 16 or 24 (first harmonic 0.3..0.8, second 0..0.3, random phases) in
// N(0, 0.05) noise; the first 48 steps are the input, the last 16 the
// forecast target, [N, 48] -> [N, 16].
inline Data TrendSeasonSeries(int64_t n = 4096) {
  torch::Tensor tau = torch::arange(64, torch::kFloat).view({1, 64}) / 64;
  torch::Tensor a = torch::randn({n, 4}) * torch::tensor({0.5, 1.0, 0.7, 0.4}).view({1, 4});
  torch::Tensor trend = a.slice(1, 0, 1) + a.slice(1, 1, 2) * tau + a.slice(1, 2, 3) * tau.pow(2) +
                        a.slice(1, 3, 4) * tau.pow(3);
  torch::Tensor period =
      torch::tensor({8.0, 12.0, 16.0, 24.0}).index_select(0, torch::randint(0, 4, {n}, torch::kLong));
  torch::Tensor ph = 64 * tau / period.view({n, 1});  // in cycles
  torch::Tensor a1 = 0.3 + 0.5 * torch::rand({n, 1}), a2 = 0.3 * torch::rand({n, 1});
  torch::Tensor p1 = 2 * M_PI * torch::rand({n, 1}), p2 = 2 * M_PI * torch::rand({n, 1});
  torch::Tensor s = a1 * torch::sin(2 * M_PI * ph + p1) + a2 * torch::sin(4 * M_PI * ph + p2);
  torch::Tensor x = trend + s + 0.05 * torch::randn({n, 64});
  return {x.slice(1, 0, 48).contiguous(), x.slice(1, 48, 64).contiguous()};
}

// A field spectroradiometer's calibrated radiance (W m^-2 sr^-1 nm^-1, 32
// bands 400..1000 nm) of one of four surfaces (the class: green vegetation,
// bare soil, open water, snow) as it records them from late afternoon into
// the night, in time order: the illumination falls log-linearly over the
// session from daylight to 10^-7.5 of it (x10^(0.05 N(0, 1)) per spectrum),
// the instrument's integration time following it so that the relative
// noise stays 2%. Each spectrum is a reflectance of its class (each
// varied: chlorophyll and leaf area, soil brightness and slope, water
// turbidity, snow grain) mixed with 0..40% of another class, times a
// smooth multiplicative variation exp(0.1 (a cos + b sin)), times the solar
// irradiance / pi (1.2..1.9 W m^-2 nm^-1). One row per spectrum, 19200
// (each batch is seen once over 300 steps). Computed in double.
inline Data DuskSpectra(int64_t n = 19200) {
  const auto d = torch::kDouble;
  constexpr int64_t kB = 32;
  torch::Tensor lam = (400 + 600 * torch::arange(kB, d) / double(kB - 1)).view({1, kB});
  auto gauss = [&](double c, double w) { return torch::exp(-((lam - c) / w).pow(2)); };
  auto reflectance = [&](const torch::Tensor& c) {  // [n] classes -> [n, kB]
    const int64_t m = c.size(0);
    torch::Tensor u1 = torch::rand({m, 1}, d), u2 = torch::rand({m, 1}, d);
    torch::Tensor veg = 0.03 + (0.03 + 0.04 * u1) * gauss(550, 35) +
                        (0.25 + 0.3 * u2) * torch::sigmoid((lam - 712 - 10 * u1) / 14);
    torch::Tensor soil = (0.08 + 0.12 * u1) * (1 + (0.6 + 0.8 * u2) * (lam - 400) / 600);
    torch::Tensor water = 0.008 + 0.05 * gauss(470, 70) + 0.04 * u1 * gauss(620, 80) * (1 + u2);
    torch::Tensor snow = (0.75 + 0.2 * u1) - (0.25 + 0.25 * u2) * ((lam - 400) / 600).pow(2) -
                         0.1 * u2 * gauss(1000, 60);
    torch::Tensor cc = c.view({m, 1});
    return torch::where(cc == 0, veg, torch::where(cc == 1, soil, torch::where(cc == 2, water, snow)));
  };
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor other = (y + torch::randint(1, 4, {n}, torch::kLong)) % 4;
  torch::Tensor mix = 0.4 * torch::rand({n, 1}, d);
  torch::Tensor rho = (1 - mix) * reflectance(y) + mix * reflectance(other);
  torch::Tensor a = torch::randn({n, 1}, d), b = torch::randn({n, 1}, d), f = 0.5 + torch::rand({n, 1}, d);
  rho = rho * torch::exp(0.1 * (a * torch::cos(2 * M_PI * f * (lam - 400) / 600) +
                                b * torch::sin(2 * M_PI * f * (lam - 400) / 600)));
  torch::Tensor sun = (1.2 + 0.7 * gauss(500, 260)) / M_PI;
  torch::Tensor light = torch::pow(10.0, -7.5 * torch::arange(n, d).view({n, 1}) / double(n - 1) +
                                             0.05 * torch::randn({n, 1}, d));
  torch::Tensor radiance = rho * sun * light * (1 + 0.02 * torch::randn({n, kB}, d));
  return {radiance.to(torch::kFloat), y};
}

// Heart-rate variability from a sleep lab's Holter recordings: 33
// successive RR intervals in whole ms as the recorder stores them, the
// windows of all nights sorted by time since lights-off (19200, each batch
// seen once over 300 steps): the mean RR rises through the night from ~640
// to ~1160 ms (heart rate ~94 to ~52; +-60 ms between windows), each
// window an AR(1) (0.3) variation whose successive differences have an
// RMSSD log-uniform over 3..64 ms. The class is the band of the stored
// window's RMSSD: below 8, 8..16, 16..32, 32 ms and above. Computed in
// double.
inline Data NightRrIntervals(int64_t n = 19200, int64_t w = 33) {
  const auto d = torch::kDouble;
  torch::Tensor frac = torch::arange(n, d).view({n, 1}) / double(n - 1);
  torch::Tensor mu = 640 + 520 * frac + 60 * torch::randn({n, 1}, d);
  torch::Tensor target = torch::exp(std::log(3.0) + std::log(64.0 / 3) * torch::rand({n, 1}, d));
  torch::Tensor sig = target / std::sqrt(2 * 0.7);
  torch::Tensor e = torch::randn({n, w}, d) * sig * std::sqrt(1 - 0.09);
  torch::Tensor u = torch::zeros({n, w}, d);
  torch::Tensor prev = torch::zeros({n}, d);
  for (int64_t k = 0; k < w; ++k) {
    prev = 0.3 * prev + e.select(1, k);
    u.select(1, k).copy_(prev);
  }
  torch::Tensor rr = torch::round(mu + u);
  torch::Tensor dd = rr.slice(1, 1, w) - rr.slice(1, 0, w - 1);
  torch::Tensor rmssd = dd.pow(2).mean(1).sqrt();
  torch::Tensor y = (rmssd >= 8).to(torch::kLong) + (rmssd >= 16).to(torch::kLong) + (rmssd >= 32).to(torch::kLong);
  return {rr.to(torch::kFloat), y};
}

// A PV site's global horizontal irradiance as its logger stores it: 24
// hourly means in whole W/m^2 for one day (latitude 48 N, a random day of
// the year: day length 8..16 h, noon elevation 18..65 degrees; the clear
// sky 1000 sin(elevation)^1.15 sin(pi (h - sunrise) / day length)^1.2,
// times a day's clearness 0.15..1 and a broken-cloud factor per hour),
// [N, 24]. The class is the band of the day's irradiation H = sum of G x
// 3600 s: below 6, 6..12, 12..20, 20 MJ/m^2 and above.
inline Data HourlyIrradiance(int64_t n = 2048) {
  const auto d = torch::kDouble;
  torch::Tensor doy = torch::rand({n, 1}, d);
  torch::Tensor season = torch::sin(2 * M_PI * (doy - 0.22));
  torch::Tensor elev = (90.0 - 48.0 + 23.44 * season) * (M_PI / 180);
  torch::Tensor daylen = 12 + 4 * season, rise = 12 - daylen / 2;
  torch::Tensor gmax = 1000 * torch::sin(elev).pow(1.15);
  torch::Tensor kc = 0.15 + 0.85 * torch::rand({n, 1}, d).pow(0.7);
  torch::Tensor h = torch::arange(24, d).view({1, 24}) + 0.5;
  torch::Tensor s = torch::sin(M_PI * (h - rise) / daylen).clamp_min(0) * ((h >= rise) & (h <= rise + daylen)).to(d);
  torch::Tensor g = gmax * s.pow(1.2) * kc * (1 - 0.5 * (1 - kc) * torch::rand({n, 24}, d));
  g = torch::round(g);
  torch::Tensor mj = (g * 3600).sum(1) / 1e6;
  torch::Tensor y = (mj >= 6).to(torch::kLong) + (mj >= 12).to(torch::kLong) + (mj >= 20).to(torch::kLong);
  return {g.to(torch::kFloat), y};
}

// A phasor measurement unit's frequency reports in Hz as the archive stores
// them (50 Hz grid, 10 reports a second, 1 mHz resolution), 64-report
// windows, [N, 64]. The class is the window's event: steady (a random walk
// of 0.8 mHz a report), a generator trip (from a report 10..40 on, a drop
// of 0.05..0.25 Hz with a time constant of 0.8..2 s, half of it recovered
// three times slower), a load rejection (the same upwards), an inter-area
// oscillation (0.2..0.8 Hz, amplitude 0.01..0.05 Hz). Every window has an
// offset N(0, 0.02) Hz, the random walk and 2 mHz of noise. Computed in
// double.
inline Data PmuFrequencyWindows(int64_t n = 2048, int64_t t = 64) {
  const auto d = torch::kDouble;
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  torch::Tensor tt = torch::arange(t, d).view({1, t});
  torch::Tensor walk = torch::cumsum(0.0008 * torch::randn({n, t}, d), 1);
  torch::Tensor t0 = 10 + torch::floor(31 * torch::rand({n, 1}, d));
  torch::Tensor tau = 8 + 12 * torch::rand({n, 1}, d), drop = 0.05 + 0.2 * torch::rand({n, 1}, d);
  torch::Tensor s = (tt - t0).clamp_min(0);
  torch::Tensor step = drop * ((1 - torch::exp(-s / tau)) - 0.5 * (1 - torch::exp(-s / (3 * tau))));
  torch::Tensor fo = 0.2 + 0.6 * torch::rand({n, 1}, d), amp = 0.01 + 0.04 * torch::rand({n, 1}, d);
  torch::Tensor osc = amp * torch::sin(2 * M_PI * fo * tt / 10 + 2 * M_PI * torch::rand({n, 1}, d));
  torch::Tensor ev =
      torch::where(y == 1, -step, torch::where(y == 2, step, torch::where(y == 3, osc, torch::zeros_like(osc))));
  torch::Tensor f = 50 + 0.02 * torch::randn({n, 1}, d) + walk + ev + 0.002 * torch::randn({n, t}, d);
  return {(torch::round(f * 1000) / 1000).to(torch::kFloat), y.squeeze(1)};
}

// --- healthy models -------------------------------------------------------------

// FAVOR+ attention (Choromanski et al. 2021, the Performer): softmax
// attention approximated with m = 32 positive orthogonal random features
// per head, phi(x) = exp(w x - |x|^2 / 2 - stabiliser) / sqrt(m) (+1e-4),
// q and k scaled by d_head^-1/4, the stabiliser the row's (queries) or the
// sequence's (keys) largest w x (not differentiated); out = phi(Q) (phi(K)^T
// V) / (phi(Q) sum phi(K)). 2 heads of 16.
struct FavorAttentionImpl : nn::Module {
  static constexpr int64_t kD = 32, kHeads = 2, kDh = 16, kFeatures = 32;
  FavorAttentionImpl() {
    qkv = register_module("qkv", nn::Linear(kD, 3 * kD));
    proj = register_module("proj", nn::Linear(kD, kD));
    // Orthogonal Gaussian features per head: rows of a QR factor, each with
    // the norm of a Gaussian vector (fixed, drawn with the model's seed).
    std::vector<torch::Tensor> ws;
    for (int64_t h = 0; h < kHeads; ++h) {
      std::vector<torch::Tensor> blocks;
      for (int64_t b = 0; b < kFeatures / kDh; ++b) {
        blocks.push_back(std::get<0>(torch::linalg_qr(torch::randn({kDh, kDh}))).t());
      }
      torch::Tensor w = torch::cat(blocks, 0);
      ws.push_back(w * torch::randn({kFeatures, kDh}).norm(2, 1, true));
    }
    omega = register_buffer("omega", torch::stack(ws, 0));  // [H, m, dh]
  }
  torch::Tensor Features(const torch::Tensor& x, bool query) {  // [N, H, L, dh] -> [N, H, L, m]
    torch::Tensor proj_x = torch::einsum("nhld,hmd->nhlm", {x, omega});
    torch::Tensor diag = x.pow(2).sum(-1, true) / 2;
    torch::Tensor stab = query ? proj_x.amax(-1, true).detach() : proj_x.amax({-2, -1}, true).detach();
    return (torch::exp(proj_x - diag - stab) + 1e-4) / std::sqrt(double(kFeatures));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, L, D]
    const int64_t n = x.size(0), l = x.size(1);
    torch::Tensor t = qkv->forward(x).view({n, l, 3, kHeads, kDh}).permute({2, 0, 3, 1, 4});
    const double s = std::pow(double(kDh), -0.25);
    torch::Tensor qf = Features(t[0] * s, true), kf = Features(t[1] * s, false), v = t[2];
    torch::Tensor kv = torch::einsum("nhlm,nhld->nhmd", {kf, v});
    torch::Tensor z = 1 / (torch::einsum("nhlm,nhm->nhl", {qf, kf.sum(2)}).unsqueeze(-1) + 1e-6);
    torch::Tensor out = torch::einsum("nhlm,nhmd->nhld", {qf, kv}) * z;
    return proj->forward(out.permute({0, 2, 1, 3}).reshape({n, l, kD}));
  }
  nn::Linear qkv{nullptr}, proj{nullptr};
  torch::Tensor omega;
};
TORCH_MODULE(FavorAttention);

// Performer classifier: 16 patches of 8 samples, a linear patch embedding
// (32) plus a learned position embedding, 2 pre-LayerNorm blocks (FAVOR+
// attention, GELU MLP 32-64-32), a final LayerNorm, the mean over the
// patches, a linear classifier.
struct PerformerNetImpl : nn::Module {
  static constexpr int64_t kD = 32, kPatch = 8, kTokens = 16;
  PerformerNetImpl() {
    embed = register_module("embed", nn::Linear(kPatch, kD));
    pos = register_parameter("pos", 0.1 * torch::randn({1, kTokens, kD}));
    for (int i = 0; i < 2; ++i) {
      const std::string s = std::to_string(i);
      ln1.push_back(register_module("ln1_" + s, nn::LayerNorm(nn::LayerNormOptions({kD}))));
      attn.push_back(register_module("attn" + s, FavorAttention()));
      ln2.push_back(register_module("ln2_" + s, nn::LayerNorm(nn::LayerNormOptions({kD}))));
      fc1.push_back(register_module("fc1_" + s, nn::Linear(kD, 2 * kD)));
      fc2.push_back(register_module("fc2_" + s, nn::Linear(2 * kD, kD)));
    }
    ln_out = register_module("ln_out", nn::LayerNorm(nn::LayerNormOptions({kD})));
    head = register_module("head", nn::Linear(kD, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 128]
    const int64_t n = x.size(0);
    torch::Tensor h = Tap("performer.embed", embed->forward(x.view({n, kTokens, kPatch})) + pos, "Linear");
    for (size_t i = 0; i < attn.size(); ++i) {
      const std::string s = "performer.block" + std::to_string(i);
      h = Tap(s + ".attn", h + attn[i]->forward(ln1[i]->forward(h)), "FavorAttention");
      h = Tap(s + ".mlp", h + fc2[i]->forward(torch::gelu(fc1[i]->forward(ln2[i]->forward(h)))), "MLP");
    }
    return head->forward(ln_out->forward(h).mean(1));
  }
  nn::Linear embed{nullptr}, head{nullptr};
  torch::Tensor pos;
  std::vector<nn::LayerNorm> ln1, ln2;
  std::vector<FavorAttention> attn;
  std::vector<nn::Linear> fc1, fc2;
  nn::LayerNorm ln_out{nullptr};
};
TORCH_MODULE(PerformerNet);

// Res2Net block (Gao et al. 2019): a 1x1 convolution (BatchNorm, ReLU), its
// channels split into 4 groups x1..x4; y1 = x1, y2 = K2(x2), y3 = K3(x3 +
// y2), y4 = K4(x4 + y3) (each K a 3x3 convolution, BatchNorm, ReLU: the
// hierarchical residual connections), the groups concatenated, a 1x1
// convolution (BatchNorm), the identity added, ReLU.
struct Res2BlockImpl : nn::Module {
  static constexpr int64_t kScales = 4;
  explicit Res2BlockImpl(int64_t c) : width_(c / kScales) {
    in = register_module("in", nn::Conv2d(nn::Conv2dOptions(c, c, 1).bias(false)));
    bn_in = register_module("bn_in", nn::BatchNorm2d(c));
    for (int64_t i = 1; i < kScales; ++i) {
      const std::string s = std::to_string(i);
      k.push_back(register_module("k" + s, nn::Conv2d(nn::Conv2dOptions(width_, width_, 3).padding(1).bias(false))));
      bn.push_back(register_module("bn" + s, nn::BatchNorm2d(width_)));
    }
    out = register_module("out", nn::Conv2d(nn::Conv2dOptions(c, c, 1).bias(false)));
    bn_out = register_module("bn_out", nn::BatchNorm2d(c));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    std::vector<torch::Tensor> xs = torch::relu(bn_in->forward(in->forward(x))).split(width_, 1);
    std::vector<torch::Tensor> ys = {xs[0]};
    torch::Tensor prev;
    for (int64_t i = 1; i < kScales; ++i) {
      torch::Tensor u = i == 1 ? xs[i] : xs[i] + prev;
      prev = torch::relu(bn[i - 1]->forward(k[i - 1]->forward(u)));
      ys.push_back(prev);
    }
    return torch::relu(x + bn_out->forward(out->forward(torch::cat(ys, 1))));
  }
  int64_t width_;
  nn::Conv2d in{nullptr}, out{nullptr};
  nn::BatchNorm2d bn_in{nullptr}, bn_out{nullptr};
  std::vector<nn::Conv2d> k;
  std::vector<nn::BatchNorm2d> bn;
};
TORCH_MODULE(Res2Block);

// Res2Net-style CNN: a 3x3 stem 1 -> 16 (BatchNorm, ReLU), a Res2Net block,
// max-pool 2, a 1x1 widening 16 -> 32 (BatchNorm, ReLU), a Res2Net block,
// max-pool 2, the mean over the grid, a linear classifier.
struct Res2NetImpl : nn::Module {
  Res2NetImpl() {
    stem = register_module("stem", nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1).bias(false)));
    bn_stem = register_module("bn_stem", nn::BatchNorm2d(16));
    b1 = register_module("b1", Res2Block(16));
    widen = register_module("widen", nn::Conv2d(nn::Conv2dOptions(16, 32, 1).bias(false)));
    bn_widen = register_module("bn_widen", nn::BatchNorm2d(32));
    b2 = register_module("b2", Res2Block(32));
    head = register_module("head", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 1, 16, 16]
    torch::Tensor h = Tap("res2net.stem", torch::relu(bn_stem->forward(stem->forward(x))), "Conv2d");
    h = Tap("res2net.block1", torch::max_pool2d(b1->forward(h), 2), "Res2Block");
    h = torch::relu(bn_widen->forward(widen->forward(h)));
    h = Tap("res2net.block2", torch::max_pool2d(b2->forward(h), 2), "Res2Block");
    return head->forward(Tap("res2net.pooled", h.mean({2, 3}), "Mean"));
  }
  nn::Conv2d stem{nullptr}, widen{nullptr};
  nn::BatchNorm2d bn_stem{nullptr}, bn_widen{nullptr};
  Res2Block b1{nullptr}, b2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(Res2Net);

// A Neural Turing Machine's read head (Graves et al. 2014) over a given
// memory: a controller (MLP 12-64 ReLU) reads the query and emits a key
// (12), a key strength beta = 1 + softplus, a shift distribution over
// {-1, 0, +1} (softmax) and a sharpening gamma = 1 + softplus; content
// addressing w_c = softmax(beta cos(key, memory keys)), the circular shift
// convolution, the sharpening w^gamma / sum, the read r = sum_i w_i M_i (16);
// a linear classifier on [r, controller state].
struct NtmReaderImpl : nn::Module {
  static constexpr int64_t kSlots = 8, kKey = 12, kRow = 16, kH = 64;
  NtmReaderImpl() {
    controller = register_module("controller", nn::Linear(kKey, kH));
    heads = register_module("heads", nn::Linear(kH, kKey + 1 + 3 + 1));
    head = register_module("head", nn::Linear(kRow + kH, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 9, 16]
    torch::Tensor mem = x.slice(1, 0, kSlots), query = x.select(1, kSlots).slice(1, 0, kKey);
    torch::Tensor c = Tap("ntm.controller", torch::relu(controller->forward(query)), "Linear");
    torch::Tensor o = heads->forward(c);
    torch::Tensor key = o.slice(1, 0, kKey);
    torch::Tensor beta = 1 + torch::softplus(o.slice(1, kKey, kKey + 1));
    torch::Tensor shift = torch::softmax(o.slice(1, kKey + 1, kKey + 4), 1);
    torch::Tensor gamma = 1 + torch::softplus(o.slice(1, kKey + 4, kKey + 5));
    torch::Tensor mk = mem.slice(2, 0, kKey);
    torch::Tensor cos = (mk * key.unsqueeze(1)).sum(2) / (mk.norm(2, 2) * key.norm(2, 1, true) + 1e-6);
    torch::Tensor wc = Tap("ntm.content_weights", torch::softmax(beta * cos, 1), "Softmax");
    // w~_i = sum_j w_c[j] s[i - j]: slot i reads slot i-1 with s[+1], i with s[0], i+1 with s[-1].
    torch::Tensor ws = shift.select(1, 0).unsqueeze(1) * torch::roll(wc, -1, 1) +
                       shift.select(1, 1).unsqueeze(1) * wc + shift.select(1, 2).unsqueeze(1) * torch::roll(wc, 1, 1);
    torch::Tensor wp = (ws + 1e-8).pow(gamma);
    torch::Tensor w = Tap("ntm.read_weights", wp / wp.sum(1, true), "Sharpen");
    torch::Tensor r = Tap("ntm.read", torch::bmm(w.unsqueeze(1), mem).squeeze(1), "Read");
    return head->forward(torch::cat({r, c}, 1));
  }
  nn::Linear controller{nullptr}, heads{nullptr}, head{nullptr};
};
TORCH_MODULE(NtmReader);

// One N-BEATS block of the interpretable configuration (Oreshkin et al.
// 2020): FC 48-64-64-64 ReLU, two linear heads for the backcast's and the
// forecast's coefficients theta, each expanded on a fixed basis over the
// series' time t = 0..63 (backcast t < 48, forecast t >= 48): a polynomial
// of degree 3 in t / 64 (trend) or the harmonics k = 1..12 of period 48
// (cos, sin) and a constant (seasonality).
struct NbeatsBlockImpl : nn::Module {
  explicit NbeatsBlockImpl(bool trend) {
    torch::Tensor t = torch::arange(64, torch::kFloat);
    torch::Tensor basis;
    if (trend) {
      torch::Tensor tau = t / 64;
      basis = torch::stack({torch::ones_like(tau), tau, tau.pow(2), tau.pow(3)}, 0);  // [4, 64]
    } else {
      std::vector<torch::Tensor> rows = {torch::ones_like(t)};
      for (int k = 1; k <= 12; ++k) {
        rows.push_back(torch::cos(2 * M_PI * k * t / 48));
        rows.push_back(torch::sin(2 * M_PI * k * t / 48));
      }
      basis = torch::stack(rows, 0);  // [25, 64]
    }
    const int64_t p = basis.size(0);
    back_basis = register_buffer("back_basis", basis.slice(1, 0, 48).contiguous());
    fore_basis = register_buffer("fore_basis", basis.slice(1, 48, 64).contiguous());
    fc = register_module("fc", Mlp({48, 64, 64, 2, "relu"}));
    theta_b = register_module("theta_b", nn::Linear(nn::LinearOptions(64, p).bias(false)));
    theta_f = register_module("theta_f", nn::Linear(nn::LinearOptions(64, p).bias(false)));
  }
  std::pair<torch::Tensor, torch::Tensor> Run(const torch::Tensor& x) {
    torch::Tensor h = torch::relu(fc->forward(x));
    return {theta_b->forward(h).matmul(back_basis), theta_f->forward(h).matmul(fore_basis)};
  }
  torch::Tensor back_basis, fore_basis;
  TrackedSequential fc{nullptr};
  nn::Linear theta_b{nullptr}, theta_f{nullptr};
};
TORCH_MODULE(NbeatsBlock);

// N-BEATS-I: a trend stack of 2 blocks, then a seasonality stack of 2; each
// block reads the residual of the backcast so far and adds its forecast.
struct NbeatsInterpretableImpl : nn::Module {
  NbeatsInterpretableImpl() {
    for (int i = 0; i < 4; ++i) blocks.push_back(register_module("block" + std::to_string(i), NbeatsBlock(i < 2)));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 48]
    torch::Tensor res = x, fc = torch::zeros({x.size(0), 16});
    for (size_t i = 0; i < blocks.size(); ++i) {
      auto [b, f] = blocks[i]->Run(res);
      const std::string s = std::string("nbeats.") + (i < 2 ? "trend" : "season") + std::to_string(i % 2);
      res = Tap(s + ".residual", res - b, "Backcast");
      fc = Tap(s + ".forecast", fc + f, "Forecast");
    }
    return fc;
  }
  std::vector<NbeatsBlock> blocks;
};
TORCH_MODULE(NbeatsInterpretable);

// --- planted models -------------------------------------------------------------

// Surface class from the stored radiance ("spectro.radiance", as read, W
// m^-2 sr^-1 nm^-1): each spectrum divided by its sum (at least 1e-30) in
// the model, times 32 ("spectro.shape"), stored; MLP 32-64-64-4 ReLU with
// LayerNorm.
struct DuskSpectrumNetImpl : nn::Module {
  DuskSpectrumNetImpl() { mlp = register_module("mlp", Mlp({32, 64, 4, 2, "relu", "layer"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 32]
    torch::Tensor r = Tap("spectro.radiance", x, "Input");
    torch::Tensor s = Tap("spectro.shape", 32 * r / r.sum(1, true).clamp_min(1e-30), "Div");
    return mlp->forward(s);
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(DuskSpectrumNet);

// RMSSD band from the stored RR intervals ("hrv.rr_ms", as read): the 32
// successive differences taken in the model ("hrv.successive_differences"),
// stored; features the differences / 16, log(RMSSD / 16) (RMSSD = sqrt(mean
// d^2 + 1e-3)) and (mean RR - 900) / 200; MLP 34-64-64-4 ReLU.
struct RrIntervalNetImpl : nn::Module {
  RrIntervalNetImpl() { mlp = register_module("mlp", Mlp({34, 64, 4, 2, "relu"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 33]
    torch::Tensor rr = Tap("hrv.rr_ms", x, "Input");
    torch::Tensor d = Tap("hrv.successive_differences", rr.slice(1, 1, 33) - rr.slice(1, 0, 32), "Sub");
    torch::Tensor rmssd = (d.pow(2).mean(1, true) + 1e-3).sqrt();
    return mlp->forward(torch::cat({d / 16, torch::log(rmssd / 16), (rr.mean(1, true) - 900) / 200}, 1));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(RrIntervalNet);

// Irradiation band from the stored hourly irradiance ("pv.irradiance_w_m2",
// as read): each hour's irradiation G x 3600 s in J/m^2 taken in the model
// ("pv.hourly_irradiation_j_m2"), stored, and the day's sum / 1e6 in MJ/m^2
// ("pv.daily_irradiation_mj_m2"), stored; features the hourly MJ/m^2 and
// the day's / 10; MLP 25-64-64-4 ReLU.
struct IrradiationNetImpl : nn::Module {
  IrradiationNetImpl() { mlp = register_module("mlp", Mlp({25, 64, 4, 2, "relu"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 24]
    torch::Tensor g = Tap("pv.irradiance_w_m2", x, "Input");
    torch::Tensor e = Tap("pv.hourly_irradiation_j_m2", g * 3600, "Mul");
    torch::Tensor day = Tap("pv.daily_irradiation_mj_m2", e.sum(1, true) / 1e6, "Sum");
    return mlp->forward(torch::cat({e / 1e6, day / 10}, 1));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(IrradiationNet);

// Grid event from the stored frequency reports ("pmu.frequency_hz", as
// read): the deviation from the nominal 50 Hz taken in the model, times 20
// ("pmu.deviation"), stored; Conv1d 1 -> 8 (7 taps), ReLU, max-pool 2,
// Conv1d 8 -> 16 (5 taps), ReLU, the mean and the max over time, a linear
// classifier.
struct PmuEventNetImpl : nn::Module {
  PmuEventNetImpl() {
    c1 = register_module("c1", nn::Conv1d(nn::Conv1dOptions(1, 8, 7).padding(3)));
    c2 = register_module("c2", nn::Conv1d(nn::Conv1dOptions(8, 16, 5).padding(2)));
    head = register_module("head", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 64]
    torch::Tensor f = Tap("pmu.frequency_hz", x, "Input");
    torch::Tensor dev = Tap("pmu.deviation", (f - 50) * 20, "Sub");
    torch::Tensor h = Tap("pmu.conv1", torch::max_pool1d(torch::relu(c1->forward(dev.unsqueeze(1))), 2), "Conv1d");
    h = Tap("pmu.conv2", torch::relu(c2->forward(h)), "Conv1d");
    return head->forward(torch::cat({h.mean(2), std::get<0>(h.max(2))}, 1));
  }
  nn::Conv1d c1{nullptr}, c2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(PmuEventNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh26Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<PerformerNet>("performer_favor_random_features_waveform_patches_layernorm_adamw_warmup_cosine",
                         "Performer: 2 pre-LayerNorm blocks of FAVOR+ attention (2 heads, 32 positive orthogonal "
                         "random features each) and a GELU MLP over 16 patches of 8 samples, mean-pooled; the "
                         "shape (sine, square, triangle, sawtooth) of a noisy 128-sample waveform, AdamW 2e-3 "
                         "warm-up+cosine",
                         std::function<PerformerNet()>([] { return PerformerNet(); }), [] { return WaveformShapes(); }),
      "adamw", 2e-3, "warmup_cosine", 300);
  add(Make<Res2Net>("res2net_hierarchical_split_residual_shape_outlines_batchnorm_momentum_step", "Res2Net-style "
                    "CNN: two Res2Net blocks (a 1x1 convolution, 4 channel groups joined by hierarchical 3x3 "
                    "residual convolutions, a 1x1 convolution, the identity; BatchNorm) of 16 and 32 channels, "
                    "max-pool 2 after each, the mean over the grid; ring, square, plus or X outlines in 16x16 "
                    "noise, SGD momentum 0.05 step decay",
                    std::function<Res2Net()>([] { return Res2Net(); }), [] { return ShapeOutlines(); }),
      "momentum", 0.05, "step", 200);
  add(Make<NtmReader>("ntm_content_shift_sharpen_read_head_successor_recall_rmsprop_cosine", "Neural Turing "
                      "Machine read head: a controller emits a key, key strength, shift distribution and "
                      "sharpening; content addressing by cosine, a circular shift, sharpening, a weighted read of "
                      "8 memory slots; the label of the slot after the one a noisy key names, RMSprop 2e-3 cosine",
                      std::function<NtmReader()>([] { return NtmReader(); }), [] { return SuccessorRecall(); }),
      "rmsprop", 2e-3, "cosine", 300);
  add(Make<NbeatsInterpretable>("nbeats_interpretable_trend_seasonality_bases_forecast_adam_warmup", "N-BEATS "
                                "interpretable: a trend stack (2 blocks, cubic polynomial basis) and a seasonality "
                                "stack (2 blocks, 12 harmonics of period 48), each block an FC 48-64-64-64 ReLU "
                                "with backcast and forecast coefficient heads; 16-step forecasts of trend plus "
                                "seasonal series, MSE, Adam 1e-3 warm-up",
                                std::function<NbeatsInterpretable()>([] { return NbeatsInterpretable(); }),
                                [] { return TrendSeasonSeries(); }),
      "adam", 1e-3, "warmup", 250)->loss = Loss::kMse;

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  Program* p = add(Make<DuskSpectrumNet>("surface_class_from_spectroradiometer_radiance_recorded_into_dusk",
                                         "surface class (vegetation, soil, water, snow) from a field "
                                         "spectroradiometer's radiance stored as read (32 bands, W m^-2 sr^-1 "
                                         "nm^-1, in time order from daylight to 10^-7.5 of it), each spectrum "
                                         "divided by its sum in the model, MLP 32-64-64-4 ReLU LayerNorm, Adam "
                                         "2e-3 cosine",
                                         std::function<DuskSpectrumNet()>([] { return DuskSpectrumNet(); }),
                                         [] { return DuskSpectra(); }),
                   "adam", 2e-3, "cosine", 300);
  p->planted = true;
  p = add(Make<RrIntervalNet>("rmssd_band_from_holter_rr_intervals_in_ms_by_time_of_night", "RMSSD band of 33 "
                              "RR intervals stored as the Holter recorder writes them (whole ms, ~640 to ~1160 "
                              "through the night, windows sorted by time since lights-off), the successive "
                              "differences taken in the model, MLP 34-64-64-4 ReLU, RMSprop 1e-3 warm-up",
                              std::function<RrIntervalNet()>([] { return RrIntervalNet(); }),
                              [] { return NightRrIntervals(); }),
          "rmsprop", 1e-3, "warmup", 300);
  p->planted = true;
  p = add(Make<IrradiationNet>("irradiation_band_from_hourly_w_m2_times_3600_s_in_model", "daily irradiation "
                               "band from a PV logger's 24 hourly irradiances stored as read (whole W/m^2), each "
                               "hour's J/m^2 (G x 3600 s) and the day's MJ/m^2 taken in the model, MLP 25-64-64-4 "
                               "ReLU, SGD momentum 0.02 warm-up+cosine",
                               std::function<IrradiationNet()>([] { return IrradiationNet(); }),
                               [] { return HourlyIrradiance(); }),
          "momentum", 0.02, "warmup_cosine", 300);
  p->planted = true;
  p = add(Make<PmuEventNet>("grid_event_from_pmu_frequency_reports_in_hz_minus_50_in_model", "grid event "
                            "(steady, generator trip, load rejection, inter-area oscillation) from 64 phasor "
                            "measurement unit frequency reports stored as read (Hz, 1 mHz resolution, around 50), "
                            "the deviation from 50 Hz taken in the model, Conv1d 8 and 16 channels, AdamW 2e-3 "
                            "step decay",
                            std::function<PmuEventNet()>([] { return PmuEventNet(); }),
                            [] { return PmuFrequencyWindows(); }),
          "adamw", 2e-3, "step", 300);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH26_H_
