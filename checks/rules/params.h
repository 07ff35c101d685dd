// Typed rule parameters: each rule's thresholds are a plain struct whose
// fields are named in code (`config.loss.diverging_loss.factor`), so a
// misspelt parameter does not compile. The JSON configuration reaches them
// through each struct's Visit, which names every field once, with the range
// a value must lie in:
//
//   struct ZeroLossParams {
//     double epsilon = 1e-12;
//     template <typename Self, typename V> static void Visit(Self& p, V&& v) {
//       v("epsilon", p.epsilon, 0, kNoLimit);
//     }
//   };
//
// Integer fields (windows, patience, counts) take only integral values.
#ifndef LPSIM_CHECKS_RULES_PARAMS_H_
#define LPSIM_CHECKS_RULES_PARAMS_H_

#include <limits>

namespace lpsim {

constexpr double kNoLimit = std::numeric_limits<double>::infinity();
// The role bit set of the lp_* rules: 1 activation .. 16 optimizer_state.
constexpr int kAllRolesBits = 31;

// A rule without parameters (nonfinite).
struct NoParams {
  template <typename Self, typename V>
  static void Visit(Self&, V&&) {}
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_RULES_PARAMS_H_
