// Tracker: wraps a LibTorch training loop, simulates formats and scaling per
// tensor, and keeps the run.
//
// Every tracked tensor (activations at taps, their gradients, weights, weight
// gradients, optimizer state) goes through one SIMD analyze pass per tracked
// step for all candidate formats; the records go to the run database
// (store/) on a background thread.
//
//   #include <lpsim/tracker.h>
//   lpsim::TrackerOptions opt;
//   opt.formats = {"e4m3fn", "e5m2", "bf16"};
//   opt.scaling = lpsim::Scaling::Delayed(16);
//   opt.run_dir = "runs/exp1";
//   lpsim::Tracker tracker(*model, optimizer, opt);
//   for (...) {
//     optimizer.zero_grad();
//     x = tracker.tap("fc1", model->fc1(x));   // activation + its gradient
//     ...
//     loss.backward();
//     tracker.step(loss);                      // replaces optimizer.step()
//   }
#ifndef LPSIM_TRACKER_TRACKER_H_
#define LPSIM_TRACKER_TRACKER_H_

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "checks/checker.h"
#include "core/records.h"
#include "core/scaling.h"
#include "core/status.h"

namespace lpsim {

namespace live {
class Agent;
}  // namespace live

// Which of the candidate formats (TrackerOptions::formats) the rules judge
// each tensor in. The rules see only the counts of the format named for the
// tensor's role; roles without one get no low-precision findings.
//
//   opt.judge = JudgeFormats::HybridFp8();  // e4m3fn forward, e5m2 backward
//   opt.judge = JudgeFormats::All();        // every candidate
struct JudgeFormats {
  enum class Mode {
    // The run's role formats (the default). With a target, each role's float
    // storage format (with the target's recipe; roles the target keeps in
    // fp32, integer or block floating point are not judged, optimizer state
    // only when the target casts it); without one, HybridFp8() (with the
    // run's recipe) for those of its two formats that are candidates
    // (neither a candidate: every candidate is judged).
    kByRole,
    // Per role the format `formats` names (each one of the candidates).
    kListed,
    // Every candidate format (the behaviour before issue 10: unscaled e4m3fn
    // gradients then underflow in every network, though no recipe keeps
    // gradients in e4m3 unscaled).
    kAll,
  };
  Mode mode = Mode::kByRole;
  std::map<Role, std::string> formats;  // kListed

