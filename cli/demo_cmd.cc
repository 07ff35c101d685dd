// `lpsim demo`: the main job. Trains a built-in model on built-in synthetic
// data with the tracker attached, then prints the per-layer numerics of the
// last tracked step for each candidate format and where the run was written.
//
//   lpsim demo                                  # mlp, 300 steps, e4m3fn/e5m2/bf16
//   lpsim demo --model cnn --recipe mx --simulate --json
//   lpsim demo --matmul-unit h100               # products on the H100 model
//   lpsim demo --live --steps 100000            # a dashboard while it trains
//   lpsim demo --probe b200-nvfp4,tenstorrent-bfp4  # the forward pass on each, every 8 steps
//   lpsim demo --target fp16-npu-ftz --probe fp16-npu-ftz  # and the break prediction there
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "core/printable.h"
#include "core/target.h"
#include "report/html.h"
#include "report/stored_check.h"
#include "store/run_db.h"
#include "tracker/demo.h"

namespace lpsim::cli {
namespace {

struct DemoArgs {
  DemoOptions options;
  std::string lr = "0.001";
  std::string seed = "0";
  bool json = false;
  bool quiet = false;
  bool live = false;
  int live_port = 0;
};

// --lr as text, so that "nan", "-1" or "1e999" get this command's message
// rather than LibTorch's (RunDemo checks the range).
StatusOr<double> ParseLr(const std::string& s) {
  char* end = nullptr;
  const double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0') {
    return Status::Error("--lr '" + s + "' is not a number; give Adam's learning rate, e.g. 0.001");
  }
  return v;
}

int RunDemoCommand(const DemoArgs& args) {
  DemoArgs a = args;
  StatusOr<double> lr = ParseLr(a.lr);
  if (!lr.ok()) return PrintError("demo", lr.status());
  a.options.lr = *lr;
  StatusOr<uint64_t> seed = ParseSeed(a.seed);
  if (!seed.ok()) return PrintError("demo", seed.status());
  a.options.seed = *seed;
  if (!a.options.matmul_unit.empty()) a.options.simulate = true;  // a unit is a simulation
  if (a.live) a.options.live_port = a.live_port;
  a.options.live_port_name = "--live-port";
  std::ostream* progress = a.quiet || a.json ? nullptr : &std::cerr;
  if (progress) {
    std::string formats;
    for (const std::string& f : a.options.formats) formats += (formats.empty() ? "" : ", ") + f;
    *progress << Printable(fmt::format(
                     "lpsim demo: training the built-in {} for {} steps, tracking {} with {} "
                     "scaling{}{}{}",
                     a.options.model, a.options.steps, formats, a.options.recipe,
                     a.options.target.empty() ? "" : " on target " + a.options.target,
                     a.options.matmul_unit.empty() ? "" : " on unit " + a.options.matmul_unit,
                     a.options.simulate ? " (simulate mode)" : ""))
              << "\n";
  }
  StatusOr<DemoResult> r = RunDemo(a.options, progress);
  // Bad options are 2; a run that training could not finish (marked failed
  // in its database) is 1.
  if (!r.ok()) return PrintError("demo", r.status());
  const DemoResult& d = r.value();

  // The break prediction on --target (without --simulate the run is fp32's,
  // judged on the target as `lpsim check RUN --target T` judges it), for
  // the report and the last line.
  std::optional<BreakPrediction> prediction;
  std::string target_name;
  if (!a.options.target.empty() && !a.options.simulate) {
    StatusOr<Target> t = FindTarget(a.options.target);
    if (!t.ok()) return PrintError("demo", t.status());
    target_name = t->name;
    StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(d.run_path);
    if (!reader.ok()) return PrintError("demo", reader.status());
    StatusOr<BreakPrediction> p = PredictBreak(**reader, *t);
    if (!p.ok()) return PrintError("demo", p.status());
    prediction = std::move(p).value();
  }

  // The run's HTML report beside its database; a failure here is reported
  // but does not fail the demo (the run itself is fine).
  std::string report_path, report_error;
  {
    const std::filesystem::path db(d.run_path);
    std::error_code ec;
    report_path = ((std::filesystem::is_directory(db, ec) ? db : db.parent_path()) / "report.html").string();
    StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(d.run_path);
    ReportOptions options;
    if (prediction) options.predictions.push_back({target_name, *prediction});
    Status s = reader.ok() ? WriteReport(**reader, options, report_path) : reader.status();
    if (!s.ok()) {
      report_error = s.message();
      report_path.clear();
    }
  }

  if (a.json) {
    nlohmann::ordered_json j = {{"model", a.options.model},
                                {"steps", a.options.steps},
                                {"recipe", a.options.recipe},
                                {"simulate", a.options.simulate},
                                {"target", a.options.target},
                                {"matmul_unit", a.options.matmul_unit},
                                {"run", d.run_path},
                                {"first_loss", d.first_loss},
                                {"final_loss", d.final_loss},
                                {"accuracy", d.accuracy},
                                {"skipped_steps", d.skipped_steps},
                                {"seconds", d.seconds},
                                {"notes", d.notes},
                                {"losses", d.losses}};
    j["report"] = report_path.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(report_path);
    if (!report_error.empty()) j["report_error"] = report_error;
    nlohmann::ordered_json findings = nlohmann::ordered_json::array();
    for (const Finding& f : d.findings) {
      findings.push_back({{"rule", f.rule}, {"severity", ToString(f.severity)}, {"step", f.step},
                          {"tensor", f.tensor}, {"message", f.message}});
    }
    j["findings"] = findings;
    j["prediction"] = prediction ? PredictionJson(target_name, *prediction) : nlohmann::ordered_json();
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const TensorRecord& rec : d.last_records) {
      nlohmann::ordered_json l = {{"tensor", rec.name}, {"role", ToString(rec.role)},
                                  {"step", rec.step}};
      for (const FormatRecord& f : rec.formats) {
        const double snr = f.counts.SnrDb();
        l["formats"][f.format] = {
            {"recipe", f.recipe},
            {"scale", f.scale},
            {"underflow_pct", PercentValue(f.counts.underflow, f.counts.numel)},
            {"overflow_pct", PercentValue(f.counts.overflow, f.counts.numel)},
            {"snr_db", std::isinf(snr) ? nlohmann::ordered_json() : nlohmann::ordered_json(snr)}};
      }
      layers.push_back(l);
    }
    j["layers"] = layers;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }

