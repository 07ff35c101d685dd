// The low-precision rules' ground truth: does "this training breaks on that
// hardware", predicted from one fp32 run, hold when the training is simulated
// on the hardware?
//
// For every program of the corpus (corpus.h and one corpus_fresh*.h per later
// group, kGroupSources: MLPs, CNNs, small transformers, residual nets,
// embedding models, an MLP-Mixer, autoencoders, Conv1d nets, gated recurrent
// nets, an LSTM, SwiGLU units, DeepSets, a mixture of experts, HMMs, a graph
// convolutional network, depthwise-separable and squeeze-and-excitation
// CNNs, a gated TCN, a highway net, Perceiver latents, an RBF network, a
// U-Net, a FiLM-conditioned MLP, a diagonal linear recurrence, ResNeXt and
// Inception CNNs, an FT-Transformer, a diffusion noise-prediction MLP, a
// Poincare-ball classifier, a Switch mixture of experts, a soft decision
// tree, a spiking network, a capsule network, a gMLP, a weight-normalised
// MLP, an RK4 neural ODE, a Deep & Cross network, a Fourier neural operator,
// a linear-attention language model, a reversible stack, a closed-form ridge
// head, a Sinkhorn transport loss, a hypernetwork, a Set Transformer, a
// DenseNet block, a graph attention network, a Kolmogorov-Arnold network, a
// neural additive model, ConvNeXt-style blocks, a SIREN, a rotary-embedding
// decoder, MobileNetV2 blocks, a triplet embedding, a VAE, a mixture density
// network, a bidirectional GRU, a PointNet, an IRNN, a binarised MLP, an
// ALiBi decoder, an FNet, a MADE, a linear-chain CRF, a pointer network, a
// RealNVP flow, a graph isomorphism network, a Bayes-by-Backprop MLP, an
// early-exit net, a modern Hopfield layer, a TabNet-style feature selector,
// Barlow Twins, a p4 group-equivariant CNN, Mixture-of-Depths, a conditional
// neural process, a pinhole camera model, a Mamba-style selective scan, a
// deep ensemble, a QRNN, an Attention-Free Transformer, a maxout network,
// random Fourier features, a Graphormer-style graph transformer, Gaussian
// discriminant analysis, parametric t-SNE, a logQ-corrected two-tower
// recommender, a binary tree LSTM, a Legendre memory unit, an
// E(n)-equivariant GNN, a neural cellular automaton, a DeepONet, a Clockwork
// RNN, CoordConv, a closed-form continuous-time cell, a GhostNet, a SincNet,
// a Monarch-matrix MLP, a gated graph neural network, a Performer (FAVOR+
// attention), a Res2Net, a Neural Turing Machine read head, an
// interpretable N-BEATS, a Fastformer (additive attention), an SKNet
// (selective-kernel convolutions), an RWKV-4, an ESPCN (sub-pixel
// super-resolution), a ReZero transformer, a self-normalising (SELU)
// network, a CBAM CNN, a lambda layer, a HyperMixer, a FractalNet, an
// sLSTM (xLSTM), Longformer-style sliding-window attention, a Differential
// Transformer, an mLSTM (xLSTM), a PonderNet, a Gabor-parameterised CNN, a
// Fixup residual MLP, a hierarchical softmax, a CaiT-style class-attention
// transformer, a CORAL ordinal CNN;
// Adam, AdamW, SGD, RMSprop; warm-up and decay; dropout, weight decay,
// BatchNorm, LayerNorm; planted breakers and programs that train fine):
//   1. train once in fp32 with a Tracker (default options): the loss and
//      accuracy of fp32, and the run database (every tensor record);
//   2. per built-in training target: the prediction is the first lp_* warning
//      or error the rules raise on the stored run judged on the target
//      (report/stored_check.h, the function `lpsim check RUN --target T`
//      runs): its records in the target's formats, and the fp32 run's probes
//      of the target (TrackerOptions::probe: every
//      8 steps the step's loss with weights and activations as the target
//      stores them; lp_forward_loss) and rollouts (probe_rollout: every 16
//      steps, 8 steps of training on the step's batch as simulate mode
//      trains on the target; lp_rollout);
//   3. per target: the truth is the same program trained in simulate mode on
//      the target (every role stored as the target stores it): broken when
//      the loss becomes non-finite, or ends worse than fp32 by more than
//      kLossTolerance of fp32's improvement (linear or log scale, the
//      tighter: truth.h Bound), or (classification) its accuracy
//      ends more than kAccuracyTolerance below fp32's; "fp32" being the worst
//      of g_fp32_seeds fp32 runs that differ in the model's seed (fp32's own
//      run-to-run spread is no hardware break); the target trains with
//      g_sim_seeds seeds alike, each run judged so, and the training breaks
//      on it when most of them break (truth.h: Judge, Combine).
// Per target: the confusion matrix, precision and recall of the prediction,
// and the median lead time (break step - first prediction step).
//
//   lpsim_validation --list
//   lpsim_validation --groups               # each group: name, programs, planted breakers
//   lpsim_validation --table [--json] [--programs a,b] [--targets t1,t2] [--root DIR]
//   lpsim_validation mlp_clusters_adam      # one program, per target in full
//   lpsim_validation --truth earlier.json   # truths from an earlier --json run
//   lpsim_validation --truth seen.json,fresh.json   # or from several, merged
//   lpsim_validation --truth truths.json --list      # the truths cover every program on every target
//   lpsim_validation --save-truths truths.json       # also write the truths alone (what --truth reads)
//   lpsim_validation --fp32-seeds 1         # truths against the tracked fp32 run alone (default 3 seeds)
//   lpsim_validation --sim-seeds 1          # one simulated run per target (default 3 seeds, by majority)
//   lpsim_validation --no-probe             # the records' rules alone (no probes, no rollouts)
//   lpsim_validation --rules my_rules.json  # predictions with these lp_* settings (lpsim check --rules)
//   lpsim_validation --truth truths.json --rejudge --rules my_rules.json   # no training (below)
//   lpsim_validation --jobs 1              # judge the targets in one thread (default: the cores)
//   lpsim_validation --truth truths.json --jobs 2   # train in 2 processes (default: one; same JSON)
//   lpsim_validation --probe-every 4        # probes every 4 steps (default 8)
//   lpsim_validation --rollout 0            # no rollouts (default 8 steps
//   lpsim_validation --rollout-every 32     #   every 16)
//
// --truth skips step 3: the simulated truths come from an earlier `--json`
// output, so tuning a rule costs the fp32 runs only (543 s for 128
// programs, probes and rollouts included). The truths depend on the corpus and on
// simulate mode, not on the rules: rerun without --truth when either changes,
// with --save-truths examples/validation/truths.json, the corpus's truths
// that the repository keeps (one run per line, as --json has them).
// --rejudge skips step 1 as well: each fp32 run is read back from --root,
// where an earlier run left its database and its note (ROOT/PROGRAM/
// fp32.validation.json: the loss and accuracy per step, and how it was
// probed), so a rule change (--rules) costs the checks alone and gives the
// table a full --truth run gives, cell for cell. A run probed otherwise
// (other targets, --probe-every, --rollout) is refused, not judged.
//
// The corpus is split in thirty-six groups: Programs() (corpus.h) in two halves,
// `tune` (even positions) and `holdout` (odd); `fresh`, FreshPrograms()
// (corpus_fresh.h), written after the rules' thresholds were set;
// `fresh2`, Fresh2Programs() (corpus_fresh2.h), written after fresh, too,
// had been used to change the rules; and `fresh3`, Fresh3Programs()
// (corpus_fresh3.h), written after fresh2 had been used as well; and
// `fresh4`, Fresh4Programs() (corpus_fresh4.h), written blind to the rules'
// predictions after fresh3; `fresh5`, Fresh5Programs()
// (corpus_fresh5.h), written blind to them after fresh4; `fresh6`,
// Fresh6Programs() (corpus_fresh6.h), written blind to them after fresh5;
// `fresh7`, Fresh7Programs() (corpus_fresh7.h), written blind to them
// after fresh6; `fresh8`, Fresh8Programs() (corpus_fresh8.h), written
// blind to them after fresh7; `fresh9`, Fresh9Programs()
// (corpus_fresh9.h), written blind to them after fresh8; `fresh10`,
// Fresh10Programs() (corpus_fresh10.h), written blind to them after
// fresh9; `fresh11`, Fresh11Programs() (corpus_fresh11.h), written
// blind to them after fresh10; `fresh12`, Fresh12Programs()
// (corpus_fresh12.h), written blind to them after fresh11; `fresh13`,
// Fresh13Programs() (corpus_fresh13.h), written blind to them after
// fresh12; `fresh14`, Fresh14Programs() (corpus_fresh14.h), written
// blind to them after fresh13; and `fresh15`, Fresh15Programs()
// (corpus_fresh15.h), written blind to them after fresh14, judged once
// unseen and seen since lp_rollout's stalls (their gate was chosen with
// its counts in view); `fresh16`, Fresh16Programs() (corpus_fresh16.h,
// 8 programs), written blind to them after the stalls had landed and
// judged once, unseen, the check of that change; and `fresh17`,
// Fresh17Programs() (corpus_fresh17.h, 8 programs), written blind to them
// after fresh16 and judged once, unseen, with the rules as they were
// (precision and recall 0.97), then the check of lp_forward_loss's
// allowance of 0.3 (no cell moved); and `fresh18`, Fresh18Programs()
// (corpus_fresh18.h, 8 programs), written blind to them after fresh17
// and judged once, unseen, with the allowance of 0.3 (precision 0.74,
// recall 0.97: a healthy Transformer-XL drew lp_rollout on 7 targets),
// which showed lp_rollout's at_once_start_share; and `fresh19`,
// Fresh19Programs() (corpus_fresh19.h, 8 programs), written blind to them
// after that change had landed and judged once, unseen, its check
// (precision 0.75, recall 0.96; no cell moved with the change); and `fresh20`,
// Fresh20Programs() (corpus_fresh20.h, 8 programs), written blind to them
// after fresh19 and judged once, unseen, with the rules as they were
// (precision 0.79, recall 1.00; no cell moved with at_once_start_share
// either); and `fresh21`, Fresh21Programs() (corpus_fresh21.h,
// 8 programs), written blind to them after fresh20 and judged once,
// unseen, with the rules as they were (precision 0.93, recall 0.89); and
// `fresh22`, Fresh22Programs() (corpus_fresh22.h, 8 programs), written
// blind to them after fresh21 and judged once, unseen, with the rules as
// they were (precision 0.94, recall 1.00), then the check of
// lp_forward_loss's five probes in a row (one false alarm saved, no hit
// lost); and `fresh23`, Fresh23Programs() (corpus_fresh23.h, 8
// programs), written blind to them after fresh22 and judged once, unseen,
// with the rules as they were (precision 0.97, recall 0.97, but a median
// lead of -10: gradual breaks called late); and `fresh24`,
// Fresh24Programs() (corpus_fresh24.h, 8 programs), written blind to them
// after fresh23 and judged once, unseen, with the rules as they were
// (precision 0.68, recall 0.93, median lead 0.5: a healthy CoordConv drew
// lp_rollout on 8 targets), then the check of lp_rollout's
// at_once_lag_share 0.8 (4 hits earlier, median lead 4, no false alarm
// added); and `fresh25`, Fresh25Programs() (corpus_fresh25.h, 8
// programs), written blind to them after fresh24 and judged once, unseen,
// with the rules as they were, at_once_lag_share 0.8 landed (precision
// 0.89, recall 0.81, median lead -2: an index's returns and an odometer
// difference break gradually and are called late, raw digitizer counts
// missed on five targets where they break at steps 90..92); and `fresh26`,
// Fresh26Programs() (corpus_fresh26.h, 8 programs), written blind to them
// after fresh25 and judged once, unseen, with the rules as they were
// (precision 1.00, recall 0.93, median lead -2: 28 hits, no false alarm;
// the dusk spectra break gradually and are called 3 to 42 steps late;
// missed: the healthy Performer on fp16-npu-ftz, the irradiation bands on
// b200-nvfp4 at the last step); and `fresh27`, Fresh27Programs()
// (corpus_fresh27.h, 8 programs), written blind to them after fresh26
// and judged once, unseen, with the rules as they were (precision 1.00,
// recall 0.92, median lead 3: 23 hits, no false alarm; missed: the healthy
// Fastformer on fp16-npu-ftz, activation-gradient flushing, and the gap
// screen on tenstorrent-bfp4, breaking at step 71); and `fresh28`,
// Fresh28Programs() (corpus_fresh28.h, 8 programs), written blind to them
// after fresh27 and judged once, unseen, with the rules as they were
// (precision 1.00, recall 0.96, median lead 33: 24 hits, no false alarm;
// missed: the healthy CBAM CNN on fp16-npu-ftz, activation-gradient
// flushing); and `fresh29`, Fresh29Programs() (corpus_fresh29.h, 8
// programs), written blind to them after fresh28 and judged once, unseen,
// with the rules as they were (precision 0.96, recall 0.93, median lead
// -5: 27 hits, one false alarm, lp_snr on a GroupNorm bias in fp16;
// missed: the healthy HyperMixer and sliding-window attention on
// fp16-npu-ftz, activation-gradient flushing); and `fresh30`,
// Fresh30Programs() (corpus_fresh30.h, 8 programs), written blind to them
// after lp_underflow's rollout check landed and judged once, unseen, with
// the rules as they are (precision 0.96, recall 1.00, median lead 3: 23
// hits, one false alarm, lp_forward_loss on the platelet counts on
// b200-nvfp4, whose training learns around its forward pass; no miss; no
// healthy program broke on fp16-npu-ftz, so the rollout check had nothing
// to call and fired nowhere); and `fresh31`, Fresh31Programs()
// (corpus_fresh31.h, 8 programs), written blind to them after fresh30 and
// judged once, unseen, with the rules as they are (precision 0.88, recall
// 0.93, median lead -4.5: 14 hits, two false alarms, lp_underflow at step
// 1 on the healthy Fixup MLP on fp16-npu-ftz, whose zero-initialised
// branches pass almost no gradient at first, and lp_forward_loss on the tunnel
// pressures on tenstorrent-bfp4, whose training learns around its forward
// pass; missed: the healthy CORAL CNN on b200-nvfp4, broken at step 4;
// the radiotracer rates break gradually, at 163..186, and are called 22
// to 27 steps late); and `fresh32`, Fresh32Programs() (corpus_fresh32.h,
// 8 programs), written blind to them after lp_underflow's two steps in a
// row landed and judged once, unseen, with the rules as they are
// (precision 0.84, recall 1.00, median lead 2: 21 hits, four false
// alarms, lp_underflow at step 2 on the healthy SkipInit MLP on
// fp16-npu-ftz, lp_forward_loss on the SkipInit MLP and the storage bytes
// on b200-nvfp4, lp_dynamic_range on the highway network's gate on
// gaudi2-fp8; no miss; two of its zero-initialised healthy networks break
// on fp16-npu-ftz and lp_underflow calls them at steps 1 and 6; with
// steps 1 the same counts); and `fresh33`, Fresh33Programs()
// (corpus_fresh33.h, 8 programs), written blind to them after fresh32 and
// judged once, unseen, with the rules as they are (precision 0.96, recall
// 0.96, median lead -7: 26 hits, most called at the first or second
// rollout after breaks at steps 4..17; the false alarm lp_forward_loss on
// the healthy Pade-activation MLP on tenstorrent-bfp4 at step 144; the
// miss the page views on b200-nvfp4, an accuracy-only break at step 249);
// and `fresh34`, Fresh34Programs() (corpus_fresh34.h, 8 programs), written
// blind to them after fresh33 and judged once, unseen, with the rules as
// they are (precision 0.94, recall 0.94, median lead 1: 16 hits; the false
// alarm lp_headroom at step 246 on the drifting EEG spectra on
// fp16-npu-ftz, where they do not break; the miss the healthy decoder-only
// language model on fp16-npu-ftz, broken at step 89, four of its 32
// gradients flushing from step 0, under the quarter lp_underflow asks).
// All are seen data now:
// each judged one change or measured the
// rules out of sample (fresh6 measured them and judged a gradient probe
// that did not land; fresh7 judged the rollouts; fresh8, fresh9,
// fresh10, fresh11 and fresh12 measured the rules as they were, fresh8 finding
// simulate mode's -inf bug, fresh9 under the truth against three fp32
// seeds, fresh10 and fresh11 under the truth of three simulated seeds,
// fresh11 also judging a noise floor for the rollouts that did not land)
// and was then looked at: write another group blind to judge the next
// change.
// The table reports the whole corpus and each group.
//
// One translation unit on purpose: each LibTorch TU costs minutes on a small
// machine.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <ATen/Version.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checks/checker.h"
#include "core/dir_lock.h"
#include "core/output.h"
#include "core/target.h"
#include "examples/common/training.h"
#include "examples/validation/corpus.h"
#include "examples/validation/corpus_fresh.h"
#include "examples/validation/corpus_fresh2.h"
#include "examples/validation/corpus_fresh3.h"
#include "examples/validation/corpus_fresh4.h"
#include "examples/validation/corpus_fresh5.h"
#include "examples/validation/corpus_fresh6.h"
#include "examples/validation/corpus_fresh7.h"
#include "examples/validation/corpus_fresh8.h"
#include "examples/validation/corpus_fresh9.h"
#include "examples/validation/corpus_fresh10.h"
#include "examples/validation/corpus_fresh11.h"
#include "examples/validation/corpus_fresh12.h"
#include "examples/validation/corpus_fresh13.h"
#include "examples/validation/corpus_fresh14.h"
#include "examples/validation/corpus_fresh15.h"
#include "examples/validation/corpus_fresh16.h"
#include "examples/validation/corpus_fresh17.h"
#include "examples/validation/corpus_fresh18.h"
#include "examples/validation/corpus_fresh19.h"
#include "examples/validation/corpus_fresh20.h"
#include "examples/validation/corpus_fresh21.h"
#include "examples/validation/corpus_fresh22.h"
#include "examples/validation/corpus_fresh23.h"
#include "examples/validation/corpus_fresh24.h"
#include "examples/validation/corpus_fresh25.h"
#include "examples/validation/corpus_fresh26.h"
#include "examples/validation/corpus_fresh27.h"
#include "examples/validation/corpus_fresh28.h"
#include "examples/validation/corpus_fresh29.h"
#include "examples/validation/corpus_fresh30.h"
#include "examples/validation/corpus_fresh31.h"
#include "examples/validation/corpus_fresh32.h"
#include "examples/validation/corpus_fresh33.h"
#include "examples/validation/corpus_fresh34.h"
#include "examples/validation/processes.h"
#include "examples/validation/tally.h"
#include "examples/validation/truth.h"
#include "report/stored_check.h"
#include "store/run_db.h"
#include "tracker/tracker.h"

