// Loss rules: zero_loss, negative_loss, loss_not_decreasing, diverging_loss,
// fluctuating_loss (the "optimization" rules that read the loss scalar), and
// the parameters of cannot_fit_small_sample (run by the tracker's
// SmallSampleFit, not on records).
//
//   LossRules loss(config.loss, &sink);
//   loss.Add(value);  // a finite loss, once per step
#ifndef LPSIM_CHECKS_RULES_LOSS_RULES_H_
#define LPSIM_CHECKS_RULES_LOSS_RULES_H_

#include <cmath>
#include <vector>

#include "checks/rules/params.h"
#include "checks/rules/rule_support.h"

namespace lpsim {

struct SmallSampleParams {
  int per_class = 4;
  int max_examples = 64;
  int max_steps = 300;
  double min_accuracy = 0.95;
  double max_loss_ratio = 0.1;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("per_class", p.per_class, 1, kNoLimit);
    v("max_examples", p.max_examples, 1, kNoLimit);
    v("max_steps", p.max_steps, 1, kNoLimit);
    v("min_accuracy", p.min_accuracy, 0, 1);
    v("max_loss_ratio", p.max_loss_ratio, 0, kNoLimit);
  }
};

struct ZeroLossParams {
  double epsilon = 1e-12;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("epsilon", p.epsilon, 0, kNoLimit);
  }
};

struct NegativeLossParams {
  double epsilon = 1e-12;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("epsilon", p.epsilon, 0, kNoLimit);
  }
};

struct LossNotDecreasingParams {
  int window = 5;
  double min_decrease = 0.05;
  int patience = 10;
  double converged_fraction = 0.1;
  double z = 3;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("window", p.window, 1, kNoLimit);
    v("min_decrease", p.min_decrease, -kNoLimit, kNoLimit);
    v("patience", p.patience, 1, kNoLimit);
    v("converged_fraction", p.converged_fraction, 0, kNoLimit);
    v("z", p.z, 0, kNoLimit);
  }
};

struct DivergingLossParams {
  int window = 5;
  double factor = 2;
  double min_rise = 0.1;
  double max_jump = 1e3;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("window", p.window, 1, kNoLimit);
    v("factor", p.factor, 0, kNoLimit);
    v("min_rise", p.min_rise, 0, kNoLimit);
    v("max_jump", p.max_jump, 1, kNoLimit);
  }
};

struct FluctuatingLossParams {
  int window = 50;
  double max_sign_changes = 0.5;
  double min_amplitude = 0.5;
  double converged_fraction = 0.1;
  double z = 3;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("window", p.window, 3, kNoLimit);
    v("max_sign_changes", p.max_sign_changes, 0, 1);
    v("min_amplitude", p.min_amplitude, 0, kNoLimit);
    v("converged_fraction", p.converged_fraction, 0, kNoLimit);
    v("z", p.z, 0, kNoLimit);
  }
};

struct LossParams {
  SmallSampleParams cannot_fit_small_sample;
  ZeroLossParams zero_loss;
  NegativeLossParams negative_loss;
  LossNotDecreasingParams loss_not_decreasing;
  DivergingLossParams diverging_loss;
  FluctuatingLossParams fluctuating_loss;
  // Every rule of the family by name, in catalog order.
  template <typename Self, typename F>
  static void Rules(Self& p, F&& f) {
    f("cannot_fit_small_sample", p.cannot_fit_small_sample);
    f("zero_loss", p.zero_loss);
    f("negative_loss", p.negative_loss);
    f("loss_not_decreasing", p.loss_not_decreasing);
    f("diverging_loss", p.diverging_loss);
    f("fluctuating_loss", p.fluctuating_loss);
  }
};

struct RuleInfo;

class LossRules {
 public:
  // The family's catalog entries (documentation order), defaults left out.
  static void Catalog(std::vector<RuleInfo>* out);

  LossRules(const LossParams& params, FindingSink* sink) : p_(params), sink_(sink) {}

  // A finite loss value (nonfinite losses are NonfiniteRule's).
  void Add(double loss);

  // For rules of other families that gate on convergence.
  const std::vector<double>& losses() const { return losses_; }
  // The mean of the first diverging_loss window (NaN until it is full).
  double first_window() const { return first_window_; }
  // Whether the mean of the last half of the last `span` losses is below
  // that of its first half (false with fewer than `span` >= 2 losses).
  bool Improving(size_t span) const;
  // Whether the last `span` losses are not all equal (false with fewer than 2).
  bool Varies(size_t span) const;
  // A least-squares line through the last `span` losses (span >= 3 and at
  // least `span` losses): `decrease` is its fall over the span relative to
  // its value at the span's start, `se` the standard error of `decrease`
  // (from the residuals: the batch noise around the line), `mean` the mean
  // of the span's losses.
  struct Trend {
    double decrease = 0, se = 0, mean = 0;
  };
  Trend Fit(size_t span) const;
  // Whether the data show that learning has stopped: `span` (>= 3) losses
  // seen and even the optimistic decrease over them, decrease + z se with
  // loss_not_decreasing's z, is below loss_not_decreasing's min_decrease.
  // Rules that report a cause (dead units, saturation) wait for this
  // symptom; a noisy loss whose trend the span cannot resolve is not shown
  // to have stalled (comparing two window means there is a coin flip).
  bool Stalled(size_t span) const;
  // Whether the mean of the last 5 losses is at most `fraction` x the first
  // window's mean (false before the first window).
  bool Converged(double fraction) const;

 private:
  void Diverging();
  void NotDecreasing();
  void Fluctuating();
  double WindowMean(size_t w, size_t end) const;
  // The least-squares line through the last `span` losses (there are at least `span`)
  // against their index 0 .. span - 1, which Fit and fluctuating_loss share.
  struct Line {
    double mean = 0;    // of the losses: WindowMean(span, end)
    double t_mean = 0;  // of the index: (span - 1) / 2
    double sxx = 0;     // sum (index - t_mean)^2
    double slope = 0;   // 0 when sxx is 0 (span 1)
    // Loss y at index i minus the line there.
    double Residual(double y, size_t i) const {
      return y - mean - slope * (static_cast<double>(i) - t_mean);
    }
  };
  Line LineThrough(size_t span) const;

  LossParams p_;
  FindingSink* sink_;
  std::vector<double> losses_;
  double first_window_ = NAN, best_window_ = NAN, lowest_ = NAN;
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_RULES_LOSS_RULES_H_
