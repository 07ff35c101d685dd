// `lpsim recommend RUN`: per role and layer, the narrowest format x scaling
// recipe that keeps within the underflow, overflow and SNR budgets, ranked
// candidates and the reasons (report/recommend.h, docs/report.md).
//
//   lpsim recommend runs/demo
//   lpsim recommend runs/demo --formats e4m3fn,e5m2,e2m1fn --min-snr 25 --json
//   lpsim recommend runs/demo --targets h100-fp8-delayed,b200-nvfp4
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "core/printable.h"
#include "core/target.h"
#include "simd/role_quantizer.h"
#include "simd/scaling.h"
#include "report/recommend.h"
#include "report/stored_check.h"
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
  std::vector<std::string> targets;
  bool json = false;
};

// One tensor of the run: its latest record and the amax of every tracked
// step (delayed scaling replays them).
struct Tracked {
  TensorRecord last;
  std::vector<float> amax;
};

// What a target does to one tracked tensor, estimated from its histograms
// (report/recommend.h); integer and block floating-point storage cannot be
// estimated from a histogram and are marked so.
struct Verdict {
  bool estimated = false;
  CastEstimate e;
  std::vector<std::string> breaks;  // "underflow", "overflow", "snr"
  std::string note;
  double SnrDb() const {
    return e.sq_error > 0 ? 10 * std::log10(e.sq_signal / e.sq_error)
                          : std::numeric_limits<double>::infinity();
  }
};

Verdict Judge(const RoleSpec& spec, const Tracked& t, const Budgets& b) {
  Verdict v;
  if (spec.storage != RoleSpec::Storage::kFloat) {
    v.note = "not estimated from a run (integer / block fp: lpsim analyze --target on the tensors)";
    return v;
  }
  const Format& f = spec.format;
  const TensorStats& st = t.last.stats;
  const Scaling& s = spec.scaling;
  switch (s.kind) {
    case Scaling::Kind::kBlock:
      v.e = EstimateBlockCast(st, f, s.block, t.last.shape);
      break;
    case Scaling::Kind::kCurrent:
      v.e = EstimateCast(st, f, CurrentScale(f, st.max_abs, s.scale));
      break;
    case Scaling::Kind::kDelayed: {
      // The scale of the last step: the first from its own amax, later ones
      // from the history of the steps before (as RoleQuantizer does).
      DelayedScaler d(f, s.delayed);
      float scale = t.amax.empty() ? 1.0f : CurrentScale(f, t.amax[0], s.delayed.scale);
      for (size_t i = 0; i + 1 < t.amax.size(); ++i) {
        d.Update(t.amax[i]);
        scale = d.Scale();
      }
      v.e = EstimateCast(st, f, scale);
      break;
    }
    case Scaling::Kind::kNone:
    case Scaling::Kind::kInteger:
      v.e = EstimateCast(st, f, 1.0f);
      break;
  }
  v.estimated = true;
  const double n = static_cast<double>(std::max<uint64_t>(v.e.numel, 1));
  if (static_cast<double>(v.e.underflow.upper) / n > b.max_underflow) v.breaks.push_back("underflow");
  if (static_cast<double>(v.e.overflow.upper) / n > b.max_overflow) v.breaks.push_back("overflow");
  if (v.SnrDb() < b.min_snr_db) v.breaks.push_back("snr");
  return v;
}

