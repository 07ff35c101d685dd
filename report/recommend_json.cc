// Recommendation as JSON (report/recommend.h): what `lpsim recommend
// --json` prints and the HTML report embeds.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "report/recommend.h"

namespace lpsim {

namespace {

// 4 significant digits, null for Inf/NaN (JSON has neither).
nlohmann::ordered_json Short(double v) {
  if (std::isnan(v) || std::isinf(v)) return nullptr;
  if (v == 0) return 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return std::strtod(buf, nullptr);
}

nlohmann::ordered_json CandidateJson(const Candidate& c) {
  const double n = c.numel ? static_cast<double>(c.numel) : 1.0;
  return {{"format", c.format},
          {"recipe", c.recipe},
          {"bits", c.bits},
          {"exact", c.exact},
          {"underflow_pct", nlohmann::ordered_json::array({Short(100 * static_cast<double>(c.underflow.lower) / n),
                                         Short(100 * static_cast<double>(c.underflow.upper) / n)})},
          {"overflow_pct", nlohmann::ordered_json::array({Short(100 * static_cast<double>(c.overflow.lower) / n),
                                        Short(100 * static_cast<double>(c.overflow.upper) / n)})},
          {"snr_db", Short(c.SnrDb())},
          {"within_budget", c.within_budget},
          {"verdict", c.verdict}};
}

}  // namespace

nlohmann::ordered_json RecommendationJson(const Recommendation& r) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const LayerAdvice& a : r.rows) {
    nlohmann::ordered_json cands = nlohmann::ordered_json::array();
    for (const Candidate& c : a.candidates) cands.push_back(CandidateJson(c));
    rows.push_back({{"role", ToString(a.role)},
                    {"layer", a.layer},
                    {"steps", a.steps},
                    {"best", a.best},
                    {"reason", a.reason},
                    {"candidates", cands}});
  }
  return {{"budgets",
           {{"max_underflow_pct", 100 * r.budgets.max_underflow},
            {"max_overflow_pct", 100 * r.budgets.max_overflow},
            {"min_snr_db", r.budgets.min_snr_db}}},
          {"rows", rows}};
}

}  // namespace lpsim
