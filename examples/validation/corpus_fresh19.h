// The fresh19 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh18 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor
// any prediction was looked at), so that the rules can be measured on
// trainings nobody tuned anything against. What was looked at: corpus.h,
// corpus_fresh18.h (for the conventions), the names of every earlier
// program and `lpsim validate --list`'s one-line descriptions (to avoid
// repeating an architecture or a breaker's practice), validation.cc's group
// registration, examples/validation/CMakeLists.txt, the target files in
// targets/ and docs/targets.md (what each target does to each role). Each
// planted one was designed from what the hardware does to numbers
// (formats' ranges and resolution, block scales, stored intermediate
// values), with only its fp32 training and its simulated truth on
// bf16-accelerator looked at, in trial runs of the check's form (fp32 on
// three seeds, bf16-accelerator on one simulated seed; read through a filter
// that prints only the fp32 runs' losses and accuracies and the runs' final
// loss, accuracy and broken).
//
// All 8 ran without throwing and learned in fp32 on every seed (seeds 11,
// 12, 13): DGCNN 0.95, 0.94, 0.90 (loss 1.38 to 0.15..0.23, chance 0.25);
// the ConvLSTM 0.99, 0.98, 1.0 (2.11 to 0.047..0.106, chance 0.125); the
// TFT variable selection network 0.95, 0.94, 0.93 (1.67 to 0.18..0.23,
// chance 0.25); ConvMixer 1.0, 1.0, 0.99 (2.30 to 0.055..0.069, chance
// 0.1); the coulomb counter 1.0, 1.0, 1.0 (1.42 to 0.13..0.17); the yield
// curve 1.0, 1.0, 1.0 (1.39 to 0.089..0.103); the DCT texture 0.99, 0.98,
// 0.99 (1.40 to 0.17..0.21); the NetFlow records 1.0, 1.0, 1.0 (1.41 to
// 0.0017..0.0024).
// Changed after the first trial run: one program that did not learn. The
// DCT texture net fed the quantisation-table-divided coefficients straight
// to its MLP and stayed at chance (0.25, loss 1.38) on every seed, the DC
// term (50..115 after the table) swamping the texture's AC terms (~0.05..1):
// it now batch-normalises each coefficient first (BatchNorm1d 64, as models
// that learn straight from JPEG do); the stored coefficients and their
// quotient by the table are unchanged (with BatchNorm: 0.98, 0.98, 0.98;
// then a rewrite of the diagonal stripes' random sign, which flipped it,
// gave the numbers above). The other seven kept their first run's numbers.
// On bf16-accelerator (one seed) two broke and six did not: the coulomb
// counter (loss 1.35 against fp32's 0.13..0.17, accuracy 0.30 against 1.0)
// and the yield curve (loss 0.35 against 0.089..0.103, accuracy 0.87
// against 1.0), both as designed. The DCT texture (0.99) and the NetFlow
// records (1.0), meant not to break on bf16, matched fp32, as did the four
// healthy ones (DGCNN 0.94 against 0.95; the ConvLSTM 0.99 against 0.99;
// the TFT network 0.95 against 0.95; ConvMixer 1.0 against 1.0).
//
// Four train fine in fp32 and, by design, on fp8 hardware, on architectures
// no earlier group uses: DGCNN (EdgeConv on a k-nearest-neighbour graph
// rebuilt in feature space), a ConvLSTM (convolutional gates), the Temporal
// Fusion Transformer's variable selection network (gated residual networks,
// softmax variable weights) and ConvMixer (patch embedding, depthwise and
// pointwise convs with BatchNorm); with optimizer and schedule pairs Adam
// warm-up, RMSprop 3e-3 step decay, AdamW warm-up+cosine and Adam 1e-2 step
// decay (a high learning rate). ConvMixer's data, seven-segment digits,
// are a kind earlier groups also drew (their architectures differ).
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: increments below a stored state's
// resolution, small differences of values near 1, one block scale shared by
// unlike values, values beyond fp16's range; the practice is new), meant to
// break on different sets of targets:
//   - a battery management system's coulomb counter run in the model: the
//     state of charge (0.35..0.95) integrated second by second from the
//     current log, soc -= I dt / 9000 As, each second's state stored, then
//     the depth of discharge every 8 s. The increments are 1e-4..1e-3:
//     mostly below half of bf16's step there (2^-9..2^-8), so the stored state
//     hardly moves; e4m3 (steps of 1/16..1/8 relative) and e2m1 lose them
//     altogether; fp16 (steps 2.4e-4..4.9e-4) rounds each to a multiple of
//     its step. Meant to break on bf16, the fp8, fp4 and block
//     floating-point targets, fp16 at the edge.
//   - a yield curve's shape from its zero-coupon discount factors as the
//     curve library stores its nodes (0.83..0.998), the quarterly forwards
//     ln(D_prev / D) / 0.25 bootstrapped in the model: a quarter's forward
//     is a relative difference of ~0.0025..0.015 between neighbouring
//     factors, and the shapes differ by ~1% in the forward. bf16 steps by
//     2^-8 near 1 (forwards off by up to ~1.5%), e4m3 by 1/16 and e2m1 by
//     far more, block floating point with a 7-bit mantissa by 2^-7; fp16
//     (2^-11, forwards off by ~0.2%) keeps the shape. Meant to break on
//     bf16, fp8, fp4 and block floating point, not on fp16.
//   - a texture's orientation from the DCT coefficients of an 8x8 patch
//     taken on raw 0..255 pixels without JPEG's level shift, in zig-zag
//     order (the DC term, 8 x the mean, 800..1840, first; the faint
//     texture's AC terms 2..10, mostly in the same first 16 or 32), stored as
//     read and divided by the quantisation table in the model. e2m1 under
//     a block scale keeps nothing below ~1/12 of the block's largest, block
//     floating point with a 7-bit mantissa steps by 8..16 under the DC
//     term; e4m3 per tensor or per block of 32 (a ratio of 1/900 is still
//     within its subnormals), bf16 and fp16 keep them. Meant to break on
//     the fp4 / block floating-point targets only.
//   - a network application from a NetFlow record's 8 raw counters as the
//     collector exports them (bytes up to 3e9, packets, milliseconds,
//     flags), log1p taken in the model. fp16 overflows at 65504 (a video
//     flow's bytes read inf, log1p inf); e4m3 under a per-tensor scale set
//     by gigabyte flows has nothing below ~1e4 (an interactive shell's
//     counters and every packet count of small flows read 0), as does a
//     block shared by a row's bytes and packets on the block-scaled and
//     block floating-point targets; bf16 keeps fp32's exponent range and
//     log1p needs only its resolution. Meant to break on fp16, fp8 and fp4
//     and block floating point, not on bf16.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
// Brushes with rule material, none of which changed a design: grepping
// validation.cc for the group registration printed one line of the group
// comment (line ~109: "allowance of 0.3 (no cell moved); and `fresh18`"),
// and reading the lines around it for where to add this group's clause
// showed that comment's sentence on fresh18: it was judged once, unseen,
// with the allowance of 0.3, precision 0.74, recall 0.97, "a healthy
// Transformer-XL drew lp_rollout on 7 targets". So a rule named
// lp_rollout exists and once flagged a healthy attention model; nothing
// here was designed after it (no healthy program here is chosen for or
// against it). The failing validation.truths_cover_corpus test printed
// only that truths.json has no run of this group's first program. Nothing
// else (no rule code, description, commit message or prediction) was seen.
//
//   for (const Program& p : Fresh19Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH19_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH19_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// 2-D point clouds of 32 points sampled along an outline: a circle (0), a
// square (1), a triangle (2) or a plus sign (3); random rotation, scale
// 0.6..1.0, offset +-0.3, N(0, 0.02) jitter, points in random order.
inline Data OutlinePoints(int64_t n = 2048, int64_t pts = 32) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = torch::zeros({n, pts, 2});
  auto ya = y.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    torch::Tensor p;
    const int64_t c = ya[i];
    if (c == 0) {
      torch::Tensor a = 2 * M_PI * torch::rand({pts});
      p = torch::stack({torch::cos(a), torch::sin(a)}, 1);
    } else if (c == 3) {
      torch::Tensor s = 2 * torch::rand({pts}) - 1;
      torch::Tensor vert = (torch::rand({pts}) < 0.5).to(torch::kFloat);
      p = torch::stack({s * (1 - vert), s * vert}, 1);
    } else {
      const int64_t v = c == 1 ? 4 : 3;
      torch::Tensor ang = torch::arange(v + 1, torch::kFloat) * (2 * M_PI / double(v)) + M_PI / 4;
      torch::Tensor corners = torch::stack({torch::cos(ang), torch::sin(ang)}, 1);  // [v+1, 2]
      torch::Tensor t = double(v) * torch::rand({pts});
      torch::Tensor k = torch::floor(t).to(torch::kLong).clamp_max(v - 1), f = (t - torch::floor(t)).unsqueeze(1);
      p = corners.index_select(0, k) * (1 - f) + corners.index_select(0, k + 1) * f;
    }
    const double rot = 2 * M_PI * torch::rand({1}).item<double>(), sc = 0.6 + 0.4 * torch::rand({1}).item<double>();
    torch::Tensor r = torch::tensor({std::cos(rot), -std::sin(rot), std::sin(rot), std::cos(rot)}, torch::kFloat).view({2, 2});
    p = sc * p.matmul(r) + (0.6 * torch::rand({1, 2}) - 0.3) + 0.02 * torch::randn({pts, 2});
    x[i] = p.index_select(0, torch::randperm(pts, torch::kLong));
  }
  return {x, y};
}

