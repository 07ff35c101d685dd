// The fresh33 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh32 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor any
// prediction was looked at), so that the rules can be measured on trainings
// nobody tuned anything against. What was looked at: /work/shared/STYLE.md;
// corpus_fresh32.h whole (for the conventions and its header's form);
// corpus.h in parts (Tap, Data, MlpSpec and Mlp, Program, Make,
// ProgramAdder, the first programs); examples/common/training.h lines
// 60..125 (MakeOptimizer and LrAt: adam, adamw, sgd, momentum, rmsprop;
// constant, warmup, cosine, warmup_cosine, step); `git show 1807efa` of
// CMakeLists.txt and validation.cc (fresh32's registration); validation.cc's
// LossOf and a few training-loop lines (335..337, 482..495) and its group
// comment (190..210, edited here); examples/validation/truth.h's first 140
// lines (the truth's definition); tracker/tracker.h lines 85..150 and
// 255..310 (simulate mode and tap); docs/formats.md (the formats' table,
// block formats, conversion rules) and docs/targets.md; targets/*.json
// (every role of every target printed by a script: format, scaling,
// rounding, subnormals, saturation); /work/f33tools/blind_filter.py whole;
// the corpus headers grepped for the words of the architectures and
// practices considered here (file names only: siren, sine activation,
// fourier feature, autoencoder, denoising, reconstruct, distill, soft target,
// teacher, student, logit match, mixture of experts, moe, router, top-k,
// embedding, zipf, fasttext, embeddingbag, temperature, logit_scale, clip,
// contrastive, film, hypernet, kan, spline, rbf, neural ode, hamiltonian,
// groupnorm, weight norm, weight_norm, weightnorm, rmsnorm, mlp-mixer,
// convmixer, dcn, cross network, factorization machine, tensor train,
// low-rank, bilinear, polynomial, capsule, sparsemax, gumbel, normalizing
// flow, realnvp, coupling, pinn, vae, one-cycle, swish, mish, snake, tucker,
// cp decomposition, canonical polyadic, candecomp, parafac, tensor ring,
// matrix factorization, collaborative, recommend, hyena, state space,
// mamba, linear attention, performer, retnet, rwkv, gru, lstm, tcn,
// reservoir, resmlp, layerscale, cait, talking head, talking, convnext,
// mobilenet, depthwise, shufflenet, densenet, inception, pointnet, gcn,
// graph, message passing, alibi, rotary, perceiver, deep sets, neural
// process, prototypical, siamese, arcface, cosine classifier, maxout, nalu,
// deq, hopfield, glu, swiglu, geglu, rational, rational activation, pade,
// pau, soft decision, decision tree, decision forest, frosst, ordinal,
// quantile, mixture density, heteroscedastic, gaussian nll, poisson, label
// smoothing, knowledge, born-again, caruana, u-net, unet, masked
// autoencoder, tied weights, pca, sparse coding, unrolled, resnext, grouped
// conv, cardinality, selective kernel, sknet, squeezenet, fire module,
// res2net, octave, involution, condconv, a-scan, ultrasonic, ndt, flaw,
// echo, rlc, bandpass, band-pass, resonan, q factor, rating, movielens;
// netcdf, fill value, _fillvalue, missing, sentinel, 9999, outage, wave
// height, buoy, register, cumulative, meter reading, smart meter, kwh,
// odometer, energy meter, megawatt, " MW", in mw, unit change, switched,
// firmware, scada, kilowatt, load profile, half-hour, settlement, office,
// time_relative, pcap, packet, inter-arrival, arrival time, since start,
// since boot, timestamp, page view, views, website, traffic, downloads,
// active users, strain, ligo, gravitational, chirp, glitch, whiten, 1e-21,
// absorbance, spectrophotometer, transmittance, beer, reference beam,
// dual-beam, photocurrent), and the lines of the hits near the words
// weighed: "talking" only in the lists of grepped words of corpus_fresh29.h
// and corpus_fresh31.h; a two-tower recommender with Zipf-sampled
// candidates in corpus_fresh13.h (another architecture than the CP
// factorisation below); netCDF's _FillValue 1e20 masked in the model in
// corpus_fresh11.h and a smart meter's cumulative kWh register differenced
// in the model in corpus_fresh17.h, which were this group's first two ideas
// for planted breakers (a fill value arriving with an outage late in the
// run, for the delayed scales; a register growing through the run): both
// dropped for those hits; LIGO strain at 1e-21 in corpus_fresh31.h (the
// third idea, dropped); corpus_fresh.h line 97 (a raw feature that drifts:
// "a counter, a timestamp") and corpus_fresh4.h's absolute timestamps
// under Fourier features, kin by their arithmetic to the capture times
// below (a growing time whose differences carry the class), which are
// another practice (a capture tool's relative times, differenced in the
// model; kept); corpus_fresh28.h's wind turbine SCADA power in kW (another
// practice than a unit switched mid-export; kept); corpus_fresh20.h's
// "beer" (a homebrewer's hydrometer, not Beer-Lambert). Also the corpus
// headers grepped for each data and model name used here (none found).
// Each planted one was designed from what the hardware does to numbers (the
// formats' arithmetic worked in Python by hand-written roundings, round to
// nearest even: bf16; fp16 with FTZ, overflowing to Inf above 65504; e4m3fn
// under a current per-tensor scale 448 / amax and under a delayed one (448
// over the largest amax of the history, which outlasts these runs); Gaudi
// 2's e4m3 (max 240) under a power-of-two scale; MI300's e4m3fnuz (max
// 240, subnormal quantum 2^-10); IPU's e4m3fnuz under a current power-of-two
// scale whose exponent is clamped to [-32, 31]; MX (1x32, E8M0 scale
// 2^(floor(log2 amax) - 8), elements saturating at 448); NVFP4 (e2m1 in 1x16
// blocks, e4m3 block scales under the per-tensor 448 x 6 / amax); DeepSeek's
// 1x128 tiles with fp32 scales (a row of 32 or 48 is one tile); bfp8
// (16-value blocks sharing the largest value's exponent E, a sign and 7
// bits: quantum 2^(E - 6)), on draws of the data's generators in pure Python
// (random, not LibTorch's numbers: the same distributions), batches of 64
// rows quantized as one tensor, blocks along each row; then a crude
// nearest-centroid rule on features of the stored rows, its centroids fitted
// on each target's own stored rows (what a training on them could still
// tell apart), per window of steps for the one that drifts), with only its
// fp32 training and its simulated truth on bf16-accelerator looked at, in
// trial runs of the brief's form (fp32 on three seeds, bf16-accelerator on
// one simulated seed, --no-probe; `--json` read through the filter, which
// prints only the fp32 runs' losses and accuracies and the runs' final
// loss, accuracy, broken and why).
//
// Three trial runs. The first (all 8, 29 s wall, 31 s of CPU): all 8 ran
// without throwing; six learned in fp32 as a practitioner would leave them,
// two not. The talking-heads student went from 4.1 to 0.90 (fp32 finals
// 0.90..0.97, logits of standard deviation 2): no close fit; its teacher's
// maximum over the tokens became their mean square (a feature the
// student's per-token MLP and mean can form) and its learning rate went
// from 1e-3 to 2e-3. The page views did not learn (1.41 to 1.36, accuracy
// 0.50..0.57 on SGD momentum 0.05, log shapes of +-0.3 and a random
// weekday phase): the rows start on a Monday now, as exports from a week's
// start do, and the optimizer became Adam 2e-3 warm-up + cosine. The
// others (loss of one fp32 run, first to last step; the three seeds'
// finals; bf16-accelerator's): the Pade MLP 1.00 to 0.0060,
// 0.0043..0.0060, bf16 0.0060; the CP factorisation 0.52 to 0.16,
// 0.158..0.163, bf16 0.158; the SqueezeNet 1.42 to 0.021, 0.021..0.023 /
// 1.0, bf16 0.021 / 1.0; the building loads 1.33 to 0.00074,
// 0.00047..0.00075 / 1.0, bf16 0.0011 / 1.0; the capture times 1.22 to
// 0.0094, 0.0090..0.0094 / 1.0, bf16 broken at step 18 (0.77 / 0.63), as
// designed; the absorbance 1.33 to 0.00068, 0.00068..0.0010 / 1.0, bf16
// 0.00094 / 1.0. Its band's peak had been lowered from 0.008..0.03 to
// 0.003..0.012 after the Python rule, not a trial, showed the e4m3 targets
// keeping 0.82..0.92 with the first (by design, not for a truth); the edit
// landed while the first build ran, so the first trial may have run either.
// The second (all 8, 26 s wall; the same numbers where nothing changed):
// the talking-heads student 4.3 to 0.85 (0.78..0.85), bf16 0.84, still no
// close fit: its teacher's first layer was halved (less saturated tanh),
// the transfer set doubled to 8192 and the training lengthened from 300 to
// 500 steps; the page views 1.42 to 0.15, 0.15..0.25 / 0.973..0.992, bf16
// 0.15 / 0.986; the absorbance (the final band) 1.33 to 0.0017,
// 0.0017..0.0024 / 1.0, bf16 0.0044 / 1.0. The third (the talking-heads
// student alone, 27 s wall): 4.4 to 0.35, 0.34..0.36, still improving at
// the end (0.53 at step 200, 0.43 at 300, 0.36 at 450), bf16 0.360. Nothing
// changed after it.
//
// The truths run (all 8 on the 12 training targets, three simulated seeds
// each; two halves in parallel, their own --root each, the header's other
// paragraphs written while it ran on the code as it stands, this paragraph
// after it: the Pade MLP, the CP factorisation, the building loads and the
// absorbance 94 s wall; the talking-heads student, the SqueezeNet, the
// capture times and the page views 358 s wall), its finals read per seed
// through the filter, showed every planted one broken where it was meant to
// break, two of them also on targets they were not aimed at, and no healthy
// one broken anywhere (no seed of any cell that did not break broke alone).
// The building loads broke on h100-fp8-delayed, mi300-fp8 and gaudi2-fp8
// at step 100 (100, 100, 100 on each), the step of the unit switch, to
// chance (loss 1.40..1.41, accuracy 0.24..0.26, against fp32's
// 0.00047..0.00075 / 1.0); not elsewhere (1.0; loss 0.00064..0.00094,
// fp16-npu-ftz 0.0037). The capture times broke on every target, staggered
// as designed: h100-fp8-current, h100-fp8-delayed, gaudi2-fp8, mi300-fp8,
// ipu-fp8, b200-mxfp8, b200-nvfp4 and deepseek-v3-fp8 from step 9..10
// (seeds at 9 or 10), ending at chance (1.37..1.40, 0.24..0.30; the break
// step is where fp32's falling loss first leaves them behind);
// tenstorrent-bfp8 and tenstorrent-bfp4 from step 14 (14, 12, 14; 1.16..1.17,
// 0.50..0.51); bf16-accelerator from 17 (18, 16, 17; 0.78, 0.63);
// fp16-npu-ftz gradually, from 71 (66, 72, 71; 0.31, 0.84), against fp32's
// 0.0090..0.0094 / 1.0. The page views on fp16-npu-ftz from step 106 (3 of
// 3, non-finite loss), about ten steps before the Python draw's first day
// above 65504 (116): LibTorch's draw crosses earlier; and, not aimed at,
// on b200-nvfp4 by accuracy alone (0.82..0.87, loss 0.30..0.35, against
// fp32's 0.97..0.99 and 0.15..0.25; the break step the last, 249, 3 of 3):
// e2m1 blurred the weekly shape more than the design's reading of it; not
// elsewhere (accuracy 0.953..0.99, loss 0.15..0.26). The absorbance on
// h100-fp8-current, h100-fp8-delayed, gaudi2-fp8, mi300-fp8, ipu-fp8 and
// b200-mxfp8 from step 4 (every seed at 4; loss 0.50..0.62, accuracy
// 0.75..0.81), b200-nvfp4 from 4 (1.09, 0.49) and deepseek-v3-fp8 from 9
// (9, 9, 10; 0.19, 0.93), against fp32's 0.0017..0.0024 / 1.0; and, not
// aimed at, on tenstorrent-bfp8 (4, 4, 4) and tenstorrent-bfp4 (4, 4, 7)
// by loss alone (0.029 and 0.031, twelve times fp32's, accuracy
// 0.995..0.997): the design's rule (accuracy 0.99 on bfp8) read what
// still tells the bands apart, the truth's loss the confidence lost; not
// on bf16-accelerator (0.0049 / 1.0) or fp16-npu-ftz (0.0033 / 1.0). The
// healthy ones broke nowhere, no seed on any target: the Pade MLP's loss
// 0.0057..0.0070 (b200-nvfp4 the highest; fp16-npu-ftz 0.0063) against
// fp32's 0.0043..0.0060; the talking-heads student's 0.353..0.369 but
// tenstorrent-bfp4's 0.396 and b200-nvfp4's 0.45, against fp32's
// 0.343..0.359; the CP factorisation's 0.162..0.168 but ipu-fp8's 0.175
// and gaudi2-fp8's 0.181, against fp32's 0.158..0.163; the SqueezeNet's
// accuracy 0.998..1.0 (loss 0.021..0.033, fp16-npu-ftz and b200-nvfp4 the
// highest) against fp32's 1.0 (0.021..0.023). Nothing changed after it but
// this paragraph.
//
// Four train fine in fp32 and are written as a practitioner would, not aimed
// at any target, on architectures no earlier group uses: an MLP with
// learned rational activations (safe Pade activation units, Molina et al.
// 2020) regressing an RLC band-pass filter's log magnitude at 16
// frequencies (a smooth regression fitted closely: its MSE falls two
// decades and keeps falling late, so its late gradients are small); a
// student of two talking-heads attention blocks (Shazeer et al. 2020)
// distilled onto a teacher's saved logits by logit matching (MSE onto soft
// targets, improving to the end); a rank-8 CP (PARAFAC) factorisation of a
// (customer, product, week) ratings cube whose customers and products come
// by Zipf popularity (the prediction a product of three learned factors;
// the popular rows' factors trained by every batch, the tail's barely, so
// its embeddings and their products span a wide range); and a 1-D
// SqueezeNet (fire modules with BatchNorm, dropout 0.5) classifying
// ultrasonic A-scans. Optimizer and schedule pairs: Adam 3e-3 cosine,
// AdamW 2e-3 wd 0.01 warm-up + cosine (LayerNorm), RMSprop 3e-3 warm-up
// (batches of 256), SGD momentum 0.02 wd 5e-4 step decay (BatchNorm,
// dropout); three regressions, one classification. Whether they break
// anywhere was not computed.
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: a delayed scale that remembers a larger
// past, a difference under a format's spacing that grows with an offset,
// values above fp16's range, a ratio under a format's spacing; the practice
// is new), meant to break on different sets of targets, three of them
// only after some training:
//   - a building's main meter, 48 half-hourly readings of active power a
//     row, exported by the site's historian in watts (3e3..4.5e4 W) for the
//     first 100 batches and in megawatts after a migration switched the
//     tag's unit (rows in export order; the switch at row 6400, step 100);
//     each reading over the day's peak in the model, so fp32 does not see
//     the switch. A delayed per-tensor scale remembers the watts: its
//     history (1024 steps) outlasts the run, so after step 100 the scale
//     stays at 448 / ~4.6e4 (h100-fp8-delayed: the megawatts, <= 4.5e-2,
//     land at <= 4.4e-4, under half e4m3fn's smallest subnormal 2^-9),
//     240 / ~4.6e4 (mi300-fp8: <= 2.3e-4, under half e4m3fnuz's 2^-10) or
//     2^-8 (gaudi2-fp8, power of two: <= 1.8e-4, under 2^-10): every
//     reading stores as 0, the day over its (clamped) peak is 0, a constant
//     input. Current scales (h100-fp8-current, the IPU's power of two from
//     2^-8 to 2^12, NVFP4's per-tensor scale) follow the unit within the
//     step; MX, DeepSeek's tiles and bfp8 scale each block or row; bf16 and
//     fp16 hold both units (4.5e4 W under 65504; 3e-3 MW above fp16's
//     smallest normal 6.1e-5). Meant to break on h100-fp8-delayed,
//     mi300-fp8 and gaudi2-fp8 from step 100 (to chance); not on the others.
//   - a packet capture's telemetry flows, 32 packet times a row in seconds
//     since the capture started (frame.time_relative), rows in capture
//     order over ~56000 s; the gaps (P = 10..60 s: periodic, Poisson,
//     bursts 0.05 P apart, a back-off) differenced, floored at 1 ms, logged
//     and centred in the model. The time's spacing grows with it: bf16's
//     2^(floor(log2 t) - 7) is 8 s at 1024..2048 s and 256 s beyond 32768;
//     bfp8's block quantum twice that; fp16's 2^(floor(log2 t) - 10) is 1 s
//     at 1024..2048 s, 8 s at 8192..16384, 32 s beyond 32768 (all under
//     65504: no Inf); e4m3 under a per-tensor or per-row scale (the
//     per-tensor targets, IPU, MX, DeepSeek) keeps 1/8..1/16 of the batch's
//     or row's largest time, ~100 s already in the first batches; NVFP4
//     coarser. The rule (centroids of the sorted centred log gaps and their
//     steps, windows of 6 batches): fp32 0.77..0.83 throughout; the e4m3
//     targets and MX 0.37..0.44 and NVFP4 0.44 at step 0 (chance ~0.3
//     later); bfp8 0.64 at step 0, 0.52 at 5..10, ~0.4 from 20; bf16 0.80
//     at step 0, 0.61 at 5..10, 0.48 at 20, ~0.4 from 40; fp16 0.79..0.83
//     to step 20, 0.64 at 40..60, 0.52..0.62 over 80..200, 0.47 at the end.
//     Meant to break on every target, staggered: the e4m3 and e2m1 ones
//     from the first steps, tenstorrent-bfp8 and tenstorrent-bfp4 (bfp8
//     activations) and bf16-accelerator from about step 5..20, fp16-npu-ftz
//     gradually from about step 30..60.
//   - a growing platform's article sections, 28 days of page views a row
//     (from a Monday) as the analytics export gives them, rows in export
//     order while a section's typical day grows from ~200 to ~3e5 views
//     (x 0.3..3 per section, x 0.45..2 by the weekly pattern, news days x
//     2..3); log10(1 + views) less the row's mean in the model. fp16 holds
//     nothing above 65504: the first batch with such a day (step ~116 in
//     the Python draw: batch maxima 4.3e4 at step 100, 4.7e4 at 110, 8.1e4
//     at 120) stores Inf, log10 Inf less the row's mean Inf is NaN, the
//     loss NaN. Every other target keeps the log shape: bf16's 2^-8
//     relative spacing; e4m3's 1/8..1/16 under a per-tensor scale (amax up
//     to ~2.5e6, the batch's values within ~40x of it: normal), a log
//     error under 0.03 against weekly factors of 0.26..0.35 decades; the
//     IPU's power-of-two scale (2^-14 at 2.5e6) inside its clamp; MX and
//     DeepSeek per block or row; bfp8 (a 16-day block within ~10x of its
//     largest); NVFP4's e2m1 (a weekend at 0.45..0.6 of a week's top rounds
//     to 2 or 3 of 6, apart from 6). Meant to break on fp16-npu-ftz only,
//     from about step 115..125 (non-finite); not on the others.
//   - a dual-beam UV-vis spectrophotometer's sample and reference
//     photocurrents in nA (150..360 nA) at 32 wavelengths as logged, the
//     absorbance 100 log10(I0 / I) in the model; a dilute analyte's band
//     peaks at 0.003..0.012 absorbance, the two beams 0.7..2.8% apart at
//     the peak and less elsewhere. e4m3 keeps a value to 1/8..1/16 of its
//     binade: under a per-tensor scale (current, delayed: the batches'
//     amax stationary, Gaudi 2's and the IPU's powers of two), MX's block
//     scale or DeepSeek's row scale, the two beams mostly store the same
//     code and the band reads 0, now and then a step of 0.03..0.05;
//     NVFP4's e2m1 steps by 1/6..1/3 of its block's largest. bf16 (2^-8
//     relative), fp16 (2^-11) and bfp8 (the 16-value block of a beam within
//     ~2x of its largest: 2^-6..2^-7 of it) keep the band. The rule
//     (centroids of the stored absorbance over 32 wavelengths): 1.00 on
//     fp32, bf16 and fp16, bfp8 0.99, DeepSeek 0.91, h100-fp8-current
//     0.71, MI300 0.69, Gaudi 2 and IPU 0.68, MX 0.65, NVFP4 0.39. Meant to
//     break on h100-fp8-current, h100-fp8-delayed, gaudi2-fp8, mi300-fp8,
//     ipu-fp8, b200-mxfp8 and b200-nvfp4 from the first steps (and perhaps
//     deepseek-v3-fp8, whose per-row scale loses less); not on
//     bf16-accelerator, fp16-npu-ftz or the Tenstorrent targets.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
// Brushes with rule material, none of which changed a design:
// validation.cc's group comment (read to add fresh33's sentence) carries
// fresh31's and fresh32's judged figures (precision, recall, median lead;
// hits, false alarms and misses by rule name: lp_underflow,
// lp_forward_loss, lp_dynamic_range, on named programs and targets), as
// earlier groups' sentences do; `git rev-parse HEAD` showed main a few
// commits past 1807efa, whose messages were not read. The filter prints
// each simulated run's "why" (the truth's reason), no rule's. The brief
// itself asks for healthy trainings that improve late towards a small loss
// (small late gradients) and one whose values span a wide range; they were
// chosen for the brief, not for a rule. Nothing else (no rule code,
// description, finding or prediction, no --list-rules output, no text
// table, no README, no docs/checks.md or docs/validation.md, no
// truths.json, no other branch or worktree: none of it was opened) was
// seen.
//
//   for (const Program& p : Fresh33Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH33_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH33_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "examples/validation/corpus.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// A series RLC band-pass filter on a bench: its centre frequency (0.25..4
// of the sweep's reference, log-uniform), its quality factor (1..5,
// log-uniform) and a gain (+-0.2 decades), given as 3 settings in [-1, 1];
// the log10 magnitude of its response at 16 log-spaced frequencies (0.1..10),
// log10 g - 0.5 log10(1 + Q^2 (f / f0 - f0 / f)^2). Computed in double,
// [N, 3] -> [N, 16].
inline Data RlcBandpassResponses(int64_t n = 4096) {
  const auto d = torch::kDouble;
  torch::Tensor u = 2 * torch::rand({n, 3}, d) - 1;
  torch::Tensor f = torch::pow(10.0, -1 + 2 * torch::arange(16, d).view({1, 16}) / 15);
  torch::Tensor f0 = torch::pow(10.0, 0.6 * u.select(1, 0).view({n, 1}));
  torch::Tensor q = torch::pow(10.0, 0.35 + 0.35 * u.select(1, 1).view({n, 1}));
  torch::Tensor detune = f / f0 - f0 / f;
  torch::Tensor mag = 0.2 * u.select(1, 2).view({n, 1}) - 0.5 * torch::log10(1 + q.pow(2) * detune.pow(2));
  return {u.to(torch::kFloat), mag.to(torch::kFloat)};
}

