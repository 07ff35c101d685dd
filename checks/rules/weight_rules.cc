#include "checks/rules/weight_rules.h"

#include <cmath>

#include "checks/check_config.h"

namespace lpsim {

void WeightRules::Catalog(std::vector<RuleInfo>* out) {
  constexpr Severity W = Severity::kWarning, E = Severity::kError;
  out->push_back(CatalogEntry("untrained_parameter", "parameters",
                  "a weight's mean, std and max|w| stay equal (rtol, atol) over `steps` recorded steps, "
                  "and it has been still for at least as many records as it ever changed (a weight that "
                  "trained, then stopped, is an annealed learning rate until the stop outlasts the training)",
                  "SageMaker Debugger UnchangedTensor (num_steps 3, rtol 1e-5, atol 1e-8); silent once the "
                  "loss is below converged_fraction x its first window (AUTOTRAINER gate); still vs trained: lpsim", W));
  out->push_back(CatalogEntry("redundant_parameter", "parameters",
                  "a parameter unchanged as for untrained_parameter whose max|g| is at most "
                  "negligible_gradient x the step's largest max|g| (0, or the rounding noise of an exact "
                  "cancellation) while the loss changes (the loss does not depend on it: a bias before BatchNorm)",
                  "lpsim (split from untrained_parameter; steps from it)", Severity::kInfo));
  out->push_back(CatalogEntry("poor_initialization", "parameters",
                  "at its first record, a >=2-D weight is constant (broken symmetry) or its variance is "
                  "outside [min_variance, max_variance]",
                  "DeepDiagnosis poor weights: var outside [1e-5, 10]; constant init = TFCheck IPS-15", W));
  out->push_back(CatalogEntry("diverging_parameters", "parameters",
                  "p75|w| > max_p75, or p75|w| of a >=2-D weight rises at every record and grows more "
                  "than `growth` times over `window` records, or grows more than trend_growth times over "
                  "trend_steps steps with the late half growing >= min_late_share x the early half",
                  "TheDeepChecker weight divergence (mean-abs > 1e8, growth > 2 over window 5); trend: "
                  "lpsim (steady growth, e.g. wrong-sign weight decay)", E));
  out->push_back(CatalogEntry("unstable_learning", "parameters",
                  "mean of log10(mean|dw| / mean|w|) over `window` steps of a >=2-D weight outside "
                  "(min_log10, max_log10) by more than z standard errors of that mean; tiny only while the weight never had a window in range, "
                  "large unless |w| grows while the loss falls",
                  "TheDeepChecker update/weight ratio, log10 outside [-4, -1]; the z-standard-error "
                  "allowance for batch noise: lpsim", W));
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
  // A small output layer is deliberate (zero-initialized last layers in
  // Fixup, x0.01 policy heads in PPO): its logits start near 0 and the
  // gradients reaching the layers below are unaffected. Only a too-large
  // variance (or a constant) is judged there.
  const bool small_ok = r.name == output_layer_;
  std::string why = constant ? "all its values are equal (" + Fmt(s.max) + "), so every unit of the layer "
                               "computes the same thing and gets the same update (broken symmetry)"
                             : "its variance " + Fmt(var) + " is outside [" + Fmt(lo) + ", " + Fmt(hi) +
                                   "], so signals " + (var < lo ? "vanish" : "explode") + " through the layer";
  sink_->Judge("poor_initialization", r.name, constant || (var < lo && !small_ok) || var > hi, r.name,
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
  const double k = static_cast<double>(d.size());
  double mean = 0, ss = 0;
  for (double v : d) mean += v;
  mean /= k;
  for (double v : d) ss += (v - mean) * (v - mean);
  // The window's mean must be outside the bounds by z standard errors: the
  // per-step ratio of a small layer under plain SGD scatters by +-0.15
  // decades around its level (batch noise), so a layer working at 10^-1.0
  // crosses 10^-1 in one window of two by chance; the data must show the
  // level is outside, as loss_not_decreasing asks of the loss.
  const double se = d.size() >= 2 ? std::sqrt(ss / (k - 1) / k) : 0;
  const double lo = p.min_log10, hi = p.max_log10;
  const bool high = mean - p.z * se > hi, low = mean + p.z * se < lo;
  if (mean <= hi && mean >= lo) updates_were_normal_.insert(param);
  // Tiny updates after the layer has learned at a normal rate are
  // convergence (Adam's first moment averages to ~0) or a decayed learning
  // rate, not a layer that cannot learn.
  const bool tiny = low && !updates_were_normal_.count(param);
  // A large ratio while the weights grow (a small initialization reaching
  // its working scale: |dw|/|w| is large because |w| is small) and the loss
  // falls is a fast start, not instability.
  const std::deque<double>& rms = rms_[param];
  const bool growing = rms.size() >= 2 && rms.back() > rms.front();
  const bool large = high && !(growing && loss_->Improving(window));
  sink_->Judge("unstable_learning", param, tiny || large, param,
               "the updates of '" + param + "' are " + (high ? "large" : "tiny") +
                   " relative to the weights: mean log10(|dw|/|w|) over the last " + std::to_string(window) +
                   " steps is " + Fmt(mean) + " (+-" + Fmt(se) + "), outside (" + Fmt(lo) + ", " + Fmt(hi) + "). " +
                   (high ? "Training is unstable and may diverge; try a smaller learning rate or gradient clipping."
                         : "The layer barely learns; try a larger learning rate, or check its gradients (vanishing?)."),
               {{"mean_log10_update_ratio", mean}, {"standard_error", se}, {"min_log10", lo}, {"max_log10", hi}});
}

void WeightRules::Weight(const TensorRecord& r) {
  dims_[r.name] = static_cast<int>(r.shape.size());
  if (r.stats.finite() == 0) return;
  Push(&rms_[r.name], static_cast<double>(r.stats.rms), static_cast<size_t>(p_.unstable_learning.window));
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
  auto& [changed, still] = motion_[r.name];
  if (d.size() >= 2) {
    bool moved = false;
    const auto& a = d[d.size() - 2];
    const auto& b = d.back();
    for (size_t i = 0; i < 3; ++i) moved = moved || std::fabs(a[i] - b[i]) > p.atol + p.rtol * std::fabs(b[i]);
    if (moved) ++changed, still = 0;
    else ++still;
  }
  if (d.size() < steps) return;
  bool same = true;
  for (const auto& sig : d) {
    for (size_t i = 0; i < 3; ++i) {
      if (std::fabs(sig[i] - d.back()[i]) > p.atol + p.rtol * std::fabs(d.back()[i])) same = false;
    }
  }
  const bool converged = loss_->Converged(p.converged_fraction);
  // A weight that changed for many records and then stopped is a learning
  // rate annealed to ~0 (the last steps of a cosine schedule) until the stop
  // lasts as long as the training did; a schedule that collapses after a few
  // steps still fires soon after.
  const bool annealed = still < changed;
  // A gradient of 0 (or the rounding noise of an exact cancellation, far
  // below the step's other gradients) while the loss moves: the parameter
  // has no effect on the loss (a bias followed by BatchNorm, a layer behind
  // dead units). It is redundant rather than cut off from the optimizer.
  auto g = grad_max_.find(r.name);
  const bool negligible = g != grad_max_.end() && g->second <= p.negligible_gradient * step_max_grad_;
  const bool redundant = same && negligible && loss_->Varies(steps);
  sink_->Judge("redundant_parameter", r.name, redundant, r.name,
               "parameter '" + r.name + "' has not changed over the last " + std::to_string(steps) +
                   " recorded steps and its gradient is 0 or negligible (max|g| " + Fmt(grad_max_[r.name]) +
                   " against the step's largest " + Fmt(step_max_grad_) + ") while the loss changes: the loss does not "
                   "depend on it (a bias followed by BatchNorm, or a layer whose outputs are all cut off, "
                   "e.g. by dead ReLUs). Remove it (bias=false before BatchNorm) or check what blocks it.",
               {{"mean", s.mean}, {"std", s.std}, {"max_abs", s.max_abs}});
  sink_->Judge("untrained_parameter", r.name, same && !converged && !redundant && !annealed, r.name,
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
    // Weights growing fast while the loss falls are a small initialization
    // reaching its working scale (a head initialised x0.01), not divergence:
    // exploding weights take the loss up with them.
    growing = growing && !loss_->Improving(std::min(2 * window, loss_->losses().size()));
  }
  // Steady exponential growth over a long span (wrong-sign weight decay:
  // w <- w (1 + lr lambda), x16 over 600 steps) is too slow for the window;
  // weights growing from a small initialization slow down instead (the late
  // half of the span grows far less than the early half).
  bool trend = false;
  double trend_factor = 1;
  if (dims >= 2 && p75 > 0) {
    auto& t = trend_[r.name];
    const double step = static_cast<double>(r.step), span = static_cast<double>(p.trend_steps);
    t.emplace_back(step, std::log(p75));
    while (t.size() > 2 && t[1].first <= step - span) t.pop_front();
    if (t.front().first <= step - span) {
      const double mid_step = t.front().first + (step - t.front().first) / 2;
      size_t mid = 0;
      while (mid + 1 < t.size() && t[mid].first < mid_step) ++mid;
      const double early = t[mid].second - t.front().second, late = t.back().second - t[mid].second;
      trend_factor = std::exp(t.back().second - t.front().second);
      trend = trend_factor > p.trend_growth && early > 0 && late >= p.min_late_share * early;
    }
  }
  sink_->Judge("diverging_parameters", r.name, p75 > p.max_p75 || growing || trend, r.name,
               "parameter '" + r.name + "' is diverging: p75|w| = " + Fmt(p75) +
                   (growing ? ", grown " + Fmt(d.back() / d.front()) + "x over the last " +
                                  std::to_string(window) + " records"
                    : trend ? ", grown steadily " + Fmt(trend_factor) + "x over the last " +
                                  std::to_string(p.trend_steps) + " steps"
                            : " > " + Fmt(p.max_p75)) +
                   ". Weights that grow without bound end in Inf/NaN; lower the learning rate, check "
                   "the sign of regularization terms (weight decay must shrink weights), or clip gradients.",
               {{"p75_abs", p75}, {"growth", d.front() > 0 ? d.back() / d.front() : 0.0}});
}

}  // namespace lpsim
