#include "report/stored_check.h"

#include <optional>
#include <string>

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

StatusOr<std::vector<Finding>> CheckRecords(const std::vector<ScalarRecord>& scalars, const std::set<int64_t>& steps,
                                            const RecordSource& records, const CheckConfig& config,
                                            const Target* target) {
  std::optional<TargetRewrite> rewrite;
  if (target) rewrite.emplace(*target);
  Checker checker(config);
  auto next_step = steps.begin();
  size_t next_scalar = 0;
  auto end_through = [&](int64_t last) {  // ends every step <= last
    while (next_step != steps.end() && *next_step <= last) {
      for (; next_scalar < scalars.size() && scalars[next_scalar].step <= *next_step; ++next_scalar) {
        if (ScalarJudgedOn(scalars[next_scalar], target)) checker.Add(scalars[next_scalar]);
      }
      checker.EndStep(*next_step);
      ++next_step;
    }
  };
  int64_t open_step = steps.empty() ? 0 : *steps.begin();
  Status s = records([&](TensorRecord&& r) {
    if (r.step != open_step) {
      end_through(r.step - 1);
      open_step = r.step;
    }
    if (rewrite) (*rewrite)(&r);
    checker.Add(r);
    return Status();
  });
  if (!s.ok()) return s;
  end_through(steps.empty() ? 0 : *steps.rbegin());
  return checker.findings();
}

StatusOr<std::vector<Finding>> CheckStoredRun(const RunReader& reader, const CheckConfig& config,
                                              const Target* target) {
  StatusOr<std::vector<ScalarRecord>> scalars = reader.Scalars();
  if (!scalars.ok()) return scalars.status();
  StatusOr<std::vector<int64_t>> record_steps = reader.Steps();
  if (!record_steps.ok()) return record_steps.status();
  std::set<int64_t> steps(record_steps->begin(), record_steps->end());
  for (const ScalarRecord& sc : *scalars) steps.insert(sc.step);
  return CheckRecords(*scalars, steps,
                      [&](const std::function<Status(TensorRecord&&)>& fn) { return reader.ForEachRecord({}, fn); },
                      config, target);
}

}  // namespace lpsim
