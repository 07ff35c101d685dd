// The tracker with a live agent (TrackerOptions::live_port), over real
// sockets on 127.0.0.1: the URL is announced, a client receives the records
// of the steps as they train, the tracker's knobs (every, paused, formats)
// change what is recorded from the step after the command and each command
// is kept in the run, a port in use fails before any run is opened, and the
// job keeps its break prediction on each target as the stored run gives it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "live/agent.h"
#include "live/client.h"
#include "report/stored_check.h"
#include "simd/analyze.h"
#include "store/run_db.h"
#include "tracker/live_wiring.h"
#include "tests/tracker/test_net.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Every wait in these tests ends; the machine may be busy.
constexpr auto kDeadline = std::chrono::seconds(60);

std::string TempRunDir(const std::string& tag) { return TestRunDir("live_tracker", tag); }

class Job {
 public:
  explicit Job(TrackerOptions o) : optimizer_(net_.parameters(), torch::optim::SGDOptions(0.01)) {
    torch::manual_seed(0);
    StatusOr<std::unique_ptr<Tracker>> t = Tracker::Create(net_, optimizer_, std::move(o));
    status_ = t.status();
    if (t.ok()) tracker_ = std::move(t).value();
  }
  const Status& status() const { return status_; }
  Tracker& tracker() { return *tracker_; }
  void Step() {
    optimizer_.zero_grad();
    torch::Tensor x = torch::randn({4, 8});
    torch::Tensor loss = net_.forward(*tracker_, x).pow(2).mean();
    loss.backward();
    tracker_->step(loss);
  }
  // Sends a knob command from another thread while the job trains (the
  // command is applied at a step's end, so the POST waits for one).
  live::Reply Command(const std::string& knob, const Json& value) {
    const live::Endpoint e = live::ParseUrl(tracker_->live_url()).value();
    std::future<StatusOr<live::Reply>> reply = std::async(std::launch::async, [e, knob, value] {
      return live::PostJson(e, "/api/knobs/" + knob, {{"value", value}}, 60);
    });
    const auto end = Clock::now() + kDeadline;
    while (reply.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready && Clock::now() < end) Step();
    StatusOr<live::Reply> r = reply.get();
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r.value() : live::Reply{};
  }

 private:
  Net net_;
  torch::optim::SGD optimizer_;
  Status status_;
  std::unique_ptr<Tracker> tracker_;
};

TrackerOptions LiveOptions(const std::string& dir) {
  TrackerOptions o;
  o.formats = {"e4m3fn", "e5m2"};
  o.run_dir = dir;
  o.live_port = 0;
  return o;
}

TEST(TrackerLive, OffByDefault) {
  const std::string dir = TempRunDir("off");
  TrackerOptions o = LiveOptions(dir);
  o.live_port = -1;
  Job job(o);
  ASSERT_TRUE(job.status().ok()) << job.status().message();
  EXPECT_EQ(job.tracker().live_agent(), nullptr);
  EXPECT_EQ(job.tracker().live_url(), "");
  job.Step();
  EXPECT_FALSE(fs::exists(fs::path(dir) / "live.url"));
  fs::remove_all(dir);
}

