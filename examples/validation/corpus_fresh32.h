// The fresh32 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh31 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor any
// prediction was looked at), so that the rules can be measured on trainings
// nobody tuned anything against. What was looked at: /work/shared/STYLE.md;
// corpus_fresh31.h whole (for the conventions and its header's form);
// corpus.h whole (Tap, Data, MlpSpec and Mlp, Program, Make, ProgramAdder,
// the first programs); examples/common/training.h lines 70..115
// (MakeOptimizer and LrAt); `git show fc1c688` of CMakeLists.txt and
// validation.cc (fresh31's registration); validation.cc's LossOf and
// training-loop lines (320..340 and 440..500: the loss, the accuracy, the
// data seeded with 7, the probe closure) and its group comment (180..200,
// edited here); examples/validation/truth.h's first 140 lines (the truth's
// definition: the final window, the tolerances, the break step);
// tracker/tracker.h lines 90..145 and 260..305 (simulate mode and tap);
// docs/formats.md and docs/targets.md; targets/*.json (every role of every
// target printed by a script: format, scaling, rounding, subnormals,
// saturation); /work/f32tools/blind_filter.py whole; the corpus headers
// grepped for the words of the architectures and practices considered here
// (file names only: zero_init_residual, zero-init, zero-initialised gamma,
// goyal, gamma, skipinit, skip init, deepnorm, admin, flamingo, gated cross,
// cross-attention, cross attention, tanh gate, tanh(alpha, highway,
// transform gate, carry gate, wavenet, dilated, causal conv, gated
// activation, mixture of experts, moe, deepsets, deep sets, pointnet,
// squeeze, excitation, capsule, set transformer, isab, induced, inducing,
// pma, pooling by multihead, perceiver, tabnet, gmlp, spatial gating, lora,
// adapter, controlnet, zero conv, t-fixup, gait, imu, accelerometer,
// activity, bn2.weight, last bn, batchnorm gamma, weight.zero_; harmonic,
// thd, power quality, fundamental, volcan, seismic, eruption, adc count,
// 24-bit, digitizer, digitiser, furnace, kiln, thermocouple, burner, ramp,
// firing, kelvin, celsius, degc, ac coupl, ac-coupl, offset, drift, run-up,
// runup, run up, order spectrum, orders, unbalance, rpm, radio source,
// jansky, " jy", flux density, spectral index, gps source, peaked, optical,
// terahertz, thz, 1e14, 1e12, 1e13, 2^-32, 240 x 2^32, 1.03e12, wavemeter,
// frequency comb, spectral line, emission line, metres, in m, rut, tread,
// tyre, pavement, laser profil), and the lines of the hits near the words
// weighed: "zero_init_residual" only in fresh28's ReZero program's name,
// zero-initialised 1x1 convolutions in corpus_fresh23.h, SkipInit and
// DeepNorm only in corpus_fresh31.h's list of grepped words, highway and
// WaveNet in corpus_fresh6.h and corpus_fresh30.h (not used here: the
// highway network below was weighed against them, and is a deep narrow
// highway stack with a 100-way head, which no hit is; "imu" and "rut" hit
// every header inside other words); corpus_fresh12.h lines 78..100 (its
// mass-spectrum row as one block of 16, whose block floating point zeroes
// the trace ions, and its bearing orders in Hz: kin to this group's run-up
// order spectra, which break gradually, as a machine runs up, under a line
// that grows); corpus_fresh27.h's volcano-seismic catalogue escalating
// toward eruption (in time order, past fp16's 65504), which was this
// group's first idea for a fp16 breaker (raw 24-bit counts in an escalating
// unrest): dropped for that hit, as were a regression in metres after
// corpus_fresh22.h lines 30..50 (its precipitation in metres, which did not
// learn in fp32) and, for the storage bytes below, corpus_fresh10.h's
// stellar luminosities in watts saturating the IPU at 240 x 2^32 (the same
// arithmetic, another practice; kept); corpus_fresh30.h lines 185..200 (its
// power meter's voltage and current in one row; harmonics only as a share
// in its rule). Also the corpus headers grepped for each data and model name
// used here (none found). Each planted one was designed from what the
// hardware does to numbers (the formats' arithmetic worked in Python by
// hand-written roundings, round to nearest even: bf16; fp16 with FTZ,
// overflowing to Inf above 65504; e4m3fn (max 448, subnormal quantum 2^-9)
// under a current per-tensor scale and under a delayed one (448 over the
// largest amax of the history); Gaudi 2's e4m3 (max 240) under a delayed
// power-of-two scale; MI300's e4m3fnuz (max 240, subnormal quantum 2^-10)
// under a delayed scale; IPU's e4m3fnuz under a current power-of-two scale
// whose exponent is clamped to [-32, 31]; MX (1x32, E8M0 scale
// 2^(floor(log2 amax) - 8), elements saturating at 448); NVFP4 (e2m1 in
// 1x16 blocks, e4m3 block scales under the per-tensor 448 x 6 / amax);
// DeepSeek's 1x128 tiles with fp32 scales; bfp8 (16-value blocks sharing
// the largest value's exponent, a sign and 7 bits: quantum 2^(e - 6)), on a
// draw of the data's generator in pure Python (random.Random, not
// LibTorch's numbers: the same distributions); batches of 64 rows quantized
// as one tensor, blocks along each row; then a crude nearest-centroid rule
// on features of the stored rows, its centroids fitted on each target's own
// stored rows (what a training on them could still tell apart), per 10-step
// window for the two that drift), with only its fp32 training and its
// simulated truth on bf16-accelerator looked at, in trial runs of the
// brief's form (fp32 on three seeds, bf16-accelerator on one simulated
// seed, --no-probe; `--json` read through the filter, which prints only the
// fp32 runs' losses and accuracies and the runs' final loss, accuracy,
// broken and why).
//
// Two trial runs (all 8 each, 76 s and 83 s wall, 60 s and 68 s of CPU).
// The first, as first written: all 8 ran without throwing and learned in
// fp32, but three not as a practitioner would leave them. The highway
// network at Adam 1e-3 sat at ln 100 for ~60 steps and ended at loss 3.1..3.2,
// accuracy 0.36..0.41: raised to Adam 3e-3 (the cosine kept). The gated
// cross-attention at AdamW 1e-3 ended at 0.99 on two seeds and 0.69 (loss
// 0.55) on the third, whose gates opened late: raised to 2e-3. The run-up
// spectra's fp32 seed 11 jumped to loss ~1.0 over its last four steps
// (final 0.37 / 0.89; seeds 12 and 13 0.014 / 0.998, 0.0096 / 0.997): its
// features were each bin's log10(share + 1e-4), whose fault lines fall two
// decades with the 1x's growth and fastest at the end (the resonance), so
// the net chased a moving input; the features became log10(share + 1e-5)
// less the row's mean log (the lines measured against the noise floor,
// which moves with them). The kiln's signals were made smaller (hunting
// 6..12 degC to 4..8, the square wave to 0.8 of it, flame jumps N(0, 9^2)
// to N(0, 6^2), noise 1.5 to 1.0 degC) after the Python rule, not a trial,
// showed the per-tensor targets keeping ~0.7 to the end: by design, not for
// a truth. The second trial (nothing else changed since) read through the
// filter (the loss of one fp32 run, first to last step; the fp32 final loss
// and accuracy of the three seeds; bf16-accelerator's): the zero-gamma
// ResNet 1.92 to 0.29, 0.20..0.23 / 0.90..0.91, bf16 0.212 / 0.906; the
// gated cross-attention 1.54 to 0.011, 0.013..0.040 / 0.997..1.0, bf16
// 0.0126 / 1.0; the highway network 4.60 to 0.61, 0.43..0.51 / 0.90..0.93,
// bf16 0.457 / 0.923; the SkipInit MLP 0.207 to 0.0053, 0.0064..0.0083,
// bf16 0.00642; the run-up spectra 1.49 to 0.0017, 0.0019..0.0043 /
// 0.998..1.0, bf16 0.00187 / 1.0; the kiln 1.83 to 0.17, 0.19..0.20 /
// 0.986..0.989, bf16 0.209 / 0.981; the radio spectra 1.38 to 0.011,
// 0.012..0.014 / 1.0, bf16 0.0119 / 1.0; the storage volumes 1.42 to
// 0.0075, 0.006..0.008 / 1.0, bf16 0.0079 / 1.0. None broke on
// bf16-accelerator: the healthy ones by their nature, the planted ones by
// design (none is meant to break there).
//
// The truths run (all 8 on the 12 training targets, three simulated seeds
// each; two halves in parallel, their own --root each, written while it ran
// on the code as it stands, this paragraph after it: the gated
// cross-attention, the SkipInit MLP, the run-up spectra and the radio
// spectra 611 s wall; the zero-gamma ResNet, the highway network, the kiln
// and the storage volumes 591 s wall), its finals read per seed through
// the filter, showed every planted one broken where it was meant to break
// and nowhere else, 3 of 3 seeds each, one of them much earlier than
// designed: the run-up spectra on b200-nvfp4 from step 33 (seeds 31, 33,
// 33), on tenstorrent-bfp4 from step 34 (34, 34, 60) and on
// tenstorrent-bfp8 from step 62 (62, 34, 62), each ending at chance (loss
// 1.39..1.41, accuracy 0.24..0.27 against fp32's 0.002..0.004 / 1.0): the
// Tenstorrent targets broke about 120 steps before the design's 175..200
// (the lines still held several quanta there; the training fell to chance
// and never came back); not elsewhere (1.0; fp16's loss 0.0048 against
// fp32's 0.0019..0.0043). The kiln, gradually, on b200-nvfp4 from step 49
// (49, 53, 49) and b200-mxfp8 from step 59 (59, 60, 59), both ending at
// chance (1.45, 0.27), on gaudi2-fp8 and ipu-fp8 from step 60 (59, 60, 60;
// 1.14, 0.50), h100-fp8-delayed from 67 (67, 66, 73; 0.83, 0.70),
// mi300-fp8 from 69 (69, 69, 69; 0.81, 0.71), h100-fp8-current from 71
// (71, 71, 68; 0.79, 0.70) and deepseek-v3-fp8 from 74 (74, 73, 78; 1.32,
// 0.43), against fp32's 0.19..0.20 / 0.986..0.989; not on
// bf16-accelerator (0.227 / 0.980), fp16-npu-ftz (0.208 / 0.988) or the
// Tenstorrent targets (0.30..0.32 / 0.963..0.964). The radio spectra on
// gaudi2-fp8 from step 44 (44, 44, 40; loss 0.55, accuracy 0.80), ipu-fp8
// from 56 (56, 59, 42; 0.42, 0.85), b200-nvfp4 from 56 (57, 56, 56; 0.34,
// 0.90), h100-fp8-delayed and mi300-fp8 from 57 (0.45, 0.85) and
// h100-fp8-current from 72 (73, 72, 72; 0.35, 0.88), against fp32's
// 0.012..0.014 / 1.0: meant from the first step, the break step is where
// fp32's falling loss first leaves them behind; not on b200-mxfp8,
// deepseek-v3-fp8, bf16-accelerator, fp16-npu-ftz or the Tenstorrent
// targets (1.0, loss 0.012..0.013). The storage volumes on fp16-npu-ftz at
// step 0 (non-finite, 3 of 3) and on ipu-fp8 from step 10 (10, 10, 10;
// chance: 1.387, 0.255); not elsewhere (1.0 on all but the two B200 targets'
// 0.994; loss 0.0073..0.0112, b200-mxfp8 0.022 and b200-nvfp4 0.029, whose
// seed 13 alone broke, at 104, against fp32's 0.006..0.008). Two healthy
// programs broke, both on fp16-npu-ftz and 2 of 3 seeds: the zero-gamma
// ResNet from step 50 (seeds 11 and 12 at 50, accuracy 0.82, loss 0.32;
// seed 13 0.85, not broken; against fp32's 0.90..0.91, 0.20..0.23), on
// accuracy; the gated cross-attention from step 163 (seeds 11 and 13 at
// 163, loss 0.67, accuracy 0.62; seed 12 0.033 / 0.997, not broken;
// against fp32's 0.013..0.040 / 0.997..1.0). Neither broke elsewhere (the
// ResNet 0.885..0.909, the gated cross-attention 0.998, loss 0.015..0.022).
// The other healthy ones broke nowhere, no seed on any target: the highway
// network 0.880 (b200-nvfp4, loss 0.61) to 0.931 against fp32's
// 0.90..0.93 (0.43..0.51); the SkipInit MLP's loss 0.0082..0.0136
// (b200-nvfp4 the highest, fp16-npu-ftz 0.0108) against fp32's
// 0.0064..0.0083. Nothing changed after it but this paragraph.
//
// Four train fine in fp32 and are written as a practitioner would, not aimed
// at any target, on architectures no earlier group uses: a 1-D ResNet whose
// blocks' last BatchNorm scales start at zero (Goyal et al.'s zero-init
// residual), a Flamingo-style gated cross-attention layer (tanh gates at 0)
// between self-attention blocks, a deep narrow highway network (12 layers of
// width 32, transform gates biased to -2, a 100-way softmax head: saturating
// sigmoid gates, a deep carry path and a many-class head, whose activation
// gradients are small) and a SkipInit residual MLP (a learned scalar at 0 on
// each branch, no normalisation) regressing 16 outputs (an MSE over many
// outputs that gets small late); three of them start with their branches or
// gates at zero, which pass no gradient into those branches in the first
// steps. Optimizer and schedule pairs: SGD momentum 0.05 wd 5e-4 step decay
// (BatchNorm), AdamW 2e-3 wd 0.05 warm-up + cosine (LayerNorm, dropout 0.1),
// Adam 3e-3 cosine, RMSprop 5e-4 warm-up + cosine; one regression, three
// classifications. Whether they break anywhere was not computed.
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: values under a block's shared exponent,
// a difference under a format's spacing, values under a per-tensor scale's
// range, values above fp16's and the IPU's range; the practice is new),
// meant to break on different sets of targets, two of them gradually:
//   - a run-up test's order spectra as the analyser stores them, 16 order
//     bins of RMS velocity in mm/s, in run-up order (one pass) while the
//     speed rises from 600 to 6000 rpm toward the rotor's first critical
//     speed (6300): the unbalance line (1x) grows with the speed squared
//     and the resonance, the fault lines with the speed, so the 1x stands r
//     = 8 times above them at the start and ~900 at the end; each bin's log
//     share of the row, less the row's mean, in the model. The row is one
//     bfp8 block of 16 under the 1x's exponent E: quantum 2^(E - 6), a fault
//     line keeps round(64..128 / r) quanta: 8..16 at the start, 1..2 at r ~
//     64..128, 0 beyond (from ~4500 rpm, step ~180; r ~ 256 at ~5200 rpm,
//     step ~215). NVFP4: e2m1 under the 1x's block scale (the 1x at 6), a
//     line below 1/24 of it rounds to 0 (r > 24: from ~1700 rpm, step ~50).
//     Per-tensor e4m3 (the lines at 448 / r >= 0.5, normal), MX (the row in
//     one 32-value block, x / 2^(E - 8) >= 256 / r: normal), DeepSeek (the
//     row's own fp32 scale), bf16 and fp16 (the smallest value, the noise
//     floor at the start, ~6e-5..4e-4 mm/s, at or above fp16's 6.1e-5) keep
//     the lines; the delayed scales clip the growing 1x by the batch's
//     excess over its history (a few %), which the share's log barely
//     moves. The rule (centroids of the centred log shares, 10-step
//     windows): 0.93..0.95 on fp32, bf16, fp16, the per-tensor targets, MX
//     and DeepSeek throughout; bfp8 0.72..0.79 over the first 25 steps (the
//     noise floor flickering between 0 and 1 quantum), 0.84..0.98 over
//     steps 50..150, 0.65 at 175, 0.55 at 200, 0.33 at 225; NVFP4 0.88,
//     0.70, 0.47, 0.33 at steps 0, 25, 50, 75, chance from 100. Meant to
//     break on tenstorrent-bfp8 and tenstorrent-bfp4 (bfp8 activations)
//     gradually, from about step 175..200, and on b200-nvfp4 gradually, from
//     about step 25..75; not on the others.
//   - a kiln's thermocouple logged in degC (32 readings a row) in firing
//     order (one pass) while the schedule ramps from 20 to 500 degC, slowly
//     at first (20 + 480 u^1.5 over the campaign's fraction u), with the
//     row's mean taken off in the model; the burner's states differ by
//     3..8 degC (noise 1 degC). e4m3 under a per-tensor or per-row scale
//     holds the largest value at 448 (or 240) in its top binade, where the
//     spacing is amax / 14..amax / 8: ~2.2 degC at 20 degC (step 0), ~7 at
//     80 (step ~62), ~15 at 180 (step ~130), ~36 at 500: the burner's
//     swings fall into one or two quanta (the row's own 0..9.6 degC ramp
//     dithers some). The same relative spacing for IPU (power-of-two
//     current scale), Gaudi 2's e4m3 and MI300's e4m3fnuz under delayed
//     scales (a rising amax clipped by one step's rise, under 1%), MX (the
//     row is one 32-value block: x / 2^(E - 8) in [256, 512), spacing 32),
//     DeepSeek (the row's 1x128 tile); NVFP4's e2m1 spacing is amax / 6..
//     amax / 3. bf16's spacing 2^(E - 7) (2 degC at 256..512), fp16's
//     2^(E - 10) and bfp8's 2^(E - 6) (4 degC at 256..512, rms 1.2) keep
//     them. The rule (centroids of the standard deviation, the mean step,
//     the peak over the deviation and two lags' autocorrelations, 10-step
//     windows): 0.78..0.87 on fp32, bf16, fp16 and bfp8 throughout; the
//     per-tensor targets, IPU and MX 0.80 at step 0, 0.73..0.75 at 50,
//     0.61..0.72 over 75..125, 0.42..0.69 from 150; DeepSeek from 0.81 to
//     0.46..0.80 (noisy); NVFP4 0.77..0.81 to step 25, 0.56 at 50,
//     0.29..0.33 from 75. Meant to break on h100-fp8-current,
//     h100-fp8-delayed, gaudi2-fp8, mi300-fp8, ipu-fp8, b200-mxfp8 and
//     deepseek-v3-fp8 gradually, from about step 60..130, and on b200-nvfp4
//     from about step 40..60; not on bf16-accelerator, fp16-npu-ftz or the
//     Tenstorrent targets.
//   - a radio source catalogue's spectra as stored, flux densities in Jy at
//     32 frequencies (0.15..20 GHz), sources from 2 mJy to 4 kJy
//     (log-uniform), the log spectrum less its mean in the model (floored at
//     1e-6 Jy): values 8.8e-5..3.3e4 Jy in the Python draw, inside fp16's
//     normal range. A per-tensor e4m3 scale 448 / amax (amax ~1.5..3.3e4
//     per batch: ~0.014..0.03) leaves a value under ~0.03..0.07 Jy below
//     half e4m3fn's smallest subnormal (2^-10): 0, the floor's log; sources
//     under ~0.1..0.3 Jy lose their spectra, those near 1 Jy keep 1..3 bits
//     (a quarter of the rows lost, more damaged). Gaudi 2's power-of-two
//     delayed scale to 240 (up to 2x less), MI300's e4m3fnuz, IPU's
//     power-of-two current scale and the delayed ones alike (the batches'
//     amax stationary). MX (the row is one 32-value block with its own
//     scale), DeepSeek (the row's own fp32 scale), bfp8 (a 16-value half
//     row spans ~1.2 decades, within 7 binades), bf16 and fp16 keep them;
//     NVFP4's block scales e4m3(448 x block amax / batch amax) fall under
//     2^-10 for blocks ~2e-6 of the batch's largest (0), and e2m1's
//     spacing coarsens the rest. The rule (centroids of the log shape):
//     1.00 on fp32, bf16, fp16, MX, bfp8 and DeepSeek; 0.82 on
//     h100-fp8-current, 0.80 delayed, 0.79 MI300, 0.81 IPU, 0.74 Gaudi 2,
//     0.84 NVFP4. Meant to break on h100-fp8-current, h100-fp8-delayed,
//     gaudi2-fp8, mi300-fp8, ipu-fp8 and b200-nvfp4 from the first step; not
//     on the others.
//   - a storage cluster's used bytes per volume over 32 days as the
//     monitoring exports them (2e14..3.2e15 bytes, up to 2.2x that with the
//     growth), each day over the row's mean in the model. fp16 holds
//     nothing above 65504: every value Inf, Inf / Inf = NaN, the loss NaN
//     from step 0. IPU's power-of-two scale would need 2^-43..2^-45 and its
//     exponent stops at -32: x 2^-32 >= 4.6e4, saturated at 240, every value
//     reads 240 x 2^32 ~ 1.03e12, each day over the mean is 1: a constant
//     input. fp32 scales (per-tensor current and delayed, the batches' amax
//     stationary; NVFP4's; DeepSeek's), MX's E8M0 exponent (~39..44, inside
//     [-127, 127]), bfp8's 8-bit shared exponent and bf16 keep the shape
//     (growth of 0.3..0.6 over the row against e4m3's 3..6% spacing). The
//     rule (centroids of the days over the mean): 0.88..0.92 on fp32, bf16,
//     the per-tensor targets, MX, NVFP4, bfp8 and DeepSeek; fp16 0
//     (non-finite), IPU 0.24. Meant to break on fp16-npu-ftz and ipu-fp8
//     from the first step; not on the others.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
// Brushes with rule material, none of which changed a design: `git log
// --oneline -5`, run at the start before the branch was made, showed the
// first lines of the three commit messages after fc1c688 (fresh31's truths
// merged: every planted breaker broken where designed, the CORAL CNN broken
// on b200-nvfp4; the tables over 400 programs: counts, precision, recall
// and median lead of the corpus, of fresh31 (0.88 / 0.93, median lead
// -4.5; its false alarms, lp_underflow on the healthy Fixup MLP on
// fp16-npu-ftz at step 1 and lp_forward_loss on the tap pressures on
// tenstorrent-bfp4; its miss, the CORAL CNN on b200-nvfp4) and of
// fresh24..fresh31 out of sample; a comment on Fixup branches passing
// almost no gradient at step 1), which the brief had asked not to read;
// nothing further of them was opened. validation.cc's group comment (read to
// add fresh32's sentence) carries the same figures for fresh31 and earlier
// groups' (their hits, false alarms and misses by rule name). The brief
// itself asks for zero-initialised branches, which these three healthy
// programs have; they were chosen for the brief, not for a rule.
// corpus_fresh31.h's header (read whole, as asked) carries fresh31's
// truths per target and its own brush paragraph. validation.cc's training
// loop shows the probe closure and its options, no rule. The filter prints
// each simulated run's "why" (the truth's reason), no rule's. Nothing else
// (no rule code, description, finding or prediction, no --list-rules
// output, no text table, no README, no docs/checks.md or docs/validation.md,
// no truths.json: none of it was opened) was seen.
//
//   for (const Program& p : Fresh32Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH32_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH32_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "examples/validation/corpus.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// A wrist-worn IMU's 3-axis accelerometer (g, 50 Hz), 64-sample windows of
// five activities: standing (gravity alone), walking (1.6..2.0 steps/s,
// vertical 0.3..0.5 g), running (2.5..3.0 steps/s, 0.8..1.2 g, peaked
// impacts), climbing stairs (1.3..1.6 steps/s, the wrist tilted forward
// 25..40 degrees) and cycling (1.0..1.5 turns/s, a lateral sway of
// 0.15..0.3 g); a random tilt of the watch of up to 15 degrees and N(0,
// 0.05^2) noise, [N, 3, 64].
inline Data ImuActivityWindows(int64_t n = 2048, int64_t t = 64) {
  torch::Tensor y = torch::randint(0, 5, {n, 1}, torch::kLong);
  torch::Tensor s = torch::arange(t, torch::kFloat).view({1, t}) / 50.0;  // seconds
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}); };
  auto is = [&](int64_t c) { return (y == c).to(torch::kFloat); };
  const torch::Tensor ph = u(0, 2 * M_PI);
  torch::Tensor walk = u(0.3, 0.5) * torch::sin(2 * M_PI * u(1.6, 2.0) * s + ph);
  torch::Tensor run = u(0.8, 1.2) * (torch::sin(M_PI * u(2.5, 3.0) * s + ph).abs().pow(3) * 2 - 0.5);
  torch::Tensor stairs = u(0.3, 0.45) * torch::sin(2 * M_PI * u(1.3, 1.6) * s + ph);
  torch::Tensor sway = u(0.15, 0.3) * torch::sin(2 * M_PI * u(1.0, 1.5) * s + ph);
  torch::Tensor pitch = is(3) * u(25, 40) * (M_PI / 180) + u(-15, 15) * (M_PI / 180);
  torch::Tensor roll = u(-15, 15) * (M_PI / 180);
  torch::Tensor vert = is(1) * walk + is(2) * run + is(3) * stairs + is(4) * 0.05 * sway;
  torch::Tensor ax = torch::sin(roll) + is(4) * sway + is(1) * 0.1 * walk;
  torch::Tensor ay = torch::sin(pitch) * (1 + vert) + is(3) * 0.2 * stairs;
  torch::Tensor az = torch::cos(pitch) * torch::cos(roll) * (1 + vert);
  torch::Tensor x = torch::stack({ax.expand({n, t}), ay.expand({n, t}), az.expand({n, t})}, 1);
  return {x + 0.05 * torch::randn({n, 3, t}), y.view({n})};
}