  static JudgeFormats ByRole() { return {}; }
  static JudgeFormats All() { return {Mode::kAll, {}}; }
  static JudgeFormats Listed(std::map<Role, std::string> formats) {
    return {Mode::kListed, std::move(formats)};
  }
  // Activations and weights in `forward`, both gradients in `backward`, the
  // optimizer state not at all: as FP8 training stores them.
  static JudgeFormats HybridFp8(const std::string& forward = "e4m3fn",
                                const std::string& backward = "e5m2") {
    return Listed({{Role::kActivation, forward}, {Role::kWeight, forward},
                   {Role::kActivationGrad, backward}, {Role::kWeightGrad, backward}});
  }
};

struct TrackerOptions {
  // Candidate formats: built-in names or custom specs (docs/formats.md).
  std::vector<std::string> formats = {"e4m3fn", "e5m2", "bf16"};
  // The recipe applied before each cast, and overrides for single roles.
  Scaling scaling = Scaling::Delayed(16);
  std::map<Role, Scaling> role_scaling;
  Role roles = Role::All;
  // ECMAScript regexes searched in tensor names ("fc1", "fc1.weight",
  // "fc1.weight.exp_avg"); empty include = everything, empty exclude = nothing.
  std::string include;
  std::string exclude;
  // Record every `every`-th step (loss and learning rate: every step).
  int every = 1;
  std::string run_dir = "runs/run";
  std::string run_name;        // default: the run_dir's last component
  bool overwrite = false;      // replace an existing run in run_dir
  // Simulate mode: activations at taps and weights in forward are
  // fake-quantized to simulate_forward, activation and weight gradients to
  // simulate_backward (straight-through), fp32 master weights kept; each with
  // the recipe of its role. Analysis still sees the unquantized values.
  //
  // Per-tensor delayed scaling starts as Transformer Engine's DelayedScaling
  // does: scale 1.0 and an amax history of zeros, so the first cast of each
  // tensor is unscaled, and the scale follows max * 2^-margin / max(history)
  // from the next step on. That scale has no headroom: a tensor whose amax
  // exceeds its whole history (the norm in early training) lands beyond the
  // format's max. Hardware FP8 conversions clamp there (CUDA's __nv_fp8_*
  // constructors and TE's casts use __NV_SATFINITE), so simulate-mode casts
  // saturate by default and neither an empty history nor a grown amax turns
  // into Inf/NaN; set simulate_saturate = false to get the formats' own
  // overflow rule (e4m3fn: NaN, e5m2: Inf).
  //
  // The gradients are checked for Inf/NaN as the optimizer receives them,
  // i.e. after their fake quantization: a non-finite one skips the update.
  bool simulate = false;
  std::string simulate_forward = "e4m3fn";
  std::string simulate_backward = "e5m2";
  bool simulate_saturate = true;
  // A hardware target (core/target.h, docs/targets.md): a built-in name or
  // a .json path. Each role then takes its recipe from the target (an entry
  // in role_scaling still overrides it), the target's float storage formats
  // join `formats` as analysis candidates (up to the limit of one pass), and
  // simulate mode fake-quantizes every role as the target stores it:
  // activations and weights in forward, activation and weight gradients,
  // optimizer state after each update and the master weights, with the
  // role's format (integer and block floating point included), scaling,
  // rounding, subnormals and saturation. simulate_forward/backward are then
  // not used.
  std::string target;
  // Probes: the forward pass of an fp32 run on candidate hardware. Every
  // probe_every steps, step() calls `probe` (a closure that computes this
  // step's loss on this step's batch: a forward pass and the loss function)
  // once as is and once per target in probe_targets (empty: `target`), with
  // weights and the activations at taps as that target stores them (format,
  // scaling, rounding, subnormals, saturation; a delayed recipe's amax
  // history follows every step: the probes' casts, and between probes the
  // tensors' amax; matrix units are not simulated). Each call runs without
  // gradients, before the update, records nothing, and leaves the run as
  // it found it: weights, the modules' buffers (BatchNorm statistics) and
  // the CPU random state (so dropout draws the same masks in every call and
  // in training). The losses, times probe_loss_scale (below), become the
  // scalars "probe_loss" and "probe_loss:TARGET", which lp_forward_loss
  // judges against the losses step() was given (docs/checks.md).
  // A weight average the program keeps through a tap (a module buffer that
  // a tap's output, computed without gradients, is copied into at every
  // step, moving as b = b + a (w - b) toward a parameter w of its shape: an
  // EMA of the weights, a mean teacher; a fitted at every step) is followed
  // per probe target as that target would have kept it, the tap's cast of
  // the same update at every step, and probes and rollouts on the target
  // read that copy: an update below half the stored average's step is lost
  // there, and the average stalls where fp32's moves on.
  // Not with simulate mode, which runs on the target already.
  std::function<torch::Tensor()> probe;
  std::vector<std::string> probe_targets;
  int probe_every = 8;
  // Rollouts: the probe trained, not only evaluated. Every
  // probe_rollout_every steps (a multiple of probe_every), step() trains a
  // copy of this step's weights and optimizer state for probe_rollout steps
  // on this step's batch (probe's loss times probe_loss_scale, the
  // training's static loss scale, backpropagated; the optimizer's step()
  // at this step's learning rate), once in fp32 and once per probe target
  // that trains (none on an inference-only one, Target::inference_only; no
  // rollout at all when every probe target is one) as simulate mode trains on it: weights, activations at taps, their
  // gradients, weight gradients, optimizer state and master weights as the
  // target stores them, an update whose cast gradients are not finite
  // skipped. Then probe's loss at the weights reached becomes the scalars
  // "rollout_loss" and "rollout_loss:TARGET", which lp_rollout judges
  // against the step's "probe_loss" and "probe_loss:TARGET"
  // (docs/checks.md), and the number of updates skipped becomes
  // "rollout_skipped" and "rollout_skipped:TARGET". Costs probe_rollout
  // forward and backward passes per target and rollout. The run is left as
  // found: weights, gradients, optimizer state, buffers, the random state
  // and the probe targets' amax histories. The optimizer's step() must work
  // without a closure (not LBFGS). 0: no rollouts.
  int probe_rollout = 0;
  int probe_rollout_every = 16;
  // The training's static loss scale: step() is given the loss times this,
  // `probe` returns it unscaled. Rollouts backpropagate probe's loss times
  // it, and every probe and rollout loss is recorded times it, in the units
  // of the losses step() records (the rules compare the two).
  double probe_loss_scale = 1;
  // Simulate mode: the matrix-multiply unit (mmu/unit.h, docs/mmu.md: "h100",
  // "b200", ...) that lpsim::Linear and lpsim::Conv2d (tracker/layers.h) run
  // their forward and both backward products on, with the activation, weight
  // and gradient formats above (or the target's roles). Empty: the unit the
  // target names, else none (plain torch products).
  std::string matmul_unit;
  int threads = 1;             // analyze threads per tensor
  // Analyze, check and store on a background thread: a tracked step then
  // costs the training thread one copy of each tracked tensor, and the
  // analysis overlaps the next steps (bounded by 256 MiB of queued copies).
  // Findings then reach StepResult of a later step (each keeps its own
  // .step); findings(), last_records() and Close() wait for the queue.
  // Inline instead (as if false) when a process group is set or a rule's
  // policy is raise, stop or capture, which act on the step itself.
  bool background = true;
  // Distributed: counts and histograms are all-reduced over this group and
  // rank 0 records. All ranks must tap the same tensors in the same order.
  c10::intrusive_ptr<c10d::ProcessGroup> process_group;
  // Called with every record of a tracked step on the recording rank (for
  // live views), on the thread that analyzes: the training thread, or the
  // tracker's own thread in the background mode.
  std::function<void(const TensorRecord&)> on_record;
  // Live (live/agent.h, docs/live.md): on the recording rank, serve this
  // job's records, scalars and findings (a dashboard, a JSON API, Server-Sent
  // Events) on http://live_host:PORT/ while it trains, and take commands
  // through knobs: every, paused, formats, and any added with
  // live_agent()->AddKnob. Each command applies at the end of a step and is
  // kept in the run as a "live_knob" finding. -1: off; 0: a free port. The
  // URL goes to stderr and to RUN_DIR/live.url. With nobody watching, a
  // record costs one atomic load. A host other than loopback needs
  // live_token.
  int live_port = -1;
  std::string live_host = "127.0.0.1";
  std::string live_token;
  // How an error about the agent names the port setting (a CLI names its flag).
  std::string live_port_name = "TrackerOptions.live_port";