// 6 frames of 8x8: a 2x2 dot (+1.5) on N(0, 0.3) noise moving on a torus
// (wrapping round the edges) up, down, left or right at 1 or 2 pixels per
// frame (8 classes: direction x speed), from a random start.
inline Data MovingDots(int64_t n = 2048, int64_t frames = 6) {
  torch::Tensor y = torch::randint(0, 8, {n}, torch::kLong);
  torch::Tensor x = 0.3 * torch::randn({n, frames, 1, 8, 8});
  auto ya = y.accessor<int64_t, 1>();
  torch::Tensor r0 = torch::randint(0, 8, {n}, torch::kLong), c0 = torch::randint(0, 8, {n}, torch::kLong);
  auto ra = r0.accessor<int64_t, 1>(), ca = c0.accessor<int64_t, 1>();
  const int64_t dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t dir = ya[i] % 4, speed = 1 + ya[i] / 4;
    for (int64_t t = 0; t < frames; ++t) {
      const int64_t r = ra[i] + t * speed * dr[dir], c = ca[i] + t * speed * dc[dir];
      for (int64_t a = 0; a < 2; ++a)
        for (int64_t b = 0; b < 2; ++b) x[i][t][0][((r + a) % 8 + 8) % 8][((c + b) % 8 + 8) % 8] += 1.5;
    }
  }
  return {x, y};
}

