// Tracker: records equal the kernels' results on the same tensors, recipes
// keep their state, selection and sampling work, bad input is refused
// clearly, non-finite steps are skipped, simulate mode quantizes, and two
// ranks reduce into one record.
#include "tests/tracker/test_net.h"
#include "tracker/tracker.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "simd/analyze.h"
#include "simd/quantize.h"
#include "simd/scaling.h"
#include "store/run_db.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;

std::string TempRunDir(const std::string& tag) { return TestRunDir("tracker", tag); }

std::vector<TensorRecord> ReadAll(const std::string& run_dir, RecordFilter filter = {}) {
  StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(run_dir);
  EXPECT_TRUE(r.ok()) << r.status().message();
  StatusOr<std::vector<TensorRecord>> recs = r.value()->Records(filter);
  EXPECT_TRUE(recs.ok()) << recs.status().message();
  return recs.value();
}

const TensorRecord* Find(const std::vector<TensorRecord>& recs, const std::string& name, Role role,
                         int64_t step) {
  for (const TensorRecord& r : recs) {
    if (r.name == name && r.role == role && r.step == step) return &r;
  }
  return nullptr;
}

void ExpectSameCounts(const CastCounts& a, const CastCounts& b) {
  EXPECT_EQ(a.numel, b.numel);
  EXPECT_EQ(a.underflow, b.underflow);
  EXPECT_EQ(a.subnormal, b.subnormal);
  EXPECT_EQ(a.overflow, b.overflow);
  EXPECT_EQ(a.zero_in, b.zero_in);
  EXPECT_EQ(a.sq_error, b.sq_error);
  EXPECT_EQ(a.sq_signal, b.sq_signal);
}

void ExpectSameStats(const TensorStats& a, const TensorStats& b) {
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.zeros, b.zeros);
  EXPECT_EQ(a.exponent_hist, b.exponent_hist);
  EXPECT_EQ(a.log_hist, b.log_hist);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.std, b.std);
  EXPECT_EQ(a.max_abs, b.max_abs);
  EXPECT_EQ(a.min_abs, b.min_abs);
}

AnalyzeResult AnalyzeTensor(const torch::Tensor& t, const std::vector<FormatSlot>& slots) {
  torch::Tensor c = t.detach().contiguous();
  return simd::Analyze(c.data_ptr<float>(), static_cast<size_t>(c.numel()), slots);
}

TEST(Tracker, RecordsEqualTheKernelOnTheSameTensors) {
  torch::manual_seed(1);
  Net net;
  torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(1e-2));
  TrackerOptions o;
  o.formats = {"e4m3fn", "e5m2"};
  o.scaling = Scaling::None();
  o.run_dir = TempRunDir("equal");
  const std::vector<FormatSlot> slots = {{*ParseFormat("e4m3fn")}, {*ParseFormat("e5m2")}};
  torch::Tensor act, act_grad, w_grad, w_after;
  {
    Tracker tracker(net, opt, o);
    torch::Tensor x = torch::randn({32, 8});
    opt.zero_grad();
    torch::Tensor h = net.fc1->forward(x);
    act = h.detach().clone();
    h.register_hook([&](torch::Tensor g) { act_grad = g.clone(); });
    torch::Tensor y = tracker.tap("fc1", h, "Linear");
    torch::Tensor loss = torch::relu(y).pow(2).mean();
    loss.backward();
    w_grad = net.fc1->weight.grad().clone();
    StepResult r = tracker.step(loss);
    EXPECT_TRUE(r.applied);
    EXPECT_TRUE(r.tracked);
    w_after = net.fc1->weight.detach().clone();
  }
  std::vector<TensorRecord> recs = ReadAll(o.run_dir);
  struct Case { const char* name; Role role; torch::Tensor t; };
  for (const Case& c : {Case{"fc1", Role::kActivation, act}, Case{"fc1", Role::kActivationGrad, act_grad},
                        Case{"fc1.weight", Role::kWeightGrad, w_grad},
                        Case{"fc1.weight", Role::kWeight, w_after}}) {
    SCOPED_TRACE(std::string(c.name) + " " + ToString(c.role));
    const TensorRecord* rec = Find(recs, c.name, c.role, 0);
    ASSERT_NE(rec, nullptr);
    ASSERT_TRUE(c.t.defined());
    AnalyzeResult want = AnalyzeTensor(c.t, slots);
    ExpectSameStats(rec->stats, want.stats);
    ASSERT_EQ(rec->formats.size(), 2u);
    EXPECT_EQ(rec->formats[0].format, "e4m3fn");
    EXPECT_EQ(rec->formats[1].recipe, "none");
    for (size_t i = 0; i < 2; ++i) ExpectSameCounts(rec->formats[i].counts, want.formats[i]);
  }
  // Adam state is recorded under the parameter's name.
  EXPECT_NE(Find(recs, "fc1.weight.exp_avg", Role::kOptimizerState, 0), nullptr);
  EXPECT_NE(Find(recs, "fc1.weight.exp_avg_sq", Role::kOptimizerState, 0), nullptr);
  auto reader = RunReader::Open(o.run_dir);
  ASSERT_TRUE(reader.ok());
  auto loss = reader.value()->Scalars("loss");
  ASSERT_TRUE(loss.ok());
  EXPECT_EQ(loss.value().size(), 1u);
  auto ratio = reader.value()->Scalars("update_ratio/fc1.weight");
  ASSERT_TRUE(ratio.ok());
  ASSERT_EQ(ratio.value().size(), 1u);
  EXPECT_GT(ratio.value()[0].value, 0.0);
}

