// `lpsim recommend RUN`: per role and layer, the narrowest format x scaling
// recipe that keeps within the underflow, overflow and SNR budgets, ranked
// candidates and the reasons (report/recommend.h, docs/report.md).
//
//   lpsim recommend runs/demo
//   lpsim recommend runs/demo --formats e4m3fn,e5m2,e2m1fn --min-snr 25 --json
#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "cli/table.h"
#include "report/recommend.h"
#include "store/run_db.h"

namespace lpsim::cli {

std::string RecommendationTable(const Recommendation& r) {
  Table t({{"role", false},
           {"layer", false},
           {"recommended", false},
           {"bits", true},
           {"underflow %", true},
           {"overflow %", true},
           {"SNR dB", true},
           {"source", false}});
  auto pct = [](const CountBound& b, uint64_t n, bool exact) {
    if (exact || b.lower == b.upper) return Percent(b.upper, n);
    return "[" + Percent(b.lower, n) + ", " + Percent(b.upper, n) + "]";
  };
  std::string reasons;
  for (const LayerAdvice& a : r.rows) {
    std::vector<std::string> row = {ToString(a.role), a.layer == "*" ? "(all layers)" : a.layer,
                                    a.best.empty() ? "none fits" : a.best};
    if (!a.candidates.empty()) {
      const Candidate& c = a.candidates.front();
      row.push_back(std::to_string(c.bits));
      row.push_back(pct(c.underflow, c.numel, c.exact));
      row.push_back(pct(c.overflow, c.numel, c.exact));
      row.push_back(Decibels(c.SnrDb()));
      row.push_back(c.exact ? "simulated" : "estimated");
    }
    t.AddRow(row);
    reasons += "  " + std::string(ToString(a.role)) + " " +
               (a.layer == "*" ? "(all layers)" : a.layer) + ": " + a.reason + "\n";
  }
  return t.Render() + "\nWhy:\n" + reasons;
}

namespace {

struct RecommendArgs {
  std::string run;
  RecommendOptions options;
  bool json = false;
};

int RunRecommend(const RecommendArgs& a) {
  auto fail = [](const std::string& m, int code) {
    std::cerr << "lpsim recommend: error: " << m << "\n";
    return code;
  };
  for (const std::string& f : a.options.formats) {
    StatusOr<Format> parsed = ParseFormat(f);
    if (!parsed.ok()) return fail(parsed.status().message(), kExitBadInput);
  }
  for (const std::string& r : a.options.what_if_recipes) {
    StatusOr<Scaling> parsed = Scaling::Parse(r);
    if (!parsed.ok()) return fail(parsed.status().message(), kExitBadInput);
  }
  StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(a.run);
  if (!reader.ok()) return fail(reader.status().message(), kExitBadInput);
  StatusOr<Recommendation> r = Recommend(**reader, a.options);
  if (!r.ok()) return fail(r.status().message(), kExitBadInput);
  if (a.json) {
    std::cout << RecommendationJson(*r).dump(2) << "\n";
    return kExitOk;
  }
  if (r->rows.empty()) {
    std::cout << "The run has no tensor records: nothing to recommend.\n";
    return kExitOk;
  }
  const Budgets& b = r->budgets;
  std::cout << "Budgets (worst case over the tracked steps): underflow <= " << 100 * b.max_underflow
            << "%, overflow <= " << 100 * b.max_overflow << "%, SNR >= " << b.min_snr_db
            << " dB. Estimated counts are [lower, upper] bounds from the histograms\n"
            << "(block recipes: per-block amaxes unknown, see docs/report.md).\n\n";
  std::cout << RecommendationTable(*r);
  return kExitOk;
}

}  // namespace

void AddRecommendCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<RecommendArgs>();
  Budgets& b = args->options.budgets;
  CLI::App* cmd = app->add_subcommand(
      "recommend", "Recommend the narrowest format and scaling per role and layer of a run");
  cmd->add_option("RUN", args->run, "run directory or its run.db")->required();
  cmd->add_option("--formats", args->options.formats,
                  "candidate formats (comma separated; default: the run's formats plus "
                  "e2m1fn,e2m3fn,e3m2fn,e4m3fn,e5m2,bf16,fp16)")
      ->delimiter(',');
  cmd->add_option("--recipes", args->options.what_if_recipes,
                  "scaling recipes to estimate for formats the run did not simulate: none, "
                  "current, delayedN, mx, row, col, 1x128, 128x128, RxC (the run's own recipes "
                  "are always added)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--budget-underflow", b.max_underflow,
                  "largest fraction of elements that may underflow")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--budget-overflow", b.max_overflow,
                  "largest fraction of elements that may overflow")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--min-snr", b.min_snr_db, "smallest acceptable SNR in dB")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print the recommendation as JSON");
  cmd->callback([selected, args] { *selected = [args] { return RunRecommend(*args); }; });
}

}  // namespace lpsim::cli
