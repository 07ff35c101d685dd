// The fresh34 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh33 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor any
// prediction was looked at), so that the rules can be measured on trainings
// nobody tuned anything against. What was looked at: /work/shared/STYLE.md;
// corpus_fresh33.h whole (for the conventions and its header's form);
// corpus.h in parts (Tap, Data, MlpSpec and Mlp, Program, Make,
// ProgramAdder); examples/common/training.h lines 55..135 (MakeOptimizer and
// LrAt: adam, adamw, sgd, momentum, rmsprop; constant, warmup, cosine,
// warmup_cosine, step: the Adagrad, Adamax, one-cycle and linear decay the
// brief names are not there, so none is used); `git show fdd2e72` of
// CMakeLists.txt and validation.cc (fresh33's registration); validation.cc's
// LossOf, its training loop (470..515) and its group comment (155..220,
// edited here); examples/validation/truth.h's first 140 lines (the truth's
// definition); tracker/tracker.h lines 85..150 and 255..310 (simulate mode
// and tap); docs/formats.md (the formats' table, block formats) and
// docs/targets.md (the targets' table and references); targets/*.json
// (every role of every target printed by a script: format, scaling,
// rounding, subnormals, saturation); /work/f34tools/blind_filter.py whole;
// the corpus headers grepped for the words of the architectures and
// practices considered here (file names only: decoder-only, causal,
// language model, grammar, dyck, bracket, pcfg, vision transformer, vit,
// patch, dlrm, click, click-through, ctr, dot interaction, pairwise dot,
// feature interaction, interaction, criteo, embedding bag, tdnn,
// time-delay, time delay, x-vector, statistics pooling, keyword, spoken,
// speech, phoneme, mfcc, cepstr, filterbank, filter bank, mel, conformer,
// rmsnorm, groupnorm, gmlp, spatial gating, multi-query, multi query,
// grouped-query, gqa, mqa, llama, swiglu, alibi, tied, weight tying,
// ft-transformer, feature tokenizer, tabular, set transformer, inducing,
// isab, additive, neural additive, additive model, nam, exu, tabnet,
// pixelcnn, masked conv, made, germain, autoregressive,
// squeeze-and-excitation, excitation, highway, universal transformer,
// albert, parameter shar, weight shar, latent attention, mla, linear
// recurrent, lru, mingru, xlstm, mlstm, dcgan, siren, coordinate, implicit
// neural, nerf, deepfm, wide & deep, wide and deep, field-aware,
// factorization machine, latent; vacuum, pump-down, pumpdown, mbar, torr,
// pirani, gauge, turbo, outgass, leak, farad, picofarad, pf, capacitance,
// mems, lcr, accelerometer, vibration, bearing, imbalance, harmonic, power
// quality, squared, rms, int16, pcm, adc counts, hydrophone, wear, jitter,
// time interval error, serdes, picosecond, eye diagram, eeg, electrode, dc
// offset, dc bin, alpha rhythm, sleep, biosemi, grid frequency, 50 hz, pmu,
// synchrophasor, mains, kelvin, thermal camera, thermograph, radiometric,
// infrared, hot spot, centi, fbg, bragg, wavelength in nm, survey,
// easting, utm, northing, e7, latitude, seismic, seismo, earthquake,
// quarry, blast, magnitude, richter, waveform, um/s, per-trace, trace, mass
// spec, chromatogra, m/z, ion count, total ion, lc-ms, dilution, blank,
// abundance), and the lines of the hits near the words weighed: fresh10's
// causal Transformer decoder block with rotary embeddings on lag-copy
// tokens (the decoder-only language model below is another model on
// another task: a two-block pre-RMSNorm decoder trained on a bracket
// grammar; kept as the brief asks for one); "vision transformer" in
// corpus_fresh5.h and "vit" in several (the latent attention below is what
// is new, the patches are not); fresh31's multi-query attention; fresh9's
// neural additive model (this group's first idea for its fourth healthy
// one, dropped for that hit); fresh14's PixelCNN and fresh11's MADE (also
// considered, dropped); "latent" in many headers (none a latent attention);
// fresh24's RC netlist with C in farads and fresh31's LIGO strain at 1e-21
// (kin, by tiny SI values, to an idea of a MEMS accelerometer's
// capacitance in farads: dropped for the farads; the jitter in seconds
// below is kin by its arithmetic, another practice); fresh26's PMU
// frequency in Hz (via fresh31's header; an idea of grid frequency
// dropped) and fresh30's mooring temperatures in kelvin (an idea of a
// thermal camera's kelvin dropped); fresh25's, fresh27's and fresh29's
// seismic waveforms (an idea of per-trace normalised velocities across
// magnitudes dropped; the screening spectra below are kin by their
// arithmetic, rows of very different size in one per-tensor scale);
// fresh3's DC offset of 1e3 under BatchNorm (a signal riding on an offset;
// the EEG below carries its offset in a bin of its own, dropped in the
// model, so bf16 and fp16 keep every bin: another mechanism);
// fresh16's isotope ratios, fresh23's m/z defects and fresh18's ion counts
// (other practices than a screening batch's raw counts over their TIC);
// "sleep" in fresh26 (Holter heart-rate variability, not EEG); "jitter"
// everywhere only as noise added to data, never a TIE. Also the corpus
// headers grepped for each data and model name used here (none found;
// RmsNorm and Tie* are taken, so DyckRmsNorm and TimeIntervalErrorNet).
// Each planted one was designed from what the hardware does to numbers:
// the formats' arithmetic worked in pure Python (no numpy here) by
// hand-written roundings (round to nearest even; bf16; fp16 flushing
// below 2^-14 and overflowing to Inf above 65504; e4m3fn under a current
// per-tensor scale 448 / amax and under a delayed one, 448 over the largest
// amax of the history (1024 steps: the whole run), scale 1 at the first
// step; MI300's e4m3fnuz (max 240, subnormal quantum 2^-10) delayed; Gaudi
// 2's e4m3 (max 240) delayed under a power-of-two scale; the IPU's
// e4m3fnuz under a current power-of-two scale whose exponent is clamped to
// [-32, 31]; MX (1x32, E8M0 scale 2^(floor(log2 amax) - 8), e4m3fn
// elements saturating at 448); NVFP4 (e2m1 in 1x16 blocks, e4m3 block
// scales under the per-tensor 448 x 6 / amax); DeepSeek's 1x128 tiles with
// fp32 scales (a row is one tile here); bfp8 (16-value blocks sharing the
// largest value's exponent E, a sign and 7 bits: quantum 2^(E - 6))), on
// draws of the data's generators in pure Python (random, not LibTorch's
// numbers: the same distributions), batches of 64 rows quantized as one
// tensor, blocks along each row; then a crude nearest-centroid rule on the
// model's own features of the stored rows (sorted centred log shapes and
// their steps; the TIE over its RMS sorted and its autocorrelation at lags
// 1..8; the log spectrum; the TIC-normalised spectrum), its centroids
// fitted on each target's own stored rows, per window of 5 batches every
// 25 for the two that drift. Only each program's fp32 training and its
// simulated truth on bf16-accelerator were looked at, in trial runs of the
// brief's form (fp32 on three seeds, bf16-accelerator on one simulated
// seed, --no-probe; `--json` read through the filter, which prints only the
// fp32 runs' losses and accuracies and the runs' final loss, accuracy,
// broken and why).
//
// Two trial runs. The first (the six programs whose designs were settled:
// all but the jitter and the screening spectra, whose designs changed
// after the Python rule while the second build ran, so the first trial ran
// a copy of the first build's binary with LPSIM_TARGETS_DIR set to the
// source tree's targets; 103 s wall, 56 s of CPU): all six learned in fp32
// (loss of one fp32 run, first to last step; the three seeds' finals;
// bf16-accelerator's): the decoder-only language model 1.39 to 1.03,
// 1.035..1.040, accuracy 0.486..0.491 (near the grammar's floor: an opening
// bracket is a coin, a closing one determined), flattening from step ~150,
// bf16 1.035 / 0.491; the DLRM 0.69 to 0.52, 0.522..0.524 / 0.745..0.753
// (the clicks are Bernoulli draws), bf16 0.524 / 0.745; the TDNN 2.05 to
// 0.0030, 0.0031..0.0035 / 1.0, bf16 0.0037 / 1.0; the latent-attention
// ViT 1.48 to 0.017, 0.014..0.022 / 0.992..0.998, bf16 0.024 / 0.992; the
// vacuum log 1.49 to 0.0049, 0.0040..0.0049 / 1.0, bf16 0.0049 / 1.0, as
// designed; the EEG spectra 1.34 to 0.0042, 0.0050..0.0066 / 1.0, bf16
// 0.0050 / 1.0, as designed. Nothing changed after it. Between the two,
// from the Python rule (not a trial): the jitter had been drawn at
// 0.2..0.8 ps (amax ~1.5e-12, which the IPU's clamped scale 2^31 stores on
// ~3 quanta of 2^-10: the rule 0.91 there, as on fp32), so its amplitudes
// were quartered to the 25..200 fs below (amax ~4e-13, under one quantum:
// the rule 0.31); the screening spectra's base peaks, 10^2.5..10^9, were
// widened to 10^2..10^9.5 (the rule on the per-tensor e4m3 targets from
// 0.85..0.92 to 0.76..0.82). The second (those two, 4 s wall): the jitter
// 1.48 to 0.25, 0.254..0.269 / 0.953..0.964 (random and data-dependent
// jitter now and then confused), bf16 0.254 / 0.958; the screening
// spectra 1.45 to 0.0091, 0.0091..0.0097 / 1.0, bf16 0.0091 / 1.0; both as
// designed. Nothing changed after it.
//
// The truths run (all 8 on the 12 training targets, three simulated seeds
// each; two halves in parallel, their own --root each, the header's other
// paragraphs written while it ran on the code as it stands, this paragraph
// after it: the decoder-only language model, the DLRM, the jitter and the
// screening spectra 401 s wall; the TDNN, the latent-attention ViT, the
// vacuum log and the EEG spectra 257 s wall), its finals read per seed
// through the filter, showed every planted one broken where it was meant to
// break and nowhere else, and one healthy one broken on one target (no
// seed of any cell that did not break broke alone). The vacuum log broke
// gradually on gaudi2-fp8 from step 90 (90, 90, 91), h100-fp8-delayed from
// 102 (102, 102, 103) and mi300-fp8 from 103 (103 on each), Gaudi 2 first
// as designed, and on fp16-npu-ftz from 168 (168 on each), all to chance
// (loss 1.385..1.395, accuracy 0.24..0.27, against fp32's 0.0040..0.0049 /
// 1.0); not elsewhere (1.0; loss 0.0043..0.0049, b200-nvfp4 0.0082). The
// jitter broke on fp16-npu-ftz from step 9 (9 on each; 1.386, 0.255) and
// on ipu-fp8 from 10 (10, 11, 10; 1.333, 0.284), against fp32's
// 0.254..0.269 / 0.953..0.964 (the break step is where fp32's falling loss
// first leaves them behind; the damage is there from step 0); not
// elsewhere (0.252..0.274, b200-nvfp4 the highest; accuracy 0.959..0.964).
// The EEG spectra broke gradually on b200-nvfp4 from step 70 (75, 69, 70;
// 0.82, 0.53) and on tenstorrent-bfp8 and tenstorrent-bfp4 from 135 (135,
// 135, 135 and 135, 135, 56; 0.83..0.84, 0.51), earlier than the design's
// ~90 and ~150..175, against fp32's 0.0050..0.0066 / 1.0; the accuracy
// near 0.5 is beta told apart from the rest, as the rule read; not
// elsewhere (1.0; loss 0.0056..0.0065, fp16-npu-ftz 0.0078). The
// screening spectra broke on fp16-npu-ftz from step 0 (3 of 3, non-finite
// loss) and on h100-fp8-current (59, 59, 49), h100-fp8-delayed (49, 59,
// 48), mi300-fp8 (49, 59, 48), gaudi2-fp8 (47, 48, 47), ipu-fp8 (49, 49,
// 48) and b200-nvfp4 (48, 59, 48) from step 47..59 (loss 0.35..0.43,
// accuracy 0.76..0.83, Gaudi 2 the worst as the rule read, against fp32's
// 0.0091..0.0097 / 1.0): the damaged rows are damaged from step 0, but
// the break step waits for fp32's loss to fall past the bound; not on
// bf16-accelerator, b200-mxfp8, deepseek-v3-fp8 or the Tenstorrent targets
// (1.0; 0.0096..0.0104). Of the healthy ones, the decoder-only language
// model broke on fp16-npu-ftz from step 89 (89, 81, 105; loss
// 1.139..1.157, accuracy 0.431..0.434, against fp32's 1.035..1.040 /
// 0.486..0.491), not aimed at and not computed; not elsewhere
// (1.039..1.049, b200-nvfp4 the highest; accuracy 0.482..0.490). The
// others broke nowhere, no seed on any target: the DLRM's loss
// 0.522..0.525 (accuracy 0.746..0.754) against fp32's 0.522..0.524
// (0.745..0.753); the TDNN's 0.0034..0.0040 but fp16-npu-ftz's 0.0064
// (accuracy 1.0 everywhere) against fp32's 0.0031..0.0035; the
// latent-attention ViT's 0.013..0.024 (accuracy 0.992..0.998) against
// fp32's 0.014..0.022 (0.992..0.998). Nothing changed after it but this
// paragraph.
//
//
// Four train fine in fp32 and are written as a practitioner would, not aimed
// at any target, on architectures no earlier group uses (two of the kinds
// now trained or fine-tuned on fp8 and fp4 accelerators: a decoder-only
// language model and a recommendation model with embedding tables; a
// speech-like 1-D convolutional encoder; a vision transformer whose
// attention is DeepSeek's): a two-block decoder-only language model
// (pre-RMSNorm causal attention, GELU MLP, dropout 0.1) trained by
// next-token prediction on the Dyck-2 bracket grammar, 400 steps, its loss
// flattening late towards the grammar's entropy; a DLRM (bottom MLP on
// dense features, embedding tables of a Zipf-popular site, an ad and a
// device, pairwise dot interactions, top MLP) on an ad server's click log;
// a TDNN keyword spotter (dilated 1-D convolutions over log-mel frames,
// BatchNorm, max over time, dropout 0.2); and a small vision transformer
// with multi-head latent attention (keys and values from one 8-wide latent,
// queries from a 16-wide one) on 12x12 glyphs. Optimizer and schedule
// pairs: AdamW 3e-3 wd 0.05 warm-up + cosine (RMSNorm, dropout), SGD
// momentum 0.05 step decay (batches of 256), RMSprop 1e-3 cosine
// (BatchNorm, dropout), Adam 2e-3 with L2 1e-4 warm-up (LayerNorm); all
// four classifications (the language model's per token). Whether they
// break anywhere was not computed.
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: a delayed scale that remembers a larger
// past, values under fp16's and the IPU's clamped range, a block shared
// with a larger value, rows of very different size under one per-tensor
// scale; the practice is new), meant to break on different sets of
// targets, two of them only after some training:
//   - a turbo-pumped chamber's gauge log, 32 readings a row in mbar as the
//     controller logs them, rows in log order through a pump-down from
//     1e3 to 1e-7 mbar (10^(3 - 10 u), u the row's place: step 25 u of
//     250); log10 (floored at 1e-10) less the row's mean in the model. A
//     delayed scale remembers the atmosphere: 448 over ~6e3 mbar (the
//     first rows with a burst) is ~0.075 (h100-fp8-delayed: readings below
//     2^-6 / 0.075 ~ 0.2 mbar on e4m3fn's subnormals, from u ~ 0.37, step
//     ~92; below 2^-10 / 0.075 ~ 0.013 mbar stored as 0, from u ~ 0.49, step
//     ~122), 240 / 6e3 = 0.04 (mi300-fp8's e4m3fnuz: subnormal below 0.2,
//     zero below 0.012 mbar) and 2^-5 (gaudi2-fp8, a power of two:
//     subnormal below 0.5, zero below 0.03 mbar, step ~113); fp16 flushes
//     below 2^-14 ~ 6.1e-5 mbar (u ~ 0.72, step ~180). A reading stored as
//     0 reads -10 in the log: the row's shape is lost. Current scales
//     (h100-fp8-current; the IPU's, 240 / amax in powers of two, 2^30 at
//     the end, inside its clamp), MX's and DeepSeek's per block or row,
//     bfp8 (a row within ~4x) and bf16 keep it; NVFP4's e2m1 blurs it a
//     little. The rule (centroids of the sorted centred log readings and
//     their steps, windows of 5 batches every 25): fp32 0.98..1.00
//     throughout; h100-fp8-delayed 0.86 at step 0 (the first cast
//     unscaled), 0.98..0.99 over 25..75, 0.90 at 100, 0.58 at 125, ~0.26
//     from 150; mi300-fp8 alike (0.92 at 100, 0.60 at 125); gaudi2-fp8 0.55
//     at 100, 0.28 from 125; fp16 0.98..0.99 to 150, 0.68 at 175,
//     0.26..0.29 from 200; NVFP4 0.93..0.97; the others 0.97..1.00. Meant to
//     break on h100-fp8-delayed, mi300-fp8 and gaudi2-fp8 from about step
//     100..130 (Gaudi 2 first) and on fp16-npu-ftz from about step
//     170..190, gradually, to chance; not on the others.
//   - a 112G PAM4 link's jitter, the time interval error of 64 edges in
//     seconds as the oscilloscope's jitter package exports it, all of it
//     sub-picosecond (amax ~4e-13 s); each record over its RMS in the
//     model. fp16 holds nothing below 2^-24 ~ 6e-8 and flushes below
//     2^-14: every value stores as 0, the RMS clamps, the input is
//     constant. The IPU's power-of-two scale would want 2^49 and is
//     clamped at 2^31: 4e-13 x 2^31 ~ 8.6e-4, under e4m3fnuz's subnormal
//     quantum 2^-10, so the largest values store as one quantum and most
//     as 0. The other scaled targets scale in fp32 (e4m3fn per tensor,
//     delayed after the first step, MX's E8M0 at 2^-50, NVFP4's fp32
//     per-tensor scale, DeepSeek's tiles) or keep bf16's exponent range
//     (bf16, bfp8). The rule (centroids of the sorted normalised TIE and
//     its autocorrelation at lags 1..8): fp32, bf16, h100-fp8-current, MX,
//     NVFP4, DeepSeek, bfp8 0.91; the delayed three 0.88 (the first step
//     unscaled stores 0); ipu-fp8 0.31; fp16 0.25. Meant to break on
//     fp16-npu-ftz and ipu-fp8 from the first steps; not on the others.
//   - a DC-coupled EEG channel's 1-s amplitude spectra in uV as the
//     recording software exports them, the DC bin included, rows in
//     recording order while the electrode's offset drifts as its gel dries
//     (50 uV to ~3e4 uV, 10^(1.7 + 2.8 u) x 0.7..1.4); the DC bin dropped
//     and log10 in the model, so fp32 never sees the offset. The DC bin
//     shares the first 16-value block with delta, theta and alpha (bins
//     1..15). NVFP4's e2m1 keeps a value to 1/12 of its block's largest and
//     stores below 1/24 as 0: a delta peak of 15..30 uV goes once the
//     offset passes ~400..700 uV (u ~ 0.36, step ~90). bfp8's quantum is
//     2^(E - 6), E the offset's exponent: alpha's 10..25 uV falls under half
//     a quantum once the offset passes 2^11..2^12 uV (u ~ 0.58..0.68, steps
//     ~145..170). Beta (bins 16..31) sits in a block of its own and stays.
//     bf16 and fp16 keep every bin (4.4e4 uV under 65504; the background's
//     0.5 uV normal), e4m3 per tensor too (the rhythms at >= 1/4400 of the
//     batch's largest, >= 0.1 once scaled), MX (32 values a block under
//     2^(E - 8)) and DeepSeek (a row a tile) alike. The rule (centroids of
//     the log spectrum): every target 1.00 throughout but NVFP4 (0.97,
//     1.00, 0.96, 0.90 at steps 0..75, 0.56..0.63 from 100) and bfp8 (1.00,
//     1.00, 0.88, 0.97, 0.99, 0.99, 0.89 at 0..150, 0.57..0.59 from 175).
//     Meant to break gradually on b200-nvfp4 from about step 80..100 and on
//     tenstorrent-bfp8 and tenstorrent-bfp4 (bfp8 activations) from about
//     step 150..175; not on the others.
//   - a screening lab's mass spectra, ion counts in 64 m/z bins as the
//     instrument exports them, blanks, trace dilutions and neat samples in
//     one batch (base peaks 10^2..10^9.5 counts, log-uniform, rows in no
//     order); each spectrum over its total ion current in the model. A
//     per-tensor scale puts the batch's largest count (~3e9) at 448 (240):
//     a spectrum whose marker peaks (0.1..0.6 of its base) sit below
//     ~2^-9 / 448 ~ 4.4e-6 of it stores them as 0 and below ~1.7e-5 on a
//     few subnormal quanta: base peaks under ~10^4.5..10^5, about a third of
//     the rows, lose their pattern (h100-fp8-current, h100-fp8-delayed,
//     mi300-fp8, gaudi2-fp8, ipu-fp8); NVFP4's e4m3 block scales (448 x the
//     block's largest over the tensor's) go subnormal and to 0 for the
//     same rows; fp16 stores counts above 65504 (about half the rows) as
//     Inf, the TIC is Inf, Inf / Inf NaN. MX (32-value blocks), DeepSeek (a
//     row a tile), bfp8 (16 values within the spectrum's own ~1000x) and
//     bf16 scale each spectrum by itself. The rule (centroids of the
//     TIC-normalised spectra): fp32, bf16, MX, DeepSeek, bfp8 1.00;
//     h100-fp8-current and ipu 0.82, h100-fp8-delayed and mi300 0.80,
//     gaudi2 0.76, NVFP4 0.83; fp16 non-finite. Meant to break from the
//     first steps on h100-fp8-current, h100-fp8-delayed, mi300-fp8,
//     gaudi2-fp8, ipu-fp8, b200-nvfp4 and fp16-npu-ftz (non-finite); not on
//     bf16-accelerator, b200-mxfp8, deepseek-v3-fp8 or the Tenstorrent
//     targets.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
// Brushes with rule material, none of which changed a design: my first
// command printed main's HEAD commit subject (`git log -1 --format='%H
// %s'`, before switching to the branch), a message after fdd2e72 that the
// brief puts out of bounds: aggregate figures of the tables over 416
// programs (precision, recall, median lead, per-target and out-of-sample
// counts through fresh33), nothing about these programs, which did not
// exist yet; validation.cc's group comment (read to add fresh34's
// sentence) carries fresh33's judged figures (precision, recall, median
// lead; a false alarm and a miss by rule name and program), as earlier
// groups' sentences do; and while summarising the first trial a Python
// one-off opened trial1.json directly (not through the filter) and printed
// only its fp32 runs' losses (moving means at a few steps: what the filter
// prints), no prediction and no other field; later trials and the truths
// were read through the filter only. The filter prints each simulated
// run's "why" (the truth's reason), no rule's. Nothing else (no rule code,
// description, finding or prediction, no --list-rules output, no text
// table, no README, no docs/checks.md or docs/validation.md, no
// truths.json, no other branch or worktree: none of it was opened) was
// seen.
//
//   for (const Program& p : Fresh34Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH34_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH34_H_

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "examples/validation/corpus.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// Dyck-2, the language of two kinds of balanced brackets, as a grammar for a
// small language model: 25 tokens a row ('(' 0, ')' 1, '[' 2, ']' 3), each a
// random walk over the nesting depth (at depth 0 an opening bracket; at depth
// 8 a closing one; else opening or closing with even odds, the kind of an
// opening bracket by a coin, a closing one the kind on top of the stack).
// x the first 24 tokens (as floats), y the next token at each place: the
// closing brackets are determined by the prefix, the rest is a coin.
// [N, 24] -> [N, 24].
inline Data DyckTwoBracketSequences(int64_t n = 8192, int64_t t = 24) {
  torch::Tensor r = torch::rand({n, t + 1, 2}, torch::kDouble);
  auto ra = r.accessor<double, 3>();
  torch::Tensor tokens = torch::zeros({n, t + 1}, torch::kLong);
  auto ta = tokens.accessor<int64_t, 2>();
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> stack;
    for (int64_t k = 0; k <= t; ++k) {
      const bool open = stack.empty() || (stack.size() < 8 && ra[i][k][0] < 0.5);
      if (open) {
        const int64_t kind = ra[i][k][1] < 0.5 ? 0 : 2;
        stack.push_back(kind);
        ta[i][k] = kind;
      } else {
        ta[i][k] = stack.back() + 1;
        stack.pop_back();
      }
    }
  }
  return {tokens.slice(1, 0, t).to(torch::kFloat), tokens.slice(1, 1, t + 1)};
}