// A transfer set for logit matching (Ba & Caruana 2014): 8 tokens of 8
// features (N(0, 1)) and a teacher's 10 logits on them, as the teacher's
// run saved them. The teacher stands in for a trained network: a fixed
// tanh MLP (drawn with the data) on the tokens' mean and their mean square,
// its logits scaled to a standard deviation of 2. [N, 8, 8] -> [N, 10].
inline Data TeacherLogitTransferSet(int64_t n = 8192) {
  torch::Tensor x = torch::randn({n, 8, 8});
  torch::Tensor w1 = torch::randn({16, 48}) / 4, b1 = 0.3 * torch::randn({48}), w2 = torch::randn({48, 10});
  torch::Tensor feats = torch::cat({x.mean(1) * std::sqrt(8.0), (x.pow(2).mean(1) - 1) * 2}, 1);
  torch::Tensor logits = torch::matmul(torch::tanh(torch::matmul(feats, w1) + b1), w2);
  return {x, 2 * logits / logits.std()};
}

// A ratings cube as a retailer logs it: (customer, product, week) triples
// with a rating 1..5 (real-valued: the mean of a visit's item scores).
// Customers (500) and products (400) are drawn by popularity, Zipf with
// exponent 1.1 (the top customer ~12% of the rows, most seen a few times),
// weeks (16) uniformly; the rating is 3.6 + customer, product and week
// biases + a rank-4 CP term sum_r U[c, r] V[p, r] W[w, r] (factors N(0,
// 0.6^2)) + N(0, 0.15^2). The indices are given as floats, [N, 3] -> [N, 1];
// batches of 256.
inline Data ZipfRatingsCube(int64_t n = 16384) {
  auto zipf = [&](int64_t k) {
    torch::Tensor w = torch::pow(torch::arange(1, k + 1, torch::kDouble), -1.1);
    return torch::multinomial(w, n, true);
  };
  torch::Tensor c = zipf(500), p = zipf(400), wk = torch::randint(0, 16, {n}, torch::kLong);
  torch::Tensor u = 0.6 * torch::randn({500, 4}), v = 0.6 * torch::randn({400, 4}), w = 0.6 * torch::randn({16, 4});
  torch::Tensor bc = 0.3 * torch::randn({500}), bp = 0.3 * torch::randn({400});
  torch::Tensor bw = 0.15 * torch::sin(torch::arange(16, torch::kFloat) / 2.5);
  torch::Tensor cp = (u.index_select(0, c) * v.index_select(0, p) * w.index_select(0, wk)).sum(1);
  torch::Tensor r = 3.6 + bc.index_select(0, c) + bp.index_select(0, p) + bw.index_select(0, wk) + cp +
                    0.15 * torch::randn({n});
  Data data{torch::stack({c, p, wk}, 1).to(torch::kFloat), r.view({n, 1})};
  data.batch = 256;
  return data;
}