TEST(Tracker, DelayedScalingUsesThePreviousStepsAmax) {
  torch::manual_seed(2);
  Net net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  TrackerOptions o;
  o.formats = {"e4m3fn"};
  o.scaling = Scaling::Delayed(4);
  o.roles = Role::kWeight | Role::kOptimizerState;
  o.run_dir = TempRunDir("delayed");
  std::vector<float> amax;
  {
    Tracker tracker(net, opt, o);
    for (int s = 0; s < 3; ++s) {
      opt.zero_grad();
      torch::Tensor loss = net.forward(tracker, torch::randn({16, 8})).pow(2).mean();
      loss.backward();
      tracker.step(loss);
      amax.push_back(net.fc1->weight.abs().max().item<float>());
    }
  }
  std::vector<TensorRecord> recs = ReadAll(o.run_dir);
  const Format f = *ParseFormat("e4m3fn");
  const TensorRecord* r0 = Find(recs, "fc1.weight", Role::kWeight, 0);
  const TensorRecord* r2 = Find(recs, "fc1.weight", Role::kWeight, 2);
  ASSERT_NE(r0, nullptr);
  ASSERT_NE(r2, nullptr);
  EXPECT_EQ(r0->formats[0].scale, 1.0f);  // no history yet
  EXPECT_EQ(r0->formats[0].recipe, "delayed4");
  // Step 2 uses max(amax of steps 0, 1).
  EXPECT_EQ(r2->formats[0].scale, CurrentScale(f, std::max(amax[0], amax[1])));
  // Roles outside the set are not recorded; SGD momentum is.
  EXPECT_EQ(Find(recs, "fc1", Role::kActivation, 0), nullptr);
  EXPECT_NE(Find(recs, "fc1.weight.momentum_buffer", Role::kOptimizerState, 1), nullptr);
}