// An ad server's click log in DLRM's layout (Naumov et al. 2019): 4 dense
// features (standardised: the user's log dwell time, the hour's sine and
// cosine, the log bid), then the site (60, Zipf popularity 1.0), the ad (40)
// and the device type (8) as indices given as floats; the label whether the
// impression was clicked, drawn from a logistic model with site-ad and
// ad-device affinities (rank-4 factors) and a dense term, ~25% clicks.
// [N, 7] -> [N]; batches of 256.
inline Data AdClickLogDenseSparse(int64_t n = 32768) {
  torch::Tensor dense = torch::randn({n, 4});
  torch::Tensor site = torch::multinomial(torch::pow(torch::arange(1, 61, torch::kDouble), -1.0), n, true);
  torch::Tensor ad = torch::randint(0, 40, {n}, torch::kLong), dev = torch::randint(0, 8, {n}, torch::kLong);
  torch::Tensor ws = 0.8 * torch::randn({60, 4}), wa = 0.8 * torch::randn({40, 4}), wd = 0.8 * torch::randn({8, 4});
  torch::Tensor beta = torch::tensor({0.8f, 0.4f, -0.3f, 0.6f});
  torch::Tensor logit = (ws.index_select(0, site) * wa.index_select(0, ad)).sum(1) +
                        0.5 * (wa.index_select(0, ad) * wd.index_select(0, dev)).sum(1) +
                        torch::matmul(dense, beta) - 1.4;
  torch::Tensor y = (torch::rand({n}) < torch::sigmoid(logit)).to(torch::kLong);
  Data data{torch::cat({dense, torch::stack({site, ad, dev}, 1).to(torch::kFloat)}, 1), y};
  data.batch = 256;
  return data;
}