// A toy visual question answering set: 8 query tokens (12-d, N(0, 0.5^2))
// hold one of two question motifs ("anything red?", "anything round?") at a
// random place; 12 context tokens (image patches, N(0, 0.5^2)) hold one or
// two objects at random places, each a colour motif (red or blue) plus a
// shape motif (round or square). The class is the question and its answer
// (2 x 2); [N, 20, 12], the 8 query tokens first.
inline Data VqaMotifQueries(int64_t n = 4096) {
  torch::Tensor motifs = torch::randn({6, 12});  // questions 0, 1; red, blue; round, square
  torch::Tensor x = 0.5 * torch::randn({n, 20, 12});
  torch::Tensor q = torch::randint(0, 2, {n}, torch::kLong);
  torch::Tensor y = torch::zeros({n}, torch::kLong);
  torch::Tensor qpos = torch::randint(0, 8, {n}, torch::kLong);
  torch::Tensor cpos = torch::argsort(torch::rand({n, 12}), int64_t{1});
  torch::Tensor objects = torch::randint(0, 2, {n}, torch::kLong) + 1;
  torch::Tensor colour = torch::randint(0, 2, {n, 2}, torch::kLong), shape = torch::randint(0, 2, {n, 2}, torch::kLong);
  auto qa = q.accessor<int64_t, 1>();
  auto qp = qpos.accessor<int64_t, 1>();
  auto cp = cpos.accessor<int64_t, 2>();
  auto oa = objects.accessor<int64_t, 1>();
  auto ca = colour.accessor<int64_t, 2>();
  auto sa = shape.accessor<int64_t, 2>();
  auto ya = y.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    x[i][qp[i]].add_(motifs[qa[i]]);
    bool yes = false;
    for (int64_t j = 0; j < oa[i]; ++j) {
      x[i][8 + cp[i][j]].add_(motifs[2 + ca[i][j]] + motifs[4 + sa[i][j]]);
      yes = yes || (qa[i] == 0 ? ca[i][j] == 0 : sa[i][j] == 0);
    }
    ya[i] = 2 * qa[i] + (yes ? 1 : 0);
  }
  return {x, y};
}

