// `lpsim recommend`, `lpsim report` and `lpsim analyze` end to end, and their
// answers to bad input: a missing or corrupt run database, an unknown format
// (exit 2 with a message naming the problem).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/recommend.h"
#include "simd/analyze.h"
#include "simd/scaling.h"
#include "store/npy.h"
#include "store/run_db.h"
#include "tests/common/run_command.h"

#ifndef LPSIM_CMAKE
#error "LPSIM_CMAKE, LPSIM_BUILD_DIR and LPSIM_WEB_SOURCE come from tests/report/CMakeLists.txt"
#endif

#ifndef LPSIM_BIN
#error "LPSIM_BIN must name the lpsim binary (tests/report/CMakeLists.txt)"
#endif

namespace lpsim {
namespace {

using Result = CommandResult;

// stdout and stderr together.
Result Lpsim(const std::string& args) { return RunCommand(std::string(LPSIM_BIN) + " " + args + " 2>&1"); }

class ReportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "lpsim_report_cli_XXXXXX";
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // One activation gradient 'fc1' over three steps, spanning 2^-23..5
  // times 2^shift.
  std::string WriteRun(int shift = 0) {
    const std::string run = dir_ + "/run";
    auto w = RunWriter::Open(run, "cli", "{}").value();
    for (int s = 0; s < 3; ++s) {
      std::vector<float> x(512);
      for (size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(1.0f + i % 5, shift - int(i % 24));
      const Format e4 = ParseFormat("e4m3fn").value();
      AnalyzeResult a = simd::Analyze(x.data(), x.size(), {{e4, 1.0f}});
      TensorRecord r;
      r.step = s;
      r.name = "fc1";
      r.role = Role::kActivationGrad;
      r.stats = a.stats;
      r.formats.push_back({"e4m3fn", "none", 1.0f, a.formats[0]});
      EXPECT_TRUE(w->Add(r).ok());
      EXPECT_TRUE(w->Add(ScalarRecord{s, "loss", 1.0 / (s + 1)}).ok());
      EXPECT_TRUE(w->EndStep(s).ok());
    }
    EXPECT_TRUE(w->Close(Status()).ok());
    return run;
  }

  std::string dir_;
};

TEST_F(ReportCliTest, RecommendPrintsNumbersAndReasons) {
  const std::string run = WriteRun();
  Result r = Lpsim("recommend " + run);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("activation_grad"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Why:"), std::string::npos) << r.out;
  r = Lpsim("recommend " + run + " --json --formats e4m3fn,e5m2 --min-snr 10");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["budgets"]["min_snr_db"], 10.0);
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][1]["layer"], "fc1");
  EXPECT_FALSE(j["rows"][1]["candidates"].empty());
}

