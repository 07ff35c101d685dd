// nonfinite: NaN or Inf in the loss or in any recorded tensor.
//
//   NonfiniteRule nonfinite(&sink);
//   if (nonfinite.Loss(loss)) loss_rules.Add(loss);  // true: finite
//   nonfinite.Tensor(r);
#ifndef LPSIM_CHECKS_RULES_NONFINITE_RULE_H_
#define LPSIM_CHECKS_RULES_NONFINITE_RULE_H_

#include <vector>

#include "core/records.h"
#include "checks/rules/params.h"
#include "checks/rules/rule_support.h"

namespace lpsim {

struct NonfiniteParams {
  NoParams nonfinite;
  template <typename Self, typename F>
  static void Rules(Self& p, F&& f) {
    f("nonfinite", p.nonfinite);
  }
};

struct RuleInfo;

class NonfiniteRule {
 public:
  static void Catalog(std::vector<RuleInfo>* out);

  explicit NonfiniteRule(FindingSink* sink) : sink_(sink) {}
  // Judges the loss; returns whether it is finite.
  bool Loss(double loss);
  void Tensor(const TensorRecord& r);

 private:
  FindingSink* sink_;
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_RULES_NONFINITE_RULE_H_
