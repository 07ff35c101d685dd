#include "report/stored_check.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "checks/checker.h"
#include "report/target_rewrite.h"

namespace lpsim {

bool ScalarJudgedOn(const ScalarRecord& s, const Target* target) {
  if (!target) return true;
  for (const char* prefix : {"probe_loss:", "rollout_loss:"}) {
    const std::string p = prefix;
    if (s.name.rfind(p, 0) == 0) return s.name.compare(p.size(), std::string::npos, target->name) == 0;
  }
  return true;
}

StatusOr<std::vector<Finding>> CheckRecords(const std::vector<ScalarRecord>& scalars, const RecordSource& records,
                                            const CheckConfig& config, const Target* target) {
  std::optional<TargetRewrite> rewrite;
  if (target) rewrite.emplace(*target);
  Checker checker(config);
  size_t next_scalar = 0;
  // Ends `step`: its scalars (after its records), then EndStep.
  auto end_step = [&](int64_t step) {
    for (; next_scalar < scalars.size() && scalars[next_scalar].step <= step; ++next_scalar) {
      if (ScalarJudgedOn(scalars[next_scalar], target)) checker.Add(scalars[next_scalar]);
    }
    checker.EndStep(step);
  };
  // Ends the steps up to `last` that have scalars and no records.
  auto end_scalar_steps = [&](int64_t last) {
    while (next_scalar < scalars.size() && scalars[next_scalar].step <= last) end_step(scalars[next_scalar].step);
  };
  std::optional<int64_t> open;  // the step whose records are coming
  Status s = records([&](TensorRecord&& r) {
    if (open != r.step) {
      if (open) end_step(*open);
      end_scalar_steps(r.step - 1);
      open = r.step;
    }
    if (rewrite) (*rewrite)(&r);
    checker.Add(r);
    return Status();
  });
  if (!s.ok()) return s;
  if (open) end_step(*open);
  end_scalar_steps(std::numeric_limits<int64_t>::max());
  return checker.findings();
}

StatusOr<std::vector<Finding>> CheckStoredRun(const RunReader& reader, const CheckConfig& config,
                                              const Target* target) {
  StatusOr<std::vector<ScalarRecord>> scalars = reader.Scalars();
  if (!scalars.ok()) return scalars.status();
  return CheckRecords(*scalars,
                      [&](const std::function<Status(TensorRecord&&)>& fn) { return reader.ForEachRecord({}, fn); },
                      config, target);
}

bool IsBreakSign(const Finding& f) {
  return f.severity != Severity::kInfo && f.rule.rfind("lp_", 0) == 0 && f.rule != "lp_delayed_warmup";
}

CheckConfig LowPrecisionOnly(CheckConfig config) {
  for (auto& [name, rule] : config.rules) rule.enabled = rule.enabled && name.rfind("lp_", 0) == 0;
  return config;
}

StatusOr<bool> ProbedOn(const RunReader& reader, const std::string& target) {
  for (const char* kind : {"probe_loss:", "rollout_loss:"}) {
    StatusOr<std::vector<ScalarRecord>> s = reader.Scalars(kind + target);
    if (!s.ok()) return s.status();
    if (!s->empty()) return true;
  }
  return false;
}

StatusOr<BreakPrediction> PredictionFrom(const std::vector<Finding>& findings, const RunReader& reader,
                                         const std::string& target) {
  StatusOr<bool> probed = ProbedOn(reader, target);
  if (!probed.ok()) return probed.status();
  BreakPrediction p;
  p.probed = *probed;
  auto first = std::find_if(findings.begin(), findings.end(), IsBreakSign);
  if (first != findings.end()) p.sign = *first;
  return p;
}

StatusOr<BreakPrediction> PredictBreak(const RunReader& reader, const Target& target) {
  StatusOr<std::vector<Finding>> found = CheckStoredRun(reader, LowPrecisionOnly(CheckConfig::Defaults()), &target);
  if (!found.ok()) return found.status();
  return PredictionFrom(*found, reader, target.name);
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

}  // namespace lpsim