// Spoken keywords as 20 log-mel bands over 48 frames (10 ms hops): 6
// keywords, each a fixed sequence of 4 of 10 phones, each phone a spectral
// envelope (3 formant-like bumps over the bands); a phone lasts 5..9
// frames, the word starts at frame 0..8, silence around it at -1 (a floor
// in log units), a speaker's spectral tilt +-0.3 across the bands, noise
// N(0, 0.3^2). [N, 20, 48] -> [N].
inline Data SpokenKeywordLogMel(int64_t n = 4096, int64_t bands = 20, int64_t frames = 48) {
  const int64_t kPhones = 10, kWords = 6;
  torch::Tensor bandpos = torch::arange(bands, torch::kFloat).view({1, bands});
  torch::Tensor centres = torch::rand({kPhones, 3}) * (bands - 1), heights = 1 + 2 * torch::rand({kPhones, 3});
  torch::Tensor phones = torch::zeros({kPhones, bands});
  for (int j = 0; j < 3; ++j) {
    phones += heights.select(1, j).view({kPhones, 1}) *
              torch::exp(-0.5 * (bandpos - centres.select(1, j).view({kPhones, 1})).pow(2) / 2.25);
  }
  torch::Tensor words = torch::randint(0, kPhones, {kWords, 4}, torch::kLong);
  torch::Tensor y = torch::randint(0, kWords, {n}, torch::kLong);
  torch::Tensor x = torch::full({n, bands, frames}, -1.0);
  torch::Tensor r = torch::rand({n, 5}, torch::kDouble);
  auto ya = y.accessor<int64_t, 1>();
  auto wa = words.accessor<int64_t, 2>();
  auto ra = r.accessor<double, 2>();
  for (int64_t i = 0; i < n; ++i) {
    int64_t at = int64_t(9 * ra[i][0]);
    for (int j = 0; j < 4 && at < frames; ++j) {
      const int64_t len = std::min<int64_t>(5 + int64_t(5 * ra[i][1 + j]), frames - at);
      x[i].slice(1, at, at + len) = phones[wa[ya[i]][j]].view({bands, 1}) - 1;
      at += len;
    }
  }
  torch::Tensor tilt = 0.6 * (torch::rand({n, 1, 1}) - 0.5) * (bandpos.view({1, bands, 1}) / (bands - 1) - 0.5);
  return {x + tilt + 0.3 * torch::randn({n, bands, frames}), y};
}