  // Verification rules (checks/checker.h, docs/checks.md) run live on the
  // recording rank at the end of every step; their findings go to the run
  // database, Tracker::findings() and StepResult::findings, and each rule's
  // policy applies: warn prints to stderr (once per rule and tensor), raise
  // throws TrackerError from step() (after the step is recorded), stop sets
  // StepResult::stop, capture writes a capture folder of the step.
  bool checks = true;
  CheckConfig check_config = CheckConfig::Defaults();
  // Which format the rules judge each tensor in (JudgeFormats); the run
  // database keeps every candidate format (for `recommend`) either way.
  JudgeFormats judge;
  // On a non-finite loss or gradient (the update is skipped), write
  // RUN_DIR/captures/step_N/ (tracker/capture.h) and a captures row.
  bool capture_nonfinite = true;
  int max_captures = 10;       // per run; later ones only leave a note
  // Stored in the capture manifest: the built-in "mlp"/"cnn" let
  // `lpsim replay` rebuild the model; any other name is for lpsim::Replay.
  std::string capture_model;
};

// Thrown by the Tracker constructor (use Tracker::Create for a Status).
class TrackerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StepResult {
  int64_t step = 0;       // the step just finished
  bool applied = true;    // false: non-finite loss or gradient, update skipped
  bool tracked = false;   // records were taken at this step
  std::string reason;     // why the update was skipped
  bool stop = false;      // a rule with policy "stop" fired: end the training loop
  // New findings (most severe first): of this step, or in the background
  // mode of the steps analyzed since the previous step() (see f.step).
  std::vector<Finding> findings;
  std::string capture_dir;        // the capture folder written at this step, if any
};

class Tracker {
 public:
  // Validates everything up front (formats, regexes, run directory, model
  // parameters on CPU); throws TrackerError with a message saying what to fix.
  Tracker(torch::nn::Module& model, torch::optim::Optimizer& optimizer, TrackerOptions opt);
  static StatusOr<std::unique_ptr<Tracker>> Create(torch::nn::Module& model,
                                                   torch::optim::Optimizer& optimizer,
                                                   TrackerOptions opt);
  ~Tracker();  // flushes the run and marks it finished
  Tracker(const Tracker&) = delete;
  Tracker& operator=(const Tracker&) = delete;

