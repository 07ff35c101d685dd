// The fresh21 group of the validation corpus (validation.cc): 8 programs
// written after corpus.h and the fresh .. fresh20 groups, blind to the
// low-precision rules (neither the rules' code, nor their descriptions, nor
// any prediction was looked at), so that the rules can be measured on
// trainings nobody tuned anything against. What was looked at: corpus.h,
// corpus_fresh20.h and corpus_fresh19.h (for the conventions),
// `lpsim validate --list`'s names and one-line descriptions of every earlier
// program (to avoid repeating an architecture or a breaker's practice),
// validation.cc's group registration (the file's first comment, the
// includes, Group, kGroupNames, Corpus()) and its Train() loop,
// examples/common/training.h (the optimizers and schedules),
// examples/validation/CMakeLists.txt, the target files in targets/ and
// docs/targets.md. Each planted one was designed from what the hardware
// does to numbers, with only its fp32 training and its simulated truth on
// bf16-accelerator looked at, in trial runs of the check's form (fp32 on
// three seeds, bf16-accelerator on one simulated seed; read through a
// filter that prints only the fp32 runs' losses and accuracies and the
// runs' final loss, accuracy and broken). Before the first such run, a
// stand-alone fp32 loop of the same form (Train()'s seeds, data, optimizer
// and schedule, no tracker) was compiled against this header to see the
// programs learn while the harness built.
//
// All 8 ran without throwing and learned in fp32 on every seed (seeds 11,
// 12, 13): the spatial transformer 0.93, 0.92, 0.88 (loss 1.50 to
// 0.30..0.39, chance 0.25); SchNet (MSE on standardised energies, no
// accuracy; predicting the mean: 1.0) 1.14 to 0.075, 0.080, 0.097; RepVGG
// 1.0, 1.0, 1.0 (1.44 to 0.011..0.013); the memory network 1.0, 1.0, 1.0
// (1.80 to 0.0013..0.0015, chance 0.17); the SEC-MALS masses 1.0, 1.0, 1.0
// (1.43 to 0.081..0.100); the chord frequencies 1.0, 1.0, 1.0 (1.40 to
// 0.051..0.068); the gamma spectra 0.98, 0.98, 0.98 (1.45 to
// 0.072..0.085); the emission-line wavelengths 0.99, 0.99, 0.99 (1.37 to
// 0.128..0.142).
// Changed after the first (stand-alone) trial: the spatial transformer
// learned least (0.87, 0.83, 0.78; loss 1.50 to 0.49..0.58) under Adam
// 2e-3 cosine for 250 steps; it now trains with Adam 3e-3 cosine for 300
// steps (then the numbers above). The model and data are unchanged, as are
// the other seven, whose stand-alone numbers the harness's fp32 runs
// matched.
// On bf16-accelerator (one seed) one broke and seven did not: the
// emission-line wavelengths (loss 0.24 against fp32's 0.128..0.142,
// accuracy 0.90 against 0.99), as designed. The SEC-MALS masses (0.081,
// 1.0), the chord frequencies (0.069, 1.0) and the gamma spectra (0.077,
// 0.98), meant not to break on bf16, matched fp32, as did the four healthy
// ones (the spatial transformer 0.91 against 0.93; SchNet 0.075 against
// 0.075; RepVGG 1.0 against 1.0; the memory network 1.0 against 1.0).
//
// Four train fine in fp32 and, by design, on fp8 hardware, on architectures
// no earlier group uses: a spatial transformer network (a localisation CNN
// regressing an affine transform, bilinear grid resampling, then a CNN),
// SchNet (continuous-filter convolutions over radial-basis expansions of
// interparticle distances, shifted softplus, atom-wise sum), RepVGG's
// training-time three-branch blocks (3x3 conv + BN, 1x1 conv + BN, identity
// BN, summed) and an end-to-end memory network (two hops of softmax
// attention over embedded facts); with optimizer and schedule pairs Adam
// 3e-3 cosine, AdamW 2e-3 step decay (an MSE regression), SGD momentum
// 0.05 warm-up+cosine and RMSprop 2e-3 warm-up. RepVGG's bars are
// corpus.h's data set.
//
// Four plant a breaker, each with a practice no other group has (some are
// numerically kin to older kinds: values beyond fp16's range, a block
// scale shared by unlike values, small relative differences of stored
// values; the practice is new), meant to break on different sets of
// targets:
//   - a protein complex's oligomeric state (monomer to tetramer) from
//     SEC-MALS: the complex's mass measured by light scattering and the
//     monomer's sequence mass, in daltons as the instruments report them
//     (15000..60000 for the monomer, up to ~260000 measured), the log mass
//     ratio taken in the model. fp16 (no saturation, max 65504) reads most
//     dimers', trimers' and tetramers' measured masses as inf, so
//     the log ratio and the loss are not finite; bf16 and the scaled fp8
//     formats keep fp32's range (the classes are a factor 4/3 or more
//     apart). A block of 16 (8 rows of two masses) spans monomers of 15000
//     beside tetramers of 240000 (a ratio up to ~16): e2m1 under an nvfp4
//     block scale keeps little below 1/12 of the block's largest. Meant to
//     break on fp16-npu-ftz, b200-nvfp4 at the edge.
//   - a triad's quality (major, minor, diminished, augmented) from the
//     three fundamental frequencies a pitch tracker reports in Hz
//     (110..700, root on the equal-tempered grid, 8 cents of detuning),
//     semitones 12 log2(f / 440) and their intervals taken in the model.
//     The qualities differ by one semitone (6% in frequency) in one
//     interval. e4m3 steps by 1/16..1/8 relative (up to ~1 semitone off per
//     note, and the stored semitones, -24..+8, step by 0.5..2 beyond 4); e2m1
//     by far more; block floating point with a 7-bit mantissa steps by ~8
//     Hz under a block holding 700 Hz (~7%, more than a semitone at 110
//     Hz). bf16 (0.4% relative, 7 cents; the semitones to 1/8) and fp16
//     keep them. Meant to break on the fp8, fp4 and block floating-point
//     targets, not on bf16 or fp16.
//   - faint gamma lines (8..25 counts at their centre, channel 34, 46,
//     both or neither) in 64-channel spectra of raw counts as the
//     multichannel analyser writes them, beside a check source's photopeak
//     at channel 40 (4000..12000 counts) in every spectrum, on a continuum
//     of 5..15 counts; the Anscombe transform 2 sqrt(x + 3/8) taken in the
//     model. The lines share channels 32..47 (a block of 16) and 32..63 (a
//     block of 32) with the photopeak: e2m1 under an nvfp4 block scale
//     keeps nothing below ~1/12 of the peak, block floating point with a
//     7-bit mantissa steps by 32..128 counts there, int8 per tensor by
//     ~47. e4m3 per tensor, per block of 32 or per row of 128 keeps
//     counts down to ~1/10000 of the peak with 3-bit mantissas (the
//     Poisson noise is larger); fp16 and bf16 keep every count. Meant to
//     break on b200-nvfp4, the block floating-point targets and int8-npu
//     only.
//   - a galaxy's recession velocity bin (500..4500 km/s by 1000) from the
//     observed wavelengths of four emission lines (H-beta, [O III], H-alpha,
//     [N II]; 4861..6620 angstroms) as the line fitter reports them, each
//     line's redshift lambda / lambda_0 - 1 taken in the model. A bin is
//     16..22 angstroms of shift. bf16 steps by 32 angstroms between 4096
//     and 8192 (each line off by up to ~700..1000 km/s), e4m3 and e2m1 by
//     far more, block floating point with a 7-bit mantissa by 64; fp16
//     (4 angstroms: ~100 km/s) keeps most. Meant to break on bf16, fp8,
//     fp4 and block floating point, fp16 at the edge.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
// Brushes with rule material, none of which changed a design:
// examples/validation/CMakeLists.txt (read for the registration) names
// rules lp_forward_loss and lp_rollout and their settings (log_scale,
// max_gain_share, at_once_start_share) in its comments and regexes, and
// corpus_fresh20.h's header (read for the conventions) says that a
// healthy Transformer-XL once drew lp_rollout on 7 targets. Nothing here
// was designed after that. Grepping validation.cc for the registration
// printed only lines outside its group comment. Nothing else (no rule
// code, description, commit message or prediction) was seen.
//
//   for (const Program& p : Fresh21Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH21_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH21_H_

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

