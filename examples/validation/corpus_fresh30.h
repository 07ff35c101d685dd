// The fresh30 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh29 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor any
// prediction was looked at), so that the rules can be measured on trainings
// nobody tuned anything against. What was looked at: /work/shared/STYLE.md;
// corpus.h in parts (its first 60 lines, lines 120..190 and 230..290: Tap,
// Data, MlpSpec and Mlp, Program, Make, ProgramAdder and the start of
// Programs()); corpus_fresh29.h whole (for the conventions and its header's
// form); `git show 15480e8` of CMakeLists.txt and validation.cc (fresh29's
// registration); the corpus headers grepped for the words of the architectures
// and practices considered here (file names only: perceiver, set transformer,
// induc, capsule, routing, mamba, s4, state space, selective, gmlp, spatial
// gating, kan, spline, neural ode, rk4, runge, hopfield, highway, densenet,
// mlp-mixer, qrnn, clockwork, equilibrium, ponder, halt, adaptive computation,
// film, coupling, realnvp, neural process, retnet, retention, lru, sinkhorn,
// cellular automat, chebyshev, echo state, reservoir, liquid, ltc, hasani, time
// constant, bilinear, attention-free, tabnet, sparsemax, entmax, maxout, radial
// basis, rbf, deepsets, pointnet, tcn, dilated, wavenet, moe, linformer,
// inception, mobilenet, convnext, transformer-xl, memory network, neural
// turing, relation network, dendrit, monarch, butterfly, fno, siren, gabor,
// mixture density, convlstm, gru-d, bidirectional, unet, pixel shuffle, deconv,
// spatial transformer, grid_sample, differential, sigmoid attention, two
// softmax, mlstm, matrix memory, xlstm, covariance; pcm, 24-bit, audio, wav,
// counts, assay, wt%, geochem, oxide, trace element, mineral, drill, rock, lux,
// illumin, flicker, gps, latitude, kelvin, millikelvin, mooring, ctd, ocean,
// tide, tidal, internal wave, platelet, microlit, blood, thrombocyt,
// hemoglobin, leakage, residual current, rcd, ground fault, earth fault, volt,
// mains, epoch, unix, timestamp, julian, odometer, cumulative, meter reading,
// session, gain, pwm, and some more), and the lines of the hits on the words
// chosen or near them: the CfC cell of corpus_fresh24.h (Hasani's closed-form
// cell; no LTC and no other liquid network), "xlstm" in corpus_fresh28.h's list
// of grepped words and fresh29's sLSTM (no mLSTM), corpus_fresh7.h's LRU-style
// diagonal recurrence, the kelvin hits (stars' temperatures, a regression on
// temperatures of 300 +- 5 K, a guarded log beside temperatures), the volt hits
// (ADC codes converted to volts, paced ECG in millivolts), a tide in
// corpus_fresh24.h's DeepONet comment, "rock" in a ConvMixer's comment, the
// epoch, timestamp, odometer, cumulative-register and meter-read lines; none is
// this group's architecture or practice. Also the corpus headers grepped for
// each data and model name used here (a first build failed on GratingTextures,
// corpus_fresh12.h's; renamed) and for GRUCell, repeat_interleave, conv2d( and
// `namespace F`; validation.cc's top comment (lines 30..45, the architecture
// list; 166..190, the group comment's end), its includes and kGroupSources;
// examples/common/training.h (its optimizer and schedule names grepped, with
// their lines); examples/validation/CMakeLists.txt (its top comment, the group
// list and the list and groups tests; its add_test lines grepped) and the
// top-level CMakeLists.txt's warning flags (grepped); targets/*.json (every
// field of every target printed by a script, then each role's format, scaling,
// subnormals, saturation and rounding); /work/f28tools/blind_filter.py whole,
// and /work/f28tools/arith.py's first 40 lines and the def lines of it and
// arith160.py (an earlier author's roundings, not used: this group's are its
// own). docs/formats.md and tracker/tracker.h were not opened (the targets'
// fields and fresh29's header said enough). Each planted one was designed from
// what the hardware does to numbers (the formats' arithmetic worked in Python
// by hand-written roundings, round to nearest even: bf16; fp16 with FTZ,
// overflowing to Inf above 65504; e4m3fn (max 448, subnormal quantum 2^-9)
// under a current per-tensor scale and under a delayed one (the largest |x| of
// every batch as its history); Gaudi 2's e4m3 (max 240) under a delayed
// power-of-two scale; MI300's e4m3fnuz (max 240, subnormal quantum 2^-10) under
// a delayed scale; IPU's e4m3fnuz under a current power-of-two scale whose
// exponent is clamped to [-32, 31]; MX (1x32, E8M0 scale 2^(floor(log2 amax) -
// 8)); NVFP4 (e2m1 in 1x16 blocks, e4m3 block scales under the per-tensor 448 x
// 6 / amax); DeepSeek's 1x128 tiles with fp32 scales; bfp8 (16-value blocks
// sharing the largest value's exponent, a sign and 7 bits: quantum 2^(e - 6)),
// on a Python draw of the data's generator: not the same random numbers as
// LibTorch's, the same distributions; batches of 64 rows quantized as one
// tensor, blocks taken along each row; then a crude nearest-centroid rule on a
// few features of the stored rows, fit and scored on them, below a trained
// net), with only its fp32 training and its simulated truth on bf16-accelerator
// looked at, in trial runs of the check's form (fp32 on three seeds,
// bf16-accelerator on one simulated seed, --no-probe; `--json` read through the
// filter, which prints only the fp32 runs' losses and accuracies and the runs'
// final loss, accuracy, broken and why).
//
// All 8 ran without throwing in the first trial run (50 s wall, 53 s of CPU)
// and all learned as first written; the mooring temperatures broke on
// bf16-accelerator (by design, at step 10). Two were changed after it, each
// change checked in a second trial of the same form over the changed programs
// (the variant tried ran as an extra program of this group, removed before the
// final trial; nothing else changed):
//   - the insulator records first trained with RMSprop 1e-3: 1.41 to 0.31,
//     0.301 / 0.930 (bf16 0.301 / 0.928), its loss wandering 0.26..0.34 over
//     the last 110 steps. RMSprop 2e-3 as a variant (second trial): 0.163 /
//     0.950: kept (the description's "1e-3" became "2e-3").
//   - the assay's anomalous traces were first 0.05..0.25 wt% (x 0.7..1.3 per
//     interval): 1.40 to 0.0011, 0.0015 / 1.0 (bf16 0.0014 / 1.0). Not for the
//     trial: the Python arithmetic, done after it, found that bfp8 kept a 0.5
//     wt% code for the anomalies above 0.25 in the blocks whose SiO2 is under
//     64 (quantum 0.5): the rule read 0.44 on bfp8, not chance. Anomalies
//     0.04..0.2 wt% (so at most 0.26): the rule reads 0.25 on bfp8, 1.0 on the
//     per-tensor targets (second trial: 1.40 to 0.0012, 0.0016 / 1.0, bf16
//     0.0016 / 1.0).
// The final trial (65 s wall, 69 s of CPU), read through the filter (the loss
// of one fp32 run, first to last step; the fp32 final loss and accuracy the
// filter prints beside each truth; bf16-accelerator's): the Differential
// Transformer 1.50 to 0.0057, 0.0074 / 1.0, bf16 0.0074 / 1.0; the mLSTM 1.50
// to 0.016, 0.0172 / 1.0, bf16 0.0172 / 1.0; the PonderNet 1.54 to 0.155, 0.150
// / 0.967, bf16 0.150 / 0.967; the Gabor CNN 1.52 to 0.0010 (0.0009 at step
// 20), 0.00068 / 1.0, bf16 0.00066 / 1.0; the platelet counts 1.67 to 0.0037,
// 0.0041 / 1.0, bf16 0.0041 / 1.0; the assay intervals 1.40 to 0.0012, 0.0016 /
// 1.0, bf16 0.0016 / 1.0; the insulator records 1.41 to 0.155, 0.163 / 0.950,
// bf16 0.165 / 0.950; the mooring temperatures 1.41 to 0.035, 0.0198 / 0.997,
// bf16 broken at step 10 (loss 1.38 against fp32's worst seed's 0.028), ending
// 1.38 / 0.256. None of the healthy ones broke on bf16; of the planted ones
// only the mooring temperatures, as designed. Nothing changed after it but
// comments and the platelet counts' description (its range of counts,
// 15,000..900,000, corrected to 940,000); a rerun of the trial's form with the
// rebuilt binary (51 s wall) printed the final trial's numbers exactly.
// The truths run (all 8 on the 12 training targets, three simulated seeds
// each; two halves in parallel, their own --root each: the Differential
// Transformer, the PonderNet, the platelet counts and the insulator records
// 311 s wall, 296 s of CPU; the mLSTM, the Gabor CNN, the assay intervals and
// the mooring temperatures 320 s wall, 306 s of CPU), its finals read per
// seed, showed every planted one broken where it was meant to break and
// nowhere else, 3 of 3 seeds each: the platelet counts on fp16-npu-ftz
// (non-finite from step 0, accuracy 0.25); the assay intervals on b200-nvfp4,
// tenstorrent-bfp4 and tenstorrent-bfp8 (0.25..0.29, loss 1.38..1.39 against
// fp32's 0.0016, from step 28); the insulator records on the five per-tensor
// FP8 targets, deepseek-v3-fp8 and b200-nvfp4 (0.25..0.26, from step 16), not
// on bf16-accelerator, fp16-npu-ftz, b200-mxfp8 or the Tenstorrent targets
// (0.93..0.95 against fp32's 0.95); the mooring temperatures on all 12 (0.25,
// fp16-npu-ftz 0.31..0.32; from step 19, bf16-accelerator from 6..10). The
// healthy ones broke nowhere, no seed on any target: the Differential
// Transformer and the Gabor CNN 1.0 everywhere, the mLSTM 0.995..1.0, the
// PonderNet 0.92..0.97 (b200-nvfp4 the lowest, its loss 0.18..0.20 against
// fp32's 0.15). Nothing changed after it but this paragraph.
//
// Four train fine in fp32 and, by design, on fp8 hardware, on architectures no
// earlier group uses: a Differential Transformer (two softmax maps per head,
// their difference under a learned lambda, per-head RMS normalisation), an
// mLSTM (xLSTM's matrix memory: v k^T updates under a stabilised exponential
// input gate, a normaliser read by the query), a PonderNet (a GRU step repeated
// up to 5 times, a halting probability after each, the output the mixture of
// the steps' predictions under the halting distribution) and a
// Gabor-parameterised CNN (first-layer kernels built from learned orientation,
// width, wavelength, phase and gain), with optimizer and schedule pairs AdamW
// 2e-3 warm-up+cosine (LayerNorm, dropout 0.1, weight decay 0.05), Adam 2e-3
// cosine (LayerNorm), RMSprop 1e-3 warm-up (LayerNorm before each step's
// prediction) and SGD momentum 0.05 step decay (BatchNorm, weight decay 5e-4);
// four classifications.
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: values above fp16's range, values decades
// apart within a block, a tensor's range beyond e4m3's under one scale, a
// difference of nearly equal stored values; the practice is new), meant to
// break on different sets of targets:
//   - a patient's daily platelet counts as a US laboratory reports them, cells
//     per microlitre (15,000..940,000; every row starts at a baseline of
//     150,000..350,000), converted to 10^9/L in the model. fp16 holds nothing
//     above 65504 and does not saturate: in Python 94% of the stored counts and
//     every row read Inf (non-finite from the first step). The course needs a
//     few percent: bf16 (spacing 2^-8..2^-7 of a value), e4m3 under any of the
//     five per-tensor scales (1/16..1/8), MX, DeepSeek's tiles and bfp8 (the
//     counts of a row within a decade and a half) keep it: the rule (the last
//     six days', the lowest's and the highest's ratios to the first four days',
//     the day of the lowest) reads 0.98 in fp32 and bf16, 0.976..0.980 on the
//     per-tensor targets, 0.980 MX and DeepSeek, 0.988 bfp8, 0.958 NVFP4
//     (e2m1's steps of 1/12..1/3 of a block's largest). Meant to break on
//     fp16-npu-ftz from the first step; not on the others.
//   - a drill hole's assay certificate, four core intervals of 16 analytes each
//     in one unit, wt%, majors beside traces (SiO2 45..72 in every 16-value
//     block; the traces 0.001..0.01 at background, the class's two elements
//     0.04..0.26), log10 taken in the model. bfp8's block shares SiO2's
//     exponent (quantum 2^(5-6) = 0.5 wt% for SiO2 32..64, 1 wt% at 64..128):
//     every trace reads 0 (in Python 0% of them nonzero) and log10 floors at
//     -4; NVFP4's block scale is SiO2 / 6, its smallest nonzero code 0.5 x that
//     (3.75..6 wt%): every trace reads 0 too. Tenstorrent's bfp4 target stores
//     activations in bfp8 as well. e4m3 under a per-tensor scale (448 / ~75:
//     the smallest trace at 0.006, a subnormal code or three; an anomaly at
//     0.17..1.6, normal), Gaudi 2's power-of-two scale (x 2), e4m3fnuz (quantum
//     2^-10), MX (its 32-value block scale 2^-3 or 2^-2: an anomaly 0.11..2.1,
//     normal) and DeepSeek's 1x128 tile (one per row) keep every trace nonzero,
//     the anomalies at least 2.8 times the background's highest; bf16 and fp16
//     (normal down to 6.1e-5) keep them. The rule (the 8 traces' mean log10
//     over the intervals): fp32, bf16, fp16, the five per-tensor targets, MX
//     and DeepSeek 1.0; bfp8 0.25; NVFP4 0.24. Meant to break on
//     tenstorrent-bfp8, tenstorrent-bfp4 and b200-nvfp4 from the first step;
//     not on the others.
//   - an 11 kV line's insulator leakage monitor, one cycle a record as stored
//     in SI units: 32 samples of the line voltage in volts (peaks
//     14,800..16,400) then 96 samples of the leakage current in amperes (peaks
//     0.001..0.01, spikes to 0.03), in one row; mA and the voltage-current
//     product taken in the model. The row spans 2^24 (16,400 V beside 0.001 A;
//     its noise at 2e-5): one e4m3 scale for the voltage (448 / 16,400) puts
//     the current's peaks at 2.7e-5..8.2e-4, under half e4m3fn's smallest
//     subnormal (2^-10); Gaudi 2 (scale 2^-7, quantum 2^-9) and e4m3fnuz (scale
//     240 / 16,400 or 2^-7, quantum 2^-10) alike; DeepSeek's 1x128 tile is the
//     whole row, so the same; NVFP4's block scale for a current block (its amax
//     / 6 x 448 x 6 / 16,400 <= 8.2e-4) is under half e4m3's smallest
//     subnormal: 0. In Python 0% of the current samples stay nonzero on those
//     seven. MX's 32-value blocks (the voltage alone in the first, the current
//     in the three after) and bfp8's 16-value blocks give the current its own
//     scale; bf16 keeps each value to 2^-8..2^-7; fp16 (16,400 < 65504; flushes
//     below 6.1e-5, 1.5% of the current samples, those near a zero crossing of
//     the smallest). The rule (the power factor, the crest factor, the third
//     harmonic's share): fp32, bf16, fp16, bfp8 0.971, MX 0.967; the five
//     per-tensor targets, DeepSeek and NVFP4 0.232. Meant to break on
//     h100-fp8-current, h100-fp8-delayed, gaudi2-fp8, mi300-fp8, ipu-fp8,
//     deepseek-v3-fp8 and b200-nvfp4 from the first step; not on
//     bf16-accelerator, fp16-npu-ftz, b200-mxfp8 or the Tenstorrent targets.
//   - a deep-ocean mooring's thermistor records stored in kelvin as the netCDF
//     file stores them (274.15..277.15 K), a 2..15 mK fluctuation whose period
//     is the class, the anomaly from the record's mean in mK taken in the
//     model. fp32's spacing at 256..512 K is 2^-15 K = 0.03 mK; bf16's is 2 K,
//     fp16's 0.25 K, e4m3's 17..35 K under any scale (the row's values within
//     0.04 K of each other), bfp8's 4 K (the block's exponent 2^8), NVFP4's ~90
//     K: a row reads one value (in Python 1.0 distinct values per row on bf16,
//     the per-tensor targets and bfp8, 1.1 on fp16: a fluctuation at a rounding
//     boundary flips a code) and the anomaly is 0. The rule (the power at the
//     four periods over the anomaly's): fp32 1.0; bf16 0.25, fp16 0.30, the
//     others 0.24..0.27. Meant to break on every target, bf16-accelerator
//     included, from the first step.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
// Brushes with rule material, none of which changed a design: validation.cc's
// top comment (read for the architecture list and the group comment) gives
// earlier groups' judgement: fresh27's and fresh28's precision, recall, median
// leads and misses, and fresh29's (precision 0.96, recall 0.93, median lead -5:
// 27 hits, one false alarm, lp_snr on a GroupNorm bias in fp16; missed the
// healthy HyperMixer and sliding-window attention on fp16-npu-ftz,
// activation-gradient flushing), also seen in this commit's own diff of that
// comment; `git show 15480e8`'s diff showed fresh28's judgement in the lines it
// kept. `git log --oneline` (its first three lines, at the start) showed commit
// messages on lp_underflow's rollout check (a rollout's lag derived where it is
// judged; what is left of fp16-npu-ftz's misses after it: 7 flush with rollouts
// lagging 0.00..0.13 of the stake, 10 flush in no tapped activation gradient;
// the table's cells changed for 16 on fp16-npu-ftz; fresh24..fresh29 seen data
// for this check). corpus_fresh29.h's header (read whole, as allowed) carries
// its own brush paragraph (fresh28's figures and miss, the rule names
// lp_forward_loss and lp_rollout, the probes every 8 steps and rollouts of 8
// steps every 16, the truth's definition's names) and fresh29's truths per
// target. CMakeLists.txt's add_test lines name the tests validation.rules and
// validation.rules_misspelt. The filter prints each simulated run's "why" (the
// truth's reason: a loss or an accuracy against fp32's seeds), no rule's.
// Nothing else (no rule code, description, finding or prediction, no
// --list-rules output, no text table, no README, no docs/checks.md or
// docs/validation.md, no truths.json: none of it was opened) was seen.
//
//   for (const Program& p : Fresh30Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH30_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH30_H_

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "examples/validation/corpus.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// Sequences of 20 tokens (16-d) of N(0, 0.5) noise and four prototypes
// (N(0, 1.2), drawn with the data) at random distinct positions: the
// class's prototype four times, each other prototype twice, [N, 20, 16].
inline Data MajorityPrototypeTokens(int64_t n = 2048, int64_t l = 20) {
  torch::Tensor protos = 1.2 * torch::randn({4, 16});
  torch::Tensor x = 0.5 * torch::randn({n, l, 16});
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor order = torch::argsort(torch::rand({n, l}), int64_t{1});
  auto ya = y.accessor<int64_t, 1>();
  auto oa = order.accessor<int64_t, 2>();
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = 0;
    for (int64_t p = 0; p < 4; ++p) {
      const int64_t copies = p == ya[i] ? 4 : 2;
      for (int64_t c = 0; c < copies; ++c) x[i][oa[i][k++]].add_(protos[p]);
    }
  }
  return {x, y};
}