namespace lpsim::validation {
namespace {

// fp32's own spread: a target is judged against the worst of several fp32
// runs that differ only in the seed of the model's initialisation and of
// the draws after it (dropout): the tracked run (seed kSeed) and
// g_fp32_seeds - 1 more (kSeed + 1, ...). A shortfall that fp32 shows with
// another seed is the training's run-to-run variation, not the hardware's:
// the fp32 runs of seeds 12 and 13 "break" against seed 11's by the
// single-run truth in 13 of the 176 programs (docs/validation.md).
constexpr int kSeed = 11;
int g_fp32_seeds = 3;  // --fp32-seeds (1: the tracked run alone)
// The target's own spread: each target trains in simulate mode with the
// same seeds (kSeed, kSeed + 1, ...), each run judged as above, and the
// training breaks on the target when most of them break. One simulated run
// is one draw: a target that trains near the tolerance lands either side
// of it with the seed's luck, and a rule that fires there is neither a
// false alarm nor a hit (docs/validation.md).
int g_sim_seeds = 3;  // --sim-seeds (1: seed kSeed alone)

std::string g_root = "/tmp/lpsim_validation";

// The rules' configuration for the predictions (--rules FILE, the JSON of
// `lpsim check --rules`): its lp_* rules as configured (thresholds, on or
// off), every other rule off. Default: the catalog's defaults.
lpsim::CheckConfig g_rules = lpsim::CheckConfig::Defaults();

// --- training -------------------------------------------------------------------


// The fp32 run probes each target's forward pass every this many steps
// (TrackerOptions::probe; lp_forward_loss judges the losses).
int g_probe_every = 8;  // --probe-every
// ... and trains a rollout of this many steps on each target every
// g_rollout_every steps (TrackerOptions::probe_rollout; lp_rollout judges).
int g_rollout = 8;         // --rollout (0: none)
int g_rollout_every = 16;  // --rollout-every

torch::Tensor LossOf(const Program& p, const torch::Tensor& out, const torch::Tensor& y) {
  return p.loss == Loss::kCe ? nn::functional::cross_entropy(out, y) : nn::functional::mse_loss(out, y);
}

// The fp32 run as stored: what the predictions read back, as `lpsim check
// RUN --target T` does (report/stored_check.h).
struct StoredRun {
  std::vector<lpsim::ScalarRecord> scalars;  // loss, probes, rollouts, ...: in the units step() was given
  std::vector<TensorRecord> records;  // in step order
};

lpsim::StatusOr<StoredRun> ReadRun(const std::string& dir) {
  lpsim::StatusOr<std::unique_ptr<lpsim::RunReader>> run = lpsim::RunReader::Open(dir);
  if (!run.ok()) return run.status();
  StoredRun out;
  lpsim::StatusOr<std::vector<lpsim::ScalarRecord>> scalars = (*run)->Scalars();
  if (!scalars.ok()) return scalars.status();
  out.scalars = std::move(scalars).value();
  lpsim::StatusOr<std::vector<TensorRecord>> records = (*run)->Records();
  if (!records.ok()) return records.status();
  out.records = std::move(records).value();
  return out;
}

// What --rejudge needs of a tracked fp32 run besides its database: its
// curve (the loss and accuracy the tracker does not store) and how it was
// probed, written beside the run directory as ROOT/PROGRAM/fp32.validation.json
// once the run has ended and its database is read back.
struct RunSettings {
  bool probe = true;
  int probe_every = 0, rollout = 0, rollout_every = 0;
  std::vector<std::string> targets;  // the probe targets' names
  std::string kernels;
};

std::string RunNotePath(const Program& p) { return g_root + "/" + p.name + "/fp32.validation.json"; }

nlohmann::ordered_json NumArray(const std::vector<double>& v) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (double x : v) a.push_back(std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json());
  return a;
}

lpsim::Status WriteRunNote(const Program& p, const Curve& c, const RunSettings& s) {
  nlohmann::ordered_json j = {{"probe", s.probe},
                              {"probe_every", s.probe_every},
                              {"rollout", s.rollout},
                              {"rollout_every", s.rollout_every},
                              {"targets", s.targets},
                              {"kernels", s.kernels},
                              {"loss", NumArray(c.loss)},
                              {"accuracy", NumArray(c.accuracy)}};
  return lpsim::WriteOutput(RunNotePath(p), j.dump() + "\n");
}

// ReadStoredRun's reading of a parsed note (its fields may throw
// nlohmann::json::exception where their types differ from those written).
std::string ReadNote(const Program& p, const nlohmann::json& j, const RunSettings& want, StoredRun* stored,
                     Curve* curve, std::string* kernels, const std::string& again) {
  auto differs = [&](const char* what, const std::string& had, const std::string& asked) {
    return "--rejudge: the recorded fp32 run of " + p.name + " was probed with " + what + " " + had + ", this run asks " +
           asked + again;
  };
  if (j.at("probe").get<bool>() != want.probe) {
    return differs("probes", want.probe ? "off" : "on", want.probe ? "on" : "off (--no-probe)");
  }
  if (want.probe) {
    const std::pair<const char*, int> fields[] = {
        {"probe_every", want.probe_every}, {"rollout", want.rollout}, {"rollout_every", want.rollout_every}};
    for (const auto& [name, value] : fields) {
      const int had = j.at(name).get<int>();
      if (had != value) return differs(name, std::to_string(had), std::to_string(value));
    }
    const std::vector<std::string> had = j.at("targets").get<std::vector<std::string>>();
    for (const std::string& t : want.targets) {
      if (std::find(had.begin(), had.end(), t) == had.end()) {
        return "--rejudge: the recorded fp32 run of " + p.name + " has no probes of " + t + again;
      }
    }
  }
  auto numbers = [](const nlohmann::json& a) {
    std::vector<double> v;
    for (const auto& x : a) v.push_back(x.is_number() ? x.get<double>() : NAN);
    return v;
  };
  curve->loss = numbers(j.at("loss"));
  curve->accuracy = numbers(j.value("accuracy", nlohmann::json::array()));
  for (double l : curve->loss) curve->nonfinite |= !std::isfinite(l);  // as Train counts it
  *kernels = j.value("kernels", std::string());
  lpsim::StatusOr<StoredRun> run = ReadRun(g_root + "/" + p.name + "/fp32");
  if (!run.ok()) return "--rejudge: reading the recorded fp32 run of " + p.name + ": " + run.status().message() + again;
  *stored = std::move(run).value();
  return "";
}

// The stored fp32 run of p under --root for --rejudge: its database read
// back and its note's curve, refused (the message says why and what to do)
// when it is missing, unreadable, or was probed otherwise than this run asks.
std::string ReadStoredRun(const Program& p, const RunSettings& want, StoredRun* stored, Curve* curve,
                          std::string* kernels) {
  const std::string path = RunNotePath(p);
  const std::string again = ": run `lpsim validate` once without --rejudge, with this --root and these options, "
                            "to record the fp32 runs";
  std::ifstream in(path);
  if (!in) return "--rejudge: no recorded fp32 run of " + p.name + " (" + path + " is missing)" + again;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  const std::string unreadable = "--rejudge: " + path + " is not a run note this build writes" + again;
  if (j.is_discarded()) return unreadable;
  try {
    return ReadNote(p, j, want, stored, curve, kernels, again);
  } catch (const nlohmann::json::exception&) {
    return unreadable;  // not an object, or a field missing or of another type than this build writes
  }
}

// Trains p; `target` null: fp32 with tracking (the run database in
// `stored`, with the probes and rollouts of `probe_targets`, each a target's
// file), else simulate mode on that target with tracking reduced to step 0.
// The tracker is given each target's file (Target::origin), not its name:
// a --targets entry may be a .json path outside the built-in folder.
Curve Train(const Program& p, const lpsim::Target* target, StoredRun* stored,
            const std::vector<std::string>& probe_targets = {}, int seed = kSeed) {
  torch::manual_seed(7);
  const Data data = p.data();
  torch::manual_seed(seed);
  std::shared_ptr<nn::Module> model = p.model();
  std::unique_ptr<torch::optim::Optimizer> opt =
      lpsim::examples::MakeOptimizer({p.optimizer, p.lr, p.weight_decay, p.adam_eps}, model->parameters());
  lpsim::TrackerOptions o;
  o.run_dir = g_root + "/" + p.name + "/" + (target ? target->name : "fp32") +
              (seed == kSeed ? "" : "-seed" + std::to_string(seed));
  o.overwrite = true;
  o.capture_nonfinite = false;
  for (auto& rule : o.check_config.rules) rule.second.policy = lpsim::Policy::kLog;
  if (!target) {
    o.checks = false;  // judged per target below, from the stored run
    if (!stored) o.every = 1 << 30;  // a reference run of another seed: its losses alone
  } else {
    o.target = target->origin;
    o.simulate = true;
    o.checks = false;
    o.every = 1 << 30;  // the truth needs the training, not the records
  }
  torch::Tensor probe_x, probe_y;  // the batch of the step in progress
  if (!target && !probe_targets.empty()) {
    // Unscaled; the tracker records it times probe_loss_scale, in the
    // units of the loss step() is given, which lp_forward_loss compares.
    o.probe = [&] { return LossOf(p, p.forward(*model, probe_x), probe_y); };
    o.probe_targets = probe_targets;
    o.probe_every = g_probe_every;
    o.probe_rollout = g_rollout;
    o.probe_rollout_every = g_rollout_every;
    o.probe_loss_scale = p.loss_scale;  // the training's static loss scale
  }
  Curve c;
  {
    lpsim::Tracker tracker(*model, *opt, o);
    g_tracker = &tracker;
    for (int s = 0; s < p.steps; ++s) {
      for (auto& g : opt->param_groups()) g.options().set_lr(lpsim::examples::LrAt(p.schedule, p.lr, s, p.steps));
      auto [x, y] = data.At(s);
      probe_x = x, probe_y = y;
      opt->zero_grad();
      torch::Tensor out = p.forward(*model, x);
      torch::Tensor loss = LossOf(p, out, y);
      const double l = loss.item<double>();
      (loss * p.loss_scale).backward();
      tracker.step(loss * p.loss_scale);
      c.loss.push_back(l);
      c.nonfinite |= !std::isfinite(l);
      if (p.loss == Loss::kCe) c.accuracy.push_back((out.argmax(1) == y).to(torch::kFloat).mean().item<double>());
    }
    g_tracker = nullptr;
    (void)tracker.Close();
  }
  if (stored) {
    lpsim::StatusOr<StoredRun> run = ReadRun(o.run_dir);
    if (!run.ok()) throw std::runtime_error("reading the fp32 run of " + p.name + ": " + run.status().message());
    *stored = std::move(run).value();
  }
  return c;
}

// (program, target) -> the truth recorded by an earlier --json run.
using Truths = std::map<std::pair<std::string, std::string>, Truth>;

// The kernels the runs' arithmetic comes from. LibTorch and the OpenBLAS
// under it pick their kernels for the CPU at run time (AVX-512 ones where
// there is AVX-512, AVX2 ones else), and a matmul blocked another way sums
// in another order: an fp32 or simulated run drifts a few ulps a step from
// the same run on another machine, and a prediction or a truth that sits on
// its threshold moves (docs/validation.md: 4 of the 2688 cells between an AVX2
// and an AVX-512 machine, all from OpenBLAS's choice). lpsim's own kernels
// add the same terms in the same order on every target (docs/simd.md).
// Pinned to their AVX2 kernels, every x86-64 machine with AVX2 and FMA
// computes the same runs, so a table or a truths file made on one is made
// on all. OpenBLAS reads its core type once, when it loads: the process
// starts itself again with the variables set. Variables the user set stand
// (LPSIM_VALIDATION_KERNELS=native: no pinning, the machine's own kernels).
void PinKernels(char** argv) {
  const char* mode = std::getenv("LPSIM_VALIDATION_KERNELS");
  if (mode && std::string(mode) == "native") return;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::fprintf(stderr, "lpsim validate: this CPU has no AVX2 and FMA: the runs use its own kernels and may "
                         "differ from a table made on another machine\n");
    return;
  }
  const bool restart = std::getenv("OPENBLAS_CORETYPE") == nullptr;
  setenv("ATEN_CPU_CAPABILITY", "avx2", /*overwrite=*/0);  // read when LibTorch first dispatches
  setenv("OPENBLAS_CORETYPE", "Haswell", /*overwrite=*/0);
  if (restart) {
    execv("/proc/self/exe", argv);
    std::fprintf(stderr, "lpsim validate: cannot restart with OpenBLAS's kernels pinned (%s): they are the "
                         "CPU's own\n", std::strerror(errno));
  }
}

}  // namespace
}  // namespace lpsim::validation