// Ultrasonic A-scans of bonded plates (a 5 MHz probe, 128 samples of the
// rectified, normalised echo envelope after the front-wall echo). The class
// is the flaw: none (the back-wall echo at 90..110 and its repeat, weaker);
// a crack (a sharp echo of 0.3..0.8 at 30..80, the back wall weakened);
// porosity (8..16 small scattered echoes of 0.05..0.2 through the plate);
// a delamination (a strong echo of 0.6..1.0 at 20..45 and its repeats at
// twice and three times its depth, no back wall). Grain noise |N(0,
// 0.04^2)|, [N, 1, 128].
inline Data UltrasonicAScans(int64_t n = 4096, int64_t t = 128) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = 0.04 * torch::randn({n, t}).abs();
  auto ya = y.accessor<int64_t, 1>();
  auto xa = x.accessor<float, 2>();
  auto echo = [&](int64_t i, double at, double amp, double width) {
    for (int64_t k = std::max<int64_t>(0, int64_t(at) - 8); k < std::min<int64_t>(t, int64_t(at) + 9); ++k) {
      xa[i][k] += static_cast<float>(amp * std::exp(-0.5 * std::pow((k - at) / width, 2)));
    }
  };
  torch::Tensor r = torch::rand({n, 40}, torch::kDouble);
  auto ra = r.accessor<double, 2>();
  for (int64_t i = 0; i < n; ++i) {
    const double back = 90 + 20 * ra[i][0], bw = 0.6 + 0.3 * ra[i][1];
    switch (ya[i]) {
      case 0:
        echo(i, back, bw, 2.0);
        echo(i, std::min(back + 14, 126.0), 0.3 * bw, 2.5);
        break;
      case 1:
        echo(i, 30 + 50 * ra[i][2], 0.3 + 0.5 * ra[i][3], 1.2);
        echo(i, back, 0.5 * bw, 2.0);
        break;
      case 2: {
        const int m = 8 + int(9 * ra[i][4]);
        for (int j = 0; j < m; ++j) echo(i, 10 + 110 * ra[i][5 + j], 0.05 + 0.15 * ra[i][25 + j % 15], 1.5);
        echo(i, back, 0.7 * bw, 2.0);
        break;
      }
      default: {
        const double depth = 20 + 25 * ra[i][2], a = 0.6 + 0.4 * ra[i][3];
        echo(i, depth, a, 2.0);
        echo(i, 2 * depth, 0.5 * a, 2.5);
        if (3 * depth < t - 2) echo(i, 3 * depth, 0.25 * a, 3.0);
      }
    }
  }
  return {x.unsqueeze(1), y};
}