// Two targets on one run: the activation gradient spans 2^-23..5; H100's
// e5m2 with delayed scaling holds all of it, NVFP4's 1x16 e2m1 blocks lose
// the small values (underflow far above the 0.1 % budget).
TEST_F(ReportCliTest, RecommendComparesTargetsPerLayer) {
  const std::string run = WriteRun();
  Result r = Lpsim("recommend " + run + " --targets h100-fp8-delayed,b200-nvfp4 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 1u);
  const nlohmann::json& t = j["rows"][0]["targets"];
  EXPECT_EQ(j["rows"][0]["layer"], "fc1");
  EXPECT_EQ(t["h100-fp8-delayed"]["format"], "e5m2:sat");
  EXPECT_EQ(t["h100-fp8-delayed"]["underflow"]["upper"], 0);
  EXPECT_EQ(t["h100-fp8-delayed"]["overflow"]["upper"], 0);
  EXPECT_EQ(t["b200-nvfp4"]["scaling"], "nvfp4");
  const auto& over = t["b200-nvfp4"]["over_budget"];
  EXPECT_NE(std::find(over.begin(), over.end(), "underflow"), over.end()) << over;
  EXPECT_EQ(j["targets"][1]["layers_over_budget"], 1);
  // Over a budget is not a training that breaks: the low-precision rules
  // (lp_underflow needs the flush to cost half the gradient's energy) find
  // no sign on either target.
  EXPECT_EQ(j["targets"][1]["prediction"]["breaks"], false);
  EXPECT_TRUE(j["targets"][1]["prediction"]["step"].is_null());

  r = Lpsim("recommend " + run + " --targets h100-fp8-delayed,b200-nvfp4,int8-npu");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("OVER(underflow"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on b200-nvfp4 it trains as in fp32 (no low-precision warning or error); judged "
                       "without probes of b200-nvfp4"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("lpsim validate counts; 1 of 1 tensors over the budgets"), std::string::npos) << r.out;

  r = Lpsim("recommend " + run + " --targets h100-fp8-delayed,nope");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--targets: unknown target 'nope'"), std::string::npos) << r.out;
}

// The verdict per target is the break prediction: a gradient 2^-40 small
// flushes whole on an fp16 NPU that flushes subnormals and has no loss
// scaling (lp_underflow at the second step, its two in a row), while H100's e5m2 with
// delayed scaling scales it into range. `lpsim check --target` says the same.
TEST_F(ReportCliTest, RecommendAndCheckPredictPerTarget) {
  const std::string run = WriteRun(-40);
  Result r = Lpsim("recommend " + run + " --targets fp16-npu-ftz,h100-fp8-delayed --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& ftz = j["targets"][0]["prediction"];
  EXPECT_EQ(j["targets"][0]["name"], "fp16-npu-ftz");
  EXPECT_EQ(ftz["breaks"], true);
  EXPECT_EQ(ftz["step"], 1);
  EXPECT_EQ(ftz["rule"], "lp_underflow");
  EXPECT_EQ(ftz["tensor"], "fc1");
  EXPECT_EQ(ftz["probed"], false);  // the run has no probes or rollouts of it
  EXPECT_EQ(j["targets"][1]["prediction"]["breaks"], false);
  r = Lpsim("recommend " + run + " --targets fp16-npu-ftz,h100-fp8-delayed");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("  on fp16-npu-ftz the training breaks, first sign at step 1 (lp_underflow on 'fc1'); "
                       "judged without probes of fp16-npu-ftz"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 of 1 tensors over the budgets\n  on h100-fp8-delayed it trains as in fp32"),
            std::string::npos)
      << r.out;
  for (const std::string target : {"fp16-npu-ftz", "h100-fp8-delayed"}) {
    SCOPED_TRACE(target);
    r = Lpsim("check " + run + " --target " + target + " --json");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)["prediction"], target == "fp16-npu-ftz" ? ftz : j["targets"][1]["prediction"]);
  }
  r = Lpsim("check " + run + " --target fp16-npu-ftz");
  EXPECT_EQ(r.out.rfind("Prediction: on fp16-npu-ftz the training breaks, first sign at step 1 (lp_underflow on "
                        "'fc1'); judged without probes of fp16-npu-ftz",
                        0),
            0u)
      << r.out;
  // Without a target there is no prediction (the run's own formats are not
  // a hardware's).
  r = Lpsim("check " + run + " --json");
  EXPECT_FALSE(nlohmann::json::parse(r.out).contains("prediction")) << r.out;
}

// On an inference-only target (int8-npu) the prediction reads the forward
// pass alone: a run whose rollouts on the target lose everything while its
// forward probes cost nothing breaks on a target that trains and runs as in
// fp32 for inference.
TEST_F(ReportCliTest, AnInferenceOnlyTargetIsJudgedByItsForwardPass) {
  for (const std::string target : {"int8-npu", "h100-fp8-current"}) {
    SCOPED_TRACE(target);
    const std::string run = dir_ + "/probed_" + target;
    auto w = RunWriter::Open(run, "cli", "{}").value();
    for (int s = 0; s < 64; ++s) {
      const double loss = 2 * std::exp(-s / 10.0);
      EXPECT_TRUE(w->Add(ScalarRecord{s, "loss", loss}).ok());
      if (s % 8 == 0) {
        EXPECT_TRUE(w->Add(ScalarRecord{s, "probe_loss", loss}).ok());
        EXPECT_TRUE(w->Add(ScalarRecord{s, "probe_loss:" + target, loss}).ok());
      }
      if (s % 16 == 0) {
        EXPECT_TRUE(w->Add(ScalarRecord{s, "rollout_loss", loss / 2}).ok());
        EXPECT_TRUE(w->Add(ScalarRecord{s, "rollout_loss:" + target, loss * 3}).ok());
      }
      EXPECT_TRUE(w->EndStep(s).ok());
    }
    EXPECT_TRUE(w->Close(Status()).ok());
    Result r = Lpsim("check " + run + " --target " + target + " --json");
    ASSERT_EQ(r.code, 0) << r.out;
    const nlohmann::json p = nlohmann::json::parse(r.out)["prediction"];
    EXPECT_EQ(p["probed"], true);
    if (target == "int8-npu") {
      EXPECT_EQ(p["inference"], true);
      EXPECT_EQ(p["breaks"], false) << p;
      r = Lpsim("check " + run + " --target " + target);
      EXPECT_EQ(r.out.rfind("Prediction: on int8-npu (inference only) inference runs as in fp32 (no low-precision "
                            "warning or error on its forward pass).",
                            0),
                0u)
          << r.out;
    } else {
      EXPECT_EQ(p["inference"], false);
      EXPECT_EQ(p["breaks"], true);
      EXPECT_EQ(p["rule"], "lp_rollout");
    }
  }
}