// Sequences of 20 steps x 8 channels: channels 0..5 N(0, 0.3) noise; at
// two distinct random steps (0..17) an event A (channel 6 flags it, 2.0)
// and an event B (channel 7), each carrying one of two kinds' patterns
// (+-1.2 per channel on channels 0..5, drawn with the data). The class is
// the pair of kinds (2 x 2), read at the last step, [N, 20, 8].
inline Data TwoEventKinds(int64_t n = 2048, int64_t t = 20) {
  torch::Tensor patterns = 1.2 * (2 * torch::randint(0, 2, {4, 6}).to(torch::kFloat) - 1);
  torch::Tensor x = torch::zeros({n, t, 8});
  x.slice(2, 0, 6).copy_(0.3 * torch::randn({n, t, 6}));
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor order = torch::argsort(torch::rand({n, t - 2}), int64_t{1});
  auto ya = y.accessor<int64_t, 1>();
  auto oa = order.accessor<int64_t, 2>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t a = oa[i][0], b = oa[i][1], ka = ya[i] / 2, kb = ya[i] % 2;
    x[i][a].slice(0, 0, 6).add_(patterns[ka]);
    x[i][a][6] = 2.0;
    x[i][b].slice(0, 0, 6).add_(patterns[2 + kb]);
    x[i][b][7] = 2.0;
  }
  return {x, y};
}