// A building's main meter, one row per day: 48 half-hourly readings of the
// active power, as the site's historian exports them, in watts for the
// first 6400 rows (100 batches of 64) and in megawatts after that (a
// historian migration switched the tag's unit; rows in export order). The
// class is the building's use: an office (a plateau 08:00..18:00), a
// residential block (morning and evening peaks), a shop (10:00..21:00 with
// a late peak) or a data hall (flat, the cooling's slow swing). Base load
// 3..8 kW, peaks to 15..45 kW, 2% noise. Computed in double, [N, 48].
inline Data BuildingLoadHistorianExport(int64_t n = 16000, int64_t t = 48) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor h = torch::arange(t, d).view({1, t}) / 2.0;  // hour of the day
  auto bump = [&](const torch::Tensor& at, double width) { return torch::exp(-0.5 * ((h - at) / width).pow(2)); };
  auto plateau = [&](const torch::Tensor& from, const torch::Tensor& to) {
    return torch::sigmoid(2 * (h - from)) * torch::sigmoid(2 * (to - h));
  };
  torch::Tensor base = u(3e3, 8e3), peak = u(1.5e4, 4.5e4) - base;
  torch::Tensor office = plateau(u(7.5, 8.5), u(17.5, 18.5));
  torch::Tensor residential = 0.7 * bump(u(7, 8.5), 1.0) + bump(u(18.5, 20.5), 1.5);
  torch::Tensor shop = 0.8 * plateau(u(9.5, 10.5), u(20.5, 21.5)) + 0.2 * bump(u(17.5, 19.5), 1.0);
  torch::Tensor hall = 0.85 + 0.1 * torch::sin(2 * M_PI * h / 24 + u(0, 2 * M_PI));
  torch::Tensor shape = is(0) * office + is(1) * residential + is(2) * shop + is(3) * hall;
  torch::Tensor w = (base + peak * shape) * (1 + 0.02 * torch::randn({n, t}, d));
  torch::Tensor unit = torch::where(torch::arange(n, d).view({n, 1}) < 6400, torch::ones({1, 1}, d),
                                    torch::full({1, 1}, 1e-6, d));
  return {(w * unit).to(torch::kFloat), y.view({n})};
}

