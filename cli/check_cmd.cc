// `lpsim check RUN [--rules FILE] [--json]`: runs the rule catalog (checks/)
// offline on a stored run and prints the findings, most severe first, newest
// first within a severity. `lpsim check --list-rules [--json]` prints the
// catalog: each rule, its severity, what it detects, its thresholds with
// their defaults, and their source. With --target T the run is judged as T
// stores each tensor, and the output starts with the break prediction on T
// (report/stored_check.h PredictionFrom; "prediction" in --json): the one
// `lpsim validate` measures.
//
// Exit status: 0 when the run was checked, whether or not rules fired (a
// finding is a result, not an error: read the output or --json); 2 for bad
// input (no such run, not a run database, a bad rules file).
//
//   lpsim check runs/demo
//   lpsim check runs/demo --rules my_rules.json --json
//   lpsim check runs/demo --target b200-nvfp4
//   lpsim check --list-rules
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checks/checker.h"
#include "cli/commands.h"
#include "core/printable.h"
#include "core/target.h"
#include "report/recommend.h"
#include "report/stored_check.h"
#include "simd/scaling.h"
#include "store/run_db.h"

namespace lpsim::cli {

namespace {

struct CheckArgs {
  std::string run;
  std::string rules;
  std::string target;
  bool json = false;
  bool list_rules = false;
};

nlohmann::ordered_json FindingJson(const Finding& f) {
  nlohmann::ordered_json ev = nlohmann::ordered_json::object();
  for (const auto& [k, v] : f.evidence) ev[k] = std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
  return {{"rule", f.rule},       {"severity", ToString(f.severity)}, {"step", f.step},
          {"tensor", f.tensor},   {"message", f.message},             {"evidence", ev}};
}

int ListRules(bool json) {
  if (json) {
    nlohmann::ordered_json rules = nlohmann::ordered_json::array();
    for (const RuleInfo& r : RuleCatalog()) {
      nlohmann::ordered_json thresholds = nlohmann::ordered_json::object();
      for (const auto& [k, v] : r.params) thresholds[k] = v;
      rules.push_back({{"rule", r.name},
                       {"category", r.category},
                       {"severity", ToString(r.severity)},
                       {"policy", ToString(r.policy)},
                       {"what", r.what},
                       {"thresholds", thresholds},
                       {"source", r.source}});
    }
    std::cout << nlohmann::ordered_json{{"rules", rules}}.dump(2) << "\n";
    return kExitOk;
  }
  std::string category;
  for (const RuleInfo& r : RuleCatalog()) {
    if (r.category != category) {
      category = r.category;
      std::cout << "== " << category << " ==\n\n";
    }
    std::string thresholds;
    for (const auto& [k, v] : r.params) thresholds += fmt::format("{}{} = {:g}", thresholds.empty() ? "" : ", ", k, v);
    std::cout << fmt::format("{}  [{}]\n  detects: {}\n  thresholds: {}\n  source: {}\n\n", r.name,
                             ToString(r.severity), r.what, thresholds.empty() ? "(none)" : thresholds, r.source);
  }
  return kExitOk;
}

int RunCheck(const CheckArgs& a) {
  auto fail = [](const std::string& m, int code) { return PrintError("check", m, code); };
  if (a.list_rules) {
    if (!a.run.empty() || !a.rules.empty() || !a.target.empty()) {
      return fail("--list-rules takes no RUN, --rules or --target (it prints the defaults)", kExitBadInput);
    }
    return ListRules(a.json);
  }
  if (a.run.empty()) return fail("RUN is required: lpsim check RUN (or lpsim check --list-rules)", kExitBadInput);
  CheckConfig config = CheckConfig::Defaults();
  if (!a.rules.empty()) {
    StatusOr<CheckConfig> c = CheckConfig::FromFile(a.rules);
    if (!c.ok()) return fail(c.status().message(), kExitBadInput);
    config = std::move(c).value();
  }
  std::optional<Target> target;
  std::string target_name;
  if (!a.target.empty()) {
    StatusOr<Target> t = FindTarget(a.target);
    if (!t.ok()) return fail("--target: " + t.status().message(), kExitBadInput);
    target_name = t->name;
    target = std::move(t).value();
  }
  StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(a.run);
  if (!reader.ok()) return fail(reader.status().message(), kExitBadInput);
  StatusOr<std::vector<Finding>> found = CheckStoredRun(**reader, config, target ? &*target : nullptr);
  if (!found.ok()) return PrintError("check", found.status());
  std::vector<Finding> findings = std::move(found).value();
  // The prediction reads the findings in the order the rules raised them.
  BreakPrediction prediction;
  if (target) {
    StatusOr<BreakPrediction> p = PredictionFrom(findings, **reader, *target);
    if (!p.ok()) return PrintError("check", p.status());
    prediction = std::move(p).value();
  }
  SortForDisplay(&findings);

  if (a.json) {
    nlohmann::ordered_json j = {{"run", (*reader)->path()}, {"findings", nlohmann::ordered_json::array()}};
    if (!target_name.empty()) {
      j["target"] = target_name;
      j["prediction"] = PredictionJson(target_name, prediction);
    }
    for (const Finding& f : findings) j["findings"].push_back(FindingJson(f));
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  if (!target_name.empty()) {
    std::cout << "Prediction: " << PredictionText(target_name, prediction)
              << (prediction.inference
                      ? ".\n(The first low-precision warning or error on the forward pass; `lpsim validate` measures "
                        "the predictions on targets that train.)\n\n"
                      : ".\n(The first low-precision warning or error; `lpsim validate` measures this prediction's "
                        "precision, recall and lead per target.)\n\n")
              << "On target " << target_name << " (each role in the target's format and recipe; "
                 "counts estimated from the histograms, worst case):\n";
  }
  if (findings.empty()) {
    std::cout << "No rule fired on " << Printable((*reader)->path()) << ".\n";
    return kExitOk;
  }
  int counts[3] = {0, 0, 0};
  for (const Finding& f : findings) ++counts[static_cast<int>(f.severity)];
  std::cout << fmt::format("{} finding(s) on {}: {} error, {} warning, {} info\n\n", findings.size(),
                           Printable((*reader)->path()), counts[2], counts[1], counts[0]);
  for (const Finding& f : findings) {
    // Names and messages come from the run's database: shown escaped.
    std::cout << fmt::format("[{}] step {}  {}{}\n  {}\n", ToString(f.severity), f.step,
                             Printable(f.rule), f.tensor.empty() ? "" : "  " + Printable(f.tensor),
                             Printable(f.message));
    std::string ev;
    for (const auto& [k, v] : f.evidence) ev += fmt::format("{}{}={:.4g}", ev.empty() ? "" : ", ", k, v);
    if (!ev.empty()) std::cout << "  evidence: " << ev << "\n";
    std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddCheckCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app->add_subcommand(
      "check", "Run the rule catalog on a stored run and print the findings (exit 0 with or "
               "without findings, 2 on bad input); --list-rules prints the catalog");
  cmd->add_option("RUN", args->run, "run directory or its run.db");
  cmd->add_option("--rules", args->rules,
                  "a JSON file of rule settings, e.g. {\"dead_relu\": {\"max_zero_share\": 0.9}} "
                  "(docs/checks.md)")
      ->type_name("FILE");
  cmd->add_option("--target", args->target,
                  "judge the run as this hardware target would store each tensor (name or .json "
                  "path): the format-aware rules see the target's formats and recipes")
      ->type_name("NAME|PATH");
    cmd->add_flag("--json", args->json, "print the findings (or, with --list-rules, the catalog) as JSON");
  cmd->add_flag("--list-rules", args->list_rules,
                "print every rule: severity, what it detects, its thresholds with their defaults, their source");
  cmd->callback([selected, args] { *selected = [args] { return RunCheck(*args); }; });
}

}  // namespace lpsim::cli