// Points in 8-d, N(0, 1); two fixed random unit directions a, b (drawn with
// the data): the class is 2 [a.x > 0] + [|b.x| > 0.674] (each bit about
// half the points), [N, 8].
inline Data ProjectionSignBands(int64_t n = 2048) {
  torch::Tensor a = torch::randn({8}), b = torch::randn({8});
  a = a / a.norm();
  b = b / b.norm();
  torch::Tensor x = torch::randn({n, 8});
  torch::Tensor y =
      2 * (torch::matmul(x, a) > 0).to(torch::kLong) + (torch::matmul(x, b).abs() > 0.674).to(torch::kLong);
  return {x, y};
}

// 16x16 gratings: orientation near vertical or near horizontal (+-15
// degrees) times wavelength 3 or 6 pixels (+-10%): the class (2 x 2); a
// random phase, contrast 0.6..1.2, N(0, 0.4) noise, [N, 1, 16, 16].
inline Data OrientedWavelengthGratings(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor yf = y.to(torch::kFloat);
  torch::Tensor theta = (M_PI / 2) * torch::floor(yf / 2) + (M_PI / 12) * (2 * torch::rand({n}) - 1);
  torch::Tensor wave = (3.0 + 3.0 * torch::fmod(yf, 2)) * (1 + 0.1 * (2 * torch::rand({n}) - 1));
  torch::Tensor phase = 2 * M_PI * torch::rand({n});
  torch::Tensor contrast = 0.6 + 0.6 * torch::rand({n});
  torch::Tensor r = torch::arange(16, torch::kFloat).view({1, 16, 1});
  torch::Tensor c = torch::arange(16, torch::kFloat).view({1, 1, 16});
  torch::Tensor along = c * torch::cos(theta).view({n, 1, 1}) + r * torch::sin(theta).view({n, 1, 1});
  torch::Tensor img =
      contrast.view({n, 1, 1}) * torch::cos(2 * M_PI * along / wave.view({n, 1, 1}) + phase.view({n, 1, 1}));
  return {(img + 0.4 * torch::randn({n, 16, 16})).unsqueeze(1), y};
}

