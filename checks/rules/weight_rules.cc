#include "checks/rules/weight_rules.h"

#include <cmath>

#include "checks/check_config.h"

namespace lpsim {

void WeightRules::Catalog(std::vector<RuleInfo>* out) {
  constexpr Severity W = Severity::kWarning, E = Severity::kError;
  out->push_back(CatalogEntry("untrained_parameter", "parameters",
                  "a weight's mean, std and max|w| stay equal (rtol, atol) over `steps` recorded steps",
                  "SageMaker Debugger UnchangedTensor (num_steps 3, rtol 1e-5, atol 1e-8); silent once the "
                  "loss is below converged_fraction x its first window (AUTOTRAINER gate)", W));
  out->push_back(CatalogEntry("poor_initialization", "parameters",
                  "at its first record, a >=2-D weight is constant (broken symmetry) or its variance is "
                  "outside [min_variance, max_variance]",
                  "DeepDiagnosis poor weights: var outside [1e-5, 10]; constant init = TFCheck IPS-15", W));
  out->push_back(CatalogEntry("diverging_parameters", "parameters",
                  "p75|w| > max_p75, or p75|w| of a >=2-D weight rises at every record and grows more "
                  "than `growth` times over `window` records",
                  "TheDeepChecker weight divergence (mean-abs > 1e8, growth > 2 over window 5)", E));
  out->push_back(CatalogEntry("unstable_learning", "parameters",
                  "mean of log10(mean|dw| / mean|w|) over `window` steps of a >=2-D weight outside "
                  "(min_log10, max_log10)",
                  "TheDeepChecker update/weight ratio, log10 outside [-4, -1]", W));
}

using rules::Fmt;
using rules::Push;

void WeightRules::PoorInit(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  const int dims = static_cast<int>(r.shape.size());
  if (!seen_.insert(r.name).second || dims < 2 || s.count <= 1 || s.finite() == 0) return;
  const double var = s.std * s.std;
  const bool constant = s.std == 0.0 || s.max == s.min;
  const double lo = p_.poor_initialization.min_variance, hi = p_.poor_initialization.max_variance;
  std::string why = constant ? "all its values are equal (" + Fmt(s.max) + "), so every unit of the layer "
                               "computes the same thing and gets the same update (broken symmetry)"
                             : "its variance " + Fmt(var) + " is outside [" + Fmt(lo) + ", " + Fmt(hi) +
                                   "], so signals " + (var < lo ? "vanish" : "explode") + " through the layer";
  sink_->Judge("poor_initialization", r.name, constant || var < lo || var > hi, r.name,
               "weight '" + r.name + "' is poorly initialized: " + why +
                   ". Use a random initialization scaled to the fan-in (Kaiming / Xavier).",
               {{"variance", var}, {"min_variance", lo}, {"max_variance", hi}});
}

void WeightRules::UpdateRatio(const std::string& param, double ratio) {
  if (!sink_->On("unstable_learning")) return;
  auto dims = dims_.find(param);
  if (dims != dims_.end() && dims->second < 2) return;  // biases start near 0
  if (!(ratio > 0) || !std::isfinite(ratio)) return;    // untrained_parameter's job
  const UnstableLearningParams& p = p_.unstable_learning;
  const size_t window = static_cast<size_t>(p.window);
  auto& d = update_log_[param];
  Push(&d, std::log10(ratio), window);
  if (d.size() < window) return;
  double mean = 0;
  for (double v : d) mean += v;
  mean /= static_cast<double>(d.size());
  const double lo = p.min_log10, hi = p.max_log10;
  const bool high = mean > hi;
  sink_->Judge("unstable_learning", param, mean < lo || high, param,
               "the updates of '" + param + "' are " + (high ? "large" : "tiny") +
                   " relative to the weights: mean log10(|dw|/|w|) over the last " + std::to_string(window) +
                   " steps is " + Fmt(mean) + ", outside (" + Fmt(lo) + ", " + Fmt(hi) + "). " +
                   (high ? "Training is unstable and may diverge; try a smaller learning rate or gradient clipping."
                         : "The layer barely learns; try a larger learning rate, or check its gradients (vanishing?)."),
               {{"mean_log10_update_ratio", mean}, {"min_log10", lo}, {"max_log10", hi}});
}

void WeightRules::Weight(const TensorRecord& r) {
  dims_[r.name] = static_cast<int>(r.shape.size());
  if (r.stats.finite() == 0) return;
  PoorInit(r);
  Untrained(r);
  Diverging(r);
}

void WeightRules::Untrained(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  const UntrainedParameterParams& p = p_.untrained_parameter;
  const size_t steps = static_cast<size_t>(p.steps);
  auto& d = signature_[r.name];
  Push(&d, std::array<double, 3>{s.mean, s.std, static_cast<double>(s.max_abs)}, steps);
  if (d.size() < steps) return;
  bool same = true;
  for (const auto& sig : d) {
    for (int i = 0; i < 3; ++i) {
      if (std::fabs(sig[i] - d.back()[i]) > p.atol + p.rtol * std::fabs(d.back()[i])) same = false;
    }
  }
  bool converged = false;
  const std::vector<double>& losses = loss_->losses();
  const double first_window = loss_->first_window();
  if (losses.size() >= 5 && !std::isnan(first_window) && first_window > 0) {
    double recent = 0;
    for (size_t i = losses.size() - 5; i < losses.size(); ++i) recent += losses[i] / 5;
    converged = recent <= p.converged_fraction * first_window;
  }
  sink_->Judge("untrained_parameter", r.name, same && !converged, r.name,
               "parameter '" + r.name + "' has not changed over the last " + std::to_string(steps) +
                   " recorded steps. It is not being trained: check that it is passed to the "
                   "optimizer, that it is connected to the loss (gradient flows), and that its "
                   "learning rate is not 0.",
               {{"mean", s.mean}, {"std", s.std}, {"max_abs", s.max_abs}});
}

void WeightRules::Diverging(const TensorRecord& r) {
  const DivergingParametersParams& p = p_.diverging_parameters;
  const int dims = static_cast<int>(r.shape.size());
  const double p75 = r.stats.Quantile(0.75);
  const size_t window = static_cast<size_t>(p.window);
  auto& d = p75_[r.name];
  Push(&d, p75, window);
  bool growing = false;
  if (dims >= 2 && d.size() >= window && d.front() > 0) {
    growing = d.back() > p.growth * d.front();
    for (size_t i = 1; i < d.size(); ++i) growing = growing && d[i] > d[i - 1];
  }
  sink_->Judge("diverging_parameters", r.name, p75 > p.max_p75 || growing, r.name,
               "parameter '" + r.name + "' is diverging: p75|w| = " + Fmt(p75) +
                   (growing ? ", grown " + Fmt(d.back() / d.front()) + "x over the last " +
                                  std::to_string(window) + " records"
                            : " > " + Fmt(p.max_p75)) +
                   ". Weights that grow without bound end in Inf/NaN; lower the learning rate, check "
                   "the sign of regularization terms (weight decay must shrink weights), or clip gradients.",
               {{"p75_abs", p75}, {"growth", d.front() > 0 ? d.back() / d.front() : 0.0}});
}

}  // namespace lpsim
