#include "checks/rules/nonfinite_rule.h"

#include <cmath>
#include <string>

#include "checks/check_config.h"

namespace lpsim {

using rules::Fmt;

void NonfiniteRule::Catalog(std::vector<RuleInfo>* out) {
  out->push_back(CatalogEntry("nonfinite", "numerics", "NaN or Inf in the loss or in any recorded tensor",
                  "SageMaker Debugger ExplodingTensor; TheDeepChecker NaN/Inf everywhere", Severity::kError));
}

bool NonfiniteRule::Loss(double loss) {
  const bool finite = std::isfinite(loss);
  sink_->JudgeEvent("nonfinite", "loss", !finite, "loss",
               "the loss is " + Fmt(loss) + " (not finite). Training cannot continue from a NaN/Inf "
               "loss; lower the learning rate, check the inputs and the loss (log of 0, division by 0), "
               "or use loss scaling in low precision.",
               {{"loss", loss}});
  return finite;
}

void NonfiniteRule::Tensor(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  const uint64_t bad = s.nans + s.pos_infs + s.neg_infs;
  sink_->JudgeEvent("nonfinite", r.name + "|" + ToString(r.role), bad > 0, r.name,
               "the " + ToString(r.role) + " '" + r.name + "' holds " + std::to_string(s.nans) + " NaN and " +
                   std::to_string(s.pos_infs + s.neg_infs) + " Inf values out of " + std::to_string(s.count) +
                   ". Non-finite values poison every later step; lower the learning rate, check the "
                   "inputs and divisions/logs in the model, or use loss scaling in low precision.",
               {{"nans", static_cast<double>(s.nans)},
                {"infs", static_cast<double>(s.pos_infs + s.neg_infs)},
                {"count", static_cast<double>(s.count)}});
}

}  // namespace lpsim
