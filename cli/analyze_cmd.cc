// `lpsim analyze FILE`: the per-tensor analysis for tensors at rest: a .npy,
// or a directory of .npy files (each one tensor, named after its file). Prints
// the numerics per format and the recommendation; --report writes the HTML
// report. (LibTorch-saved files are not read yet: save them with numpy.)
//
//   lpsim analyze weights/ --formats e4m3fn,e5m2 --report weights.html
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "report/html.h"
#include "report/recommend.h"
#include "simd/analyze.h"
#include "simd/scaling.h"
#include "store/npy.h"

namespace lpsim::cli {

std::string RecommendationTable(const Recommendation& r);  // recommend_cmd.cc

namespace {

struct AnalyzeArgs {
  std::string path;
  std::vector<std::string> formats = {"e4m3fn", "e5m2", "bf16"};
  std::string report;
  bool json = false;
};

int RunAnalyze(const AnalyzeArgs& a) {
  namespace fs = std::filesystem;
  auto fail = [](const std::string& m, int code) {
    std::cerr << "lpsim analyze: error: " << m << "\n";
    return code;
  };
  std::vector<Format> formats;
  for (const std::string& s : a.formats) {
    StatusOr<Format> f = ParseFormat(s);
    if (!f.ok()) return fail(f.status().message(), kExitBadInput);
    if (!f->has_zero()) return fail("format '" + s + "' is a scale format", kExitBadInput);
    formats.push_back(*f);
  }
  if (formats.size() > kMaxAnalyzeFormats) {
    return fail("at most " + std::to_string(kMaxAnalyzeFormats) + " formats", kExitBadInput);
  }
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(a.path, ec)) {
    for (const auto& e : fs::directory_iterator(a.path, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".npy") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) return fail("no .npy files in " + a.path, kExitBadInput);
  } else if (fs::exists(a.path, ec)) {
    files.push_back(a.path);
  } else {
    return fail(a.path + ": no such file or directory", kExitBadInput);
  }

  // Each tensor is cast with per-tensor current scaling, the recipe that
  // needs no history.
  std::vector<TensorRecord> records;
  for (const fs::path& p : files) {
    StatusOr<NpyArray> arr = ReadNpy(p.string());
    if (!arr.ok()) return fail(arr.status().message(), kExitBadInput);
    const AnalyzeResult pre = simd::Analyze(arr->data.data(), arr->data.size(), {});
    std::vector<FormatSlot> slots;
    for (const Format& f : formats) slots.push_back({f, CurrentScale(f, pre.stats.max_abs)});
    AnalyzeResult r = simd::Analyze(arr->data.data(), arr->data.size(), slots);
    TensorRecord rec;
    rec.name = p.stem().string();
    rec.role = Role::kWeight;
    for (size_t d : arr->shape) rec.shape.push_back(static_cast<int64_t>(d));
    rec.dtype = ToString(arr->source_dtype);
    rec.stats = std::move(r.stats);
    for (size_t i = 0; i < formats.size(); ++i) {
      rec.formats.push_back({formats[i].name(), "current", slots[i].scale, r.formats[i]});
    }
    records.push_back(std::move(rec));
  }
  RecommendOptions ropt;
  StatusOr<Recommendation> rec = RecommendFromRecords(records, ropt);
  if (!rec.ok()) return fail(rec.status().message(), kExitBadInput);

  if (!a.report.empty()) {
    ReportOptions o;
    StatusOr<std::string> html = RenderRecordsReport("lpsim analyze: " + a.path, records, o);
    if (!html.ok()) return fail(html.status().message(), kExitBadInput);
    Status s = WriteFileAtomically(a.report, *html);
    if (!s.ok()) return fail(s.message(), kExitFailure);
  }
  if (a.json) {
    nlohmann::ordered_json j = {{"tensors", nlohmann::ordered_json::array()}};
    for (const TensorRecord& r : records) {
      nlohmann::ordered_json t = {{"name", r.name}, {"shape", r.shape}, {"dtype", r.dtype},
                                  {"max_abs", r.stats.max_abs}, {"min_abs", r.stats.min_abs}};
      for (size_t i = 0; i < r.formats.size(); ++i) {
        nlohmann::ordered_json c = CountsJson(formats[i], r.formats[i].counts);
        c["recipe"] = "current";
        c["scale"] = r.formats[i].scale;
        t["formats"][r.formats[i].format] = c;
      }
      j["tensors"].push_back(t);
    }
    j["recommendation"] = RecommendationJson(*rec);
    if (!a.report.empty()) j["report"] = a.report;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::vector<Column> cols = {{"tensor", false}, {"shape", false}, {"max |x|", true}};
  for (const Format& f : formats) {
    cols.push_back({f.name() + " under%", true});
    cols.push_back({"over%", true});
    cols.push_back({"SNR dB", true});
  }
  Table t(cols);
  for (const TensorRecord& r : records) {
    std::string shape;
    for (int64_t d : r.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    std::vector<std::string> row = {r.name, shape.empty() ? "scalar" : shape,
                                    Number(r.stats.max_abs)};
    for (const FormatRecord& f : r.formats) {
      row.push_back(Percent(f.counts.underflow, f.counts.numel));
      row.push_back(Percent(f.counts.overflow, f.counts.numel));
      row.push_back(Decibels(f.counts.SnrDb()));
    }
    t.AddRow(row);
  }
  std::cout << "Per tensor, with per-tensor current scaling:\n" << t.Render() << "\n";
  std::cout << RecommendationTable(*rec);
  if (!a.report.empty()) std::cout << "Report written to " << a.report << "\n";
  return kExitOk;
}

}  // namespace

void AddAnalyzeCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app->add_subcommand(
      "analyze", "Analyze tensors at rest (.npy or a directory of .npy) for candidate formats");
  cmd->add_option("FILE", args->path, ".npy file or directory of .npy files")->required();
  cmd->add_option("--formats", args->formats, "candidate formats (comma separated)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--report", args->report, "also write the HTML report here");
  cmd->add_flag("--json", args->json, "print the result as JSON");
  cmd->callback([selected, args] { *selected = [args] { return RunAnalyze(*args); }; });
}

}  // namespace lpsim::cli