// 16x16 images of one of 4 glyphs of 5x5 (a plus, a hollow square, an X, a
// T) at a random place (top-left corner 0..11 each way), amplitude 0.8..1.2,
// on N(0, 0.3) noise.
inline Data PlacedGlyphs(int64_t n = 2048) {
  torch::Tensor glyphs = torch::zeros({4, 5, 5});
  glyphs[0].select(0, 2).fill_(1);  // plus
  glyphs[0].select(1, 2).fill_(1);
  for (int64_t e : {0, 4}) {  // hollow square
    glyphs[1].select(0, e).fill_(1);
    glyphs[1].select(1, e).fill_(1);
  }
  for (int64_t i = 0; i < 5; ++i) {  // X
    glyphs[2][i][i] = 1;
    glyphs[2][i][4 - i] = 1;
  }
  glyphs[3].select(0, 0).fill_(1);  // T
  glyphs[3].select(1, 2).fill_(1);
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = 0.3 * torch::randn({n, 1, 16, 16});
  torch::Tensor at = torch::randint(0, 12, {n, 2}, torch::kLong);
  torch::Tensor amp = 0.8 + 0.4 * torch::rand({n});
  auto ya = y.accessor<int64_t, 1>();
  auto aa = at.accessor<int64_t, 2>();
  auto ma = amp.accessor<float, 1>();
  for (int64_t i = 0; i < n; ++i) {
    x[i][0].slice(0, aa[i][0], aa[i][0] + 5).slice(1, aa[i][1], aa[i][1] + 5).add_(ma[i] * glyphs[ya[i]]);
  }
  return {x, y};
}

