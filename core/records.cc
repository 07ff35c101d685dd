#include "core/records.h"

#include <algorithm>
#include <cmath>

namespace lpsim {

namespace {

const char* SingleName(Role r) {
  switch (r) {
    case Role::kActivation: return "activation";
    case Role::kActivationGrad: return "activation_grad";
    case Role::kWeight: return "weight";
    case Role::kWeightGrad: return "weight_grad";
    case Role::kOptimizerState: return "optimizer_state";
    default: return nullptr;
  }
}

}  // namespace

std::string ToString(Role r) {
  if (r == Role::kAll) return "all";
  if (r == Role::kNone) return "none";
  std::string out;
  for (Role single : kSingleRoles) {
    if (!Contains(r, single)) continue;
    if (!out.empty()) out += "|";
    out += SingleName(single);
  }
  return out;
}

StatusOr<Role> ParseRole(const std::string& s) {
  if (s == "all") return Role::kAll;
  if (s == "none") return Role::kNone;
  Role out = Role::kNone;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find_first_of("|,", start);
    if (end == std::string::npos) end = s.size();
    const std::string part = s.substr(start, end - start);
    bool found = false;
    for (Role single : kSingleRoles) {
      if (part == SingleName(single)) {
        out = out | single;
        found = true;
      }
    }
    if (!found) {
      return Status::Error("unknown role '" + part +
                           "': use activation, activation_grad, weight, weight_grad, "
                           "optimizer_state, a '|'-separated list of them, all or none");
    }
    start = end + 1;
  }
  return out;
}

const char* ToString(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "?";
}

double SampleSummary::ShareBelow(const Quantiles& q, double value) {
  if (q.empty()) return NAN;
  if (!(value > q.front())) return 0;
  if (value > q.back()) return 1;
  // q[k] is the quantile of level k / (size - 1): the share below `value`
  // lies between the levels of the two quantiles around it.
  const size_t k = static_cast<size_t>(std::lower_bound(q.begin(), q.end(), static_cast<float>(value)) - q.begin());
  const double lo = q[k - 1], hi = q[k];
  const double t = hi > lo ? (value - lo) / (hi - lo) : 1;
  return (static_cast<double>(k - 1) + t) / static_cast<double>(q.size() - 1);
}

}  // namespace lpsim