// A packet capture's telemetry flows, one row per flow: 32 consecutive
// packets' times in seconds since the capture started, as a capture tool
// exports them (frame.time_relative), rows in capture order over ~15.5
// hours (a flow's first packet at 56000 x row / N s). The class is the
// sender's reporting: periodic (a period P of 10..60 s, 2% jitter); Poisson
// (mean P); bursts of 4 packets 0.05 P apart every ~4 P; exponential
// back-off (gaps growing 8% a packet from 0.3 P). Computed in double,
// [N, 32].
inline Data CaptureRelativeTimes(int64_t n = 16000, int64_t t = 32) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor k = torch::arange(t - 1, d).view({1, t - 1});
  torch::Tensor period = torch::pow(10.0, u(1, std::log10(60.0)));
  torch::Tensor periodic = 1 + 0.02 * torch::randn({n, t - 1}, d);
  torch::Tensor poisson = -torch::log(torch::rand({n, t - 1}, d).clamp_min(1e-12));
  torch::Tensor phase = torch::randint(0, 4, {n, 1}, d);
  torch::Tensor bursts = torch::where(torch::fmod(k + phase, 4.0) == 3, torch::full({1, 1}, 3.85, d),
                                      torch::full({1, 1}, 0.05, d)) * (1 + 0.05 * torch::randn({n, t - 1}, d));
  torch::Tensor backoff = 0.3 * torch::pow(1.08, k) * (1 + 0.03 * torch::randn({n, t - 1}, d));
  torch::Tensor gaps = period * (is(0) * periodic + is(1) * poisson + is(2) * bursts + is(3) * backoff);
  torch::Tensor start = 56000 * torch::arange(n, d).view({n, 1}) / double(n) + u(0, 5);
  torch::Tensor times = torch::cat({start, start + torch::cumsum(gaps, 1)}, 1);
  return {times.to(torch::kFloat), y.view({n})};
}

// A growing platform's article sections, one row per section: 28 days of
// page views from a Monday as the analytics export gives them, rows in
// export order while the platform grows (a section's typical day 10^(2.3 +
// 3.2 u) views over the export's fraction u: ~200 at the start, ~3e5 at the
// end; each section 0.3..3 times that, log-uniform). The class is the section's weekly
// pattern: weekday-heavy (weekends x 0.45..0.6), weekend-heavy (x 1.6..2),
// flat, or news-driven (2..4 days jumping x 2..3, decaying by half a day).
// Log-normal noise of 8%. Computed in double, [N, 28].
inline Data SectionPageViews(int64_t n = 16000, int64_t t = 28) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor k = torch::arange(t, d).view({1, t});
  torch::Tensor weekend = (torch::fmod(k, 7.0) >= 5).to(d);
  torch::Tensor lg = is(0) * weekend * torch::log10(u(0.45, 0.6)) + is(1) * weekend * torch::log10(u(1.6, 2.0));
  torch::Tensor news = torch::zeros({n, t}, d);
  for (int j = 0; j < 4; ++j) {
    torch::Tensor day = torch::randint(0, t, {n, 1}, d);
    torch::Tensor on = (torch::rand({n, 1}, d) < (j < 2 ? 1.0 : 0.5)).to(d);
    news = news + on * u(1, 2) * (k >= day).to(d) * torch::exp(-(k - day).clamp_min(0) / 0.7);
  }
  lg = lg + is(3) * torch::log10(1 + news);
  torch::Tensor level = 2.3 + 3.2 * torch::arange(n, d).view({n, 1}) / double(n) + u(std::log10(0.3), std::log10(3.0));
  torch::Tensor views = torch::pow(10.0, level + lg + 0.035 * torch::randn({n, t}, d));
  return {views.round().to(torch::kFloat), y.view({n})};
}

