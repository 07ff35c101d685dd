// What the live agent (live/agent.h, TrackerOptions::live_port) costs a
// training job, with its baselines in the same run (README "Live"):
//
//  - BM_TrackedStep: a tracked step of the demo MLP (every tensor of every
//    role, three formats) without an agent, with an agent nobody watches,
//    and with one active stream of every record; inline (all the work on the
//    measured thread) and in the background mode (publishing runs on the
//    tracker's analyzer thread).
//  - BM_StepHooks: exactly what the tracker's wiring (tracker/live_wiring.h)
//    runs for one tracked step of that model, records, scalars and the step
//    end, with no client (the idle cost: one atomic load per publication)
//    and with one stream.
//  - BM_PredictionJudges: what a job with hardware targets adds to those
//    hooks (LiveWiringOptions::predict): one tracked step's records and
//    scalars judged on 1, 4 and 11 targets (TargetJudge, the lp_* rules on
//    each record in the target's formats), as the wiring runs it until a
//    target's first break sign.
//  - BM_PublishRecord: one record, with no client and with one stream that
//    selects nothing, the default fields, or the exponent histogram.
//
// At the end it prints the ratios: the idle hooks of a step over the
// tracked step without an agent (goal <= 0.5%), and the cost of one active
// stream per step.
//
//   build/bin/lpsim_live_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "analysis/step_analyzer.h"
#include "benchmarks/train_step.h"
#include "checks/prediction.h"
#include "core/target.h"
#include "live/agent.h"
#include "live/client.h"
#include "report/stored_check.h"
#include "tracker/demo.h"
#include "tracker/live_wiring.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

constexpr int64_t kBatch = 64;
// The stream queues are made big enough that a reader never falls behind by
// so much that it is dropped: the figures are of an active stream.
constexpr size_t kBenchQueueEvents = size_t{1} << 22;

