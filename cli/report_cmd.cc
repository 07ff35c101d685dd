// `lpsim report RUN [-o report.html]`: the run's self-contained HTML report
// (report/html.h, docs/report.md). Default output: RUN_DIR/report.html.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/output.h"
#include "core/printable.h"
#include "report/html.h"
#include "report/recommend.h"
#include "report/stored_check.h"
#include "store/run_db.h"

namespace lpsim::cli {
namespace {

struct ReportArgs {
  std::string run;
  std::string out;
  std::vector<std::string> targets;
  ReportOptions options;
};

int RunReportCommand(const ReportArgs& args) {
  auto fail = [](const std::string& m, int code) { return PrintError("report", m, code); };
  ReportArgs a = args;
  StatusOr<std::vector<Target>> targets = LoadTargets(a.targets);
  if (!targets.ok()) return fail("--target: " + targets.status().message(), kExitBadInput);
  for (const Target& t : *targets) {
    for (ExtraRange& r : TargetRanges(t)) a.options.extra_ranges.push_back(std::move(r));
  }
  for (const std::string& f : a.options.recommend.formats) {
    StatusOr<Format> parsed = ParseFormat(f);
    if (!parsed.ok()) return fail(parsed.status().message(), kExitBadInput);
  }
  for (const std::string& r : a.options.recommend.what_if_recipes) {
    StatusOr<Scaling> parsed = Scaling::Parse(r);
    if (!parsed.ok()) return fail(parsed.status().message(), kExitBadInput);
  }
  std::string out = a.out;
  if (out.empty()) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p(a.run);
    out = ((fs::is_directory(p, ec) ? p : p.parent_path()) / "report.html").string();
  }
  Status s = CheckOutput(out, {}, RunFiles(a.run), "-o");
  if (!s.ok()) return PrintError("report", s);
  StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(a.run);
  if (!reader.ok()) return fail(reader.status().message(), kExitBadInput);
  for (const Target& t : *targets) {
    StatusOr<BreakPrediction> p = PredictBreak(**reader, t);
    if (!p.ok()) return PrintError("report", p.status());
    a.options.predictions.emplace_back(t.name, std::move(p).value());
  }
  StatusOr<std::string> html = RenderReport(**reader, a.options);
  if (!html.ok()) return PrintError("report", html.status());
  s = WriteOutput(out, *html);
  if (!s.ok()) return PrintError("report", s);
  // With -o - the HTML is stdout: the note would end up inside it.
  if (out != "-") std::cout << "Report written to " << Printable(out) << "\n";
  return kExitOk;
}

}  // namespace

void AddReportCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app->add_subcommand("report", "Write a run's self-contained HTML report");
  cmd->add_option("RUN", args->run, "run directory or its run.db")->required();
  cmd->add_option("-o,--output", args->out, "output file, or - for stdout (default: RUN_DIR/report.html)");
  cmd->add_option("--target", args->targets,
                  "draw these hardware targets' ranges on the histograms (names or .json "
                  "paths, comma separated; float storage roles) and show the break prediction on each")
      ->delimiter(',');
  cmd->add_option("--formats", args->options.recommend.formats,
                  "candidate formats for the recommendation and the what-if ranges")
      ->delimiter(',');
  cmd->add_option("--recipes", args->options.recommend.what_if_recipes,
                  "scaling recipes to estimate for formats the run did not simulate")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--max-steps", args->options.max_steps,
                  "embed tensor records of at most this many steps")
      ->capture_default_str()
      ->check(CLI::Range(2, 100000));
  cmd->callback([selected, args] { *selected = [args] { return RunReportCommand(*args); }; });
}

}  // namespace lpsim::cli