// Small glyphs for a vision transformer: 12x12 images of a plus, a ring, a
// diagonal cross or a corner (L), strokes of 0.6..1.0 at an offset of
// -2..2 pixels each way, noise N(0, 0.15^2). [N, 1, 12, 12] -> [N].
inline Data GlyphTiles(int64_t n = 4096, int64_t side = 12) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = torch::zeros({n, side, side});
  torch::Tensor r = torch::rand({n, 3}, torch::kDouble);
  auto ya = y.accessor<int64_t, 1>();
  auto xa = x.accessor<float, 3>();
  auto ra = r.accessor<double, 2>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t dx = int64_t(5 * ra[i][0]) - 2, dy = int64_t(5 * ra[i][1]) - 2;
    const float ink = static_cast<float>(0.6 + 0.4 * ra[i][2]);
    for (int64_t u = 2; u < 10; ++u) {
      for (int64_t v = 2; v < 10; ++v) {
        const double cu = u - 5.5, cv = v - 5.5, rad = std::sqrt(cu * cu + cv * cv);
        bool on = false;
        switch (ya[i]) {
          case 0: on = u == 5 || u == 6 || v == 5 || v == 6; break;
          case 1: on = rad > 2.6 && rad < 4.0; break;
          case 2: on = u == v || u + v == 11; break;
          default: on = u == 2 || v == 9;
        }
        const int64_t pu = u + dy, pv = v + dx;
        if (on && pu >= 0 && pu < side && pv >= 0 && pv < side) xa[i][pu][pv] = ink;
      }
    }
  }
  return {(x + 0.15 * torch::randn({n, side, side})).unsqueeze(1), y};
}

