// Weight and update rules ("parameters"): untrained_parameter,
// poor_initialization, diverging_parameters, unstable_learning.
//
//   WeightRules weights(config.weights, &loss_rules, &sink);
//   weights.NoteShape(r);        // every weight record of the step, first
//   weights.PoorInit(initial);   // a weight as initialized (live runs)
//   weights.UpdateRatio("fc1.weight", 1e-3);
//   weights.Weight(r);
#ifndef LPSIM_CHECKS_RULES_WEIGHT_RULES_H_
#define LPSIM_CHECKS_RULES_WEIGHT_RULES_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/records.h"
#include "checks/rules/loss_rules.h"
#include "checks/rules/params.h"
#include "checks/rules/rule_support.h"

namespace lpsim {

struct UntrainedParameterParams {
  int steps = 3;
  double rtol = 1e-5;
  double atol = 1e-8;
  double converged_fraction = 0.1;
  double negligible_gradient = 1e-5;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("steps", p.steps, 2, kNoLimit);
    v("rtol", p.rtol, 0, kNoLimit);
    v("atol", p.atol, 0, kNoLimit);
    v("converged_fraction", p.converged_fraction, 0, kNoLimit);
    v("negligible_gradient", p.negligible_gradient, 0, 1);
  }
};

struct PoorInitializationParams {
  double min_variance = 1e-5;
  double max_variance = 10;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("min_variance", p.min_variance, 0, kNoLimit);
    v("max_variance", p.max_variance, 0, kNoLimit);
  }
};

struct DivergingParametersParams {
  double max_p75 = 1e8;
  double growth = 2;
  int window = 5;
  int trend_steps = 200;
  double trend_growth = 2;
  double min_late_share = 0.5;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_p75", p.max_p75, 0, kNoLimit);
    v("growth", p.growth, 0, kNoLimit);
    v("window", p.window, 2, kNoLimit);
    v("trend_steps", p.trend_steps, 2, kNoLimit);
    v("trend_growth", p.trend_growth, 1, kNoLimit);
    v("min_late_share", p.min_late_share, 0, kNoLimit);
  }
};

struct UnstableLearningParams {
  double min_log10 = -4;
  double max_log10 = -1;
  int window = 10;
  double z = 3;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("min_log10", p.min_log10, -kNoLimit, kNoLimit);
    v("max_log10", p.max_log10, -kNoLimit, kNoLimit);
    v("window", p.window, 1, kNoLimit);
    v("z", p.z, 0, kNoLimit);
  }
};

struct WeightParams {
  UntrainedParameterParams untrained_parameter;
  NoParams redundant_parameter;  // judged with untrained_parameter's steps
  PoorInitializationParams poor_initialization;
  DivergingParametersParams diverging_parameters;
  UnstableLearningParams unstable_learning;
  template <typename Self, typename F>
  static void Rules(Self& p, F&& f) {
    f("untrained_parameter", p.untrained_parameter);
    f("redundant_parameter", p.redundant_parameter);
    f("poor_initialization", p.poor_initialization);
    f("diverging_parameters", p.diverging_parameters);
    f("unstable_learning", p.unstable_learning);
  }
};

struct RuleInfo;

class WeightRules {
 public:
  static void Catalog(std::vector<RuleInfo>* out);

  // `loss` gates untrained_parameter on convergence; it must outlive this.
  WeightRules(const WeightParams& params, const LossRules* loss, FindingSink* sink)
      : p_(params), loss_(loss), sink_(sink) {}

  // A weight record of the step (before anything is judged: unstable_learning
  // skips 1-D parameters by their shape).
  void NoteShape(const TensorRecord& r) { dims_[r.name] = static_cast<int>(r.shape.size()); }
  // A weight-gradient record of the step: whether it is exactly zero.
  // Call BeginStep() before a step's NoteGradient calls.
  void BeginStep() { step_max_grad_ = 0; }
  void NoteGradient(const TensorRecord& r) {
    const bool finite = r.stats.count > 0 && r.stats.finite() == r.stats.count;
    grad_max_[r.name] = finite ? static_cast<double>(r.stats.max_abs) : NAN;
    if (finite) step_max_grad_ = std::max(step_max_grad_, static_cast<double>(r.stats.max_abs));
  }
  // The model's output layer (the last >=2-D weight in parameter order): a
  // small initialization there is deliberate, poor_initialization's
  // too-small variance does not judge it. Set once, before PoorInit.
  void SetOutputLayer(const std::string& name) { output_layer_ = name; }
  bool HasOutputLayer() const { return !output_layer_.empty(); }
  // poor_initialization, once per weight: its first record or initial value.
  void PoorInit(const TensorRecord& r);
  // unstable_learning on the tracker's `update_ratio/<param>` scalar.
  void UpdateRatio(const std::string& param, double ratio);
  // A weight record: poor_initialization, untrained_parameter, diverging_parameters.
  void Weight(const TensorRecord& r);

 private:
  void Untrained(const TensorRecord& r);
  void Diverging(const TensorRecord& r);

  WeightParams p_;
  const LossRules* loss_;
  FindingSink* sink_;
  std::map<std::string, int> dims_;
  std::set<std::string> seen_;
  std::map<std::string, std::deque<std::array<double, 3>>> signature_;  // mean, std, max|w|
  std::map<std::string, std::deque<double>> p75_;
  std::map<std::string, std::deque<double>> update_log_;
  std::map<std::string, double> grad_max_;          // this step's max|g| (NaN: not finite)
  double step_max_grad_ = 0;                         // the largest max|g| of the step
  std::string output_layer_;
  std::map<std::string, std::pair<int, int>> motion_;  // records changed, records unchanged in a row
  std::set<std::string> updates_were_normal_;       // had a window within (min_log10, max_log10)
  std::map<std::string, std::deque<double>> rms_;   // rms of the weight, last unstable_learning window
  std::map<std::string, std::deque<std::pair<double, double>>> trend_;  // (step, log p75|w|)
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_RULES_WEIGHT_RULES_H_