// Clusters of 8 particles of two species uniform in a 3x3 box; the target
// is the cluster's energy under a Morse pair potential (a 1.5, r_e 1, depth
// 1, 1.5 or 2 by the pair's species), standardised over the set. Inputs [N,
// 8, 3] (x, y, species 0/1), targets [N, 1]. Computed in double.
inline Data MorseClusters(int64_t n = 2048, int64_t k = 8) {
  torch::Tensor pos = 3.0 * torch::rand({n, k, 2}, torch::kDouble);
  torch::Tensor sp = torch::randint(0, 2, {n, k}, torch::kLong).to(torch::kDouble);
  torch::Tensor r = (pos.unsqueeze(2) - pos.unsqueeze(1)).pow(2).sum(-1).sqrt();
  torch::Tensor depth = 1 + 0.5 * (sp.unsqueeze(2) + sp.unsqueeze(1));
  torch::Tensor pair = depth * (torch::exp(-3.0 * (r - 1)) - 2 * torch::exp(-1.5 * (r - 1)));
  torch::Tensor off = 1 - torch::eye(k, torch::kDouble);
  torch::Tensor e = 0.5 * (pair * off).sum({1, 2});
  e = (e - e.mean()) / e.std();
  return {torch::cat({pos, sp.unsqueeze(2)}, 2).to(torch::kFloat), e.unsqueeze(1).to(torch::kFloat)};
}

// Stories of 6 facts "entity e is at location l" (6 distinct entities of 12,
// locations of 6 drawn freely) and a question naming one of the story's
// entities; the class is its location. Bag-of-words rows over a vocabulary
// of 18 (12 entities, then 6 locations): [N, 7, 18], the question last.
inline Data FactStories(int64_t n = 2048) {
  torch::Tensor x = torch::zeros({n, 7, 18});
  torch::Tensor y = torch::empty({n}, torch::kLong);
  torch::Tensor locs = torch::randint(0, 6, {n, 6}, torch::kLong);
  torch::Tensor q = torch::randint(0, 6, {n}, torch::kLong);
  auto la = locs.accessor<int64_t, 2>();
  auto qa = q.accessor<int64_t, 1>();
  auto xa = x.accessor<float, 3>();
  auto ya = y.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    torch::Tensor who = torch::randperm(12, torch::kLong);
    auto wa = who.accessor<int64_t, 1>();
    for (int64_t j = 0; j < 6; ++j) {
      xa[i][j][wa[j]] = 1;
      xa[i][j][12 + la[i][j]] = 1;
    }
    xa[i][6][wa[qa[i]]] = 1;
    ya[i] = la[i][qa[i]];
  }
  return {x, y};
}

// Size-exclusion chromatography with light scattering (SEC-MALS) of protein
// complexes: the monomer's mass from its sequence (15000..60000 Da) and the
// complex's mass measured by light scattering (the oligomeric state times
// the monomer's, 6% measurement error), both in daltons as the instruments
// report them, [N, 2]. The class is the state: monomer, dimer, trimer,
// tetramer (so the measured mass is 14000..260000 Da). Computed in double.
inline Data SecMalsMasses(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor mono = 15000.0 + 45000.0 * torch::rand({n}, torch::kDouble);
  torch::Tensor measured = mono * (y.to(torch::kDouble) + 1) * (1 + 0.06 * torch::randn({n}, torch::kDouble));
  return {torch::stack({measured, mono}, 1).to(torch::kFloat), y};
}