// Tabular rows of 8 standard normal variables, 3 of which decide the class:
// class = 2 * [x0 * x3 > 0] + [x5 > 0.5 * x0]; the other 5 are distractors;
// N(0, 0.1) noise on the deciding variables after labelling.
inline Data VariableRules(int64_t n = 2048) {
  torch::Tensor x = torch::randn({n, 8});
  torch::Tensor x0 = x.select(1, 0), x3 = x.select(1, 3), x5 = x.select(1, 5);
  torch::Tensor y = 2 * (x0 * x3 > 0).to(torch::kLong) + (x5 > 0.5 * x0).to(torch::kLong);
  torch::Tensor noise = torch::zeros({n, 8});
  noise.select(1, 0).copy_(0.1 * torch::randn({n}));
  noise.select(1, 3).copy_(0.1 * torch::randn({n}));
  noise.select(1, 5).copy_(0.1 * torch::randn({n}));
  return {x + noise, y};
}

// 1x12x12 images of seven-segment digits (class 0..9): a 5x9 glyph with
// strokes of brightness 1.0..1.5 at a random offset, N(0, 0.35) noise.
inline Data SevenSegmentDigits(int64_t n = 2048) {
  // Segments a, b, c, d, e, f, g per digit.
  static const int kSeg[10][7] = {{1, 1, 1, 1, 1, 1, 0}, {0, 1, 1, 0, 0, 0, 0}, {1, 1, 0, 1, 1, 0, 1},
                                  {1, 1, 1, 1, 0, 0, 1}, {0, 1, 1, 0, 0, 1, 1}, {1, 0, 1, 1, 0, 1, 1},
                                  {1, 0, 1, 1, 1, 1, 1}, {1, 1, 1, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1},
                                  {1, 1, 1, 1, 0, 1, 1}};
  torch::Tensor y = torch::randint(0, 10, {n}, torch::kLong);
  torch::Tensor x = 0.35 * torch::randn({n, 1, 12, 12});
  torch::Tensor dx = torch::randint(0, 8, {n}, torch::kLong), dy = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor bright = 1.0 + 0.5 * torch::rand({n});
  auto ya = y.accessor<int64_t, 1>(), xa = dx.accessor<int64_t, 1>(), da = dy.accessor<int64_t, 1>();
  auto ba = bright.accessor<float, 1>();
  for (int64_t i = 0; i < n; ++i) {
    torch::Tensor g = torch::zeros({9, 5});
    const int* s = kSeg[ya[i]];
    if (s[0]) g.select(0, 0).fill_(1);
    if (s[1]) g.select(1, 4).slice(0, 0, 5).fill_(1);
    if (s[2]) g.select(1, 4).slice(0, 4, 9).fill_(1);
    if (s[3]) g.select(0, 8).fill_(1);
    if (s[4]) g.select(1, 0).slice(0, 4, 9).fill_(1);
    if (s[5]) g.select(1, 0).slice(0, 0, 5).fill_(1);
    if (s[6]) g.select(0, 4).fill_(1);
    x[i][0].slice(0, da[i], da[i] + 9).slice(1, xa[i], xa[i] + 5).add_(ba[i] * g);
  }
  return {x, y};
}

// A battery pack's current log at 1 s (amperes, discharge positive, as the
// battery management system samples it) for 64 s, after the state of charge
// at the start (0.35..0.95): x = [soc0, I_1 .. I_64]. The load profile is
// the class: constant (0), ramping up (1), ramping down (2) or a mid-cycle
// hump (3), its mean 1.5..4.5 A, N(0, 0.3) A sensor noise.
inline Data BatteryCurrentLogs(int64_t n = 2048, int64_t steps = 64) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor t = (torch::arange(steps, torch::kDouble) + 0.5).unsqueeze(0) / double(steps);  // 0..1
  torch::Tensor mean = 1.5 + 3.0 * torch::rand({n, 1}, torch::kDouble);
  torch::Tensor yc = y.to(torch::kDouble).unsqueeze(1);
  torch::Tensor shape = torch::where(yc == 0, torch::ones_like(t.expand({n, steps})),
                                     torch::where(yc == 1, 0.2 + 1.6 * t, torch::where(yc == 2, 1.8 - 1.6 * t,
                                                                                      0.2 + 2.4 * torch::sin(M_PI * t).pow(2))));
  torch::Tensor current = mean * shape + 0.3 * torch::randn({n, steps}, torch::kDouble);
  torch::Tensor soc0 = 0.35 + 0.6 * torch::rand({n, 1}, torch::kDouble);
  return {torch::cat({soc0, current}, 1).to(torch::kFloat), y};
}

