// The format recommender (report/recommend.h): candidates from a run's
// records, exact (simulated) or estimated (recommend_estimate.cc), summed per
// layer and role, judged against the budgets, ranked and explained. JSON in
// recommend_json.cc.
#include "report/recommend.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "simd/scaling.h"
#include "store/run_db.h"

namespace lpsim {

const char* const kDefaultWhatIfFormats[7] = {"e2m1fn", "e2m3fn", "e3m2fn", "e4m3fn",
                                              "e5m2",   "bf16",   "fp16"};

double Candidate::SnrDb() const {
  if (sq_error <= 0) return std::numeric_limits<double>::infinity();
  if (sq_signal <= 0) return -std::numeric_limits<double>::infinity();
  return 10 * std::log10(sq_signal / sq_error);
}

namespace {

std::string Pct(double f) {
  if (f == 0) return "0%";
  if (f < 1e-5) return "<0.001%";
  return fmt::format("{:.3g}%", 100 * f);
}

std::string Db(double d) {
  if (std::isinf(d)) return d > 0 ? "inf dB" : "-inf dB";
  return fmt::format("{:.1f} dB", d);
}

// Judges a candidate against the budgets, on the upper bounds.
void Judge(const Budgets& b, Candidate* c) {
  const double snr = c->SnrDb();
  if (c->UnderflowUpper() > b.max_underflow) {
    c->verdict = "underflow up to " + Pct(c->UnderflowUpper()) + " > " + Pct(b.max_underflow);
  } else if (c->OverflowUpper() > b.max_overflow) {
    c->verdict = "overflow up to " + Pct(c->OverflowUpper()) + " > " + Pct(b.max_overflow);
  } else if (!(snr >= b.min_snr_db)) {
    c->verdict = "SNR " + Db(snr) + " < " + Db(b.min_snr_db);
  } else {
    c->within_budget = true;
    c->verdict = "within budgets";
  }
  // An estimate judged on its upper bounds may still fit: say so when its
  // lower bounds would (typically a block recipe, whose per-block amaxes the
  // histograms cannot resolve).
  const double n = c->numel ? static_cast<double>(c->numel) : 1.0;
  if (!c->within_budget && !c->exact && static_cast<double>(c->underflow.lower) / n <= b.max_underflow &&
      static_cast<double>(c->overflow.lower) / n <= b.max_overflow && snr >= b.min_snr_db) {
    c->verdict += " (lower bounds within budgets: simulate " + c->recipe + " to decide)";
  }
}

bool Better(const Candidate& a, const Candidate& b) {
  if (a.within_budget != b.within_budget) return a.within_budget;
  if (a.bits != b.bits) return a.bits < b.bits;
  if (a.SnrDb() != b.SnrDb()) return a.SnrDb() > b.SnrDb();
  if (a.underflow.upper != b.underflow.upper) return a.underflow.upper < b.underflow.upper;
  if (a.overflow.upper != b.overflow.upper) return a.overflow.upper < b.overflow.upper;
  return std::tie(a.format, a.recipe) < std::tie(b.format, b.recipe);
}

struct Acc {
  Candidate c;
  int64_t records = 0;
  int64_t exact_records = 0;
};

using Key = std::pair<std::string, std::string>;  // format, recipe

struct LayerAcc {
  std::set<int64_t> steps;
  std::map<Key, Acc> cands;
};

class Accumulator {
 public:
  Accumulator(const RecommendOptions& o, std::vector<Format> formats,
              std::vector<Scaling> recipes)
      : opt_(o), formats_(std::move(formats)), recipes_(std::move(recipes)) {}

