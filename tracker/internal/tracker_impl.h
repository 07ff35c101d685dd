// Tracker's insides, shared by the files that define them: tracker.cc (the
// public Tracker, taps and records), tracker_setup.cc (options, validation and
// opening the run), tracker_simulate.cc (simulate mode's fake quantization)
// and tracker_step.cc (Step, the rules' policies and captures). Not part of
// the public API.
#ifndef LPSIM_TRACKER_INTERNAL_TRACKER_IMPL_H_
#define LPSIM_TRACKER_INTERNAL_TRACKER_IMPL_H_

#include <torch/torch.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/step_analyzer.h"
#include "core/target.h"
#include "simd/role_quantizer.h"
#include "simd/scaling.h"
#include "store/run_db.h"
#include "tracker/layers.h"
#include "tracker/live_wiring.h"
#include "tracker/tracker.h"

namespace lpsim {

class Tracker::Impl {
 public:
  Impl(torch::nn::Module& model, torch::optim::Optimizer& optimizer, TrackerOptions opt)
      : model_(model), optimizer_(optimizer), opt_(std::move(opt)) {}
  // The layers go back to plain torch with the tracker (the model outlives
  // it), unless someone gave them another unit since.
  ~Impl() {
    for (UnitLayer* layer : unit_layers_) {
      if (layer->unit() == unit_gemms_) (void)layer->set_unit({});
    }
  }

  Status Init(Tracker* owner);
  // The matrix unit of simulate mode (TrackerOptions::matmul_unit or the
  // target's) with the role formats, validated; null when there is none.
  Status ResolveUnit();
  // TrackerOptions::probe and probe_targets, validated; the probe targets loaded.
  Status ResolveProbes();
  // The formats JudgeFormats::kByRole judges per role (see there).
  std::map<Role, std::string> DefaultJudgeFormats() const;
  torch::Tensor Tap(const std::string& name, const torch::Tensor& x,
                    const std::string& module_type);
  StepResult Step(const torch::Tensor& loss);
  void Scalar(const std::string& name, double value);
  Status Close(const std::string& status);
  void SetBatch(const torch::Tensor& inputs, const torch::Tensor& targets);
  std::vector<Finding> findings() const { return analyzer_->findings(); }

  int64_t step() const { return step_; }
  bool Tracking() const { return !paused_ && step_ % opt_.every == 0; }
  live::Agent* agent() const { return live_ ? live_->agent() : nullptr; }
  const std::string& run_path() const { return run_path_; }
  std::vector<std::string> notes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return notes_;
  }
  std::vector<TensorRecord> last_records() const { return analyzer_->last_records(); }

 private:
  struct Param {
    std::string name;
    torch::Tensor tensor;
    torch::Tensor master;  // simulate mode: fp32 master copy
  };