// 100 classes: centres N(0, 1) in 32-d (drawn with the data), points
// N(0, 0.8^2) about them, [N, 32].
inline Data HundredClassCodes(int64_t n = 6400) {
  torch::Tensor centres = torch::randn({100, 32});
  torch::Tensor y = torch::randint(0, 100, {n}, torch::kLong);
  return {centres.index_select(0, y) + 0.8 * torch::randn({n, 32}), y};
}

// A simply supported test beam (span 1): two point loads (places 0.1..0.9,
// sizes 0.2..1.0), a uniform load 0..1 and a flexural rigidity 0.5..2.0,
// given as 6 settings in [-1, 1]; the deflection (Euler-Bernoulli, closed
// form, x 25) at 16 stations, [N, 6] -> [N, 16].
inline Data BeamDeflectionProfiles(int64_t n = 4096) {
  const auto d = torch::kDouble;
  torch::Tensor u = 2 * torch::rand({n, 6}, d) - 1;
  auto col = [&](int64_t i) { return u.select(1, i).view({n, 1}); };
  torch::Tensor xs = torch::arange(1, 17, d).view({1, 16}) / 17.0;
  torch::Tensor ei = 1.25 + 0.75 * col(5);
  auto point = [&](const torch::Tensor& a, const torch::Tensor& p) {
    torch::Tensor b = 1 - a;
    torch::Tensor left = p * b * xs * (1 - b.pow(2) - xs.pow(2)) / 6;
    torch::Tensor right = p * a * (1 - xs) * (2 * xs - xs.pow(2) - a.pow(2)) / 6;
    return torch::where(xs <= a, left, right);
  };
  torch::Tensor w = 0.5 + 0.5 * col(4);
  torch::Tensor defl = point(0.5 + 0.4 * col(0), 0.6 + 0.4 * col(1)) + point(0.5 + 0.4 * col(2), 0.6 + 0.4 * col(3)) +
                       w * xs * (1 - 2 * xs.pow(2) + xs.pow(3)) / 24;
  return {u.to(torch::kFloat), (25 * defl / ei).to(torch::kFloat)};
}