  // Records of one tensor must come in step order (delayed scaling).
  void Add(const TensorRecord& r) {
    LayerAcc& layer = layers_[{static_cast<int>(r.role), r.name}];
    LayerAcc& all = layers_[{static_cast<int>(r.role), "*"}];
    layer.steps.insert(r.step);
    all.steps.insert(r.step);
    std::set<Key> simulated;
    for (const FormatRecord& f : r.formats) {
      const Format* fmt = Find(f.format);
      if (!fmt) continue;
      Key k{fmt->name(), f.recipe};
      simulated.insert(k);
      Candidate add;
      add.numel = f.counts.numel;
      add.underflow = {f.counts.underflow, f.counts.underflow};
      add.overflow = {f.counts.overflow, f.counts.overflow};
      add.sq_error = f.counts.sq_error;
      add.sq_signal = f.counts.sq_signal;
      Merge(&layer, k, *fmt, add, true);
      Merge(&all, k, *fmt, add, true);
    }
    for (size_t fi = 0; fi < formats_.size(); ++fi) {
      const Format& fmt = formats_[fi];
      for (const Scaling& recipe : recipes_) {
        DelayedScaler* delayed = nullptr;
        if (recipe.kind == Scaling::Kind::kDelayed) {
          // The tracker's scaler, replayed over this tensor's records: the
          // scale of this record comes from the previous records' amax.
          const std::string key = std::to_string(static_cast<int>(r.role)) + ":" + r.name + ":" +
                                  recipe.Name() + ":" + std::to_string(fi);
          auto it = delayed_.find(key);
          if (it == delayed_.end()) {
            DelayedScaler::Options o;
            o.history = recipe.delayed.history;
            it = delayed_.emplace(key, DelayedScaler(fmt, o)).first;
          }
          delayed = &it->second;
        }
        Key k{fmt.name(), recipe.Name()};
        const bool skip = simulated.count(k) > 0 ||
                          (recipe.kind == Scaling::Kind::kBlock && fmt.total_bits() > 8);
        if (!skip) {
          CastEstimate e;
          switch (recipe.kind) {
            case Scaling::Kind::kNone:
            case Scaling::Kind::kInteger:  // not parsed: integer recipes come from targets
              e = EstimateCast(r.stats, fmt, 1.0f);
              break;
            case Scaling::Kind::kCurrent:
              e = EstimateCast(r.stats, fmt, CurrentScale(fmt, r.stats.max_abs));
              break;
            case Scaling::Kind::kDelayed: e = EstimateCast(r.stats, fmt, delayed->Scale()); break;
            case Scaling::Kind::kBlock:
              e = EstimateBlockCast(r.stats, fmt, recipe.block, r.shape);
              break;
          }
          Candidate add;
          add.numel = e.numel;
          add.underflow = e.underflow;
          add.overflow = e.overflow;
          add.sq_error = e.sq_error;
          add.sq_signal = e.sq_signal;
          Merge(&layer, k, fmt, add, false);
          Merge(&all, k, fmt, add, false);
        }
        if (delayed) delayed->Update(r.stats.max_abs);
      }
    }
  }

  Recommendation Finish() const {
    Recommendation out;
    out.budgets = opt_.budgets;
    // Roles in kSingleRoles order, the "*" row first, then layers by name.
    for (Role role : kSingleRoles) {
      std::vector<std::string> names;
      for (const auto& [key, acc] : layers_) {
        if (key.first == static_cast<int>(role) && key.second != "*") names.push_back(key.second);
      }
      if (names.empty()) continue;
      names.insert(names.begin(), "*");
      for (const std::string& name : names) {
        const LayerAcc& la = layers_.at({static_cast<int>(role), name});
        LayerAdvice a;
        a.role = role;
        a.layer = name;
        a.steps = static_cast<int64_t>(la.steps.size());
        for (const auto& [k, acc] : la.cands) {
          Candidate c = acc.c;
          c.exact = acc.exact_records == acc.records;
          Judge(opt_.budgets, &c);
          a.candidates.push_back(std::move(c));
        }
        std::sort(a.candidates.begin(), a.candidates.end(), Better);
        Explain(&a);
        out.rows.push_back(std::move(a));
      }
    }
    return out;
  }