// Zero-coupon discount factors of a yield curve at 12 quarterly maturities
// (0.25 .. 3 years), as a curve-building library stores its nodes: D(t) =
// exp(-integral of the forward rate). The forward curve's shape is the
// class: upward (0), inverted (1), humped (2) or flat (3), at a level
// 1%..6%, the shape's size 0.8%..1.5%, time constant 0.8..1.5 years, 2 bp
// noise on each quarter's forward. Computed in double.
inline Data DiscountCurves(int64_t n = 2048, int64_t nodes = 12) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  auto u = [n](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}, torch::kDouble); };
  torch::Tensor t = 0.25 * (torch::arange(nodes, torch::kDouble) + 0.5).unsqueeze(0);  // mid-quarter
  torch::Tensor level = u(0.01, 0.06), size = u(0.008, 0.015), tau = u(0.8, 1.5);
  torch::Tensor rise = 1 - torch::exp(-t / tau), hump = (t / tau) * torch::exp(1 - t / tau);
  torch::Tensor drift = u(-0.002, 0.002) * t / 3;
  torch::Tensor yc = y.to(torch::kDouble).unsqueeze(1);
  torch::Tensor fwd = level + torch::where(yc == 0, size * rise, torch::where(yc == 1, -size * rise,
                                                                              torch::where(yc == 2, size * hump, drift)));
  fwd = fwd + 0.0002 * torch::randn({n, nodes}, torch::kDouble);
  return {torch::exp(-0.25 * torch::cumsum(fwd, 1)).to(torch::kFloat), y};
}

// 8x8 patches of 8-bit greyscale photographs (0..255, background 100..230)
// holding a faint texture of amplitude 1..2 grey levels: horizontal stripes
// (0), vertical stripes (1), diagonal stripes (2) or none (3), 1..2 cycles
// per patch at a random phase; N(0, 0.5) noise, rounded to integers. Each
// patch's orthonormal 2-D DCT-II is taken on the raw pixels (no level shift)
// and its 64 coefficients stored in JPEG's zig-zag order (the DC term,
// 8 x the mean, ~800..1840, first). Computed in double.
inline Data DctPatches(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  auto u = [n](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1, 1}, torch::kDouble); };
  torch::Tensor r = torch::arange(8, torch::kDouble).view({1, 8, 1}), c = torch::arange(8, torch::kDouble).view({1, 1, 8});
  torch::Tensor f = u(1.0, 2.0), phase = u(0, 2 * M_PI), amp = u(1.0, 2.0), sgn = 2 * (u(0, 1) < 0.5).to(torch::kDouble) - 1;
  torch::Tensor yc = y.to(torch::kDouble).view({n, 1, 1});
  torch::Tensor coord = torch::where(yc == 0, r + 0 * c, torch::where(yc == 1, c + 0 * r, (r + sgn * c) / std::sqrt(2.0)));
  torch::Tensor tex = torch::where(yc == 3, torch::zeros({n, 8, 8}, torch::kDouble),
                                   amp * torch::cos(2 * M_PI * f * coord / 8 + phase));
  torch::Tensor px = torch::round(u(100, 230) + tex + 0.5 * torch::randn({n, 8, 8}, torch::kDouble)).clamp(0, 255);
  torch::Tensor k = torch::arange(8, torch::kDouble).unsqueeze(1), m = torch::arange(8, torch::kDouble).unsqueeze(0);
  torch::Tensor dct = torch::cos(M_PI * (2 * m + 1) * k / 16) * std::sqrt(2.0 / 8);
  dct.select(0, 0).fill_(std::sqrt(1.0 / 8));
  torch::Tensor coef = torch::matmul(torch::matmul(dct.unsqueeze(0), px), dct.t().unsqueeze(0)).reshape({n, 64});
  std::vector<int64_t> zz;
  for (int64_t s = 0; s < 15; ++s)
    for (int64_t i = 0; i < 8; ++i) {
      const int64_t a = s % 2 ? i : s - i;  // odd diagonals run down, even ones up
      const int64_t b = s - a;
      if (a >= 0 && a < 8 && b >= 0 && b < 8) zz.push_back(a * 8 + b);
    }
  return {coef.index_select(1, torch::tensor(zz, torch::kLong)).to(torch::kFloat), y};
}

