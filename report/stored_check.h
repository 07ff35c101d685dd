// The rule catalog on a stored run, fed step by step as the tracker feeds
// it live: each step's scalars, then its tensor records, then EndStep. With
// a hardware target, each record is judged in the target's formats
// (TargetRewrite) and, of the probes and rollouts (TrackerOptions::probe),
// only fp32's and the target's are read: the run judged on that target.
// `lpsim check RUN [--target T]` and `lpsim validate`'s predictions are
// this function, and a running job's (tracker/live_wiring.h) is the same
// judge fed as the records come (TargetJudge), so none can disagree.
//
//   StatusOr<std::vector<Finding>> f = CheckStoredRun(*reader, CheckConfig::Defaults(), &target);
//   // or over records already read (several targets, one read):
//   StatusOr<std::vector<Finding>> g = CheckRecords(scalars, source, config, &target);
//   StatusOr<BreakPrediction> p = PredictBreak(*reader, target);  // breaks from p->sign->step
#ifndef LPSIM_REPORT_STORED_CHECK_H_
#define LPSIM_REPORT_STORED_CHECK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checks/check_config.h"
#include "checks/checker.h"
#include "checks/prediction.h"
#include "core/records.h"
#include "core/status.h"
#include "core/target.h"
#include "report/target_rewrite.h"
#include "store/run_db.h"

namespace lpsim {

// A run judged on one target (or, without one, in its records' own formats)
// one step at a time, as it is written or read back: each tensor record in
// the target's formats (TargetRewrite), each scalar but another target's
// probes and rollouts (ScalarJudgedOn). CheckRecords is this judge fed a
// stored run; a running job feeds one per predicted target.
//
//   TargetJudge judge(LowPrecisionOnly(CheckConfig::Defaults()), &target);
//   judge.Add(record); judge.Add(scalar);   // a step's, any order
//   for (const Finding& f : judge.EndStep(step)) ...
class TargetJudge {
 public:
  TargetJudge(const CheckConfig& config, const Target* target);
  void Add(TensorRecord r);
  void Add(const ScalarRecord& s);
  // The findings new at `step`, in the order the rules raised them (the
  // order PredictionFrom reads: not Checker::EndStep's, most severe first).
  std::vector<Finding> EndStep(int64_t step);
  const std::vector<Finding>& findings() const { return checker_.findings(); }

 private:
  std::optional<TargetRewrite> rewrite_;
  Checker checker_;
  size_t taken_ = 0;  // findings() returned so far
};

// Calls its argument with every tensor record of a run, in step order (the
// order the run database keeps: RunReader::ForEachRecord); stops at the
// first error either side returns.
using RecordSource = std::function<Status(const std::function<Status(TensorRecord&&)>&)>;

// The findings, in the order the rules raised them. `scalars` in step
// order (RunReader::Scalars). `target`: null judges the records' own formats.
StatusOr<std::vector<Finding>> CheckRecords(const std::vector<ScalarRecord>& scalars, const RecordSource& records,
                                            const CheckConfig& config, const Target* target);

// CheckRecords over the run `reader` opened, its records streamed.
StatusOr<std::vector<Finding>> CheckStoredRun(const RunReader& reader, const CheckConfig& config,
                                              const Target* target);

// Whether a scalar is read when the run is judged on `target` (null: every
// scalar): not the probe or rollout loss of another target.
bool ScalarJudgedOn(const ScalarRecord& s, const Target* target);

// Whether the run holds probes or rollouts of the target named `target`
// (TrackerOptions::probe): without them the prediction rests on the
// records alone, and lp_forward_loss and lp_rollout, which make most of
// the predictions `lpsim validate` counts, cannot fire.
StatusOr<bool> ProbedOn(const RunReader& reader, const std::string& target);

// The prediction from the findings of the run `reader` opened judged on
// `target`, in the order the rules raised them (CheckRecords').
StatusOr<BreakPrediction> PredictionFrom(const std::vector<Finding>& findings, const RunReader& reader,
                                         const Target& target);
// The prediction on `target` with the default rules (checks/prediction.h:
// the first break sign of the run judged on the target).
StatusOr<BreakPrediction> PredictBreak(const RunReader& reader, const Target& target);

}  // namespace lpsim

#endif  // LPSIM_REPORT_STORED_CHECK_H_