// A machine's run-up test, one row per order spectrum as the analyser stores
// it: 16 order bins (orders 0.5, 1, ..., 8) of RMS velocity in mm/s, in the
// order of the run-up (one pass: 250 batches of 64) while the speed rises
// from 600 to 6000 rpm toward the rotor's first critical speed (6300 rpm).
// The unbalance line (1x) grows with the speed squared times the resonance
// factor 1 / (1 - (rpm / 6300)^2): 0.02 mm/s at the start, ~22 at the end;
// the fault lines grow with the speed, 0.0025 x rpm / 600 (x 0.6..1.4), so
// the 1x stands 8 times above them at the start and ~900 at the end. A
// noise floor of 0.04..0.12 of the fault scale in every bin, a 2x of 0.3.
// The class is the fault: none; misalignment (2x + 1.0, 3x + 0.5);
// looseness (half orders 1.5, 2.5, 3.5, 4.5 + 0.5 each); a bearing defect
// (a non-synchronous line of 1.0 at order 3.2..6.8, shared between its two
// nearest bins). Computed in double, [N, 16].
inline Data RunUpOrderSpectra(int64_t n = 16000) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor rpm = 600 + 5400 * torch::arange(n, d).view({n, 1}) / double(n);
  torch::Tensor a1 = 0.02 * (rpm / 600).pow(2) / (1 - (rpm / 6300).pow(2)) * u(0.8, 1.2);
  torch::Tensor f = 0.0025 * (rpm / 600) * u(0.6, 1.4);
  torch::Tensor bins = torch::arange(16, d).view({1, 16});
  auto at = [&](int64_t k) { return (bins == double(k)).to(d); };
  torch::Tensor x = 0.08 * f * (0.5 + torch::rand({n, 16}, d));
  x = x + a1 * at(1) + 0.3 * f * u(0.8, 1.2) * at(3);
  x = x + is(1) * f * (u(0.8, 1.2) * at(3) + 0.5 * u(0.8, 1.2) * at(5));
  x = x + is(2) * 0.5 * f * (u(0.7, 1.3) * at(2) + u(0.7, 1.3) * at(4) + u(0.7, 1.3) * at(6) + u(0.7, 1.3) * at(8));
  torch::Tensor place = u(3.2, 6.8) / 0.5 - 1;  // the bearing line's bin, fractional
  x = x + is(3) * f * u(0.8, 1.2) * (1 - (bins - place).abs()).clamp_min(0);
  return {x.to(torch::kFloat), y.view({n})};
}