int CompareTargets(const RunReader& reader, const std::vector<Target>& targets, const Budgets& b,
                   bool json) {
  std::map<std::pair<Role, std::string>, Tracked> tensors;
  Status st = reader.ForEachRecord({}, [&](TensorRecord&& r) {
    Tracked& t = tensors[{r.role, r.name}];
    t.amax.push_back(r.stats.max_abs);
    if (t.amax.size() == 1 || r.step >= t.last.step) t.last = std::move(r);
    return Status();
  });
  if (!st.ok()) return PrintError("recommend", st);
  std::vector<size_t> broken(targets.size(), 0), unknown(targets.size(), 0);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::vector<Column> cols = {{"role"}, {"layer"}};
  for (const Target& t : targets) cols.push_back({t.name});
  Table tab(cols);
  for (const auto& [key, t] : tensors) {
    std::vector<std::string> row = {ToString(key.first), key.second};
    nlohmann::ordered_json jr = {{"role", ToString(key.first)}, {"layer", key.second},
                                 {"step", t.last.step}};
    for (size_t i = 0; i < targets.size(); ++i) {
      const RoleSpec& spec = targets[i].role(ToTargetRole(key.first));
      const Verdict v = Judge(spec, t, b);
      nlohmann::ordered_json jt = {{"format", spec.StorageName()},
                                   {"scaling", spec.scaling.FullName()},
                                   {"estimated", v.estimated}};
      if (!v.estimated) {
        ++unknown[i];
        row.push_back("?");
        jt["note"] = v.note;
      } else {
        const double snr = v.SnrDb();
        const uint64_t n = v.e.numel;
        std::string cell = spec.StorageName() + " " + (std::isfinite(snr) ? Decibels(snr) : "inf") + " dB";
        if (v.breaks.empty()) {
          cell += " ok";
        } else {
          ++broken[i];
          std::string what;
          for (const std::string& w : v.breaks) what += (what.empty() ? "" : "+") + w;
          cell += " OVER(" + what + ")";
        }
        row.push_back(cell);
        jt["underflow"] = {{"lower", v.e.underflow.lower}, {"upper", v.e.underflow.upper}};
        jt["overflow"] = {{"lower", v.e.overflow.lower}, {"upper", v.e.overflow.upper}};
        jt["numel"] = n;
        jt["snr_db"] = std::isfinite(snr) ? nlohmann::ordered_json(snr) : nlohmann::ordered_json(nullptr);
        jt["over_budget"] = v.breaks;
      }
      jr["targets"][targets[i].name] = jt;
    }
    tab.AddRow(row);
    rows.push_back(jr);
  }
  // The verdict per target is the break prediction (the low-precision rules
  // on the whole run judged on the target, as `lpsim check --target`), not
  // the budgets: a tensor over a budget at its last step is a number to read,
  // not a training that breaks (NVFP4 keeps about 20 dB on every tensor and
  // trains most programs of the validation corpus as fp32 does).
  std::vector<BreakPrediction> predictions;
  for (const Target& t : targets) {
    StatusOr<BreakPrediction> p = PredictBreak(reader, t);
    if (!p.ok()) return PrintError("recommend", p.status());
    predictions.push_back(std::move(p).value());
  }
  if (json) {
    nlohmann::ordered_json j = {
        {"budgets", {{"max_underflow", b.max_underflow}, {"max_overflow", b.max_overflow},
                     {"min_snr_db", b.min_snr_db}}},
        {"targets", nlohmann::ordered_json::array()},
        {"rows", rows}};
    for (size_t i = 0; i < targets.size(); ++i) {
      j["targets"].push_back({{"name", targets[i].name},
                              {"prediction", PredictionJson(targets[i].name, predictions[i])},
                              {"layers_over_budget", broken[i]},
                              {"layers_not_estimated", unknown[i]}});
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "Per layer, each tensor's last tracked step as each target stores it (estimated "
               "from the histograms;\nOVER = over a budget: worst-case underflow > "
            << 100 * b.max_underflow << "%, overflow > " << 100 * b.max_overflow
            << "% or SNR < " << b.min_snr_db << " dB; ? = integer or block fp storage, "
               "estimate with lpsim analyze --target):\n\n"
            << tab.Render() << "\n"
            << "Prediction per target (the low-precision rules on the whole run judged on it, as lpsim check "
               "--target; lpsim validate measures it):\n";
  for (size_t i = 0; i < targets.size(); ++i) {
    std::cout << "  " << PredictionText(targets[i].name, predictions[i]) << "; " << broken[i]
              << " of " << tensors.size() << " tensors over the budgets"
              << (unknown[i] ? ", " + std::to_string(unknown[i]) + " not estimated" : "") << "\n";
  }
  return kExitOk;
}

int RunRecommend(const RecommendArgs& a) {
  auto fail = [](const std::string& m, int code) { return PrintError("recommend", m, code); };
  for (const std::string& f : a.options.formats) {
    StatusOr<Format> parsed = ParseFormat(f);
    if (!parsed.ok()) return fail(parsed.status().message(), kExitBadInput);
  }
  for (const std::string& r : a.options.what_if_recipes) {
    StatusOr<Scaling> parsed = Scaling::Parse(r);
    if (!parsed.ok()) return fail(parsed.status().message(), kExitBadInput);
  }
  StatusOr<std::vector<Target>> targets = LoadTargets(a.targets);
  if (!targets.ok()) return fail("--targets: " + targets.status().message(), kExitBadInput);
  StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(a.run);
  if (!reader.ok()) return fail(reader.status().message(), kExitBadInput);
  if (!targets->empty()) return CompareTargets(**reader, *targets, a.options.budgets, a.json);
  StatusOr<Recommendation> r = Recommend(**reader, a.options);
  if (!r.ok()) return PrintError("recommend", r.status());
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
  std::cout << PrintableLines(RecommendationTable(*r));
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
  cmd->add_option("--targets", args->targets,
                  "compare hardware targets instead (names or .json paths, comma separated): per "
                  "layer what each does to the tensor and which break the budgets")
      ->delimiter(',');
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
