// The HTML report: self-contained (no external resource), carries the run's
// data and the chart libraries, downsamples big runs, and fails clearly when
// the libraries are missing. tests/browser/ renders it in Chromium.
#include "report/html.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/target.h"
#include "report/stored_check.h"
#include "simd/analyze.h"
#include "store/run_db.h"

namespace lpsim {
namespace {

class TempRun {
 public:
  explicit TempRun(int steps, int tensors = 2) {
    std::string tmpl = ::testing::TempDir() + "lpsim_html_XXXXXX";
    dir_ = ::mkdtemp(tmpl.data());
    auto w = RunWriter::Open(dir_, "html-test", "{\"model\":\"mlp\"}").value();
    for (int s = 0; s < steps; ++s) {
      for (int t = 0; t < tensors; ++t) {
        std::vector<float> x(256);
        for (size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(1.0f + i % 7, -int(i % 30) - t);
        const Format e4 = ParseFormat("e4m3fn").value();
        AnalyzeResult r = simd::Analyze(x.data(), x.size(), {{e4, 1.0f}});
        TensorRecord rec;
        rec.step = s;
        rec.name = "fc" + std::to_string(t);
        rec.role = Role::kActivationGrad;
        rec.shape = {16, 16};
        rec.stats = r.stats;
        rec.formats.push_back({"e4m3fn", "none", 1.0f, r.formats[0]});
        EXPECT_TRUE(w->Add(rec).ok());
      }
      EXPECT_TRUE(w->Add(ScalarRecord{s, "loss", 2.0 / (1 + s)}).ok());
      EXPECT_TRUE(w->EndStep(s).ok());
    }
    Finding f;
    f.rule = "gradient_underflow";
    f.step = steps - 1;
    f.tensor = "fc1";
    f.message = "fc1 </script> underflows";
    f.evidence["underflow_pct"] = 12.5;
    EXPECT_TRUE(w->Add(f).ok());
    EXPECT_TRUE(w->Close(Status()).ok());
  }
  ~TempRun() { std::filesystem::remove_all(dir_); }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

std::string Render(const TempRun& run, size_t max_steps = 60) {
  auto reader = RunReader::Open(run.dir()).value();
  ReportOptions o;
  o.max_steps = max_steps;
  StatusOr<std::string> html = RenderReport(*reader, o);
  EXPECT_TRUE(html.ok()) << html.status().message();
  return html.ok() ? *html : "";
}

TEST(HtmlReportTest, SelfContainedWithDataAndLibraries) {
  TempRun run(5);
  const std::string html = Render(run);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_FALSE(std::regex_search(html, std::regex("<script[^>]+src=", std::regex::icase)));
  EXPECT_FALSE(std::regex_search(html, std::regex("<link[^>]+href=", std::regex::icase)));
  EXPECT_NE(html.find("vegaEmbed"), std::string::npos);
  EXPECT_NE(html.find("\"name\":\"html-test\""), std::string::npos);
  EXPECT_NE(html.find("gradient_underflow"), std::string::npos);
  // The finding's "</script>" must not end the data element early.
  EXPECT_EQ(html.find("fc1 </script>"), std::string::npos);
  EXPECT_NE(html.find("\"recommendation\""), std::string::npos);
}

// The page carries each prediction it is given (PredictBreak's, the
// function `lpsim check --target` prints), in order; without, an empty list.
TEST(HtmlReportTest, CarriesThePredictionOnEachTarget) {
  TempRun run(6);
  auto reader = RunReader::Open(run.dir()).value();
  ReportOptions o;
  for (const char* name : {"b200-nvfp4", "fp16-npu-ftz", "int8-npu"}) {
    o.predictions.emplace_back(name, PredictBreak(*reader, FindTarget(name).value()).value());
  }
  StatusOr<std::string> html = RenderReport(*reader, o);
  ASSERT_TRUE(html.ok()) << html.status().message();
  std::string expected;
  for (const auto& [name, p] : o.predictions) {
    char step[32] = "null";
    if (p.sign) std::snprintf(step, sizeof step, "%lld", static_cast<long long>(p.sign->step));
    expected += std::string(expected.empty() ? "" : ",") + "{\"target\":\"" + name + "\",\"breaks\":" +
                (p.sign ? "true" : "false") + ",\"step\":" + step + ",\"rule\":" +
                (p.sign ? "\"" + p.sign->rule + "\"" : "null") + ",\"tensor\":" +
                (p.sign ? "\"" + p.sign->tensor + "\"" : "null") + ",\"probed\":false,\"inference\":" +
                (name == "int8-npu" ? "true" : "false") + ",\"text\":" +
                nlohmann::json(PredictionText(name, p)).dump() + "}";
  }
  EXPECT_NE(html->find("\"predictions\":[" + expected + "]"), std::string::npos) << expected;
  EXPECT_NE(Render(run).find("\"predictions\":[]"), std::string::npos);
}

TEST(HtmlReportTest, DownsamplesSteps) {
  TempRun run(50, 1);
  const std::string html = Render(run, 10);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, std::regex("\"steps\":\\[([0-9,]*)\\]")));
  const std::string steps = m[1];
  EXPECT_EQ(std::count(steps.begin(), steps.end(), ',') + 1, 10);
  EXPECT_EQ(steps.rfind("0,", 0), 0u);                 // first step kept
  EXPECT_EQ(steps.substr(steps.size() - 2), "49");   // last step kept
}

TEST(HtmlReportTest, MissingLibrariesIsAClearError) {
  TempRun run(1);
  auto reader = RunReader::Open(run.dir()).value();
  ::setenv("LPSIM_WEB_ASSETS", "/nonexistent/node_modules", 1);
  StatusOr<std::string> html = RenderReport(*reader, {});
  ::unsetenv("LPSIM_WEB_ASSETS");
  ASSERT_FALSE(html.ok());
  EXPECT_NE(html.status().message().find("scripts/setup.sh"), std::string::npos);
}

TEST(HtmlReportTest, WriteReportReplacesAtomically) {
  TempRun run(2);
  auto reader = RunReader::Open(run.dir()).value();
  const std::string out = run.dir() + "/report.html";
  ASSERT_TRUE(WriteReport(*reader, {}, out).ok());
  EXPECT_GT(std::filesystem::file_size(out), 500000u);  // libraries inlined
  EXPECT_FALSE(WriteReport(*reader, {}, run.dir() + "/no/such/dir/r.html").ok());
}

}  // namespace
}  // namespace lpsim
