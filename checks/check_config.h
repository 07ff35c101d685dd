// The rule catalog and the configuration of every rule.
//
// Each rule's thresholds are a typed struct owned by its family
// (checks/rules/*.h), reached by name in code, so a misspelt parameter does
// not compile:
//
//   CheckConfig config = CheckConfig::Defaults();
//   config.activations.dead_relu.max_zero_share = 0.9;
//   config.rules["zero_loss"].enabled = false;          // or Enable("zero_loss", false)
//
// From JSON (a file, `lpsim check --rules`), names are checked at run time:
// an unknown rule or parameter, a value of the wrong type or out of range is
// an error that names it:
//
//   {"dead_relu": {"max_zero_share": 0.9, "policy": "stop"},
//    "zero_loss": {"enabled": false},
//    "lp_snr": {"min_snr_db": 15, "severity": "error"}}
#ifndef LPSIM_CHECKS_CHECK_CONFIG_H_
#define LPSIM_CHECKS_CHECK_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/records.h"
#include "checks/rules/activation_rules.h"
#include "checks/rules/gradient_rules.h"
#include "checks/rules/loss_rules.h"
#include "checks/rules/lp_rules.h"
#include "checks/rules/nonfinite_rule.h"
#include "checks/rules/weight_rules.h"
#include "core/status.h"

namespace lpsim {

// What the tracker does when a rule fires (offline, every policy just logs).
enum class Policy : uint8_t {
  kLog,      // store the finding (run database, Tracker::findings())
  kWarn,     // also print it to stderr, once per rule and tensor
  kRaise,    // also throw lpsim::TrackerError from Tracker::step
  kStop,     // also set StepResult::stop so the loop can end the run
  kCapture,  // also write a capture folder of the step (batch, model, ...)
};
const char* ToString(Policy p);
StatusOr<Policy> ParsePolicy(const std::string& s);
StatusOr<Severity> ParseSeverity(const std::string& s);

// One rule of the catalog, as documented.
struct RuleInfo {
  std::string name;      // e.g. "dead_relu"
  std::string category;  // parameters | activations | optimization | numerics | low_precision
  std::string what;      // one line: what the rule detects and how
  std::string source;    // where the default thresholds come from
  Severity severity = Severity::kWarning;
  Policy policy = Policy::kWarn;
  std::map<std::string, double> params;  // default thresholds (from the typed structs)
};
// Every rule, in documentation order.
const std::vector<RuleInfo>& RuleCatalog();
// A family's catalog entry (default policy warn; RuleCatalog() adds the
// thresholds from the typed structs).
inline RuleInfo CatalogEntry(std::string name, std::string category, std::string what, std::string source,
                             Severity severity) {
  RuleInfo r;
  r.name = std::move(name);
  r.category = std::move(category);
  r.what = std::move(what);
  r.source = std::move(source);
  r.severity = severity;
  return r;
}

// What every rule has besides its thresholds.
struct RuleSettings {
  bool enabled = true;
  Severity severity = Severity::kWarning;
  Policy policy = Policy::kWarn;
};

struct CheckConfig {
  std::map<std::string, RuleSettings> rules;  // every rule of RuleCatalog() by name
  // Thresholds, one typed struct per rule, grouped by family.
  WeightParams weights;
  ActivationParams activations;
  LossParams loss;
  GradientParams gradients;
  NonfiniteParams numerics;
  LowPrecisionParams low_precision;

  static CheckConfig Defaults();
  static StatusOr<CheckConfig> FromJson(const std::string& json_text);
  static StatusOr<CheckConfig> FromFile(const std::string& path);
  // Overrides `text` (JSON as above) on top of this configuration; on an
  // error this configuration is left as it was.
  Status Merge(const std::string& json_text);
  // The whole configuration as JSON (what FromJson reads).
  std::string ToJson() const;

  // By name, for configuration files and command lines: errors name the
  // unknown rule or parameter and list the known ones.
  Status Set(const std::string& rule, const std::string& param, double value);
  Status SetPolicy(const std::string& rule, Policy policy);
  Status Enable(const std::string& rule, bool on);
  bool enabled(const std::string& rule) const;
  // A rule's parameters and their values, for display (empty for an unknown rule).
  std::map<std::string, double> Params(const std::string& rule) const;

  // Calls f(rule_name, params_struct) for every rule, in catalog order.
  template <typename Self, typename F>
  static void ForEachRule(Self& c, F&& f) {
    WeightParams::Rules(c.weights, f);
    ActivationParams::Rules(c.activations, f);
    LossParams::Rules(c.loss, f);
    GradientParams::Rules(c.gradients, f);
    NonfiniteParams::Rules(c.numerics, f);
    LowPrecisionParams::Rules(c.low_precision, f);
  }
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_CHECK_CONFIG_H_
