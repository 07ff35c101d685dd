// Tracker::Impl's set-up: TrackerOptions checked and resolved (formats,
// target, matrix unit, include/exclude), the run opened and the analyzer and
// live agent wired. Part of tracker.cc's Impl (tracker/internal/tracker_impl.h).
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/target.h"
#include "tracker/distributed.h"
#include "tracker/internal/tracker_impl.h"

namespace lpsim {
namespace {

StatusOr<Format> ParseOr(const std::string& spec, const char* what) {
  StatusOr<Format> f = ParseFormat(spec);
  if (!f.ok()) return Status::Error(std::string(what) + ": " + f.status().message());
  return f;
}

}  // namespace

Status Tracker::Impl::Init(Tracker* owner) {
  if (opt_.formats.empty()) return Status::Error("TrackerOptions.formats is empty: name at least one format");
  if (opt_.formats.size() > kMaxAnalyzeFormats) {
    return Status::Error("TrackerOptions.formats has " + std::to_string(opt_.formats.size()) +
                         " formats; at most " + std::to_string(kMaxAnalyzeFormats) +
                         " are simulated in one pass");
  }
  for (const std::string& spec : opt_.formats) {
    StatusOr<Format> f = ParseOr(spec, "TrackerOptions.formats");
    if (!f.ok()) return f.status();
    formats_.push_back(f.value());
  }
  if (opt_.judge.mode != JudgeFormats::Mode::kListed && !opt_.judge.formats.empty()) {
    return Status::Error("TrackerOptions.judge: formats are listed but the mode is not kListed; "
                         "use JudgeFormats::Listed(...) or leave the formats empty");
  }
  for (auto& [role, spec] : opt_.judge.formats) {
    StatusOr<Format> f = ParseOr(spec, "TrackerOptions.judge");
    if (!f.ok()) return f.status();
    bool candidate = false;
    for (const Format& c : formats_) candidate |= c.name() == f.value().name();
    if (!candidate) {
      return Status::Error("TrackerOptions.judge: the format of role " + ToString(role) + ", '" + spec +
                           "', is not one of TrackerOptions.formats; add it there");
    }
    spec = f.value().name();
  }
  {
    StatusOr<Format> f = ParseOr(opt_.simulate_forward, "TrackerOptions.simulate_forward");
    if (!f.ok()) return f.status();
    sim_fwd_ = f.value();
    StatusOr<Format> b = ParseOr(opt_.simulate_backward, "TrackerOptions.simulate_backward");
    if (!b.ok()) return b.status();
    sim_bwd_ = b.value();
    if (opt_.simulate_saturate) {  // as hardware casts do (TrackerOptions)
      sim_fwd_ = sim_fwd_.WithSaturate(true);
      sim_bwd_ = sim_bwd_.WithSaturate(true);
    }
  }
  if (!opt_.target.empty()) {
    StatusOr<Target> t = FindTarget(opt_.target);
    if (!t.ok()) return Status::Error("TrackerOptions.target: " + t.status().message());
    target_ = std::move(t).value();
    for (const auto& [role, s] : opt_.role_scaling) explicit_scaling_.insert(role);
    for (Role role : kSingleRoles) {
      const RoleSpec& spec = target_->role(ToTargetRole(role));
      if (spec.storage != RoleSpec::Storage::kFloat) continue;
      if (!explicit_scaling_.count(role)) opt_.role_scaling[role] = spec.scaling;
      bool have = false;
      for (const Format& f : formats_) have |= f == spec.format;
      if (!have && formats_.size() < kMaxAnalyzeFormats) {
        formats_.push_back(spec.format);
        opt_.formats.push_back(spec.format.name());
      }
    }
  }
  if (opt_.judge.mode == JudgeFormats::Mode::kByRole) {
    // Resolved once: by role with the run's role formats, or every candidate
    // when a run without a target has none of them.
    std::map<Role, std::string> judge = DefaultJudgeFormats();
    opt_.judge = target_ || !judge.empty() ? JudgeFormats::Listed(std::move(judge)) : JudgeFormats::All();
  }
  if (Status st = ResolveUnit(); !st.ok()) return st;
  if (Status st = ResolveProbes(); !st.ok()) return st;
  if (opt_.every < 1) return Status::Error("TrackerOptions.every must be >= 1 (got " + std::to_string(opt_.every) + ")");
  if (opt_.threads < 1) opt_.threads = 1;
  try {
    if (!opt_.include.empty()) include_re_ = std::regex(opt_.include);
  } catch (const std::regex_error& e) {
    return Status::Error("TrackerOptions.include '" + opt_.include + "' is not a valid regex: " + e.what());
  }
  try {
    if (!opt_.exclude.empty()) exclude_re_ = std::regex(opt_.exclude);
  } catch (const std::regex_error& e) {
    return Status::Error("TrackerOptions.exclude '" + opt_.exclude + "' is not a valid regex: " + e.what());
  }
  for (const auto& item : model_.named_parameters(/*recurse=*/true)) {
    const torch::Tensor& t = item.value();
    if (!t.device().is_cpu()) {
      return Status::Error("parameter '" + item.key() + "' is on " + t.device().str() +
                           ": lpsim analyzes CPU tensors; move the model to CPU");
    }
    params_.push_back({item.key(), t, {}});
  }
  if (opt_.process_group) rank_ = opt_.process_group->getRank();

  nlohmann::json config = {
      {"formats", opt_.formats},
      {"scaling", opt_.scaling.Name()},
      {"roles", ToString(opt_.roles)},
      {"include", opt_.include},
      {"exclude", opt_.exclude},
      {"every", opt_.every},
      {"simulate", opt_.simulate},
      {"simulate_forward", opt_.simulate_forward},
      {"simulate_backward", opt_.simulate_backward},
      {"target", target_ ? target_->name : ""},
      {"matmul_unit", unit_gemms_ ? unit_gemms_->unit : ""},
      {"world_size", opt_.process_group ? opt_.process_group->getSize() : 1},
  };
  for (const auto& [role, s] : opt_.role_scaling) config["role_scaling"][ToString(role)] = s.Name();
  std::string name = opt_.run_name;
  if (name.empty()) {
    std::string dir = opt_.run_dir;
    while (!dir.empty() && dir.back() == '/') dir.pop_back();
    name = dir.substr(dir.find_last_of('/') + 1);
  }
  if (rank_ == 0 && opt_.live_port >= 0) {  // before the run opens: a busy port leaves no run behind
    LiveWiringOptions lo;
    lo.host = opt_.live_host;
    lo.port = opt_.live_port;
    lo.token = opt_.live_token;
    lo.job_name = name;
    lo.job_info = config;
    lo.run_dir = opt_.run_dir;
    lo.formats = opt_.formats;
    lo.judge_formats = opt_.judge.formats;
    lo.port_name = opt_.live_port_name;
    // The predictions from this fp32 run (simulate mode runs on its target),
    // where the rules run: the run's target, then the probe targets, each
    // judged as `lpsim check RUN --target T` judges the stored run.
    if (opt_.checks) {
      if (target_ && !opt_.simulate) lo.predict.push_back({*target_, false});
      for (const ProbeTarget& p : probes_) {
        if (!lo.predict.empty() && lo.predict.front().target.name == p.target.name) {
          lo.predict.front().probed = true;
        } else {
          lo.predict.push_back({p.target, true});
        }
      }
      lo.predict_rules = LowPrecisionOnly(opt_.check_config);
    }
    StatusOr<std::unique_ptr<LiveWiring>> live = LiveWiring::Start(std::move(lo));
    if (!live.ok()) return live.status();
    live_ = std::move(live).value();
  }
  if (rank_ == 0) {
    StatusOr<std::unique_ptr<RunWriter>> w =
        RunWriter::Open(opt_.run_dir, name, config.dump(), RunWriterOptions{opt_.overwrite});
    if (!w.ok()) return w.status();
    writer_ = std::move(w).value();
    run_path_ = writer_->path();
  }
  {
    StepAnalyzerOptions a;
    a.formats = formats_;
    a.scaling = opt_.scaling;
    a.role_scaling = opt_.role_scaling;
    a.threads = opt_.threads;
    a.recording = rank_ == 0;
    a.checks = opt_.checks;
    a.check_config = opt_.check_config;
    // Names, validated above; kByRole is resolved by now.
    if (opt_.judge.mode != JudgeFormats::Mode::kAll) a.judge_formats = opt_.judge.formats;
    a.on_record = opt_.on_record;
    if (live_) live_->Hook(&a);
    // Policies that act on the step itself need its findings before step()
    // returns; collectives must keep one order on every rank.
    bool step_policies = false;
    for (const auto& [rule, c] : opt_.check_config.rules) {
      step_policies |= c.enabled && (c.policy == Policy::kRaise || c.policy == Policy::kStop ||
                                     c.policy == Policy::kCapture);
    }
    a.background = opt_.background && !opt_.process_group && !(opt_.checks && step_policies);
    if (opt_.process_group) {
      auto pg = opt_.process_group;
      a.reduce_amax = [pg](float amax) { return MaxAcrossRanks(*pg, amax); };
      a.reduce_result = [pg](AnalyzeResult* r) { ReduceAcrossRanks(*pg, r); };
    }
    analyzer_ = std::make_unique<StepAnalyzer>(std::move(a), writer_.get());
  }
  if (live_) {
    live_->agent()->SetJobInfo("run", run_path_);
    if (Status st = live_->AddTrackerKnobs(&opt_.every, &paused_, analyzer_.get()); !st.ok()) return st;
    if (Status st = live_->Announce(); !st.ok()) return st;
  }

  // TrackedSequential children tap through this tracker.
  for (const auto& item : model_.named_modules(/*name_prefix=*/"", /*include_self=*/false)) {
    if (auto* seq = dynamic_cast<TrackedSequentialImpl*>(item.value().get())) {
      seq->set_tracker(owner, item.key().empty() ? "" : item.key() + ".");
    }
  }
  if (auto* seq = dynamic_cast<TrackedSequentialImpl*>(&model_)) seq->set_tracker(owner, "");
  if (unit_gemms_ && unit_layers_.empty()) {
    Note("matmul_unit", "matrix unit '" + unit_gemms_->unit +
                            "' is set but the model has no lpsim::Linear or lpsim::Conv2d "
                            "(tracker/layers.h): its products run in fp32");
  }

  if (opt_.simulate) {
    torch::NoGradGuard no_grad;
    for (Param& p : params_) {
      if (p.tensor.scalar_type() != torch::kFloat) continue;
      p.master = p.tensor.detach().clone();
      p.tensor.copy_(FakeQuant(sim_fwd_, p.name, Role::kWeight, p.master));
    }
  }
  return Status();
}

std::map<Role, std::string> Tracker::Impl::DefaultJudgeFormats() const {
  std::map<Role, std::string> judge;
  auto candidate = [&](const Format& f) {
    for (const Format& c : formats_) {
      if (c == f) return true;
    }
    return false;
  };
  if (target_) {
    for (Role role : kSingleRoles) {
      const RoleSpec& spec = target_->role(ToTargetRole(role));
      // fp32 casts nothing; integer and block fp roles have no float counts.
      if (spec.storage != RoleSpec::Storage::kFloat || spec.format.name() == "fp32") continue;
      if (candidate(spec.format)) judge[role] = spec.format.name();
    }
    return judge;
  }
  for (const auto& [role, name] : JudgeFormats::HybridFp8().formats) {
    for (const Format& c : formats_) {
      if (c.name() == name) judge[role] = name;
    }
  }
  return judge;
}

Status Tracker::Impl::ResolveProbes() {
  if (!opt_.probe) {
    if (opt_.probe_targets.empty()) return Status();
    return Status::Error("TrackerOptions.probe_targets is set but TrackerOptions.probe is empty: give probe "
                         "a closure that returns this step's loss on this step's batch");
  }
  if (opt_.simulate) {
    return Status::Error("TrackerOptions.probe measures an fp32 run on other hardware, but simulate mode "
                         "already runs on its target: set simulate = false or leave probe empty");
  }
  if (opt_.probe_every < 1) {
    return Status::Error("TrackerOptions.probe_every must be >= 1 (got " + std::to_string(opt_.probe_every) + ")");
  }
  if (opt_.probe_rollout < 0) {
    return Status::Error("TrackerOptions.probe_rollout must be >= 0 (the steps of a rollout; 0: none), got " +
                         std::to_string(opt_.probe_rollout));
  }
  if (opt_.probe_rollout > 0 &&
      (opt_.probe_rollout_every < 1 || opt_.probe_rollout_every % opt_.probe_every != 0)) {
    return Status::Error("TrackerOptions.probe_rollout_every must be a positive multiple of probe_every (" +
                         std::to_string(opt_.probe_every) + "): rollouts start at probe steps; got " +
                         std::to_string(opt_.probe_rollout_every));
  }
  if (!(std::isfinite(opt_.probe_loss_scale) && opt_.probe_loss_scale > 0)) {
    return Status::Error("TrackerOptions.probe_loss_scale must be a finite number > 0 (the training's static loss "
                         "scale; 1 without one)");
  }
  std::vector<std::string> names = opt_.probe_targets;
  if (names.empty() && !opt_.target.empty()) names.push_back(opt_.target);
  if (names.empty()) {
    return Status::Error("TrackerOptions.probe is set but names no hardware: list targets in "
                         "TrackerOptions.probe_targets (built-in names or .json paths; `lpsim targets` "
                         "lists the built-in ones) or set TrackerOptions.target");
  }
  for (const std::string& name : names) {
    StatusOr<Target> t = FindTarget(name);
    if (!t.ok()) return Status::Error("TrackerOptions.probe_targets: " + t.status().message());
    for (const ProbeTarget& p : probes_) {
      if (p.target.name == t->name) {
        return Status::Error("TrackerOptions.probe_targets names '" + t->name + "' twice; list each target once");
      }
    }
    probes_.push_back({std::move(t).value(), {}});
  }
  return Status();
}

Status Tracker::Impl::ResolveUnit() {
  std::string unit = opt_.matmul_unit;
  std::string what = "TrackerOptions.matmul_unit";
  if (unit.empty() && target_) {
    // The roles that feed the products must agree on their unit.
    for (TargetRole r : {TargetRole::kActivation, TargetRole::kWeight, TargetRole::kActivationGrad}) {
      const std::string& u = target_->role(r).matmul_unit;
      if (u.empty()) continue;
      if (!unit.empty() && u != unit) {
        return Status::Error("target '" + target_->name + "': roles name different matmul units ('" +
                             unit + "', '" + u + "'); the activation, weight and activation_grad "
                             "roles must name the same one");
      }
      unit = u;
    }
    what = "target '" + target_->name + "' matmul_unit";
  }
  if (unit.empty()) return Status();
  if (!opt_.simulate) {
    if (!opt_.matmul_unit.empty()) {
      return Status::Error("TrackerOptions.matmul_unit is used in simulate mode only; set "
                           "simulate = true or leave matmul_unit empty");
    }
    return Status();  // a target's unit matters to simulate mode only
  }
  std::string formats[3] = {sim_fwd_.name(), sim_fwd_.name(), sim_bwd_.name()};
  if (target_) {
    const TargetRole roles[3] = {TargetRole::kActivation, TargetRole::kWeight,
                                 TargetRole::kActivationGrad};
    for (int i = 0; i < 3; ++i) {
      const RoleSpec& spec = target_->role(roles[i]);
      if (spec.storage != RoleSpec::Storage::kFloat) {
        return Status::Error(what + ": role " + ToString(roles[i]) + " is stored as " +
                             spec.storage_spec + "; a matrix unit takes float formats only");
      }
      formats[i] = spec.format.name();
    }
  }
  StatusOr<c10::intrusive_ptr<UnitGemms>> g =
      MakeUnitGemms(unit, formats[0], formats[1], formats[2], opt_.threads);
  if (!g.ok()) return Status::Error(what + ": " + g.status().message());
  unit_gemms_ = std::move(g).value();
  // lpsim::Linear / Conv2d run their products on the unit; a layer that
  // cannot fails the tracker before the run is opened.
  auto set = [&](torch::nn::Module* m, const std::string& name) {
    auto* layer = dynamic_cast<UnitLayer*>(m);
    if (!layer) return Status();
    Status st = layer->set_unit(unit_gemms_);
    if (!st.ok()) return Status::Error("layer '" + name + "': " + st.message());
    unit_layers_.push_back(layer);
    return st;
  };
  // include_self would need the model in a shared_ptr; the model itself
  // is checked on its own.
  if (Status st = set(&model_, "(the model)"); !st.ok()) return st;
  for (const auto& item : model_.named_modules(/*name_prefix=*/"", /*include_self=*/false)) {
    if (Status st = set(item.value().get(), item.key()); !st.ok()) return st;
  }
  return Status();
}

}  // namespace lpsim