// A target's ranges go on the histograms of the roles it stores in floats.
TEST_F(ReportCliTest, ReportDrawsATargetsRanges) {
  const std::string run = WriteRun();
  Result r = Lpsim("report " + run + " --target h100-fp8-delayed,int8-npu -o " + dir_ + "/t.html");
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(dir_ + "/t.html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The run's only tensor is an activation gradient: H100 keeps it in e5m2,
  // the int8 NPU (inference only) in fp32.
  EXPECT_NE(html.find("h100-fp8-delayed:e5m2:sat"), std::string::npos);
  EXPECT_NE(html.find("int8-npu:fp32"), std::string::npos);
  EXPECT_EQ(html.find("h100-fp8-delayed:e4m3fn:sat"), std::string::npos);  // no activations here
  r = Lpsim("report " + run + " --target nope");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--target: unknown target 'nope'"), std::string::npos) << r.out;
}

// `lpsim check --target`: the gradient that NVFP4 flushes (see above) is
// an lp_underflow finding on that target and none on H100. The flushed
// values are its small tail (the energy is in the large ones), so by default
// lp_underflow (which needs < 10 dB SNR) stays quiet; judged by the count
// alone (max_snr_db raised) it fires on NVFP4 only.
TEST_F(ReportCliTest, CheckJudgesTheRunOnATarget) {
  const std::string run = WriteRun();
  const std::string rules = dir_ + "/count_only.json";
  {
    std::ofstream(rules) << R"({"lp_underflow": {"max_snr_db": 1000}})";
  }
  auto underflow_findings = [&](const std::string& target) {
    Result r = Lpsim("check " + run + " --json --rules " + rules + " --target " + target);
    EXPECT_EQ(r.code, 0) << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["target"], target);
    int n = 0;
    for (const nlohmann::json& f : j["findings"]) n += f["rule"] == "lp_underflow";
    return n;
  };
  EXPECT_GT(underflow_findings("b200-nvfp4"), 0);
  EXPECT_EQ(underflow_findings("h100-fp8-delayed"), 0);
  Result bad = Lpsim("check " + run + " --target nope");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--target: unknown target 'nope'"), std::string::npos) << bad.out;
}

TEST_F(ReportCliTest, ReportWritesBesideTheRun) {
  const std::string run = WriteRun();
  Result r = Lpsim("report " + run);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(run + "/report.html"));
  r = Lpsim("report " + run + " -o " + dir_ + "/other.html");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/other.html"));
}

TEST_F(ReportCliTest, BadInputExitsTwo) {
  const std::string run = WriteRun();
  for (const char* cmd : {"recommend", "report"}) {
    Result r = Lpsim(std::string(cmd) + " " + dir_ + "/missing");
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("missing"), std::string::npos) << r.out;
    {
      std::ofstream(dir_ + "/corrupt.db") << "this is not a database";
    }
    r = Lpsim(std::string(cmd) + " " + dir_ + "/corrupt.db");
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.out;
    r = Lpsim(std::string(cmd) + " " + run + " --formats e4m3fn,bogus");
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("bogus"), std::string::npos) << r.out;
  }
  Result r = Lpsim("recommend " + run + " --budget-underflow 3");
  EXPECT_EQ(r.code, 2) << r.out;
  r = Lpsim("analyze " + dir_ + "/nothing.npy");
  EXPECT_EQ(r.code, 2) << r.out;
  r = Lpsim("analyze " + dir_ + "/corrupt.db");
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST_F(ReportCliTest, AnalyzeNpyAndDirectory) {
  const std::string npys = dir_ + "/tensors";
  std::filesystem::create_directories(npys);
  std::vector<float> a(1000), b(300);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.1f * i) * 1e-3f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::ldexp(1.0f, -int(i % 40));
  ASSERT_TRUE(WriteNpy(npys + "/a.npy", {10, 100}, a.data()).ok());
  ASSERT_TRUE(WriteNpy(npys + "/b.npy", {300}, b.data()).ok());
  Result r = Lpsim("analyze " + npys + "/a.npy");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("10x100"), std::string::npos) << r.out;
  r = Lpsim("analyze " + npys + " --json --formats e4m3fn,e2m1fn --report " + dir_ + "/t.html");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["tensors"].size(), 2u);
  EXPECT_EQ(j["tensors"][1]["name"], "b");
  EXPECT_TRUE(j["tensors"][0]["formats"].contains("e2m1fn"));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/t.html"));
  r = Lpsim("analyze " + npys + " --formats nope");
  EXPECT_EQ(r.code, 2) << r.out;
}