TEST(Tracker, TrackedSequentialIncludeExcludeAndEvery) {
  torch::manual_seed(3);
  TrackedSequential model(torch::OrderedDict<std::string, torch::nn::AnyModule>{
      {"fc1", torch::nn::AnyModule(torch::nn::Linear(8, 8))},
      {"act", torch::nn::AnyModule(torch::nn::Tanh())},
      {"fc2", torch::nn::AnyModule(torch::nn::Linear(8, 2))}});
  torch::optim::Adam opt(model->parameters());
  TrackerOptions o;
  o.formats = {"bf16"};
  o.include = "fc|act";
  o.exclude = "bias";
  o.every = 2;
  o.run_dir = TempRunDir("seq");
  {
    Tracker tracker(*model, opt, o);
    for (int s = 0; s < 4; ++s) {
      opt.zero_grad();
      torch::Tensor loss = model->forward(torch::randn({4, 8})).sum();
      loss.backward();
      tracker.step(loss);
    }
  }
  std::vector<TensorRecord> recs = ReadAll(o.run_dir);
  const TensorRecord* act = Find(recs, "act", Role::kActivation, 2);
  ASSERT_NE(act, nullptr);
  EXPECT_EQ(act->module_type, "Tanh");
  EXPECT_NE(Find(recs, "fc2", Role::kActivationGrad, 0), nullptr);
  for (const TensorRecord& r : recs) {
    EXPECT_EQ(r.step % 2, 0) << r.name;
    EXPECT_EQ(r.name.find("bias"), std::string::npos) << r.name;
  }
  auto loss = RunReader::Open(o.run_dir).value()->Scalars("loss");
  EXPECT_EQ(loss.value().size(), 4u);  // the loss is kept every step
}

// The background analyzer thread stores exactly what inline analysis
// stores: the same records (delayed-scaling state included), scalars and
// findings, step by step.
TEST(Tracker, BackgroundAnalysisStoresWhatInlineStores) {
  auto train = [](bool background, const std::string& tag) {
    torch::manual_seed(3);
    Net net;
    torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(0.05));
    TrackerOptions o;
    o.run_dir = TempRunDir(tag);
    o.background = background;
    o.every = 2;
    Tracker tracker(net, opt, o);
    for (int step = 0; step < 12; ++step) {
      opt.zero_grad();
      torch::Tensor x = torch::randn({16, 8});
      torch::Tensor loss = net.forward(tracker, x).pow(2).mean();
      loss.backward();
      tracker.step(loss);
    }
    std::vector<Finding> findings = tracker.findings();
    EXPECT_TRUE(tracker.Close().ok());
    return std::make_pair(o.run_dir, findings);
  };
  const auto [inline_dir, inline_findings] = train(false, "inline");
  const auto [bg_dir, bg_findings] = train(true, "background");
  const std::vector<TensorRecord> a = ReadAll(inline_dir), b = ReadAll(bg_dir);
  ASSERT_GT(a.size(), 0u);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].name + " step " + std::to_string(a[i].step));
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].role, b[i].role);
    EXPECT_EQ(a[i].step, b[i].step);
    ExpectSameStats(a[i].stats, b[i].stats);
    ASSERT_EQ(a[i].formats.size(), b[i].formats.size());
    for (size_t f = 0; f < a[i].formats.size(); ++f) {
      EXPECT_EQ(a[i].formats[f].scale, b[i].formats[f].scale);
      ExpectSameCounts(a[i].formats[f].counts, b[i].formats[f].counts);
    }
  }
  ASSERT_EQ(inline_findings.size(), bg_findings.size());
  for (size_t i = 0; i < inline_findings.size(); ++i) {
    EXPECT_EQ(inline_findings[i].rule, bg_findings[i].rule);
    EXPECT_EQ(inline_findings[i].step, bg_findings[i].step);
    EXPECT_EQ(inline_findings[i].tensor, bg_findings[i].tensor);
  }
  auto scalars = [](const std::string& dir) {
    return RunReader::Open(dir).value()->Scalars().value();
  };
  const auto sa = scalars(inline_dir), sb = scalars(bg_dir);
  ASSERT_EQ(sa.size(), sb.size());
  for (size_t i = 0; i < sa.size(); ++i) {
    EXPECT_EQ(sa[i].name, sb[i].name);
    EXPECT_EQ(sa[i].value, sb[i].value);
  }
}

