// Checker: the verification catalog over records (TFCheck / TheDeepChecker /
// SageMaker Debugger / AUTOTRAINER rules plus lpsim's low-precision rules).
//
// Rules read TensorRecords and ScalarRecords, never tensors, so the same
// Checker runs live inside the tracker and offline on a stored run
// (`lpsim check RUN`). Feed a step's records, then end the step; the new
// findings come back, de-duplicated: a rule fires once per tensor while its
// condition holds, and again only after the condition has cleared.
//
//   CheckConfig config = CheckConfig::Defaults();
//   config.Set("dead_relu", "max_zero_share", 0.9);  // or CheckConfig::FromFile
//   Checker checker(config);
//   for (...) {
//     checker.Add(tensor_record);  checker.Add(ScalarRecord{step, "loss", l});
//     for (const Finding& f : checker.EndStep(step)) std::cerr << f.message << "\n";
//   }
//
// Every rule, its default thresholds and their sources: RuleCatalog() and
// docs/checks.md.
#ifndef LPSIM_CHECKS_CHECKER_H_
#define LPSIM_CHECKS_CHECKER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/records.h"
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

// One rule of the catalog, as documented.
struct RuleInfo {
  std::string name;      // e.g. "dead_relu"
  std::string category;  // parameters | activations | optimization | numerics | low_precision
  std::string what;      // one line: what the rule detects and how
  std::string source;    // where the default thresholds come from
  Severity severity = Severity::kWarning;
  Policy policy = Policy::kWarn;
  std::map<std::string, double> params;  // default thresholds
};
// Every rule, in documentation order.
const std::vector<RuleInfo>& RuleCatalog();

struct RuleConfig {
  bool enabled = true;
  Severity severity = Severity::kWarning;
  Policy policy = Policy::kWarn;
  std::map<std::string, double> params;
};

// The configuration of every rule: defaults from RuleCatalog(), overridden
// from the API or a JSON file:
//   {"dead_relu": {"max_zero_share": 0.9, "policy": "stop"},
//    "zero_loss": {"enabled": false},
//    "lp_snr": {"min_snr_db": 15, "severity": "error"}}
// Unknown rules, unknown parameters and non-numeric values are errors.
struct CheckConfig {
  std::map<std::string, RuleConfig> rules;

  static CheckConfig Defaults();
  static StatusOr<CheckConfig> FromJson(const std::string& json_text);
  static StatusOr<CheckConfig> FromFile(const std::string& path);
  // Overrides `text` (JSON as above) on top of this configuration.
  Status Merge(const std::string& json_text);
  // The whole configuration as JSON (what FromJson reads).
  std::string ToJson() const;

  Status Set(const std::string& rule, const std::string& param, double value);
  Status SetPolicy(const std::string& rule, Policy policy);
  Status Enable(const std::string& rule, bool on);
  // The value of a parameter; the catalog's default when not set.
  double Param(const std::string& rule, const std::string& param) const;
};

class Checker {
 public:
  explicit Checker(CheckConfig config = CheckConfig::Defaults());
  ~Checker();
  Checker(Checker&&) noexcept;
  Checker& operator=(Checker&&) noexcept;

  const CheckConfig& config() const;

  // Records of the step being fed (any order within the step).
  void Add(const TensorRecord& record);
  void Add(const ScalarRecord& scalar);
  // A weight as initialized, before the first update (the tracker feeds
  // these at its first step; they are not stored). Only poor_initialization
  // reads it. Without it (a stored run), that rule judges the first record,
  // which is taken after the first update.
  void AddInitialWeight(const TensorRecord& record);
  // Evaluates every rule on the step's records and returns the findings that
  // are new at this step (most severe first).
  std::vector<Finding> EndStep(int64_t step);
  // Every finding so far, in the order they fired.
  const std::vector<Finding>& findings() const;
  // The policy configured for a finding's rule (kLog for unknown rules).
  Policy PolicyFor(const std::string& rule) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Sorts findings for people: most severe first, then newest step first.
void SortForDisplay(std::vector<Finding>* findings);

}  // namespace lpsim

#endif  // LPSIM_CHECKS_CHECKER_H_
