#include "checks/rules/loss_rules.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "checks/check_config.h"

namespace lpsim {

void LossRules::Catalog(std::vector<RuleInfo>* out) {
  constexpr Severity W = Severity::kWarning, E = Severity::kError;
  out->push_back(CatalogEntry("cannot_fit_small_sample", "optimization",
                  "run by lpsim::SmallSampleFit (tracker/small_sample.h), not on records: a fresh copy of "
                  "the model trained without regularization on per_class examples per class for up to "
                  "max_steps steps does not reach min_accuracy on them, or its loss does not fall below "
                  "max_loss_ratio x the initial loss",
                  "TFCheck 'cannot fit a small sample'; TheDeepChecker proper fitting (one batch of 16, "
                  "mislabeled <= 5%, 100-1000 iterations); max_loss_ratio: lpsim", E));
  out->push_back(CatalogEntry("zero_loss", "optimization", "|loss| <= epsilon at a step",
                  "TFCheck zero loss; DeepDiagnosis invalid loss", E));
  out->push_back(CatalogEntry("negative_loss", "optimization",
                  "loss < -epsilon (cross-entropy, MSE and friends are >= 0: a wrong sign)",
                  "DeepDiagnosis invalid loss; TFCheck mutants (wrong loss sign)", E));
  out->push_back(CatalogEntry("loss_not_decreasing", "optimization",
                  "over the last patience x window steps, even the optimistic estimate of the loss's "
                  "relative decrease (least-squares slope + z standard errors) is below min_decrease, "
                  "while the loss is above converged_fraction x its first window; judged every `window` steps",
                  "TheDeepChecker non-decreasing loss (5%, window 5); span of patience 10 windows and the "
                  "z-standard-error allowance for batch noise: lpsim; AUTOTRAINER 'not converging' gate", W));
  out->push_back(CatalogEntry("diverging_loss", "optimization",
                  "mean loss over `window` and over the `window` steps before it (two disjoint windows: "
                  "one outlying batch lifts only one) > factor x the lowest windowed mean so far, or one loss > max_jump x the lowest loss so "
                  "far (no window needed); either up by more than min_rise x the first window's mean",
                  "TheDeepChecker diverging loss (x2 vs min); min_rise, max_jump (3 orders of magnitude "
                  "in one step): lpsim", E));
  out->push_back(CatalogEntry("fluctuating_loss", "optimization",
                  "over the last `window` steps, the loss changes direction at > max_sign_changes of "
                  "steps, the mean |change| exceeds min_amplitude x the mean loss, and the deviations from "
                  "the window's trend alternate (lag-1 autocorrelation < -z / sqrt(window); independent batch "
                  "noise gives ~0) (not converged)",
                  "TheDeepChecker fluctuation (sign-change ratio 0.5 over 50); amplitude and the "
                  "autocorrelation test that separates overshooting from batch noise: lpsim", W));
}

using rules::Fmt;

void LossRules::Add(double loss) {
  const double eps0 = p_.zero_loss.epsilon;
  sink_->Judge("zero_loss", "loss", std::fabs(loss) <= eps0, "loss",
               "the loss is " + Fmt(loss) + ", zero to within " + Fmt(eps0) + ". A zero loss usually means a bug in how the loss "
               "is computed (wrong operator, targets equal to outputs, a detached graph), so nothing is "
               "learned; check the loss expression.",
               {{"loss", loss}});
  const double eps1 = p_.negative_loss.epsilon;
  sink_->Judge("negative_loss", "loss", loss < -eps1, "loss",
               "the loss is negative (" + Fmt(loss) + "). Cross-entropy, NLL and MSE are never below 0: "
               "the loss probably has the wrong sign (the optimizer is maximizing the error); check the "
               "loss expression and the sign of any regularization term.",
               {{"loss", loss}});
  losses_.push_back(loss);
  Diverging();
  NotDecreasing();
  Fluctuating();
}

double LossRules::WindowMean(size_t w, size_t end) const {
  double s = 0;
  for (size_t i = end - w; i < end; ++i) s += losses_[i];
  return s / static_cast<double>(w);
}

bool LossRules::Improving(size_t span) const {
  if (span < 2 || losses_.size() < span) return false;
  const size_t half = span / 2, n = losses_.size();
  return WindowMean(half, n) < WindowMean(half, n - half);
}

bool LossRules::Converged(double fraction) const {
  constexpr size_t kRecent = 5;
  if (losses_.size() < kRecent || std::isnan(first_window_) || !(first_window_ > 0)) return false;
  return WindowMean(kRecent, losses_.size()) <= fraction * first_window_;
}

bool LossRules::Varies(size_t span) const {
  const size_t n = losses_.size();
  if (n < 2) return false;
  for (size_t i = n - std::min(span, n) + 1; i < n; ++i) {
    if (losses_[i] != losses_[i - 1]) return true;
  }
  return false;
}

// diverging_loss: a sliding window against the lowest window so far, and a
// single loss many times the lowest loss so far. The jump needs no window: a
// loss that goes 5 -> 4e6 -> 1e34 -> Inf in the first steps never fills one
// (the non-finite loss is nonfinite's, and ends the series).
void LossRules::Diverging() {
  const DivergingLossParams& p = p_.diverging_loss;
  const size_t n = losses_.size();
  const double loss = losses_.back();
  const double base = std::isnan(first_window_) ? losses_.front() : first_window_;
  const bool jump = n >= 2 && lowest_ > 0 && loss > p.max_jump * lowest_ && loss - lowest_ > p.min_rise * std::fabs(base);
  const double lowest_before = lowest_;
  if (std::isnan(lowest_) || loss < lowest_) lowest_ = loss;
  const size_t w = static_cast<size_t>(p.window);
  double cur = NAN;
  bool windowed = false;
  if (n >= w) {
    cur = WindowMean(w, n);
    if (std::isnan(first_window_)) first_window_ = cur;
    if (std::isnan(best_window_) || cur < best_window_) best_window_ = cur;
    auto above = [&](double mean) {
      return best_window_ > 0 && mean > p.factor * best_window_ &&
             mean - best_window_ > p.min_rise * std::fabs(first_window_);
    };
    // The lowest window of a noisy loss is biased low (a minimum over many
    // noisy means): one window above it is a spike; a rise that holds for a
    // second window's worth of steps is divergence. The two windows are
    // disjoint: one outlying batch lifts every sliding window that holds it
    // (`window` of them in a row), but only one of two disjoint windows.
    windowed = n >= 2 * w && above(cur) && above(WindowMean(w, n - w));
  }
  if (!jump && n < w) return;
  const std::string what =
      jump && !windowed
          ? "the loss jumped to " + Fmt(loss) + ", " + Fmt(loss / lowest_before) + "x its lowest so far (" +
                Fmt(lowest_before) + ")"
          : "its mean over the last " + std::to_string(w) + " steps is " + Fmt(cur) + ", " + Fmt(cur / best_window_) +
                "x its lowest (" + Fmt(best_window_) + "), and over the " + std::to_string(w) + " steps before " +
                Fmt(n >= 2 * w ? WindowMean(w, n - w) : NAN);
  sink_->Judge("diverging_loss", "loss", windowed || jump, "loss",
               "the loss is diverging: " + what +
                   ". Training is unstable; lower the learning rate, check the learning-rate "
                   "schedule, or clip gradients.",
               {{"window_mean", cur}, {"best_window_mean", best_window_}, {"first_window_mean", first_window_},
                {"loss", loss}, {"lowest_loss", lowest_before}});
}

// The least-squares line through the last `span` losses against their
// index 0 .. span - 1; `mean` is WindowMean(span, n).
LossRules::Line LossRules::LineThrough(size_t span) const {
  Line l;
  const size_t n = losses_.size();
  const double m = static_cast<double>(span);
  l.mean = WindowMean(span, n);
  l.t_mean = (m - 1) / 2;
  double sxy = 0;
  for (size_t i = 0; i < span; ++i) {
    const double dt = static_cast<double>(i) - l.t_mean;
    sxy += dt * (losses_[n - span + i] - l.mean);
    l.sxx += dt * dt;
  }
  l.slope = l.sxx > 0 ? sxy / l.sxx : 0;
  return l;
}

// The least-squares trend of the last `span` losses (see loss_rules.h).
LossRules::Trend LossRules::Fit(size_t span) const {
  Trend t;
  const size_t n = losses_.size();
  if (span < 3 || n < span) return t;
  const Line l = LineThrough(span);
  const double m = static_cast<double>(span);
  double sse = 0;
  for (size_t i = 0; i < span; ++i) {
    const double r = l.Residual(losses_[n - span + i], i);
    sse += r * r;
  }
  const double start = l.mean - l.slope * l.t_mean;  // the line at the span's first step
  const double scale = std::max(std::fabs(start), 1e-30);
  t.mean = l.mean;
  t.decrease = -l.slope * (m - 1) / scale;
  t.se = std::sqrt(sse / (m - 2) / l.sxx) * (m - 1) / scale;
  return t;
}

bool LossRules::Stalled(size_t span) const {
  if (span < 3 || losses_.size() < span) return false;
  const LossNotDecreasingParams& p = p_.loss_not_decreasing;
  const Trend t = Fit(span);
  return t.decrease + p.z * t.se < p.min_decrease;
}

// loss_not_decreasing: a least-squares line through the last patience x
// window losses. Comparing neighbouring windows asks for a speed (5% per 5
// steps) that slow healthy training does not have (0.93 -> 0.68 in 64 steps
// is ~2.4% per 5 steps); over the span the loss must fall by min_decrease at
// all. The span (50 steps by default) also outlasts the plateau many networks
// sit on after initialization. Minibatch noise makes two window means differ
// by chance (MSE on noisy targets moves +-20% between windows around a slow
// descent), so the rule fires only when the slope plus z standard errors
// still falls short: the data show the loss is not decreasing, rather than
// failing to show that it is.
void LossRules::NotDecreasing() {
  const LossNotDecreasingParams& p = p_.loss_not_decreasing;
  const size_t n = losses_.size();
  const size_t w = static_cast<size_t>(p.window);
  const size_t span = static_cast<size_t>(p.patience) * w;
  if (n % w != 0 || n < std::max<size_t>(span, 3) || span < 3) return;
  const double cur = WindowMean(w, n);
  const double first = WindowMean(w, w);  // the first window of this rule
  const Trend t = Fit(span);
  const double decrease = t.decrease;
  const double optimistic = t.decrease + p.z * t.se;
  const bool converged = first > 0 && cur <= p.converged_fraction * first;
  sink_->Judge("loss_not_decreasing", "loss", optimistic < p.min_decrease && !converged && first > 0, "loss",
               "the loss is not decreasing: over the last " + std::to_string(span) + " steps it fell " +
                   Fmt(100 * decrease) + "% (at most " + Fmt(100 * optimistic) + "% allowing for its noise), less than " +
                   Fmt(100 * p.min_decrease) + "% (now " + Fmt(cur) + ", first window " + Fmt(first) +
                   "). The model is not learning; check the learning rate (too small or too large), "
                   "the initialization, the activations and that the loss matches the task.",
               {{"window_mean", cur}, {"first_window_mean", first}, {"decrease", decrease},
                {"optimistic_decrease", optimistic}});
}

// fluctuating_loss: TheDeepChecker's sign-change share and an amplitude,
// and the change of direction must be the optimizer's, not the batches'.
// Independent batch noise alone changes direction at ~2/3 of steps, above
// the 0.5 threshold, and a heavy-tailed loss (MSE on outlying targets) has
// mean |change| above half the mean loss; an optimizer that overshoots
// makes the loss alternate, so consecutive deviations from the trend are
// anti-correlated. The lag-1 autocorrelation r1 of the residuals around a
// least-squares line must be below -z / sqrt(window) (independent noise
// gives r1 ~ N(0, 1/window)); a steady zigzag gives r1 near -1.
void LossRules::Fluctuating() {
  const FluctuatingLossParams& p = p_.fluctuating_loss;
  const size_t n = losses_.size();
  const size_t w = static_cast<size_t>(p.window);
  if (n < w + 1) return;
  size_t changes = 0;
  double amp = 0;
  for (size_t i = n - w; i < n; ++i) {
    const double d = losses_[i] - losses_[i - 1];
    amp += std::fabs(d);
    if (i >= n - w + 1) {
      const double prev = losses_[i - 1] - losses_[i - 2];
      if ((d > 0 && prev < 0) || (d < 0 && prev > 0)) ++changes;
    }
  }
  amp /= static_cast<double>(w);
  const double share = static_cast<double>(changes) / static_cast<double>(w - 1);
  // Residuals of the window around its least-squares line.
  const Line line = LineThrough(w);
  const double mean = line.mean, m = static_cast<double>(w);
  double num = 0, den = 0, prev_r = 0;
  for (size_t i = 0; i < w; ++i) {
    const double r = line.Residual(losses_[n - w + i], i);
    den += r * r;
    if (i > 0) num += r * prev_r;
    prev_r = r;
  }
  const double r1 = den > 0 ? num / den : 0;
  const double max_r1 = -p.z / std::sqrt(m);
  const double first = std::isnan(first_window_) ? mean : first_window_;
  const bool converged = first > 0 && mean <= p.converged_fraction * first;
  const bool cond =
      mean > 0 && share > p.max_sign_changes && amp > p.min_amplitude * mean && r1 < max_r1 && !converged;
  sink_->Judge("fluctuating_loss", "loss", cond, "loss",
               "the loss fluctuates: over the last " + std::to_string(w) + " steps it changed "
               "direction at " + Fmt(100 * share) + "% of steps, by " + Fmt(amp) + " on average "
               "(mean loss " + Fmt(mean) + "), alternating (lag-1 autocorrelation " + Fmt(r1) +
               " < " + Fmt(max_r1) + ", more than batch noise gives). The optimizer overshoots; lower the "
               "learning rate or use a larger batch.",
               {{"sign_change_share", share}, {"mean_abs_change", amp}, {"mean_loss", mean},
                {"lag1_autocorrelation", r1}});
}

}  // namespace lpsim