TEST(TrackerLive, ClientsSeeTheStepsAsTheyTrain) {
  const std::string dir = TempRunDir("stream");
  Job job(LiveOptions(dir));
  ASSERT_TRUE(job.status().ok()) << job.status().message();
  const std::string url = job.tracker().live_url();
  ASSERT_FALSE(url.empty());
  std::ifstream in(fs::path(dir) / "live.url");
  std::string announced;
  std::getline(in, announced);
  EXPECT_EQ(announced, url);

  const live::Endpoint e = live::ParseUrl(url).value();
  live::Agent* agent = job.tracker().live_agent();
  ASSERT_NE(agent, nullptr);
  constexpr size_t kWant = 4;
  std::future<std::vector<Json>> events = std::async(std::launch::async, [e] {
    std::vector<Json> got;
    const auto end = Clock::now() + kDeadline;
    Status s = live::Watch(
        e, R"({"tensor": "^fc1$", "role": "activation", "format": "e5m2", "fields": ["underflow_pct", "max_abs"]})",
        [&](const Json& ev) {
          got.push_back(ev);
          return got.size() < kWant;
        },
        [&] { return Clock::now() < end; });
    EXPECT_TRUE(s.ok()) << s.message();
    return got;
  });
  const auto end = Clock::now() + kDeadline;
  while (agent->stats().clients == 0 && Clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_EQ(agent->stats().clients, 1);
  const int64_t first = job.tracker().current_step();
  while (events.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready && Clock::now() < end) job.Step();
  const std::vector<Json> got = events.get();
  ASSERT_EQ(got.size(), kWant);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i]["tensor"], "fc1");
    EXPECT_EQ(got[i]["format"], "e5m2");
    EXPECT_EQ(got[i]["step"].get<int64_t>(), first + static_cast<int64_t>(i)) << got[i];
    EXPECT_GT(got[i]["max_abs"].get<double>(), 0.0);
  }
  // The job listing knows the step and the tracker's knobs. The analyzer
  // thread (background mode) publishes a step's end after its records, so
  // the last step's end may still be on its way.
  const int64_t last = first + static_cast<int64_t>(kWant) - 1;
  auto reached = [&](const StatusOr<live::Reply>& r) {
    return r.ok() && r->body["step"].is_number_integer() && r->body["step"].get<int64_t>() >= last;
  };
  StatusOr<live::Reply> j = live::GetJson(e, "/api/job");
  while (j.ok() && !reached(j) && Clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    j = live::GetJson(e, "/api/job");
  }
  ASSERT_TRUE(j.ok());
  EXPECT_TRUE(reached(j)) << "step " << j->body["step"] << ", expected at least " << last;
  std::vector<std::string> knobs;
  for (const Json& k : j->body["knobs"]) knobs.push_back(k["name"]);
  EXPECT_EQ(knobs, (std::vector<std::string>{"every", "paused", "formats"}));
  EXPECT_EQ(j->body["info"]["status"], "running");
  ASSERT_TRUE(job.tracker().Close().ok());
  j = live::GetJson(e, "/api/job");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->body["info"]["status"], "finished");
  fs::remove_all(dir);
}

