// What every rule family shares: the finding sink (de-duplication, severity
// and on/off from the configuration) and a few small helpers.
//
// A family unit (checks/rules/*_rules.h) owns its state and its typed
// parameters and reports through a FindingSink:
//
//   sink->Judge("zero_loss", "loss", loss == 0, "loss", "the loss is 0 ...", {{"loss", loss}});
//
// Judge fires once while a (rule, key) condition holds and re-arms when it is
// seen false; a disabled rule never fires.
#ifndef LPSIM_CHECKS_RULES_RULE_SUPPORT_H_
#define LPSIM_CHECKS_RULES_RULE_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/records.h"

namespace lpsim {

struct CheckConfig;

class FindingSink {
 public:
  explicit FindingSink(const CheckConfig* config) : config_(config) {}

  void BeginStep(int64_t step) {
    step_ = step;
    fresh_.clear();
  }
  bool On(const char* rule) const;
  // One finding per episode: a (rule, key) whose condition holds gives a
  // finding, and gives another only after the condition has been false for
  // kEpisodeGap steps. A statistic that flaps around its threshold (an
  // update ratio at 10^-1.0 +- 0.05) is one problem, not one per crossing.
  static constexpr int64_t kEpisodeGap = 50;
  void Judge(const char* rule, const std::string& key, bool condition, const std::string& tensor,
             const std::string& message, std::map<std::string, double> evidence) {
    Judge(rule, key, condition, tensor, message, std::move(evidence), kEpisodeGap);
  }
  // An exact event (a non-finite value): every return after it cleared is a
  // new finding (each may be captured).
  void JudgeEvent(const char* rule, const std::string& key, bool condition, const std::string& tensor,
                  const std::string& message, std::map<std::string, double> evidence) {
    Judge(rule, key, condition, tensor, message, std::move(evidence), 0);
  }
  // The step's new findings, most severe first (stable within a severity).
  std::vector<Finding> TakeFresh();
  const std::vector<Finding>& findings() const { return findings_; }

 private:
  void Judge(const char* rule, const std::string& key, bool condition, const std::string& tensor,
             const std::string& message, std::map<std::string, double> evidence, int64_t gap);

  const CheckConfig* config_;
  int64_t step_ = 0;
  std::set<std::string> active_;
  std::map<std::string, int64_t> last_true_;  // (rule|key) -> last step its condition held
  std::vector<Finding> findings_, fresh_;
};

namespace rules {

// "%.3g": numbers in messages.
std::string Fmt(double v);
std::string Lower(std::string s);
inline bool IsGradient(Role r) { return r == Role::kWeightGrad || r == Role::kActivationGrad; }

// The highest loss still "within tolerance" of a reference loss, for a
// training whose loss went from `first` to `final`: reference + share *
// (first - final) on the linear scale; with `log_scale`, when first > final
// > 0 and reference > 0, reference * (first / final) ^ share where that is
// lower (a loss that falls by orders of magnitude is judged in orders:
// falling 1 -> 1e-4 allows 10x at share 0.25, not +0.25). By concavity the
// log bound is never the looser. lpsim validate's truth (share 0.25, both
// scales) and lp_forward_loss and lp_rollout (their own shares; the log
// scale with their log_scale parameter) use this one function.
double AllowedLoss(double reference, double first, double final, double share, bool log_scale);

template <typename T>
void Push(std::deque<T>* d, T v, size_t cap) {
  d->push_back(std::move(v));
  while (d->size() > cap) d->pop_front();
}

}  // namespace rules
}  // namespace lpsim

#endif  // LPSIM_CHECKS_RULES_RULE_SUPPORT_H_
