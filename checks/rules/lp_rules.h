// Low-precision rules: lp_underflow, lp_overflow, lp_headroom,
// lp_dynamic_range, lp_snr, lp_stale_scaling, lp_delayed_warmup, judged per (tensor, role,
// format, recipe) on a record's FormatRecords.
//
//   LowPrecisionRules lp(config.low_precision, &sink);
//   for (const FormatRecord& f : r.formats) lp.Judge(r, f);
#ifndef LPSIM_CHECKS_RULES_LP_RULES_H_
#define LPSIM_CHECKS_RULES_LP_RULES_H_

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/records.h"
#include "checks/rules/params.h"
#include "checks/rules/rule_support.h"
#include "formats/format.h"

namespace lpsim {

// Every lp_* rule's `roles`: the bit set of roles it judges (default 15:
// optimizer state left out).
constexpr int kLpDefaultRoles = 15;

// The parameter every lp_* rule has, `roles`; each rule's Visit lists it
// after its own.
struct LpRoles {
  int roles = kLpDefaultRoles;
  template <typename Self, typename V>
  static void VisitRoles(Self& p, V&& v) {
    v("roles", p.roles, 0, kAllRolesBits);
  }
};

struct LpUnderflowParams : LpRoles {
  double max_share = 0.1;
  // ... and the cast keeps less than this SNR: the flushed values carried
  // the gradient (10 dB: 10% of its energy lost), not just its tail.
  double max_snr_db = 10;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_share", p.max_share, 0, 1);
    v("max_snr_db", p.max_snr_db, -kNoLimit, kNoLimit);
    VisitRoles(p, v);
  }
};

struct LpOverflowParams : LpRoles {
  double max_share = 1e-2;
  int window = 10;
  int min_hits = 3;
  int min_numel = 64;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_share", p.max_share, 0, 1);
    v("window", p.window, 1, kNoLimit);
    v("min_hits", p.min_hits, 1, kNoLimit);
    v("min_numel", p.min_numel, 0, kNoLimit);
    VisitRoles(p, v);
  }
};

struct LpHeadroomParams : LpRoles {
  int window = 20;
  double min_r2 = 0.8;
  double horizon = 100;  // 5 windows: a 20-record trend says nothing of step 2000
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("window", p.window, 3, kNoLimit);
    v("min_r2", p.min_r2, 0, 1);
    v("horizon", p.horizon, 0, kNoLimit);
    VisitRoles(p, v);
  }
};

struct LpDynamicRangeParams : LpRoles {
  double quantile = 0.1;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("quantile", p.quantile, 0, 1);
    VisitRoles(p, v);
  }
};

struct LpSnrParams : LpRoles {
  double min_snr_db = 10;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("min_snr_db", p.min_snr_db, -kNoLimit, kNoLimit);
    VisitRoles(p, v);
  }
};

struct LpStaleScalingParams : LpRoles {
  int steps = 32;
  double min_amax_change_log2 = 1;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("steps", p.steps, 2, kNoLimit);
    v("min_amax_change_log2", p.min_amax_change_log2, 0, kNoLimit);
    VisitRoles(p, v);
  }
};

// Delayed scaling's warm-up: the first `records` records of each tensor,
// while the amax history is still short (it starts empty, scale 1, as
// Transformer Engine's DelayedScaling does) and amax grows past it.
struct LpDelayedWarmupParams : LpRoles {
  int records = 16;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("records", p.records, 1, kNoLimit);
    VisitRoles(p, v);
  }
};

struct LowPrecisionParams {
  LpUnderflowParams lp_underflow;
  LpOverflowParams lp_overflow;
  LpHeadroomParams lp_headroom;
  LpDynamicRangeParams lp_dynamic_range;
  LpSnrParams lp_snr;
  LpStaleScalingParams lp_stale_scaling;
  LpDelayedWarmupParams lp_delayed_warmup;
  template <typename Self, typename F>
  static void Rules(Self& p, F&& f) {
    f("lp_underflow", p.lp_underflow);
    f("lp_overflow", p.lp_overflow);
    f("lp_headroom", p.lp_headroom);
    f("lp_dynamic_range", p.lp_dynamic_range);
    f("lp_snr", p.lp_snr);
    f("lp_stale_scaling", p.lp_stale_scaling);
    f("lp_delayed_warmup", p.lp_delayed_warmup);
  }
};

struct RuleInfo;

class LowPrecisionRules {
 public:
  static void Catalog(std::vector<RuleInfo>* out);

  LowPrecisionRules(const LowPrecisionParams& params, FindingSink* sink) : p_(params), sink_(sink) {}
  // One format (with its recipe) simulated on record r.
  void Judge(const TensorRecord& r, const FormatRecord& f);

 private:
  // What the rules need to know of a record's recipe (parsed as a Scaling).
  struct Recipe {
    bool none = false;        // no scaling: a fixed headroom
    bool delayed = false;     // a scale from an amax history
    bool per_tensor = false;  // one multiplier per tensor (none, current, delayed)
  };
  const Recipe& RecipeOf(const std::string& name);
  const std::optional<Format>& FormatOf(const std::string& spec);
  void Headroom(const TensorRecord& r, const FormatRecord& f, const std::string& key, const std::string& where,
                double fmax);
  void StaleScaling(const TensorRecord& r, const FormatRecord& f, const std::string& key,
                    const std::string& where);

  LowPrecisionParams p_;
  FindingSink* sink_;
  std::map<std::string, Recipe> recipes_;
  std::map<std::string, std::optional<Format>> formats_;  // parsed specs
  std::map<std::string, std::deque<std::pair<double, double>>> amax_log_;  // (step, log2 amax)
  std::map<std::string, std::deque<std::pair<float, double>>> scale_hist_;  // (scale, log2 amax)
  std::map<std::string, std::deque<std::pair<double, double>>> overflow_hits_;  // (overflow, numel)
  std::map<std::string, int> delayed_records_;  // records seen per delayed key
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_RULES_LP_RULES_H_
