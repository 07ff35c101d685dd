#include "checks/prediction.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace lpsim {

bool IsBreakSign(const Finding& f) {
  return f.severity != Severity::kInfo && f.rule.rfind("lp_", 0) == 0 && f.rule != "lp_delayed_warmup";
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
          {"probed", p.probed}};
}

LivePredictions::LivePredictions(const std::string& target, bool records, const std::vector<std::string>& probed)
    : judged_(records ? target : "") {
  if (!target.empty()) order_.push_back(target);
  for (const std::string& t : probed) {
    if (std::find(order_.begin(), order_.end(), t) == order_.end()) order_.push_back(t);
  }
  for (const std::string& t : order_) {
    by_target_[t].probed = std::find(probed.begin(), probed.end(), t) != probed.end();
  }
}

bool LivePredictions::Add(const Finding& f) {
  if (!IsBreakSign(f)) return false;
  auto it = by_target_.find(SignTarget(f, judged_));
  if (it == by_target_.end() || it->second.sign) return false;
  it->second.sign = f;
  return true;
}

nlohmann::ordered_json LivePredictions::Json() const {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const std::string& t : order_) {
    nlohmann::ordered_json one = {{"target", t}};
    one.update(PredictionJson(by_target_.at(t)));
    one["records"] = t == judged_;
    all.push_back(std::move(one));
  }
  return all;
}

}  // namespace lpsim