// A kiln's firing, one row per 32 thermocouple readings (degC, every 10 s)
// in firing order (one pass: 250 batches of 64) while the schedule takes the
// kiln from 20 to 500 degC, slowly at first (drying) and faster later:
// 20 + 480 (row / N)^1.5, plus a ramp of 0..0.3 degC per reading inside the
// row and N(0, 1) noise. The class is the burner's control: steady;
// hunting (a sine of 4..8 degC, period 8..16 readings); on/off cycling (a
// square wave of 3.2..6.4 degC, period 12..20); flame instability (a quarter
// of the readings jump by N(0, 6^2)). Computed in double, [N, 1, 32].
inline Data KilnFiringTemperatures(int64_t n = 16000, int64_t t = 32) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor k = torch::arange(t, d).view({1, t});
  torch::Tensor t0 = 20 + 480 * (torch::arange(n, d).view({n, 1}) / double(n)).pow(1.5);
  torch::Tensor x = t0 + u(0, 0.3) * k + torch::randn({n, t}, d);
  torch::Tensor a = u(4, 8), period = u(8, 16), ph = u(0, 2 * M_PI);
  x = x + is(1) * a * torch::sin(2 * M_PI * k / period + ph);
  x = x + is(2) * 0.8 * a * torch::sign(torch::sin(2 * M_PI * k / (period + 4) + ph));
  x = x + is(3) * (torch::rand({n, t}, d) < 0.25).to(d) * 6 * torch::randn({n, t}, d);
  return {x.to(torch::kFloat).unsqueeze(1), y.view({n})};
}

// A radio source catalogue's spectra as stored, flux density in Jy at 32
// frequencies from 0.15 to 20 GHz (log-spaced), sources from 2 mJy to 4 kJy
// (log-uniform). The class is the spectral type: steep (index -1.1..-0.6),
// flat (-0.25..0.25), peaked (a log-parabola of curvature 0.3..0.5 about a
// turnover at 0.5..5 GHz) or inverted (0.3..0.8); 3% calibration noise.
// Computed in double, [N, 32].
inline Data RadioSourceSpectra(int64_t n = 2048) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor lognu = std::log10(0.15) + std::log10(20 / 0.15) * torch::arange(32, d).view({1, 32}) / 31;
  torch::Tensor steep = u(-1.1, -0.6) * lognu, flat = u(-0.25, 0.25) * lognu;
  torch::Tensor peaked = -u(0.3, 0.5) * (lognu - u(std::log10(0.5), std::log10(5))).pow(2);
  torch::Tensor inverted = u(0.3, 0.8) * lognu;
  torch::Tensor lg = is(0) * steep + is(1) * flat + is(2) * peaked + is(3) * inverted;
  torch::Tensor s1 = torch::pow(10.0, u(std::log10(2e-3), std::log10(4e3)));
  torch::Tensor jy = s1 * torch::pow(10.0, lg) * (1 + 0.03 * torch::randn({n, 32}, d));
  return {jy.to(torch::kFloat), y.view({n})};
}

// A storage cluster's monitoring export, one row per volume: the bytes used
// at the end of each of 32 days, as the exporter writes them (200 TB..3.2
// PB: 2e14..3.2e15 bytes, log-uniform), 1% day-to-day noise. The class is
// the growth pattern over the 32 days (growth g 0.3..0.6 of the first
// day's level): linear; accelerating (exp(1.3 g t^2)); a bulk ingest (a
// step of g on day 8..20 over a slow 0.1 g); weekly retention purges (a
// sawtooth rising g over each week, then deleted). Computed in double,
// [N, 32].
inline Data StorageUsedBytes(int64_t n = 2048, int64_t t = 32) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor k = torch::arange(t, d).view({1, t}), tt = k / double(t - 1);
  torch::Tensor g = u(0.3, 0.6), ph = torch::randint(0, 7, {n, 1}, d);
  torch::Tensor linear = 1 + g * tt, accel = torch::exp(1.3 * g * tt.pow(2));
  torch::Tensor ingest = 1 + 0.1 * g * tt + g * (k >= 8 + 2 * ph).to(d);
  torch::Tensor purge = 1 + 0.1 * g * tt + g * torch::fmod(k + ph, 7.0) / 6;
  torch::Tensor v = is(0) * linear + is(1) * accel + is(2) * ingest + is(3) * purge;
  torch::Tensor bytes = torch::pow(10.0, u(14.3, 15.5)) * v * (1 + 0.01 * torch::randn({n, t}, d));
  return {bytes.to(torch::kFloat), y.view({n})};
}