// The standard JPEG luminance quantisation table (quality 50) in zig-zag
// order, matching DctPatches.
inline torch::Tensor JpegLumaQuantZigzag() {
  static const float kTable[64] = {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
                                   14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
                                   18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
                                   49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
  std::vector<float> out;
  for (int64_t s = 0; s < 15; ++s)
    for (int64_t i = 0; i < 8; ++i) {
      const int64_t a = s % 2 ? i : s - i;
      const int64_t b = s - a;
      if (a >= 0 && a < 8 && b >= 0 && b < 8) out.push_back(kTable[a * 8 + b]);
    }
  return torch::tensor(out);
}

// Network flow records as a NetFlow/IPFIX collector exports them: 8 raw
// counters per flow (bytes down, bytes up, packets down, packets up,
// duration in ms, largest packet down, largest packet up, TCP flags seen
// as a count of distinct flags), for 4 applications: video streaming (0),
// a bulk upload (1), an interactive shell (2), web browsing (3); each drawn
// in log space with lognormal spread, rounded to integers. Byte counters
// reach 1e5..3e9. Computed in double.
inline Data FlowRecords(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  auto ln = [n](double lo, double hi) {
    return torch::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * torch::rand({n}, torch::kDouble));
  };
  auto jit = [n](double s) { return torch::exp(s * torch::randn({n}, torch::kDouble)); };
  torch::Tensor yc = y.to(torch::kDouble);
  auto pick = [&yc](torch::Tensor a, torch::Tensor b, torch::Tensor c, torch::Tensor d) {
    return torch::where(yc == 0, a, torch::where(yc == 1, b, torch::where(yc == 2, c, d)));
  };
  // Duration (s) and the rate of the dominant direction (bytes/s).
  torch::Tensor dur = pick(ln(60, 3600), ln(10, 1000), ln(30, 3600), ln(0.2, 20));
  torch::Tensor rate = pick(ln(2.5e5, 1e6), ln(6e5, 6e6), ln(50, 2000), ln(3e4, 6e5));
  torch::Tensor dominant = rate * dur;
  torch::Tensor size_dom = pick(1400 * jit(0.03), 1400 * jit(0.03), 90 * jit(0.2), 1000 * jit(0.15));
  torch::Tensor pk_dom = torch::ceil(dominant / size_dom);
  // The other direction: acknowledgements (every 2nd packet, 66 bytes) or,
  // for the shell and the web, requests.
  torch::Tensor pk_other = pick(pk_dom / 2 * jit(0.1), pk_dom / 2 * jit(0.1), pk_dom * jit(0.2), pk_dom / 3 * jit(0.2));
  pk_other = torch::ceil(pk_other);
  torch::Tensor size_other = pick(66 * jit(0.02), 66 * jit(0.02), 80 * jit(0.2), 400 * jit(0.3));
  torch::Tensor by_dom = torch::round(pk_dom * size_dom), by_other = torch::round(pk_other * size_other);
  torch::Tensor up = (yc == 1), down_by = torch::where(up, by_other, by_dom), up_by = torch::where(up, by_dom, by_other);
  torch::Tensor down_pk = torch::where(up, pk_other, pk_dom), up_pk = torch::where(up, pk_dom, pk_other);
  torch::Tensor full = 1500 * torch::ones_like(yc);
  torch::Tensor max_down = torch::round(torch::where(up, 66 * torch::ones_like(yc), torch::minimum(full, size_dom * 1.07)));
  torch::Tensor max_up = torch::round(torch::where(up, full, torch::minimum(full, size_other * 1.5)));
  torch::Tensor flags = pick(3 + torch::randint(0, 2, {n}, torch::kDouble), 3 + torch::randint(0, 2, {n}, torch::kDouble),
                             4 + torch::randint(0, 2, {n}, torch::kDouble), 4 + torch::randint(0, 3, {n}, torch::kDouble));
  torch::Tensor x = torch::stack({down_by, up_by, down_pk, up_pk, torch::round(dur * 1000), max_down, max_up, flags}, 1);
  return {x.to(torch::kFloat), y};
}

// --- healthy models -------------------------------------------------------------

// DGCNN (Wang et al. 2019): two EdgeConv layers, each building a k-nearest-
// neighbour graph (k 6; the first in the input coordinates, the second,
// dynamically, in the first layer's features), an MLP on the edge feature
// [x_i, x_j - x_i] and a max over the neighbours; the two layers' features
// concatenated, a point-wise Linear 64-64, max pooling over the points, an
// MLP 64-32-classes.
struct EdgeConvImpl : nn::Module {
  EdgeConvImpl(int64_t in, int64_t out, int64_t k, const std::string& name) : k_(k), name_(name) {
    fc1 = register_module("fc1", nn::Linear(2 * in, out));
    fc2 = register_module("fc2", nn::Linear(out, out));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, P, C]
    const int64_t n = x.size(0), p = x.size(1), c = x.size(2);
    torch::Tensor idx;
    {
      torch::NoGradGuard g;
      torch::Tensor sq = x.pow(2).sum(-1);
      torch::Tensor d = sq.unsqueeze(2) + sq.unsqueeze(1) - 2 * torch::matmul(x, x.transpose(1, 2));
      idx = std::get<1>(d.topk(k_, -1, /*largest=*/false));  // [N, P, k], self included
      idx = idx + (torch::arange(n, torch::kLong) * p).view({n, 1, 1});
    }
    torch::Tensor nb = x.reshape({n * p, c}).index_select(0, idx.flatten()).view({n, p, k_, c});
    torch::Tensor xi = x.unsqueeze(2).expand({n, p, k_, c});
    torch::Tensor e = torch::cat({xi, nb - xi}, -1);
    torch::Tensor h = Tap(name_ + ".edge.relu", torch::leaky_relu(fc1->forward(e), 0.2), "LeakyReLU");
    h = torch::leaky_relu(fc2->forward(h), 0.2);
    return Tap(name_ + ".max", std::get<0>(h.max(2)), "Max");
  }
  int64_t k_;
  std::string name_;
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(EdgeConv);

struct DgcnnImpl : nn::Module {
  explicit DgcnnImpl(int64_t classes) {
    e1 = register_module("e1", EdgeConv(2, 32, 6, "edge1"));
    e2 = register_module("e2", EdgeConv(32, 32, 6, "edge2"));
    mix = register_module("mix", nn::Linear(64, 64));
    h1 = register_module("h1", nn::Linear(64, 32));
    out = register_module("out", nn::Linear(32, classes));
  }
  torch::Tensor forward(const torch::Tensor& pts) {  // [N, P, 2]
    torch::Tensor a = e1->forward(pts), b = e2->forward(a);
    torch::Tensor f = Tap("mix.relu", torch::leaky_relu(mix->forward(torch::cat({a, b}, -1)), 0.2), "LeakyReLU");
    torch::Tensor g = std::get<0>(f.max(1));
    return out->forward(Tap("h1.relu", torch::relu(h1->forward(g)), "ReLU"));
  }
  EdgeConv e1{nullptr}, e2{nullptr};
  nn::Linear mix{nullptr}, h1{nullptr}, out{nullptr};
};
TORCH_MODULE(Dgcnn);

