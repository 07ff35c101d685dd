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
// (PredictBreak). Live, the tracker judges the run on each of its targets as
// the records come, with the same judge (TargetJudge: the records in the
// target's formats, the target's probes and rollouts), and LivePredictions
// keeps the first sign per target for the live agent (GET /api/job's
// info.predictions, the dashboard, `lpsim jobs`):
//
//   LivePredictions live({{h100_fp8_current, /*probed=*/true}, {int8_npu, true}});
//   for (const Finding& f : judge_on_h100.EndStep(step))   // the first target's
//     if (live.Add(0, f)) Publish(live.Json());
#ifndef LPSIM_CHECKS_PREDICTION_H_
#define LPSIM_CHECKS_PREDICTION_H_

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checks/check_config.h"
#include "core/records.h"
#include "core/target.h"

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
// "rollout_loss:T", "rollout_skipped:T": T); "" for any other name.
std::string ProbedTargetOf(const std::string& name);

struct BreakPrediction {
  std::optional<Finding> sign;  // the first break sign; none: it trains as in fp32
  bool probed = false;          // the run holds probes or rollouts of the target
  bool inference = false;       // the target runs inference only (Target::inference_only)
};
// The prediction on `target` as one line of text (no final period), the one
// wording of every place that shows it: `lpsim check --target`, `recommend
// --targets`, `demo --target`, the HTML report and the live dashboard:
//   on T the training breaks, first sign at step S (rule on 'tensor')
//   on T it trains as in fp32 (no low-precision warning or error)
//   on T (inference only) inference runs as in fp32 (no low-precision ...)
// and, `so_far` (a running job), "on T no low-precision warning or error so
// far"; then, for a run without probes of T, why the prediction is weaker.
// Names from a run's database are escaped (core/printable.h).
std::string PredictionText(const std::string& target, const BreakPrediction& p, bool so_far = false);
// As `lpsim check --target --json`, `recommend --targets --json`, `demo
// --json` and the HTML report carry it: {"breaks", "step", "rule", "tensor",
// "probed", "inference", "text"} (step, rule and tensor null when it trains
// as in fp32; "breaks" on an inference-only target: its inference does;
// "text": PredictionText).
nlohmann::ordered_json PredictionJson(const std::string& target, const BreakPrediction& p, bool so_far = false);

// A target a running job predicts on.
struct PredictedTarget {
  Target target;
  bool probed = false;  // a probe target (TrackerOptions::probe_targets)
};

// The prediction so far on each target of a running job, in the order given.
class LivePredictions {
 public:
  explicit LivePredictions(const std::vector<PredictedTarget>& targets);

  // Takes a finding of the run judged on the i-th target; true when it is
  // that target's first break sign (the predictions changed).
  bool Add(size_t i, const Finding& f);
  // The i-th target's first break sign came: its prediction is final.
  bool decided(size_t i) const { return entries_[i].prediction.sign.has_value(); }
  // [{"target", PredictionJson's keys...}] in the constructor's order, the
  // text worded so far.
  nlohmann::ordered_json Json() const;

 private:
  struct Entry {
    std::string name;
    BreakPrediction prediction;  // its probed and inference from the target
  };
  std::vector<Entry> entries_;
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_PREDICTION_H_
