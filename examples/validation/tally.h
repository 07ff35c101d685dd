// The validation harness's table (validation.cc): a cell is one program on
// one target, its prediction (the first lp_* finding of the fp32 run judged
// on the target) beside its truth (the simulated runs); a Tally counts cells
// into a confusion matrix with leads and intervals, and ByRule says what
// each rule contributes. Pure arithmetic (no LibTorch), so that it is tested
// on its own (tests/examples/validation_tally_test.cc).
//
//   Tally t;
//   for (const Cell& c : cells) t.Add(c);
//   t.Precision(), t.Recall(), t.MedianLead(), t.Intervals();
//   for (const auto& [rule, r] : ByRule(cell_pointers, /*pooled=*/true)) ...
#ifndef LPSIM_EXAMPLES_VALIDATION_TALLY_H_
#define LPSIM_EXAMPLES_VALIDATION_TALLY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "examples/validation/truth.h"

namespace lpsim::validation {

// What the fp32 run predicts on a target: the first lp_* warning or error.
struct Prediction {
  bool fires = false;
  int64_t step = -1;
  std::string rule, tensor;
  std::string message;                     // the finding's text (format, recipe, role)
  std::map<std::string, double> evidence;  // and its numbers
  // The first step of each rule that fired (warnings and errors), to tell
  // what each rule contributes.
  std::map<std::string, int64_t> first_by_rule;
};

using Group = size_t;  // an index into the corpus's groups (validation.cc kGroupSources)

struct Cell {
  std::string program, target;
  Group group = 0;
  Prediction pred;
  Truth truth;
};

// A confusion matrix of cells ("this training breaks here" predicted
// against simulated), with the leads (break step - prediction step) of the
// hits.
struct Tally {
  int tp = 0, fp = 0, fn = 0, tn = 0;
  std::vector<double> leads;
  // Pooled over targets: a program's cells are one cluster and the
  // intervals are ClusterBootstrapIntervals'; else (one target) each cell
  // is a program of its own and they are Clopper-Pearson's.
  bool pooled = false;
  std::map<std::string, ClusterCounts> by_program;
  void Add(const Cell& c);
  double Precision() const;  // NaN without a prediction
  double Recall() const;     // NaN without a break
  PrecisionRecallIntervals Intervals() const;
  double MedianLead() const;  // NaN without a hit
};

// What one lp_* rule contributes over the predicted cells: as the rule that
// fired first (the cell's prediction: its hits, false alarms and leads in
// `first`, whose fn and tn stay 0, since a miss is no rule's), as one that
// fired at any step, and as the only one that fired (hits no other rule
// would make, false alarms no other rule shares).
struct RuleTally {
  Tally first;
  int fired_tp = 0, fired_fp = 0, alone_tp = 0, alone_fp = 0;
};

// Per rule over `cells` (`pooled`: the cells span targets, so a program's
// cells are one cluster for the precision's interval), the rules with the
// most first calls first, ties by name.
std::vector<std::pair<std::string, RuleTally>> ByRule(const std::vector<const Cell*>& cells, bool pooled);

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_TALLY_H_
