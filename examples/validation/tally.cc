#include "examples/validation/tally.h"

#include <algorithm>
#include <cmath>

namespace lpsim::validation {

void Tally::Add(const Cell& c) {
  ClusterCounts& p = by_program[c.program];
  if (c.pred.fires && c.truth.broken) ++tp, ++p.tp, leads.push_back(double(c.truth.step - c.pred.step));
  if (c.pred.fires && !c.truth.broken) ++fp, ++p.fp;
  if (!c.pred.fires && c.truth.broken) ++fn, ++p.fn;
  if (!c.pred.fires && !c.truth.broken) ++tn;
}

double Tally::Precision() const { return tp + fp ? double(tp) / (tp + fp) : NAN; }

double Tally::Recall() const { return tp + fn ? double(tp) / (tp + fn) : NAN; }

PrecisionRecallIntervals Tally::Intervals() const {
  if (!pooled) return {ProportionInterval(tp, tp + fp), ProportionInterval(tp, tp + fn)};
  std::vector<ClusterCounts> clusters;
  for (const auto& [program, c] : by_program) clusters.push_back(c);
  return ClusterBootstrapIntervals(clusters);
}

double Tally::MedianLead() const {
  if (leads.empty()) return NAN;
  std::vector<double> l = leads;
  std::sort(l.begin(), l.end());
  const size_t m = l.size() / 2;
  return l.size() % 2 ? l[m] : 0.5 * (l[m - 1] + l[m]);
}

std::vector<std::pair<std::string, RuleTally>> ByRule(const std::vector<const Cell*>& cells, bool pooled) {
  std::map<std::string, RuleTally> by;
  for (const Cell* c : cells) {
    if (!c->pred.fires) continue;
    RuleTally& first = by[c->pred.rule];
    first.first.Add(*c);
    for (const auto& [rule, step] : c->pred.first_by_rule) {
      RuleTally& r = by[rule];
      ++(c->truth.broken ? r.fired_tp : r.fired_fp);
      if (c->pred.first_by_rule.size() == 1) ++(c->truth.broken ? r.alone_tp : r.alone_fp);
    }
  }
  std::vector<std::pair<std::string, RuleTally>> out(by.begin(), by.end());
  for (auto& [rule, r] : out) r.first.pooled = pooled;
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second.first.tp + a.second.first.fp > b.second.first.tp + b.second.first.fp;
  });
  return out;
}

}  // namespace lpsim::validation
