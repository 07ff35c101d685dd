// The break prediction: whether a training breaks on a hardware target, and
// from which step, read from the rule catalog's findings on an fp32 run
// judged on that target (README: `lpsim validate` measures its precision,
// recall and lead per target). The training breaks there when a
// low-precision rule (lp_*) raises a warning or an error, from the first
// such finding's step.
//
// Offline, report/stored_check.h judges a stored run on one target
// (PredictBreak). Live, the tracker's checker judges the records in its
// target's formats and the probes and rollouts of every probe target as
// they come; LivePredictions keeps the first sign per target for the live
// agent (GET /api/job's info.predictions, the dashboard, `lpsim jobs`):
//
//   LivePredictions live("h100-fp8-current", true, {"h100-fp8-current", "gaudi2-fp8"});
//   for (const Finding& f : checker.EndStep(step)) if (live.Add(f)) Publish(live.Json());
#ifndef LPSIM_CHECKS_PREDICTION_H_
#define LPSIM_CHECKS_PREDICTION_H_

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checks/check_config.h"
#include "core/records.h"

namespace lpsim {

// A sign that the training breaks: a warning or error of an lp_* rule.
// lp_delayed_warmup is not one: it speaks of the recipe's first steps (casts
// saturate while the amax history fills).
bool IsBreakSign(const Finding& f);
// `config` with only its lp_* rules left on: the rules a prediction reads
// (the others cannot change it).
CheckConfig LowPrecisionOnly(CheckConfig config);

// The target a forward-probe or rollout scalar is of ("probe_loss:T",
// "rollout_loss:T": T); "" for any other name.
std::string ProbedTargetOf(const std::string& name);
// The target a finding speaks of: the one a forward-probe or rollout finding
// names in its tensor (ProbedTargetOf), else `judged`, the target the run's
// records were judged on ("" where none was).
std::string SignTarget(const Finding& f, const std::string& judged);

struct BreakPrediction {
  std::optional<Finding> sign;  // the first break sign; none: it trains as in fp32
  bool probed = false;          // the run holds probes or rollouts of the target
};
// As `lpsim check --target --json`, `recommend --targets --json`, `demo
// --json` and the HTML report carry it: {"breaks", "step", "rule", "tensor",
// "probed"} (step, rule and tensor null when it trains as in fp32).
nlohmann::ordered_json PredictionJson(const BreakPrediction& p);

// The prediction so far on each target of a running job.
class LivePredictions {
 public:
  // `target`: the run's target ("" none), its records judged in the
  // target's formats when `records` (else a finding on a record speaks of
  // no target); `probed`: the probe targets. The targets predicted on are
  // both, `target` first.
  LivePredictions(const std::string& target, bool records, const std::vector<std::string>& probed);

  // Takes a finding; true when it is a target's first break sign (the
  // predictions changed).
  bool Add(const Finding& f);
  bool empty() const { return order_.empty(); }
  // [{"target", PredictionJson's keys..., "records"}] in the constructor's
  // order; "records": whether the records were judged on the target (else
  // `lpsim check RUN --target T` judges them after the run).
  nlohmann::ordered_json Json() const;

 private:
  std::string judged_;
  std::vector<std::string> order_;
  std::map<std::string, BreakPrediction> by_target_;
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_PREDICTION_H_