// Each knob changes the records from the step after its command, and every
// command (applied or refused) is a "live_knob" finding in the run.
TEST(TrackerLive, KnobsChangeWhatIsRecordedAndAreKept) {
  const std::string dir = TempRunDir("knobs");
  TrackerOptions o = LiveOptions(dir);
  o.formats = {"e4m3fn", "e5m2", "bf16"};
  Job job(o);
  ASSERT_TRUE(job.status().ok()) << job.status().message();
  for (int i = 0; i < 2; ++i) job.Step();

  live::Reply r = job.Command("every", 3);
  ASSERT_EQ(r.status, 200) << r.body;
  const int64_t every_from = r.body["step"].get<int64_t>();
  while (job.tracker().current_step() < every_from + 7) job.Step();

  r = job.Command("paused", true);
  ASSERT_EQ(r.status, 200) << r.body;
  const int64_t paused_from = r.body["step"].get<int64_t>();
  EXPECT_FALSE(job.tracker().tracking_now());
  while (job.tracker().current_step() < paused_from + 4) job.Step();
  r = job.Command("paused", false);
  ASSERT_EQ(r.status, 200) << r.body;
  const int64_t resumed = r.body["step"].get<int64_t>();

  r = job.Command("formats", "e4m3fn,nonsense");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_NE(r.body.value("error", "").find("formats: "), std::string::npos) << r.body;
  // The rules judge activations in e4m3fn and gradients in e5m2 (the
  // default TrackerOptions::judge): dropping one is refused, dropping bf16 is not.
  r = job.Command("formats", Json::array({"bf16"}));
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_NE(r.body.value("error", "").find("TrackerOptions.judge"), std::string::npos) << r.body;
  r = job.Command("formats", Json::array({"e4m3fn", "e5m2"}));
  ASSERT_EQ(r.status, 200) << r.body;
  const int64_t narrowed_from = r.body["step"].get<int64_t>();
  while (job.tracker().current_step() < narrowed_from + 6) job.Step();
  const int64_t end = job.tracker().current_step();
  ASSERT_TRUE(job.tracker().Close().ok());

  std::unique_ptr<RunReader> reader = RunReader::Open(dir).value();
  RecordFilter f;
  f.name = "fc1";
  f.role = Role::kActivation;
  std::vector<int64_t> steps;
  const std::vector<TensorRecord> records = reader->Records(f).value();
  for (const TensorRecord& rec : records) {
    steps.push_back(rec.step);
    std::vector<std::string> formats;
    for (const FormatRecord& fr : rec.formats) formats.push_back(fr.format);
    if (rec.step >= narrowed_from) {
      EXPECT_EQ(formats, (std::vector<std::string>{"e4m3fn", "e5m2"})) << "step " << rec.step;
    } else {
      EXPECT_EQ(formats, (std::vector<std::string>{"e4m3fn", "e5m2", "bf16"})) << "step " << rec.step;
    }
  }
  std::vector<int64_t> want;
  for (int64_t s = 0; s < end; ++s) {
    const bool every = s < every_from || s % 3 == 0;
    const bool paused = s >= paused_from && s < resumed;
    if (every && !paused) want.push_back(s);
  }
  EXPECT_EQ(steps, want);

  std::vector<const Finding*> knob_findings;
  const std::vector<Finding> findings = reader->Findings().value();
  for (const Finding& fd : findings) {
    if (fd.rule == "live_knob") knob_findings.push_back(&fd);
  }
  ASSERT_EQ(knob_findings.size(), 6u);
  const int64_t applied_at[] = {every_from, paused_from, resumed, -1, -1, narrowed_from};
  for (size_t i = 0; i < 6; ++i) {
    const Finding& fd = *knob_findings[i];
    EXPECT_EQ(fd.severity, Severity::kInfo);
    if (applied_at[i] < 0) {  // the refused formats
      EXPECT_EQ(fd.evidence.at("applied"), 0.0);
      EXPECT_GT(fd.step, resumed);
      EXPECT_LT(fd.step, narrowed_from);
      EXPECT_NE(fd.message.find("refused"), std::string::npos) << fd.message;
      continue;
    }
    EXPECT_EQ(fd.evidence.at("applied"), 1.0) << fd.message;
    EXPECT_EQ(fd.step, applied_at[i]) << fd.message;
  }
  const std::vector<ScalarRecord> every = reader->Scalars("knob/every").value();
  ASSERT_EQ(every.size(), 1u);
  EXPECT_EQ(every[0].step, every_from);
  EXPECT_EQ(every[0].value, 3.0);
  fs::remove_all(dir);
}

