// The tracker's side of the live agent (TrackerOptions::live_port,
// live/agent.h, docs/live.md): starts the agent on the recording rank, hooks
// it to the step analyzer, registers the tracker's knobs (every, paused,
// formats) and keeps each knob command in the run. Torch-free, so that
// Tracker::Impl only holds the calls:
//
//   LiveWiringOptions lo;  lo.port = 0;  lo.run_dir = "runs/exp1";
//   StatusOr<std::unique_ptr<LiveWiring>> live = LiveWiring::Start(lo);
//   (*live)->Hook(&analyzer_options);          // before the analyzer exists
//   analyzer = std::make_unique<StepAnalyzer>(analyzer_options, writer);
//   (*live)->AddTrackerKnobs(&every, &paused, analyzer.get());
//   (*live)->Announce();                       // URL to stderr and RUN_DIR/live.url
//   ... each step, on the training thread, after EndStep:
//   (*live)->ApplyPending(step, analyzer.get());
//
// The agent must outlive the analyzer (its hooks call the agent): declare the
// LiveWiring before the analyzer.
#ifndef LPSIM_TRACKER_LIVE_WIRING_H_
#define LPSIM_TRACKER_LIVE_WIRING_H_

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/step_analyzer.h"
#include "checks/prediction.h"
#include "core/records.h"
#include "core/status.h"
#include "live/agent.h"
#include "report/stored_check.h"

namespace lpsim {

struct LiveWiringOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string token;
  std::string job_name = "job";
  nlohmann::json job_info = nlohmann::json::object();
  std::string run_dir;                    // where live.url goes
  std::vector<std::string> formats;       // the formats knob's first value
  std::map<Role, std::string> judge_formats;  // every formats value must keep these (TrackerOptions::judge)
  std::string port_name = "TrackerOptions.live_port";  // how an error names the port setting
  // The targets to keep the break prediction so far on (checks/prediction.h),
  // in GET /api/job's info.predictions: the run's target, then the probe
  // targets, each judged as `lpsim check RUN --target T` judges the stored
  // run (TargetJudge, report/stored_check.h), by the rules `predict_rules`
  // leaves on. None: no predictions (simulate mode already runs on its
  // target).
  std::vector<PredictedTarget> predict;
  CheckConfig predict_rules = LowPrecisionOnly(CheckConfig::Defaults());
};

class LiveWiring {
 public:
  // The error names the port setting (opt.port_name) and says what is wrong
  // (a port in use, a host that needs a token, ...).
  static StatusOr<std::unique_ptr<LiveWiring>> Start(LiveWiringOptions opt);

  // Publishes through the analyzer's hooks (a user's on_record still runs,
  // first), judges each record and scalar on every predicted target, and at
  // the end of each step updates the predictions where a target's first
  // break sign came.
  void Hook(StepAnalyzerOptions* a);
  // The knobs every tracked job has. `every` and `paused` are the tracker's
  // own (written by ApplyPending only, on the thread that calls it);
  // formats go to the analyzer from the next step.
  Status AddTrackerKnobs(int* every, bool* paused, StepAnalyzer* analyzer);
  // Prints "lpsim: live dashboard and API at URL" on stderr and writes the
  // URL to RUN_DIR/live.url.
  Status Announce();
  // Applies the knob commands that clients sent (one atomic load when none
  // did); each acknowledgement becomes a "live_knob" finding in the run, and
  // a numeric or boolean value applied also a "knob/NAME" scalar.
  void ApplyPending(int64_t step, StepAnalyzer* analyzer);
  // Marks the job finished (or why it failed) for GET /api/job; the agent
  // serves until this object goes.
  void Close(const std::string& status);

  live::Agent* agent() const { return agent_.get(); }

 private:
  explicit LiveWiring(LiveWiringOptions opt) : opt_(std::move(opt)) {}
  // Ends `step` on every predicted target; publishes the predictions if a
  // first break sign came.
  void JudgeStep(int64_t step);

  LiveWiringOptions opt_;
  std::unique_ptr<live::Agent> agent_;
  std::unique_ptr<LivePredictions> predictions_;  // null: no target
  std::vector<TargetJudge> judges_;               // one per predicted target, in its order
};

// The formats knob's check: specs parsed, at most one analyze pass of them,
// every judged format among them. Exposed for tests.
StatusOr<std::vector<Format>> ParseLiveFormats(const nlohmann::json& specs,
                                               const std::map<Role, std::string>& judge_formats);

}  // namespace lpsim

#endif  // LPSIM_TRACKER_LIVE_WIRING_H_
