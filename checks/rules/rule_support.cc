#include "checks/rules/rule_support.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "checks/check_config.h"

namespace lpsim {

bool FindingSink::On(const char* rule) const { return config_->enabled(rule); }

void FindingSink::Judge(const char* rule, const std::string& key, bool condition, const std::string& tensor,
                        const std::string& message, std::map<std::string, double> evidence, int64_t gap) {
  if (!On(rule)) return;
  const std::string k = std::string(rule) + "|" + key;
  if (!condition) {
    active_.erase(k);
    return;
  }
  auto last = last_true_.find(k);
  const bool same_episode = gap > 0 && last != last_true_.end() && step_ - last->second <= gap;
  last_true_[k] = step_;
  if (!active_.insert(k).second || same_episode) return;
  Finding f;
  f.rule = rule;
  f.severity = config_->rules.at(rule).severity;
  f.step = step_;
  f.tensor = tensor;
  f.message = message;
  f.evidence = std::move(evidence);
  findings_.push_back(f);
  fresh_.push_back(std::move(f));
}

std::vector<Finding> FindingSink::TakeFresh() {
  std::vector<Finding> v = std::move(fresh_);
  fresh_.clear();
  std::stable_sort(v.begin(), v.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
  return v;
}

namespace rules {

std::string Fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

double AllowedLoss(double reference, double first, double final, double share, bool log_scale) {
  const double linear = reference + share * std::max(first - final, 1e-12);
  if (!log_scale || !(first > final && final > 0 && reference > 0)) return linear;
  return std::min(linear, reference * std::pow(first / final, share));
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace rules
}  // namespace lpsim
