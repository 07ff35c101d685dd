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

LivePredictions::LivePredictions(std::vector<PredictedTarget> targets) : targets_(std::move(targets)) {
  for (const PredictedTarget& t : targets_) {
    if (t.records) judged_ = t.name;
    BreakPrediction& p = by_target_[t.name];
    p.probed = t.probed;
    p.inference = t.inference_only;
  }
}

bool LivePredictions::Add(const Finding& f) {
  auto it = by_target_.find(SignTarget(f, judged_));
  if (it == by_target_.end() || it->second.sign || !IsBreakSign(f, it->second.inference)) return false;
  it->second.sign = f;
  return true;
}

nlohmann::ordered_json LivePredictions::Json() const {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const PredictedTarget& t : targets_) {
    nlohmann::ordered_json one = {{"target", t.name}};
    one.update(PredictionJson(by_target_.at(t.name)));
    one["records"] = t.records;
    all.push_back(std::move(one));
  }
  return all;
}

}  // namespace lpsim