  // Records an activation (and, through a tensor hook, its gradient) and
  // returns x, fake-quantized in simulate mode. `module_type` helps rules
  // and exports ("Linear", "ReLU", "Sigmoid", ...).
  torch::Tensor tap(const std::string& name, const torch::Tensor& x,
                    const std::string& module_type = "");

  // Checks loss and gradients are finite, records weight gradients, steps the
  // optimizer (unless something is non-finite), records weights, update/weight
  // ratios, optimizer state, loss and learning rate.
  // Throws TrackerError when a rule with policy "raise" fired.
  StepResult step(const torch::Tensor& loss);

  // Registers this step's batch for a capture (tracker/capture.h) and
  // snapshots the CPU RNG state, so call it before the forward pass. The
  // tensors are kept (not copied) until the step ends.
  void set_batch(const torch::Tensor& inputs, const torch::Tensor& targets);
  // Every finding of the run so far (rules and skipped steps), in order.
  std::vector<Finding> findings() const;

  // Records a named scalar at the current step (accuracy, ...).
  void scalar(const std::string& name, double value);

  int64_t current_step() const;
  bool tracking_now() const;      // whether this step is recorded
  const std::string& run_path() const;   // RUN_DIR/run.db
  std::vector<std::string> notes() const;  // tensors skipped and why
  // The records of the most recent tracked step (recording rank only).
  std::vector<TensorRecord> last_records() const;
  // The live agent (null unless TrackerOptions::live_port >= 0, on the
  // recording rank) and its URL ("" without one). It serves until the
  // tracker is destroyed; knobs added to it apply on the training thread.
  live::Agent* live_agent() const;
  std::string live_url() const;
  // Flushes and marks the run finished ("finished" = ok; anything else is
  // stored as the reason the run failed); returns the first error writing
  // the run hit, if any. Later calls do nothing and return ok. Without Close,
  // the destructor closes the run: "finished", or failed when an exception is
  // unwinding the training loop.
  Status Close(const std::string& status = "finished");

  class Impl;

 private:
  explicit Tracker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A Sequential whose every child's output is tapped (named by the child's
// name, e.g. "0", "1" or the names given at construction) once a Tracker is
// built over a model that contains it.
class TrackedSequentialImpl : public torch::nn::SequentialImpl {
 public:
  using torch::nn::SequentialImpl::SequentialImpl;
  torch::Tensor forward(torch::Tensor x);
  void set_tracker(Tracker* tracker, const std::string& prefix) {
    tracker_ = tracker;
    prefix_ = prefix;
  }

 private:
  Tracker* tracker_ = nullptr;
  std::string prefix_;
};
TORCH_MODULE(TrackedSequential);

// "torch::nn::LinearImpl" -> "Linear".
std::string ModuleTypeName(const torch::nn::Module& m);

}  // namespace lpsim

#endif  // LPSIM_TRACKER_TRACKER_H_