TEST(Tracker, BadOptionsFailAtConstructionWithAClearMessage) {
  Net net;
  torch::optim::Adam opt(net.parameters());
  auto message = [&](TrackerOptions o) -> std::string {
    try {
      Tracker t(net, opt, o);
    } catch (const TrackerError& e) {
      return e.what();
    }
    return "";
  };
  TrackerOptions o;
  o.run_dir = TempRunDir("bad");
  o.include = "fc(";
  EXPECT_NE(message(o).find("not a valid regex"), std::string::npos);
  o.include = "";
  o.formats = {"e4m3fn", "e9m9"};
  EXPECT_NE(message(o).find("invalid format spec 'e9m9'"), std::string::npos);
  o.formats = {"e4m3fn"};
  o.every = 0;
  EXPECT_NE(message(o).find("every"), std::string::npos);
  o.every = 1;
  { Tracker ok(net, opt, o); }  // creates the run
  EXPECT_NE(message(o).find(o.run_dir), std::string::npos);  // refuses to overwrite it
  o.overwrite = true;
  EXPECT_EQ(message(o), "");
  auto made = Tracker::Create(net, opt, [&] { TrackerOptions b = o; b.formats = {"nope"}; return b; }());
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("nope"), std::string::npos);
}

TEST(Tracker, NonFloatTensorsAreNotedNotFatal) {
  Net net;
  torch::optim::Adam opt(net.parameters());
  TrackerOptions o;
  o.run_dir = TempRunDir("note");
  Tracker tracker(net, opt, o);
  torch::Tensor ids = torch::arange(10);
  EXPECT_TRUE(tracker.tap("ids", ids).equal(ids));
  ASSERT_EQ(tracker.notes().size(), 1u);
  EXPECT_NE(tracker.notes()[0].find("dtype"), std::string::npos);
}

TEST(Tracker, NonFiniteGradientSkipsTheUpdate) {
  Net net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.1));
  TrackerOptions o;
  o.run_dir = TempRunDir("nan");
  Tracker tracker(net, opt, o);
  opt.zero_grad();
  torch::Tensor loss = net.forward(tracker, torch::randn({4, 8})).sum();
  loss.backward();
  net.fc2->weight.mutable_grad()[0][0] = std::nanf("");
  const torch::Tensor before = net.fc1->weight.detach().clone();
  StepResult r = tracker.step(loss);
  EXPECT_FALSE(r.applied);
  EXPECT_NE(r.reason.find("fc2.weight"), std::string::npos);
  EXPECT_TRUE(net.fc1->weight.equal(before));
  EXPECT_TRUE(tracker.Close().ok());
  auto findings = RunReader::Open(o.run_dir).value()->Findings();
  ASSERT_TRUE(findings.ok());
  bool found = false;
  for (const Finding& f : findings.value()) found |= f.rule == "nonfinite_update_skipped";
  EXPECT_TRUE(found);
}

TEST(Tracker, SimulateModeQuantizesWeightsAndKeepsMasters) {
  torch::manual_seed(4);
  Net net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.01));
  TrackerOptions o;
  o.run_dir = TempRunDir("sim");
  o.simulate = true;
  o.simulate_forward = "e2m1fn";
  o.scaling = Scaling::Current();
  const torch::Tensor master0 = net.fc1->weight.detach().clone();
  Tracker tracker(net, opt, o);
  // Forward sees fp4 weights: with a per-tensor current scale s each value
  // times s is one of e2m1's 8 magnitudes.
  const Format fp4 = *ParseFormat("e2m1fn");
  const float s = CurrentScale(fp4, master0.abs().max().item<float>());
  torch::Tensor w = net.fc1->weight.detach().contiguous();
  for (int64_t i = 0; i < w.numel(); ++i) {
    const float v = w.data_ptr<float>()[i] * s;
    const float back = DecodeRef(fp4, EncodeRef(fp4, v, Rounding::kNearestEven, 0).code);
    ASSERT_EQ(v, back) << i;
  }
  EXPECT_FALSE(w.equal(master0));
  // The update applies to the fp32 master: after one step the stored weights
  // are the quantized image of (master0 - lr * grad).
  opt.zero_grad();
  torch::Tensor x = torch::randn({8, 8});
  torch::Tensor loss = net.forward(tracker, x).pow(2).mean();
  loss.backward();
  const torch::Tensor g = net.fc1->weight.grad().detach().clone();
  tracker.step(loss);
  EXPECT_GT((net.fc1->weight - (master0 - 0.01 * g)).abs().max().item<float>(), 0.0f);
  EXPECT_LT((net.fc1->weight - (master0 - 0.01 * g)).abs().max().item<float>(),
            (master0 - 0.01 * g).abs().max().item<float>() / 2);
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