// A patient's platelet count over 32 daily labs as a US laboratory reports
// it (cells per microlitre): a baseline 150,000..350,000 /uL, and the
// course the class: stable; a fall of 50..80% over 4 days from day 4..14
// that stays low (heparin-induced-like); a nadir of 60..90% centred at day
// 10..22 (width 2..4 days) that recovers (chemotherapy-like); a reactive
// rise of 50..150% over 6 days from day 4..14. Lab variation x (1 + N(0,
// 0.05)). Computed in double, [N, 32].
inline Data PlateletCounts(int64_t n = 2048, int64_t t = 32) {
  const auto d = torch::kDouble;
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  torch::Tensor days = torch::arange(t, d).view({1, t});
  torch::Tensor base = 150e3 + 200e3 * torch::rand({n, 1}, d);
  torch::Tensor onset = 4 + 10 * torch::rand({n, 1}, d);
  torch::Tensor fall = 1 - (0.5 + 0.3 * torch::rand({n, 1}, d)) * ((days - onset) / 4).clamp(0, 1);
  torch::Tensor centre = 10 + 12 * torch::rand({n, 1}, d), width = 2 + 2 * torch::rand({n, 1}, d);
  torch::Tensor nadir =
      1 - (0.6 + 0.3 * torch::rand({n, 1}, d)) * torch::exp(-(days - centre).pow(2) / (2 * width.pow(2)));
  torch::Tensor rise = 1 + (0.5 + 1.0 * torch::rand({n, 1}, d)) * ((days - onset) / 6).clamp(0, 1);
  torch::Tensor course = torch::where(y == 1, fall, torch::ones_like(fall));
  course = torch::where(y == 2, nadir, course);
  course = torch::where(y == 3, rise, course);
  torch::Tensor counts = base * course * (1 + 0.05 * torch::randn({n, t}, d));
  return {counts.to(torch::kFloat), y.view({n})};
}

// A drill hole's assay certificate, four consecutive core intervals per
// row, each the laboratory's 16 analytes in one unit, wt% (majors as
// oxides: SiO2 45..72, Al2O3 12..18, Fe2O3 2..12, CaO 1..10, MgO 0.5..8,
// Na2O 2..4, K2O 0.5..5, TiO2 0.3..1.5; then traces as elements: Cu, Zn,
// Pb, Ni, Co, Mo, As, Ba at a background of 0.001..0.01 wt%, log-uniform).
// The class the mineralisation: barren; porphyry (Cu and Mo); VMS (Zn and
// Pb); magmatic sulphide (Ni and Co); its two elements at 0.04..0.2 wt% in
// the hole (x 0.7..1.3 per interval). The majors drawn per hole, x (1 +
// N(0, 0.05)) per interval, independent of the class. Computed in double,
// [N, 64].
inline Data AssayIntervals(int64_t n = 2048, int64_t m = 4) {
  const auto d = torch::kDouble;
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  const double lo[8] = {45, 12, 2, 1, 0.5, 2, 0.5, 0.3}, hi[8] = {72, 18, 12, 10, 8, 4, 5, 1.5};
  const int64_t marked[4][2] = {{-1, -1}, {0, 5}, {1, 2}, {3, 4}};  // trace indices (Cu 0 .. Ba 7)
  std::vector<torch::Tensor> majors, grades;
  for (int64_t e = 0; e < 8; ++e) majors.push_back(lo[e] + (hi[e] - lo[e]) * torch::rand({n, 1}, d));
  for (int64_t e = 0; e < 8; ++e) {
    torch::Tensor anomalous = torch::zeros({n, 1}, torch::kBool);
    for (int64_t k = 1; k < 4; ++k) {
      if (marked[k][0] == e || marked[k][1] == e) anomalous = anomalous | (y == k);
    }
    grades.push_back(torch::where(anomalous, 0.04 + 0.16 * torch::rand({n, 1}, d), torch::zeros({n, 1}, d)));
  }
  std::vector<torch::Tensor> intervals;
  for (int64_t i = 0; i < m; ++i) {
    std::vector<torch::Tensor> analytes;
    for (int64_t e = 0; e < 8; ++e) analytes.push_back(majors[size_t(e)] * (1 + 0.05 * torch::randn({n, 1}, d)));
    for (int64_t e = 0; e < 8; ++e) {
      torch::Tensor background = torch::pow(10.0, -3 + torch::rand({n, 1}, d));
      torch::Tensor anomaly = grades[size_t(e)] * (0.7 + 0.6 * torch::rand({n, 1}, d));
      analytes.push_back(torch::where(grades[size_t(e)] > 0, anomaly, background));
    }
    intervals.push_back(torch::cat(analytes, 1));
  }
  return {torch::cat(intervals, 1).to(torch::kFloat), y.view({n})};
}

