#include "checks/rules/gradient_rules.h"

#include <cmath>
#include <string>

#include "checks/check_config.h"

namespace lpsim {

void GradientRules::Catalog(std::vector<RuleInfo>* out) {
  constexpr Severity W = Severity::kWarning, E = Severity::kError;
  out->push_back(CatalogEntry("vanishing_gradient", "optimization",
                  "median |g| of a >=2-D weight's gradient < max_median, or ||g_first|| / ||g_last|| < "
                  "max_ratio and ||g_first|| < max_first_norm; silent once the loss is below "
                  "converged_fraction x its first window (a loss near 0 has gradients near 0)",
                  "SageMaker Debugger VanishingGradient (1e-7); AUTOTRAINER beta1 1e-3, beta2 1e-4; "
                  "AUTOTRAINER convergence gate", W));
  out->push_back(CatalogEntry("exploding_gradient", "optimization",
                  "median |g| > min_median, or ||g_first|| / ||g_last|| > min_ratio for `patience` "
                  "records in a row",
                  "TheDeepChecker exploding gradient (> 1e6); AUTOTRAINER beta3 70", E));
}

using rules::Fmt;

void GradientRules::Step(const std::vector<TensorRecord>& records) {
  // Weight-gradient records of >=2-D parameters, in parameter order.
  std::vector<const TensorRecord*> grads;
  for (const TensorRecord& r : records) {
    if (r.role == Role::kWeightGrad && r.shape.size() >= 2 && r.stats.finite() > 0) grads.push_back(&r);
  }
  const VanishingGradientParams& v = p_.vanishing_gradient;
  const ExplodingGradientParams& e = p_.exploding_gradient;
  const bool converged = loss_->Converged(v.converged_fraction);
  for (const TensorRecord* g : grads) {
    const double p25 = g->stats.Quantile(0.25), p50 = g->stats.Quantile(0.5), p75 = g->stats.Quantile(0.75);
    sink_->Judge("vanishing_gradient", g->name, p50 < v.max_median && !converged, g->name,
                 "the gradient of '" + g->name + "' vanishes: median |g| = " + Fmt(p50) + " < " +
                     Fmt(v.max_median) + " (quartiles " + Fmt(p25) + ", " + Fmt(p50) + ", " + Fmt(p75) +
                     "). The layer stops learning; use ReLU-like activations, better initialization, "
                     "normalization or residual connections, or a larger learning rate.",
                 {{"p25", p25}, {"p50", p50}, {"p75", p75}});
    sink_->Judge("exploding_gradient", g->name, p50 > e.min_median, g->name,
                 "the gradient of '" + g->name + "' explodes: median |g| = " + Fmt(p50) + " > " +
                     Fmt(e.min_median) + ". Updates this large destroy the weights; lower the learning "
                     "rate, clip gradients, or check the loss scale.",
                 {{"p25", p25}, {"p50", p50}, {"p75", p75}});
  }
  if (grads.size() < 2) return;
  auto norm = [](const TensorRecord* r) { return r->stats.rms * std::sqrt(static_cast<double>(r->stats.finite())); };
  const double first = norm(grads.front()), last = norm(grads.back());
  if (!(last > 0)) return;
  const double ratio = first / last;
  const std::string& name = grads.front()->name;
  sink_->Judge("vanishing_gradient", name + "|ratio", ratio < v.max_ratio && first < v.max_first_norm && !converged, name,
               "gradients vanish towards the input: ||g|| of the first layer '" + name + "' is " + Fmt(first) +
                   ", " + Fmt(ratio) + "x that of the last layer '" + grads.back()->name +
                   "'. Early layers barely learn; use ReLU-like activations, Kaiming initialization, "
                   "normalization or residual connections.",
               {{"first_norm", first}, {"last_norm", last}, {"ratio", ratio}});
  explode_strikes_ = ratio > e.min_ratio ? explode_strikes_ + 1 : 0;
  sink_->Judge("exploding_gradient", name + "|ratio", explode_strikes_ >= e.patience, name,
               "gradients explode towards the input: ||g|| of the first layer '" + name + "' is " + Fmt(ratio) +
                   "x that of the last layer '" + grads.back()->name +
                   "'. Lower the learning rate, clip gradients, or normalize activations.",
               {{"first_norm", first}, {"last_norm", last}, {"ratio", ratio}});
}

}  // namespace lpsim