// One rank of the two-rank run: each rank taps its half of one tensor.
int RunRank(int rank, int port, const std::string& run_dir, const torch::Tensor& full) {
  c10d::TCPStoreOptions so;
  so.port = static_cast<uint16_t>(port);
  so.isServer = rank == 0;
  so.numWorkers = 2;
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", so);
  auto go = c10d::ProcessGroupGloo::Options::create();
  go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, 2, go);
  torch::manual_seed(5);  // same model on both ranks
  Net net;
  torch::optim::Adam opt(net.parameters());
  TrackerOptions o;
  o.formats = {"e4m3fn", "e5m2"};
  o.scaling = Scaling::Current();
  o.roles = Role::kActivation;
  o.run_dir = run_dir;
  o.process_group = pg;
  Tracker tracker(net, opt, o);
  torch::Tensor half = full.chunk(2, 0)[rank].clone();
  tracker.tap("x", half);
  tracker.step(torch::zeros({}));
  EXPECT_TRUE(tracker.Close().ok());
  return 0;
}

TEST(Tracker, TwoRanksRecordTheReducedTensorOnRankZero) {
  torch::manual_seed(6);
  torch::Tensor full = torch::randn({64, 32}) * torch::exp(4 * torch::randn({64, 32}));
  full[3][3] = 0.0f;
  const std::string run_dir = TempRunDir("dist");
  const int port = FreePort();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int rc = 1;
    try {
      rc = RunRank(1, port, run_dir + "_rank1", full);
    } catch (...) {
    }
    ::_exit(rc);
  }
  RunRank(0, port, run_dir, full);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(fs::exists(run_dir + "_rank1/run.db"));  // only rank 0 records

  std::vector<TensorRecord> recs = ReadAll(run_dir);
  const TensorRecord* rec = Find(recs, "x", Role::kActivation, 0);
  ASSERT_NE(rec, nullptr);
  const float amax = full.abs().max().item<float>();
  std::vector<FormatSlot> slots;
  for (const char* name : {"e4m3fn", "e5m2"}) {
    const Format f = *ParseFormat(name);
    slots.push_back({f, CurrentScale(f, amax)});
  }
  AnalyzeResult want = AnalyzeTensor(full, slots);
  EXPECT_EQ(rec->stats.count, want.stats.count);
  EXPECT_EQ(rec->stats.zeros, want.stats.zeros);
  EXPECT_EQ(rec->stats.exponent_hist, want.stats.exponent_hist);
  EXPECT_EQ(rec->stats.log_hist, want.stats.log_hist);
  EXPECT_EQ(rec->stats.max_abs, want.stats.max_abs);
  EXPECT_EQ(rec->stats.min_abs, want.stats.min_abs);
  constexpr double kMomentRelTol = 1e-12;  // exact up to the combination's roundings
  EXPECT_NEAR(rec->stats.mean, want.stats.mean, kMomentRelTol * want.stats.rms);
  EXPECT_NEAR(rec->stats.std, want.stats.std, kMomentRelTol * want.stats.std);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(rec->formats[i].scale, slots[i].scale);
    EXPECT_EQ(rec->formats[i].counts.underflow, want.formats[i].underflow);
    EXPECT_EQ(rec->formats[i].counts.overflow, want.formats[i].overflow);
    EXPECT_EQ(rec->formats[i].counts.subnormal, want.formats[i].subnormal);
    EXPECT_NEAR(rec->formats[i].counts.sq_error, want.formats[i].sq_error,
                kMomentRelTol * want.formats[i].sq_error);
  }
}

}  // namespace
}  // namespace lpsim