// A dual-beam UV-vis spectrophotometer's raw readings: at 32 wavelengths,
// the sample beam's and the reference beam's photocurrents in nA as the
// instrument logs them (the lamp's spectrum 150..300 nA, x 0.8..1.2 per
// run; 0.05% detector noise on each beam). The sample's absorbance
// A = log10(I0 / I) is a dilute analyte's band, peak 0.003..0.012 at one of
// four places (wavelength index 7, 12, 18 or 24, width 3), over a flat
// 0..0.003 from the cuvette. The class is the analyte. [N, 2, 32]: the
// sample beam, then the reference beam.
inline Data DualBeamPhotocurrents(int64_t n = 4096, int64_t t = 32) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  torch::Tensor k = torch::arange(t, d).view({1, t});
  torch::Tensor lamp = u(0.8, 1.2) * (150 + 150 * torch::exp(-0.5 * ((k - 14) / 9).pow(2)));
  torch::Tensor centre = torch::full({n, 1}, 7.0, d);
  centre = torch::where(y == 1, torch::full({1, 1}, 12.0, d), centre);
  centre = torch::where(y == 2, torch::full({1, 1}, 18.0, d), centre);
  centre = torch::where(y == 3, torch::full({1, 1}, 24.0, d), centre);
  torch::Tensor a = u(0.003, 0.012) * torch::exp(-0.5 * ((k - centre) / 3).pow(2)) + u(0, 0.003);
  torch::Tensor ref = lamp * (1 + 5e-4 * torch::randn({n, t}, d));
  torch::Tensor sample = lamp * torch::pow(10.0, -a) * (1 + 5e-4 * torch::randn({n, t}, d));
  return {torch::stack({sample, ref}, 1).to(torch::kFloat), y.view({n})};
}

// --- healthy models -------------------------------------------------------------

// A Pade activation unit (Molina et al. 2020, "safe" PAU): a learned
// rational function P(x) / (1 + |b1 x + b2 x^2 + b3 x^3 + b4 x^4|) with P of
// degree 5, one per layer, started near a leaky ReLU-like curve.
struct PadeActivationImpl : nn::Module {
  PadeActivationImpl() {
    num = register_parameter("num", torch::tensor({0.02, 0.5, 0.3, 0.05, 0.0, 0.0}));
    den = register_parameter("den", torch::tensor({0.0, 0.1, 0.0, 0.0}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor p = num[5];
    for (int i = 4; i >= 0; --i) p = p * x + num[i];
    torch::Tensor q = den[3];
    for (int i = 2; i >= 0; --i) q = q * x + den[i];
    return p / (1 + (q * x).abs());
  }
  torch::Tensor num, den;
};
TORCH_MODULE(PadeActivation);

// An MLP 3-64-64-64-16 with a Pade activation unit after each hidden layer.
struct PadeMlpImpl : nn::Module {
  PadeMlpImpl() {
    for (int i = 0; i < 3; ++i) {
      fcs.push_back(register_module("fc" + std::to_string(i), nn::Linear(i == 0 ? 3 : 64, 64)));
      acts.push_back(register_module("pau" + std::to_string(i), PadeActivation()));
    }
    out = register_module("out", nn::Linear(64, 16));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 3]
    torch::Tensor h = x;
    for (size_t i = 0; i < fcs.size(); ++i) {
      h = Tap("pade.pau" + std::to_string(i), acts[i]->forward(fcs[i]->forward(h)), "PAU");
    }
    return out->forward(h);
  }
  std::vector<nn::Linear> fcs;
  std::vector<PadeActivation> acts;
  nn::Linear out{nullptr};
};
TORCH_MODULE(PadeMlp);

// A pre-LayerNorm encoder block with talking-heads attention (Shazeer et
// al. 2020): 4 heads of 8 over d = 32, the attention logits mixed across
// heads by a learned 4x4 matrix before the softmax and the weights by
// another after it (both started at the identity); a GELU MLP 32-64-32.
struct TalkingHeadsBlockImpl : nn::Module {
  TalkingHeadsBlockImpl() {
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({32})));
    qkv = register_module("qkv", nn::Linear(32, 96));
    proj = register_module("proj", nn::Linear(32, 32));
    mix_logits = register_parameter("mix_logits", torch::eye(4));
    mix_weights = register_parameter("mix_weights", torch::eye(4));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({32})));
    fc1 = register_module("fc1", nn::Linear(32, 64));
    fc2 = register_module("fc2", nn::Linear(64, 32));
  }
  torch::Tensor forward(torch::Tensor x, const std::string& name) {
    const int64_t n = x.size(0), l = x.size(1);
    std::vector<torch::Tensor> qkvs = qkv->forward(ln1->forward(x)).view({n, l, 3, 4, 8}).permute({2, 0, 3, 1, 4}).unbind(0);
    torch::Tensor logits = torch::matmul(qkvs[0], qkvs[1].transpose(-2, -1)) / std::sqrt(8.0);  // [n, 4, l, l]
    logits = Tap(name + ".logits", torch::einsum("gh,nhij->ngij", {mix_logits, logits}), "MatMul");
    torch::Tensor attn = Tap(name + ".softmax", torch::softmax(logits, -1), "Softmax");
    attn = torch::einsum("gh,nhij->ngij", {mix_weights, attn});
    x = x + proj->forward(torch::matmul(attn, qkvs[2]).transpose(1, 2).reshape({n, l, 32}));
    torch::Tensor f = Tap(name + ".gelu", torch::gelu(fc1->forward(ln2->forward(x))), "GELU");
    return x + fc2->forward(f);
  }
  nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
  torch::Tensor mix_logits, mix_weights;
};
TORCH_MODULE(TalkingHeadsBlock);

// The student: tokens 8 -> 32 plus learned positions, two talking-heads
// blocks, the mean of the tokens, LayerNorm, linear 32 -> 10 logits.
struct TalkingHeadsStudentImpl : nn::Module {
  TalkingHeadsStudentImpl() {
    embed = register_module("embed", nn::Linear(8, 32));
    pos = register_parameter("pos", 0.1 * torch::randn({8, 32}));
    b1 = register_module("b1", TalkingHeadsBlock());
    b2 = register_module("b2", TalkingHeadsBlock());
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({32})));
    head = register_module("head", nn::Linear(32, 10));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 8, 8]
    torch::Tensor h = Tap("talking.embed", embed->forward(x) + pos, "Linear");
    h = b2->forward(b1->forward(h, "talking.b1"), "talking.b2");
    return head->forward(ln->forward(h.mean(1)));
  }
  nn::Linear embed{nullptr}, head{nullptr};
  torch::Tensor pos;
  TalkingHeadsBlock b1{nullptr}, b2{nullptr};
  nn::LayerNorm ln{nullptr};
};
TORCH_MODULE(TalkingHeadsStudent);