// A turbo-pumped vacuum chamber's gauge log, one row per minute: 32
// readings 2 s apart in mbar as the gauge controller logs them, rows in log
// order through a pump-down from atmosphere (1e3 mbar) to high vacuum (1e-7
// mbar): the row's level 10^(3 - 10 u), u the row's place in the log, +-0.15
// decades. The class is what the chamber did in that minute (in decades on
// top of the level): a steady pump-down (a fall of 0.2..0.4), a gas burst
// (+0.3..0.6 decaying in 2..4 readings), a leak levelling the pressure off
// (0.2..0.4 falling as 1 - exp(-k / 4)), a cycling valve (0.12..0.2 with a
// period of 6..10 readings); 0.015 decades of gauge noise. Computed in
// double, [N, 32].
inline Data VacuumPumpDownLog(int64_t n = 16000, int64_t t = 32) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor k = torch::arange(t, d).view({1, t});
  torch::Tensor steady = -u(0.2, 0.4) * k / (t - 1);
  torch::Tensor k0 = torch::floor(u(4, 20));
  torch::Tensor burst = u(0.3, 0.6) * (k >= k0).to(d) * torch::exp(-(k - k0).clamp_min(0) / u(2, 4));
  torch::Tensor leak = -u(0.2, 0.4) * (1 - torch::exp(-k / 4));
  torch::Tensor cycling = u(0.12, 0.2) * torch::sin(2 * M_PI * k / u(6, 10) + u(0, 2 * M_PI));
  torch::Tensor shape = is(0) * steady + is(1) * burst + is(2) * leak + is(3) * cycling;
  torch::Tensor level = 3 - 10 * torch::arange(n, d).view({n, 1}) / double(n) + u(-0.15, 0.15);
  torch::Tensor mbar = torch::pow(10.0, level + shape + 0.015 * torch::randn({n, t}, d));
  return {mbar.to(torch::kFloat), y.view({n})};
}

// A serial link's jitter as an oscilloscope's jitter package exports it: the
// time interval error (TIE) of 64 consecutive edges in seconds. The class is
// the jitter's kind on a 112G PAM4 link, all of it sub-picosecond: random
// (Gaussian, 50..100 fs RMS), periodic (a sine of 75..200 fs over 5..16
// edges), duty-cycle distortion (rising and falling edges +-50..125 fs
// apart) or data-dependent (each edge shifted by the two bits before it,
// 100..200 fs per bit); the kinds but the first over 25 fs of random
// jitter. Computed in double, [N, 64].
inline Data SerdesTimeIntervalErrors(int64_t n = 4096, int64_t t = 64) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor k = torch::arange(t, d).view({1, t});
  torch::Tensor noise = torch::randn({n, t}, d);
  torch::Tensor random = u(50, 100) * noise;
  torch::Tensor periodic = u(75, 200) * torch::sin(2 * M_PI * k / u(5, 16) + u(0, 2 * M_PI)) + 25 * noise;
  torch::Tensor dcd = u(50, 125) * (1 - 2 * torch::fmod(k, 2.0)) + 25 * noise;
  torch::Tensor bits = torch::randint(0, 2, {n, t + 2}, d) - 0.5;
  torch::Tensor isi = u(100, 200) * (bits.slice(1, 1, t + 1) + 0.5 * bits.slice(1, 0, t)) + 25 * noise;
  torch::Tensor fs = is(0) * random + is(1) * periodic + is(2) * dcd + is(3) * isi;
  return {(1e-15 * fs).to(torch::kFloat), y.view({n})};
}

// A sleep-and-wake EEG study's epochs as the recording software's spectral
// export gives them: the amplitude spectrum (2 |X_k| / N, in uV) of 1-s
// epochs of a DC-coupled channel at 0..31 Hz, the DC bin included, rows in
// recording order while the electrode's offset drifts as its gel dries
// (10^(1.7 + 2.8 u) uV x 0.7..1.4, u the row's place: 50 uV at the start,
// ~3e4 uV at the end). The class is the dominant rhythm: delta (a peak of
// 15..30 uV at 2 Hz), theta (8..15 uV at 6 Hz), alpha (10..25 uV at 10 Hz)
// or beta (3..6 uV around 20 Hz, broad), over a 1/f background 6 k^-0.7 uV
// with 15% log-normal scatter. Computed in double, [N, 32].
inline Data EegDcCoupledAmplitudeSpectra(int64_t n = 16000, int64_t t = 32) {
  const auto d = torch::kDouble;
  auto u = [&](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, d); };
  torch::Tensor y = torch::randint(0, 4, {n, 1}, torch::kLong);
  auto is = [&](int64_t c) { return (y == c).to(d); };
  torch::Tensor k = torch::arange(t, d).view({1, t});
  auto bump = [&](double at, double width) { return torch::exp(-0.5 * ((k - at) / width).pow(2)); };
  torch::Tensor background = 6 * torch::pow(k.clamp_min(1), -0.7) * torch::exp(0.15 * torch::randn({n, t}, d));
  torch::Tensor rhythm = is(0) * u(15, 30) * bump(2, 1) + is(1) * u(8, 15) * bump(6, 1) +
                         is(2) * u(10, 25) * bump(10, 1) + is(3) * u(3, 6) * bump(20, 3);
  torch::Tensor offset = torch::pow(10.0, 1.7 + 2.8 * torch::arange(n, d).view({n, 1}) / double(n)) * u(0.7, 1.4);
  torch::Tensor spectrum = torch::where(k == 0, offset, background + rhythm);
  return {spectrum.to(torch::kFloat), y.view({n})};
}