// OpenBLAS's own report of the kernels it loaded (absent where LibTorch
// runs on another BLAS: weak, so the harness links without OpenBLAS).
extern "C" char* openblas_get_corename() __attribute__((weak));

namespace lpsim::validation {
namespace {

// The kernels the runs use, as LibTorch and OpenBLAS report them: what the
// JSON and the truths record ("LibTorch AVX2, OpenBLAS Haswell").
std::string KernelsInUse() {
  std::string aten = "?";
  const std::string config = at::show_config();
  const std::string key = "CPU capability usage: ";
  if (const size_t at = config.find(key); at != std::string::npos) {
    aten = config.substr(at + key.size(), config.find('\n', at) - at - key.size());
  }
  const char* blas = openblas_get_corename ? openblas_get_corename() : nullptr;
  return "LibTorch " + aten + ", " + (blas ? "OpenBLAS " + std::string(blas) : std::string("BLAS not OpenBLAS"));
}

// One run's truth, as TruthJson wrote it in a "runs" array (of --json or
// --save-truths); "" or what is wrong. A run and each of its seeds share
// the verdict and the finals, read by one function as TruthJson writes them.
std::string ReadTruth(const nlohmann::json& r, Truth* out) {
  auto outcome = [](const nlohmann::json& k, Truth* t) {
    if (!k.is_object() || !k.contains("broken") || !k["broken"].is_boolean()) return false;
    t->broken = k["broken"].get<bool>();
    if (t->broken && k.contains("break_step") && k["break_step"].is_number_integer()) {
      t->step = k["break_step"].get<int64_t>();
    }
    auto number = [&](const char* field) {
      return k.contains(field) && k[field].is_number() ? k[field].get<double>() : NAN;
    };
    t->final_loss = number("final_loss");
    t->final_accuracy = number("final_accuracy");
    return true;
  };
  Truth t;
  if (!r.is_object() || !r.contains("program") || !r.contains("target") || !r["program"].is_string() ||
      !r["target"].is_string() || !outcome(r, &t)) {
    return "a run without program, target and broken";
  }
  if (r.contains("why") && r["why"].is_string()) t.why = r["why"].get<std::string>();
  if (r.contains("seeds") && r["seeds"].is_array()) {
    for (const nlohmann::json& k : r["seeds"]) {
      Truth one;
      if (!outcome(k, &one)) return "a run's seeds without broken";
      t.seeds.push_back(one);
    }
  }
  *out = std::move(t);
  return "";
}

// Reads the "runs" of an earlier --json output; an empty string on success,
// else what is wrong with the file.
// The number of fp32 seeds its truths were judged against goes to *seeds,
// the number of simulated runs per truth to *sim_seeds (1 for files older
// than the fields), the kernels they were simulated with to *kernels ("" for
// files older than the field).
std::string LoadTruths(const std::string& path, Truths* out, int* seeds, int* sim_seeds, std::string* kernels) {
  std::ifstream in(path);
  if (!in) return "cannot read " + path;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("runs") || !j["runs"].is_array()) {
    return path + " is not the JSON of `lpsim validate --json` (no \"runs\" array)";
  }
  for (auto [field, count] : {std::pair<const char*, int*>{"fp32_seeds", seeds}, {"sim_seeds", sim_seeds}}) {
    *count = 1;
    if (j.contains("tolerance") && j["tolerance"].is_object() && j["tolerance"].contains(field)) {
      const nlohmann::json& n = j["tolerance"][field];
      if (!n.is_number_integer() || n.get<int>() < 1) return path + ": tolerance." + field + " is not a count >= 1";
      *count = n.get<int>();
    }
  }
  kernels->clear();
  if (j.contains("kernels") && j["kernels"].is_string()) *kernels = j["kernels"].get<std::string>();
  // Truths judged under another loss scale (files before it was recorded:
  // the linear one) would mix two truths in one table.
  std::string scale = "linear";
  if (j.contains("tolerance") && j["tolerance"].is_object() && j["tolerance"].contains("loss_scale") &&
      j["tolerance"]["loss_scale"].is_string()) {
    scale = j["tolerance"]["loss_scale"].get<std::string>();
  }
  if (scale != kLossScale) {
    return path + " was judged on the loss scale \"" + scale + "\", this build judges on \"" + kLossScale +
           "\": rerun without --truth to simulate its truths again";
  }
  // ... and so would truths judged with another tolerance or window
  // (files that record them; each recorded since the first --json).
  for (const auto& [field, value] : std::vector<std::pair<const char*, double>>{
           {"loss_share_of_fp32_improvement", kLossTolerance},
           {"accuracy", kAccuracyTolerance},
           {"final_window", kFinalWindow},
           {"break_window", kBreakWindow}}) {
    if (!j.contains("tolerance") || !j["tolerance"].is_object() || !j["tolerance"].contains(field)) continue;
    const nlohmann::json& n = j["tolerance"][field];
    if (!n.is_number() || n.get<double>() != value) {
      char ours[32];
      std::snprintf(ours, sizeof ours, "%g", value);
      return path + " was judged with tolerance." + field + " " + n.dump() + ", this build with " + ours +
             ": rerun without --truth to simulate its truths again";
    }
  }
  for (const nlohmann::json& r : j["runs"]) {
    Truth t;
    const std::string err = ReadTruth(r, &t);
    if (!err.empty()) return path + ": " + err;
    (*out)[{r["program"].get<std::string>(), r["target"].get<std::string>()}] = t;
  }
  return "";
}

// The lp_* rules on the stored fp32 run judged on the target: its records
// in the target's formats, its loss, and its probes and rollouts of this
// target (lp_forward_loss, lp_rollout). The same function as `lpsim check
// RUN --target T`.
Prediction Predict(const StoredRun& run, const lpsim::Target& target) {
  const lpsim::CheckConfig config = lpsim::LowPrecisionOnly(g_rules);
  const lpsim::StatusOr<std::vector<Finding>> found = lpsim::CheckRecords(
      run.scalars,
      [&](const std::function<lpsim::Status(TensorRecord&&)>& fn) {
        for (const TensorRecord& r : run.records) {
          lpsim::Status s = fn(TensorRecord(r));
          if (!s.ok()) return s;
        }
        return lpsim::Status();
      },
      config, &target);
  if (!found.ok()) throw std::runtime_error("judging on " + target.name + ": " + found.status().message());
  Prediction pr;
  for (const Finding& f : *found) {
    if (!lpsim::IsBreakSign(f)) continue;
    if (!pr.fires) pr = {true, f.step, f.rule, f.tensor, f.message, f.evidence, {}};
    pr.first_by_rule.emplace(f.rule, f.step);
  }
  return pr;
}

// Predict on each target, in up to `jobs` threads: the targets are judged
// independently on one stored run that no judge changes, so the predictions
// are those of one thread, in the targets' order.
std::vector<Prediction> PredictAll(const StoredRun& run, const std::vector<lpsim::Target>& targets, int jobs) {
  std::vector<Prediction> out(targets.size());
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> failed(targets.size());
  auto work = [&] {
    for (size_t i = next++; i < targets.size(); i = next++) {
      try {
        out[i] = Predict(run, targets[i]);
      } catch (...) {
        failed[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;  // this thread is one of the `jobs`
  for (int k = 1; k < jobs && static_cast<size_t>(k) < targets.size(); ++k) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);  // the first target's error, as one thread reports it
  }
  return out;
}

// The corpus's groups, in the order of the table's columns, the JSON's
// objects and --list: Programs() (corpus.h) split by position (even: tune,
// odd: holdout), then one group per blind corpus file, its name and its
// programs. A new group is one line here (and its first program in
// CMakeLists.txt's VALIDATION_GROUP_FIRSTS).
struct GroupSource {
  const char* name;
  std::vector<Program> (*programs)();  // null for tune and holdout: Programs() split
};
constexpr GroupSource kGroupSources[] = {
    {"tune", nullptr}, {"holdout", nullptr}, {"fresh", FreshPrograms}, {"fresh2", Fresh2Programs},
    {"fresh3", Fresh3Programs}, {"fresh4", Fresh4Programs}, {"fresh5", Fresh5Programs}, {"fresh6", Fresh6Programs},
    {"fresh7", Fresh7Programs}, {"fresh8", Fresh8Programs}, {"fresh9", Fresh9Programs}, {"fresh10", Fresh10Programs},
    {"fresh11", Fresh11Programs}, {"fresh12", Fresh12Programs}, {"fresh13", Fresh13Programs},
    {"fresh14", Fresh14Programs}, {"fresh15", Fresh15Programs}, {"fresh16", Fresh16Programs},
    {"fresh17", Fresh17Programs}, {"fresh18", Fresh18Programs}, {"fresh19", Fresh19Programs},
    {"fresh20", Fresh20Programs}, {"fresh21", Fresh21Programs}, {"fresh22", Fresh22Programs},
    {"fresh23", Fresh23Programs}, {"fresh24", Fresh24Programs},
    {"fresh25", Fresh25Programs}, {"fresh26", Fresh26Programs}, {"fresh27", Fresh27Programs},
    {"fresh28", Fresh28Programs}, {"fresh29", Fresh29Programs},
    {"fresh30", Fresh30Programs}, {"fresh31", Fresh31Programs},
    {"fresh32", Fresh32Programs}, {"fresh33", Fresh33Programs},
    {"fresh34", Fresh34Programs}};
constexpr size_t kGroups = std::size(kGroupSources);

const char* GroupName(Group g) { return kGroupSources[g].name; }

// The whole corpus in the order --list shows it.
std::vector<std::pair<Program, Group>> Corpus() {
  std::vector<std::pair<Program, Group>> out;
  std::vector<Program> seen = Programs();
  for (size_t i = 0; i < seen.size(); ++i) out.push_back({seen[i], Group(i % 2)});
  for (Group g = 2; g < kGroups; ++g) {
    for (Program& p : kGroupSources[g].programs()) out.push_back({std::move(p), g});
  }
  return out;
}

std::string Num(double v, const char* fmt = "%.2f") {
  if (!std::isfinite(v)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, fmt, v);
  return std::string(b) == "-0" ? "0" : b;  // a median lead of -0.5 rounds to 0
}

nlohmann::json JsonNum(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

// [lo, hi] (nulls when there is no proportion).
nlohmann::json IntervalJson(Interval i) { return {JsonNum(i.lo), JsonNum(i.hi)}; }

// A proportion with its 95% interval: "0.90 (0.79..0.96)", "-" for none.
std::string WithInterval(double v, Interval i) {
  if (!std::isfinite(v)) return "-";
  return Num(v) + " (" + Num(i.lo) + ".." + Num(i.hi) + ")";
}

// A cell's truth as --json and --save-truths write it (and LoadTruths
// reads it back): the combined verdict, then each simulated run's own
// (several seeds only); a regression's accuracy is null.
nlohmann::ordered_json TruthJson(const Truth& truth, bool classifier) {
  auto verdict = [&](const Truth& t) {
    return nlohmann::ordered_json{{"broken", t.broken},
                                  {"break_step", t.broken ? nlohmann::json(t.step) : nlohmann::json()}};
  };
  nlohmann::ordered_json seeds = nlohmann::ordered_json::array();
  for (size_t k = 0; k < truth.seeds.size(); ++k) {
    const Truth& s = truth.seeds[k];
    nlohmann::ordered_json one = {{"seed", kSeed + static_cast<int>(k)}};
    one.update(verdict(s));
    one["final_loss"] = JsonNum(s.final_loss);
    one["final_accuracy"] = JsonNum(classifier ? s.final_accuracy : NAN);
    seeds.push_back(std::move(one));
  }
  nlohmann::ordered_json j = verdict(truth);
  j["why"] = truth.why;
  j["final_loss"] = JsonNum(truth.final_loss);
  j["final_accuracy"] = JsonNum(classifier ? truth.final_accuracy : NAN);
  j["seeds"] = std::move(seeds);
  return j;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// A prediction as the "runs" array of --json has it (the cells a --jobs
// process sends back). Evidence written as null (not finite) reads as NaN,
// which --json writes as null again.
std::string ReadPrediction(const nlohmann::json& r, Prediction* out) {
  try {
    Prediction p;
    p.fires = r.at("predicted").get<bool>();
    if (p.fires) p.step = r.at("predicted_step").get<int64_t>();
    p.rule = r.at("rule").get<std::string>();
    p.tensor = r.at("tensor").get<std::string>();
    p.message = r.at("message").get<std::string>();
    for (const auto& [k, v] : r.at("evidence").items()) p.evidence[k] = v.is_number() ? v.get<double>() : NAN;
    for (const auto& [k, v] : r.at("first_step_by_rule").items()) p.first_by_rule[k] = v.get<int64_t>();
    *out = std::move(p);
    return "";
  } catch (const nlohmann::json::exception& e) {
    return std::string("a run's prediction does not read: ") + e.what();
  }
}

// --jobs N when training: the programs are cut into batches (program i
// into batch i mod B, B = min(programs, 8 N): each batch mixes the
// corpus's groups, so no batch is mostly one slow group, and a process
// that ends early takes the next batch), each trained and judged by this
// executable again, with `common` (the run's own flags, as given) and --json, on a
// root of its own (ROOT/.batches/K/runs), N processes at a time. Their
// cells, fp32 runs and finals are gathered here in the order one process
// makes them, and their run directories moved under ROOT, where --rejudge
// reads them: the table and the JSON are one process's but for the time.
// "" or what went wrong (a failed batch's folder is kept, with its log).
std::string TrainInProcesses(const std::vector<std::pair<Program, Group>>& programs,
                             const std::vector<lpsim::Target>& targets, const std::vector<std::string>& common,
                             int jobs, std::vector<Cell>* cells, nlohmann::ordered_json* fp32_runs,
                             std::map<std::string, std::pair<double, double>>* fp32_final) {
  namespace fs = std::filesystem;
  const fs::path batches = fs::path(g_root) / ".batches";
  std::error_code ec;
  fs::remove_all(batches, ec);  // a stopped run's (the root is locked: no run uses them)
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);  // this executable, as ps shows it
  if (ec) return "cannot find this executable (/proc/self/exe): " + ec.message();
  const size_t n = std::min(programs.size(), static_cast<size_t>(8) * static_cast<size_t>(jobs));
  std::vector<std::vector<std::string>> names(n);
  for (size_t i = 0; i < programs.size(); ++i) names[i % n].push_back(programs[i].first.name);
  std::vector<Child> children;
  for (size_t b = 0; b < n; ++b) {
    const fs::path dir = batches / std::to_string(b);
    fs::create_directories(dir, ec);
    if (ec) return "cannot create " + dir.string() + ": " + ec.message();
    Child c;
    c.argv = {exe.string()};
    c.argv.insert(c.argv.end(), common.begin(), common.end());
    for (const std::string& a : {std::string("--root"), (dir / "runs").string(), std::string("--json"),
                                 std::string("--jobs"), std::string("1"), std::string("--programs"),
                                 fmt::format("{}", fmt::join(names[b], ","))}) {
      c.argv.push_back(a);
    }
    c.out_file = (dir / "out.json").string();
    c.log_file = (dir / "log.txt").string();
    c.what = fmt::format("{}", fmt::join(names[b], ", "));
    children.push_back(std::move(c));
  }
  const auto start = std::chrono::steady_clock::now();
  size_t trained = 0, finished = 0;
  const lpsim::Status s = RunChildren(children, jobs, [&](size_t b) {
    trained += names[b].size(), ++finished;
    std::fprintf(stderr, "lpsim validate: %zu of %zu programs trained and judged (%zu of %zu batches, %d processes), "
                 "%.0f s\n", trained, programs.size(), finished, n, jobs,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  });
  if (!s.ok()) {
    const std::string& m = s.message();
    return m + (!m.empty() && m.back() == '\n' ? "" : " ") + "(the batches are kept under " + batches.string() + ")";
  }

  std::map<std::string, nlohmann::ordered_json> runs_of;  // program -> its fp32_runs entry
  std::map<std::pair<std::string, std::string>, std::pair<Prediction, Truth>> cell_of;
  for (size_t b = 0; b < n; ++b) {
    const std::string out = children[b].out_file;
    std::ifstream in(out);
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("runs") || !j["runs"].is_array() ||
        !j.contains("fp32_runs") || !j["fp32_runs"].is_object()) {
      return out + " is not the JSON of a batch's run (see " + children[b].log_file + ")";
    }
    for (const auto& [name, run] : j["fp32_runs"].items()) runs_of[name] = run;
    const nlohmann::json runs = j["runs"];  // as ReadTruth reads it (key order is the fp32 runs' concern alone)
    for (const nlohmann::json& r : runs) {
      std::pair<Prediction, Truth> c;
      std::string err = ReadTruth(r, &c.second);
      if (err.empty()) err = ReadPrediction(r, &c.first);
      if (err.empty() && (!r.contains("fp32_final_loss") || !r.contains("fp32_final_accuracy"))) {
        err = "a run without fp32's finals";
      }
      if (!err.empty()) return out + ": " + err;
      const std::string program = r["program"].get<std::string>();
      auto final_of = [&](const char* field) { return r[field].is_number() ? r[field].get<double>() : NAN; };
      (*fp32_final)[program] = {final_of("fp32_final_loss"), final_of("fp32_final_accuracy")};
      cell_of[{program, r["target"].get<std::string>()}] = std::move(c);
    }
  }
  for (const auto& [p, group] : programs) {
    if (!runs_of.count(p.name)) return "no batch sent back the fp32 run of " + p.name;
    (*fp32_runs)[p.name] = runs_of[p.name];
    for (const lpsim::Target& t : targets) {
      auto it = cell_of.find({p.name, t.name});
      if (it == cell_of.end()) return "no batch sent back " + p.name + " on " + t.name;
      cells->push_back({p.name, t.name, group, std::move(it->second.first), std::move(it->second.second)});
    }
  }
  // The run directories where one process leaves them.
  for (size_t b = 0; b < n; ++b) {
    for (const std::string& name : names[b]) {
      const fs::path to = fs::path(g_root) / name;
      fs::remove_all(to, ec);
      if (!ec) fs::rename(batches / std::to_string(b) / "runs" / name, to, ec);
      if (ec) return "moving the run of " + name + " to " + to.string() + ": " + ec.message();
    }
  }
  fs::remove_all(batches, ec);
  return "";
}

int Usage(const char* why) {
  std::fprintf(stderr,
               "lpsim validate: %s\nusage: lpsim validate [--list] [--groups] [--table] [--json] [--programs a,b] "
               "[--targets t1,t2] [--root DIR] [--truth EARLIER.json[,MORE.json]] [--save-truths FILE] [--rules FILE] [--rejudge] [--jobs N] [--fp32-seeds N] [--sim-seeds N] [--no-probe] [--probe-every N] [--rollout K] [--rollout-every N] [PROGRAM]\n",
               why);
  return 2;
}

int Main(int argc, char** argv) {
  PinKernels(argv);
  torch::set_num_threads(1);
  const std::string kernels = KernelsInUse();
  const std::vector<std::pair<Program, Group>> all = Corpus();
  {
    std::set<std::string> names;
    for (const auto& [p, group] : all) {
      // Truths are keyed by name: two programs of one name would share one.
      if (!names.insert(p.name).second) return Usage(("two programs named '" + p.name + "' in the corpus").c_str());
    }
  }
  bool json = false, list = false, list_groups = false, verbose = false, probe = true, seeds_given = false,
       rejudge = false;
  std::vector<std::string> want_programs, want_targets;
  std::string truth_file, rules_file, save_truths;
  // With --rejudge, threads that judge a program's targets (the judging is
  // most of a --rejudge); when training, processes that each train a batch
  // of the programs (TrainInProcesses; each training is on one thread).
  int jobs = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  bool jobs_given = false;  // training in --jobs processes is asked for, never the default
  // The flags a --jobs child gets as given (TrainInProcesses): every flag
  // but those of this process alone, so that a flag added later changes the
  // children's training and judging as it changes this process's.
  const std::set<std::string> parent_only = {"--json",     "--list", "--groups",      "--table",
                                             "--programs", "--root", "--save-truths", "--jobs"};
  std::vector<std::string> forwarded;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const int flag_at = i;
    auto forward = [&] {
      if (a.empty() || a[0] != '-' || parent_only.count(a)) return;
      for (int k = flag_at; k <= i; ++k) forwarded.push_back(argv[k]);
    };
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) return "";
      (void)flag;
      return argv[++i];
    };
    if (a == "--json") {
      json = true;
    } else if (a == "--list") {
      list = true;
    } else if (a == "--groups") {
      list_groups = true;
    } else if (a == "--table") {
    } else if (a == "--probe-every") {
      const std::string v = value(a.c_str());
      g_probe_every = std::atoi(v.c_str());
      if (g_probe_every < 1) return Usage("--probe-every needs a number of steps >= 1");
    } else if (a == "--rollout" || a == "--rollout-every") {
      const std::string v = value(a.c_str());
      const int n = std::atoi(v.c_str());
      if (a == "--rollout" && (v.empty() || n < 0)) return Usage("--rollout needs a number of steps >= 0 (0: none)");
      if (a == "--rollout-every" && n < 1) return Usage("--rollout-every needs a number of steps >= 1");
      (a == "--rollout" ? g_rollout : g_rollout_every) = n;
    } else if (a == "--fp32-seeds") {
      const std::string v = value(a.c_str());
      g_fp32_seeds = std::atoi(v.c_str());
      if (g_fp32_seeds < 1) return Usage("--fp32-seeds needs a number of fp32 runs >= 1 (1: the tracked run alone)");
      seeds_given = true;
    } else if (a == "--sim-seeds") {
      const std::string v = value(a.c_str());
      g_sim_seeds = std::atoi(v.c_str());
      if (g_sim_seeds < 1) return Usage("--sim-seeds needs a number of simulated runs per target >= 1");
      seeds_given = true;
    } else if (a == "--jobs") {
      const std::string v = value(a.c_str());
      jobs = std::atoi(v.c_str());
      if (jobs < 1) {
        return Usage("--jobs needs a number >= 1: of processes that train (default 1), of threads that judge the "
                     "targets (default: the cores)");
      }
      jobs_given = true;
    } else if (a == "--rejudge") {
      rejudge = true;  // the fp32 runs an earlier run left under --root, judged again
    } else if (a == "--no-probe") {
      probe = false;  // the records' rules alone (no lp_forward_loss), to compare
    } else if (a == "--rules") {
      const std::string v = value(a.c_str());
      if (v.empty()) return Usage("--rules needs a rules file (JSON, as `lpsim check --rules` reads)");
      lpsim::StatusOr<lpsim::CheckConfig> c = lpsim::CheckConfig::FromFile(v);
      if (!c.ok()) return Usage(("--rules: " + c.status().message()).c_str());
      g_rules = std::move(c).value();
      rules_file = v;
    } else if (a == "--programs" || a == "--targets" || a == "--root" || a == "--truth" || a == "--save-truths") {
      const std::string v = value(a.c_str());
      if (v.empty()) return Usage((a + " needs a value").c_str());
      if (a == "--save-truths") save_truths = v;
      if (a == "--programs") want_programs = Split(v);
      if (a == "--targets") want_targets = Split(v);
      if (a == "--root") g_root = v;
      if (a == "--truth") truth_file = v;
    } else if (!a.empty() && a[0] != '-') {
      want_programs.push_back(a), verbose = true;
    } else {
      return Usage(("unknown option '" + a + "'").c_str());
    }
    forward();
  }
  if (!truth_file.empty() && seeds_given) {
    return Usage("--fp32-seeds and --sim-seeds set how truths are simulated; with --truth they are read (and keep "
                 "theirs)");
  }
  if (rejudge && truth_file.empty()) {
    return Usage("--rejudge judges recorded fp32 runs again against truths from a file: give --truth FILE (the "
                 "truths are simulated, not recorded)");
  }
  if (g_rollout > 0 && g_rollout_every % g_probe_every != 0) {
    return Usage("--rollout-every must be a multiple of --probe-every: rollouts start at probe steps");
  }
  if (list_groups) {
    // The whole corpus's groups in order (ctest's validation.groups checks
    // them against VALIDATION_GROUP_FIRSTS in CMake, which builds the
    // other tests' regex: a group added here and not there fails it).
    for (Group g = 0; g < kGroups; ++g) {
      int n = 0, planted = 0;
      for (const auto& [p, group] : all) {
        if (group != g) continue;
        ++n;
        if (p.planted) ++planted;
      }
      std::printf("%s\t%d\t%d\n", GroupName(g), n, planted);
    }
    return 0;
  }
  std::vector<std::pair<Program, Group>> programs;
  for (const auto& [p, group] : all) {
    if (want_programs.empty() || std::count(want_programs.begin(), want_programs.end(), p.name)) {
      programs.push_back({p, group});
    }
  }
  for (const std::string& w : want_programs) {
    bool known = false;
    for (const auto& [p, group] : all) known |= p.name == w;
    if (!known) return Usage(("unknown program '" + w + "' (--list shows them)").c_str());
  }
  std::vector<lpsim::Target> targets;
  if (want_targets.empty()) {
    lpsim::StatusOr<std::vector<lpsim::Target>> b = lpsim::BuiltinTargets();
    if (!b.ok()) return Usage(b.status().message().c_str());
    // Targets that train: an inference-only one (int8-npu: its gradients
    // stay fp32 on the host) has no training to validate.
    for (lpsim::Target& t : *b) {
      if (!t.inference_only) targets.push_back(std::move(t));
    }
  } else {
    for (const std::string& n : want_targets) {
      lpsim::StatusOr<lpsim::Target> t = lpsim::FindTarget(n);
      if (!t.ok()) return Usage(("--targets: " + t.status().message()).c_str());
      if (t->inference_only) {
        return Usage(("--targets: " + t->name + " runs inference only (inference_only in " + t->origin +
                      "): there is no training on it to validate; name targets that train")
                         .c_str());
      }
      for (const lpsim::Target& earlier : targets) {
        if (earlier.name == t->name) {
          // A target's name keys its run directories, its truths and its
          // probes' scalars: two of one name would overwrite each other.
          return Usage(("--targets: two targets are named '" + t->name + "' (" + earlier.origin + " and " +
                        t->origin + "): give each file its own \"name\"")
                           .c_str());
        }
      }
      targets.push_back(std::move(t).value());
    }
  }

  Truths truths;
  int truths_seeds = 0, truths_sim_seeds = 0;  // the seeds of the --truth files' truths (fp32, simulated)
  std::set<std::string> truths_kernels;        // the kernels they were simulated with, as the files record them
  if (!truth_file.empty()) {
    // Several files (comma-separated) merge: one per group of the corpus,
    // say, each from its own --programs run. A later file's run of the same
    // program and target replaces an earlier one's.
    for (const std::string& file : Split(truth_file)) {
      int seeds = 0, sim_seeds = 0;
      std::string file_kernels;
      const std::string err = LoadTruths(file, &truths, &seeds, &sim_seeds, &file_kernels);
      if (!err.empty()) return Usage(("--truth: " + err).c_str());
      if (truths_seeds != 0 && (seeds != truths_seeds || sim_seeds != truths_sim_seeds)) {
        return Usage(("--truth: " + file + " was judged with " + std::to_string(seeds) + " fp32 and " +
                      std::to_string(sim_seeds) + " simulated seeds, an earlier file with " +
                      std::to_string(truths_seeds) + " and " + std::to_string(truths_sim_seeds) +
                      ": merge truths of one kind")
                         .c_str());
      }
      truths_seeds = seeds, truths_sim_seeds = sim_seeds;
      // Files simulated with other kernels merge (their truths are judged
      // alike), and the record names each.
      truths_kernels.insert(file_kernels.empty() ? "not recorded" : file_kernels);
    }
    for (const auto& [p, group] : programs) {
      for (const lpsim::Target& t : targets) {
        if (!truths.count({p.name, t.name})) {
          return Usage(("--truth: " + truth_file + " has no run of " + p.name + " on " + t.name +
                        ": run it without --truth (or narrow --programs/--targets)")
                           .c_str());
        }
      }
    }
  }
  // --list with --truth: the truths cover every program listed on every
  // target (checked above), so the file fits this corpus.
  if (list) {
    for (const auto& [p, group] : programs) {
      std::printf("%s\t%s\t%s%s\n", p.name.c_str(), GroupName(group), p.planted ? "planted: " : "",
                  p.description.c_str());
    }
    return 0;
  }
  if (!save_truths.empty()) {
    // Refused before anything trains: an input, a directory, or a folder
    // that cannot take the file would otherwise fail after the run.
    lpsim::Status s = lpsim::CheckOutput(save_truths, Split(truth_file), {}, "--save-truths");
    if (!s.ok()) return Usage(s.message().c_str());
  }
  // One run per root: two on one --root train the same programs into the
  // same run directories and corrupt each other's databases. Refused here,
  // before anything trains, rather than at the first program both reach
  // (each run directory is locked too, core/dir_lock.h).
  lpsim::StatusOr<lpsim::DirLock> root_lock = lpsim::DirLock::Acquire(g_root, "--root");
  if (!root_lock.ok()) return Usage((root_lock.status().message() + " (--root DIR gives this run its own)").c_str());
  const auto start = std::chrono::steady_clock::now();
  std::vector<Cell> cells;
  // How every fp32 run is probed: what its note records, and what
  // --rejudge asks of a recorded run.
  RunSettings settings{probe, g_probe_every, g_rollout, g_rollout_every, {}, kernels};
  std::vector<std::string> probe_targets;  // the tracker is given each target's file
  if (probe) {
    for (const lpsim::Target& t : targets) settings.targets.push_back(t.name), probe_targets.push_back(t.origin);
  }
  std::map<std::string, std::pair<double, double>> fp32_final;  // program -> (loss, accuracy)
  std::set<std::string> fp32_kernels;  // --rejudge: the kernels the recorded runs were trained with
  nlohmann::ordered_json fp32_runs = nlohmann::ordered_json::object();  // program -> loss and probes (--json)
  // --jobs N while training: batches of programs in processes of their own
  // (TrainInProcesses), which give the cells and the fp32 runs this loop
  // would; a single program, or one printed in full, trains here.
  const bool in_processes = !rejudge && jobs_given && jobs > 1 && programs.size() > 1 && !verbose;
  if (in_processes) {
    const std::string err = TrainInProcesses(programs, targets, forwarded, jobs, &cells, &fp32_runs, &fp32_final);
    if (!err.empty()) {
      std::fprintf(stderr, "lpsim validate: %s\n", err.c_str());
      return 1;
    }
  }
  const std::vector<std::pair<Program, Group>> trained_elsewhere;  // in_processes: none to train here
  for (const auto& [p, group] : in_processes ? trained_elsewhere : programs) {
    StoredRun stored;
    std::vector<Curve> reference(1);
    if (rejudge) {
      std::string recorded_kernels;
      const std::string err = ReadStoredRun(p, settings, &stored, &reference[0], &recorded_kernels);
      if (!err.empty()) return Usage(err.c_str());
      fp32_kernels.insert(recorded_kernels.empty() ? "not recorded" : recorded_kernels);
    } else {
      // The old note goes first: a run stopped while it trains leaves none, so
      // --rejudge refuses its half-written database instead of reading it.
      std::remove(RunNotePath(p).c_str());
      reference[0] = Train(p, nullptr, &stored, probe_targets);
      const lpsim::Status s = WriteRunNote(p, reference[0], settings);
      if (!s.ok()) {
        std::fprintf(stderr, "lpsim validate: writing %s: %s\n", RunNotePath(p).c_str(), s.message().c_str());
        return 1;
      }
    }
    if (truths.empty()) {
      for (int k = 1; k < g_fp32_seeds; ++k) reference.push_back(Train(p, nullptr, nullptr, {}, kSeed + k));
    }
    const Curve& fp32 = reference.front();
    if (json) {
      nlohmann::ordered_json& run = fp32_runs[p.name];
      run["loss"] = NumArray(fp32.loss);
      // The final loss and accuracy of each seed's run (the tracked one
      // first; the others only when the truths are simulated here).
      run["seeds"] = nlohmann::ordered_json::array();
      for (size_t k = 0; k < reference.size(); ++k) {
        const Curve& c = reference[k];
        run["seeds"].push_back({{"seed", kSeed + static_cast<int>(k)},
                                {"final_loss", JsonNum(c.Final(c.loss))},
                                {"final_accuracy", c.accuracy.empty() ? nlohmann::json() : JsonNum(c.Final(c.accuracy))}});
      }
      run["probes"] = nlohmann::ordered_json::object();
      for (const lpsim::ScalarRecord& r : stored.scalars) {
        if (r.name.rfind("probe_loss", 0) != 0 && r.name.rfind("rollout_loss", 0) != 0) continue;
        run["probes"][r.name].push_back(
            {r.step, std::isfinite(r.value) ? nlohmann::ordered_json(r.value) : nlohmann::ordered_json()});
      }
    }
    fp32_final[p.name] = {fp32.Final(fp32.loss), fp32.accuracy.empty() ? NAN : fp32.Final(fp32.accuracy)};
    if (verbose) {
      std::printf("%s (%s): fp32 loss %.4g -> %.4g", p.name.c_str(), GroupName(group), fp32.loss.front(),
                  fp32.Final(fp32.loss));
      if (!fp32.accuracy.empty()) std::printf(", accuracy %.2f", fp32.Final(fp32.accuracy));
      std::printf("\n");
    }
    // The targets are judged on the one stored run, each on its own: in
    // --jobs threads (the cells and their order as in one).
    std::vector<Prediction> preds = PredictAll(stored, targets, jobs);
    for (size_t ti = 0; ti < targets.size(); ++ti) {
      const lpsim::Target& t = targets[ti];
      Truth truth;
      if (truths.empty()) {
        std::vector<Truth> runs;
        for (int k = 0; k < g_sim_seeds; ++k) runs.push_back(Judge(reference, Train(p, &t, nullptr, {}, kSeed + k)));
        truth = Combine(std::move(runs));
      } else {
        truth = truths.at({p.name, t.name});
      }
      Cell c{p.name, t.name, group, std::move(preds[ti]), std::move(truth)};
      if (verbose) {
        std::printf("  %-20s predicted: %s  simulated: %s (loss %.4g)\n", t.name.c_str(),
                    c.pred.fires ? (c.pred.rule + "@" + std::to_string(c.pred.step) + " " + c.pred.tensor).c_str()
                                 : "fine",
                    c.truth.broken ? ("breaks@" + std::to_string(c.truth.step) + ": " + c.truth.why).c_str() : "fine",
                    c.truth.final_loss);
      }
      if (!json && !verbose) {
        std::fprintf(stderr, "%s %s: %s / %s\n", p.name.c_str(), t.name.c_str(), c.pred.fires ? "predicted" : "-",
                     c.truth.broken ? "breaks" : "fine");
      }
      cells.push_back(std::move(c));
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The kernels the fp32 runs were trained with: this process's, or those
  // the recorded runs' notes name (--rejudge).
  std::string fp32_with = fp32_kernels.empty() ? kernels : "";
  for (const std::string& k : fp32_kernels) fp32_with += (fp32_with.empty() ? "" : "; ") + k;

  // How the truths were judged: --json records it, --save-truths too, and
  // --truth refuses a file judged otherwise (LoadTruths).
  const nlohmann::ordered_json tolerance = {{"loss_share_of_fp32_improvement", kLossTolerance},
                                            {"loss_scale", kLossScale},
                                            {"accuracy", kAccuracyTolerance},
                                            {"final_window", kFinalWindow},
                                            {"break_window", kBreakWindow},
                                            {"fp32_seeds", truths.empty() ? g_fp32_seeds : truths_seeds},
                                            {"sim_seeds", truths.empty() ? g_sim_seeds : truths_sim_seeds}};
  // The kernels the truths were simulated with: this process's, or those
  // the --truth files record.
  std::string simulated_with = truths.empty() ? kernels : "";
  for (const std::string& k : truths_kernels) simulated_with += (simulated_with.empty() ? "" : "; ") + k;
  if (!save_truths.empty()) {
    // The truths alone, one run per line, in the shape --truth reads: the
    // corpus's simulations kept in the repository (examples/validation/
    // truths.json) so that a rule change is judged in one --truth run.
    std::string text = "{\"tolerance\": " + tolerance.dump() + ", \"kernels\": " +
                       nlohmann::json(simulated_with).dump() + ",\n\"runs\": [\n";
    for (size_t i = 0; i < cells.size(); ++i) {
      const Cell& c = cells[i];
      const bool classifier = std::isfinite(fp32_final[c.program].second);
      nlohmann::ordered_json r = {{"program", c.program}, {"target", c.target}};
      r.update(TruthJson(c.truth, classifier));
      text += r.dump() + (i + 1 < cells.size() ? ",\n" : "\n");
    }
    text += "]}\n";
    const lpsim::Status s = lpsim::WriteOutput(save_truths, text);
    if (!s.ok()) {
      std::fprintf(stderr, "lpsim validate: --save-truths: %s\n", s.message().c_str());
      return 1;
    }
    std::fprintf(stderr, "saved the truths of %zu runs to %s\n", cells.size(), save_truths.c_str());
  }

  // Per target: all programs ([0]), and each group ([1 + group]).
  using Tallies = std::array<Tally, 1 + kGroups>;
  std::map<std::string, Tallies> tally;
  Tallies overall;
  for (Tally& t : overall) t.pooled = true;
  for (const Cell& c : cells) {
    const size_t g = 1 + c.group;
    auto& t = tally[c.target];
    t[0].Add(c), t[g].Add(c);
    overall[0].Add(c), overall[g].Add(c);
  }
  // The cells per target and all of them, for the rules' tallies.
  std::vector<const Cell*> all_cells;
  std::map<std::string, std::vector<const Cell*>> target_cells;
  for (const Cell& c : cells) all_cells.push_back(&c), target_cells[c.target].push_back(&c);
  if (json) {
    nlohmann::ordered_json j;
    j["tolerance"] = tolerance;
    j["kernels"] = {{"fp32_runs", fp32_with}, {"truths", simulated_with}};
    if (rejudge) j["rejudged"] = g_root;  // the runs were not trained here
    j["seconds"] = seconds;
    // What the predictions were judged with: the lp_* rules' settings
    // (--rules, or the defaults), so that a table names its rules.
    {
      nlohmann::ordered_json rules = nlohmann::ordered_json::object();
      for (const auto& [name, rule] : g_rules.rules) {
        if (name.rfind("lp_", 0) != 0) continue;
        nlohmann::ordered_json r = {{"enabled", rule.enabled}};
        for (const auto& [param, v] : g_rules.Params(name)) r[param] = v;
        rules[name] = r;
      }
      j["rules"] = {{"file", rules_file.empty() ? nlohmann::json() : nlohmann::json(rules_file)}, {"lp", rules}};
    }
    auto tj = [](const Tally& t) {
      const PrecisionRecallIntervals ci = t.Intervals();
      return nlohmann::ordered_json{{"tp", t.tp}, {"fp", t.fp}, {"fn", t.fn}, {"tn", t.tn},
                                    {"precision", JsonNum(t.Precision())},
                                    {"precision_ci95", IntervalJson(ci.precision)},
                                    {"recall", JsonNum(t.Recall())},
                                    {"recall_ci95", IntervalJson(ci.recall)},
                                    {"median_lead_steps", JsonNum(t.MedianLead())}};
    };
    auto groups = [&](const Tallies& t) {
      nlohmann::ordered_json o = {{"all", tj(t[0])}};
      for (size_t g = 0; g < kGroups; ++g) o[kGroupSources[g].name] = tj(t[1 + g]);
      return o;
    };
    auto by_rule = [](const std::vector<std::pair<std::string, RuleTally>>& rules) {
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (const auto& [name, r] : rules) {
        const PrecisionRecallIntervals ci = r.first.Intervals();
        o[name] = {{"first",
                    {{"tp", r.first.tp},
                     {"fp", r.first.fp},
                     {"precision", JsonNum(r.first.Precision())},
                     {"precision_ci95", IntervalJson(ci.precision)},
                     {"median_lead_steps", JsonNum(r.first.MedianLead())}}},
                   {"fired", {{"tp", r.fired_tp}, {"fp", r.fired_fp}}},
                   {"alone", {{"tp", r.alone_tp}, {"fp", r.alone_fp}}}};
      }
      return o;
    };
    for (const auto& [name, t] : tally) {
      nlohmann::ordered_json row = {{"target", name}};
      row.update(groups(t));
      row["by_rule"] = by_rule(ByRule(target_cells[name], /*pooled=*/false));
      j["targets"].push_back(row);
    }
    j["overall"] = groups(overall);
    j["by_rule"] = by_rule(ByRule(all_cells, /*pooled=*/true));
    for (const Cell& c : cells) {
      const bool classifier = std::isfinite(fp32_final[c.program].second);
      nlohmann::ordered_json run = {{"program", c.program},
                                    {"target", c.target},
                                    {"half", GroupName(c.group)},
                                    {"predicted", c.pred.fires},
                                    {"predicted_step", c.pred.fires ? nlohmann::json(c.pred.step) : nlohmann::json()},
                                    {"rule", c.pred.rule},
                                    {"tensor", c.pred.tensor},
                                    {"message", c.pred.message},
                                    {"evidence", c.pred.evidence},
                                    {"first_step_by_rule", c.pred.first_by_rule}};
      run.update(TruthJson(c.truth, classifier));
      // fp32's finals beside the truth's (accuracy: null for a regression).
      run["fp32_final_loss"] = JsonNum(fp32_final[c.program].first);
      run["fp32_final_accuracy"] = JsonNum(fp32_final[c.program].second);
      j["runs"].push_back(std::move(run));
    }
    // The fp32 runs' loss per step and probe losses (for a rule's reader).
    j["fp32_runs"] = fp32_runs;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("\n%zu programs x %zu targets, %.0f s. Broken: in most of %d simulated runs (seeds), the loss "
              "non-finite, or the final loss above the worst of %d fp32 runs (seeds) by > %.0f%% of fp32's "
              "improvement (on the linear or the log scale, the tighter), or accuracy > %.0f points below the "
              "worst.\n\n",
              programs.size(), targets.size(), seconds, truths.empty() ? g_sim_seeds : truths_sim_seeds,
              truths.empty() ? g_fp32_seeds : truths_seeds, 100 * kLossTolerance, 100 * kAccuracyTolerance);
  std::printf("Kernels (examples/validation/validation.cc PinKernels): the fp32 runs' %s; the truths' "
              "simulations' %s.\n\n",
              fp32_with.c_str(), simulated_with.c_str());
  if (rejudge) std::printf("Judged again from the fp32 runs recorded under %s (--rejudge).\n\n", g_root.c_str());
  if (!rules_file.empty()) std::printf("Predicted with the rules of %s.\n\n", rules_file.c_str());
  std::printf("Precision and recall with their 95%% intervals: the programs are a sample (per target: "
              "Clopper-Pearson; all targets: the bootstrap over programs, whose cells on the targets are not "
              "independent).\n\n");
  std::string header = "| target | TP | FP | FN | TN | precision (95%) | recall (95%) | median lead (steps) |";
  std::string rule = "|---|---|---|---|---|---|---|---|";
  for (const GroupSource& g : kGroupSources) header += std::string(" precision / recall ") + g.name + " |", rule += "---|";
  std::printf("%s\n%s\n", header.c_str(), rule.c_str());
  auto row = [](const std::string& name, const Tallies& t) {
    const PrecisionRecallIntervals ci = t[0].Intervals();
    std::printf("| %s | %d | %d | %d | %d | %s | %s | %s |", name.c_str(), t[0].tp, t[0].fp, t[0].fn, t[0].tn,
                WithInterval(t[0].Precision(), ci.precision).c_str(), WithInterval(t[0].Recall(), ci.recall).c_str(),
                Num(t[0].MedianLead(), "%g").c_str());
    for (size_t g = 1; g <= kGroups; ++g) {
      std::printf(" %s / %s |", Num(t[g].Precision()).c_str(), Num(t[g].Recall()).c_str());
    }
    std::printf("\n");
  };
  for (const auto& [name, t] : tally) row(name, t);
  row("**all targets**", overall);
  std::printf("\nBy rule, all targets: each predicted cell under the rule that fired first (its hits, false "
              "alarms, precision with its 95%% interval, median lead); \"fired\": the cells where the rule fired at "
              "any step; \"alone\": those where no other rule fired.\n\n");
  std::printf("| rule | first: hits | first: false alarms | first: precision (95%%) | first: median lead (steps) | "
              "fired: hits / false alarms | alone: hits / false alarms |\n|---|---|---|---|---|---|---|\n");
  for (const auto& [name, r] : ByRule(all_cells, /*pooled=*/true)) {
    std::printf("| %s | %d | %d | %s | %s | %d / %d | %d / %d |\n", name.c_str(), r.first.tp, r.first.fp,
                WithInterval(r.first.Precision(), r.first.Intervals().precision).c_str(),
                Num(r.first.MedianLead(), "%g").c_str(), r.fired_tp, r.fired_fp, r.alone_tp, r.alone_fp);
  }
  std::printf("\nMisses and false alarms (program @ target: prediction / truth):\n");
  for (const Cell& c : cells) {
    if (c.pred.fires == c.truth.broken) continue;
    std::printf("- %s @ %s: %s / %s\n", c.program.c_str(), c.target.c_str(),
                c.pred.fires ? (c.pred.rule + "@" + std::to_string(c.pred.step) + " " + c.pred.tensor).c_str()
                             : "no prediction",
                c.truth.broken ? ("breaks@" + std::to_string(c.truth.step) + " (" + c.truth.why + ")").c_str()
                               : "trains fine");
  }
  return 0;
}

}  // namespace
}  // namespace lpsim::validation

int main(int argc, char** argv) {
  // A program or a target the tracker refuses throws (TrackerError, or a
  // stored run that cannot be read back): one line and a non-zero exit, not
  // std::terminate's abort.
  try {
    return lpsim::validation::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lpsim validate: error: %s\n", e.what());
    return 1;
  }
}
