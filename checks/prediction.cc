#include "checks/prediction.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "core/printable.h"

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
  for (const std::string prefix : {"probe_loss:", "rollout_loss:", "rollout_skipped:"}) {
    if (name.rfind(prefix, 0) == 0) return name.substr(prefix.size());
  }
  return "";
}

std::string PredictionText(const std::string& target, const BreakPrediction& p, bool so_far) {
  const std::string on = "on " + Printable(target) + (p.inference ? " (inference only) " : " ");
  std::string line;
  if (p.sign) {
    const std::string tensor = p.sign->tensor.empty() ? "" : " on '" + Printable(p.sign->tensor) + "'";
    line = on + (p.inference ? "inference" : "the training") + " breaks, first sign at step " +
           std::to_string(p.sign->step) + " (" + Printable(p.sign->rule) + tensor + ")";
  } else if (so_far) {
    line = on + (p.inference ? "no low-precision warning or error on its forward pass so far"
                             : "no low-precision warning or error so far");
  } else {
    line = on + (p.inference ? "inference runs as in fp32 (no low-precision warning or error on its forward pass)"
                             : "it trains as in fp32 (no low-precision warning or error)");
  }
  if (!p.probed) {
    line += "; judged without probes of " + Printable(target) + " (TrackerOptions::probe, lpsim demo --probe " +
            Printable(target) +
            (p.inference ? "), whose forward probes judge its inference"
                         : "), whose forward probes and rollouts make most of the predictions lpsim validate counts");
  }
  return line;
}

nlohmann::ordered_json PredictionJson(const std::string& target, const BreakPrediction& p, bool so_far) {
  const Finding* f = p.sign ? &*p.sign : nullptr;
  const nlohmann::ordered_json null;
  return {{"breaks", f != nullptr},
          {"step", f ? nlohmann::ordered_json(f->step) : null},
          {"rule", f ? nlohmann::ordered_json(f->rule) : null},
          {"tensor", f ? nlohmann::ordered_json(f->tensor) : null},
          {"probed", p.probed},
          {"inference", p.inference},
          {"text", PredictionText(target, p, so_far)}};
}

LivePredictions::LivePredictions(const std::vector<PredictedTarget>& targets) {
  for (const PredictedTarget& t : targets) {
    BreakPrediction p;
    p.probed = t.probed;
    p.inference = t.target.inference_only;
    entries_.push_back({t.target.name, std::move(p)});
  }
}

bool LivePredictions::Add(size_t i, const Finding& f) {
  BreakPrediction& p = entries_.at(i).prediction;
  if (p.sign || !IsBreakSign(f, p.inference)) return false;
  p.sign = f;
  return true;
}

nlohmann::ordered_json LivePredictions::Json() const {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Entry& e : entries_) {
    nlohmann::ordered_json one = {{"target", e.name}};
    one.update(PredictionJson(e.name, e.prediction, /*so_far=*/true));
    all.push_back(std::move(one));
  }
  return all;
}

}  // namespace lpsim