// A client on its own thread that counts what it receives until stopped.
class Reader {
 public:
  Reader(const std::string& url, const std::string& query, const live::Agent& agent) {
    const live::Endpoint e = live::ParseUrl(url).value();
    thread_ = std::thread([this, e, query] {
      (void)live::Watch(
          e, query,
          [this](const nlohmann::json&) {
            received_.fetch_add(1, std::memory_order_relaxed);
            return !stop_.load();
          },
          [this] { return !stop_.load(); });
    });
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (agent.stats().clients == 0 && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    subscribed_ = agent.stats().clients > 0;
  }
  ~Reader() {
    stop_ = true;
    thread_.join();
  }
  bool subscribed() const { return subscribed_; }
  // The stream ends at its next event or keepalive (about a second).
  void Stop() { stop_ = true; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> received_{0};
  bool subscribed_ = false;
  std::thread thread_;
};

std::string TempDir(const std::string& tag) { return BenchRunDir("lpsim_live_bench", tag); }

TrackerOptions StepOptions(const std::string& dir, bool background, bool live) {
  TrackerOptions o;
  o.formats = {"e4m3fn", "e5m2", "bf16"};
  o.scaling = Scaling::Delayed(16);
  o.run_dir = dir;
  o.overwrite = true;
  o.background = background;
  o.live_port = live ? 0 : -1;
  return o;
}

// background: 0 inline, 1 background. live: 0 no agent, 1 an agent with no
// client, 2 an agent with one stream of every record (default fields).
void BM_TrackedStep(benchmark::State& state) {
  const bool background = state.range(0) != 0;
  const int live = static_cast<int>(state.range(1));
  DemoTraining t("mlp");
  const std::string dir = TempDir("step");
  std::unique_ptr<Tracker> tracker =
      std::make_unique<Tracker>(*t.model, t.optimizer, StepOptions(dir, background, live > 0));
  std::unique_ptr<Reader> reader;
  if (live == 2) {
    reader = std::make_unique<Reader>(tracker->live_url(), "{}", *tracker->live_agent());
    if (!reader->subscribed()) state.SkipWithError("the stream did not open");
  }
  Batches batches(16, [&] { return t.task.Batch(kBatch); });
  for (auto _ : state) TrainStep(t.model, t.optimizer, tracker.get(), batches.Next());
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["records_per_step"] = static_cast<double>(tracker->last_records().size());
  if (live > 0) {
    const live::AgentStats st = tracker->live_agent()->stats();
    state.counters["events"] = static_cast<double>(st.events);
    if (st.dropped > 0) state.SkipWithError("the stream was dropped: not the cost of an active stream");
  }
  const char* labels[] = {"no agent", "agent, no client", "agent, 1 stream"};
  state.SetLabel(std::string(background ? "background, " : "inline, ") + labels[live]);
  if (reader) reader->Stop();
  tracker.reset();  // ends the stream
  reader.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_TrackedStep)
    ->ArgNames({"background", "live"})
    ->ArgsProduct({{0, 1}, {0, 1, 2}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// One tracked step's publications as the tracker makes them: the records,
// scalars (loss, lr, an update ratio per weight) and step end of a real
// step of the demo MLP.
struct StepPublications {
  std::vector<TensorRecord> records;
  std::vector<ScalarRecord> scalars;
};

StepPublications RealStep() {
  DemoTraining t("mlp");
  const std::string dir = TempDir("sample");
  StepPublications p;
  {
    Tracker tracker(*t.model, t.optimizer, StepOptions(dir, /*background=*/false, /*live=*/false));
    for (int s = 0; s < 3; ++s) TrainStep(t.model, t.optimizer, &tracker, t.task.Batch(kBatch));
    p.records = tracker.last_records();
  }
  std::filesystem::remove_all(dir);
  p.scalars = {{2, "loss", 1.5}, {2, "lr", 1e-3}};
  for (const TensorRecord& r : p.records) {
    if (r.role == Role::kWeight) p.scalars.push_back({2, "update_ratio/" + r.name, 1e-3});
  }
  return p;
}

// streams: 0 no client (the idle cost), 1 one stream of every record.
void BM_StepHooks(benchmark::State& state) {
  const int streams = static_cast<int>(state.range(0));
  static const StepPublications step = RealStep();
  LiveWiringOptions lo;
  lo.run_dir = TempDir("hooks");
  StatusOr<std::unique_ptr<LiveWiring>> wiring = LiveWiring::Start(lo);
  if (!wiring.ok()) {
    state.SkipWithError(wiring.status().message().c_str());
    return;
  }
  live::Agent& agent = *wiring.value()->agent();
  StepAnalyzerOptions hooks;
  wiring.value()->Hook(&hooks);
  std::unique_ptr<Reader> reader;
  if (streams > 0) {
    reader = std::make_unique<Reader>(agent.url(), "{}", agent);
    if (!reader->subscribed()) state.SkipWithError("the stream did not open");
  }
  int64_t s = 0;
  for (auto _ : state) {
    for (const TensorRecord& r : step.records) hooks.on_record(r);
    for (const ScalarRecord& x : step.scalars) hooks.on_scalar(x);
    hooks.on_step_end(s++);
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(step.records.size() + step.scalars.size() + 1));
  state.counters["publications_per_step"] = static_cast<double>(step.records.size() + step.scalars.size() + 1);
  const live::AgentStats st = agent.stats();
  if (st.dropped > 0) state.SkipWithError("the stream was dropped: not the cost of an active stream");
  state.SetLabel(streams == 0 ? "no client" : "1 stream, default fields");
  if (reader) reader->Stop();
  wiring.value().reset();
  reader.reset();
}
BENCHMARK(BM_StepHooks)->ArgName("streams")->Arg(0)->Arg(1)->Unit(benchmark::kNanosecond)->UseRealTime();

// targets: how many training targets the step is judged on (in the order
// lpsim targets lists them), each as the live wiring judges it.
void BM_PredictionJudges(benchmark::State& state) {
  const StepPublications p = RealStep();
  std::vector<TargetJudge> judges;
  const std::vector<Target> targets = BuiltinTargets().value();
  for (const Target& t : targets) {
    if (t.inference_only || judges.size() == static_cast<size_t>(state.range(0))) continue;
    judges.emplace_back(LowPrecisionOnly(CheckConfig::Defaults()), &t);
  }
  if (judges.size() != static_cast<size_t>(state.range(0))) state.SkipWithError("not that many training targets");
  int64_t step = 0;
  size_t findings = 0;
  for (auto _ : state) {
    for (TargetJudge& j : judges) {
      for (TensorRecord r : p.records) {
        r.step = step;
        j.Add(std::move(r));
      }
      for (ScalarRecord s : p.scalars) {
        s.step = step;
        j.Add(s);
      }
      findings += j.EndStep(step).size();
    }
    ++step;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["findings"] = static_cast<double>(findings);
}
BENCHMARK(BM_PredictionJudges)->ArgName("targets")->Arg(1)->Arg(4)->Arg(11)->Unit(benchmark::kMicrosecond)->UseRealTime();

// A record as the tracker makes it: 3 formats, a filled exponent histogram.
TensorRecord SampleRecord() {
  TensorRecord r;
  r.name = "fc2";
  r.role = Role::kActivationGrad;
  r.shape = {64, 128};
  r.stats.count = 64 * 128;
  r.stats.max_abs = 0.03f;
  for (int e = -30; e < -4; ++e) r.stats.exponent_hist[static_cast<size_t>(e - TensorStats::kMinExponent)] = 300;
  for (const char* f : {"e4m3fn", "e5m2", "bf16"}) {
    CastCounts c;
    c.numel = r.stats.count;
    c.underflow = 100;
    c.sq_error = 1e-6;
    c.sq_signal = 1.0;
    r.formats.push_back({f, "delayed16", 64.0f, c});
  }
  return r;
}

// streams: 0 no client; 1 a stream whose filter selects nothing; 2 a stream
// of the default fields; 3 a stream with the exponent histogram and ranges.
void BM_PublishRecord(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  live::AgentOptions o;
  o.client_queue_events = kBenchQueueEvents;
  o.client_queue_bytes = size_t{2} << 30;
  StatusOr<std::unique_ptr<live::Agent>> made = live::Agent::Start(o);
  if (!made.ok()) {
    state.SkipWithError(made.status().message().c_str());
    return;
  }
  live::Agent& agent = *made.value();
  std::unique_ptr<Reader> reader;
  if (mode > 0) {
    const char* queries[] = {"", R"({"tensor": "^no_such_tensor$"})", "{}",
                             R"({"fields": ["exp_hist", "range", "max_abs"]})"};
    reader = std::make_unique<Reader>(agent.url(), queries[mode], agent);
    if (!reader->subscribed()) state.SkipWithError("the stream did not open");
  }
  TensorRecord r = SampleRecord();
  for (auto _ : state) {
    agent.Publish(r);
    ++r.step;
  }
  state.SetItemsProcessed(state.iterations());
  const live::AgentStats st = agent.stats();
  if (st.dropped > 0) state.SkipWithError("the stream was dropped: not the cost of an active stream");
  const char* labels[] = {"no client", "1 stream, filtered out", "1 stream, default fields", "1 stream, histogram"};
  state.SetLabel(labels[mode]);
  state.counters["events"] = static_cast<double>(st.events);
  if (reader) reader->Stop();
  made.value().reset();
  reader.reset();
}
BENCHMARK(BM_PublishRecord)->ArgName("streams")->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kNanosecond);

// Keeps each benchmark's real and CPU time per iteration (ns) for the
// ratios. On a shared machine the CPU time of the measuring thread is the
// steadier figure; in the inline mode it holds all of a step's work.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Iteration || r.iterations == 0) continue;
      const double n = static_cast<double>(r.iterations);
      real_[r.benchmark_name()] = r.real_accumulated_time * 1e9 / n;
      cpu_[r.benchmark_name()] = r.cpu_accumulated_time * 1e9 / n;
    }
  }
  // -1 when the benchmark did not run (filtered out or skipped).
  double ns(const std::string& name, bool cpu = false) const {
    const auto& m = cpu ? cpu_ : real_;
    auto it = m.find(name);
    return it == m.end() ? -1 : it->second;
  }

 private:
  std::map<std::string, double> real_, cpu_;
};

void PrintRatios(const RatioReporter& rep) {
  std::printf("\nlive agent costs (ratios within this run; real time, then CPU time of the measuring thread):\n");
  for (bool cpu : {false, true}) {
    const char* clock = cpu ? "cpu" : "real";
    const double hooks_idle = rep.ns("BM_StepHooks/streams:0/real_time", cpu);
    const double hooks_one = rep.ns("BM_StepHooks/streams:1/real_time", cpu);
    auto step = [&](int background, int live) {
      return rep.ns("BM_TrackedStep/background:" + std::to_string(background) + "/live:" + std::to_string(live) +
                        "/real_time",
                    cpu);
    };
    for (int bg = 0; bg < 2; ++bg) {
      const double base = step(bg, 0);
      if (base <= 0) continue;
      const char* mode = bg ? "background" : "inline";
      if (hooks_idle > 0) {
        std::printf("  [%s] idle (no client): the hooks of one tracked step %.0f ns = %.4f%% of the %s tracked "
                    "step (%.0f us); goal <= 0.5%%\n",
                    clock, hooks_idle, 100 * hooks_idle / base, mode, base / 1e3);
      }
      if (step(bg, 1) > 0) {
        std::printf("  [%s] %s tracked step, agent with no client / no agent: %.3f (noise-bound)\n", clock, mode,
                    step(bg, 1) / base);
      }
      if (hooks_one > 0 && hooks_idle > 0) {
        std::printf("  [%s] one active stream (every record, default fields): +%.0f us per tracked step = %.1f%% "
                    "of the %s tracked step\n",
                    clock, (hooks_one - hooks_idle) / 1e3, 100 * (hooks_one - hooks_idle) / base, mode);
      }
      if (step(bg, 2) > 0) {
        std::printf("  [%s] %s tracked step, agent with 1 stream / no agent: %.3f\n", clock, mode, step(bg, 2) / base);
      }
      for (int targets : {1, 4, 11}) {
        const double judged =
            rep.ns("BM_PredictionJudges/targets:" + std::to_string(targets) + "/real_time", cpu);
        if (judged <= 0) continue;
        std::printf("  [%s] the prediction judged on %d target(s): %.0f us per tracked step = %.1f%% of the %s "
                    "tracked step\n",
                    clock, targets, judged / 1e3, 100 * judged / base, mode);
      }
    }
  }
}

}  // namespace
}  // namespace lpsim

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  lpsim::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  lpsim::PrintRatios(reporter);
  return 0;
}