// A screening lab's mass spectra as the instrument exports them: ion counts
// in 64 m/z bins, blanks, trace dilutions and neat samples in one batch (the
// base peak 10^2..10^9.5 counts, log-uniform). The class is the compound
// family: a base peak and 3 marker peaks (0.1..0.6 of the base) at the
// family's bins, 6 stray peaks of 0.01..0.05 anywhere, a chemical noise
// floor of 0.001 of the base; counts rounded. Computed in double, [N, 64].
inline Data ScreeningSpectraIonCounts(int64_t n = 4096, int64_t t = 64) {
  const auto d = torch::kDouble;
  const int64_t kPeaks[4][4] = {{9, 17, 30, 44}, {13, 22, 38, 51}, {7, 26, 35, 58}, {11, 19, 41, 55}};
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor rel = 0.001 * torch::rand({n, t}, d);
  torch::Tensor stray = torch::randint(0, t, {n, 6}, torch::kLong);
  rel.scatter_add_(1, stray, 0.01 + 0.04 * torch::rand({n, 6}, d));
  torch::Tensor r = torch::rand({n, 3}, d);
  auto ya = y.accessor<int64_t, 1>();
  auto rela = rel.accessor<double, 2>();
  auto ra = r.accessor<double, 2>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* p = kPeaks[ya[i]];
    rela[i][p[0]] += 1.0;
    for (int j = 1; j < 4; ++j) rela[i][p[j]] += 0.1 + 0.5 * ra[i][j - 1];
  }
  torch::Tensor base = torch::pow(10.0, 2 + 7.5 * torch::rand({n, 1}, d));
  return {(rel * base).round().to(torch::kFloat), y};
}

// --- healthy models -------------------------------------------------------------

// RMSNorm (Zhang & Sennrich 2019): x / sqrt(mean(x^2) + 1e-6) times a learned
// gain.
struct DyckRmsNormImpl : nn::Module {
  explicit DyckRmsNormImpl(int64_t d) { gain = register_parameter("gain", torch::ones({d})); }
  torch::Tensor forward(const torch::Tensor& x) { return x * torch::rsqrt(x.pow(2).mean(-1, true) + 1e-6) * gain; }
  torch::Tensor gain;
};
TORCH_MODULE(DyckRmsNorm);

// A decoder-only block: pre-RMSNorm causal self-attention (4 heads of 8 over
// d = 32; the scores tapped before the mask), then a pre-RMSNorm GELU MLP
// 32-96-32, dropout 0.1 on both branches.
struct DecoderLmBlockImpl : nn::Module {
  DecoderLmBlockImpl() {
    norm1 = register_module("norm1", DyckRmsNorm(32));
    qkv = register_module("qkv", nn::Linear(32, 96));
    proj = register_module("proj", nn::Linear(32, 32));
    norm2 = register_module("norm2", DyckRmsNorm(32));
    fc1 = register_module("fc1", nn::Linear(32, 96));
    fc2 = register_module("fc2", nn::Linear(96, 32));
    drop = register_module("drop", nn::Dropout(0.1));
  }
  torch::Tensor forward(torch::Tensor x, const std::string& name) {
    const int64_t n = x.size(0), l = x.size(1);
    std::vector<torch::Tensor> qkvs = qkv->forward(norm1->forward(x)).view({n, l, 3, 4, 8}).permute({2, 0, 3, 1, 4}).unbind(0);
    torch::Tensor scores = Tap(name + ".scores", torch::matmul(qkvs[0], qkvs[1].transpose(-2, -1)) / std::sqrt(8.0), "MatMul");
    torch::Tensor future = torch::ones({l, l}, torch::kBool).triu(1);
    torch::Tensor attn = Tap(name + ".softmax", torch::softmax(scores.masked_fill(future, -1e9), -1), "Softmax");
    x = x + drop->forward(proj->forward(torch::matmul(attn, qkvs[2]).transpose(1, 2).reshape({n, l, 32})));
    torch::Tensor f = Tap(name + ".gelu", torch::gelu(fc1->forward(norm2->forward(x))), "GELU");
    return x + drop->forward(fc2->forward(f));
  }
  DyckRmsNorm norm1{nullptr}, norm2{nullptr};
  nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
  nn::Dropout drop{nullptr};
};
TORCH_MODULE(DecoderLmBlock);