// Triads played on a slightly detuned instrument, as a pitch tracker reports
// them: the 3 fundamental frequencies in Hz, [N, 3], root to fifth. The root
// on the equal-tempered grid from A2 (110 Hz) to A4 (440 Hz), the third and
// fifth at the class's intervals (major 4 + 3 semitones, minor 3 + 4,
// diminished 3 + 3, augmented 4 + 4), each note detuned by N(0, 8 cents).
inline Data TriadFrequencies(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor lower = 3.0 + torch::logical_or(y == 0, y == 3).to(torch::kDouble);  // semitones root to third
  torch::Tensor upper = 3.0 + torch::logical_or(y == 1, y == 3).to(torch::kDouble);  // third to fifth
  torch::Tensor root = torch::randint(-24, 1, {n}, torch::kLong).to(torch::kDouble);  // semitones from A4
  torch::Tensor semis = torch::stack({root, root + lower, root + lower + upper}, 1) +
                        0.08 * torch::randn({n, 3}, torch::kDouble);
  return {(440.0 * torch::pow(2.0, semis / 12.0)).to(torch::kFloat), y};
}

// 64-channel gamma spectra in raw counts per channel as the multichannel
// analyser writes them, [N, 1, 64]: a check source's photopeak at channel
// 40 on every spectrum (4000..12000 counts at its centre, sigma 0.8
// channels), a falling continuum (5..15 counts at channel 0, halving every
// ~64 channels), and the sample's faint lines (8..25 counts at the centre,
// sigma 1.2) at channel 34 (class 1), 46 (class 2), both (3) or neither (0).
// Poisson counts.
inline Data CheckSourceSpectra(int64_t n = 2048) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor ch = torch::arange(64, torch::kFloat).unsqueeze(0);
  auto u = [n](double lo, double hi) { return lo + (hi - lo) * torch::rand({n, 1}); };
  auto line = [&ch](double at, double sigma) { return torch::exp(-(ch - at).pow(2) / (2 * sigma * sigma)); };
  torch::Tensor has34 = torch::logical_or(y == 1, y == 3).to(torch::kFloat).unsqueeze(1);
  torch::Tensor has46 = torch::logical_or(y == 2, y == 3).to(torch::kFloat).unsqueeze(1);
  torch::Tensor rate = u(5, 15) * torch::exp(-0.011 * ch) + u(4000, 12000) * line(40, 0.8) +
                       has34 * u(8, 25) * line(34, 1.2) + has46 * u(8, 25) * line(46, 1.2);
  return {torch::poisson(rate).unsqueeze(1), y};
}

// Emission-line galaxies receding at 500..4500 km/s (the class: which 1000
// km/s bin), their H-beta, [O III] 5007, H-alpha and [N II] 6583 lines
// observed at lambda_0 (1 + v / c) + N(0, 0.25 A), in angstroms as the line
// fitter reports them, [N, 4]. Computed in double.
inline Data LineWavelengths(int64_t n = 2048) {
  torch::Tensor v = 500.0 + 4000.0 * torch::rand({n, 1}, torch::kDouble);
  torch::Tensor y = ((v.squeeze(1) - 500.0) / 1000.0).floor().clamp(0, 3).to(torch::kLong);
  torch::Tensor rest = torch::tensor({4861.33, 5006.84, 6562.80, 6583.45}, torch::kDouble).unsqueeze(0);
  torch::Tensor obs = rest * (1 + v / 299792.458) + 0.25 * torch::randn({n, 4}, torch::kDouble);
  return {obs.to(torch::kFloat), y};
}

// --- healthy models -------------------------------------------------------------