// ConvLSTM (Shi et al. 2015): one cell with 16 hidden channels whose four
// gates are a 3x3 convolution of [frame, hidden state], run over the 6
// frames; the last hidden state through a 3x3 conv 16-16 ReLU, global
// average pooling and a linear classifier.
struct ConvLstmImpl : nn::Module {
  ConvLstmImpl(int64_t hidden, int64_t classes) : hid_(hidden) {
    gates = register_module("gates", nn::Conv2d(nn::Conv2dOptions(1 + hidden, 4 * hidden, 3).padding(1)));
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(hidden, hidden, 3).padding(1)));
    head = register_module("head", nn::Linear(hidden, classes));
    torch::NoGradGuard g;
    gates->bias.slice(0, hidden, 2 * hidden).fill_(1.0);  // forget-gate bias 1
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, T, 1, H, W]
    const int64_t n = x.size(0), steps = x.size(1);
    torch::Tensor h = torch::zeros({n, hid_, x.size(3), x.size(4)}), c = torch::zeros_like(h);
    for (int64_t t = 0; t < steps; ++t) {
      const std::string name = "convlstm.t" + std::to_string(t);
      std::vector<torch::Tensor> g = gates->forward(torch::cat({x.select(1, t), h}, 1)).chunk(4, 1);
      torch::Tensor i = torch::sigmoid(g[0]), f = torch::sigmoid(g[1]), o = torch::sigmoid(g[2]), gg = torch::tanh(g[3]);
      c = Tap(name + ".cell", f * c + i * gg, "Add");
      h = Tap(name + ".hidden", o * torch::tanh(c), "Mul");
    }
    torch::Tensor z = Tap("conv.relu", torch::relu(conv->forward(h)), "ReLU");
    return head->forward(z.mean({2, 3}));
  }
  int64_t hid_;
  nn::Conv2d gates{nullptr}, conv{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(ConvLstm);

// The Temporal Fusion Transformer's gated residual network (Lim et al.
// 2021): GRN(a) = LayerNorm(skip(a) + GLU(W1 ELU(W2 a + b2) + b1)), the GLU
// sigmoid(W4 g) * (W5 g).
struct GrnImpl : nn::Module {
  GrnImpl(int64_t in, int64_t hidden, int64_t out, const std::string& name) : name_(name) {
    w2 = register_module("w2", nn::Linear(in, hidden));
    w1 = register_module("w1", nn::Linear(hidden, hidden));
    gate = register_module("gate", nn::Linear(hidden, out));
    value = register_module("value", nn::Linear(hidden, out));
    if (in != out) skip = register_module("skip", nn::Linear(in, out));
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({out})));
  }
  torch::Tensor forward(const torch::Tensor& a) {
    torch::Tensor e = Tap(name_ + ".elu", torch::elu(w2->forward(a)), "ELU");
    torch::Tensor g = w1->forward(e);
    torch::Tensor glu = Tap(name_ + ".glu", torch::sigmoid(gate->forward(g)) * value->forward(g), "Mul");
    torch::Tensor s = skip ? skip->forward(a) : a;
    return Tap(name_ + ".ln", ln->forward(s + glu), "LayerNorm");
  }
  std::string name_;
  nn::Linear w2{nullptr}, w1{nullptr}, gate{nullptr}, value{nullptr}, skip{nullptr};
  nn::LayerNorm ln{nullptr};
};
TORCH_MODULE(Grn);

// TFT's variable selection network on 8 tabular variables: each variable
// embedded (Linear 1-16 of its own), selection weights softmax(GRN(all
// embeddings, 128-32-8)), each embedding through its own GRN 16-16-16, the
// weighted sum through a GRN 16-32-16 and a linear classifier.
struct VariableSelectionNetImpl : nn::Module {
  VariableSelectionNetImpl(int64_t vars, int64_t d, int64_t classes) : v_(vars), d_(d) {
    embed_w = register_parameter("embed_w", torch::randn({vars, d}));
    embed_b = register_parameter("embed_b", torch::zeros({vars, d}));
    select = register_module("select", Grn(vars * d, 32, vars, "select"));
    for (int64_t i = 0; i < vars; ++i) per_var.push_back(register_module("var" + std::to_string(i), Grn(d, d, d, "var" + std::to_string(i))));
    post = register_module("post", Grn(d, 2 * d, d, "post"));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, vars]
    const int64_t n = x.size(0);
    torch::Tensor e = x.unsqueeze(2) * embed_w + embed_b;  // [N, vars, d]
    torch::Tensor w = Tap("select.softmax", torch::softmax(select->forward(e.reshape({n, v_ * d_})), -1), "Softmax");
    std::vector<torch::Tensor> proc;
    for (int64_t i = 0; i < v_; ++i) proc.push_back(per_var[i]->forward(e.select(1, i)));
    torch::Tensor mixed = (torch::stack(proc, 1) * w.unsqueeze(2)).sum(1);
    return head->forward(post->forward(mixed));
  }
  int64_t v_, d_;
  torch::Tensor embed_w, embed_b;
  Grn select{nullptr}, post{nullptr};
  std::vector<Grn> per_var;
  nn::Linear head{nullptr};
};
TORCH_MODULE(VariableSelectionNet);