// A small decoder-only language model: token embeddings (4 -> 32) plus
// learned positions, two decoder blocks, a final RMSNorm, a head to the 4
// tokens' logits at every place ([N, 4, 24], as cross-entropy takes them).
struct DecoderLmImpl : nn::Module {
  DecoderLmImpl() {
    embed = register_module("embed", nn::Embedding(4, 32));
    pos = register_parameter("pos", 0.1 * torch::randn({24, 32}));
    b1 = register_module("b1", DecoderLmBlock());
    b2 = register_module("b2", DecoderLmBlock());
    norm = register_module("norm", DyckRmsNorm(32));
    head = register_module("head", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 24] tokens as floats
    torch::Tensor h = Tap("lm.embed", embed->forward(x.round().to(torch::kLong)) + pos, "Embedding");
    h = b2->forward(b1->forward(h, "lm.b1"), "lm.b2");
    return head->forward(norm->forward(h)).permute({0, 2, 1});
  }
  nn::Embedding embed{nullptr};
  torch::Tensor pos;
  DecoderLmBlock b1{nullptr}, b2{nullptr};
  DyckRmsNorm norm{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(DecoderLm);

// DLRM (Naumov et al. 2019): a bottom MLP 4-16-8 on the dense features, an
// 8-wide embedding per sparse feature, the pairwise dot products of the 4
// vectors (6) next to the bottom MLP's output, a top MLP 14-32-2.
struct DlrmClickModelImpl : nn::Module {
  DlrmClickModelImpl() {
    bottom = register_module("bottom", Mlp({4, 16, 8, 1, "relu"}));
    site = register_module("site", nn::Embedding(60, 8));
    ad = register_module("ad", nn::Embedding(40, 8));
    dev = register_module("dev", nn::Embedding(8, 8));
    top = register_module("top", Mlp({14, 32, 2, 1, "relu"}));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 7]
    torch::Tensor i = x.slice(1, 4).round().to(torch::kLong);
    torch::Tensor zd = Tap("dlrm.bottom", bottom->forward(x.slice(1, 0, 4)), "Linear");
    torch::Tensor zs = Tap("dlrm.site", site->forward(i.select(1, 0)), "Embedding");
    torch::Tensor za = Tap("dlrm.ad", ad->forward(i.select(1, 1)), "Embedding");
    torch::Tensor zv = Tap("dlrm.device", dev->forward(i.select(1, 2)), "Embedding");
    torch::Tensor z = torch::stack({zd, zs, za, zv}, 1);  // [N, 4, 8]
    torch::Tensor dots = torch::matmul(z, z.transpose(1, 2));
    torch::Tensor pairs = torch::stack({dots.select(1, 0).select(1, 1), dots.select(1, 0).select(1, 2),
                                        dots.select(1, 0).select(1, 3), dots.select(1, 1).select(1, 2),
                                        dots.select(1, 1).select(1, 3), dots.select(1, 2).select(1, 3)}, 1);
    return top->forward(torch::cat({zd, Tap("dlrm.interactions", pairs, "Mul")}, 1));
  }
  TrackedSequential bottom{nullptr}, top{nullptr};
  nn::Embedding site{nullptr}, ad{nullptr}, dev{nullptr};
};
TORCH_MODULE(DlrmClickModel);

// A TDNN keyword spotter (Waibel et al. 1989; Peddinti et al. 2015's
// dilations): Conv1d 20 -> 32 (5 frames), 32 -> 32 (3, dilation 2), 32 -> 48
// (3, dilation 3), each with BatchNorm and ReLU, the maximum over time,
// dropout 0.2, linear 48 -> 6.
struct TdnnKeywordSpotterImpl : nn::Module {
  TdnnKeywordSpotterImpl() {
    c1 = register_module("c1", nn::Conv1d(nn::Conv1dOptions(20, 32, 5).padding(2)));
    bn1 = register_module("bn1", nn::BatchNorm1d(32));
    c2 = register_module("c2", nn::Conv1d(nn::Conv1dOptions(32, 32, 3).padding(2).dilation(2)));
    bn2 = register_module("bn2", nn::BatchNorm1d(32));
    c3 = register_module("c3", nn::Conv1d(nn::Conv1dOptions(32, 48, 3).padding(3).dilation(3)));
    bn3 = register_module("bn3", nn::BatchNorm1d(48));
    drop = register_module("drop", nn::Dropout(0.2));
    head = register_module("head", nn::Linear(48, 6));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 20, 48]
    torch::Tensor h = Tap("tdnn.c1", torch::relu(bn1->forward(c1->forward(x))), "Conv1d");
    h = Tap("tdnn.c2", torch::relu(bn2->forward(c2->forward(h))), "Conv1d");
    h = Tap("tdnn.c3", torch::relu(bn3->forward(c3->forward(h))), "Conv1d");
    return head->forward(drop->forward(std::get<0>(h.max(2))));
  }
  nn::Conv1d c1{nullptr}, c2{nullptr}, c3{nullptr};
  nn::BatchNorm1d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  nn::Dropout drop{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(TdnnKeywordSpotter);

// A pre-LayerNorm encoder block with multi-head latent attention (DeepSeek-V2,
// 2024): keys and values expanded from one shared 8-wide latent of the token
// (the compressed KV cache), queries from a 16-wide latent, 4 heads of 8 over
// d = 32; a GELU MLP 32-64-32.
struct LatentAttentionBlockImpl : nn::Module {
  LatentAttentionBlockImpl() {
    ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({32})));
    down_kv = register_module("down_kv", nn::Linear(32, 8));
    up_k = register_module("up_k", nn::Linear(8, 32));
    up_v = register_module("up_v", nn::Linear(8, 32));
    down_q = register_module("down_q", nn::Linear(32, 16));
    up_q = register_module("up_q", nn::Linear(16, 32));
    proj = register_module("proj", nn::Linear(32, 32));
    ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({32})));
    fc1 = register_module("fc1", nn::Linear(32, 64));
    fc2 = register_module("fc2", nn::Linear(64, 32));
  }
  torch::Tensor forward(torch::Tensor x, const std::string& name) {
    const int64_t n = x.size(0), l = x.size(1);
    torch::Tensor h = ln1->forward(x);
    torch::Tensor c = Tap(name + ".kv_latent", down_kv->forward(h), "Linear");
    auto heads = [&](const torch::Tensor& t) { return t.view({n, l, 4, 8}).transpose(1, 2); };
    torch::Tensor q = heads(up_q->forward(down_q->forward(h))), k = heads(up_k->forward(c)), v = heads(up_v->forward(c));
    torch::Tensor attn = Tap(name + ".softmax", torch::softmax(torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(8.0), -1), "Softmax");
    x = x + proj->forward(torch::matmul(attn, v).transpose(1, 2).reshape({n, l, 32}));
    torch::Tensor f = Tap(name + ".gelu", torch::gelu(fc1->forward(ln2->forward(x))), "GELU");
    return x + fc2->forward(f);
  }
  nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  nn::Linear down_kv{nullptr}, up_k{nullptr}, up_v{nullptr}, down_q{nullptr}, up_q{nullptr}, proj{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(LatentAttentionBlock);

// A small vision transformer with latent attention: 4x4 patches of the 12x12
// glyph (9 tokens of 16 pixels) embedded to 32 plus learned positions, two
// latent-attention blocks, the mean of the tokens, LayerNorm, linear 32 -> 4.
struct MlaGlyphEncoderImpl : nn::Module {
  MlaGlyphEncoderImpl() {
    embed = register_module("embed", nn::Linear(16, 32));
    pos = register_parameter("pos", 0.1 * torch::randn({9, 32}));
    b1 = register_module("b1", LatentAttentionBlock());
    b2 = register_module("b2", LatentAttentionBlock());
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({32})));
    head = register_module("head", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 1, 12, 12]
    const int64_t n = x.size(0);
    torch::Tensor patches = x.view({n, 3, 4, 3, 4}).permute({0, 1, 3, 2, 4}).reshape({n, 9, 16});
    torch::Tensor h = Tap("mla.embed", embed->forward(patches) + pos, "Linear");
    h = b2->forward(b1->forward(h, "mla.b1"), "mla.b2");
    return head->forward(ln->forward(h.mean(1)));
  }
  nn::Linear embed{nullptr}, head{nullptr};
  torch::Tensor pos;
  LatentAttentionBlock b1{nullptr}, b2{nullptr};
  nn::LayerNorm ln{nullptr};
};
TORCH_MODULE(MlaGlyphEncoder);

// --- planted models -------------------------------------------------------------

