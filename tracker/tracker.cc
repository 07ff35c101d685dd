#include "tracker/tracker.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>

#include "analysis/step_analyzer.h"
#include "core/target.h"
#include "simd/analyze.h"
#include "simd/quantize.h"
#include "simd/role_quantizer.h"
#include "simd/scaling.h"
#include "store/run_db.h"
#include "tracker/capture.h"
#include "tracker/distributed.h"
#include "tracker/layers.h"
#include "tracker/live_wiring.h"

namespace lpsim {

std::string ModuleTypeName(const torch::nn::Module& m) {
  std::string name = m.name();
  const size_t colon = name.rfind("::");
  if (colon != std::string::npos) name = name.substr(colon + 2);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "Impl") == 0) {
    name.resize(name.size() - 4);
  }
  return name;
}

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
  // TrackerOptions::judge_formats when left empty (see there).
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
  std::unordered_map<std::string, std::unique_ptr<RoleQuantizer>> sim_roles_;  // simulate + target
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

namespace {

std::string Key(const std::string& name, Role role) { return ToString(role) + ":" + name; }

// A target role's recipe as the analyzer's Scaling (float storage only).
Scaling ToScaling(const TargetScaling& t) {
  Scaling s;
  switch (t.kind) {
    case TargetScaling::Kind::kCurrent:
      s = Scaling::Current(t.scale.margin, t.scale.power_of_two);
      s.scale = t.scale;
      break;
    case TargetScaling::Kind::kDelayed:
      s = Scaling::Delayed(t.history, t.scale.margin, t.algo);
      s.delayed.scale = t.scale;
      break;
    case TargetScaling::Kind::kBlock: s = Scaling::Block(t.block); break;
    case TargetScaling::Kind::kNone:
    case TargetScaling::Kind::kInteger: break;
  }
  return s;
}

bool FastPath(const torch::Tensor& t) {
  return t.scalar_type() == torch::kFloat && t.device().is_cpu() && t.is_contiguous();
}

StatusOr<Format> ParseOr(const std::string& spec, const char* what) {
  StatusOr<Format> f = ParseFormat(spec);
  if (!f.ok()) return Status::Error(std::string(what) + ": " + f.status().message());
  return f;
}

// The 2-D view block recipes use: [numel / last_dim, last_dim].
void Matrix(const torch::Tensor& t, size_t* rows, size_t* cols) {
  const size_t n = static_cast<size_t>(t.numel());
  *cols = t.dim() == 0 ? 1 : static_cast<size_t>(t.size(t.dim() - 1));
  if (*cols == 0) *cols = 1;
  *rows = n / *cols;
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
  for (auto& [role, spec] : opt_.judge_formats) {
    StatusOr<Format> f = ParseOr(spec, "TrackerOptions.judge_formats");
    if (!f.ok()) return f.status();
    bool candidate = false;
    for (const Format& c : formats_) candidate |= c.name() == f.value().name();
    if (!candidate) {
      return Status::Error("TrackerOptions.judge_formats: the format of role " + ToString(role) + ", '" + spec +
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
      if (!explicit_scaling_.count(role)) opt_.role_scaling[role] = ToScaling(spec.scaling);
      bool have = false;
      for (const Format& f : formats_) have |= f == spec.format;
      if (!have && formats_.size() < kMaxAnalyzeFormats) {
        formats_.push_back(spec.format);
        opt_.formats.push_back(spec.format.name());
      }
    }
  }
  if (opt_.judge_formats.empty() && !opt_.judge_all_formats) opt_.judge_formats = DefaultJudgeFormats();
  if (Status st = ResolveUnit(); !st.ok()) return st;
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
    StatusOr<std::unique_ptr<LiveWiring>> live = LiveWiring::Start(
        {opt_.live_host, opt_.live_port, opt_.live_token, name, config, opt_.run_dir, opt_.formats,
         opt_.judge_formats, opt_.live_port_name});
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
    a.judge_formats = opt_.judge_formats;  // names, validated above
    a.judge_by_role = !opt_.judge_all_formats && (target_ || !opt_.judge_formats.empty());
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
  for (const auto& [role, name] : TrackerOptions::JudgeAsHybridFp8()) {
    for (const Format& c : formats_) {
      if (c.name() == name) judge[role] = name;
    }
  }
  return judge;
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

void Tracker::Impl::Note(const std::string& key, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!noted_.insert(key).second) return;
  notes_.push_back(text);
  if (writer_) {
    Finding f;
    f.rule = "tracker_note";
    f.severity = Severity::kInfo;
    f.step = step_;
    f.tensor = key;
    f.message = text;
    analyzer_->Add(std::move(f), /*listed=*/false);
  }
}

torch::Tensor Tracker::Impl::AsFloat(const std::string& name, const torch::Tensor& t) {
  if (!t.device().is_cpu()) {
    Note(name, "tensor '" + name + "' is on " + t.device().str() +
                   ": only CPU tensors are analyzed; it was skipped");
    return {};
  }
  const auto type = t.scalar_type();
  if (type == torch::kFloat) return t.detach().contiguous();
  if (type == torch::kBFloat16 || type == torch::kHalf || type == torch::kDouble) {
    return t.detach().to(torch::kFloat).contiguous();  // bf16/fp16 widen exactly
  }
  Note(name, "tensor '" + name + "' has dtype " + std::string(c10::toString(type)) +
                 ": only floating-point tensors are analyzed; it was skipped");
  return {};
}

float Tracker::Impl::GlobalAmax(const torch::Tensor& x) {
  float amax = simd::Amax(x.data_ptr<float>(), static_cast<size_t>(x.numel()), opt_.threads);
  if (opt_.process_group) amax = MaxAcrossRanks(*opt_.process_group, amax);
  return amax;
}

void Tracker::Impl::Snapshot(TensorSnapshot s, const torch::Tensor& t) {
  const float* p = t.data_ptr<float>();
  const size_t n = static_cast<size_t>(t.numel());
  if (analyzer_->background()) {
    FloatBuffer b = analyzer_->Buffer(n);
    std::memcpy(b.data.get(), p, n * sizeof(float));
    s.Own(std::move(b), n);
  } else {
    s.Borrow(p, n);
  }
  analyzer_->Add(std::move(s));
}

void Tracker::Impl::Record(const std::string& name, Role role, const torch::Tensor& t,
                           const std::string& module_type) {
  if (!t.defined() || !Selected(name, role)) return;
  const torch::Tensor x = FastPath(t) ? t : AsFloat(name, t);
  if (!x.defined()) return;
  TensorSnapshot s;
  s.step = step_;
  s.name = name;
  s.role = role;
  s.module_type = module_type;
  s.shape = t.sizes().vec();
  s.dtype = c10::toString(t.scalar_type());
  Snapshot(std::move(s), x);
}

torch::Tensor Tracker::Impl::FakeQuant(const Format& f_in, const std::string& key, Role role,
                                       const torch::Tensor& x_in) {
  // With a target: the role as the target stores it, unless role_scaling
  // named the role (then the target's float format with that recipe).
  const RoleSpec* spec = target_ ? &target_->role(ToTargetRole(role)) : nullptr;
  if (spec && !(spec->storage == RoleSpec::Storage::kFloat && explicit_scaling_.count(role))) {
    return SimulateRole(ToTargetRole(role), key, x_in);
  }
  const Format& f = spec ? spec->format : f_in;
  torch::Tensor x = x_in.detach().to(torch::kFloat).contiguous();
  torch::Tensor out = torch::empty_like(x);
  const size_t n = static_cast<size_t>(x.numel());
  const Scaling& recipe = RecipeFor(role);
  QuantizeOptions q;
  switch (recipe.kind) {
    case Scaling::Kind::kNone: break;
    case Scaling::Kind::kCurrent: q.scale = CurrentScale(f, GlobalAmax(x), recipe.scale); break;
    case Scaling::Kind::kDelayed: {
      DelayedScaler* d;
      {
        std::lock_guard<std::mutex> lock(mu_);
        d = &sim_delayed_.try_emplace(Key(key, role), f, recipe.delayed).first->second;
      }
      q.scale = d->Scale();
      d->Update(GlobalAmax(x));
      break;
    }
    case Scaling::Kind::kBlock: {
      size_t rows, cols;
      Matrix(x, &rows, &cols);
      std::vector<float> scales(recipe.block.BlocksPerRow(cols) * recipe.block.BlocksPerCol(rows));
      simd::BlockQuantize(f, x.data_ptr<float>(), rows, cols, recipe.block, q,
                          out.data_ptr<float>(), scales.data(), nullptr, opt_.threads);
      return out.to(x_in.scalar_type());
    }
  }
  simd::Quantize(f, x.data_ptr<float>(), n, q, out.data_ptr<float>(), nullptr, opt_.threads);
  return out.to(x_in.scalar_type());
}

torch::Tensor Tracker::Impl::SimulateRole(TargetRole role, const std::string& key,
                                          const torch::Tensor& x_in) {
  const RoleSpec& spec = target_->role(role);
  if (spec.storage == RoleSpec::Storage::kFloat && spec.format.name() == "fp32" &&
      spec.scaling.kind == TargetScaling::Kind::kNone) {
    return x_in;  // fp32 storage: nothing to simulate
  }
  torch::Tensor x = x_in.detach().to(torch::kFloat).contiguous();
  torch::Tensor out = torch::empty_like(x);
  RoleQuantizer* q;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<RoleQuantizer>& slot = sim_roles_[std::string(ToString(role)) + ":" + key];
    if (!slot) slot = std::make_unique<RoleQuantizer>(spec);
    q = slot.get();
  }
  const std::pair<size_t, size_t> shape = RoleMatrixShape(spec, x.sizes().vec());
  RoleQuantizer::Options o;
  o.threads = opt_.threads;
  o.seed = static_cast<uint64_t>(step_);
  q->Quantize(x.data_ptr<float>(), shape.first, shape.second, o, out.data_ptr<float>(), nullptr);
  return out.to(x_in.scalar_type());
}

torch::Tensor Tracker::Impl::Tap(const std::string& name, const torch::Tensor& x,
                                 const std::string& module_type) {
  if (!x.defined()) return x;
  const bool tracking = Tracking();
  if (tracking) Record(name, Role::kActivation, x, module_type);
  torch::Tensor y = x;
  if (opt_.simulate && x.is_floating_point() && x.device().is_cpu()) {
    // Straight-through: forward sees q(x), backward passes the gradient on.
    torch::Tensor q = FakeQuant(sim_fwd_, name, Role::kActivation, x);
    y = x + (q - x).detach();
  }
  if (y.requires_grad() && (opt_.simulate || (tracking && Selected(name, Role::kActivationGrad)))) {
    const int64_t step = step_;
    y.register_hook([this, name, module_type, step](torch::Tensor grad) -> torch::Tensor {
      if (step == step_ && Tracking()) Record(name, Role::kActivationGrad, grad, module_type);
      if (!opt_.simulate) return {};
      return FakeQuant(sim_bwd_, name, Role::kActivationGrad, grad);
    });
  }
  return y;
}

bool Tracker::Impl::AllFinite(const torch::Tensor& t) {
  if (!FastPath(t)) return torch::isfinite(t).all().item<bool>();
  // All exponent bits set = Inf or NaN; one branch-free (vectorized) pass.
  const auto* bits = reinterpret_cast<const uint32_t*>(t.data_ptr<float>());
  const size_t n = static_cast<size_t>(t.numel());
  uint32_t max_exp = 0;
  for (size_t i = 0; i < n; ++i) max_exp = std::max(max_exp, bits[i] & 0x7f800000u);
  return max_exp != 0x7f800000u;
}

std::vector<std::pair<const char*, torch::Tensor>> Tracker::Impl::OptimizerState(const Param& p) {
  auto& state = optimizer_.state();
  // LibTorch keys optimizer state by the parameter's TensorImpl address.
  auto it = state.find(c10::guts::to_string(p.tensor.unsafeGetTensorImpl()));
  if (it == state.end()) return {};
  torch::optim::OptimizerParamState* s = it->second.get();
  std::vector<std::pair<const char*, torch::Tensor>> tensors;
  if (auto* a = dynamic_cast<torch::optim::AdamParamState*>(s)) {
    tensors = {{"exp_avg", a->exp_avg()}, {"exp_avg_sq", a->exp_avg_sq()}, {"max_exp_avg_sq", a->max_exp_avg_sq()}};
  } else if (auto* w = dynamic_cast<torch::optim::AdamWParamState*>(s)) {
    tensors = {{"exp_avg", w->exp_avg()}, {"exp_avg_sq", w->exp_avg_sq()}, {"max_exp_avg_sq", w->max_exp_avg_sq()}};
  } else if (auto* g = dynamic_cast<torch::optim::SGDParamState*>(s)) {
    tensors = {{"momentum_buffer", g->momentum_buffer()}};
  } else if (auto* r = dynamic_cast<torch::optim::RMSpropParamState*>(s)) {
    tensors = {{"square_avg", r->square_avg()}, {"momentum_buffer", r->momentum_buffer()}, {"grad_avg", r->grad_avg()}};
  } else if (auto* ag = dynamic_cast<torch::optim::AdagradParamState*>(s)) {
    tensors = {{"sum", ag->sum()}};
  }
  return tensors;
}

void Tracker::Impl::RecordOptimizerState(const Param& p) {
  for (const auto& [key, t] : OptimizerState(p)) {
    if (t.defined() && t.numel() > 0) Record(p.name + "." + key, Role::kOptimizerState, t, "");
  }
}

StepResult Tracker::Impl::Step(const torch::Tensor& loss) {
  StepResult result;
  result.step = step_;
  result.tracked = Tracking();
  torch::NoGradGuard no_grad;

  // 1. Loss and gradients must be finite before anything is applied: the
  // gradients as the optimizer would receive them, so in simulate mode after
  // their fake quantization (kept aside: the records see them as computed).
  const double loss_value = loss.defined() ? loss.detach().item<double>() : 0.0;
  std::string bad;
  if (!std::isfinite(loss_value)) bad = "loss is " + std::to_string(loss_value);
  // Every parameter is cast even after a bad one: with a process group the
  // casts' amax reductions must happen in the same order on every rank.
  std::vector<torch::Tensor> sim_grads(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& p = params_[i];
    const torch::Tensor& g = p.tensor.grad();
    if (!g.defined()) continue;
    if (bad.empty() && !AllFinite(g)) bad = "gradient of '" + p.name + "' is not finite";
    if (!opt_.simulate || !p.master.defined()) continue;
    sim_grads[i] = FakeQuant(sim_bwd_, p.name, Role::kWeightGrad, g);
    if (bad.empty() && !AllFinite(sim_grads[i])) {
      bad = "gradient of '" + p.name + "' is not finite after its cast to " + sim_bwd_.name() +
            " with " + RecipeFor(Role::kWeightGrad).Name() + " scaling";
    }
  }
  if (opt_.process_group) {  // every rank skips if any rank saw a non-finite value
    torch::Tensor flag = torch::full({1}, bad.empty() ? 0.0f : 1.0f);
    std::vector<torch::Tensor> v = {flag};
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp::MAX;
    opt_.process_group->allreduce(v, o)->wait();
    if (bad.empty() && flag.item<float>() > 0) bad = "another rank saw a non-finite loss or gradient";
  }

  AddScalar(ScalarRecord{step_, "loss", loss_value});
  if (!optimizer_.param_groups().empty()) {
    AddScalar(ScalarRecord{step_, "lr", optimizer_.param_groups()[0].options().get_lr()});
  }

  if (!bad.empty()) {
    result.applied = false;
    result.reason = bad;
    if (writer_) {
      Finding f;
      f.rule = "nonfinite_update_skipped";
      f.severity = Severity::kError;
      f.step = step_;
      f.message = "step " + std::to_string(step_) + " was not applied: " + bad +
                  ". The update was skipped so the weights stay finite; look at the learning "
                  "rate, the loss scale and the inputs of this step.";
      f.evidence["loss"] = loss_value;
      analyzer_->Add(f);
      if (opt_.capture_nonfinite) result.capture_dir = Capture(f, /*applied=*/false, loss_value);
    }
  } else {
    // 2. Weight gradients (as computed), then simulate's view of them.
    if (result.tracked) {
      for (const Param& p : params_) Record(p.name, Role::kWeightGrad, p.tensor.grad(), "");
    }
    if (!initial_fed_ && writer_ && opt_.checks) {
      // The rules judge initialization on the weights before any update.
      initial_fed_ = true;
      for (const Param& p : params_) {
        if (p.tensor.scalar_type() != torch::kFloat) continue;
        TensorSnapshot s;
        s.step = step_;
        s.name = p.name;
        s.role = Role::kWeight;
        s.shape = p.tensor.sizes().vec();
        s.initial_weight = true;
        Snapshot(std::move(s), p.tensor.detach().contiguous());
      }
    }
    const bool ratios = result.tracked && writer_ && Contains(opt_.roles, Role::kWeight);
    before_.resize(params_.size());
    for (size_t i = 0; i < params_.size(); ++i) {
      Param& p = params_[i];
      if (opt_.simulate && p.master.defined()) {
        if (sim_grads[i].defined()) p.tensor.mutable_grad().copy_(sim_grads[i]);
        p.tensor.copy_(p.master);  // the update applies to the fp32 master weights
      }
      if (ratios && Selected(p.name, Role::kWeight)) {
        const torch::Tensor w = FastPath(p.tensor) ? p.tensor : p.tensor.detach().to(torch::kFloat).contiguous();
        before_[i].assign(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
      }
    }
    // 3. The update.
    optimizer_.step();
    // 4. Weights, update ratios, optimizer state.
    for (size_t i = 0; i < params_.size(); ++i) {
      Param& p = params_[i];
      if (result.tracked) {
        Record(p.name, Role::kWeight, p.tensor, "");
        if (ratios && Selected(p.name, Role::kWeight)) {
          // mean|w_after - w_before| / mean|w_after|
          const torch::Tensor w = FastPath(p.tensor) ? p.tensor : p.tensor.detach().to(torch::kFloat).contiguous();
          const float* after = w.data_ptr<float>();
          const float* prev = before_[i].data();
          double dw = 0, aw = 0;
          for (size_t k = 0; k < before_[i].size(); ++k) {
            dw += std::fabs(after[k] - prev[k]);
            aw += std::fabs(after[k]);
          }
          AddScalar(ScalarRecord{step_, "update_ratio/" + p.name, aw > 0 ? dw / aw : 0.0});
        }
        RecordOptimizerState(p);
      }
      if (opt_.simulate && p.master.defined()) {
        if (target_) {
          // The target's optimizer state and master weights as it stores them.
          for (auto& [key, t] : OptimizerState(p)) {
            if (t.defined() && t.numel() > 0 && t.scalar_type() == torch::kFloat) {
              t.copy_(SimulateRole(TargetRole::kOptimizerState, p.name + "." + key, t));
            }
          }
          p.master.copy_(SimulateRole(TargetRole::kMasterWeights, p.name, p.tensor));
        } else {
          p.master.copy_(p.tensor);
        }
        p.tensor.copy_(FakeQuant(sim_fwd_, p.name, Role::kWeight, p.master));
      }
    }
  }

  // 5. The rules judge the step and its records commit (inline, or queued
  // for the analyzer thread).
  analyzer_->EndStep(step_, result.tracked);
  const std::string raise = Check(&result, loss_value);
  batch_inputs_ = batch_targets_ = batch_rng_ = torch::Tensor();
  ++step_;
  if (live_) live_->ApplyPending(step_, analyzer_.get());
  if (!raise.empty()) throw TrackerError(raise);
  return result;
}

void Tracker::Impl::Scalar(const std::string& name, double value) {
  AddScalar(ScalarRecord{step_, name, value});
}

void Tracker::Impl::SetBatch(const torch::Tensor& inputs, const torch::Tensor& targets) {
  batch_inputs_ = inputs.defined() ? inputs.detach() : inputs;
  batch_targets_ = targets.defined() ? targets.detach() : targets;
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  batch_rng_ = gen.get_state();
}

std::string Tracker::Impl::Capture(const Finding& f, bool applied, double loss) {
  if (!writer_ || last_capture_step_ == step_) return "";
  if (captures_ >= opt_.max_captures) {
    Note("captures", "more than " + std::to_string(opt_.max_captures) +
                         " captures in this run (TrackerOptions.max_captures): later steps were not captured");
    return "";
  }
  const std::string dir =
      (std::filesystem::path(opt_.run_dir) / "captures" / ("step_" + std::to_string(step_))).string();
  CaptureInput in;
  in.manifest.step = step_;
  in.manifest.model = opt_.capture_model;
  in.manifest.reason = f.rule + ": " + f.message;
  in.manifest.loss = loss;
  in.manifest.lr = optimizer_.param_groups().empty() ? 0.0 : optimizer_.param_groups()[0].options().get_lr();
  in.manifest.update_applied = applied;
  in.finding = f;
  in.inputs = batch_inputs_;
  in.targets = batch_targets_;
  in.rng_state = batch_rng_;
  const Status s = WriteCapture(dir, model_, optimizer_, in);
  if (!s.ok()) {
    Note("capture_failed", s.message());
    return "";
  }
  ++captures_;
  last_capture_step_ = step_;
  // A write error sticks in the writer and is returned by Close.
  (void)writer_->AddCapture(step_, dir, f.rule + (f.tensor.empty() ? "" : " in " + f.tensor));
  return dir;
}

std::string Tracker::Impl::Check(StepResult* result, double loss) {
  if (!writer_ || !opt_.checks) return "";
  std::vector<Finding> fresh = analyzer_->TakeNew();
  std::string raise;
  for (const Finding& f : fresh) {
    const Policy policy = PolicyFor(f.rule);
    if (policy == Policy::kWarn || (!result && policy != Policy::kLog)) {
      if (warned_.insert(f.rule + "|" + f.tensor).second) {
        std::cerr << "lpsim: " << ToString(f.severity) << " at step " << f.step << " [" << f.rule << "] "
                  << f.message << "\n";
      }
    }
    if (!result) continue;
    switch (policy) {
      case Policy::kLog:
      case Policy::kWarn: break;
      case Policy::kRaise:
        if (raise.empty()) raise = "lpsim: rule " + f.rule + " fired at step " + std::to_string(f.step) + ": " + f.message;
        break;
      case Policy::kStop: result->stop = true; break;
      case Policy::kCapture: {
        const std::string dir = Capture(f, result->applied, loss);
        if (!dir.empty()) result->capture_dir = dir;
        break;
      }
    }
  }
  if (result) result->findings = std::move(fresh);
  return raise;
}

Status Tracker::Impl::Close(const std::string& status) {
  if (closed_) return Status();
  closed_ = true;
  if (!analyzer_) return Status();  // Init failed before the run was opened
  analyzer_->Drain();
  Check(nullptr, 0.0);  // findings the analyzer thread judged after the last step
  if (live_) live_->Close(status);
  if (!writer_) return Status();
  return writer_->Close(status == "finished" ? Status() : Status::Error(status));
}

// --- Tracker -----------------------------------------------------------------

Tracker::Tracker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Tracker::Tracker(torch::nn::Module& model, torch::optim::Optimizer& optimizer, TrackerOptions opt)
    : impl_(std::make_unique<Impl>(model, optimizer, std::move(opt))) {
  Status s = impl_->Init(this);
  if (!s.ok()) throw TrackerError("lpsim::Tracker: " + s.message());
}

StatusOr<std::unique_ptr<Tracker>> Tracker::Create(torch::nn::Module& model,
                                                   torch::optim::Optimizer& optimizer,
                                                   TrackerOptions opt) {
  std::unique_ptr<Tracker> t(new Tracker(std::make_unique<Impl>(model, optimizer, std::move(opt))));
  Status s;
  try {
    s = t->impl_->Init(t.get());
  } catch (const c10::Error& e) {
    s = Status::Error(std::string("LibTorch error while setting up the tracker: ") + e.what_without_backtrace());
  }
  if (!s.ok()) return s;
  return t;
}

Tracker::~Tracker() {
  if (!impl_) return;
  // A destructor cannot report; a run that an exception ends is not "ok".
  (void)impl_->Close(std::uncaught_exceptions() > 0
                         ? "failed: an exception ended the training loop before Tracker::Close"
                         : "finished");
}

torch::Tensor Tracker::tap(const std::string& name, const torch::Tensor& x,
                           const std::string& module_type) {
  return impl_->Tap(name, x, module_type);
}

StepResult Tracker::step(const torch::Tensor& loss) { return impl_->Step(loss); }
void Tracker::set_batch(const torch::Tensor& inputs, const torch::Tensor& targets) {
  impl_->SetBatch(inputs, targets);
}
std::vector<Finding> Tracker::findings() const { return impl_->findings(); }
void Tracker::scalar(const std::string& name, double value) { impl_->Scalar(name, value); }
int64_t Tracker::current_step() const { return impl_->step(); }
bool Tracker::tracking_now() const { return impl_->Tracking(); }
const std::string& Tracker::run_path() const { return impl_->run_path(); }
std::vector<std::string> Tracker::notes() const { return impl_->notes(); }
std::vector<TensorRecord> Tracker::last_records() const { return impl_->last_records(); }
Status Tracker::Close(const std::string& status) { return impl_->Close(status); }
live::Agent* Tracker::live_agent() const { return impl_->agent(); }
std::string Tracker::live_url() const { return impl_->agent() ? impl_->agent()->url() : ""; }

torch::Tensor TrackedSequentialImpl::forward(torch::Tensor x) {
  const auto children = named_children();
  size_t i = 0;
  for (auto it = begin(); it != end(); ++it, ++i) {
    x = it->forward(x);
    if (tracker_ && is_training() && i < children.size()) {
      x = tracker_->tap(prefix_ + children[i].key(), x, ModuleTypeName(*children[i].value()));
    }
  }
  return x;
}

}  // namespace lpsim