 private:
  // The candidate format a record's spec names (aliases and option order
  // resolved by parsing), or null when it is not a candidate.
  const Format* Find(const std::string& spec) {
    auto it = spec_cache_.find(spec);
    if (it != spec_cache_.end()) return it->second;
    const Format* found = nullptr;
    StatusOr<Format> parsed = ParseFormat(spec);
    if (parsed.ok()) {
      for (const Format& f : formats_) {
        if (f == *parsed) found = &f;
      }
    }
    spec_cache_[spec] = found;
    return found;
  }

  static void Merge(LayerAcc* la, const Key& k, const Format& f, const Candidate& add,
                    bool exact) {
    Acc& acc = la->cands[k];
    if (acc.records == 0) {
      acc.c.format = k.first;
      acc.c.recipe = k.second;
      acc.c.bits = f.total_bits();
    }
    ++acc.records;
    if (exact) ++acc.exact_records;
    acc.c.numel += add.numel;
    acc.c.underflow += add.underflow;
    acc.c.overflow += add.overflow;
    acc.c.sq_error += add.sq_error;
    acc.c.sq_signal += add.sq_signal;
  }

  void Explain(LayerAdvice* a) const {
    if (a->candidates.empty()) {
      a->reason = "no candidate format";
      return;
    }
    const Candidate& top = a->candidates.front();
    auto numbers = [](const Candidate& c) {
      return fmt::format("underflow {}{}, overflow {}{}, SNR {}{}",
                         Pct(c.UnderflowUpper()), c.exact ? "" : " (upper bound)",
                         Pct(c.OverflowUpper()), c.exact ? "" : " (upper bound)",
                         Db(c.SnrDb()), c.exact ? "" : " (model)");
    };
    if (!top.within_budget) {
      a->best = "";
      a->reason = fmt::format("no candidate keeps within the budgets; closest is {}/{} ({} bits): "
                              "{}. Try per-block scaling or a wider format.",
                              top.format, top.recipe, top.bits, top.verdict);
      return;
    }
    a->best = top.format + "/" + top.recipe;
    std::string why = fmt::format("{}/{} is the narrowest within budgets ({} bits, {}; {})",
                                  top.format, top.recipe, top.bits,
                                  top.exact ? "simulated" : "estimated from histograms",
                                  numbers(top));
    // Each other format at most as wide (its best-ranked recipe), and why it
    // failed.
    std::vector<const Candidate*> failed;
    std::set<std::string> seen = {top.format};
    for (const Candidate& c : a->candidates) {
      if (c.within_budget || c.bits > top.bits) continue;
      if (!seen.insert(c.format).second) continue;
      failed.push_back(&c);
    }
    std::stable_sort(failed.begin(), failed.end(),
                     [](const Candidate* x, const Candidate* y) { return x->bits < y->bits; });
    std::string rejected;
    for (const Candidate* cp : failed) {
      const Candidate& c = *cp;
      rejected += fmt::format("{}{}/{} ({} bits): {}", rejected.empty() ? "" : "; ", c.format,
                              c.recipe, c.bits, c.verdict);
    }
    if (!rejected.empty()) why += ". Rejected: " + rejected;
    a->reason = why;
  }

