// Checker: the verification catalog over records (TFCheck / TheDeepChecker /
// SageMaker Debugger / AUTOTRAINER rules plus lpsim's low-precision rules).
//
// Rules read TensorRecords and ScalarRecords, never tensors, so the same
// Checker runs live inside the tracker and offline on a stored run
// (`lpsim check RUN`). Feed a step's records, then end the step; the new
// findings come back, de-duplicated: a rule fires once per tensor while its
// condition holds, and again only after the condition has cleared.
//
//   CheckConfig config = CheckConfig::Defaults();            // checks/check_config.h
//   config.activations.dead_relu.max_zero_share = 0.9;       // or CheckConfig::FromFile
//   Checker checker(config);
//   for (...) {
//     checker.Add(tensor_record);  checker.Add(ScalarRecord{step, "loss", l});
//     for (const Finding& f : checker.EndStep(step)) std::cerr << f.message << "\n";
//   }
//
// Every rule, its default thresholds and their sources: RuleCatalog(),
// `lpsim check --list-rules` and docs/checks.md. Each rule family is one unit
// under checks/rules/ that owns its state and its typed parameters; this
// class feeds them a step's records in a fixed order.
#ifndef LPSIM_CHECKS_CHECKER_H_
#define LPSIM_CHECKS_CHECKER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "checks/check_config.h"
#include "core/records.h"
#include "core/status.h"

namespace lpsim {

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