// Spatial transformer network (Jaderberg et al. 2015): a localisation net
// (conv 3x3 8, pool, conv 3x3 16, pool, Linear 256-32, Linear 32-6
// initialised to the identity transform) gives an affine theta per image,
// the image is resampled on theta's grid (bilinear), then a classifier: conv
// 3x3 16 + BN + ReLU, pool, conv 3x3 32 + BN + ReLU, global average pooling,
// a linear layer.
struct SpatialTransformerNetImpl : nn::Module {
  explicit SpatialTransformerNetImpl(int64_t classes) {
    l1 = register_module("l1", nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)));
    l2 = register_module("l2", nn::Conv2d(nn::Conv2dOptions(8, 16, 3).padding(1)));
    lfc = register_module("lfc", nn::Linear(256, 32));
    ltheta = register_module("ltheta", nn::Linear(32, 6));
    {
      torch::NoGradGuard g;
      ltheta->weight.zero_();
      ltheta->bias.copy_(torch::tensor({1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f}));
    }
    c1 = register_module("c1", nn::Conv2d(nn::Conv2dOptions(1, 16, 3).padding(1)));
    bn1 = register_module("bn1", nn::BatchNorm2d(16));
    c2 = register_module("c2", nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)));
    bn2 = register_module("bn2", nn::BatchNorm2d(32));
    head = register_module("head", nn::Linear(32, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 1, 16, 16]
    const int64_t n = x.size(0);
    torch::Tensor l = torch::relu(torch::max_pool2d(l1->forward(x), 2));
    l = Tap("loc.conv2", torch::relu(torch::max_pool2d(l2->forward(l), 2)), "ReLU");
    l = Tap("loc.fc", torch::relu(lfc->forward(l.flatten(1))), "ReLU");
    torch::Tensor theta = Tap("loc.theta", ltheta->forward(l).view({n, 2, 3}), "Linear");
    torch::Tensor grid = nn::functional::affine_grid(theta, {n, 1, 16, 16}, false);
    torch::Tensor xs = Tap("stn.resampled", nn::functional::grid_sample(x, grid, nn::functional::GridSampleFuncOptions()
                                                                                     .mode(torch::kBilinear)
                                                                                     .padding_mode(torch::kZeros)
                                                                                     .align_corners(false)),
                           "GridSample");
    torch::Tensor h = Tap("c1.relu", torch::relu(bn1->forward(c1->forward(xs))), "ReLU");
    h = Tap("c2.relu", torch::relu(bn2->forward(c2->forward(torch::max_pool2d(h, 2)))), "ReLU");
    return head->forward(h.mean({2, 3}));
  }
  nn::Conv2d l1{nullptr}, l2{nullptr}, c1{nullptr}, c2{nullptr};
  nn::Linear lfc{nullptr}, ltheta{nullptr}, head{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
};
TORCH_MODULE(SpatialTransformerNet);

// SchNet (Schuett et al. 2017): species embeddings (32), interatomic
// distances expanded in 24 Gaussian radial basis functions (centres 0..4.5,
// gamma 4) under a cosine cutoff at 5, two interaction blocks of
// continuous-filter convolutions (filter network 24-32-32 with shifted
// softplus, atom-wise 32-32 in, 32-32-32 out, residual), an atom-wise
// 32-16-1 output summed over the atoms.
struct SchNetImpl : nn::Module {
  SchNetImpl() {
    embed = register_module("embed", nn::Embedding(2, 32));
    mu = register_buffer("mu", torch::linspace(0, 4.5, 24));
    for (int b = 0; b < 2; ++b) {
      const std::string s = std::to_string(b + 1);
      f1.push_back(register_module("filter" + s + "a", nn::Linear(24, 32)));
      f2.push_back(register_module("filter" + s + "b", nn::Linear(32, 32)));
      in.push_back(register_module("in" + s, nn::Linear(nn::LinearOptions(32, 32).bias(false))));
      o1.push_back(register_module("out" + s + "a", nn::Linear(32, 32)));
      o2.push_back(register_module("out" + s + "b", nn::Linear(32, 32)));
    }
    r1 = register_module("r1", nn::Linear(32, 16));
    r2 = register_module("r2", nn::Linear(16, 1));
  }
  static torch::Tensor Ssp(const torch::Tensor& x) { return torch::softplus(x) - std::log(2.0); }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, K, 3]: x, y, species
    const int64_t k = x.size(1);
    torch::Tensor pos = x.slice(2, 0, 2);
    torch::Tensor d = (pos.unsqueeze(2) - pos.unsqueeze(1)).pow(2).sum(-1).clamp_min(1e-12).sqrt();  // [N, K, K]
    torch::Tensor rbf = Tap("schnet.rbf", torch::exp(-4.0 * (d.unsqueeze(-1) - mu).pow(2)), "Exp");
    torch::Tensor cut = 0.5 * (torch::cos(M_PI * d / 5.0) + 1) * (1 - torch::eye(k));
    torch::Tensor h = embed->forward(x.select(2, 2).round().to(torch::kLong));
    for (size_t b = 0; b < f1.size(); ++b) {
      const std::string s = "schnet.interaction" + std::to_string(b + 1);
      torch::Tensor w = Tap(s + ".filter", f2[b]->forward(Ssp(f1[b]->forward(rbf))), "Linear") * cut.unsqueeze(-1);
      torch::Tensor conv = Tap(s + ".cfconv", (w * in[b]->forward(h).unsqueeze(1)).sum(2), "Sum");
      h = Tap(s + ".out", h + o2[b]->forward(Ssp(o1[b]->forward(conv))), "Add");
    }
    return r2->forward(Ssp(r1->forward(h))).sum(1);
  }
  nn::Embedding embed{nullptr};
  torch::Tensor mu;
  std::vector<nn::Linear> f1, f2, in, o1, o2;
  nn::Linear r1{nullptr}, r2{nullptr};
};
TORCH_MODULE(SchNet);