// With a target (not simulated), GET /api/job's info.predictions holds the
// break prediction so far on it and on each probe target, each judged as
// `lpsim check RUN --target T` (PredictBreak) judges the stored run: the
// records in the target's formats, block floating point included, and the
// target's own probes and rollouts. Its loss scaled by 2^-40, every gradient
// is far below fp16's smallest subnormal, so on fp16-npu-ftz, a probe target
// only, the training breaks, first on a record (its gradients flush).
TEST(TrackerLive, PredictsTheBreakOnItsTargetsAsTheStoredRunIsJudged) {
  const std::string dir = TempRunDir("predict");
  torch::manual_seed(0);
  Net net;
  torch::optim::SGD optimizer(net.parameters(), torch::optim::SGDOptions(0.01));
  const torch::Tensor x = torch::randn({4, 8});
  Tracker* tracker = nullptr;
  auto loss_of = [&] { return net.forward(*tracker, x).pow(2).mean() * std::ldexp(1.0, -40); };
  TrackerOptions o = LiveOptions(dir);
  o.target = "tenstorrent-bfp4";
  o.probe_targets = {"fp16-npu-ftz", "tenstorrent-bfp4", "h100-fp8-current"};
  o.probe_every = 2;
  o.probe = loss_of;
  StatusOr<std::unique_ptr<Tracker>> made = Tracker::Create(net, optimizer, o);
  ASSERT_TRUE(made.ok()) << made.status().message();
  tracker = made->get();
  const live::Endpoint e = live::ParseUrl(tracker->live_url()).value();
  StatusOr<live::Reply> before = live::GetJson(e, "/api/job");
  ASSERT_TRUE(before.ok());
  for (const Json& p : before->body["info"]["predictions"]) EXPECT_FALSE(p["breaks"].get<bool>()) << p;
  for (int step = 0; step < 8; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = loss_of();
    loss.backward();
    tracker->step(loss);
  }
  ASSERT_TRUE(tracker->Close().ok());
  StatusOr<live::Reply> j = live::GetJson(e, "/api/job");
  ASSERT_TRUE(j.ok());
  const Json& p = j->body["info"]["predictions"];
  ASSERT_EQ(p.size(), 3u) << p;
  EXPECT_EQ(p[0]["target"], "tenstorrent-bfp4");  // the run's target first, probed too
  EXPECT_EQ(p[1]["target"], "fp16-npu-ftz");
  EXPECT_EQ(p[2]["target"], "h100-fp8-current");
  for (const Json& one : p) EXPECT_TRUE(one["probed"].get<bool>()) << one;
  ASSERT_TRUE(p[1]["breaks"].get<bool>()) << p[1];
  EXPECT_EQ(ProbedTargetOf(p[1]["tensor"].get<std::string>()), "") << "a record's sign: " << p[1];

  StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(dir);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  for (Json live : p) {
    const std::string target = live["target"].get<std::string>();
    StatusOr<BreakPrediction> stored = PredictBreak(**reader, FindTarget(target).value());
    ASSERT_TRUE(stored.ok()) << stored.status().message();
    live.erase("target");
    EXPECT_EQ(live, Json(PredictionJson(target, *stored, /*so_far=*/true))) << target;
  }
  fs::remove_all(dir);
}

// A port in use fails the tracker before its run is opened: no run is left.
TEST(TrackerLive, BusyPortLeavesNoRun) {
  StatusOr<std::unique_ptr<live::Agent>> other = live::Agent::Start({});
  ASSERT_TRUE(other.ok()) << other.status().message();
  const std::string dir = TempRunDir("busy");
  TrackerOptions o = LiveOptions(dir);
  o.live_port = other.value()->port();
  Job job(o);
  ASSERT_FALSE(job.status().ok());
  EXPECT_NE(job.status().message().find("TrackerOptions.live_port"), std::string::npos) << job.status().message();
  EXPECT_FALSE(fs::exists(fs::path(dir) / "run.db"));
}

// The formats knob's checks.
TEST(TrackerLive, FormatsKnobIsChecked) {
  EXPECT_TRUE(ParseLiveFormats(Json::array({"e4m3fn", "e3m2:bias=3"}), {}).ok());
  EXPECT_FALSE(ParseLiveFormats(Json::array(), {}).ok());
  EXPECT_FALSE(ParseLiveFormats(Json::array({1}), {}).ok());
  Json many = Json::array();
  for (size_t i = 0; i <= kMaxAnalyzeFormats; ++i) many.push_back("e4m3fn");
  EXPECT_FALSE(ParseLiveFormats(many, {}).ok());
  const std::map<Role, std::string> judge = JudgeFormats::HybridFp8().formats;
  StatusOr<std::vector<Format>> kept = ParseLiveFormats(Json::array({"bf16"}), judge);
  ASSERT_FALSE(kept.ok());
  EXPECT_NE(kept.status().message().find("judge"), std::string::npos) << kept.status().message();
  EXPECT_TRUE(ParseLiveFormats(Json::array({"e4m3fn", "e5m2", "bf16"}), judge).ok());
}

}  // namespace
}  // namespace lpsim