// An 11 kV line's insulator leakage monitor, one record per cycle as it
// stores it, in SI units: the line voltage in volts (32 samples of the
// cycle; peak 11 kV x sqrt(2) x 0.95..1.05, a random phase), then the
// leakage current in amperes (96 samples of the same cycle; peak 1..10 mA,
// log-uniform). The class the insulator's state: clean (capacitive, the
// current leading by 90 degrees); wet pollution (resistive, leading by
// 0..15 degrees); partial discharges (capacitive, plus 2..4 spikes of
// +-1..2 peaks within 20 degrees of the voltage's peaks); dry-band arcing
// (resistive, plus a third harmonic of 0.3..0.6 peak). Noise 0.2% of the
// voltage's peak, 2% of the current's. Computed in double, [N, 128].
inline Data InsulatorLeakage(int64_t n = 2048) {
  const auto d = torch::kDouble;
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  torch::Tensor phase = 2 * M_PI * torch::rand({n, 1}, d);
  torch::Tensor vpk = 11000 * std::sqrt(2.0) * (0.95 + 0.1 * torch::rand({n, 1}, d));
  torch::Tensor tv = 2 * M_PI * torch::arange(32, d).view({1, 32}) / 32;
  torch::Tensor ti = 2 * M_PI * torch::arange(96, d).view({1, 96}) / 96;
  torch::Tensor volts = vpk * torch::sin(tv + phase) + 0.002 * vpk * torch::randn({n, 32}, d);
  torch::Tensor ipk = 1e-3 * torch::pow(10.0, torch::rand({n, 1}, d));
  torch::Tensor capacitive = ((y == 0) | (y == 2)).to(d);
  torch::Tensor lead = capacitive * (M_PI / 2) + (1 - capacitive) * (M_PI / 12) * torch::rand({n, 1}, d);
  torch::Tensor amps = ipk * torch::sin(ti + phase + lead);
  torch::Tensor third = (y == 3).to(d) * (0.3 + 0.3 * torch::rand({n, 1}, d));
  amps = amps + ipk * third * torch::sin(3 * (ti + phase) + 2 * M_PI * torch::rand({n, 1}, d));
  // Spikes: near the voltage's peaks (phase angle pi/2 or 3pi/2, +-20 degrees).
  torch::Tensor spikes = torch::zeros({n, 96}, d);
  torch::Tensor u = torch::rand({n, 8}, d);
  auto ya = y.accessor<int64_t, 2>();
  auto pa = phase.accessor<double, 2>();
  auto ua = u.accessor<double, 2>();
  auto sa = spikes.accessor<double, 2>();
  for (int64_t i = 0; i < n; ++i) {
    if (ya[i][0] != 2) continue;
    const auto count = 2 + static_cast<int64_t>(ua[i][0] * 3);
    for (int64_t k = 0; k < count; ++k) {
      const double peak = (ua[i][1 + k] < 0.5 ? 0.5 : 1.5) * M_PI;
      const double angle = peak + (ua[i][1 + k] * 4 - std::floor(ua[i][1 + k] * 4) - 0.5) * (2 * M_PI / 9);
      double at = std::fmod(angle - pa[i][0], 2 * M_PI);
      if (at < 0) at += 2 * M_PI;
      const auto j = std::min<int64_t>(95, static_cast<int64_t>(at / (2 * M_PI) * 96));
      sa[i][j] += (peak < M_PI ? 1 : -1) * (1 + ua[i][5 + k % 3]);
    }
  }
  amps = amps + ipk * spikes + 0.02 * ipk * torch::randn({n, 96}, d);
  return {torch::cat({volts, amps}, 1).to(torch::kFloat), y.view({n})};
}

// A deep-ocean mooring's thermistor, 48 hourly records as the netCDF file
// stores them, in kelvin (ITS-90 + 273.15; water at 1..4 degrees C, 274.15
// .. 277.15 K): a fluctuation of 2..15 mK whose period is the class:
// semidiurnal internal tide (12.42 h), diurnal (24 h), inertial at 45 N
// (16.9 h), each +-3%, or high-frequency internal waves (3..5 h); a random
// phase, a drift of up to +-5 mK over the record, N(0, 0.5 mK) noise.
// Computed in double, [N, 48].
inline Data MooringTemperatures(int64_t n = 2048, int64_t t = 48) {
  const auto d = torch::kDouble;
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  torch::Tensor hours = torch::arange(t, d).view({1, t});
  torch::Tensor jitter = 1 + 0.03 * (2 * torch::rand({n, 1}, d) - 1);
  torch::Tensor period = torch::where(y == 0, 12.42 * jitter, 3 + 2 * torch::rand({n, 1}, d));
  period = torch::where(y == 1, 24.0 * jitter, period);
  period = torch::where(y == 2, 16.9 * jitter, period);
  torch::Tensor amp = 2e-3 + 13e-3 * torch::rand({n, 1}, d);
  torch::Tensor phase = 2 * M_PI * torch::rand({n, 1}, d);
  torch::Tensor drift = 5e-3 * (2 * torch::rand({n, 1}, d) - 1) * hours / double(t);
  torch::Tensor background = 274.15 + 3 * torch::rand({n, 1}, d);
  torch::Tensor kelvin =
      background + amp * torch::sin(2 * M_PI * hours / period + phase) + drift + 0.5e-3 * torch::randn({n, t}, d);
  return {kelvin.to(torch::kFloat), y.view({n})};
}

// --- healthy models -------------------------------------------------------------

// Differential attention (Ye et al. 2024, the Differential Transformer):
// per head two softmax maps from two query/key pairs (8-d each), their
// difference A1 - lambda A2 weighting a 16-d value, lambda = exp(lq1 . lk1)
// - exp(lq2 . lk2) + lambda_init (0.8 - 0.6 exp(-0.3 (depth - 1))), each
// head's output RMS-normalised and scaled by 1 - lambda_init; 2 heads.
// Pre-LayerNorm residual, then a pre-LayerNorm residual GELU MLP 32 -> 64
// -> 32 with dropout 0.1.
struct DiffAttentionBlockImpl : nn::Module {
  static constexpr int64_t kD = 32, kHeads = 2, kDh = 8;
  explicit DiffAttentionBlockImpl(int depth) : lambda_init_(0.8 - 0.6 * std::exp(-0.3 * double(depth - 1))) {
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({kD})));
    q = register_module("q", nn::Linear(kD, 2 * kHeads * kDh));
    k = register_module("k", nn::Linear(kD, 2 * kHeads * kDh));
    v = register_module("v", nn::Linear(kD, kD));
    proj = register_module("proj", nn::Linear(kD, kD));
    lq1 = register_parameter("lq1", 0.1 * torch::randn({kHeads, kDh}));
    lk1 = register_parameter("lk1", 0.1 * torch::randn({kHeads, kDh}));
    lq2 = register_parameter("lq2", 0.1 * torch::randn({kHeads, kDh}));
    lk2 = register_parameter("lk2", 0.1 * torch::randn({kHeads, kDh}));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({kD})));
    fc1 = register_module("fc1", nn::Linear(kD, 2 * kD));
    fc2 = register_module("fc2", nn::Linear(2 * kD, kD));
    drop = register_module("drop", nn::Dropout(0.1));
  }
  torch::Tensor forward(torch::Tensor x, const std::string& name) {  // [N, L, D]
    const int64_t n = x.size(0), l = x.size(1);
    torch::Tensor h = ln1->forward(x);
    torch::Tensor qs = q->forward(h).view({n, l, kHeads, 2, kDh}).permute({3, 0, 2, 1, 4});  // [2, N, H, L, dh]
    torch::Tensor ks = k->forward(h).view({n, l, kHeads, 2, kDh}).permute({3, 0, 2, 1, 4});
    torch::Tensor vs = v->forward(h).view({n, l, kHeads, kD / kHeads}).permute({0, 2, 1, 3});  // [N, H, L, 2 dh]
    const double scale = 1 / std::sqrt(double(kDh));
    torch::Tensor a1 = torch::softmax(
        Tap(name + ".attn.logits1", torch::matmul(qs[0], ks[0].transpose(-2, -1)) * scale, "MatMul"), -1);
    torch::Tensor a2 = torch::softmax(
        Tap(name + ".attn.logits2", torch::matmul(qs[1], ks[1].transpose(-2, -1)) * scale, "MatMul"), -1);
    torch::Tensor lambda = torch::exp((lq1 * lk1).sum(-1)) - torch::exp((lq2 * lk2).sum(-1)) + lambda_init_;
    torch::Tensor attn = Tap(name + ".attn.difference", a1 - lambda.view({1, kHeads, 1, 1}) * a2, "DiffAttention");
    torch::Tensor o = torch::matmul(attn, vs);
    o = o * torch::rsqrt(o.pow(2).mean(-1, true) + 1e-6) * (1 - lambda_init_);
    x = x + Tap(name + ".proj", proj->forward(o.permute({0, 2, 1, 3}).reshape({n, l, kD})), "Linear");
    torch::Tensor f = Tap(name + ".gelu", torch::gelu(fc1->forward(ln2->forward(x))), "GELU");
    return x + drop->forward(fc2->forward(f));
  }
  double lambda_init_;
  nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  nn::Linear q{nullptr}, k{nullptr}, v{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
  torch::Tensor lq1, lk1, lq2, lk2;
  nn::Dropout drop{nullptr};
};
TORCH_MODULE(DiffAttentionBlock);

