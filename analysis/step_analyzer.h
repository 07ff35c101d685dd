// StepAnalyzer: the half of the tracker that needs no torch. It turns fp32
// snapshots of tracked tensors into records (one SIMD analyze pass for all
// formats, with each tensor's scaling-recipe state), feeds them to the rules
// and the run database, and keeps the findings and the last step's records.
//
// Inline, every call does its work before returning. In the background mode
// the calls only queue (snapshots must then own their data) and one worker
// thread does the work in the order of the calls, so the training thread
// pays for a copy of each tensor and nothing else; the queue is bounded by
// bytes, so a worker that falls behind slows training instead of growing
// memory. Both modes produce the same records and findings.
//
//   StepAnalyzer a(options, writer);
//   TensorSnapshot s{step, "fc1", Role::kActivation, "Linear", shape, "float"};
//   s.Own(a.Buffer(n)); std::memcpy(s.data(), x, n * 4);
//   a.Add(std::move(s));
//   a.Add(ScalarRecord{step, "loss", 0.3});
//   a.EndStep(step, /*tracked=*/true);
//   for (const Finding& f : a.TakeNew()) ...
#ifndef LPSIM_ANALYSIS_STEP_ANALYZER_H_
#define LPSIM_ANALYSIS_STEP_ANALYZER_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

#include "checks/checker.h"
#include "core/records.h"
#include "core/scaling.h"
#include "simd/analyze.h"
#include "simd/scaling.h"
#include "store/run_db.h"

namespace lpsim {

// An fp32 buffer that is not zero-filled on allocation.
struct FloatBuffer {
  std::unique_ptr<float[]> data;
  size_t capacity = 0;
};

struct TensorSnapshot {
  int64_t step = 0;
  std::string name;
  Role role = Role::kActivation;
  std::string module_type;
  std::vector<int64_t> shape;
  std::string dtype;
  // Only for the rules' judgement of the initial weights (not stored).
  bool initial_weight = false;

  // The values: either borrowed (inline mode only; valid until Add returns)
  // or owned.
  void Borrow(const float* p, size_t n) { view_ = p, n_ = n; }
  void Own(FloatBuffer b, size_t n) { owned_ = std::move(b), view_ = owned_.data.get(), n_ = n; }
  float* mutable_data() { return owned_.data.get(); }
  const float* data() const { return view_; }
  size_t size() const { return n_; }
  FloatBuffer Release() { return std::move(owned_); }

 private:
  const float* view_ = nullptr;
  size_t n_ = 0;
  FloatBuffer owned_;
};

struct StepAnalyzerOptions {
  std::vector<Format> formats;
  Scaling scaling;
  std::map<Role, Scaling> role_scaling;
  int threads = 1;                      // analyze threads per tensor
  bool background = false;
  size_t max_queued_bytes = size_t{256} << 20;
  bool recording = true;                // false on ranks other than 0
  bool checks = true;
  CheckConfig check_config = CheckConfig::Defaults();
  // Unset: the rules judge every format. Set: they see, per role, only the
  // FormatRecord of the format with this name (none for a role not in the
  // map, so an empty map judges no format). The store and on_record get
  // every format either way (TrackerOptions::judge).
  std::optional<std::map<Role, std::string>> judge_formats;
  std::function<void(const TensorRecord&)> on_record;
  // Likewise, for watchers of a running job (the live agent, live/agent.h):
  // every scalar, every finding (the rules' and those given to Add), and the
  // end of each step after its records and findings. Like on_record they run
  // on the recording rank only, on the thread that analyzes, in call order;
  // with none set nothing is done for them.
  std::function<void(const ScalarRecord&)> on_scalar;
  std::function<void(const Finding&)> on_finding;
  std::function<void(int64_t step)> on_step_end;
  // Distributed (inline mode): amax and results reduced over the ranks.
  std::function<float(float)> reduce_amax;
  std::function<void(AnalyzeResult*)> reduce_result;
};

class StepAnalyzer {
 public:
  // writer may be null (ranks other than 0).
  StepAnalyzer(StepAnalyzerOptions opt, RunWriter* writer);
  ~StepAnalyzer();  // finishes what is queued
  StepAnalyzer(const StepAnalyzer&) = delete;
  StepAnalyzer& operator=(const StepAnalyzer&) = delete;

  bool background() const { return opt_.background; }
  // A buffer of at least n floats, reused from snapshots already analyzed.
  FloatBuffer Buffer(size_t n);

  void Add(TensorSnapshot s);
  void Add(ScalarRecord s);
  // A finding made outside the rules (skipped update, tracker note): stored,
  // and listed in findings() when `listed`, in call order.
  void Add(Finding f, bool listed = true);
  // Ends the step: the rules judge it and its records commit together.
  void EndStep(int64_t step, bool tracked);
  // Snapshots added after this call are analyzed in these formats (a live
  // command); those added before keep the old ones. Delayed-scaling
  // histories restart, since they belong to a format. Not empty.
  void SetFormats(std::vector<Format> formats);

  // Findings of the rules not taken yet (inline: those of the last EndStep;
  // background: of the steps finished so far).
  std::vector<Finding> TakeNew();
  // Waits until everything queued is done.
  void Drain();
  // Both wait for the queue first.
  std::vector<Finding> findings();
  std::vector<TensorRecord> last_records();

 private:
  struct StepEnd {
    int64_t step;
    bool tracked;
  };
  struct Extra {
    Finding finding;
    bool listed;
  };
  struct Formats {
    std::vector<Format> formats;
  };
  using Item = std::variant<TensorSnapshot, ScalarRecord, Extra, StepEnd, Formats>;

  void Enqueue(Item item, size_t bytes);
  void Process(Item& item);
  void Analyze(TensorSnapshot& s);
  void Finish(const StepEnd& e);
  void Run();
  const Scaling& RecipeFor(Role role) const;

  StepAnalyzerOptions opt_;
  RunWriter* writer_;
  Checker checker_;

  // Worker state (touched only by whoever processes items).
  std::unordered_map<std::string, std::vector<DelayedScaler>> delayed_;  // per tensor, per format
  std::vector<TensorRecord> current_;

  std::mutex mu_;
  std::condition_variable work_cv_, space_cv_;
  std::deque<std::pair<Item, size_t>> queue_;
  size_t queued_bytes_ = 0;
  bool busy_ = false;
  bool stopping_ = false;
  std::vector<FloatBuffer> pool_;
  size_t pool_bytes_ = 0;
  std::vector<Finding> findings_, new_;
  std::vector<TensorRecord> last_;
  std::thread worker_;
};

}  // namespace lpsim

#endif  // LPSIM_ANALYSIS_STEP_ANALYZER_H_
