// `lpsim check --list-rules [--json]`, run as the real binary: the catalog it
// prints is the one the checker uses (every rule, its severity, every
// threshold with its default, its source), and docs/checks.md documents
// every rule with the same defaults.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "checks/check_config.h"
#include "tests/common/run_command.h"

#ifndef LPSIM_BIN
#error "LPSIM_BIN must name the lpsim binary (tests/cli/CMakeLists.txt)"
#endif
#ifndef LPSIM_SOURCE_DIR
#error "LPSIM_SOURCE_DIR must name the source tree (tests/cli/CMakeLists.txt)"
#endif

namespace lpsim {
namespace {

std::string Bin() { return LPSIM_BIN; }

TEST(CheckListRules, JsonIsTheCatalogTheCheckerUses) {
  CommandResult r = RunCommand(Bin() + " check --list-rules --json 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const std::vector<RuleInfo>& catalog = RuleCatalog();
  ASSERT_EQ(j.at("rules").size(), catalog.size());
  const CheckConfig defaults = CheckConfig::Defaults();
  for (size_t i = 0; i < catalog.size(); ++i) {
    const nlohmann::json& rule = j["rules"][i];
    const RuleInfo& info = catalog[i];
    EXPECT_EQ(rule.at("rule"), info.name);
    EXPECT_EQ(rule.at("severity"), ToString(defaults.rules.at(info.name).severity));
    EXPECT_FALSE(rule.at("what").get<std::string>().empty()) << info.name;
    EXPECT_FALSE(rule.at("source").get<std::string>().empty()) << info.name;
    // Thresholds: the values the checker starts from.
    const std::map<std::string, double> params = defaults.Params(info.name);
    ASSERT_EQ(rule.at("thresholds").size(), params.size()) << info.name;
    for (const auto& [k, v] : params) EXPECT_EQ(rule["thresholds"].at(k).get<double>(), v) << info.name << "." << k;
  }
  // Spot checks against the documented values, so a changed default is seen.
  EXPECT_EQ(j["rules"][0]["rule"], "untrained_parameter");
  bool seen = false;
  for (const auto& rule : j["rules"]) {
    if (rule["rule"] == "dead_relu") {
      seen = true;
      EXPECT_EQ(rule["thresholds"]["max_zero_share"].get<double>(), 0.85);
      EXPECT_EQ(rule["severity"], "warning");
    }
  }
  EXPECT_TRUE(seen);
}

TEST(CheckListRules, TextNamesEveryRuleThresholdAndSource) {
  CommandResult r = RunCommand(Bin() + " check --list-rules 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const RuleInfo& info : RuleCatalog()) {
    const size_t at = r.out.find(info.name + "  [");
    ASSERT_NE(at, std::string::npos) << info.name << "\n" << r.out;
    const size_t end = r.out.find("\n\n", at);
    const std::string block = r.out.substr(at, end - at);
    EXPECT_NE(block.find("source: " + info.source), std::string::npos) << block;
    for (const auto& [k, v] : info.params) {
      char want[128];
      std::snprintf(want, sizeof want, "%s = %g", k.c_str(), v);
      EXPECT_NE(block.find(want), std::string::npos) << want << "\n" << block;
    }
  }
}

TEST(CheckListRules, BadCombinationsExitTwo) {
  EXPECT_EQ(RunCommand(Bin() + " check --list-rules runs/x 2>/dev/null").code, 2);
  CommandResult r = RunCommand(Bin() + " check 2>&1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("RUN is required"), std::string::npos) << r.out;
}

// "1e-05" -> "1e-5", "1e+08" -> "1e8": how docs/checks.md writes exponents.
std::string ShortExponent(std::string s) {
  const size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string exp = s.substr(e + 1);
  const bool neg = exp[0] == '-';
  exp = exp.substr(1);
  while (exp.size() > 1 && exp[0] == '0') exp = exp.substr(1);
  return s.substr(0, e) + "e" + (neg ? "-" : "") + exp;
}

// The ways the docs may write v: %g ("0.001", "2000") or the shortest
// exact scientific form ("1e-3").
std::vector<std::string> DocNumbers(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  std::vector<std::string> out = {ShortExponent(buf)};
  for (int digits = 0; digits < 8; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits, v);
    if (std::stod(buf) == v) {
      out.push_back(ShortExponent(buf));
      break;
    }
  }
  return out;
}

TEST(CheckListRules, DocsTableDocumentsEveryRuleWithItsDefaults) {
  std::ifstream in(std::string(LPSIM_SOURCE_DIR) + "/docs/checks.md");
  ASSERT_TRUE(in) << "docs/checks.md";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string docs = ss.str();
  // The docs write minus signs as U+2212.
  for (size_t i = docs.find("\xE2\x88\x92"); i != std::string::npos; i = docs.find("\xE2\x88\x92", i)) {
    docs.replace(i, 3, "-");
  }
  for (const RuleInfo& info : RuleCatalog()) {
    const size_t at = docs.find("| `" + info.name + "` |");
    ASSERT_NE(at, std::string::npos) << info.name << " has no row in docs/checks.md";
    const std::string row = docs.substr(at, docs.find('\n', at) - at);
    for (const auto& [k, v] : info.params) {
      bool found = false;
      for (const std::string& n : DocNumbers(v)) found = found || row.find(k + " " + n) != std::string::npos;
      EXPECT_TRUE(found) << info.name << ": '" << k << " " << DocNumbers(v)[0] << "' not in its docs row:\n" << row;
    }
  }
}

}  // namespace
}  // namespace lpsim