  const Scaling& RecipeFor(Role role) const {
    auto it = opt_.role_scaling.find(role);
    return it == opt_.role_scaling.end() ? opt_.scaling : it->second;
  }
  bool Selected(const std::string& name, Role role) {
    if (!Contains(opt_.roles, role)) return false;
    if (opt_.include.empty() && opt_.exclude.empty()) return true;
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, fresh] = selected_.try_emplace(name, true);
    if (fresh) {  // std::regex is slow: match each name once
      it->second = (opt_.include.empty() || std::regex_search(name, include_re_)) &&
                   (opt_.exclude.empty() || !std::regex_search(name, exclude_re_));
    }
    return it->second;
  }
  void Note(const std::string& key, const std::string& text);
  // A contiguous fp32 CPU view of t (a copy when needed), or undefined after
  // recording a note when t cannot be analyzed.
  torch::Tensor AsFloat(const std::string& name, const torch::Tensor& t);
  // Hands t's values to the analyzer (a copy in the background mode).
  void Snapshot(TensorSnapshot s, const torch::Tensor& t);
  void Record(const std::string& name, Role role, const torch::Tensor& t,
              const std::string& module_type);
  torch::Tensor FakeQuant(const Format& f, const std::string& key, Role role,
                          const torch::Tensor& x);
  // Simulate mode with a target: x as the target stores `role`.
  torch::Tensor SimulateRole(TargetRole role, const std::string& key, const torch::Tensor& x);
  // x as `role` is stored, for tensor `key` (a parameter's name, or its
  // optimizer state's "name.exp_avg"); may return x itself (kept as is).
  using RoleCast = std::function<torch::Tensor(TargetRole role, const std::string& key, const torch::Tensor& x)>;
  // After an update of p (simulate mode's Step, a rollout on a target): its
  // optimizer state and `master` as cast() stores them, from p's updated
  // values, and p's forward weights the cast of `master`.
  void StoreUpdated(Param& p, torch::Tensor& master, const RoleCast& cast);
  // Per tensor key, the state of a role's casts (a delayed recipe's history).
  using Quantizers = std::unordered_map<std::string, std::unique_ptr<RoleQuantizer>>;
  struct ProbeTarget;  // below
  // The quantizer of `key` in `quantizers`, made for `spec` on first use.
  RoleQuantizer* QuantizerFor(const RoleSpec& spec, const std::string& key, Quantizers* quantizers);
  // x as `spec` stores it, with the quantizer of `key` in `quantizers`.
  torch::Tensor CastAsRole(const RoleSpec& spec, const std::string& key, Quantizers* quantizers,
                           const torch::Tensor& x);
  // A role's quantizer key for tensor `name` ("activation:fc1"): simulate
  // mode's and the probes' casts keep their state under it.
  static std::string RoleKey(TargetRole role, const std::string& name) {
    return std::string(ToString(role)) + ":" + name;
  }
  // Whether this step is probed (TrackerOptions::probe, probe_every).
  bool ProbeStep() const { return !probes_.empty() && step_ % opt_.probe_every == 0; }
  bool RolloutStep() const {
    if (opt_.probe_rollout <= 0 || step_ % opt_.probe_rollout_every != 0) return false;
    // A target that runs inference only has no rollout.
    return std::any_of(probes_.begin(), probes_.end(), [](const ProbeTarget& p) { return !p.target.inference_only; });
  }
  // TrackerOptions::probe at this step: the losses as is and on each probe
  // target, as scalars (tracker_probe.cc).
  void Probe();
  // TrackerOptions::probe_rollout at this step: the losses after training
  // probe_rollout steps from here, in fp32 and on each probe target that
  // trains (not Target::inference_only), as
  // scalars (tracker_probe.cc).
  void Rollout();
  // An optimizer state kept aside by Rollout: its key, the object (for its
  // type) and its values serialized.
  struct SavedState {
    std::string key;
    const torch::optim::OptimizerParamState* like;
    std::string bytes;
  };
  // One rollout: on probe target t (null: fp32), from the weights
  // `weights` and the optimizer state `state` (serialized per key): the
  // loss reached (NaN when a loss turned non-finite) and the number of
  // updates skipped because the gradients, as t stores them, were not
  // finite.
  struct RolloutResult {
    double loss = NAN;
    int skipped = 0;
  };
  RolloutResult RolloutOn(ProbeTarget* t, const std::vector<torch::Tensor>& weights,
                          const std::vector<SavedState>& state);
  // Probes' stored states (tracker_probe.cc): a module buffer that a tap's
  // output, computed without gradients, is copied into (the program keeps
  // it as it stores that activation) and that moves as a running average
  // of a parameter of its shape, b_t = b_{t-1} + a_t (w_t - b_{t-1}) (an
  // exponential moving average of the weights: Polyak averaging, a mean
  // teacher; a_t fitted at every step). On a probe target that buffer is
  // the tap's cast of the same recurrence at every step, so an update
  // below half the stored value's step is lost there and the average
  // stalls; each probe target's copy is followed here, and its probes and
  // rollouts read that copy in place of the fp32 buffer.
  struct StoredState {
    std::string tap;
    std::string name;        // the buffer's, in the module
    torch::Tensor buffer;    // the module's
    torch::Tensor previous;  // its fp32 values one step earlier
    int param = -1;          // index in params_ of the averaged weight; -1: not fitted (not loaded)
    std::vector<torch::Tensor> on_target;  // per probe target (probes_' order)
  };
  // At Step, before the probes: finds new stored states among this step's
  // tap outputs, fits each state's recurrence and advances each probe
  // target's copy.
  void FollowStates();
  // Probe target i's copies of the fitted states into their buffers (the
  // caller restores the buffers).
  void LoadStates(size_t i);
  // Whether `tap` is a state's (states_ is empty in nearly every run).
  bool StateTap(const std::string& tap) const {
    return std::any_of(states_.begin(), states_.end(), [&](const StoredState& s) { return s.tap == tap; });
  }
  // Between probes: x (a tap's activation or a weight) reaches the amax
  // history of each probe target that keeps `role` with a delayed recipe,
  // as the target's casts at every step would.
  void ObserveForProbes(TargetRole role, const std::string& key, const torch::Tensor& x);
  std::vector<std::pair<const char*, torch::Tensor>> OptimizerState(const Param& p);
  float GlobalAmax(const torch::Tensor& x);
  static bool AllFinite(const torch::Tensor& t);
  void RecordOptimizerState(const Param& p);
  // A scalar to the run and to the rules.
  void AddScalar(const ScalarRecord& s) {
    if (writer_) analyzer_->Add(s);
  }
  // Writes RUN_DIR/captures/step_N/ for finding f; returns the folder or "".
  std::string Capture(const Finding& f, bool applied, double loss);
  // Applies the policies of the rules' new findings (result is null at
  // Close: only warn applies); returns the message of a "raise" finding.
  std::string Check(StepResult* result, double loss);
  Policy PolicyFor(const std::string& rule) const {
    auto it = opt_.check_config.rules.find(rule);
    return it == opt_.check_config.rules.end() ? Policy::kLog : it->second.policy;
  }

  torch::nn::Module& model_;
  torch::optim::Optimizer& optimizer_;
  TrackerOptions opt_;
  std::vector<Format> formats_;
  Format sim_fwd_, sim_bwd_;
  std::regex include_re_, exclude_re_;
  std::unique_ptr<LiveWiring> live_;  // before analyzer_: outlives its hooks
  std::unique_ptr<RunWriter> writer_;
  std::unique_ptr<StepAnalyzer> analyzer_;  // after writer_: destroyed first
  std::string run_path_;
  std::vector<Param> params_;
  int rank_ = 0;
  int64_t step_ = 0;
  bool paused_ = false;  // live knob: no tensor records until resumed
  bool closed_ = false;

  mutable std::mutex mu_;
  std::unordered_map<std::string, DelayedScaler> sim_delayed_;  // simulate, per tensor
  std::optional<Target> target_;
  c10::intrusive_ptr<UnitGemms> unit_gemms_;  // simulate mode with a matrix unit
  std::vector<UnitLayer*> unit_layers_;        // the layers given unit_gemms_
  std::set<Role> explicit_scaling_;  // roles whose recipe TrackerOptions.role_scaling set
  Quantizers sim_roles_;  // simulate + target
  // A target of TrackerOptions::probe_targets and its casts' state.
  struct ProbeTarget {
    Target target;
    Quantizers quantizers;
  };
  std::vector<ProbeTarget> probes_;
  bool in_probe_ = false;           // Probe() or Rollout() runs: taps record nothing
  int64_t rollout_step_ = 0;        // a rollout's step in progress: casts seed with step_ + it
  ProbeTarget* probing_ = nullptr;  // the probe target in progress: Tap casts for it
  std::unordered_map<std::string, torch::Tensor> no_grad_taps_;  // this step's tap outputs without gradients
  std::vector<StoredState> states_;
  std::unordered_map<std::string, bool> selected_;             // name -> include/exclude verdict
  std::vector<std::string> notes_;
  std::set<std::string> noted_;
  std::vector<std::vector<float>> before_;  // weights before the update (update ratios)

  std::set<std::string> warned_;
  torch::Tensor batch_inputs_, batch_targets_, batch_rng_;
  int captures_ = 0;
  int64_t last_capture_step_ = -1;
  bool initial_fed_ = false;  // initial weights given to the rules
};

namespace tracker_internal {

// A float32, CPU, contiguous tensor: read in place, without a copy.
inline bool FastPath(const torch::Tensor& t) {
  return t.scalar_type() == torch::kFloat && t.device().is_cpu() && t.is_contiguous();
}

}  // namespace tracker_internal
}  // namespace lpsim

#endif  // LPSIM_TRACKER_INTERNAL_TRACKER_IMPL_H_
