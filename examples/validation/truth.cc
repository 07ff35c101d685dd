#include "examples/validation/truth.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include <boost/math/distributions/binomial.hpp>

#include "checks/rules/rule_support.h"

namespace lpsim::validation {

double Bound(double reference, double first, double final) {
  return rules::AllowedLoss(reference, first, final, kLossTolerance, /*log_scale=*/true);
}

Truth Judge(const std::vector<Curve>& fp32, const Curve& sim) {
  Truth t;
  t.final_loss = sim.Final(sim.loss);
  t.final_accuracy = sim.accuracy.empty() ? 0 : sim.Final(sim.accuracy);
  // The tolerance is a share of the tracked run's improvement; the
  // reference, the worst fp32 run's final loss and accuracy (a non-finite
  // fp32 loss: any finite loss is within fp32's spread).
  const Curve& main = fp32.front();
  double first = 0;
  for (int i = 0; i < kFinalWindow; ++i) first += main.loss[i] / kFinalWindow;
  const double final = main.Final(main.loss);
  double worst_loss = -INFINITY, worst_accuracy = INFINITY, best_accuracy = -INFINITY;
  for (const Curve& c : fp32) {
    const double l = c.Final(c.loss);
    worst_loss = std::max(worst_loss, std::isfinite(l) ? l : INFINITY);
    if (!c.accuracy.empty()) {
      worst_accuracy = std::min(worst_accuracy, c.Final(c.accuracy));
      best_accuracy = std::max(best_accuracy, c.Final(c.accuracy));
    }
  }
  const std::string spread = fp32.size() > 1 ? " of " + std::to_string(fp32.size()) + " seeds" : "";
  char buf[200];
  if (sim.nonfinite || !std::isfinite(t.final_loss)) {
    t.broken = true, t.why = "non-finite loss";
  } else if (t.final_loss > Bound(worst_loss, first, final)) {
    std::snprintf(buf, sizeof buf, "loss %.3g vs fp32 %.3g%s", t.final_loss, worst_loss,
                  fp32.size() > 1 ? (" (the worst" + spread + ")").c_str() : "");
    t.broken = true, t.why = buf;
  } else if (!sim.accuracy.empty() && t.final_accuracy < worst_accuracy - kAccuracyTolerance) {
    if (fp32.size() > 1) {
      std::snprintf(buf, sizeof buf, "accuracy %.2f vs fp32 %.2f..%.2f (%zu seeds)", t.final_accuracy,
                    worst_accuracy, best_accuracy, fp32.size());
    } else {
      std::snprintf(buf, sizeof buf, "accuracy %.2f vs fp32 %.2f", t.final_accuracy, worst_accuracy);
    }
    t.broken = true, t.why = buf;
  }
  if (!t.broken) return t;
  // The break step: the first step whose window mean is above the bound of
  // every fp32 run's.
  size_t n = sim.loss.size();
  for (const Curve& c : fp32) n = std::min(n, c.loss.size());
  auto mean = [](const std::vector<double>& v, size_t s) {
    double m = 0;
    for (size_t i = s + 1 - kBreakWindow; i <= s; ++i) m += v[i] / kBreakWindow;
    return m;
  };
  for (size_t s = 0; s < n; ++s) {
    if (!std::isfinite(sim.loss[s])) {
      t.step = static_cast<int64_t>(s);
      break;
    }
    if (s + 1 < kBreakWindow) continue;
    double b = -INFINITY;
    for (const Curve& c : fp32) {
      const double m = mean(c.loss, s);
      b = std::max(b, std::isfinite(m) ? m : INFINITY);
    }
    if (mean(sim.loss, s) > Bound(b, first, final)) {
      t.step = static_cast<int64_t>(s);
      break;
    }
  }
  if (t.step < 0) t.step = static_cast<int64_t>(n) - 1;  // only the accuracy fell behind: the end
  return t;
}

Truth Combine(std::vector<Truth> runs) {
  if (runs.size() == 1) return runs.front();
  Truth t;
  const size_t n = runs.size(), majority = n / 2 + 1;
  auto median = [&](auto field) {
    std::vector<double> v;
    for (const Truth& r : runs) v.push_back(field(r));
    std::sort(v.begin(), v.end(), [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; });
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  t.final_loss = median([](const Truth& r) { return std::isfinite(r.final_loss) ? r.final_loss : INFINITY; });
  t.final_accuracy = median([](const Truth& r) { return r.final_accuracy; });
  std::vector<const Truth*> broken;
  for (const Truth& r : runs) {
    if (r.broken) broken.push_back(&r);
  }
  if (broken.size() >= majority) {
    std::stable_sort(broken.begin(), broken.end(), [](const Truth* a, const Truth* b) { return a->step < b->step; });
    const Truth& at = *broken[majority - 1];
    t.broken = true, t.step = at.step;
    t.why = std::to_string(broken.size()) + " of " + std::to_string(n) + " seeds: " + at.why;
  }
  t.seeds = std::move(runs);
  return t;
}

Interval ProportionInterval(int k, int n) {
  if (n <= 0 || k < 0 || k > n) return {NAN, NAN};
  using Binomial = boost::math::binomial_distribution<double>;
  constexpr double kTail = 0.025;
  return {Binomial::find_lower_bound_on_p(n, k, kTail), Binomial::find_upper_bound_on_p(n, k, kTail)};
}

PrecisionRecallIntervals ClusterBootstrapIntervals(const std::vector<ClusterCounts>& clusters, int resamples,
                                                   uint64_t seed) {
  const Interval none{NAN, NAN};
  if (clusters.empty() || resamples < 1) return {none, none};
  std::mt19937_64 rng(seed);
  std::vector<double> precision, recall;
  for (int b = 0; b < resamples; ++b) {
    ClusterCounts sum;
    for (size_t i = 0; i < clusters.size(); ++i) {
      const ClusterCounts& c = clusters[rng() % clusters.size()];
      sum.tp += c.tp, sum.fp += c.fp, sum.fn += c.fn;
    }
    if (sum.tp + sum.fp > 0) precision.push_back(double(sum.tp) / (sum.tp + sum.fp));
    if (sum.tp + sum.fn > 0) recall.push_back(double(sum.tp) / (sum.tp + sum.fn));
  }
  // The 2.5% and 97.5% quantiles (nearest rank).
  auto interval = [](std::vector<double> v) {
    if (v.empty()) return Interval{NAN, NAN};
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(std::ceil(q * v.size())) - 1)]; };
    return Interval{at(0.025), at(0.975)};
  };
  return {interval(std::move(precision)), interval(std::move(recall))};
}

}  // namespace lpsim::validation
