// Gradient rules: vanishing_gradient and exploding_gradient, per >=2-D
// weight gradient (median |g|) and across the network (the norm of the
// first layer's gradient over the last one's).
//
//   GradientRules gradients(config.gradients, &sink);
//   gradients.Step(records);  // every record of the step, in parameter order
#ifndef LPSIM_CHECKS_RULES_GRADIENT_RULES_H_
#define LPSIM_CHECKS_RULES_GRADIENT_RULES_H_

#include <vector>

#include "core/records.h"
#include "checks/rules/loss_rules.h"
#include "checks/rules/params.h"
#include "checks/rules/rule_support.h"

namespace lpsim {

struct VanishingGradientParams {
  double max_median = 1e-7;
  double max_ratio = 1e-3;
  double max_first_norm = 1e-4;
  double converged_fraction = 0.1;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_median", p.max_median, 0, kNoLimit);
    v("max_ratio", p.max_ratio, 0, kNoLimit);
    v("max_first_norm", p.max_first_norm, 0, kNoLimit);
    v("converged_fraction", p.converged_fraction, 0, kNoLimit);
  }
};

struct ExplodingGradientParams {
  double min_median = 1e6;
  double min_ratio = 70;
  int patience = 3;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("min_median", p.min_median, 0, kNoLimit);
    v("min_ratio", p.min_ratio, 0, kNoLimit);
    v("patience", p.patience, 1, kNoLimit);
  }
};

struct GradientParams {
  VanishingGradientParams vanishing_gradient;
  ExplodingGradientParams exploding_gradient;
  template <typename Self, typename F>
  static void Rules(Self& p, F&& f) {
    f("vanishing_gradient", p.vanishing_gradient);
    f("exploding_gradient", p.exploding_gradient);
  }
};

struct RuleInfo;

class GradientRules {
 public:
  static void Catalog(std::vector<RuleInfo>* out);

  // `loss` gates vanishing_gradient on convergence; it must outlive this.
  GradientRules(const GradientParams& params, const LossRules* loss, FindingSink* sink)
      : p_(params), loss_(loss), sink_(sink) {}
  void Step(const std::vector<TensorRecord>& records);

 private:
  GradientParams p_;
  const LossRules* loss_;
  FindingSink* sink_;
  int explode_strikes_ = 0;
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_RULES_GRADIENT_RULES_H_