  std::cout << fmt::format("loss {:.4f} -> {:.4f}, accuracy {:.1f}% on a fresh batch, {:.1f} s",
                           d.first_loss, d.final_loss, 100.0 * d.accuracy, d.seconds);
  if (d.skipped_steps > 0) std::cout << fmt::format(", {} step(s) skipped (non-finite)", d.skipped_steps);
  std::cout << "\n\n";
  if (!d.last_records.empty()) {
    std::cout << fmt::format("Per-tensor numerics at step {} (counts after {} scaling; SNR over "
                             "finite results):\n",
                             d.last_records.front().step, a.options.recipe);
    std::vector<Column> cols = {{"tensor", false}, {"role", false}};
    for (const FormatRecord& f : d.last_records.front().formats) {
      cols.push_back({f.format + " under%", true});
      cols.push_back({"over%", true});
      cols.push_back({"SNR dB", true});
    }
    Table t(cols);
    for (const TensorRecord& rec : d.last_records) {
      std::vector<std::string> row = {rec.name, ToString(rec.role)};
      for (const FormatRecord& f : rec.formats) {
        row.push_back(Percent(f.counts.underflow, f.counts.numel));
        row.push_back(Percent(f.counts.overflow, f.counts.numel));
        row.push_back(Decibels(f.counts.SnrDb()));
      }
      t.AddRow(row);
    }
    std::cout << t.Render() << "\n";
  }
  for (const std::string& n : d.notes) std::cout << "note: " << n << "\n";
  {  // the live rules' findings (checks/), most severe and newest first
    std::vector<Finding> findings;
    for (const Finding& f : d.findings) {
      if (f.rule != "tracker_note") findings.push_back(f);
    }
    SortForDisplay(&findings);
    if (findings.empty()) std::cout << "Checks: no rule fired.\n";
    else std::cout << "Checks: " << findings.size() << " finding(s) (details: lpsim check " << d.run_path << ")\n";
    for (const Finding& f : findings) {
      std::cout << fmt::format("  [{}] step {} {}{}: {}\n", ToString(f.severity), f.step, f.rule,
                               f.tensor.empty() ? "" : " " + f.tensor, f.message);
    }
  }
  if (prediction) std::cout << "Prediction: " << PredictionText(target_name, *prediction) << ".\n";
  std::cout << "Run written to " << Printable(d.run_path) << "\n";
  if (!report_path.empty()) std::cout << "Report written to " << Printable(report_path) << "\n";
  if (!report_error.empty()) {
    std::cerr << "lpsim demo: warning: no report: " << Printable(report_error) << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddDemoCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<DemoArgs>();
  DemoOptions& o = args->options;
  CLI::App* cmd = app->add_subcommand(
      "demo", "Train a built-in model on built-in data with tracking (the main job)");
  cmd->add_option("--model", o.model, "mlp or cnn")->capture_default_str();
  cmd->add_option("--steps", o.steps, "training steps")->capture_default_str();
  cmd->add_option("--batch", o.batch, "batch size")->capture_default_str();
  cmd->add_option("--lr", args->lr, "Adam learning rate, in (0, 10]")->capture_default_str();
  cmd->add_option("--formats", o.formats, "candidate formats (comma separated)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--recipe", o.recipe,
                  "scaling: none, current, delayedN, mx, row, col, 1x128, 128x128")
      ->capture_default_str();
  cmd->add_flag("--simulate", o.simulate,
                "train with fake-quantized activations, weights and gradients");
  cmd->add_option("--simulate-forward", o.simulate_forward, "format of the forward pass")
      ->capture_default_str();
  cmd->add_option("--simulate-backward", o.simulate_backward, "format of the backward pass")
      ->capture_default_str();
  cmd->add_option("--target", o.target,
                  "a hardware target (name or .json path; lpsim targets): each role takes its "
                  "format and recipe from it, and --simulate trains as the target stores "
                  "every tensor")
      ->type_name("NAME|PATH");
  cmd->add_option("--matmul-unit", o.matmul_unit,
                  "run the models' matrix products (forward and both backward) on this unit "
                  "(docs/mmu.md: h100, b200, h100-promote128, ...); implies --simulate. "
                  "Default with --target: the unit the target names")
      ->type_name("UNIT");
  cmd->add_option("--probe", o.probe_targets,
                  "every --probe-every steps, also compute the step's loss with weights and activations "
                  "as each of these targets stores them (names or .json paths); lp_forward_loss warns "
                  "when a target's forward pass costs more than a quarter of what training has gained")
      ->delimiter(',')
      ->type_name("T1,T2");
  cmd->add_option("--probe-every", o.probe_every, "steps between probes")->capture_default_str();
  cmd->add_option("--rollout", o.probe_rollout,
                  "with --probe: every --rollout-every steps, also train this many steps from the step's "
                  "weights and optimizer state on its batch, in fp32 and as each --probe target trains; "
                  "lp_rollout warns when a target ends more than half the gain at stake behind fp32 "
                  "(0: none)")
      ->capture_default_str();
  cmd->add_option("--rollout-every", o.probe_rollout_every, "steps between rollouts (a multiple of --probe-every)")
      ->capture_default_str();
  cmd->add_option("--every", o.every, "record every N-th step")->capture_default_str();
  cmd->add_option("--run-dir", o.run_dir, "where the run database goes (replaced)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "random seed, 0..2^64-1")->capture_default_str();
  CLI::Option* live = cmd->add_flag(
      "--live", args->live,
      "serve a live dashboard and API while training (docs/live.md): the URL goes to stderr and "
      "RUN_DIR/live.url");
  cmd->add_option("--live-port", args->live_port, "the live agent's port on 127.0.0.1 (0: a free one)")
      ->check(CLI::Range(0, 65535))
      ->needs(live)
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print the result as JSON");
  cmd->add_flag("--quiet", args->quiet, "no progress bar");
  cmd->callback([selected, args] { *selected = [args] { return RunDemoCommand(*args); }; });
}

}  // namespace lpsim::cli
