#include "report/stored_check.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace lpsim {

bool ScalarJudgedOn(const ScalarRecord& s, const Target* target) {
  if (!target) return true;
  const std::string probed = ProbedTargetOf(s.name);
  return probed.empty() || probed == target->name;
}

TargetJudge::TargetJudge(const CheckConfig& config, const Target* target) : checker_(config) {
  if (target) rewrite_.emplace(*target);
}

void TargetJudge::Add(TensorRecord r) {
  if (rewrite_) (*rewrite_)(&r);
  checker_.Add(r);
}

void TargetJudge::Add(const ScalarRecord& s) {
  if (ScalarJudgedOn(s, rewrite_ ? &rewrite_->target() : nullptr)) checker_.Add(s);
}

std::vector<Finding> TargetJudge::EndStep(int64_t step) {
  checker_.EndStep(step);
  const std::vector<Finding>& all = checker_.findings();
  std::vector<Finding> fresh(all.begin() + static_cast<std::ptrdiff_t>(taken_), all.end());
  taken_ = all.size();
  return fresh;
}

StatusOr<std::vector<Finding>> CheckRecords(const std::vector<ScalarRecord>& scalars, const RecordSource& records,
                                            const CheckConfig& config, const Target* target) {
  TargetJudge judge(config, target);
  size_t next_scalar = 0;
  // Ends `step`: its scalars (after its records), then EndStep.
  auto end_step = [&](int64_t step) {
    for (; next_scalar < scalars.size() && scalars[next_scalar].step <= step; ++next_scalar) {
      judge.Add(scalars[next_scalar]);
    }
    judge.EndStep(step);
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
    judge.Add(std::move(r));
    return Status();
  });
  if (!s.ok()) return s;
  if (open) end_step(*open);
  end_scalar_steps(std::numeric_limits<int64_t>::max());
  return judge.findings();
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