  const RecommendOptions& opt_;
  std::vector<Format> formats_;
  std::vector<Scaling> recipes_;
  std::map<std::string, DelayedScaler> delayed_;  // role:name:recipe:format
  std::map<std::pair<int, std::string>, LayerAcc> layers_;
  std::map<std::string, const Format*> spec_cache_;
};

StatusOr<std::vector<Format>> ParseAll(const std::vector<std::string>& specs) {
  std::vector<Format> out;
  for (const std::string& s : specs) {
    StatusOr<Format> f = ParseFormat(s);
    if (!f.ok()) return f.status();
    if (!f->has_zero()) {
      return Status::Error("format '" + s +
                           "' has no zero (a scale format); it cannot hold tensor values");
    }
    bool dup = false;
    for (const Format& o : out) dup = dup || o.name() == f->name();
    if (!dup) out.push_back(*f);
  }
  return out;
}

Status CheckOptions(const RecommendOptions& o) {
  const Budgets& b = o.budgets;
  if (!(b.max_underflow >= 0 && b.max_underflow <= 1) ||
      !(b.max_overflow >= 0 && b.max_overflow <= 1)) {
    return Status::Error("underflow and overflow budgets are fractions in [0, 1] (0.001 = 0.1%)");
  }
  if (std::isnan(b.min_snr_db)) return Status::Error("the SNR budget must be a number of dB");
  for (const std::string& r : o.what_if_recipes) {
    StatusOr<Scaling> p = Scaling::Parse(r);
    if (!p.ok()) return p.status();
  }
  return Status();
}

// The options' recipes, then the replayable ones the run simulated (so
// formats it did not simulate are estimated with the run's own recipe too).
std::vector<Scaling> Recipes(const RecommendOptions& o,
                                  const std::vector<std::string>& simulated) {
  std::vector<Scaling> out;
  auto add = [&](const std::string& name) {
    StatusOr<Scaling> p = Scaling::Parse(name);
    if (!p.ok()) return;
    for (const Scaling& r : out) {
      if (r.Name() == p->Name()) return;
    }
    out.push_back(*p);
  };
  for (const std::string& r : o.what_if_recipes) add(r);
  for (const std::string& r : simulated) add(r);
  return out;
}

std::vector<std::string> DefaultFormats(const std::vector<std::string>& simulated) {
  std::vector<std::string> out(std::begin(kDefaultWhatIfFormats), std::end(kDefaultWhatIfFormats));
  for (const std::string& s : simulated) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

}  // namespace

StatusOr<Recommendation> Recommend(const RunReader& run, const RecommendOptions& options) {
  Status ok = CheckOptions(options);
  if (!ok.ok()) return ok;
  std::vector<std::string> specs = options.formats;
  StatusOr<std::vector<std::pair<std::string, std::string>>> candidates = run.Candidates();
  if (!candidates.ok()) return candidates.status();
  if (specs.empty()) {
    std::vector<std::string> sim;
    for (const auto& [f, r] : *candidates) {
      // A format the run simulated but this build cannot parse is skipped.
      if (ParseFormat(f).ok()) sim.push_back(f);
    }
    specs = DefaultFormats(sim);
  }
  std::vector<std::string> sim_recipes;
  for (const auto& [f, r] : *candidates) sim_recipes.push_back(r);
  StatusOr<std::vector<Format>> formats = ParseAll(specs);
  if (!formats.ok()) return formats.status();
  Accumulator acc(options, *formats, Recipes(options, sim_recipes));
  Status s = run.ForEachRecord({}, [&](TensorRecord&& r) {
    acc.Add(r);
    return Status();
  });
  if (!s.ok()) return s;
  return acc.Finish();
}

StatusOr<Recommendation> RecommendFromRecords(const std::vector<TensorRecord>& records,
                                              const RecommendOptions& options) {
  Status ok = CheckOptions(options);
  if (!ok.ok()) return ok;
  std::vector<std::string> specs = options.formats;
  if (specs.empty()) {
    std::vector<std::string> sim;
    for (const TensorRecord& r : records) {
      for (const FormatRecord& f : r.formats) {
        if (ParseFormat(f.format).ok()) sim.push_back(f.format);
      }
    }
    specs = DefaultFormats(sim);
  }
  std::vector<std::string> sim_recipes;
  for (const TensorRecord& r : records) {
    for (const FormatRecord& f : r.formats) sim_recipes.push_back(f.recipe);
  }
  StatusOr<std::vector<Format>> formats = ParseAll(specs);
  if (!formats.ok()) return formats.status();
  Accumulator acc(options, *formats, Recipes(options, sim_recipes));
  for (const TensorRecord& r : records) acc.Add(r);
  return acc.Finish();
}

}  // namespace lpsim