// --- healthy models -------------------------------------------------------------

// A basic residual block for 1-D signals (two 3-tap convolutions, each with
// BatchNorm) whose last BatchNorm's scale starts at zero (Goyal et al. 2017,
// "zero-init residual", torchvision's zero_init_residual): each block starts
// as the identity, and its convolutions get no gradient until that scale
// moves.
struct ZeroGammaBlock1dImpl : nn::Module {
  explicit ZeroGammaBlock1dImpl(int64_t c) {
    c1 = register_module("c1", nn::Conv1d(nn::Conv1dOptions(c, c, 3).padding(1).bias(false)));
    bn1 = register_module("bn1", nn::BatchNorm1d(c));
    c2 = register_module("c2", nn::Conv1d(nn::Conv1dOptions(c, c, 3).padding(1).bias(false)));
    bn2 = register_module("bn2", nn::BatchNorm1d(c));
    torch::NoGradGuard g;
    bn2->weight.zero_();
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::relu(x + bn2->forward(c2->forward(torch::relu(bn1->forward(c1->forward(x))))));
  }
  nn::Conv1d c1{nullptr}, c2{nullptr};
  nn::BatchNorm1d bn1{nullptr}, bn2{nullptr};
};
TORCH_MODULE(ZeroGammaBlock1d);

// A 1-D ResNet for the IMU windows: a 5-tap stem 3 -> 32 with BatchNorm,
// three zero-gamma blocks of 32 channels, global average pooling, a linear
// classifier.
struct ZeroGammaResNet1dImpl : nn::Module {
  ZeroGammaResNet1dImpl() {
    stem = register_module("stem", nn::Conv1d(nn::Conv1dOptions(3, 32, 5).padding(2).bias(false)));
    bn = register_module("bn", nn::BatchNorm1d(32));
    for (int i = 0; i < 3; ++i) blocks.push_back(register_module("block" + std::to_string(i), ZeroGammaBlock1d(32)));
    head = register_module("head", nn::Linear(32, 5));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 3, 64]
    torch::Tensor h = Tap("zgres.stem", torch::relu(bn->forward(stem->forward(x))), "Conv1d");
    for (size_t i = 0; i < blocks.size(); ++i) {
      h = Tap("zgres.block" + std::to_string(i), blocks[i]->forward(h), "Conv1d");
    }
    return head->forward(h.mean(2));
  }
  nn::Conv1d stem{nullptr};
  nn::BatchNorm1d bn{nullptr};
  std::vector<ZeroGammaBlock1d> blocks;
  nn::Linear head{nullptr};
};
TORCH_MODULE(ZeroGammaResNet1d);

// Multi-head attention of 4 heads of 8 over d = 32, queries from `xq`, keys
// and values from `xkv`; the logits and the softmax tapped under `name`.
inline torch::Tensor Mha32(const torch::Tensor& xq, const torch::Tensor& xkv, nn::Linear& q, nn::Linear& kv,
                           nn::Linear& proj, const std::string& name) {
  const int64_t n = xq.size(0), lq = xq.size(1), lk = xkv.size(1);
  torch::Tensor qs = q->forward(xq).view({n, lq, 4, 8}).transpose(1, 2);
  std::vector<torch::Tensor> kvs = kv->forward(xkv).view({n, lk, 2, 4, 8}).unbind(2);
  torch::Tensor logits = torch::matmul(qs, kvs[0].transpose(1, 2).transpose(-2, -1)) / std::sqrt(8.0);
  torch::Tensor attn = Tap(name + ".softmax", torch::softmax(Tap(name + ".logits", logits, "MatMul"), -1), "Softmax");
  return proj->forward(torch::matmul(attn, kvs[1].transpose(1, 2)).transpose(1, 2).reshape({n, lq, 32}));
}

// A pre-LayerNorm self-attention block (4 heads) with a GELU MLP 32-64-32
// and dropout 0.1.
struct QuerySelfAttnBlockImpl : nn::Module {
  QuerySelfAttnBlockImpl() {
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({32})));
    q = register_module("q", nn::Linear(32, 32));
    kv = register_module("kv", nn::Linear(32, 64));
    proj = register_module("proj", nn::Linear(32, 32));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({32})));
    fc1 = register_module("fc1", nn::Linear(32, 64));
    fc2 = register_module("fc2", nn::Linear(64, 32));
    drop = register_module("drop", nn::Dropout(0.1));
  }
  torch::Tensor forward(torch::Tensor x, const std::string& name) {
    torch::Tensor h = ln1->forward(x);
    x = x + drop->forward(Mha32(h, h, q, kv, proj, name + ".attn"));
    torch::Tensor f = Tap(name + ".gelu", torch::gelu(fc1->forward(ln2->forward(x))), "GELU");
    return x + drop->forward(fc2->forward(f));
  }
  nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  nn::Linear q{nullptr}, kv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
  nn::Dropout drop{nullptr};
};
TORCH_MODULE(QuerySelfAttnBlock);

// Flamingo's gated cross-attention layer (Alayrac et al. 2022): the query
// tokens attend to the context tokens, x + tanh(a_attn) * xattn(LN(x)),
// then x + tanh(a_ff) * ffw(LN(x)); both gates start at a = 0, so the layer
// starts as the identity and its attention and MLP get no gradient until
// the gates open.
struct GatedXAttnLayerImpl : nn::Module {
  GatedXAttnLayerImpl() {
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({32})));
    q = register_module("q", nn::Linear(32, 32));
    kv = register_module("kv", nn::Linear(32, 64));
    proj = register_module("proj", nn::Linear(32, 32));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({32})));
    fc1 = register_module("fc1", nn::Linear(32, 64));
    fc2 = register_module("fc2", nn::Linear(64, 32));
    drop = register_module("drop", nn::Dropout(0.1));
    gate_attn = register_parameter("gate_attn", torch::zeros({1}));
    gate_ff = register_parameter("gate_ff", torch::zeros({1}));
  }
  torch::Tensor forward(torch::Tensor x, const torch::Tensor& ctx, const std::string& name) {
    torch::Tensor a = Mha32(ln1->forward(x), ctx, q, kv, proj, name + ".xattn");
    x = x + torch::tanh(gate_attn) * drop->forward(a);
    torch::Tensor f = Tap(name + ".gelu", torch::gelu(fc1->forward(ln2->forward(x))), "GELU");
    return x + torch::tanh(gate_ff) * drop->forward(fc2->forward(f));
  }
  nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  nn::Linear q{nullptr}, kv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
  nn::Dropout drop{nullptr};
  torch::Tensor gate_attn, gate_ff;
};
TORCH_MODULE(GatedXAttnLayer);

