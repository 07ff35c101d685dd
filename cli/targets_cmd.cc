// `lpsim targets`: the hardware targets (built-in, or files given with
// --target) with their per-role formats and recipes, as a table or JSON;
// with one --target, every field of every role and its source.
//
//   lpsim targets
//   lpsim targets --target int8-npu
//   lpsim targets --target my_chip.json --json
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "core/target.h"

namespace lpsim::cli {
namespace {

struct TargetsOptions {
  std::vector<std::string> targets;
  bool json = false;
};

// "e4m3fn delayed1024:max", the format without the role's :sat/:ftz
// suffixes (shown in the detail view).
std::string Cell(const RoleSpec& r) {
  std::string s = r.storage_spec;
  if (r.scaling.kind != Scaling::Kind::kNone &&
      r.scaling.kind != Scaling::Kind::kInteger) {
    s += " " + r.scaling.FullName();
  } else if (r.scaling.kind == Scaling::Kind::kInteger) {
    s += r.scaling.integer.per_channel ? " per-channel" : " per-tensor";
    s += r.scaling.integer.symmetric ? "" : " zp";
  }
  if (r.storage == RoleSpec::Storage::kInteger
          ? r.int_rounding == IntRounding::kStochastic
          : r.rounding == Rounding::kStochastic) {
    s += " sr";
  }
  return s;
}

std::string RoundingName(const RoleSpec& r) {
  return r.storage == RoleSpec::Storage::kInteger ? ToString(r.int_rounding)
                                                  : ToString(r.rounding);
}

std::string Detail(const Target& t) {
  std::string out = t.name + ": " + t.description + "\n(" + t.origin + ")\n";
  if (t.inference_only) out += "Inference only: its break prediction reads the forward pass alone; no rollouts.\n";
  out += "\n";
  Table tab({{"role"}, {"storage"}, {"scaling"}, {"rounding"}, {"subnormals in/out"},
             {"saturate"}, {"max", true}, {"matmul unit"}});
  for (TargetRole role : AllTargetRoles()) {
    const RoleSpec& r = t.role(role);
    tab.AddRow({ToString(role), r.StorageName(), r.scaling.FullName(), RoundingName(r),
                std::string(r.subnormals_in ? "yes" : "no") + "/" +
                    (r.subnormals_out ? "yes" : "no"),
                r.saturate ? "yes" : "no", Number(r.MaxValue()),
                r.matmul_unit.empty() ? "-" : r.matmul_unit});
  }
  out += tab.Render() + "\nSources\n";
  for (TargetRole role : AllTargetRoles()) {
    for (const auto& [field, cite] : t.role(role).sources) {
      out += "  " + std::string(ToString(role)) + "." + field + ": " + t.Source(role, field) +
             "\n";
      (void)cite;
    }
  }
  return out;
}

}  // namespace

nlohmann::ordered_json TargetJson(const Target& t) {
  nlohmann::ordered_json roles = nlohmann::ordered_json::object();
  for (TargetRole role : AllTargetRoles()) {
    const RoleSpec& r = t.role(role);
    nlohmann::ordered_json sources = nlohmann::ordered_json::object();
    for (const auto& kv : r.sources) sources[kv.first] = t.Source(role, kv.first);
    roles[ToString(role)] = {
        {"format", r.StorageName()},
        {"storage", r.storage == RoleSpec::Storage::kFloat     ? "float"
                    : r.storage == RoleSpec::Storage::kInteger ? "integer"
                                                               : "block_fp"},
        {"scaling", r.scaling.FullName()},
        {"rounding", RoundingName(r)},
        {"subnormals", {{"in", r.subnormals_in}, {"out", r.subnormals_out}}},
        {"saturate", r.saturate},
        {"matmul_unit", r.matmul_unit},
        {"max", r.MaxValue()},
        {"min_positive", r.MinPositive()},
        {"sources", sources},
    };
  }
  return {{"name", t.name},         {"description", t.description},
          {"vendor", t.vendor},     {"inference_only", t.inference_only},
          {"file", t.origin},       {"roles", roles}};
}

std::vector<ExtraRange> TargetRanges(const Target& t) {
  const std::pair<TargetRole, Role> roles[] = {{TargetRole::kActivation, Role::kActivation},
                                               {TargetRole::kActivationGrad, Role::kActivationGrad},
                                               {TargetRole::kWeight, Role::kWeight},
                                               {TargetRole::kWeightGrad, Role::kWeightGrad},
                                               {TargetRole::kOptimizerState, Role::kOptimizerState}};
  std::vector<ExtraRange> out;
  for (const auto& [tr, role] : roles) {
    const RoleSpec& r = t.role(tr);
    if (r.storage != RoleSpec::Storage::kFloat) continue;
    ExtraRange x;
    x.label = t.name + ":" + r.format.name();
    x.role = role;
    x.format = r.format;
    switch (r.scaling.kind) {
      case Scaling::Kind::kNone:
      case Scaling::Kind::kInteger: x.scaled = false; break;
      case Scaling::Kind::kCurrent:
      case Scaling::Kind::kDelayed: x.scale = r.scaling.scale_options(); break;
      case Scaling::Kind::kBlock:
        x.scale = r.scaling.block.scale;
        // E8M0 scales are powers of two.
        if (r.scaling.block.scale_type == BlockSpec::ScaleType::kE8m0) x.scale.power_of_two = true;
        break;
    }
    out.push_back(x);
  }
  return out;
}

StatusOr<std::vector<Target>> LoadTargets(const std::vector<std::string>& names) {
  std::vector<Target> out;
  for (const std::string& n : names) {
    StatusOr<Target> t = FindTarget(n);
    if (!t.ok()) return t.status();
    out.push_back(std::move(t).value());
  }
  return out;
}

namespace {

int RunTargets(const TargetsOptions& opt) {
  StatusOr<std::vector<Target>> targets =
      opt.targets.empty() ? BuiltinTargets() : LoadTargets(opt.targets);
  if (!targets.ok()) return PrintError("targets", targets.status().message(), kExitBadInput);
  if (opt.json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const Target& t : *targets) arr.push_back(TargetJson(t));
    std::cout << arr.dump(2) << "\n";
    return kExitOk;
  }
  if (opt.targets.size() == 1) {
    std::cout << Detail(targets->front());
    return kExitOk;
  }
  std::vector<Column> cols = {{"target"}};
  for (TargetRole role : AllTargetRoles()) cols.push_back({ToString(role)});
  Table tab(cols);
  for (const Target& t : *targets) {
    std::vector<std::string> row = {t.name};
    for (TargetRole role : AllTargetRoles()) row.push_back(Cell(t.role(role)));
    tab.AddRow(row);
  }
  std::cout << tab.Render();
  return kExitOk;
}

}  // namespace

void AddTargetsCommand(CLI::App* app, Command* selected) {
  auto opt = std::make_shared<TargetsOptions>();
  CLI::App* sub = app->add_subcommand(
      "targets", "List the hardware targets with the format and recipe of each tensor role");
  sub->add_option("--target,-t", opt->targets,
                  "Show this target (a built-in name or a .json path; repeatable); one target "
                  "prints every field with its source")
      ->type_name("NAME|PATH");
  sub->add_flag("--json", opt->json, "Print a JSON array instead of a table");
  sub->callback([opt, selected] { *selected = [opt] { return RunTargets(*opt); }; });
}

}  // namespace lpsim::cli