// A CP (CANDECOMP/PARAFAC) factorisation of the ratings cube, rank 8: the
// rating is mu + customer, product and week biases + sum_r u_r v_r w_r, the
// three factors looked up by index (embeddings started at N(0, 0.3^2),
// biases at 0, mu at 3.5).
struct CpRatingsModelImpl : nn::Module {
  CpRatingsModelImpl() {
    cust = register_module("cust", nn::Embedding(500, 8));
    prod = register_module("prod", nn::Embedding(400, 8));
    week = register_module("week", nn::Embedding(16, 8));
    cust_bias = register_module("cust_bias", nn::Embedding(500, 1));
    prod_bias = register_module("prod_bias", nn::Embedding(400, 1));
    week_bias = register_module("week_bias", nn::Embedding(16, 1));
    mu = register_parameter("mu", torch::full({1}, 3.5));
    torch::NoGradGuard g;
    for (auto* e : {&cust, &prod, &week}) (*e)->weight.mul_(0.3);
    for (auto* e : {&cust_bias, &prod_bias, &week_bias}) (*e)->weight.zero_();
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 3] indices as floats
    torch::Tensor i = x.round().to(torch::kLong);
    torch::Tensor c = i.select(1, 0), p = i.select(1, 1), w = i.select(1, 2);
    torch::Tensor uc = Tap("cp.customer", cust->forward(c), "Embedding");
    torch::Tensor vp = Tap("cp.product", prod->forward(p), "Embedding");
    torch::Tensor ww = Tap("cp.week", week->forward(w), "Embedding");
    torch::Tensor term = Tap("cp.triple_product", uc * vp * ww, "Mul").sum(1, true);
    return mu + cust_bias->forward(c) + prod_bias->forward(p) + week_bias->forward(w) + term;
  }
  nn::Embedding cust{nullptr}, prod{nullptr}, week{nullptr};
  nn::Embedding cust_bias{nullptr}, prod_bias{nullptr}, week_bias{nullptr};
  torch::Tensor mu;
};
TORCH_MODULE(CpRatingsModel);

// A SqueezeNet fire module for 1-D signals (Iandola et al. 2016): a 1x1
// squeeze to s channels, then 1x1 and 3-tap expansions of e channels each,
// concatenated; BatchNorm after each convolution.
struct FireModule1dImpl : nn::Module {
  FireModule1dImpl(int64_t in, int64_t s, int64_t e) {
    squeeze = register_module("squeeze", nn::Conv1d(nn::Conv1dOptions(in, s, 1).bias(false)));
    bns = register_module("bns", nn::BatchNorm1d(s));
    expand1 = register_module("expand1", nn::Conv1d(nn::Conv1dOptions(s, e, 1).bias(false)));
    bn1 = register_module("bn1", nn::BatchNorm1d(e));
    expand3 = register_module("expand3", nn::Conv1d(nn::Conv1dOptions(s, e, 3).padding(1).bias(false)));
    bn3 = register_module("bn3", nn::BatchNorm1d(e));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor s = torch::relu(bns->forward(squeeze->forward(x)));
    return torch::cat({torch::relu(bn1->forward(expand1->forward(s))), torch::relu(bn3->forward(expand3->forward(s)))}, 1);
  }
  nn::Conv1d squeeze{nullptr}, expand1{nullptr}, expand3{nullptr};
  nn::BatchNorm1d bns{nullptr}, bn1{nullptr}, bn3{nullptr};
};
TORCH_MODULE(FireModule1d);

// A 1-D SqueezeNet for the A-scans: a 7-tap stem 1 -> 32 (stride 2) with
// BatchNorm, max pooling, fire modules 32 -> 32 -> 64 (squeeze 8, 16) with
// max pooling between, dropout 0.5, a 1x1 convolution to the 4 classes and
// global average pooling (SqueezeNet's classifier).
struct FireNet1dImpl : nn::Module {
  FireNet1dImpl() {
    stem = register_module("stem", nn::Conv1d(nn::Conv1dOptions(1, 32, 7).stride(2).padding(3).bias(false)));
    bn = register_module("bn", nn::BatchNorm1d(32));
    fire1 = register_module("fire1", FireModule1d(32, 8, 16));
    fire2 = register_module("fire2", FireModule1d(32, 8, 16));
    fire3 = register_module("fire3", FireModule1d(32, 16, 32));
    drop = register_module("drop", nn::Dropout(0.5));
    classifier = register_module("classifier", nn::Conv1d(nn::Conv1dOptions(64, 4, 1)));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 1, 128]
    torch::Tensor h = Tap("fire.stem", torch::max_pool1d(torch::relu(bn->forward(stem->forward(x))), 2), "Conv1d");
    h = Tap("fire.fire1", fire1->forward(h), "Fire");
    h = Tap("fire.fire2", torch::max_pool1d(fire2->forward(h), 2), "Fire");
    h = Tap("fire.fire3", fire3->forward(h), "Fire");
    return classifier->forward(drop->forward(h)).mean(2);
  }
  nn::Conv1d stem{nullptr}, classifier{nullptr};
  nn::BatchNorm1d bn{nullptr};
  FireModule1d fire1{nullptr}, fire2{nullptr}, fire3{nullptr};
  nn::Dropout drop{nullptr};
};
TORCH_MODULE(FireNet1d);

// --- planted models -------------------------------------------------------------