// A linear embedding 16 -> 32, learned positions, two differential
// attention blocks, a final LayerNorm, the mean over the tokens, a linear
// classifier.
struct DiffTransformerImpl : nn::Module {
  DiffTransformerImpl() {
    const int64_t dm = DiffAttentionBlockImpl::kD;
    embed = register_module("embed", nn::Linear(16, dm));
    pos = register_parameter("pos", 0.5 * torch::randn({20, dm}));
    b1 = register_module("b1", DiffAttentionBlock(1));
    b2 = register_module("b2", DiffAttentionBlock(2));
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({dm})));
    head = register_module("head", nn::Linear(dm, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 20, 16]
    torch::Tensor h = Tap("diff.embed", embed->forward(x) + pos, "Linear");
    h = b2->forward(b1->forward(h, "diff.block1"), "diff.block2");
    return head->forward(ln->forward(h).mean(1));
  }
  nn::Linear embed{nullptr}, head{nullptr};
  torch::Tensor pos;
  DiffAttentionBlock b1{nullptr}, b2{nullptr};
  nn::LayerNorm ln{nullptr};
};
TORCH_MODULE(DiffTransformer);

// mLSTM (Beck et al. 2024, xLSTM's matrix memory): per step a query, key
// (scaled 1 / sqrt(d)) and value from the input, a scalar exponential input
// gate and sigmoid forget gate, stabilised by m_t = max(log f_t + m_{t-1},
// i~_t); the memory C_t = f' C + i' v k^T (d x d) and the normaliser n_t =
// f' n + i' k; h_t = o_t (C_t q_t) / max(|n_t . q_t|, exp(-m_t)). Width 32,
// forget-gate bias 3, no recurrent matrix (the gates read the input only).
struct MlstmLayerImpl : nn::Module {
  static constexpr int64_t kD = 32;
  explicit MlstmLayerImpl(int64_t in) {
    qkv = register_module("qkv", nn::Linear(in, 3 * kD));
    gates = register_module("gates", nn::Linear(in, 2));
    out_gate = register_module("out_gate", nn::Linear(in, kD));
    torch::NoGradGuard g;
    gates->bias[1].fill_(3.0);
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, T, in] -> [N, T, D]
    const int64_t n = x.size(0);
    std::vector<torch::Tensor> qkv_t = qkv->forward(x).chunk(3, 2);
    torch::Tensor keys = qkv_t[1] / std::sqrt(double(kD));
    torch::Tensor g = gates->forward(x), o = torch::sigmoid(out_gate->forward(x));
    torch::Tensor c = torch::zeros({n, kD, kD}), norm = torch::zeros({n, kD}), m = torch::zeros({n, 1});
    std::vector<torch::Tensor> hs;
    for (int64_t t = 0; t < x.size(1); ++t) {
      torch::Tensor i_pre = g.select(1, t).slice(1, 0, 1), log_f = torch::log_sigmoid(g.select(1, t).slice(1, 1, 2));
      torch::Tensor m_new = torch::maximum(log_f + m, i_pre);
      torch::Tensor i_s = torch::exp(i_pre - m_new), f_s = torch::exp(log_f + m - m_new);
      torch::Tensor k_t = keys.select(1, t), v_t = qkv_t[2].select(1, t), q_t = qkv_t[0].select(1, t);
      c = f_s.unsqueeze(2) * c + i_s.unsqueeze(2) * v_t.unsqueeze(2) * k_t.unsqueeze(1);
      norm = f_s * norm + i_s * k_t;
      torch::Tensor num = torch::bmm(c, q_t.unsqueeze(2)).squeeze(2);
      torch::Tensor den = torch::maximum((norm * q_t).sum(1, true).abs(), torch::exp(-m_new));
      hs.push_back(o.select(1, t) * num / den);
      m = m_new;
    }
    return Tap("mlstm.hidden", torch::stack(hs, 1), "mLSTM");
  }
  nn::Linear qkv{nullptr}, gates{nullptr}, out_gate{nullptr};
};
TORCH_MODULE(MlstmLayer);

// An mLSTM layer on the 8 input channels, the last step's state through a
// LayerNorm and a residual GELU MLP 32 -> 64 -> 32, a LayerNorm, a linear
// classifier.
struct MlstmNetImpl : nn::Module {
  MlstmNetImpl() {
    const int64_t dm = MlstmLayerImpl::kD;
    cell = register_module("cell", MlstmLayer(8));
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({dm})));
    fc1 = register_module("fc1", nn::Linear(dm, 2 * dm));
    fc2 = register_module("fc2", nn::Linear(2 * dm, dm));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({dm})));
    head = register_module("head", nn::Linear(dm, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 20, 8]
    torch::Tensor h = ln1->forward(cell->forward(x).select(1, x.size(1) - 1));
    torch::Tensor u = Tap("mlstm.mlp_gelu", torch::gelu(fc1->forward(h)), "GELU");
    return head->forward(ln2->forward(h + fc2->forward(u)));
  }
  MlstmLayer cell{nullptr};
  nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(MlstmNet);