// ConvMixer (Trockman & Kolter 2022): a 2x2 stride-2 patch embedding 1-32,
// GELU, BatchNorm; 3 blocks of a residual depthwise 3x3 conv (GELU,
// BatchNorm) and a pointwise 1x1 conv (GELU, BatchNorm); global average
// pooling, a linear classifier.
struct ConvMixerImpl : nn::Module {
  ConvMixerImpl(int64_t dim, int64_t depth, int64_t classes) {
    patch = register_module("patch", nn::Conv2d(nn::Conv2dOptions(1, dim, 2).stride(2)));
    bn0 = register_module("bn0", nn::BatchNorm2d(dim));
    for (int64_t i = 0; i < depth; ++i) {
      const std::string s = std::to_string(i);
      dw.push_back(register_module("dw" + s, nn::Conv2d(nn::Conv2dOptions(dim, dim, 3).padding(1).groups(dim))));
      bn_dw.push_back(register_module("bn_dw" + s, nn::BatchNorm2d(dim)));
      pw.push_back(register_module("pw" + s, nn::Conv2d(nn::Conv2dOptions(dim, dim, 1))));
      bn_pw.push_back(register_module("bn_pw" + s, nn::BatchNorm2d(dim)));
    }
    head = register_module("head", nn::Linear(dim, classes));
  }
  torch::Tensor forward(const torch::Tensor& img) {
    torch::Tensor x = bn0->forward(Tap("patch.gelu", torch::gelu(patch->forward(img)), "GELU"));
    for (size_t i = 0; i < dw.size(); ++i) {
      const std::string s = "block" + std::to_string(i);
      x = x + bn_dw[i]->forward(Tap(s + ".dw.gelu", torch::gelu(dw[i]->forward(x)), "GELU"));
      x = bn_pw[i]->forward(Tap(s + ".pw.gelu", torch::gelu(pw[i]->forward(x)), "GELU"));
    }
    return head->forward(x.mean({2, 3}));
  }
  nn::Conv2d patch{nullptr};
  nn::BatchNorm2d bn0{nullptr};
  std::vector<nn::Conv2d> dw, pw;
  std::vector<nn::BatchNorm2d> bn_dw, bn_pw;
  nn::Linear head{nullptr};
};
TORCH_MODULE(ConvMixer);

// --- planted models -------------------------------------------------------------