// RepVGG block (Ding et al. 2021), training-time form: a 3x3 conv + BN, a
// 1x1 conv + BN and (same shape) an identity BN branch, summed, ReLU.
struct RepVggBlockImpl : nn::Module {
  RepVggBlockImpl(int64_t in, int64_t out, int64_t stride, const std::string& name) : name_(name) {
    c3 = register_module("c3", nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
    b3 = register_module("b3", nn::BatchNorm2d(out));
    c1 = register_module("c1", nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
    b1 = register_module("b1", nn::BatchNorm2d(out));
    if (in == out && stride == 1) bid = register_module("bid", nn::BatchNorm2d(out));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor s = b3->forward(c3->forward(x)) + b1->forward(c1->forward(x));
    if (bid) s = s + bid->forward(x);
    return Tap(name_ + ".relu", torch::relu(s), "ReLU");
  }
  std::string name_;
  nn::Conv2d c3{nullptr}, c1{nullptr};
  nn::BatchNorm2d b3{nullptr}, b1{nullptr}, bid{nullptr};
};
TORCH_MODULE(RepVggBlock);

// RepVGG on 1x12x12: blocks 1 -> 16, 16 -> 16, 16 -> 32 (stride 2), 32 ->
// 32, global average pooling, a linear classifier.
struct RepVggImpl : nn::Module {
  explicit RepVggImpl(int64_t classes) {
    s1 = register_module("s1", RepVggBlock(1, 16, 1, "stage1.block1"));
    s2 = register_module("s2", RepVggBlock(16, 16, 1, "stage1.block2"));
    s3 = register_module("s3", RepVggBlock(16, 32, 2, "stage2.block1"));
    s4 = register_module("s4", RepVggBlock(32, 32, 1, "stage2.block2"));
    head = register_module("head", nn::Linear(32, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = s4->forward(s3->forward(s2->forward(s1->forward(x))));
    return head->forward(h.mean({2, 3}));
  }
  RepVggBlock s1{nullptr}, s2{nullptr}, s3{nullptr}, s4{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(RepVgg);

// End-to-end memory network (Sukhbaatar et al. 2015): facts embedded as
// memories by A (keys) and C (values), the question by B (d 32, bags of
// words, no bias), two hops of u <- H u + sum_i softmax(m_i . u) c_i (A, C
// shared across hops), a linear answer layer.
struct MemN2NImpl : nn::Module {
  MemN2NImpl(int64_t vocab, int64_t answers) {
    a = register_module("a", nn::Linear(nn::LinearOptions(vocab, 32).bias(false)));
    b = register_module("b", nn::Linear(nn::LinearOptions(vocab, 32).bias(false)));
    c = register_module("c", nn::Linear(nn::LinearOptions(vocab, 32).bias(false)));
    h = register_module("h", nn::Linear(nn::LinearOptions(32, 32).bias(false)));
    w = register_module("w", nn::Linear(32, answers));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, facts + 1, vocab], the question last
    const int64_t f = x.size(1) - 1;
    torch::Tensor facts = x.slice(1, 0, f);
    torch::Tensor m = Tap("memory.keys", a->forward(facts), "Linear");
    torch::Tensor v = Tap("memory.values", c->forward(facts), "Linear");
    torch::Tensor u = Tap("question", b->forward(x.select(1, f)), "Linear");
    for (int hop = 1; hop <= 2; ++hop) {
      const std::string s = "hop" + std::to_string(hop);
      torch::Tensor p = Tap(s + ".attention", torch::softmax((m * u.unsqueeze(1)).sum(2), 1), "Softmax");
      u = Tap(s + ".state", h->forward(u) + (p.unsqueeze(2) * v).sum(1), "Add");
    }
    return w->forward(u);
  }
  nn::Linear a{nullptr}, b{nullptr}, c{nullptr}, h{nullptr}, w{nullptr};
};
TORCH_MODULE(MemN2N);

// --- planted models -------------------------------------------------------------

// Oligomeric state from the SEC-MALS masses ("secmals.mass_da", stored as
// reported, daltons): log2 of the measured-to-monomer ratio and the
// monomer's log10 mass taken in the model ("secmals.log_features",
// stored), MLP 2-32-32-4 ReLU.
struct OligomerNetImpl : nn::Module {
  OligomerNetImpl() {
    fc1 = register_module("fc1", nn::Linear(2, 32));
    fc2 = register_module("fc2", nn::Linear(32, 32));
    out = register_module("out", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor mass = Tap("secmals.mass_da", x, "Input");
    torch::Tensor measured = mass.select(1, 0), mono = mass.select(1, 1);
    torch::Tensor f = torch::stack({torch::log2(measured) - torch::log2(mono), torch::log10(mono) - 4.5}, 1);
    f = Tap("secmals.log_features", f, "Log");
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward(f)), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(OligomerNet);

// Chord quality from the triad's frequencies ("chord.frequency_hz", stored
// as reported): semitones from A4, 12 log2(f / 440), taken in the model
// ("chord.semitones", stored), the three intervals between the notes, MLP
// 3-32-32-4 ReLU.
struct TriadQualityNetImpl : nn::Module {
  TriadQualityNetImpl() {
    fc1 = register_module("fc1", nn::Linear(3, 32));
    fc2 = register_module("fc2", nn::Linear(32, 32));
    out = register_module("out", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor f = Tap("chord.frequency_hz", x, "Input");
    torch::Tensor s = Tap("chord.semitones", 12.0 * torch::log2(f / 440.0), "Log");
    torch::Tensor s0 = s.select(1, 0), s1 = s.select(1, 1), s2 = s.select(1, 2);
    torch::Tensor iv = torch::stack({s1 - s0, s2 - s1, s2 - s0}, 1) - torch::tensor({3.5f, 3.5f, 7.0f});
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward(iv)), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(TriadQualityNet);

// Faint lines from the raw spectrum ("mca.counts", stored as written): the
// Anscombe transform 2 sqrt(x + 3/8) taken in the model ("mca.anscombe",
// stored), Conv1d 5 16 + BN + ReLU, max pool 2, Conv1d 5 32 + BN + ReLU,
// max pool 2, a linear classifier over the 16 positions.
struct SpectrumLineNetImpl : nn::Module {
  SpectrumLineNetImpl() {
    c1 = register_module("c1", nn::Conv1d(nn::Conv1dOptions(1, 16, 5).padding(2)));
    bn1 = register_module("bn1", nn::BatchNorm1d(16));
    c2 = register_module("c2", nn::Conv1d(nn::Conv1dOptions(16, 32, 5).padding(2)));
    bn2 = register_module("bn2", nn::BatchNorm1d(32));
    head = register_module("head", nn::Linear(32 * 16, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {  // [N, 1, 64]
    torch::Tensor counts = Tap("mca.counts", x, "Input");
    torch::Tensor a = Tap("mca.anscombe", 2.0 * torch::sqrt(counts + 0.375), "Sqrt");
    torch::Tensor h = Tap("c1.relu", torch::relu(bn1->forward(c1->forward(a))), "ReLU");
    h = Tap("c2.relu", torch::relu(bn2->forward(c2->forward(torch::max_pool1d(h, 2)))), "ReLU");
    return head->forward(torch::max_pool1d(h, 2).flatten(1));
  }
  nn::Conv1d c1{nullptr}, c2{nullptr};
  nn::BatchNorm1d bn1{nullptr}, bn2{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(SpectrumLineNet);

// Recession velocity from the observed lines ("spectrum.wavelength_a",
// stored as reported, angstroms): each line's redshift lambda / lambda_0 - 1
// taken in the model ("spectrum.line_redshifts", stored), as c z in 1000
// km/s, centred, MLP 4-32-32-4 ReLU.
struct RedshiftBinNetImpl : nn::Module {
  RedshiftBinNetImpl() {
    rest = register_buffer("rest", torch::tensor({4861.33f, 5006.84f, 6562.80f, 6583.45f}));
    fc1 = register_module("fc1", nn::Linear(4, 32));
    fc2 = register_module("fc2", nn::Linear(32, 32));
    out = register_module("out", nn::Linear(32, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor lambda = Tap("spectrum.wavelength_a", x, "Input");
    torch::Tensor z = Tap("spectrum.line_redshifts", lambda / rest - 1, "Div");
    torch::Tensor v = (299.792458 * z - 2.5) / 1.2;
    torch::Tensor h = Tap("fc1.relu", torch::relu(fc1->forward(v)), "ReLU");
    return out->forward(Tap("fc2.relu", torch::relu(fc2->forward(h)), "ReLU"));
  }
  torch::Tensor rest;
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(RedshiftBinNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh21Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<SpatialTransformerNet>("spatial_transformer_affine_localisation_placed_glyphs_adam_cosine", "spatial "
                                  "transformer network: a localisation CNN (8, 16, Linear 256-32-6 initialised to "
                                  "the identity) gives an affine theta, bilinear resampling on its grid, then a CNN "
                                  "16-32 with BatchNorm and global average pooling; 5x5 glyphs placed anywhere in "
                                  "16x16 noise, Adam 3e-3 cosine",
                                  std::function<SpatialTransformerNet()>([] { return SpatialTransformerNet(4); }),
                                  [] { return PlacedGlyphs(); }),
      "adam", 3e-3, "cosine", 300);
  add(Make<SchNet>("schnet_continuous_filter_convolutions_morse_cluster_energy_adamw_step", "SchNet: species "
                   "embeddings, 24 Gaussian radial basis functions of the distances under a cosine cutoff, two "
                   "interaction blocks of continuous-filter convolutions with shifted softplus, atom-wise output "
                   "summed; standardised Morse energies of 8-particle 2-d clusters of two species, MSE, AdamW 2e-3 "
                   "step decay",
                   std::function<SchNet()>([] { return SchNet(); }), [] { return MorseClusters(); }),
      "adamw", 2e-3, "step", 250)->loss = Loss::kMse;
  add(Make<RepVgg>("repvgg_three_branch_blocks_bars_momentum_warmup_cosine", "RepVGG (training-time form): four "
                   "blocks of summed 3x3 conv + BN, 1x1 conv + BN and identity BN branches with ReLU (16, 16, 32 "
                   "stride 2, 32), global average pooling; bars 12x12, SGD momentum 0.05 warm-up+cosine",
                   std::function<RepVgg()>([] { return RepVgg(4); }), [] { return Bars(); }),
      "momentum", 0.05, "warmup_cosine", 200);
  add(Make<MemN2N>("end_to_end_memory_network_two_hops_fact_stories_rmsprop_warmup", "end-to-end memory network: "
                   "bag-of-words facts embedded as keys and values (d 32), the question as the state, two hops of "
                   "softmax attention over 6 memories with a linear state map, a linear answer; where an entity "
                   "is among 6 facts, RMSprop 2e-3 warm-up",
                   std::function<MemN2N()>([] { return MemN2N(18, 6); }), [] { return FactStories(); }),
      "rmsprop", 2e-3, "warmup", 250);

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware with a practice no other group has.
  Program* p = add(Make<OligomerNet>("oligomeric_state_from_sec_mals_masses_in_daltons", "oligomeric state "
                                     "(monomer to tetramer) from SEC-MALS: the measured complex mass and the "
                                     "sequence's monomer mass in daltons (15000..260000) stored as reported, the "
                                     "log mass ratio taken in the model, MLP 2-32-32-4 ReLU, Adam 3e-3 warm-up",
                                     std::function<OligomerNet()>([] { return OligomerNet(); }),
                                     [] { return SecMalsMasses(); }),
                   "adam", 3e-3, "warmup", 200);
  p->planted = true;
  p = add(Make<TriadQualityNet>("chord_quality_from_stored_note_frequencies_in_hz", "chord quality (major, minor, "
                                "diminished, augmented) from a triad's three pitch-tracked frequencies in Hz "
                                "(110..700) stored as reported, semitones 12 log2(f / 440) and their intervals "
                                "taken in the model, MLP 3-32-32-4 ReLU, RMSprop 1e-3 cosine",
                                std::function<TriadQualityNet()>([] { return TriadQualityNet(); }),
                                [] { return TriadFrequencies(); }),
          "rmsprop", 1e-3, "cosine", 200);
  p->planted = true;
  p = add(Make<SpectrumLineNet>("gamma_spectrum_faint_lines_beside_check_source_peak_raw_counts_anscombe",
                                "faint gamma lines (channel 34, 46, both, neither; 8..25 counts) beside a check "
                                "source's photopeak (4000..12000 counts at channel 40) in 64-channel spectra of "
                                "raw counts stored as written, Anscombe transform in the model, Conv1d 16-32 with "
                                "BatchNorm, AdamW 2e-3 cosine",
                                std::function<SpectrumLineNet()>([] { return SpectrumLineNet(); }),
                                [] { return CheckSourceSpectra(); }),
          "adamw", 2e-3, "cosine", 250);
  p->planted = true;
  p = add(Make<RedshiftBinNet>("recession_velocity_from_emission_line_wavelengths_in_angstrom", "recession "
                               "velocity bin (500..4500 km/s by 1000) from four emission lines' observed "
                               "wavelengths in angstroms (4861..6620) stored as reported, each line's redshift "
                               "lambda / lambda_0 - 1 taken in the model, MLP 4-32-32-4 ReLU, Adam 2e-3",
                               std::function<RedshiftBinNet()>([] { return RedshiftBinNet(); }),
                               [] { return LineWavelengths(); }),
          "adam", 2e-3, "constant", 200);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH21_H_
