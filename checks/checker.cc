#include "checks/checker.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "formats/format.h"

namespace lpsim {

const char* ToString(Policy p) {
  switch (p) {
    case Policy::kLog: return "log";
    case Policy::kWarn: return "warn";
    case Policy::kRaise: return "raise";
    case Policy::kStop: return "stop";
    case Policy::kCapture: return "capture";
  }
  return "?";
}

StatusOr<Policy> ParsePolicy(const std::string& s) {
  for (Policy p : {Policy::kLog, Policy::kWarn, Policy::kRaise, Policy::kStop, Policy::kCapture}) {
    if (s == ToString(p)) return p;
  }
  return Status::Error("unknown policy '" + s + "': use log, warn, raise, stop or capture");
}

namespace {

StatusOr<Severity> ParseSeverity(const std::string& s) {
  for (Severity v : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    if (s == ToString(v)) return v;
  }
  return Status::Error("unknown severity '" + s + "': use info, warning or error");
}

RuleInfo Rule(std::string name, std::string category, std::string what, std::string source,
              Severity severity, Policy policy, std::map<std::string, double> params) {
  RuleInfo r;
  r.name = std::move(name);
  r.category = std::move(category);
  r.what = std::move(what);
  r.source = std::move(source);
  r.severity = severity;
  r.policy = policy;
  r.params = std::move(params);
  return r;
}

}  // namespace

const std::vector<RuleInfo>& RuleCatalog() {
  constexpr Severity W = Severity::kWarning, E = Severity::kError;
  constexpr Policy kW = Policy::kWarn;
  static const std::vector<RuleInfo> kCatalog = {
      // --- parameters ---
      Rule("untrained_parameter", "parameters",
           "a weight's mean, std and max|w| stay equal (rtol, atol) over `steps` recorded steps",
           "SageMaker Debugger UnchangedTensor (num_steps 3, rtol 1e-5, atol 1e-8); silent once the "
           "loss is below converged_fraction x its first window (AUTOTRAINER gate)", W, kW,
           {{"steps", 3}, {"rtol", 1e-5}, {"atol", 1e-8}, {"converged_fraction", 0.1}}),
      Rule("poor_initialization", "parameters",
           "at its first record, a >=2-D weight is constant (broken symmetry) or its variance is "
           "outside [min_variance, max_variance]",
           "DeepDiagnosis poor weights: var outside [1e-5, 10]; constant init = TFCheck IPS-15", W, kW,
           {{"min_variance", 1e-5}, {"max_variance", 10}}),
      Rule("diverging_parameters", "parameters",
           "p75|w| > max_p75, or p75|w| of a >=2-D weight rises at every record and grows more "
           "than `growth` times over `window` records",
           "TheDeepChecker weight divergence (mean-abs > 1e8, growth > 2 over window 5)", E, kW,
           {{"max_p75", 1e8}, {"growth", 2}, {"window", 5}}),
      Rule("unstable_learning", "parameters",
           "mean of log10(mean|dw| / mean|w|) over `window` steps of a >=2-D weight outside "
           "(min_log10, max_log10)",
           "TheDeepChecker update/weight ratio, log10 outside [-4, -1]", W, kW,
           {{"min_log10", -4}, {"max_log10", -1}, {"window", 10}}),
      // --- activations ---
      Rule("activation_out_of_range", "activations",
           "outputs of Sigmoid/Softmax outside [0,1], Tanh outside [-1,1], ReLU/ReLU6 below 0 "
           "(by the tap's module_type)",
           "TFCheck activation range check", E, kW, {{"tolerance", 1e-6}}),
      Rule("activation_saturation", "activations",
           "Sigmoid/Tanh layer: share of neurons whose rho_B (B = 10 bins of the output mapped to "
           "[-1, 1]) over the last `window` records exceeds max_rho is > max_saturated_neurons; "
           "without per-neuron summaries (a stored run), the layer's rho_B from its log histogram "
           "> max_rho",
           "TFCheck rho_B (Rakitianskaia & Engelbrecht, B = 10); TheDeepChecker rho > 0.85 in > 50% "
           "of the neurons (buffer of 10 batches)", W, kW,
           {{"max_rho", 0.85}, {"window", 10}, {"max_saturated_neurons", 0.5}}),
      Rule("dead_relu", "activations",
           "ReLU layer: share of dead neurons (>= neuron_zero_share of their outputs over the last "
           "`window` records below zero_threshold) is > max_dead_neurons; without per-neuron "
           "summaries (a stored run), the layer's share of zero outputs > max_zero_share (> 50% dead "
           "neurons plus live ones 70% at zero gives 0.85)",
           "TheDeepChecker (95th percentile of |y| < 1e-5 in > 50% of the neurons), DeepDiagnosis "
           "(>= 70% zero)", W, kW,
           {{"max_zero_share", 0.85}, {"window", 10}, {"zero_threshold", 1e-5},
            {"neuron_zero_share", 0.95}, {"max_dead_neurons", 0.5}}),
      // --- optimization ---
      Rule("cannot_fit_small_sample", "optimization",
           "run by lpsim::SmallSampleFit (tracker/small_sample.h), not on records: a fresh copy of "
           "the model trained without regularization on per_class examples per class for up to "
           "max_steps steps does not reach min_accuracy on them, or its loss does not fall below "
           "max_loss_ratio x the initial loss",
           "TFCheck 'cannot fit a small sample'; TheDeepChecker proper fitting (one batch of 16, "
           "mislabeled <= 5%, 100-1000 iterations); max_loss_ratio: lpsim", E, kW,
           {{"per_class", 4}, {"max_examples", 64}, {"max_steps", 300}, {"min_accuracy", 0.95},
            {"max_loss_ratio", 0.1}}),
      Rule("zero_loss", "optimization", "|loss| <= epsilon at a step",
           "TFCheck zero loss; DeepDiagnosis invalid loss", E, kW, {{"epsilon", 1e-12}}),
      Rule("negative_loss", "optimization",
           "loss < -epsilon (cross-entropy, MSE and friends are >= 0: a wrong sign)",
           "DeepDiagnosis invalid loss; TFCheck mutants (wrong loss sign)", E, kW,
           {{"epsilon", 1e-12}}),
      Rule("loss_not_decreasing", "optimization",
           "mean loss over a `window` falls less than min_decrease (relative) vs the previous "
           "window, `patience` windows in a row, while the loss is above converged_fraction x "
           "its first window",
           "TheDeepChecker non-decreasing loss (< 5% per window 5, patience 5); AUTOTRAINER "
           "'not converging' gate",
           W, kW, {{"window", 5}, {"min_decrease", 0.05}, {"patience", 5}, {"converged_fraction", 0.1}}),
      Rule("diverging_loss", "optimization",
           "mean loss over `window` > factor x the lowest windowed mean so far, and up by more "
           "than min_rise x the first window's mean",
           "TheDeepChecker diverging loss (x2 vs min); min_rise: lpsim noise gate", E, kW,
           {{"window", 5}, {"factor", 2}, {"min_rise", 0.1}}),
      Rule("fluctuating_loss", "optimization",
           "over the last `window` steps, the loss changes direction at > max_sign_changes of "
           "steps and the mean |change| exceeds min_amplitude x the mean loss (not converged)",
           "TheDeepChecker fluctuation (sign-change ratio 0.5 over 50); amplitude: lpsim noise gate",
           W, kW,
           {{"window", 50}, {"max_sign_changes", 0.5}, {"min_amplitude", 0.5}, {"converged_fraction", 0.1}}),
      Rule("vanishing_gradient", "optimization",
           "median |g| of a >=2-D weight's gradient < max_median, or ||g_first|| / ||g_last|| < "
           "max_ratio and ||g_first|| < max_first_norm",
           "SageMaker Debugger VanishingGradient (1e-7); AUTOTRAINER beta1 1e-3, beta2 1e-4", W, kW,
           {{"max_median", 1e-7}, {"max_ratio", 1e-3}, {"max_first_norm", 1e-4}}),
      Rule("exploding_gradient", "optimization",
           "median |g| > min_median, or ||g_first|| / ||g_last|| > min_ratio for `patience` "
           "records in a row",
           "TheDeepChecker exploding gradient (> 1e6); AUTOTRAINER beta3 70", E, kW,
           {{"min_median", 1e6}, {"min_ratio", 70}, {"patience", 3}}),
      // --- numerics ---
      Rule("nonfinite", "numerics", "NaN or Inf in the loss or in any recorded tensor",
           "SageMaker Debugger ExplodingTensor; TheDeepChecker NaN/Inf everywhere", E, kW, {}),
      // --- low precision ---
      Rule("lp_underflow", "low_precision",
           "share of a gradient's nonzero finite values that flush to zero in a format (after "
           "its recipe) > max_share: predicted vanishing gradients on that hardware",
           "lpsim (TE LogFp8TensorStats underflows% has no threshold)", W, kW,
           {{"max_share", 0.1}, {"roles", 15}}),
      Rule("lp_overflow", "low_precision",
           "share of a tensor's values that overflow a format (after its recipe), pooled over the "
           "last `window` records, > max_share, overflowing in at least min_hits of them; tensors "
           "under min_numel elements are not judged (one outlier is a large share): predicted "
           "exploding / Inf on that hardware",
           "lpsim", E, kW,
           {{"max_share", 1e-2}, {"window", 10}, {"min_hits", 3}, {"min_numel", 64}, {"roles", 15}}),
      Rule("lp_headroom", "low_precision",
           "recipe none (a scale that follows amax has no fixed headroom): the linear trend of "
           "log2 amax over `window` records (R^2 >= min_r2) reaches the format's max within "
           "`horizon` steps; reports the predicted step",
           "lpsim", W, kW, {{"window", 20}, {"min_r2", 0.8}, {"horizon", 2000}, {"roles", 15}}),
      Rule("lp_dynamic_range", "low_precision",
           "per-tensor recipes: log2(max|x| / q|x|) with q the `quantile` of nonzero |x| "
           "exceeds the format's binades log2(max / min subnormal)",
           "lpsim; TE dynamic_range = log2(amax) - log2(nonzero amin)", W, kW,
           {{"quantile", 0.1}, {"roles", 15}}),
      Rule("lp_snr", "low_precision", "cast SNR of a tensor in a format < min_snr_db",
           "lpsim (e4m3 round-to-nearest gives ~30 dB on well-scaled data)", W, kW,
           {{"min_snr_db", 10}, {"roles", 15}}),
      Rule("lp_stale_scaling", "low_precision",
           "delayed recipe: the scale stays the same for `steps` records while log2 amax moves by "
           ">= min_amax_change_log2",
           "lpsim; Transformer Engine delayed scaling (history 16)", W, kW,
           {{"steps", 32}, {"min_amax_change_log2", 1}, {"roles", 15}}),
  };
  return kCatalog;
}

// --- CheckConfig -------------------------------------------------------------

CheckConfig CheckConfig::Defaults() {
  CheckConfig c;
  for (const RuleInfo& r : RuleCatalog()) {
    RuleConfig rc;
    rc.severity = r.severity;
    rc.policy = r.policy;
    rc.params = r.params;
    c.rules[r.name] = rc;
  }
  return c;
}

namespace {
std::string KnownRules() {
  std::string s;
  for (const RuleInfo& r : RuleCatalog()) s += (s.empty() ? "" : ", ") + r.name;
  return s;
}
}  // namespace

Status CheckConfig::Set(const std::string& rule, const std::string& param, double value) {
  auto it = rules.find(rule);
  if (it == rules.end()) return Status::Error("unknown rule '" + rule + "'; rules: " + KnownRules());
  auto p = it->second.params.find(param);
  if (p == it->second.params.end()) {
    std::string known;
    for (const auto& [k, v] : it->second.params) known += (known.empty() ? "" : ", ") + k;
    return Status::Error("rule '" + rule + "' has no parameter '" + param + "'" +
                         (known.empty() ? std::string(" (it has none)") : "; parameters: " + known));
  }
  if (!std::isfinite(value)) return Status::Error("rule '" + rule + "', parameter '" + param + "': not a finite number");
  // Counts and role sets are converted to integers where the rules use them:
  // a value out of range there would be undefined behaviour, not a setting.
  char shown[32];
  std::snprintf(shown, sizeof shown, "%.6g", value);
  if (param == "roles" && !(value >= 0 && value <= static_cast<int>(Role::kAll) && value == std::floor(value))) {
    return Status::Error("rule '" + rule + "', parameter 'roles': " + shown +
                         " is not a set of roles: a whole number 0..31 (activation 1, activation_grad 2, "
                         "weight 4, weight_grad 8, optimizer_state 16, summed)");
  }
  constexpr double kMaxCount = 1e9;
  if ((param == "window" || param == "steps" || param == "patience" || param == "min_hits") &&
      !(value >= 0 && value <= kMaxCount && value == std::floor(value))) {
    return Status::Error("rule '" + rule + "', parameter '" + param + "': " + shown +
                         " is not a count: a whole number 0..1e9");
  }
  p->second = value;
  return Status();
}

Status CheckConfig::SetPolicy(const std::string& rule, Policy policy) {
  auto it = rules.find(rule);
  if (it == rules.end()) return Status::Error("unknown rule '" + rule + "'; rules: " + KnownRules());
  it->second.policy = policy;
  return Status();
}

Status CheckConfig::Enable(const std::string& rule, bool on) {
  auto it = rules.find(rule);
  if (it == rules.end()) return Status::Error("unknown rule '" + rule + "'; rules: " + KnownRules());
  it->second.enabled = on;
  return Status();
}

double CheckConfig::Param(const std::string& rule, const std::string& param) const {
  auto it = rules.find(rule);
  if (it != rules.end()) {
    auto p = it->second.params.find(param);
    if (p != it->second.params.end()) return p->second;
  }
  for (const RuleInfo& r : RuleCatalog()) {
    if (r.name != rule) continue;
    auto p = r.params.find(param);
    if (p != r.params.end()) return p->second;
  }
  return 0.0;
}

Status CheckConfig::Merge(const std::string& json_text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(std::string("rules file is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) return Status::Error("rules file must be a JSON object {\"rule\": {...}, ...}");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& rule = it.key();
    if (!rules.count(rule)) return Status::Error("unknown rule '" + rule + "'; rules: " + KnownRules());
    if (!it.value().is_object()) return Status::Error("rule '" + rule + "': expected an object of settings");
    for (auto kv = it.value().begin(); kv != it.value().end(); ++kv) {
      const std::string& key = kv.key();
      const nlohmann::json& v = kv.value();
      if (key == "enabled") {
        if (!v.is_boolean()) return Status::Error("rule '" + rule + "': enabled must be true or false");
        rules[rule].enabled = v.get<bool>();
      } else if (key == "policy") {
        if (!v.is_string()) return Status::Error("rule '" + rule + "': policy must be a string");
        StatusOr<Policy> p = ParsePolicy(v.get<std::string>());
        if (!p.ok()) return Status::Error("rule '" + rule + "': " + p.status().message());
        rules[rule].policy = *p;
      } else if (key == "severity") {
        if (!v.is_string()) return Status::Error("rule '" + rule + "': severity must be a string");
        StatusOr<Severity> s = ParseSeverity(v.get<std::string>());
        if (!s.ok()) return Status::Error("rule '" + rule + "': " + s.status().message());
        rules[rule].severity = *s;
      } else {
        if (!v.is_number()) return Status::Error("rule '" + rule + "', parameter '" + key + "': expected a number");
        Status s = Set(rule, key, v.get<double>());
        if (!s.ok()) return s;
      }
    }
  }
  return Status();
}

StatusOr<CheckConfig> CheckConfig::FromJson(const std::string& json_text) {
  CheckConfig c = Defaults();
  Status s = c.Merge(json_text);
  if (!s.ok()) return s;
  return c;
}

StatusOr<CheckConfig> CheckConfig::FromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error("cannot read rules file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  StatusOr<CheckConfig> c = FromJson(ss.str());
  if (!c.ok()) return Status::Error(path + ": " + c.status().message());
  return c;
}

std::string CheckConfig::ToJson() const {
  nlohmann::ordered_json j;
  for (const auto& [name, rc] : rules) {
    nlohmann::ordered_json r = {{"enabled", rc.enabled},
                                {"severity", ToString(rc.severity)},
                                {"policy", ToString(rc.policy)}};
    for (const auto& [k, v] : rc.params) r[k] = v;
    j[name] = r;
  }
  return j.dump(2);
}

// --- Checker -----------------------------------------------------------------

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsGradient(Role r) { return r == Role::kWeightGrad || r == Role::kActivationGrad; }

// Per-tensor recipes whose FormatRecord::scale is the one multiplier of the cast.
bool PerTensorRecipe(const std::string& recipe) {
  return recipe == "none" || recipe.rfind("current", 0) == 0 || recipe.rfind("delayed", 0) == 0;
}

std::string Fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The value at the middle of a log-histogram bin (TensorStats::kLogMantissaBits).
double LogBinValue(size_t b) {
  const int shift = 23 - TensorStats::kLogMantissaBits;
  const uint32_t bits = (static_cast<uint32_t>(b) << shift) | (1u << (shift - 1));
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <typename T>
void Push(std::deque<T>* d, T v, size_t cap) {
  d->push_back(std::move(v));
  while (d->size() > cap) d->pop_front();
}

size_t AsSize(double v, size_t min_value = 1) {
  return v < static_cast<double>(min_value) ? min_value : static_cast<size_t>(v);
}

// The last `window` per-neuron summaries of one layer and their per-neuron
// totals, kept up to date as summaries enter and leave (no re-summing).
struct NeuronWindow {
  std::deque<NeuronSummary> buf;
  std::vector<uint64_t> count, near_zero, bin_count;
  std::vector<double> bin_sum;

  void Push(NeuronSummary s, size_t cap) {
    const bool same_layout = !buf.empty() && buf.front().neurons() == s.neurons() &&
                             buf.front().near_zero.size() == s.near_zero.size() &&
                             buf.front().bin_count.size() == s.bin_count.size();
    if (!same_layout) {  // a new layer shape: start over
      buf.clear();
      count.assign(s.count.size(), 0);
      near_zero.assign(s.near_zero.size(), 0);
      bin_count.assign(s.bin_count.size(), 0);
      bin_sum.assign(s.bin_sum.size(), 0.0);
    }
    Apply(s, +1);
    buf.push_back(std::move(s));
    while (buf.size() > cap) {
      Apply(buf.front(), -1);
      buf.pop_front();
    }
  }

 private:
  void Apply(const NeuronSummary& s, int sign) {
    for (size_t i = 0; i < s.count.size(); ++i) count[i] += sign * static_cast<int64_t>(s.count[i]);
    for (size_t i = 0; i < s.near_zero.size(); ++i) near_zero[i] += sign * static_cast<int64_t>(s.near_zero[i]);
    for (size_t i = 0; i < s.bin_count.size(); ++i) bin_count[i] += sign * static_cast<int64_t>(s.bin_count[i]);
    for (size_t i = 0; i < s.bin_sum.size(); ++i) bin_sum[i] += sign * static_cast<double>(s.bin_sum[i]);
  }
};

}  // namespace

class Checker::Impl {
 public:
  explicit Impl(CheckConfig c) : config_(std::move(c)) {}

  const CheckConfig& config() const { return config_; }
  const std::vector<Finding>& findings() const { return findings_; }
  void Add(const TensorRecord& r) { records_.push_back(r); }
  void Add(const ScalarRecord& s) { scalars_.push_back(s); }
  void AddInitial(const TensorRecord& r) { initial_.push_back(r); }
  Policy PolicyFor(const std::string& rule) const {
    auto it = config_.rules.find(rule);
    return it == config_.rules.end() ? Policy::kLog : it->second.policy;
  }

  std::vector<Finding> EndStep(int64_t step) {
    step_ = step;
    fresh_.clear();
    for (const TensorRecord& r : records_) {
      if (r.role == Role::kWeight) weight_dims_[r.name] = static_cast<int>(r.shape.size());
    }
    for (const TensorRecord& r : initial_) PoorInit(r);
    initial_.clear();
    for (const ScalarRecord& s : scalars_) Scalar(s);
    Gradients();
    for (const TensorRecord& r : records_) Tensor(r);
    records_.clear();
    scalars_.clear();
    SortSeverity(&fresh_);
    return fresh_;
  }

 private:
  bool On(const char* rule) const {
    auto it = config_.rules.find(rule);
    return it != config_.rules.end() && it->second.enabled;
  }
  double P(const char* rule, const char* param) const { return config_.Param(rule, param); }

  // The de-duplication: a key fires when its condition becomes true and is
  // re-armed when the condition is seen false.
  void Judge(const char* rule, const std::string& key, bool condition, const std::string& tensor,
             const std::string& message, std::map<std::string, double> evidence) {
    if (!On(rule)) return;
    const std::string k = std::string(rule) + "|" + key;
    if (!condition) {
      active_.erase(k);
      return;
    }
    if (!active_.insert(k).second) return;
    Finding f;
    f.rule = rule;
    f.severity = config_.rules.at(rule).severity;
    f.step = step_;
    f.tensor = tensor;
    f.message = message;
    f.evidence = std::move(evidence);
    findings_.push_back(f);
    fresh_.push_back(std::move(f));
  }
  static void SortSeverity(std::vector<Finding>* v) {
    std::stable_sort(v->begin(), v->end(), [](const Finding& a, const Finding& b) {
      return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    });
  }

  void Scalar(const ScalarRecord& s);
  void Loss(double loss);
  void Tensor(const TensorRecord& r);
  void Weight(const TensorRecord& r);
  void PoorInit(const TensorRecord& r);
  void Activation(const TensorRecord& r);
  void SaturationPerNeuron(const TensorRecord& r);
  void DeadPerNeuron(const TensorRecord& r);
  void Gradients();
  void LowPrecision(const TensorRecord& r, const FormatRecord& f);

  CheckConfig config_;
  int64_t step_ = 0;
  std::vector<TensorRecord> records_, initial_;
  std::vector<ScalarRecord> scalars_;
  std::vector<Finding> findings_, fresh_;
  std::set<std::string> active_;

  // Rule state.
  std::vector<double> losses_;
  double first_window_ = NAN, best_window_ = NAN, prev_window_ = NAN;
  int not_decreasing_strikes_ = 0;
  std::map<std::string, int> weight_dims_;
  std::set<std::string> seen_weights_;
  std::map<std::string, std::deque<std::array<double, 3>>> weight_sig_;
  std::map<std::string, std::deque<double>> p75_;
  std::map<std::string, std::deque<double>> update_log_;
  std::map<std::string, std::deque<std::pair<double, double>>> act_buf_;  // (sum, count)
  std::map<std::string, NeuronWindow> neuron_buf_;
  int explode_strikes_ = 0;
  std::map<std::string, std::deque<double>> amax_log_;
  std::map<std::string, std::deque<std::pair<float, double>>> scale_hist_;
  std::map<std::string, std::deque<std::pair<double, double>>> overflow_hits_;  // (overflow, numel)
  std::set<std::string> delayed_seen_;
  std::map<std::string, std::optional<Format>> formats_;  // parsed specs
};

void Checker::Impl::Scalar(const ScalarRecord& s) {
  if (s.name == "loss") {
    Loss(s.value);
    return;
  }
  const std::string prefix = "update_ratio/";
  if (s.name.rfind(prefix, 0) != 0 || !On("unstable_learning")) return;
  const std::string param = s.name.substr(prefix.size());
  auto dims = weight_dims_.find(param);
  if (dims != weight_dims_.end() && dims->second < 2) return;  // biases start near 0
  if (!(s.value > 0) || !std::isfinite(s.value)) return;        // untrained_parameter's job
  const size_t window = AsSize(P("unstable_learning", "window"));
  auto& d = update_log_[param];
  Push(&d, std::log10(s.value), window);
  if (d.size() < window) return;
  double mean = 0;
  for (double v : d) mean += v;
  mean /= static_cast<double>(d.size());
  const double lo = P("unstable_learning", "min_log10"), hi = P("unstable_learning", "max_log10");
  const bool high = mean > hi;
  Judge("unstable_learning", param, mean < lo || high, param,
        "the updates of '" + param + "' are " + (high ? "large" : "tiny") +
            " relative to the weights: mean log10(|dw|/|w|) over the last " + std::to_string(window) +
            " steps is " + Fmt(mean) + ", outside (" + Fmt(lo) + ", " + Fmt(hi) + "). " +
            (high ? "Training is unstable and may diverge; try a smaller learning rate or gradient clipping."
                  : "The layer barely learns; try a larger learning rate, or check its gradients (vanishing?)."),
        {{"mean_log10_update_ratio", mean}, {"min_log10", lo}, {"max_log10", hi}});
}

void Checker::Impl::Loss(double loss) {
  Judge("nonfinite", "loss", !std::isfinite(loss), "loss",
        "the loss is " + Fmt(loss) + " (not finite). Training cannot continue from a NaN/Inf "
        "loss; lower the learning rate, check the inputs and the loss (log of 0, division by 0), "
        "or use loss scaling in low precision.",
        {{"loss", loss}});
  if (!std::isfinite(loss)) return;
  const double eps0 = P("zero_loss", "epsilon");
  Judge("zero_loss", "loss", std::fabs(loss) <= eps0, "loss",
        "the loss is exactly " + Fmt(loss) + ". A zero loss usually means a bug in how the loss "
        "is computed (wrong operator, targets equal to outputs, a detached graph), so nothing is "
        "learned; check the loss expression.",
        {{"loss", loss}});
  const double eps1 = P("negative_loss", "epsilon");
  Judge("negative_loss", "loss", loss < -eps1, "loss",
        "the loss is negative (" + Fmt(loss) + "). Cross-entropy, NLL and MSE are never below 0: "
        "the loss probably has the wrong sign (the optimizer is maximizing the error); check the "
        "loss expression and the sign of any regularization term.",
        {{"loss", loss}});
  losses_.push_back(loss);

  const size_t n = losses_.size();
  auto window_mean = [&](size_t w, size_t end) {
    double s = 0;
    for (size_t i = end - w; i < end; ++i) s += losses_[i];
    return s / static_cast<double>(w);
  };
  // diverging_loss: sliding window.
  {
    const size_t w = AsSize(P("diverging_loss", "window"));
    if (n >= w) {
      const double cur = window_mean(w, n);
      if (std::isnan(first_window_)) first_window_ = cur;
      if (std::isnan(best_window_) || cur < best_window_) best_window_ = cur;
      const double factor = P("diverging_loss", "factor"), rise = P("diverging_loss", "min_rise");
      const bool cond = best_window_ > 0 && cur > factor * best_window_ &&
                        cur - best_window_ > rise * std::fabs(first_window_);
      Judge("diverging_loss", "loss", cond, "loss",
            "the loss is diverging: its mean over the last " + std::to_string(w) + " steps is " +
                Fmt(cur) + ", " + Fmt(cur / best_window_) + "x its lowest (" + Fmt(best_window_) +
                "). Training is unstable; lower the learning rate, check the learning-rate "
                "schedule, or clip gradients.",
            {{"window_mean", cur}, {"best_window_mean", best_window_}, {"first_window_mean", first_window_}});
    }
  }
  // loss_not_decreasing: consecutive non-overlapping windows.
  {
    const size_t w = AsSize(P("loss_not_decreasing", "window"));
    if (n >= w && n % w == 0) {
      const double cur = window_mean(w, n);
      const double first = window_mean(w, w);
      const bool converged = first > 0 && cur <= P("loss_not_decreasing", "converged_fraction") * first;
      if (!std::isnan(prev_window_)) {
        const double decrease = (prev_window_ - cur) / std::max(std::fabs(prev_window_), 1e-30);
        if (decrease < P("loss_not_decreasing", "min_decrease") && !converged && first > 0) {
          ++not_decreasing_strikes_;
        } else {
          not_decreasing_strikes_ = 0;
        }
        const int patience = static_cast<int>(AsSize(P("loss_not_decreasing", "patience")));
        Judge("loss_not_decreasing", "loss", not_decreasing_strikes_ >= patience, "loss",
              "the loss is not decreasing: over the last " + std::to_string(patience) +
                  " windows of " + std::to_string(w) + " steps it fell less than " +
                  Fmt(100 * P("loss_not_decreasing", "min_decrease")) + "% per window (now " +
                  Fmt(cur) + ", first window " + Fmt(first) + "). The model is not learning; "
                  "check the learning rate (too small or too large), the initialization, the "
                  "activations and that the loss matches the task.",
              {{"window_mean", cur}, {"first_window_mean", first}, {"decrease", decrease}});
      }
      prev_window_ = cur;
    }
  }
  // fluctuating_loss.
  {
    const size_t w = AsSize(P("fluctuating_loss", "window"), 3);
    if (n >= w + 1) {
      size_t changes = 0;
      double amp = 0, mean = 0;
      for (size_t i = n - w; i < n; ++i) {
        const double d = losses_[i] - losses_[i - 1];
        amp += std::fabs(d);
        mean += losses_[i];
        if (i >= n - w + 1) {
          const double prev = losses_[i - 1] - losses_[i - 2];
          if ((d > 0 && prev < 0) || (d < 0 && prev > 0)) ++changes;
        }
      }
      amp /= static_cast<double>(w);
      mean /= static_cast<double>(w);
      const double share = static_cast<double>(changes) / static_cast<double>(w - 1);
      const double first = std::isnan(first_window_) ? mean : first_window_;
      const bool converged = first > 0 && mean <= P("fluctuating_loss", "converged_fraction") * first;
      const bool cond = mean > 0 && share > P("fluctuating_loss", "max_sign_changes") &&
                        amp > P("fluctuating_loss", "min_amplitude") * mean && !converged;
      Judge("fluctuating_loss", "loss", cond, "loss",
            "the loss fluctuates: over the last " + std::to_string(w) + " steps it changed "
            "direction at " + Fmt(100 * share) + "% of steps, by " + Fmt(amp) + " on average "
            "(mean loss " + Fmt(mean) + "). The optimizer overshoots; lower the learning rate or "
            "use a larger batch.",
            {{"sign_change_share", share}, {"mean_abs_change", amp}, {"mean_loss", mean}});
    }
  }
}

void Checker::Impl::Tensor(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  const uint64_t bad = s.nans + s.pos_infs + s.neg_infs;
  const std::string key = r.name + "|" + ToString(r.role);
  Judge("nonfinite", key, bad > 0, r.name,
        "the " + ToString(r.role) + " '" + r.name + "' holds " + std::to_string(s.nans) + " NaN and " +
            std::to_string(s.pos_infs + s.neg_infs) + " Inf values out of " + std::to_string(s.count) +
            ". Non-finite values poison every later step; lower the learning rate, check the "
            "inputs and divisions/logs in the model, or use loss scaling in low precision.",
        {{"nans", static_cast<double>(s.nans)},
         {"infs", static_cast<double>(s.pos_infs + s.neg_infs)},
         {"count", static_cast<double>(s.count)}});
  if (r.role == Role::kWeight) Weight(r);
  if (r.role == Role::kActivation) Activation(r);
  for (const FormatRecord& f : r.formats) LowPrecision(r, f);
}

void Checker::Impl::PoorInit(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  const int dims = static_cast<int>(r.shape.size());
  // poor_initialization: the first record (or initial weight) only.
  if (seen_weights_.insert(r.name).second && dims >= 2 && s.count > 1 && s.finite() > 0) {
    const double var = s.std * s.std;
    const bool constant = s.std == 0.0 || s.max == s.min;
    const double lo = P("poor_initialization", "min_variance"), hi = P("poor_initialization", "max_variance");
    std::string why = constant ? "all its values are equal (" + Fmt(s.max) + "), so every unit of the layer "
                                 "computes the same thing and gets the same update (broken symmetry)"
                               : "its variance " + Fmt(var) + " is outside [" + Fmt(lo) + ", " + Fmt(hi) +
                                     "], so signals " + (var < lo ? "vanish" : "explode") + " through the layer";
    Judge("poor_initialization", r.name, constant || var < lo || var > hi, r.name,
          "weight '" + r.name + "' is poorly initialized: " + why +
              ". Use a random initialization scaled to the fan-in (Kaiming / Xavier).",
          {{"variance", var}, {"min_variance", lo}, {"max_variance", hi}});
  }
}

void Checker::Impl::Weight(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  const int dims = static_cast<int>(r.shape.size());
  weight_dims_[r.name] = dims;
  if (s.finite() == 0) return;
  PoorInit(r);
  // untrained_parameter.
  {
    const size_t steps = AsSize(P("untrained_parameter", "steps"), 2);
    auto& d = weight_sig_[r.name];
    Push(&d, std::array<double, 3>{s.mean, s.std, static_cast<double>(s.max_abs)}, steps);
    if (d.size() >= steps) {
      const double rtol = P("untrained_parameter", "rtol"), atol = P("untrained_parameter", "atol");
      bool same = true;
      for (const auto& sig : d) {
        for (int i = 0; i < 3; ++i) {
          if (std::fabs(sig[i] - d.back()[i]) > atol + rtol * std::fabs(d.back()[i])) same = false;
        }
      }
      bool converged = false;
      if (losses_.size() >= 5 && !std::isnan(first_window_) && first_window_ > 0) {
        double recent = 0;
        for (size_t i = losses_.size() - 5; i < losses_.size(); ++i) recent += losses_[i] / 5;
        converged = recent <= P("untrained_parameter", "converged_fraction") * first_window_;
      }
      Judge("untrained_parameter", r.name, same && !converged, r.name,
            "parameter '" + r.name + "' has not changed over the last " + std::to_string(steps) +
                " recorded steps. It is not being trained: check that it is passed to the "
                "optimizer, that it is connected to the loss (gradient flows), and that its "
                "learning rate is not 0.",
            {{"mean", s.mean}, {"std", s.std}, {"max_abs", s.max_abs}});
    }
  }
  // diverging_parameters.
  {
    const double p75 = s.Quantile(0.75);
    const size_t window = AsSize(P("diverging_parameters", "window"), 2);
    auto& d = p75_[r.name];
    Push(&d, p75, window);
    bool growing = false;
    if (dims >= 2 && d.size() >= window && d.front() > 0) {
      growing = d.back() > P("diverging_parameters", "growth") * d.front();
      for (size_t i = 1; i < d.size(); ++i) growing = growing && d[i] > d[i - 1];
    }
    const double max_p75 = P("diverging_parameters", "max_p75");
    Judge("diverging_parameters", r.name, p75 > max_p75 || growing, r.name,
          "parameter '" + r.name + "' is diverging: p75|w| = " + Fmt(p75) +
              (growing ? ", grown " + Fmt(d.back() / d.front()) + "x over the last " + std::to_string(window) + " records"
                       : " > " + Fmt(max_p75)) +
              ". Weights that grow without bound end in Inf/NaN; lower the learning rate, check "
              "the sign of regularization terms (weight decay must shrink weights), or clip gradients.",
          {{"p75_abs", p75}, {"growth", d.front() > 0 ? d.back() / d.front() : 0.0}});
  }
}

void Checker::Impl::Activation(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  const std::string type = Lower(r.module_type);
  if (type.empty() || s.finite() == 0) return;
  double lo = -INFINITY, hi = INFINITY;
  if (type == "sigmoid" || type == "softmax") lo = 0, hi = 1;
  if (type == "tanh") lo = -1, hi = 1;
  if (type == "relu") lo = 0;
  if (type == "relu6") lo = 0, hi = 6;
  if (std::isfinite(lo) || std::isfinite(hi)) {
    const double tol = P("activation_out_of_range", "tolerance");
    Judge("activation_out_of_range", r.name, s.min < lo - tol || s.max > hi + tol, r.name,
          "outputs of " + r.module_type + " layer '" + r.name + "' lie in [" + Fmt(s.min) + ", " +
              Fmt(s.max) + "], outside the function's range [" + Fmt(lo) + ", " + Fmt(hi) +
              "]. The activation is not what the tap says, or something modifies its output; "
              "check the layer.",
          {{"min", s.min}, {"max", s.max}, {"range_lo", lo}, {"range_hi", hi}});
  }
  const bool per_neuron = r.neurons && r.neurons->neurons() > 0;
  if (type == "sigmoid" || type == "tanh") {
    if (per_neuron && !r.neurons->bin_count.empty()) {
      SaturationPerNeuron(r);
      return;
    }
    // Fallback (no per-neuron summary, e.g. a stored run): rho_B of the
    // whole layer. With an even number of bins split at 0 it equals mean |g|,
    // g the output mapped to [-1, 1]; values come from the log histogram
    // (bin midpoints).
    double sum = 0;
    for (size_t b = 0; b < s.log_hist.size(); ++b) {
      if (s.log_hist[b] == 0) continue;
      const double v = LogBinValue(b);
      const double g = type == "tanh" ? std::min(1.0, v) : std::fabs(2 * std::min(1.0, v) - 1);
      sum += g * static_cast<double>(s.log_hist[b]);
    }
    if (type == "sigmoid") sum += static_cast<double>(s.zeros);  // sigmoid 0 -> g = -1
    const size_t window = AsSize(P("activation_saturation", "window"));
    auto& d = act_buf_[r.name + "|sat"];
    Push(&d, std::make_pair(sum, static_cast<double>(s.finite())), window);
    if (d.size() >= window) {
      double a = 0, c = 0;
      for (const auto& [x, n] : d) a += x, c += n;
      const double rho = c > 0 ? a / c : 0;
      const double max_rho = P("activation_saturation", "max_rho");
      Judge("activation_saturation", r.name, rho > max_rho, r.name,
            r.module_type + " layer '" + r.name + "' is saturated: rho_B = " + Fmt(rho) + " > " +
                Fmt(max_rho) + " over the last " + std::to_string(window) +
                " records (whole layer: no per-neuron summaries in this run), most outputs sit at "
                "the flat ends of the function where gradients vanish. Use ReLU-like activations, "
                "normalize inputs, or scale down the initial weights and biases.",
            {{"rho_b", rho}, {"max_rho", max_rho}, {"per_neuron", 0}});
    }
  }
  if (type == "relu" || type == "relu6" || type == "leakyrelu") {
    if (type == "leakyrelu") return;  // never exactly 0
    if (per_neuron && !r.neurons->near_zero.empty()) {
      DeadPerNeuron(r);
      return;
    }
    // Fallback: the layer's share of exact zeros.
    const size_t window = AsSize(P("dead_relu", "window"));
    auto& d = act_buf_[r.name + "|dead"];
    Push(&d, std::make_pair(static_cast<double>(s.zeros), static_cast<double>(s.count)), window);
    if (d.size() >= window) {
      double z = 0, c = 0;
      for (const auto& [x, n] : d) z += x, c += n;
      const double share = c > 0 ? z / c : 0;
      const double max_share = P("dead_relu", "max_zero_share");
      Judge("dead_relu", r.name, share > max_share, r.name,
            "ReLU layer '" + r.name + "' is dying: " + Fmt(100 * share) + "% of its outputs were 0 "
                "over the last " + std::to_string(window) + " records (threshold " +
                Fmt(100 * max_share) + "%, whole layer: no per-neuron summaries in this run). Dead "
                "units get no gradient and never recover; lower the learning rate, check for large "
                "negative biases, or use LeakyReLU.",
            {{"zero_share", share}, {"max_zero_share", max_share}, {"per_neuron", 0}});
    }
  }
}

void Checker::Impl::SaturationPerNeuron(const TensorRecord& r) {
  const size_t window = AsSize(P("activation_saturation", "window"));
  NeuronWindow& w = neuron_buf_[r.name + "|sat"];
  w.Push(*r.neurons, window);
  if (w.buf.size() < window) return;
  constexpr int B = NeuronSummary::kBins;
  const double max_rho = P("activation_saturation", "max_rho");
  size_t seen = 0, saturated = 0;
  double layer_abs = 0, layer_n = 0;
  for (size_t n = 0; n < w.count.size(); ++n) {
    if (w.count[n] == 0) continue;
    // rho_B = sum_b N_b |mean g of bin b| / sum_b N_b.
    double a = 0;
    for (int b = 0; b < B; ++b) a += std::fabs(w.bin_sum[n * B + b]);
    const double rho = a / static_cast<double>(w.count[n]);
    ++seen;
    saturated += rho > max_rho;
    layer_abs += a, layer_n += static_cast<double>(w.count[n]);
  }
  if (seen == 0) return;
  const double share = static_cast<double>(saturated) / static_cast<double>(seen);
  const double max_share = P("activation_saturation", "max_saturated_neurons");
  const double rho = layer_n > 0 ? layer_abs / layer_n : 0;
  Judge("activation_saturation", r.name, share > max_share, r.name,
        r.module_type + " layer '" + r.name + "' is saturated: " + std::to_string(saturated) + " of its " +
            std::to_string(seen) + " neurons (" + Fmt(100 * share) + "%, threshold " + Fmt(100 * max_share) +
            "%) have rho_B > " + Fmt(max_rho) + " over the last " + std::to_string(window) +
            " records: their outputs sit at the flat ends of the function where gradients vanish. "
            "Use ReLU-like activations, normalize inputs, or scale down the initial weights and biases.",
        {{"saturated_neurons", static_cast<double>(saturated)},
         {"neurons", static_cast<double>(seen)},
         {"saturated_share", share},
         {"max_saturated_neurons", max_share},
         {"rho_b", rho},
         {"max_rho", max_rho},
         {"per_neuron", 1}});
}

void Checker::Impl::DeadPerNeuron(const TensorRecord& r) {
  const size_t window = AsSize(P("dead_relu", "window"));
  NeuronWindow& w = neuron_buf_[r.name + "|dead"];
  w.Push(*r.neurons, window);
  if (w.buf.size() < window) return;
  const double neuron_zero_share = P("dead_relu", "neuron_zero_share");
  size_t seen = 0, dead = 0;
  double z = 0, c = 0;
  for (size_t n = 0; n < w.count.size(); ++n) {
    if (w.count[n] == 0) continue;
    ++seen;
    const double share = static_cast<double>(w.near_zero[n]) / static_cast<double>(w.count[n]);
    dead += share >= neuron_zero_share;
    z += static_cast<double>(w.near_zero[n]), c += static_cast<double>(w.count[n]);
  }
  if (seen == 0) return;
  const double share = static_cast<double>(dead) / static_cast<double>(seen);
  const double max_share = P("dead_relu", "max_dead_neurons");
  Judge("dead_relu", r.name, share > max_share, r.name,
        "ReLU layer '" + r.name + "' is dying: " + std::to_string(dead) + " of its " + std::to_string(seen) +
            " neurons (" + Fmt(100 * share) + "%, threshold " + Fmt(100 * max_share) + "%) output ~0 (|y| < " +
            Fmt(r.neurons->zero_threshold) + ") for at least " + Fmt(100 * neuron_zero_share) +
            "% of the inputs over the last " + std::to_string(window) +
            " records. Dead units get no gradient and never recover; lower the learning rate, check "
            "for large negative biases, or use LeakyReLU.",
        {{"dead_neurons", static_cast<double>(dead)},
         {"neurons", static_cast<double>(seen)},
         {"dead_share", share},
         {"max_dead_neurons", max_share},
         {"zero_share", c > 0 ? z / c : 0.0},
         {"per_neuron", 1}});
}

void Checker::Impl::Gradients() {
  // Weight-gradient records of >=2-D parameters, in parameter order.
  std::vector<const TensorRecord*> grads;
  for (const TensorRecord& r : records_) {
    if (r.role == Role::kWeightGrad && r.shape.size() >= 2 && r.stats.finite() > 0) grads.push_back(&r);
  }
  for (const TensorRecord* g : grads) {
    const double p25 = g->stats.Quantile(0.25), p50 = g->stats.Quantile(0.5), p75 = g->stats.Quantile(0.75);
    const double vmax = P("vanishing_gradient", "max_median");
    Judge("vanishing_gradient", g->name, p50 < vmax, g->name,
          "the gradient of '" + g->name + "' vanishes: median |g| = " + Fmt(p50) + " < " + Fmt(vmax) +
              " (quartiles " + Fmt(p25) + ", " + Fmt(p50) + ", " + Fmt(p75) + "). The layer stops "
              "learning; use ReLU-like activations, better initialization, normalization or residual "
              "connections, or a larger learning rate.",
          {{"p25", p25}, {"p50", p50}, {"p75", p75}});
    const double emin = P("exploding_gradient", "min_median");
    Judge("exploding_gradient", g->name, p50 > emin, g->name,
          "the gradient of '" + g->name + "' explodes: median |g| = " + Fmt(p50) + " > " + Fmt(emin) +
              ". Updates this large destroy the weights; lower the learning rate, clip gradients, "
              "or check the loss scale.",
          {{"p25", p25}, {"p50", p50}, {"p75", p75}});
  }
  if (grads.size() < 2) return;
  auto norm = [](const TensorRecord* r) {
    return r->stats.rms * std::sqrt(static_cast<double>(r->stats.finite()));
  };
  const double first = norm(grads.front()), last = norm(grads.back());
  if (!(last > 0)) return;
  const double ratio = first / last;
  const std::string& name = grads.front()->name;
  const double max_ratio = P("vanishing_gradient", "max_ratio");
  const double max_first = P("vanishing_gradient", "max_first_norm");
  Judge("vanishing_gradient", name + "|ratio", ratio < max_ratio && first < max_first, name,
        "gradients vanish towards the input: ||g|| of the first layer '" + name + "' is " + Fmt(first) +
            ", " + Fmt(ratio) + "x that of the last layer '" + grads.back()->name +
            "'. Early layers barely learn; use ReLU-like activations, Kaiming initialization, "
            "normalization or residual connections.",
        {{"first_norm", first}, {"last_norm", last}, {"ratio", ratio}});
  explode_strikes_ = ratio > P("exploding_gradient", "min_ratio") ? explode_strikes_ + 1 : 0;
  Judge("exploding_gradient", name + "|ratio",
        explode_strikes_ >= static_cast<int>(AsSize(P("exploding_gradient", "patience"))), name,
        "gradients explode towards the input: ||g|| of the first layer '" + name + "' is " +
            Fmt(ratio) + "x that of the last layer '" + grads.back()->name +
            "'. Lower the learning rate, clip gradients, or normalize activations.",
        {{"first_norm", first}, {"last_norm", last}, {"ratio", ratio}});
}

void Checker::Impl::LowPrecision(const TensorRecord& r, const FormatRecord& f) {
  const CastCounts& c = f.counts;
  const std::string key = r.name + "|" + ToString(r.role) + "|" + f.format + "|" + f.recipe;
  const std::string where = "[" + f.format + ", " + f.recipe + "] " + ToString(r.role) + " '" + r.name + "'";
  if (c.numel == 0) return;
  // A delayed recipe's first record has no amax history yet (scale 1).
  if (f.recipe.rfind("delayed", 0) == 0 && delayed_seen_.insert(key).second) return;
  auto cached = formats_.find(f.format);
  if (cached == formats_.end()) {
    StatusOr<Format> parsed = ParseFormat(f.format);
    cached = formats_.emplace(f.format, parsed.ok() ? std::optional<Format>(*parsed) : std::nullopt).first;
  }
  const std::optional<Format>& fmt = cached->second;
  // bf16/fp32-range formats under a scaling recipe: their range covers
  // fp32's and the recipe's scale (clamped to fp32) means nothing for them.
  if (fmt && fmt->exponent_bits() >= 8 && f.recipe != "none" && PerTensorRecipe(f.recipe)) return;
  auto role_on = [&](const char* rule) {
    return (static_cast<int>(P(rule, "roles")) & static_cast<int>(r.role)) != 0;
  };
  if (IsGradient(r.role) && role_on("lp_underflow")) {
    const uint64_t nonzero = c.numel - c.zero_in - c.nan_in - c.inf_in;
    const double share = nonzero > 0 ? static_cast<double>(c.underflow) / static_cast<double>(nonzero) : 0;
    const double max_share = P("lp_underflow", "max_share");
    Judge("lp_underflow", key, share > max_share, r.name,
          where + ": " + Fmt(100 * share) + "% of the nonzero gradient values flush to zero in " +
              f.format + " with " + f.recipe + " scaling. On that hardware these gradients vanish "
              "and training stalls; use loss scaling or a per-tensor recipe (current/delayed), or "
              "a format with more exponent range (e5m2, bf16).",
          {{"underflow_share", share}, {"max_share", max_share}, {"scale", f.scale}});
  }
  if (role_on("lp_overflow")) {
    const double share = static_cast<double>(c.overflow) / static_cast<double>(c.numel);
    const double max_share = P("lp_overflow", "max_share");
    auto& hits = overflow_hits_[key];
    Push(&hits, std::make_pair(static_cast<double>(c.overflow), static_cast<double>(c.numel)),
         AsSize(P("lp_overflow", "window")));
    double over = 0, total = 0;
    size_t n_hits = 0;
    for (const auto& [o, n] : hits) over += o, total += n, n_hits += o > 0;
    const double pooled = total > 0 ? over / total : 0;
    const bool cond = static_cast<double>(c.numel) >= P("lp_overflow", "min_numel") && c.overflow > 0 &&
                      pooled > max_share && n_hits >= AsSize(P("lp_overflow", "min_hits"));
    Judge("lp_overflow", key, cond, r.name,
          where + ": " + Fmt(100 * share) + "% of the values overflow " + f.format + " with " +
              f.recipe + " scaling. On that hardware they become Inf/NaN or clip to max: predicted "
              "exploding values; use a per-tensor scale (current, or delayed with a margin), or a "
              "format with more range.",
          {{"overflow_share", share}, {"pooled_share", pooled}, {"max_share", max_share}, {"scale", f.scale}});
  }
  if (c.numel > c.zero_in + c.nan_in + c.inf_in && c.sq_signal > 0 && role_on("lp_snr")) {
    const double snr = c.SnrDb();
    const double min_snr = P("lp_snr", "min_snr_db");
    Judge("lp_snr", key, std::isfinite(snr) && snr < min_snr, r.name,
          where + ": the cast keeps only " + Fmt(snr) + " dB SNR (< " + Fmt(min_snr) +
              " dB): the values lose most of their information. Use a format with more mantissa "
              "bits, finer-grained scaling (mx, 1x128), or keep this tensor in higher precision.",
          {{"snr_db", snr}, {"min_snr_db", min_snr}});
  }
  if (!PerTensorRecipe(f.recipe) || r.stats.max_abs <= 0 || !(f.scale > 0) || !fmt) return;
  const double fmax = fmt->MaxValue(), fmin = fmt->MinSubnormal();
  // lp_dynamic_range.
  if (role_on("lp_dynamic_range")) {
    const double q = r.stats.Quantile(P("lp_dynamic_range", "quantile"));
    if (q > 0) {
      const double spread = std::log2(r.stats.max_abs / q);
      const double capacity = std::log2(fmax / fmin);
      Judge("lp_dynamic_range", key, spread > capacity, r.name,
            where + ": its values span " + Fmt(spread) + " binades (max|x| / q" +
                Fmt(100 * P("lp_dynamic_range", "quantile")) + "), more than the " + Fmt(capacity) +
                " that " + f.format + " holds: no single scale avoids both underflow and overflow. "
                "Use block scaling (mx, 1x128) or a wider format for this tensor.",
            {{"spread_binades", spread}, {"format_binades", capacity}});
    }
  }
  // lp_headroom: least-squares trend of log2 amax (unscaled).
  if (f.recipe == "none" && role_on("lp_headroom")) {
    const size_t window = AsSize(P("lp_headroom", "window"), 3);
    auto& d = amax_log_[key];
    Push(&d, std::log2(static_cast<double>(r.stats.max_abs) * f.scale), window);
    // Steps are the record steps; keep them alongside via a parallel deque.
    auto& steps = amax_log_[key + "|step"];
    Push(&steps, static_cast<double>(r.step), window);
    if (d.size() >= window) {
      const double n = static_cast<double>(d.size());
      double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
      for (size_t i = 0; i < d.size(); ++i) {
        sx += steps[i], sy += d[i], sxx += steps[i] * steps[i], sxy += steps[i] * d[i], syy += d[i] * d[i];
      }
      const double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
      const double slope = vx > 0 ? cxy / vx : 0;
      const double r2 = vx > 0 && vy > 0 ? cxy * cxy / (vx * vy) : 0;
      const double limit = std::log2(fmax);
      const double now = d.back();
      bool cond = false;
      double predicted = 0;
      if (slope > 0 && r2 >= P("lp_headroom", "min_r2") && now < limit) {
        const double intercept = (sy - slope * sx) / n;
        predicted = (limit - intercept) / slope;
        cond = predicted - static_cast<double>(r.step) <= P("lp_headroom", "horizon");
      }
      Judge("lp_headroom", key, cond, r.name,
            where + ": headroom is shrinking: log2 amax rises " + Fmt(slope) + " binades per step "
                "(R^2 " + Fmt(r2) + ") and reaches " + f.format + "'s max (2^" + Fmt(limit) +
                ") at about step " + Fmt(std::ceil(predicted)) + ". Expect overflow there; use "
                "per-tensor current scaling, a margin, or find why the values grow.",
            {{"predicted_step", std::ceil(predicted)}, {"slope_binades_per_step", slope}, {"r2", r2},
             {"log2_amax_scaled", now}, {"log2_format_max", limit}});
    }
  }
  // lp_stale_scaling.
  if (f.recipe.rfind("delayed", 0) == 0 && role_on("lp_stale_scaling")) {
    const size_t steps = AsSize(P("lp_stale_scaling", "steps"), 2);
    auto& d = scale_hist_[key];
    Push(&d, std::make_pair(f.scale, std::log2(static_cast<double>(r.stats.max_abs))), steps);
    if (d.size() >= steps) {
      bool same = true;
      double lo = d.front().second, hi = d.front().second;
      for (const auto& [sc, la] : d) {
        same = same && sc == d.front().first;
        lo = std::min(lo, la), hi = std::max(hi, la);
      }
      const double moved = hi - lo;
      Judge("lp_stale_scaling", key, same && moved >= P("lp_stale_scaling", "min_amax_change_log2"), r.name,
            where + ": the delayed scale (" + Fmt(f.scale) + ") has not changed for " +
                std::to_string(steps) + " records while amax moved " + Fmt(moved) +
                " binades. The scale is stale: the amax history is not updated or one old spike "
                "dominates it; check the recipe's history length and its update.",
            {{"scale", f.scale}, {"amax_change_binades", moved}});
    }
  }
}

Checker::Checker(CheckConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Checker::~Checker() = default;
Checker::Checker(Checker&&) noexcept = default;
Checker& Checker::operator=(Checker&&) noexcept = default;
const CheckConfig& Checker::config() const { return impl_->config(); }
void Checker::Add(const TensorRecord& record) { impl_->Add(record); }
void Checker::Add(const ScalarRecord& scalar) { impl_->Add(scalar); }
void Checker::AddInitialWeight(const TensorRecord& record) { impl_->AddInitial(record); }
std::vector<Finding> Checker::EndStep(int64_t step) { return impl_->EndStep(step); }
const std::vector<Finding>& Checker::findings() const { return impl_->findings(); }
Policy Checker::PolicyFor(const std::string& rule) const { return impl_->PolicyFor(rule); }

void SortForDisplay(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    return a.step > b.step;
  });
}

}  // namespace lpsim