// Load profile from the state of charge a coulomb counter integrates in the
// model, as battery management firmware does: soc_t = soc_{t-1} - I_t * 1 s
// / (2.5 Ah = 9000 As), each second's state stored ("battery.soc.tNN"); the
// depth of discharge in percent, 100 (soc0 - soc_t), read every 8 s (8
// features) into an MLP 8-64-64-4 ReLU.
struct CoulombCounterNetImpl : nn::Module {
  CoulombCounterNetImpl() {
    fc1 = register_module("fc1", nn::Linear(8, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor in = Tap("battery.log", x, "Input");
    torch::Tensor soc0 = in.slice(1, 0, 1), current = in.slice(1, 1);
    torch::Tensor soc = soc0;
    std::vector<torch::Tensor> dod;
    for (int64_t t = 0; t < current.size(1); ++t) {
      char name[40];
      std::snprintf(name, sizeof(name), "battery.soc.t%02lld", static_cast<long long>(t));
      soc = Tap(name, soc - current.slice(1, t, t + 1) / 9000.0, "Sub");
      if (t % 8 == 7) dod.push_back(soc0 - soc);
    }
    torch::Tensor d = Tap("battery.depth_of_discharge_pct", 100 * torch::cat(dod, 1), "Mul");
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward(d)), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(CoulombCounterNet);

// Curve shape from the discount factors ("curve.discount_factors", stored as
// read): the quarterly forward rates bootstrapped in the model, f_i =
// ln(D_{i-1} / D_i) / 0.25 with D_0 = 1 ("curve.log_discount" and
// "curve.forward_rates", stored), in percent, standardised by (f - 3.5) /
// 2, into an MLP 12-64-64-4 ReLU.
struct ForwardCurveNetImpl : nn::Module {
  ForwardCurveNetImpl() {
    fc1 = register_module("fc1", nn::Linear(12, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor d = Tap("curve.discount_factors", x, "Input");
    torch::Tensor logd = Tap("curve.log_discount", torch::log(d), "Log");
    torch::Tensor prev = torch::cat({torch::zeros({x.size(0), 1}), logd.slice(1, 0, -1)}, 1);
    torch::Tensor fwd = Tap("curve.forward_rates", (prev - logd) / 0.25, "Div");
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward((100 * fwd - 3.5) / 2)), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(ForwardCurveNet);

// Texture from a patch's DCT coefficients ("jpeg.dct_coefficients", zig-zag,
// stored as read), divided by JPEG's luminance quantisation table in the
// model ("jpeg.quantised", stored, unrounded), each coefficient batch-
// normalised as in learning straight from JPEG (Gueguen et al. 2018,
// BatchNorm1d 64), into an MLP 64-64-64-4 ReLU.
struct DctTextureNetImpl : nn::Module {
  DctTextureNetImpl() {
    q = register_buffer("q", JpegLumaQuantZigzag());
    bn = register_module("bn", nn::BatchNorm1d(64));
    fc1 = register_module("fc1", nn::Linear(64, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor c = Tap("jpeg.dct_coefficients", x, "Input");
    torch::Tensor s = Tap("jpeg.quantised", c / q, "Div");
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward(Tap("bn", bn->forward(s), "BatchNorm"))), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  torch::Tensor q;
  nn::BatchNorm1d bn{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(DctTextureNet);

// Application from a flow record's raw counters ("flow.counters", stored as
// read), log1p taken in the model ("flow.log_counters", stored),
// standardised by (l - 6) / 4, into an MLP 8-64-64-4 ReLU.
struct FlowAppNetImpl : nn::Module {
  FlowAppNetImpl() {
    fc1 = register_module("fc1", nn::Linear(8, 64));
    fc2 = register_module("fc2", nn::Linear(64, 64));
    out = register_module("out", nn::Linear(64, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor c = Tap("flow.counters", x, "Input");
    torch::Tensor l = Tap("flow.log_counters", torch::log1p(c), "Log");
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward((l - 6) / 4)), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(FlowAppNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh19Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<Dgcnn>("dgcnn_edgeconv_dynamic_knn_outline_points_adam_warmup", "DGCNN: two EdgeConv layers (k 6 "
                  "nearest neighbours, the second graph rebuilt in feature space; MLP on [x_i, x_j - x_i], max over "
                  "neighbours), concatenated, max-pooled over points; which outline (circle, square, triangle, "
                  "plus) 32 2-D points trace, Adam 2e-3 warm-up",
                  std::function<Dgcnn()>([] { return Dgcnn(4); }), [] { return OutlinePoints(); }),
      "adam", 2e-3, "warmup", 250);
  add(Make<ConvLstm>("convlstm_moving_dot_direction_speed_rmsprop_step", "ConvLSTM: one cell, 16 channels, "
                     "3x3 convolutional gates over 6 frames of 8x8, then a 3x3 conv, average pooling; direction and "
                     "speed of a dot moving on a torus (8 classes), RMSprop 3e-3 step decay",
                     std::function<ConvLstm()>([] { return ConvLstm(16, 8); }), [] { return MovingDots(); }),
      "rmsprop", 3e-3, "step", 250);
  add(Make<VariableSelectionNet>("tft_variable_selection_grn_tabular_rules_adamw_warmup_cosine", "Temporal Fusion "
                                 "Transformer's variable selection network: 8 variables embedded apart, softmax "
                                 "selection weights from a gated residual network (ELU, GLU, LayerNorm), one GRN per "
                                 "variable, a GRN on the weighted sum; a rule on 3 of 8 tabular variables, AdamW "
                                 "3e-3 warm-up+cosine",
                                 std::function<VariableSelectionNet()>([] { return VariableSelectionNet(8, 16, 4); }),
                                 [] { return VariableRules(); }),
      "adamw", 3e-3, "warmup_cosine", 300);
  add(Make<ConvMixer>("convmixer_depthwise_pointwise_seven_segment_digits_adam_1e2_step", "ConvMixer: 2x2 patch "
                      "embedding, 3 blocks of residual depthwise 3x3 and pointwise 1x1 convs with GELU and "
                      "BatchNorm, dim 32; noisy seven-segment digits at random offsets in 12x12, Adam 1e-2 step "
                      "decay",
                      std::function<ConvMixer()>([] { return ConvMixer(32, 3, 10); }),
                      [] { return SevenSegmentDigits(); }),
      "adam", 1e-2, "step", 200);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  Program* p = add(Make<CoulombCounterNet>("battery_load_profile_coulomb_counted_soc_stored_each_second", "load "
                                           "profile of a battery from the state of charge a coulomb counter "
                                           "integrates in the model second by second (soc 0.35..0.95, each step "
                                           "1e-4..1e-3, every state stored), depth of discharge every 8 s, MLP "
                                           "8-64-64-4 ReLU, Adam 2e-3 cosine",
                                           std::function<CoulombCounterNet()>([] { return CoulombCounterNet(); }),
                                           [] { return BatteryCurrentLogs(); }),
                   "adam", 2e-3, "cosine", 200);
  p->planted = true;
  p = add(Make<ForwardCurveNet>("yield_curve_shape_forwards_bootstrapped_from_discount_factors", "forward-curve "
                                "shape (upward, inverted, humped, flat) from 12 quarterly zero-coupon discount "
                                "factors stored as read (0.83..0.998), forwards ln(D_prev / D) / 0.25 bootstrapped "
                                "in the model, MLP 12-64-64-4 ReLU, RMSprop 1e-3 warm-up",
                                std::function<ForwardCurveNet()>([] { return ForwardCurveNet(); }),
                                [] { return DiscountCurves(); }),
          "rmsprop", 1e-3, "warmup", 200);
  p->planted = true;
  p = add(Make<DctTextureNet>("faint_texture_from_raw_pixel_dct_coefficients_dc_first", "texture orientation "
                              "from the 64 zig-zag DCT coefficients of an 8x8 patch of raw 0..255 pixels (no level "
                              "shift: DC 800..1840 first, the texture's AC terms 2..10), stored as read, divided by "
                              "JPEG's quantisation table in the model, BatchNorm, MLP 64-64-64-4 ReLU, AdamW 2e-3 cosine",
                              std::function<DctTextureNet()>([] { return DctTextureNet(); }),
                              [] { return DctPatches(); }),
          "adamw", 2e-3, "cosine", 200);
  p->planted = true;
  p = add(Make<FlowAppNet>("network_app_from_raw_netflow_counters_log1p_in_model", "application (video, "
                           "upload, shell, web) from a NetFlow record's 8 raw counters (bytes up to 3e9, packets, "
                           "milliseconds, flags) stored as exported, log1p in the model, MLP 8-64-64-4 ReLU, SGD "
                           "0.05 momentum warm-up+cosine",
                           std::function<FlowAppNet()>([] { return FlowAppNet(); }), [] { return FlowRecords(); }),
          "momentum", 0.05, "warmup_cosine", 200);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH19_H_
