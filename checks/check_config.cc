#include "checks/check_config.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "checks/rules/rule_support.h"

namespace lpsim {

const char* ToString(Policy p) {
  switch (p) {
    case Policy::kLog: return "log";
    case Policy::kWarn: return "warn";
    case Policy::kRaise: return "raise";
    case Policy::kStop: return "stop";
    case Policy::kCapture: return "capture";
  }
  return "?";
}

StatusOr<Policy> ParsePolicy(const std::string& s) {
  for (Policy p : {Policy::kLog, Policy::kWarn, Policy::kRaise, Policy::kStop, Policy::kCapture}) {
    if (s == ToString(p)) return p;
  }
  return Status::Error("unknown policy '" + s + "': use log, warn, raise, stop or capture");
}

StatusOr<Severity> ParseSeverity(const std::string& s) {
  for (Severity v : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    if (s == ToString(v)) return v;
  }
  return Status::Error("unknown severity '" + s + "': use info, warning or error");
}

namespace {

// A params struct's fields as (name, value) pairs.
template <typename P>
std::map<std::string, double> FieldValues(const P& p) {
  std::map<std::string, double> out;
  P::Visit(p, [&](const char* name, const auto& value, double, double) { out[name] = static_cast<double>(value); });
  return out;
}

}  // namespace

const std::vector<RuleInfo>& RuleCatalog() {
  static const std::vector<RuleInfo> kCatalog = [] {
    std::vector<RuleInfo> v;
    WeightRules::Catalog(&v);
    ActivationRules::Catalog(&v);
    LossRules::Catalog(&v);
    GradientRules::Catalog(&v);
    NonfiniteRule::Catalog(&v);
    LowPrecisionRules::Catalog(&v);
    // The defaults are the typed structs' initializers: one place.
    CheckConfig defaults;
    CheckConfig::ForEachRule(defaults, [&](const char* name, const auto& params) {
      for (RuleInfo& r : v) {
        if (r.name == name) r.params = FieldValues(params);
      }
    });
    return v;
  }();
  return kCatalog;
}

CheckConfig CheckConfig::Defaults() {
  CheckConfig c;
  for (const RuleInfo& r : RuleCatalog()) {
    RuleSettings s;
    s.severity = r.severity;
    s.policy = r.policy;
    c.rules[r.name] = s;
  }
  return c;
}

namespace {

std::string KnownRules() {
  std::string s;
  for (const RuleInfo& r : RuleCatalog()) s += (s.empty() ? "" : ", ") + r.name;
  return s;
}

Status UnknownRule(const std::string& rule) {
  return Status::Error("unknown rule '" + rule + "'; rules: " + KnownRules());
}

std::string Limit(double v) { return rules::Fmt(v); }

}  // namespace

Status CheckConfig::Set(const std::string& rule, const std::string& param, double value) {
  bool rule_found = false, param_found = false;
  std::string known, error;
  ForEachRule(*this, [&](const char* name, auto& params) {
    if (rule != name) return;
    rule_found = true;
    std::decay_t<decltype(params)>::Visit(params, [&](const char* field, auto& slot, double lo, double hi) {
      known += (known.empty() ? "" : ", ") + std::string(field);
      if (param != field) return;
      param_found = true;
      using T = std::decay_t<decltype(slot)>;
      // An integral slot also takes its type's range as a limit: converting
      // 1e300 to int is undefined behaviour, not a setting.
      if (std::is_integral<T>::value) {
        lo = std::max(lo, static_cast<double>(std::numeric_limits<T>::lowest()));
        hi = std::min(hi, static_cast<double>(std::numeric_limits<T>::max()));
      }
      const std::string where = "rule '" + rule + "', parameter '" + param + "': ";
      if (!std::isfinite(value)) {
        error = where + "not a finite number";
      } else if (std::is_integral<T>::value && value != std::floor(value)) {
        error = where + "expected an integer, got " + rules::Fmt(value);
      } else if (value < lo || value > hi) {
        error = where + rules::Fmt(value) + " is outside [" + Limit(lo) + ", " + Limit(hi) + "]";
      } else {
        slot = static_cast<T>(value);
      }
    });
  });
  if (!rule_found) return UnknownRule(rule);
  if (!param_found) {
    return Status::Error("rule '" + rule + "' has no parameter '" + param + "'" +
                         (known.empty() ? std::string(" (it has none)") : "; parameters: " + known));
  }
  if (!error.empty()) return Status::Error(error);
  return Status();
}

Status CheckConfig::SetPolicy(const std::string& rule, Policy policy) {
  auto it = rules.find(rule);
  if (it == rules.end()) return UnknownRule(rule);
  it->second.policy = policy;
  return Status();
}

Status CheckConfig::Enable(const std::string& rule, bool on) {
  auto it = rules.find(rule);
  if (it == rules.end()) return UnknownRule(rule);
  it->second.enabled = on;
  return Status();
}

bool CheckConfig::enabled(const std::string& rule) const {
  auto it = rules.find(rule);
  return it != rules.end() && it->second.enabled;
}

std::map<std::string, double> CheckConfig::Params(const std::string& rule) const {
  std::map<std::string, double> out;
  ForEachRule(*this, [&](const char* name, const auto& params) {
    if (rule == name) out = FieldValues(params);
  });
  return out;
}

Status CheckConfig::Merge(const std::string& json_text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(std::string("rules file is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) return Status::Error("rules file must be a JSON object {\"rule\": {...}, ...}");
  CheckConfig next = *this;  // all or nothing
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& rule = it.key();
    if (!next.rules.count(rule)) return UnknownRule(rule);
    if (!it.value().is_object()) return Status::Error("rule '" + rule + "': expected an object of settings");
    for (auto kv = it.value().begin(); kv != it.value().end(); ++kv) {
      const std::string& key = kv.key();
      const nlohmann::json& v = kv.value();
      if (key == "enabled") {
        if (!v.is_boolean()) return Status::Error("rule '" + rule + "': enabled must be true or false");
        next.rules[rule].enabled = v.get<bool>();
      } else if (key == "policy") {
        if (!v.is_string()) return Status::Error("rule '" + rule + "': policy must be a string");
        StatusOr<Policy> p = ParsePolicy(v.get<std::string>());
        if (!p.ok()) return Status::Error("rule '" + rule + "': " + p.status().message());
        next.rules[rule].policy = *p;
      } else if (key == "severity") {
        if (!v.is_string()) return Status::Error("rule '" + rule + "': severity must be a string");
        StatusOr<Severity> s = ParseSeverity(v.get<std::string>());
        if (!s.ok()) return Status::Error("rule '" + rule + "': " + s.status().message());
        next.rules[rule].severity = *s;
      } else {
        if (!next.Params(rule).count(key)) return next.Set(rule, key, 0);  // names the unknown parameter
        if (!v.is_number()) return Status::Error("rule '" + rule + "', parameter '" + key + "': expected a number");
        Status s = next.Set(rule, key, v.get<double>());
        if (!s.ok()) return s;
      }
    }
  }
  *this = std::move(next);
  return Status();
}

StatusOr<CheckConfig> CheckConfig::FromJson(const std::string& json_text) {
  CheckConfig c = Defaults();
  Status s = c.Merge(json_text);
  if (!s.ok()) return s;
  return c;
}

StatusOr<CheckConfig> CheckConfig::FromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error("cannot read rules file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  StatusOr<CheckConfig> c = FromJson(ss.str());
  if (!c.ok()) return Status::Error(path + ": " + c.status().message());
  return c;
}

std::string CheckConfig::ToJson() const {
  nlohmann::ordered_json j;
  for (const auto& [name, rc] : rules) {
    nlohmann::ordered_json r = {{"enabled", rc.enabled},
                                {"severity", ToString(rc.severity)},
                                {"policy", ToString(rc.policy)}};
    for (const auto& [k, v] : Params(name)) r[k] = v;
    j[name] = r;
  }
  return j.dump(2);
}

}  // namespace lpsim