// Building use from the exported day ("load.power_as_exported", W or MW as
// the historian gives it): each reading over the day's peak in the model
// ("load.per_peak", stored); MLP 48-64-64-4 ReLU with LayerNorm.
struct LoadShapeNetImpl : nn::Module {
  LoadShapeNetImpl() { mlp = register_module("mlp", Mlp({48, 64, 4, 2, "relu", "layer"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 48]
    torch::Tensor p = Tap("load.power_as_exported", x, "Input");
    return mlp->forward(Tap("load.per_peak", p / p.amax(1, true).clamp_min(1e-12), "Div"));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(LoadShapeNet);

// The sender's reporting from the exported times ("pcap.time_relative_s",
// seconds since the capture started, as stored): the gaps between packets
// in the model (floored at 1 ms, as tied timestamps give 0), log10, less
// the row's mean ("pcap.log_gaps", stored); MLP 31-64-64-4 ReLU with
// LayerNorm.
struct CaptureGapNetImpl : nn::Module {
  CaptureGapNetImpl() { mlp = register_module("mlp", Mlp({31, 64, 4, 2, "relu", "layer"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 32]
    torch::Tensor t = Tap("pcap.time_relative_s", x, "Input");
    torch::Tensor lg = torch::log10((t.slice(1, 1) - t.slice(1, 0, -1)).clamp_min(1e-3));
    return mlp->forward(Tap("pcap.log_gaps", lg - lg.mean(1, true), "Sub"));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(CaptureGapNet);

// The weekly pattern from the exported counts ("views.daily_as_exported",
// page views as stored): log10(1 + views) less the row's mean in the model
// ("views.log_shape", stored); MLP 28-64-64-4 ReLU.
struct PageViewShapeNetImpl : nn::Module {
  PageViewShapeNetImpl() { mlp = register_module("mlp", Mlp({28, 64, 4, 2, "relu"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 28]
    torch::Tensor lg = torch::log10(1 + Tap("views.daily_as_exported", x, "Input"));
    return mlp->forward(Tap("views.log_shape", lg - lg.mean(1, true), "Sub"));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(PageViewShapeNet);

// The analyte from the logged photocurrents ("uvvis.photocurrent_na", both
// beams in nA as stored): the absorbance log10(I0 / I) in the model
// ("uvvis.absorbance", stored, x 100 as absorbance units go), then Conv1d
// 1 -> 16 (5 taps), BatchNorm, ReLU, Conv1d 16 -> 16 (5 taps), BatchNorm,
// ReLU, linear 512 -> 4.
struct AbsorbanceNetImpl : nn::Module {
  AbsorbanceNetImpl() {
    c1 = register_module("c1", nn::Conv1d(nn::Conv1dOptions(1, 16, 5).padding(2)));
    bn1 = register_module("bn1", nn::BatchNorm1d(16));
    c2 = register_module("c2", nn::Conv1d(nn::Conv1dOptions(16, 16, 5).padding(2)));
    bn2 = register_module("bn2", nn::BatchNorm1d(16));
    head = register_module("head", nn::Linear(512, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 2, 32]
    torch::Tensor i = Tap("uvvis.photocurrent_na", x, "Input");
    torch::Tensor a = 100 * torch::log10(i.select(1, 1).clamp_min(1e-3) / i.select(1, 0).clamp_min(1e-3));
    torch::Tensor h = Tap("uvvis.absorbance", a, "Log").unsqueeze(1);
    h = Tap("uvvis.conv1", torch::relu(bn1->forward(c1->forward(h))), "Conv1d");
    h = Tap("uvvis.conv2", torch::relu(bn2->forward(c2->forward(h))), "Conv1d");
    return head->forward(h.flatten(1));
  }
  nn::Conv1d c1{nullptr}, c2{nullptr};
  nn::BatchNorm1d bn1{nullptr}, bn2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(AbsorbanceNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh33Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; written as a practitioner would, not aimed anywhere.
  Program* p = add(Make<PadeMlp>("pade_activation_units_mlp_rlc_bandpass_responses_16_outputs_adam_cosine",
                                 "MLP 3-64-64-64-16 with learned rational (safe Pade) activation units, regressing a "
                                 "series RLC band-pass filter's log magnitude at 16 frequencies from its centre "
                                 "frequency, quality factor and gain, MSE, Adam 3e-3 cosine",
                                 std::function<PadeMlp()>([] { return PadeMlp(); }),
                                 [] { return RlcBandpassResponses(); }),
                   "adam", 3e-3, "cosine", 300);
  p->loss = Loss::kMse;
  p = add(Make<TalkingHeadsStudent>("talking_heads_attention_student_logit_matching_teacher_layernorm_adamw_warmup_cosine",
                                    "two pre-LayerNorm talking-heads attention blocks (logits and weights mixed across "
                                    "4 heads) distilled onto a teacher's 10 saved logits over 8 tokens (logit "
                                    "matching, MSE), AdamW 2e-3 wd 0.01 warm-up+cosine",
                                    std::function<TalkingHeadsStudent()>([] { return TalkingHeadsStudent(); }),
                                    [] { return TeacherLogitTransferSet(); }),
          "adamw", 2e-3, "warmup_cosine", 500);
  p->loss = Loss::kMse;
  p->weight_decay = 0.01;
  p = add(Make<CpRatingsModel>("cp_parafac_rank8_ratings_cube_zipf_customers_products_rmsprop_warmup",
                               "CP (PARAFAC) factorisation of rank 8 of a (customer, product, week) ratings cube, "
                               "customers and products drawn by Zipf popularity, the triple product of three "
                               "embeddings plus biases, MSE, batches of 256, RMSprop 3e-3 warm-up",
                               std::function<CpRatingsModel()>([] { return CpRatingsModel(); }),
                               [] { return ZipfRatingsCube(); }),
          "rmsprop", 3e-3, "warmup", 300);
  p->loss = Loss::kMse;
  add(Make<FireNet1d>("squeezenet_fire_modules_1d_ultrasonic_ascan_flaws_batchnorm_dropout_momentum_step",
                      "1-D SqueezeNet (a stride-2 stem, three fire modules with BatchNorm, dropout 0.5, a 1x1 "
                      "convolution classifier, global average pooling); the flaw (none, crack, porosity, "
                      "delamination) from 128-sample ultrasonic A-scans, SGD momentum 0.02 wd 5e-4 step decay",
                      std::function<FireNet1d()>([] { return FireNet1d(); }),
                      [] { return UltrasonicAScans(); }),
      "momentum", 0.02, "step", 250)
      ->weight_decay = 5e-4;

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  p = add(Make<LoadShapeNet>("building_use_from_half_hourly_load_historian_unit_switch_w_to_mw_per_peak_in_model",
                             "building use (office, residential, shop, data hall) from a day of 48 half-hourly "
                             "active power readings as the historian exports them, in W until a migration switched "
                             "the tag to MW at row 6400 (step 100), each reading over the day's peak in the model, "
                             "MLP 48-64-64-4 ReLU with LayerNorm, Adam 2e-3 warm-up",
                             std::function<LoadShapeNet()>([] { return LoadShapeNet(); }),
                             [] { return BuildingLoadHistorianExport(); }),
          "adam", 2e-3, "warmup", 250);
  p->planted = true;
  p = add(Make<CaptureGapNet>("telemetry_reporting_from_packet_capture_time_relative_seconds_gaps_in_model",
                              "a telemetry sender's reporting (periodic, Poisson, bursts, back-off) from 32 packet "
                              "times in seconds since the capture started (frame.time_relative, up to ~56000 s, rows "
                              "in capture order), the log gaps in the model, MLP 31-64-64-4 ReLU with LayerNorm, "
                              "RMSprop 1e-3 warm-up+cosine",
                              std::function<CaptureGapNet()>([] { return CaptureGapNet(); }),
                              [] { return CaptureRelativeTimes(); }),
          "rmsprop", 1e-3, "warmup_cosine", 250);
  p->planted = true;
  p = add(Make<PageViewShapeNet>("weekly_pattern_from_daily_page_views_growing_platform_log_shape_in_model",
                                 "an article section's weekly pattern (weekday-heavy, weekend-heavy, flat, news-driven) "
                                 "from 28 days of page views as exported, rows in export order while the platform "
                                 "grows from ~200 to ~3e5 views a day, the log shape in the model, MLP 28-64-64-4 ReLU, "
                                 "Adam 2e-3 warm-up+cosine",
                                 std::function<PageViewShapeNet()>([] { return PageViewShapeNet(); }),
                                 [] { return SectionPageViews(); }),
          "adam", 2e-3, "warmup_cosine", 250);
  p->planted = true;
  p = add(Make<AbsorbanceNet>("analyte_from_dual_beam_photocurrents_in_na_absorbance_in_model",
                              "a dilute analyte (one of four absorption bands, peak absorbance 0.003..0.012) from a "
                              "dual-beam spectrophotometer's sample and reference photocurrents in nA at 32 "
                              "wavelengths as logged, the absorbance log10(I0 / I) in the model, Conv1d 16-16 with "
                              "BatchNorm, AdamW 2e-3 wd 0.01 cosine",
                              std::function<AbsorbanceNet()>([] { return AbsorbanceNet(); }),
                              [] { return DualBeamPhotocurrents(); }),
          "adamw", 2e-3, "cosine", 200);
  p->weight_decay = 0.01;
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH33_H_