// The question tokens (linear 12 -> 32 and learned positions) through a
// self-attention block, a gated cross-attention layer over the context
// (linear 12 -> 32, LayerNorm) and another self-attention block; the mean
// of the query tokens, LayerNorm, a linear classifier.
struct GatedXAttnNetImpl : nn::Module {
  GatedXAttnNetImpl() {
    qembed = register_module("qembed", nn::Linear(12, 32));
    cembed = register_module("cembed", nn::Linear(12, 32));
    cln = register_module("cln", nn::LayerNorm(nn::LayerNormOptions({32})));
    pos = register_parameter("pos", 0.5 * torch::randn({8, 32}));
    sa1 = register_module("sa1", QuerySelfAttnBlock());
    xa = register_module("xa", GatedXAttnLayer());
    sa2 = register_module("sa2", QuerySelfAttnBlock());
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({32})));
    head = register_module("head", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 20, 12]
    torch::Tensor h = Tap("vqa.query", qembed->forward(x.slice(1, 0, 8)) + pos, "Linear");
    torch::Tensor ctx = Tap("vqa.context", cln->forward(cembed->forward(x.slice(1, 8, 20))), "LayerNorm");
    h = sa2->forward(xa->forward(sa1->forward(h, "vqa.sa1"), ctx, "vqa.gated"), "vqa.sa2");
    return head->forward(ln->forward(h.mean(1)));
  }
  nn::Linear qembed{nullptr}, cembed{nullptr}, head{nullptr};
  nn::LayerNorm cln{nullptr}, ln{nullptr};
  torch::Tensor pos;
  QuerySelfAttnBlock sa1{nullptr}, sa2{nullptr};
  GatedXAttnLayer xa{nullptr};
};
TORCH_MODULE(GatedXAttnNet);

// A highway layer (Srivastava et al. 2015): T * relu(W_H x) + (1 - T) * x,
// with the transform gate T = sigmoid(W_T x + b_T) and b_T at -2, as the
// paper initialises it for deep stacks (the layer mostly carries at first).
struct HighwayGateLayerImpl : nn::Module {
  explicit HighwayGateLayerImpl(int64_t w) {
    h = register_module("h", nn::Linear(w, w));
    t = register_module("t", nn::Linear(w, w));
    torch::NoGradGuard g;
    t->bias.fill_(-2.0);
  }
  torch::Tensor forward(const torch::Tensor& x, const std::string& name) {
    torch::Tensor gate = Tap(name + ".gate", torch::sigmoid(t->forward(x)), "Sigmoid");
    return gate * torch::relu(h->forward(x)) + (1 - gate) * x;
  }
  nn::Linear h{nullptr}, t{nullptr};
};
TORCH_MODULE(HighwayGateLayer);

// A deep, narrow highway network: linear 32 -> 32 with ReLU, 12 highway
// layers of width 32, a 100-way linear softmax head.
struct NarrowHighwayNetImpl : nn::Module {
  NarrowHighwayNetImpl() {
    stem = register_module("stem", nn::Linear(32, 32));
    for (int i = 0; i < 12; ++i) layers.push_back(register_module("hw" + std::to_string(i), HighwayGateLayer(32)));
    head = register_module("head", nn::Linear(32, 100));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 32]
    torch::Tensor h = Tap("highway.stem", torch::relu(stem->forward(x)), "Linear");
    for (size_t i = 0; i < layers.size(); ++i) {
      const std::string name = "highway.layer" + std::to_string(i);
      h = Tap(name, layers[i]->forward(h, name), "Highway");
    }
    return head->forward(h);
  }
  nn::Linear stem{nullptr}, head{nullptr};
  std::vector<HighwayGateLayer> layers;
};
TORCH_MODULE(NarrowHighwayNet);