// The chamber's behaviour from the logged pressures ("vacuum.pressure_mbar",
// mbar as logged): log10 in the model (floored at 1e-10 mbar, below any
// gauge's range), less the row's mean ("vacuum.log_shape", stored); MLP
// 32-64-64-4 ReLU with LayerNorm.
struct VacuumLogShapeNetImpl : nn::Module {
  VacuumLogShapeNetImpl() { mlp = register_module("mlp", Mlp({32, 64, 4, 2, "relu", "layer"})); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 32]
    torch::Tensor lg = torch::log10(Tap("vacuum.pressure_mbar", x, "Input").clamp_min(1e-10));
    return mlp->forward(Tap("vacuum.log_shape", lg - lg.mean(1, true), "Sub"));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(VacuumLogShapeNet);

// The jitter's kind from the exported TIE ("serdes.tie_seconds", seconds as
// exported): each record over its RMS in the model ("serdes.tie_over_rms",
// stored), Conv1d 1 -> 16 -> 32 (5 taps) with BatchNorm and ReLU, the mean
// over the edges, linear 32 -> 4.
struct TimeIntervalErrorNetImpl : nn::Module {
  TimeIntervalErrorNetImpl() {
    c1 = register_module("c1", nn::Conv1d(nn::Conv1dOptions(1, 16, 5).padding(2)));
    bn1 = register_module("bn1", nn::BatchNorm1d(16));
    c2 = register_module("c2", nn::Conv1d(nn::Conv1dOptions(16, 32, 5).padding(2)));
    bn2 = register_module("bn2", nn::BatchNorm1d(32));
    head = register_module("head", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 64]
    torch::Tensor t = Tap("serdes.tie_seconds", x, "Input");
    torch::Tensor rms = t.pow(2).mean(1, true).sqrt().clamp_min(1e-18);
    torch::Tensor h = Tap("serdes.tie_over_rms", t / rms, "Div").unsqueeze(1);
    h = Tap("serdes.conv1", torch::relu(bn1->forward(c1->forward(h))), "Conv1d");
    h = Tap("serdes.conv2", torch::relu(bn2->forward(c2->forward(h))), "Conv1d");
    return head->forward(h.mean(2));
  }
  nn::Conv1d c1{nullptr}, c2{nullptr};
  nn::BatchNorm1d bn1{nullptr}, bn2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(TimeIntervalErrorNet);

// The rhythm from the exported spectrum ("eeg.amplitude_spectrum_uv", uV,
// the DC bin included as exported): the DC bin dropped in the model, log10 of
// the 1..31 Hz bins ("eeg.log_spectrum", stored); MLP 31-64-64-4 ReLU with
// BatchNorm and dropout 0.1.
struct EegSpectrumNetImpl : nn::Module {
  EegSpectrumNetImpl() {
    MlpSpec s{31, 64, 4, 2, "relu", "batch"};
    s.dropout = 0.1;
    mlp = register_module("mlp", Mlp(s));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 32]
    torch::Tensor s = Tap("eeg.amplitude_spectrum_uv", x, "Input");
    return mlp->forward(Tap("eeg.log_spectrum", torch::log10(s.slice(1, 1).clamp_min(1e-3)), "Log"));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(EegSpectrumNet);

// The compound family from the exported counts ("screening.ion_counts"):
// each spectrum over its total ion current in the model, x 10
// ("screening.tic_normalised", stored); MLP 64-64-64-4 ReLU, dropout 0.1.
struct ScreeningTicNetImpl : nn::Module {
  ScreeningTicNetImpl() {
    MlpSpec s{64, 64, 4, 2, "relu"};
    s.dropout = 0.1;
    mlp = register_module("mlp", Mlp(s));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 64]
    torch::Tensor c = Tap("screening.ion_counts", x, "Input");
    return mlp->forward(Tap("screening.tic_normalised", 10 * c / c.sum(1, true).clamp_min(1), "Div"));
  }
  TrackedSequential mlp{nullptr};
};
TORCH_MODULE(ScreeningTicNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh34Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; written as a practitioner would, not aimed anywhere.
  Program* p = add(Make<DecoderLm>("decoder_only_lm_dyck2_bracket_grammar_rmsnorm_adamw_warmup_cosine",
                                   "decoder-only language model (two pre-RMSNorm causal attention blocks, 4 heads, "
                                   "GELU MLP, dropout 0.1) trained by next-token prediction on the Dyck-2 bracket "
                                   "grammar, AdamW 3e-3 wd 0.05 warm-up+cosine",
                                   std::function<DecoderLm()>([] { return DecoderLm(); }),
                                   [] { return DyckTwoBracketSequences(); }),
                   "adamw", 3e-3, "warmup_cosine", 400);
  p->weight_decay = 0.05;
  add(Make<DlrmClickModel>("dlrm_dense_sparse_click_log_pairwise_dot_interactions_momentum_step",
                           "DLRM: bottom MLP 4-16-8 on dense features, 8-wide embeddings of site (Zipf), ad and "
                           "device, pairwise dot interactions, top MLP 14-32-2; clicks from a logistic model, "
                           "batches of 256, SGD momentum 0.05 step decay",
                           std::function<DlrmClickModel()>([] { return DlrmClickModel(); }),
                           [] { return AdClickLogDenseSparse(); }),
      "momentum", 0.05, "step", 300);
  add(Make<TdnnKeywordSpotter>("tdnn_dilated_keyword_spotter_log_mel_frames_batchnorm_dropout_rmsprop_cosine",
                               "TDNN keyword spotter (Conv1d over 20 log-mel bands, dilations 1, 2, 3, BatchNorm, "
                               "max over time, dropout 0.2) on 6 spoken keywords of 4 phones, RMSprop 1e-3 cosine",
                               std::function<TdnnKeywordSpotter()>([] { return TdnnKeywordSpotter(); }),
                               [] { return SpokenKeywordLogMel(); }),
      "rmsprop", 1e-3, "cosine", 300);
  p = add(Make<MlaGlyphEncoder>("multi_head_latent_attention_vit_glyph_tiles_layernorm_adam_warmup",
                                "vision transformer with multi-head latent attention (keys and values from an 8-wide "
                                "latent, queries from a 16-wide one; 4x4 patches of 12x12 glyphs, two pre-LayerNorm "
                                "blocks), Adam 2e-3 wd 1e-4 warm-up",
                                std::function<MlaGlyphEncoder()>([] { return MlaGlyphEncoder(); }),
                                [] { return GlyphTiles(); }),
          "adam", 2e-3, "warmup", 250);
  p->weight_decay = 1e-4;

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  p = add(Make<VacuumLogShapeNet>("vacuum_chamber_events_from_pump_down_gauge_log_mbar_log_shape_in_model",
                                  "a vacuum chamber's minute (steady pump-down, gas burst, leak, cycling valve) from 32 "
                                  "gauge readings in mbar as logged, rows in log order through a pump-down from 1e3 to "
                                  "1e-7 mbar, log10 less the row's mean in the model, MLP 32-64-64-4 ReLU with "
                                  "LayerNorm, Adam 2e-3 warm-up+cosine",
                                  std::function<VacuumLogShapeNet()>([] { return VacuumLogShapeNet(); }),
                                  [] { return VacuumPumpDownLog(); }),
          "adam", 2e-3, "warmup_cosine", 250);
  p->planted = true;
  p = add(Make<TimeIntervalErrorNet>("serdes_jitter_kind_from_time_interval_error_seconds_over_rms_in_model",
                                     "a serial link's jitter kind (random, periodic, duty-cycle, data-dependent) from "
                                     "64 edges' time interval errors in seconds (~1e-13) as the oscilloscope exports "
                                     "them, each record over its RMS in the model, Conv1d 16-32 with BatchNorm, AdamW "
                                     "2e-3 wd 0.01 cosine",
                                     std::function<TimeIntervalErrorNet()>([] { return TimeIntervalErrorNet(); }),
                                     [] { return SerdesTimeIntervalErrors(); }),
          "adamw", 2e-3, "cosine", 200);
  p->weight_decay = 0.01;
  p->planted = true;
  p = add(Make<EegSpectrumNet>("eeg_rhythm_from_dc_coupled_amplitude_spectra_dc_bin_drifting_offset_dropped_in_model",
                               "the dominant EEG rhythm (delta, theta, alpha, beta) from 1-s amplitude spectra in uV "
                               "of a DC-coupled channel as exported, the DC bin included while the electrode offset "
                               "drifts from 50 uV to ~3e4 uV (rows in recording order), the DC bin dropped and log10 "
                               "in the model, MLP 31-64-64-4 with BatchNorm, RMSprop 1e-3 warm-up",
                               std::function<EegSpectrumNet()>([] { return EegSpectrumNet(); }),
                               [] { return EegDcCoupledAmplitudeSpectra(); }),
          "rmsprop", 1e-3, "warmup", 250);
  p->planted = true;
  p = add(Make<ScreeningTicNet>("compound_family_from_screening_mass_spectra_raw_ion_counts_tic_normalised_in_model",
                                "a compound family from 64-bin mass spectra in raw ion counts as exported, blanks, "
                                "trace dilutions and neat samples in one batch (base peak 10^2..10^9.5 counts), "
                                "each over its total ion current in the model, MLP 64-64-64-4 ReLU dropout 0.1, Adam "
                                "1e-3 cosine",
                                std::function<ScreeningTicNet()>([] { return ScreeningTicNet(); }),
                                [] { return ScreeningSpectraIonCounts(); }),
          "adam", 1e-3, "cosine", 200);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH34_H_