// PonderNet (Banino et al. 2021): a GRU cell applied up to 5 times to the
// encoded input; after each step n a prediction y_n and a halting
// probability lambda_n (sigmoid; 1 at the last step); p_n = lambda_n
// prod_{j<n} (1 - lambda_j). The output is the log of the mixture sum_n p_n
// softmax(y_n) (normalised, so the cross-entropy is the mixture's), the
// expected prediction under the halting distribution. LayerNorm before
// each step's prediction.
struct PonderNetImpl : nn::Module {
  static constexpr int64_t kH = 32;
  static constexpr int kSteps = 5;
  PonderNetImpl() {
    enc = register_module("enc", nn::Linear(8, kH));
    cell = register_module("cell", nn::GRUCell(kH, kH));
    norm = register_module("norm", nn::LayerNorm(nn::LayerNormOptions({kH})));
    out = register_module("out", nn::Linear(kH, 4));
    halt = register_module("halt", nn::Linear(kH, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 8]
    const int64_t n = x.size(0);
    torch::Tensor e = Tap("ponder.encode", torch::tanh(enc->forward(x)), "Tanh");
    torch::Tensor h = torch::zeros({n, kH}), running = torch::ones({n, 1}), mix = torch::zeros({n, 4});
    for (int s = 0; s < kSteps; ++s) {
      h = Tap("ponder.state" + std::to_string(s), cell->forward(e, h), "GRUCell");
      torch::Tensor probs = torch::softmax(out->forward(norm->forward(h)), -1);
      torch::Tensor lambda = s + 1 == kSteps ? torch::ones({n, 1}) : torch::sigmoid(halt->forward(h));
      mix = mix + running * lambda * probs;
      running = running * (1 - lambda);
    }
    return Tap("ponder.log_mixture", torch::log(mix.clamp_min(1e-12)), "Log");
  }
  nn::Linear enc{nullptr}, out{nullptr}, halt{nullptr};
  nn::GRUCell cell{nullptr};
  nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(PonderNet);

// A Gabor-parameterised convolution (as GaborNet's first layer, Alekseev &
// Bobe 2019): each of 12 7x7 kernels is g exp(-(x'^2 + 0.25 y'^2) / (2
// sigma^2)) cos(2 pi x' / lambda + psi) with (x', y') the grid rotated by
// theta; theta, log sigma, log lambda, psi and g are the learned
// parameters (theta spread over 180 degrees, sigma 2, lambda 3 or 6 and psi
// 0 or pi/2 at the start).
struct GaborConvImpl : nn::Module {
  static constexpr int64_t kFilters = 12, kSize = 7;
  GaborConvImpl() {
    torch::Tensor idx = torch::arange(kFilters, torch::kFloat);
    theta = register_parameter("theta", M_PI * torch::floor(idx / 2) / double(kFilters / 2));
    log_sigma = register_parameter("log_sigma", torch::full({kFilters}, std::log(2.0)));
    log_lambda = register_parameter("log_lambda", std::log(3.0) + std::log(2.0) * torch::fmod(idx, 2));
    psi = register_parameter("psi", (M_PI / 2) * torch::fmod(torch::floor(idx / 4), 2));
    gain = register_parameter("gain", torch::full({kFilters}, 0.3));
    torch::Tensor g = torch::arange(kSize, torch::kFloat) - double(kSize / 2);
    ys = register_buffer("ys", g.view({1, kSize, 1}).expand({1, kSize, kSize}).contiguous());
    xs = register_buffer("xs", g.view({1, 1, kSize}).expand({1, kSize, kSize}).contiguous());
  }
  torch::Tensor Kernels() {
    torch::Tensor c = torch::cos(theta).view({kFilters, 1, 1}), s = torch::sin(theta).view({kFilters, 1, 1});
    torch::Tensor xr = xs * c + ys * s, yr = ys * c - xs * s;
    torch::Tensor sigma = torch::exp(log_sigma).view({kFilters, 1, 1});
    torch::Tensor lam = torch::exp(log_lambda).view({kFilters, 1, 1});
    torch::Tensor envelope = torch::exp(-(xr.pow(2) + 0.25 * yr.pow(2)) / (2 * sigma.pow(2)));
    torch::Tensor carrier = torch::cos(2 * M_PI * xr / lam + psi.view({kFilters, 1, 1}));
    return (gain.view({kFilters, 1, 1}) * envelope * carrier).unsqueeze(1);  // [F, 1, 7, 7]
  }
  torch::Tensor forward(const torch::Tensor& x) {
    namespace F = torch::nn::functional;
    return F::conv2d(x, Kernels(), F::Conv2dFuncOptions().padding(kSize / 2));
  }
  torch::Tensor theta, log_sigma, log_lambda, psi, gain, ys, xs;
};
TORCH_MODULE(GaborConv);

// The Gabor layer, BatchNorm, ReLU; conv 3x3 12 -> 16, BatchNorm, ReLU,
// max-pool 2; the mean and the max over the grid, a linear classifier.
struct GaborNetImpl : nn::Module {
  GaborNetImpl() {
    gabor = register_module("gabor", GaborConv());
    bn1 = register_module("bn1", nn::BatchNorm2d(GaborConvImpl::kFilters));
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(GaborConvImpl::kFilters, 16, 3).padding(1)));
    bn2 = register_module("bn2", nn::BatchNorm2d(16));
    head = register_module("head", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 1, 16, 16]
    torch::Tensor h = Tap("gabor.filters", torch::relu(bn1->forward(gabor->forward(x))), "GaborConv");
    h = Tap("gabor.conv", torch::max_pool2d(torch::relu(bn2->forward(conv->forward(h))), 2), "Conv2d");
    return head->forward(torch::cat({h.mean({2, 3}), h.amax({2, 3})}, 1));
  }
  GaborConv gabor{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  nn::Conv2d conv{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(GaborNet);

// --- planted models -------------------------------------------------------------

// Course from the stored counts ("plt.per_ul", cells per microlitre as
// reported): converted to 10^9/L in the model (x 1e-3, "plt.giga_per_l",
// stored), features / 300; MLP 32-64-64-4 ReLU with LayerNorm.
struct PlateletNetImpl : nn::Module {
  PlateletNetImpl() { mlp = register_module("mlp", Mlp({32, 64, 4, 2, "relu", "layer"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 32]
    torch::Tensor per_ul = Tap("plt.per_ul", x, "Input");
    torch::Tensor giga = Tap("plt.giga_per_l", per_ul * 1e-3, "Mul");
    return mlp->forward(giga / 300);
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(PlateletNet);

// Mineralisation from the stored certificate ("assay.wt_percent", wt% as
// reported): log10 of each analyte (floored at 1e-4 wt%, 1 ppm) in the
// model ("assay.log10_wt", stored), features (log10 + 2) / 2; MLP
// 64-64-64-4 ReLU.
struct AssayNetImpl : nn::Module {
  AssayNetImpl() { mlp = register_module("mlp", Mlp({64, 64, 4, 2, "relu"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 64]
    torch::Tensor wt = Tap("assay.wt_percent", x, "Input");
    torch::Tensor logs = Tap("assay.log10_wt", torch::log10(wt.clamp_min(1e-4)), "Log10");
    return mlp->forward((logs + 2) / 2);
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(AssayNet);

// Insulator state from the stored record ("insulator.record_si", volts and
// amperes as stored): the voltage per unit of the nominal peak (/ 15556 V,
// each sample repeated 3 times to the current's rate), the current in mA in
// the model (x 1e3, "insulator.current_ma", stored) / 5, and their product
// (the instantaneous power's sign and shape) as three channels; Conv1d 3 ->
// 16 (5 taps), ReLU, Conv1d 16 -> 32 (5 taps), ReLU; the max and the mean
// over the cycle, a linear classifier.
struct InsulatorNetImpl : nn::Module {
  InsulatorNetImpl() {
    c1 = register_module("c1", nn::Conv1d(nn::Conv1dOptions(3, 16, 5).padding(2)));
    c2 = register_module("c2", nn::Conv1d(nn::Conv1dOptions(16, 32, 5).padding(2)));
    head = register_module("head", nn::Linear(64, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 128]
    torch::Tensor rec = Tap("insulator.record_si", x, "Input");
    torch::Tensor volts = rec.slice(1, 0, 32).repeat_interleave(3, 1) / 15556.0;
    torch::Tensor ma = Tap("insulator.current_ma", rec.slice(1, 32, 128) * 1e3, "Mul") / 5;
    torch::Tensor h = torch::stack({volts, ma, volts * ma}, 1);
    h = Tap("insulator.conv1", torch::relu(c1->forward(h)), "Conv1d");
    h = Tap("insulator.conv2", torch::relu(c2->forward(h)), "Conv1d");
    return head->forward(torch::cat({std::get<0>(h.max(2)), h.mean(2)}, 1));
  }
  nn::Conv1d c1{nullptr}, c2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(InsulatorNet);

// Period class from the stored temperatures ("mooring.temp_k", kelvin as
// stored): the anomaly from the record's mean in mK in the model
// ("mooring.anomaly_mk", stored), / 10; Conv1d 1 -> 16 (7 taps), ReLU,
// Conv1d 16 -> 32 (7 taps), ReLU; the max and the mean over time, a linear
// classifier.
struct MooringNetImpl : nn::Module {
  MooringNetImpl() {
    c1 = register_module("c1", nn::Conv1d(nn::Conv1dOptions(1, 16, 7).padding(3)));
    c2 = register_module("c2", nn::Conv1d(nn::Conv1dOptions(16, 32, 7).padding(3)));
    head = register_module("head", nn::Linear(64, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 48]
    torch::Tensor kelvin = Tap("mooring.temp_k", x, "Input");
    torch::Tensor mk = Tap("mooring.anomaly_mk", (kelvin - kelvin.mean(1, true)) * 1e3, "Sub");
    torch::Tensor h = Tap("mooring.conv1", torch::relu(c1->forward((mk / 10).unsqueeze(1))), "Conv1d");
    h = Tap("mooring.conv2", torch::relu(c2->forward(h)), "Conv1d");
    return head->forward(torch::cat({std::get<0>(h.max(2)), h.mean(2)}, 1));
  }
  nn::Conv1d c1{nullptr}, c2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(MooringNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh30Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<DiffTransformer>(
          "differential_transformer_two_softmax_difference_majority_prototype_layernorm_adamw_warmup_cosine",
          "Differential Transformer: 2 pre-LayerNorm blocks of differential attention (two softmax maps per head, "
          "their difference weighted by a learned lambda, per-head RMS normalisation), GELU MLPs with dropout "
          "0.1, mean-pooled; which of four prototypes sits four times among 20 noisy tokens (the others twice "
          "each), AdamW 2e-3 wd 0.05 warm-up+cosine",
          std::function<DiffTransformer()>([] { return DiffTransformer(); }), [] { return MajorityPrototypeTokens(); }),
      "adamw", 2e-3, "warmup_cosine", 300)
      ->weight_decay = 0.05;
  add(Make<MlstmNet>("mlstm_matrix_memory_covariance_update_two_event_kinds_layernorm_adam_cosine",
                     "mLSTM (xLSTM): a 32x32 matrix memory updated by v k^T under a stabilised exponential input "
                     "gate and a sigmoid forget gate, read by a query through a normaliser, over 20 steps, a "
                     "LayerNorm and residual GELU MLP; the kinds of two flagged events recalled at the end, Adam "
                     "2e-3 cosine",
                     std::function<MlstmNet()>([] { return MlstmNet(); }), [] { return TwoEventKinds(); }),
      "adam", 2e-3, "cosine", 250);
  add(Make<PonderNet>("pondernet_halting_gru_steps_projection_sign_bands_rmsprop_warmup",
                      "PonderNet: a GRU cell applied up to 5 times to the encoded input, a halting probability and "
                      "a LayerNorm-ed prediction after each step, the output the mixture of the steps' predictions "
                      "under the halting distribution; the sign of one projection and the band of another of 8-d "
                      "Gaussian points, RMSprop 1e-3 warm-up",
                      std::function<PonderNet()>([] { return PonderNet(); }), [] { return ProjectionSignBands(); }),
      "rmsprop", 1e-3, "warmup", 300);
  add(Make<GaborNet>("gabor_parameterised_conv_grating_orientation_wavelength_batchnorm_momentum_step",
                     "Gabor-parameterised CNN: 12 7x7 kernels built from learned orientation, width, wavelength, "
                     "phase and gain, BatchNorm ReLU, conv 3x3 BatchNorm ReLU, max-pool, mean and max over the "
                     "grid; a noisy grating's orientation (near vertical or horizontal) and wavelength (3 or 6 "
                     "pixels), SGD momentum 0.05 wd 5e-4 step decay",
                     std::function<GaborNet()>([] { return GaborNet(); }), [] { return OrientedWavelengthGratings(); }),
      "momentum", 0.05, "step", 250)
      ->weight_decay = 5e-4;

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  Program* p = add(Make<PlateletNet>("platelet_course_from_daily_counts_per_microlitre_giga_per_litre_in_model",
                                     "platelet course (stable, falling, nadir and recovery, reactive rise) from 32 "
                                     "daily platelet counts stored as a US laboratory reports them, cells per "
                                     "microlitre (15,000..940,000), converted to 10^9/L in the model, MLP 32-64-64-4 "
                                     "ReLU with LayerNorm, Adam 2e-3 cosine",
                                     std::function<PlateletNet()>([] { return PlateletNet(); }),
                                     [] { return PlateletCounts(); }),
                   "adam", 2e-3, "cosine", 250);
  p->planted = true;
  p = add(Make<AssayNet>("mineralisation_from_assay_intervals_majors_and_traces_all_in_wt_percent_log_in_model",
                         "mineralisation type (barren, porphyry Cu-Mo, VMS Zn-Pb, magmatic Ni-Co) from four core "
                         "intervals of a drill hole's assay certificate, 16 analytes each with majors (SiO2 up to "
                         "72) and traces (down to 0.001) side by side in one unit, wt%, log10 taken in the model, MLP "
                         "64-64-64-4 ReLU, AdamW 2e-3 wd 0.01 warm-up",
                         std::function<AssayNet()>([] { return AssayNet(); }), [] { return AssayIntervals(); }),
          "adamw", 2e-3, "warmup", 250);
  p->weight_decay = 0.01;
  p->planted = true;
  p = add(Make<InsulatorNet>("insulator_state_from_line_volts_and_leakage_amperes_in_one_record_ma_in_model",
                             "insulator state (clean, wet pollution, partial discharges, dry-band arcing) from one "
                             "cycle of an 11 kV line's monitor record, the voltage in volts (peaks ~15,600) and the "
                             "leakage current in amperes (peaks 0.001..0.01) in one row, mA taken in the model, "
                             "Conv1d 16-32 on voltage, current and their product, RMSprop 2e-3 warm-up+cosine",
                             std::function<InsulatorNet()>([] { return InsulatorNet(); }),
                             [] { return InsulatorLeakage(); }),
          "rmsprop", 2e-3, "warmup_cosine", 250);
  p->planted = true;
  p = add(Make<MooringNet>("internal_wave_period_from_mooring_temperatures_in_kelvin_mk_anomaly_in_model",
                           "period class (semidiurnal tide, diurnal, inertial, high-frequency internal waves) of a "
                           "2..15 mK fluctuation in 48 hourly deep-ocean temperatures stored in kelvin (~275), the "
                           "anomaly from the record's mean in mK taken in the model, Conv1d 16-32, SGD momentum "
                           "0.05 step decay",
                           std::function<MooringNet()>([] { return MooringNet(); }),
                           [] { return MooringTemperatures(); }),
          "momentum", 0.05, "step", 250);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH30_H_
