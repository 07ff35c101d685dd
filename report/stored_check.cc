#include "report/stored_check.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "checks/checker.h"
#include "report/target_rewrite.h"

namespace lpsim {

bool ScalarJudgedOn(const ScalarRecord& s, const Target* target) {
  if (!target) return true;
  const std::string probed = ProbedTargetOf(s.name);
  return probed.empty() || probed == target->name;
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

StatusOr<bool> ProbedOn(const RunReader& reader, const std::string& target) {
  for (const char* kind : {"probe_loss:", "rollout_loss:"}) {
    StatusOr<std::vector<ScalarRecord>> s = reader.Scalars(kind + target);
    if (!s.ok()) return s.status();
    if (!s->empty()) return true;
  }
  return false;
}

StatusOr<BreakPrediction> PredictionFrom(const std::vector<Finding>& findings, const RunReader& reader,
                                         const Target& target) {
  StatusOr<bool> probed = ProbedOn(reader, target.name);
  if (!probed.ok()) return probed.status();
  BreakPrediction p;
  p.probed = *probed;
  p.inference = target.inference_only;
  auto first = std::find_if(findings.begin(), findings.end(),
                            [&](const Finding& f) { return IsBreakSign(f, target.inference_only); });
  if (first != findings.end()) p.sign = *first;
  return p;
}

StatusOr<BreakPrediction> PredictBreak(const RunReader& reader, const Target& target) {
  StatusOr<std::vector<Finding>> found = CheckStoredRun(reader, LowPrecisionOnly(CheckConfig::Defaults()), &target);
  if (!found.ok()) return found.status();
  return PredictionFrom(*found, reader, target);
}

}  // namespace lpsim