// A SkipInit residual block (De & Smith 2020): x + alpha * fc2(relu(fc1(
// relu(x)))), no normalisation, the learned scalar alpha at 0 (the block
// starts as the identity; its layers get no gradient until alpha moves).
struct SkipInitBlockImpl : nn::Module {
  explicit SkipInitBlockImpl(int64_t w) {
    fc1 = register_module("fc1", nn::Linear(w, w));
    fc2 = register_module("fc2", nn::Linear(w, w));
    alpha = register_parameter("alpha", torch::zeros({1}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return x + alpha * fc2->forward(torch::relu(fc1->forward(torch::relu(x))));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor alpha;
};
TORCH_MODULE(SkipInitBlock);

// Linear 6 -> 64, 8 SkipInit blocks of width 64, ReLU, linear 64 -> 16.
struct SkipInitMlpImpl : nn::Module {
  SkipInitMlpImpl() {
    stem = register_module("stem", nn::Linear(6, 64));
    for (int i = 0; i < 8; ++i) blocks.push_back(register_module("block" + std::to_string(i), SkipInitBlock(64)));
    out = register_module("out", nn::Linear(64, 16));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 6]
    torch::Tensor h = Tap("skipinit.stem", stem->forward(x), "Linear");
    for (size_t i = 0; i < blocks.size(); ++i) {
      h = Tap("skipinit.block" + std::to_string(i), blocks[i]->forward(h), "SkipInit");
    }
    return out->forward(torch::relu(h));
  }
  nn::Linear stem{nullptr}, out{nullptr};
  std::vector<SkipInitBlock> blocks;
};
TORCH_MODULE(SkipInitMlp);

// --- planted models -------------------------------------------------------------

// Fault from the stored order spectrum ("runup.order_mm_s", mm/s as
// stored): each bin's share of the row's total, log10(share + 1e-5), less
// the row's mean log in the model ("runup.log_share", stored); MLP 16-64-64-4
// ReLU with LayerNorm.
struct OrderSpectrumNetImpl : nn::Module {
  OrderSpectrumNetImpl() { mlp = register_module("mlp", Mlp({16, 64, 4, 2, "relu", "layer"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 16]
    torch::Tensor v = Tap("runup.order_mm_s", x, "Input");
    torch::Tensor lg = torch::log10(v / v.sum(1, true) + 1e-5);
    return mlp->forward(Tap("runup.log_share", lg - lg.mean(1, true), "Sub"));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(OrderSpectrumNet);

// Burner state from the stored readings ("kiln.temp_c", degC as stored):
// the row's mean taken off in the model ("kiln.ac", stored), then Conv1d 1
// -> 16 (5 taps), BatchNorm, ReLU, Conv1d 16 -> 32 (5 taps), BatchNorm,
// ReLU; the mean and the max over time, a linear classifier.
struct KilnAcNetImpl : nn::Module {
  KilnAcNetImpl() {
    c1 = register_module("c1", nn::Conv1d(nn::Conv1dOptions(1, 16, 5).padding(2)));
    bn1 = register_module("bn1", nn::BatchNorm1d(16));
    c2 = register_module("c2", nn::Conv1d(nn::Conv1dOptions(16, 32, 5).padding(2)));
    bn2 = register_module("bn2", nn::BatchNorm1d(32));
    head = register_module("head", nn::Linear(64, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 1, 32]
    torch::Tensor c = Tap("kiln.temp_c", x, "Input");
    torch::Tensor ac = Tap("kiln.ac", c - c.mean(2, true), "Sub");
    torch::Tensor h = Tap("kiln.conv1", torch::relu(bn1->forward(c1->forward(ac))), "Conv1d");
    h = Tap("kiln.conv2", torch::relu(bn2->forward(c2->forward(h))), "Conv1d");
    return head->forward(torch::cat({h.mean(2), std::get<0>(h.max(2))}, 1));
  }
  nn::Conv1d c1{nullptr}, c2{nullptr};
  nn::BatchNorm1d bn1{nullptr}, bn2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(KilnAcNet);

// Spectral type from the stored flux densities ("radio.flux_jy", Jy as
// stored): log10 of the flux (floored at 1e-6 Jy) less the row's mean log
// in the model ("radio.log_shape", stored); MLP 32-64-64-4 ReLU.
struct RadioSedNetImpl : nn::Module {
  RadioSedNetImpl() { mlp = register_module("mlp", Mlp({32, 64, 4, 2, "relu"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 32]
    torch::Tensor lg = torch::log10(Tap("radio.flux_jy", x, "Input").clamp_min(1e-6));
    return mlp->forward(Tap("radio.log_shape", lg - lg.mean(1, true), "Sub"));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(RadioSedNet);

// Growth pattern from the stored byte counts ("storage.used_bytes", as
// exported): each day over the row's mean, less 1, in the model
// ("storage.relative", stored); MLP 32-64-64-4 ReLU with LayerNorm.
struct StorageGrowthNetImpl : nn::Module {
  StorageGrowthNetImpl() { mlp = register_module("mlp", Mlp({32, 64, 4, 2, "relu", "layer"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 32]
    torch::Tensor b = Tap("storage.used_bytes", x, "Input");
    return mlp->forward(Tap("storage.relative", b / b.mean(1, true) - 1, "Div"));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(StorageGrowthNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh32Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; written as a practitioner would, not aimed anywhere.
  add(Make<ZeroGammaResNet1d>("zero_gamma_residual_1d_resnet_imu_activities_batchnorm_momentum_step",
                              "1-D ResNet (5-tap stem, three basic blocks of 32 channels with BatchNorm, each "
                              "block's last BatchNorm scale zero-initialised: zero-init residual), global average "
                              "pooling; five activities from 64-sample windows of a wrist IMU's 3-axis "
                              "accelerometer, SGD momentum 0.05 wd 5e-4 step decay",
                              std::function<ZeroGammaResNet1d()>([] { return ZeroGammaResNet1d(); }),
                              [] { return ImuActivityWindows(); }),
      "momentum", 0.05, "step", 250)
      ->weight_decay = 5e-4;
  add(Make<GatedXAttnNet>("flamingo_gated_cross_attention_tanh_gates_at_zero_vqa_motifs_layernorm_adamw_warmup_cosine",
                          "Flamingo-style gated cross-attention (tanh gates at 0 on the cross-attention and its MLP) "
                          "between two pre-LayerNorm self-attention blocks over 8 question tokens, 12 context tokens, "
                          "dropout 0.1; the question (anything red? anything round?) and its answer, AdamW 2e-3 wd "
                          "0.05 warm-up+cosine",
                          std::function<GatedXAttnNet()>([] { return GatedXAttnNet(); }),
                          [] { return VqaMotifQueries(); }),
      "adamw", 2e-3, "warmup_cosine", 300)
      ->weight_decay = 0.05;
  add(Make<NarrowHighwayNet>("deep_narrow_highway_net_gate_bias_minus2_100_classes_adam_cosine",
                             "deep, narrow highway network (12 layers of width 32, sigmoid transform gates with bias "
                             "-2), a 100-way softmax head; 100 Gaussian classes in 32-d, Adam 3e-3 cosine",
                             std::function<NarrowHighwayNet()>([] { return NarrowHighwayNet(); }),
                             [] { return HundredClassCodes(); }),
      "adam", 3e-3, "cosine", 300);
  Program* p =
      add(Make<SkipInitMlp>("skipinit_residual_mlp_alpha_zero_beam_deflections_16_outputs_rmsprop_warmup_cosine",
                            "SkipInit residual MLP (8 blocks of width 64 without normalisation, a learned scalar at 0 "
                            "on each branch), regressing a test beam's deflection at 16 stations from its loads and "
                            "rigidity, MSE over the 16 outputs, RMSprop 5e-4 warm-up+cosine",
                            std::function<SkipInitMlp()>([] { return SkipInitMlp(); }),
                            [] { return BeamDeflectionProfiles(); }),
          "rmsprop", 5e-4, "warmup_cosine", 300);
  p->loss = Loss::kMse;

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  p = add(Make<OrderSpectrumNet>("fault_from_run_up_order_spectra_in_mm_s_unbalance_line_growing_log_share_in_model",
                                 "machine fault (none, misalignment, looseness, bearing) from a run-up test's order "
                                 "spectra (16 orders, RMS velocity in mm/s as the analyser stores them) in run-up "
                                 "order while the 1x unbalance line grows from 8 to ~900 times the fault lines, each "
                                 "bin's log share of the row in the model, MLP 16-64-64-4 ReLU with LayerNorm, Adam "
                                 "2e-3 warm-up",
                                 std::function<OrderSpectrumNet()>([] { return OrderSpectrumNet(); }),
                                 [] { return RunUpOrderSpectra(); }),
          "adam", 2e-3, "warmup", 250);
  p->planted = true;
  p = add(Make<KilnAcNet>("burner_state_from_kiln_thermocouple_in_degc_during_firing_ramp_mean_removed_in_model",
                          "burner control state (steady, hunting, on/off cycling, flame instability) from 32 "
                          "thermocouple readings in degC as logged, in firing order while the kiln ramps from 20 to "
                          "500 degC, the row's mean taken off in the model, Conv1d 16-32 with BatchNorm, AdamW 1e-3 "
                          "wd 0.01 warm-up+cosine",
                          std::function<KilnAcNet()>([] { return KilnAcNet(); }),
                          [] { return KilnFiringTemperatures(); }),
          "adamw", 1e-3, "warmup_cosine", 250);
  p->weight_decay = 0.01;
  p->planted = true;
  p = add(Make<RadioSedNet>("radio_spectral_type_from_flux_density_in_jy_mjy_to_kjy_log_shape_in_model",
                            "radio source spectral type (steep, flat, peaked, inverted) from 32 flux densities in Jy "
                            "as the catalogue stores them (sources from 2 mJy to 4 kJy), the log spectrum less its "
                            "mean in the model, MLP 32-64-64-4 ReLU, SGD momentum 0.05 cosine",
                            std::function<RadioSedNet()>([] { return RadioSedNet(); }),
                            [] { return RadioSourceSpectra(); }),
          "momentum", 0.05, "cosine", 250);
  p->planted = true;
  p = add(Make<StorageGrowthNet>("storage_growth_pattern_from_used_bytes_as_exported_relative_in_model",
                                 "growth pattern (linear, accelerating, bulk ingest, weekly purges) of a storage "
                                 "volume from 32 days of used bytes as the monitoring exports them (2e14..3.2e15), "
                                 "each day over the row's mean in the model, MLP 32-64-64-4 ReLU with LayerNorm, "
                                 "RMSprop 1e-3 warm-up+cosine",
                                 std::function<StorageGrowthNet()>([] { return StorageGrowthNet(); }),
                                 [] { return StorageUsedBytes(); }),
          "rmsprop", 1e-3, "warmup_cosine", 250);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH32_H_
