// The break prediction: whether a training breaks on a hardware target, and
// from which step, read from the rule catalog's findings on an fp32 run
// judged on that target (README: `lpsim validate` measures its precision,
// recall and lead per target). The training breaks there when a
// low-precision rule (lp_*) raises a warning or an error, from the first
// such finding's step. On a target that runs inference only
// (Target::inference_only) the prediction speaks of inference and reads the
// forward pass alone: a rollout (training on the target) is no sign there.
//
// Offline, report/stored_check.h judges a stored run on one target
// (PredictBreak). Live, the tracker's checker judges the records in its
// target's formats and the probes and rollouts of every probe target as
// they come; LivePredictions keeps the first sign per target for the live
// agent (GET /api/job's info.predictions, the dashboard, `lpsim jobs`):
//
//   LivePredictions live({{"h100-fp8-current", /*records=*/true, /*probed=*/true},
//                         {"int8-npu", false, true, /*inference_only=*/true}});
//   for (const Finding& f : checker.EndStep(step)) if (live.Add(f)) Publish(live.Json());
#ifndef LPSIM_CHECKS_PREDICTION_H_
#define LPSIM_CHECKS_PREDICTION_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checks/check_config.h"
#include "core/records.h"

namespace lpsim {

// A sign that the training breaks: a warning or error of an lp_* rule.
// lp_delayed_warmup is not one: it speaks of the recipe's first steps (casts
// saturate while the amax history fills). On an inference-only target
// lp_rollout is not one either.
bool IsBreakSign(const Finding& f, bool inference_only = false);
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
  bool inference = false;       // the target runs inference only (Target::inference_only)
};
// As `lpsim check --target --json`, `recommend --targets --json`, `demo
// --json` and the HTML report carry it: {"breaks", "step", "rule", "tensor",
// "probed", "inference"} (step, rule and tensor null when it trains as in
// fp32; "breaks" on an inference-only target: its inference does).
nlohmann::ordered_json PredictionJson(const BreakPrediction& p);

// A target a running job predicts on.
struct PredictedTarget {
  std::string name;
  // The records are judged in the target's formats (the run's own target,
  // where it stores every role as a float); else a finding on a record
  // speaks of no target and `lpsim check RUN --target T` judges them after
  // the run.
  bool records = false;
  bool probed = false;          // a probe target (TrackerOptions::probe_targets)
  bool inference_only = false;  // Target::inference_only
};

// The prediction so far on each target of a running job.
class LivePredictions {
 public:
  // At most one target has `records`.
  explicit LivePredictions(std::vector<PredictedTarget> targets);

  // Takes a finding; true when it is a target's first break sign (the
  // predictions changed).
  bool Add(const Finding& f);
  // [{"target", PredictionJson's keys..., "records"}] in the constructor's
  // order.
  nlohmann::ordered_json Json() const;

 private:
  struct Entry {
    std::string name;
    bool records;
    BreakPrediction prediction;  // its probed and inference from the target
  };
  std::string judged_;  // the target with `records`, or ""
  std::vector<Entry> entries_;
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_PREDICTION_H_
