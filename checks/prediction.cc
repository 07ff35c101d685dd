#include "checks/prediction.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace lpsim {

bool IsBreakSign(const Finding& f, bool inference_only) {
  return f.severity != Severity::kInfo && f.rule.rfind("lp_", 0) == 0 && f.rule != "lp_delayed_warmup" &&
         !(inference_only && f.rule == "lp_rollout");
}

CheckConfig LowPrecisionOnly(CheckConfig config) {
  for (auto& [name, rule] : config.rules) rule.enabled = rule.enabled && name.rfind("lp_", 0) == 0;
  return config;
}

std::string ProbedTargetOf(const std::string& name) {
  for (const std::string prefix : {"probe_loss:", "rollout_loss:"}) {
    if (name.rfind(prefix, 0) == 0) return name.substr(prefix.size());
  }
  return "";
}

std::string SignTarget(const Finding& f, const std::string& judged) {
  const std::string probed = ProbedTargetOf(f.tensor);
  return probed.empty() ? judged : probed;
}

nlohmann::ordered_json PredictionJson(const BreakPrediction& p) {
  const Finding* f = p.sign ? &*p.sign : nullptr;
  const nlohmann::ordered_json null;
  return {{"breaks", f != nullptr},
          {"step", f ? nlohmann::ordered_json(f->step) : null},
          {"rule", f ? nlohmann::ordered_json(f->rule) : null},
          {"tensor", f ? nlohmann::ordered_json(f->tensor) : null},
          {"probed", p.probed},
          {"inference", p.inference}};
}

LivePredictions::LivePredictions(std::vector<PredictedTarget> targets) {
  for (PredictedTarget& t : targets) {
    if (t.records) judged_ = t.name;
    BreakPrediction p;
    p.probed = t.probed;
    p.inference = t.inference_only;
    entries_.push_back({std::move(t.name), t.records, std::move(p)});
  }
}

bool LivePredictions::Add(const Finding& f) {
  const std::string target = SignTarget(f, judged_);
  for (Entry& e : entries_) {
    if (e.name != target) continue;
    if (e.prediction.sign || !IsBreakSign(f, e.prediction.inference)) return false;
    e.prediction.sign = f;
    return true;
  }
  return false;
}

nlohmann::ordered_json LivePredictions::Json() const {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Entry& e : entries_) {
    nlohmann::ordered_json one = {{"target", e.name}};
    one.update(PredictionJson(e.prediction));
    one["records"] = e.records;
    all.push_back(std::move(one));
  }
  return all;
}

}  // namespace lpsim