// The "what if" bound against exact counts on a real run: every per-tensor
// (format, recipe, scale) the demo simulated, re-estimated from the record's
// histograms alone, must bracket the simulated counts.
TEST_F(ReportCliTest, EstimateBracketsExactCountsOfADemoRun) {
#ifndef LPSIM_HAVE_DEMO
  GTEST_SKIP() << "lpsim was built without LibTorch (no demo)";
#endif
  const std::string run = dir_ + "/demo";
  Result r = Lpsim("demo --steps 4 --quiet --formats e4m3fn,e5m2,e2m1fn --run-dir " + run);
  ASSERT_EQ(r.code, 0) << r.out;
  auto reader = RunReader::Open(run).value();
  int checked = 0;
  Status s = reader->ForEachRecord({}, [&](TensorRecord&& rec) {
    for (const FormatRecord& f : rec.formats) {
      const Format fmt = ParseFormat(f.format).value();
      const CastEstimate e = EstimateCast(rec.stats, fmt, f.scale);
      EXPECT_LE(e.underflow.lower, f.counts.underflow) << rec.name << " " << f.format;
      EXPECT_GE(e.underflow.upper, f.counts.underflow) << rec.name << " " << f.format;
      EXPECT_LE(e.overflow.lower, f.counts.overflow) << rec.name << " " << f.format;
      EXPECT_GE(e.overflow.upper, f.counts.overflow) << rec.name << " " << f.format;
      EXPECT_EQ(e.numel, f.counts.numel);
      ++checked;
    }
    return Status();
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GT(checked, 100);
}

// Delayed scaling replayed from the stored amax history gives, for every
// record of a run that simulated delayed16, exactly the scale the tracker
// used, and the estimate at that scale brackets the exact counts.
TEST_F(ReportCliTest, DelayedReplayMatchesARecordedRun) {
#ifndef LPSIM_HAVE_DEMO
  GTEST_SKIP() << "lpsim was built without LibTorch (no demo)";
#endif
  const std::string run = dir_ + "/delayed";
  Result r = Lpsim("demo --steps 6 --quiet --recipe delayed4 --formats e4m3fn,e2m1fn --run-dir " +
                   run);
  ASSERT_EQ(r.code, 0) << r.out;
  auto reader = RunReader::Open(run).value();
  std::map<std::string, std::vector<DelayedScaler>> replay;
  int checked = 0;
  Status s = reader->ForEachRecord({}, [&](TensorRecord&& rec) {
    const std::string key = ToString(rec.role) + ":" + rec.name;
    auto it = replay.find(key);
    if (it == replay.end()) {
      std::vector<DelayedScaler> v;
      for (const FormatRecord& f : rec.formats) {
        v.emplace_back(ParseFormat(f.format).value(),
                       DelayedScaler::Options{4, DelayedScaler::Algo::kMax, {}});
      }
      it = replay.emplace(key, std::move(v)).first;
    }
    for (size_t i = 0; i < rec.formats.size(); ++i) {
      const FormatRecord& f = rec.formats[i];
      EXPECT_EQ(f.recipe, "delayed4");
      EXPECT_EQ(it->second[i].Scale(), f.scale) << key << " step " << rec.step;
      const CastEstimate e = EstimateCast(rec.stats, ParseFormat(f.format).value(), it->second[i].Scale());
      EXPECT_LE(e.underflow.lower, f.counts.underflow);
      EXPECT_GE(e.underflow.upper, f.counts.underflow);
      EXPECT_LE(e.overflow.lower, f.counts.overflow);
      EXPECT_GE(e.overflow.upper, f.counts.overflow);
      it->second[i].Update(rec.stats.max_abs);
      ++checked;
    }
    return Status();
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GT(checked, 50);
  // The recommender estimates e5m2 (not simulated) with the run's recipe.
  r = Lpsim("recommend " + run + " --json --formats e4m3fn,e5m2 --recipes none");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  bool estimated_delayed = false;
  for (const nlohmann::json& c : j["rows"][0]["candidates"]) {
    if (c["format"] == "e5m2" && c["recipe"] == "delayed4" && c["exact"] == false) {
      estimated_delayed = true;
    }
  }
  EXPECT_TRUE(estimated_delayed) << r.out;
}

// The block bound on a run that simulated MX: each record's exact counts
// lie within EstimateBlockCast's [lower, upper] from its histograms.
TEST_F(ReportCliTest, BlockBoundBracketsARecordedMxRun) {
#ifndef LPSIM_HAVE_DEMO
  GTEST_SKIP() << "lpsim was built without LibTorch (no demo)";
#endif
  for (const char* recipe : {"mx", "1x128"}) {
    const std::string run = dir_ + "/" + recipe;
    Result r = Lpsim("demo --steps 4 --quiet --recipe " + std::string(recipe) +
                     " --formats e4m3fn,e2m1fn,e3m2fn --run-dir " + run);
    ASSERT_EQ(r.code, 0) << r.out;
    const BlockSpec spec = BlockSpec::Parse(recipe).value();
    auto reader = RunReader::Open(run).value();
    int checked = 0, strict = 0;
    Status s = reader->ForEachRecord({}, [&](TensorRecord&& rec) {
      for (const FormatRecord& f : rec.formats) {
        const CastEstimate e =
            EstimateBlockCast(rec.stats, ParseFormat(f.format).value(), spec, rec.shape);
        EXPECT_LE(e.underflow.lower, f.counts.underflow) << rec.name << " " << f.format;
        EXPECT_GE(e.underflow.upper, f.counts.underflow) << rec.name << " " << f.format;
        EXPECT_LE(e.overflow.lower, f.counts.overflow) << rec.name << " " << f.format;
        EXPECT_GE(e.overflow.upper, f.counts.overflow) << rec.name << " " << f.format;
        if (e.underflow.lower < e.underflow.upper) ++strict;
        ++checked;
      }
      return Status();
    });
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_GT(checked, 50) << recipe;
    std::printf("%s: %d records checked, %d with a nonzero underflow bound width\n", recipe,
                checked, strict);
  }
}

// An installed lpsim (`cmake --install`, component runtime) finds the chart
// libraries in PREFIX/share/lpsim/web without LPSIM_WEB_ASSETS. The installed
// vega.min.js gets a marker, so the report proves which copy it inlined.
TEST_F(ReportCliTest, InstalledLpsimInlinesInstalledLibraries) {
  const std::string src = std::string(LPSIM_WEB_SOURCE) + "/vega/build/vega.min.js";
  if (!std::filesystem::exists(src)) {
    GTEST_SKIP() << "no " << src << ": run scripts/setup.sh (npm ci in report/web)";
  }
  const std::string prefix = dir_ + "/prefix";
  const std::string install = std::string("\"") + LPSIM_CMAKE + "\" --install \"" +
                              LPSIM_BUILD_DIR + "\" --component runtime --prefix " + prefix +
                              " >/dev/null 2>&1";
  ASSERT_EQ(std::system(install.c_str()), 0) << install;
  const std::string web = prefix + "/share/lpsim/web";
  for (const char* f : {"vega/build/vega.min.js", "vega-lite/build/vega-lite.min.js",
                        "vega-embed/build/vega-embed.min.js", "vega/LICENSE"}) {
    EXPECT_TRUE(std::filesystem::exists(web + "/" + f)) << f;
  }
  std::ofstream(web + "/vega/build/vega.min.js", std::ios::app) << "\n/*lpsim-installed-copy*/\n";

  const std::string run = WriteRun();
  const std::string out = dir_ + "/installed.html";
  const std::string cmd = "env -u LPSIM_WEB_ASSETS " + prefix + "/bin/lpsim report " + run +
                          " -o " + out + " 2>&1";
  const CommandResult installed = RunCommand(cmd);
  ASSERT_EQ(installed.code, 0) << installed.out;
  std::ifstream in(out);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("lpsim-installed-copy"), std::string::npos);
  EXPECT_NE(html.find("vegaEmbed"), std::string::npos);
  EXPECT_NE(html.find("vega-lite"), std::string::npos);
  EXPECT_GT(html.size(), 500000u);  // the three libraries are inlined
}

}  // namespace
}  // namespace lpsim
