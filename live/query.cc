#include "live/query.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "formats/format.h"

namespace lpsim::live {

namespace {

using Json = nlohmann::json;

constexpr size_t kMaxQueryBytes = 4096;
constexpr size_t kMaxFields = 32;
constexpr int64_t kMaxWindowSteps = 1000000;
constexpr double kMaxWindowSeconds = 86400;

const std::vector<FieldInfo> kStepFields = {
    {"numel", false, true, "elements in the tensor"},
    {"zeros", false, true, "elements equal to +-0"},
    {"nonfinite", false, true, "NaN and Inf elements"},
    {"mean", false, true, "mean over finite elements"},
    {"std", false, true, "population standard deviation over finite elements"},
    {"rms", false, true, "root mean square over finite elements"},
    {"min", false, true, "smallest finite element"},
    {"max", false, true, "largest finite element"},
    {"min_abs", false, true, "smallest nonzero finite |x|"},
    {"max_abs", false, true, "largest finite |x| (amax)"},
    {"log2_max_abs", false, true, "log2 of max_abs (null when 0)"},
    {"module_type", false, false, "e.g. Linear, ReLU"},
    {"shape", false, false, "the tensor's shape"},
    {"exp_hist", false, false, "exponent histogram {e: [log2 bins], c: [counts]} of finite nonzero |x|"},
    {"underflow_pct", true, true, "% of elements that become 0 in the format (after scaling)"},
    {"overflow_pct", true, true, "% of elements too large for the format"},
    {"subnormal_pct", true, true, "% of elements that land on subnormals"},
    {"flushed_pct", true, true, "% of elements flushed to zero by FTZ"},
    {"snr_db", true, true, "signal to quantization noise, dB (null = no error)"},
    {"scale", true, true, "the scale the cast saw"},
    {"range", true, false, "[underflow below, normal from, max] in log2 of the unscaled |x|"},
};
const std::vector<std::string> kDefaultStepFields = {"max_abs", "underflow_pct", "overflow_pct", "snr_db"};
const std::vector<std::string> kFindingFields = {"rule", "severity", "tensor", "message", "evidence"};

const FieldInfo* StepField(const std::string& name) {
  for (const FieldInfo& f : kStepFields) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string StepFieldList() {
  std::vector<std::string> v;
  for (const FieldInfo& f : kStepFields) v.push_back(f.name);
  return Join(v);
}

// A string or an array of strings.
Status StringList(const Json& j, const char* key, std::vector<std::string>* out) {
  if (j.is_string()) {
    out->push_back(j.get<std::string>());
    return Status();
  }
  if (!j.is_array()) return Status::Error(std::string("'") + key + "' must be a string or an array of strings");
  for (const Json& x : j) {
    if (!x.is_string()) return Status::Error(std::string("'") + key + "' must be a string or an array of strings");
    out->push_back(x.get<std::string>());
  }
  return Status();
}

Status Regex(const Json& j, const char* key, std::string* out) {
  if (!j.is_string()) return Status::Error(std::string("'") + key + "' must be a string (an ECMAScript regex)");
  *out = j.get<std::string>();
  try {
    std::regex re(*out);
  } catch (const std::regex_error& e) {
    return Status::Error(std::string("'") + key + "' is not a valid regex: " + e.what());
  }
  return Status();
}

// JSON has no Inf/NaN: they become null.
Json Num(double v) { return std::isfinite(v) ? Json(v) : Json(); }

double Pct(uint64_t part, uint64_t n) { return n ? 100.0 * static_cast<double>(part) / static_cast<double>(n) : 0.0; }

}  // namespace

const char* ToString(EventKind k) {
  switch (k) {
    case EventKind::kStep: return "step";
    case EventKind::kScalar: return "scalar";
    case EventKind::kFinding: return "finding";
  }
  return "?";
}

const char* ToString(ReduceOp op) {
  switch (op) {
    case ReduceOp::kNone: return "none";
    case ReduceOp::kMean: return "mean";
    case ReduceOp::kMin: return "min";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kLast: return "last";
    case ReduceOp::kCount: return "count";
  }
  return "?";
}

const std::vector<FieldInfo>& StepFields() { return kStepFields; }

StatusOr<Query> ParseQuery(const std::string& text) {
  if (text.size() > kMaxQueryBytes) {
    return Status::Error("the query is " + std::to_string(text.size()) + " bytes; at most " +
                         std::to_string(kMaxQueryBytes) + " are accepted");
  }
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error("the query is not valid JSON");
  if (!j.is_object()) return Status::Error("the query must be a JSON object, e.g. {\"kind\": \"step\"}");
  Query q;
  Json canon = Json::object();
  // kind first: it decides which keys are allowed.
  if (j.contains("kind")) {
    if (!j["kind"].is_string()) return Status::Error("'kind' must be a string: step, scalar or finding");
    const std::string k = j["kind"].get<std::string>();
    if (k == "step") q.kind = EventKind::kStep;
    else if (k == "scalar") q.kind = EventKind::kScalar;
    else if (k == "finding") q.kind = EventKind::kFinding;
    else return Status::Error("unknown kind '" + k + "': use step, scalar or finding");
  }
  canon["kind"] = ToString(q.kind);
  const std::map<EventKind, std::set<std::string>> filters = {
      {EventKind::kStep, {"tensor", "role", "format", "recipe", "target"}},
      {EventKind::kScalar, {"name"}},
      {EventKind::kFinding, {"tensor", "rule", "severity"}},
  };
  const std::set<std::string>& allowed = filters.at(q.kind);
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (key == "kind" || key == "fields" || key == "reduce") continue;
    if (!allowed.count(key)) {
      std::vector<std::string> a(allowed.begin(), allowed.end());
      return Status::Error("unknown key '" + key + "' for kind " + ToString(q.kind) +
                           ": use kind, fields, reduce, " + Join(a));
    }
    const Json& v = it.value();
    Status s;
    if (key == "tensor") s = Regex(v, "tensor", &q.tensor);
    else if (key == "name") s = Regex(v, "name", &q.name);
    else if (key == "rule") s = Regex(v, "rule", &q.rule);
    else if (key == "role") {
      if (!v.is_string()) return Status::Error("'role' must be a string, e.g. \"activation|weight_grad\"");
      StatusOr<Role> r = ParseRole(v.get<std::string>());
      if (!r.ok()) return Status::Error("'role': " + r.status().message());
      q.roles = r.value();
      canon["role"] = ToString(q.roles);
      continue;
    } else if (key == "format") s = StringList(v, "format", &q.formats);
    else if (key == "recipe") s = StringList(v, "recipe", &q.recipes);
    else if (key == "target") s = StringList(v, "target", &q.targets);
    else if (key == "severity") {
      const std::string sev = v.is_string() ? v.get<std::string>() : "";
      if (sev == "info") q.min_severity = Severity::kInfo;
      else if (sev == "warning") q.min_severity = Severity::kWarning;
      else if (sev == "error") q.min_severity = Severity::kError;
      else return Status::Error("'severity' must be info, warning or error (the least severe shown)");
    }
    if (!s.ok()) return s;
    canon[key] = v;
  }
  if (!q.targets.empty()) {
    for (const std::string& t : q.targets) {
      if (t.find('/') == std::string::npos) {
        return Status::Error("'target' entries are format/recipe, e.g. \"e4m3fn/delayed16\" (got '" + t + "')");
      }
    }
  }

  // Fields.
  if (j.contains("fields")) {
    const Json& f = j["fields"];
    if (!f.is_array() || f.empty()) return Status::Error("'fields' must be a non-empty array of field names");
    if (f.size() > kMaxFields) return Status::Error("'fields' names at most " + std::to_string(kMaxFields) + " fields");
    for (const Json& x : f) {
      if (!x.is_string()) return Status::Error("'fields' must be an array of strings");
      q.fields.push_back(x.get<std::string>());
    }
  }
  switch (q.kind) {
    case EventKind::kStep:
      if (q.fields.empty()) q.fields = kDefaultStepFields;
      for (const std::string& name : q.fields) {
        const FieldInfo* info = StepField(name);
        if (!info) return Status::Error("unknown step field '" + name + "': use " + StepFieldList());
        q.per_format |= info->per_format;
      }
      if (!q.per_format && (!q.formats.empty() || !q.recipes.empty() || !q.targets.empty())) {
        return Status::Error("a format, recipe or target filter needs a per-format field "
                             "(underflow_pct, overflow_pct, subnormal_pct, flushed_pct, snr_db, scale, range)");
      }
      break;
    case EventKind::kScalar:
      if (q.fields.empty()) q.fields = {"value"};
      for (const std::string& name : q.fields) {
        if (name != "value") return Status::Error("unknown scalar field '" + name + "': scalars have one field, value");
      }
      break;
    case EventKind::kFinding:
      if (q.fields.empty()) q.fields = kFindingFields;
      for (const std::string& name : q.fields) {
        if (std::find(kFindingFields.begin(), kFindingFields.end(), name) == kFindingFields.end()) {
          return Status::Error("unknown finding field '" + name + "': use " + Join(kFindingFields));
        }
      }
      break;
  }
  {
    std::set<std::string> seen;
    for (const std::string& name : q.fields) {
      if (!seen.insert(name).second) return Status::Error("field '" + name + "' is named twice");
    }
  }
  canon["fields"] = q.fields;

  // Reduction.
  if (j.contains("reduce")) {
    const Json& r = j["reduce"];
    if (!r.is_object()) {
      return Status::Error("'reduce' must be an object, e.g. {\"op\": \"mean\", \"steps\": 10}");
    }
    for (auto it = r.begin(); it != r.end(); ++it) {
      if (it.key() != "op" && it.key() != "steps" && it.key() != "seconds") {
        return Status::Error("unknown key 'reduce." + it.key() + "': use op and one of steps or seconds");
      }
    }
    if (!r.contains("op") || !r["op"].is_string()) {
      return Status::Error("'reduce.op' is missing: use mean, min, max, sum, last or count");
    }
    const std::string op = r["op"].get<std::string>();
    if (op == "mean") q.op = ReduceOp::kMean;
    else if (op == "min") q.op = ReduceOp::kMin;
    else if (op == "max") q.op = ReduceOp::kMax;
    else if (op == "sum") q.op = ReduceOp::kSum;
    else if (op == "last") q.op = ReduceOp::kLast;
    else if (op == "count") q.op = ReduceOp::kCount;
    else return Status::Error("unknown reduce.op '" + op + "': use mean, min, max, sum, last or count");
    const bool steps = r.contains("steps"), seconds = r.contains("seconds");
    if (steps == seconds) {
      return Status::Error("'reduce' needs exactly one window: \"steps\": N or \"seconds\": T");
    }
    if (steps) {
      const Json& n = r["steps"];
      if (!n.is_number_integer() || n.get<int64_t>() < 1 || n.get<int64_t>() > kMaxWindowSteps) {
        return Status::Error("'reduce.steps' must be an integer in [1, " + std::to_string(kMaxWindowSteps) + "]");
      }
      q.window_steps = n.get<int64_t>();
    } else {
      const Json& t = r["seconds"];
      if (!t.is_number() || !(t.get<double>() > 0) || t.get<double>() > kMaxWindowSeconds) {
        return Status::Error("'reduce.seconds' must be a number in (0, " +
                             std::to_string(static_cast<int>(kMaxWindowSeconds)) + "]");
      }
      q.window_seconds = t.get<double>();
    }
    if (q.kind == EventKind::kFinding && q.op != ReduceOp::kCount) {
      return Status::Error("findings reduce only with op count (findings per rule and window)");
    }
    if (q.op != ReduceOp::kCount && q.op != ReduceOp::kLast && q.kind == EventKind::kStep) {
      for (const std::string& name : q.fields) {
        if (!StepField(name)->numeric) {
          return Status::Error("field '" + name + "' is not a number: only op 'last' (or count) reduces it; "
                               "drop it, use last, or drop 'reduce'");
        }
      }
    }
    canon["reduce"] = {{"op", op}};
    if (steps) canon["reduce"]["steps"] = q.window_steps;
    else canon["reduce"]["seconds"] = q.window_seconds;
  }
  q.text = canon.dump();
  return q;
}

// --- Stream -----------------------------------------------------------------

Stream::Stream(Query q) : q_(std::move(q)) {
  // ParseQuery checked the regexes.
  if (!q_.tensor.empty()) tensor_re_ = std::regex(q_.tensor);
  if (!q_.name.empty()) name_re_ = std::regex(q_.name);
  if (!q_.rule.empty()) rule_re_ = std::regex(q_.rule);
}

bool Stream::Matches(std::unordered_map<std::string, bool>* cache, const std::regex& re, bool active,
                     const std::string& s) {
  if (!active) return true;
  auto [it, fresh] = cache->try_emplace(s, false);
  // std::regex is slow: each name is matched once. The cache is bounded by
  // the job's tensor names; a job that makes names without end resets it.
  if (fresh) {
    if (cache->size() > 100000) {
      cache->clear();
      it = cache->try_emplace(s, false).first;
    }
    it->second = std::regex_search(s, re);
  }
  return it->second;
}

namespace {

// The value of a per-tensor numeric field, NaN for a non-numeric one.
double TensorValue(const std::string& f, const TensorRecord& r) {
  const TensorStats& s = r.stats;
  if (f == "numel") return static_cast<double>(s.count);
  if (f == "zeros") return static_cast<double>(s.zeros);
  if (f == "nonfinite") return static_cast<double>(s.nans + s.pos_infs + s.neg_infs);
  if (f == "mean") return s.mean;
  if (f == "std") return s.std;
  if (f == "rms") return s.rms;
  if (f == "min") return s.min;
  if (f == "max") return s.max;
  if (f == "min_abs") return s.min_abs;
  if (f == "max_abs") return s.max_abs;
  if (f == "log2_max_abs") {
    return s.max_abs > 0 ? std::log2(static_cast<double>(s.max_abs)) : std::numeric_limits<double>::quiet_NaN();
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double FormatValue(const std::string& f, const FormatRecord& fr) {
  const CastCounts& c = fr.counts;
  if (f == "underflow_pct") return Pct(c.underflow, c.numel);
  if (f == "overflow_pct") return Pct(c.overflow, c.numel);
  if (f == "subnormal_pct") return Pct(c.subnormal, c.numel);
  if (f == "flushed_pct") return Pct(c.flushed, c.numel);
  if (f == "snr_db") return c.SnrDb();
  if (f == "scale") return fr.scale;
  return std::numeric_limits<double>::quiet_NaN();
}

Json Histogram(const TensorStats& s) {
  const TensorStats::ExponentBins h = s.NonzeroExponentBins();
  return {{"e", h.exponents}, {"c", h.counts}};
}

// [log2 of the |x| below which values become 0, where normals start, the
// largest finite value], for the unscaled values, as the report draws them.
Json Range(const FormatRecord& fr) {
  StatusOr<Format> f = ParseFormat(fr.format);
  if (!f.ok() || !(fr.scale > 0) || !std::isfinite(fr.scale)) return Json();
  const Format& x = f.value();
  // In double: std::log2 of a float is a float.
  const double min_sub = x.MinSubnormal(), min_normal = x.MinNormal(), max = x.MaxValue();
  const double u = x.ftz() ? min_normal - min_sub / 2 : min_sub / 2;
  const double ls = std::log2(static_cast<double>(fr.scale));
  return Json::array({Num(std::log2(u) - ls), Num(std::log2(min_normal) - ls), Num(std::log2(max) - ls)});
}

bool Listed(const std::vector<std::string>& v, const std::string& s) {
  return v.empty() || std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

void Stream::OnRecord(const TensorRecord& r, double now, std::vector<std::string>* out) {
  if (q_.kind != EventKind::kStep || !Contains(q_.roles, r.role)) return;
  if (!Matches(&tensor_ok_, tensor_re_, !q_.tensor.empty(), r.name)) return;
  const std::string role = ToString(r.role);
  auto head_of = [&](const FormatRecord* f) {
    Json h = {{"kind", "step"}, {"tensor", r.name}, {"role", role}};
    if (f) h["format"] = f->format, h["recipe"] = f->recipe;
    return h;
  };
  // The event's fields, as an unreduced event (and op last) carries them.
  auto fields_of = [&](const FormatRecord* f, Json* e) {
    for (const std::string& name : q_.fields) {
      const FieldInfo* info = StepField(name);
      if (name == "module_type") (*e)[name] = r.module_type;
      else if (name == "shape") (*e)[name] = r.shape;
      else if (name == "exp_hist") (*e)[name] = Histogram(r.stats);
      else if (name == "range") (*e)[name] = Range(*f);
      else if (info->per_format) (*e)[name] = Num(FormatValue(name, *f));
      else (*e)[name] = Num(TensorValue(name, r));
    }
  };
  auto one = [&](const FormatRecord* f) {
    if (q_.op != ReduceOp::kNone) {
      std::vector<double> values;
      std::string last;
      if (q_.op == ReduceOp::kLast) {
        Json e = Json::object();
        fields_of(f, &e);
        last = e.dump();
      } else if (q_.op != ReduceOp::kCount) {
        for (const std::string& name : q_.fields) {
          const bool pf = StepField(name)->per_format;
          values.push_back(pf ? FormatValue(name, *f) : TensorValue(name, r));
        }
      }
      Json h = head_of(f);
      const std::string key = role + "\x01" + r.name + (f ? "\x01" + f->format + "/" + f->recipe : "");
      Feed(key, h.dump(), r.step, now, values, std::move(last), out);
      return;
    }
    Json e = head_of(f);
    e["step"] = r.step;
    fields_of(f, &e);
    out->push_back(e.dump());
  };
  if (!q_.per_format) {
    one(nullptr);
    return;
  }
  for (const FormatRecord& f : r.formats) {
    if (!Listed(q_.formats, f.format) || !Listed(q_.recipes, f.recipe) ||
        !Listed(q_.targets, f.format + "/" + f.recipe)) {
      continue;
    }
    one(&f);
  }
}

void Stream::OnScalar(const ScalarRecord& s, double now, std::vector<std::string>* out) {
  if (q_.kind != EventKind::kScalar) return;
  if (!Matches(&name_ok_, name_re_, !q_.name.empty(), s.name)) return;
  Json h = {{"kind", "scalar"}, {"name", s.name}};
  if (q_.op != ReduceOp::kNone) {
    std::vector<double> values;
    if (q_.op != ReduceOp::kCount) values.push_back(s.value);
    Feed(s.name, h.dump(), s.step, now, values, q_.op == ReduceOp::kLast ? Json{{"value", Num(s.value)}}.dump() : "",
         out);
    return;
  }
  h["step"] = s.step;
  h["value"] = Num(s.value);
  out->push_back(h.dump());
}

void Stream::OnFinding(const Finding& f, double now, std::vector<std::string>* out) {
  if (q_.kind != EventKind::kFinding || f.severity < q_.min_severity) return;
  if (!Matches(&tensor_ok_, tensor_re_, !q_.tensor.empty(), f.tensor)) return;
  if (!Matches(&rule_ok_, rule_re_, !q_.rule.empty(), f.rule)) return;
  if (q_.op == ReduceOp::kCount) {
    Json h = {{"kind", "finding"}, {"rule", f.rule}};
    Feed(f.rule, h.dump(), f.step, now, {}, "", out);
    return;
  }
  Json e = {{"kind", "finding"}, {"step", f.step}};
  for (const std::string& name : q_.fields) {
    if (name == "rule") e[name] = f.rule;
    else if (name == "severity") e[name] = ToString(f.severity);
    else if (name == "tensor") e[name] = f.tensor;
    else if (name == "message") e[name] = f.message;
    else if (name == "evidence") {
      Json ev = Json::object();
      for (const auto& [k, v] : f.evidence) ev[k] = Num(v);
      e[name] = ev;
    }
  }
  out->push_back(e.dump());
}

bool Stream::Due(const Window& w, int64_t step, double now) const {
  if (q_.window_steps > 0) {
    // Windows are aligned: [k N, (k + 1) N).
    const int64_t end = (w.first_step >= 0 ? w.first_step / q_.window_steps : 0) * q_.window_steps + q_.window_steps;
    return step >= end - 1;
  }
  return now - w.started >= q_.window_seconds;
}

void Stream::Feed(const std::string& key, const std::string& head, int64_t step, double now,
                  const std::vector<double>& values, std::string last, std::vector<std::string>* out) {
  auto it = windows_.find(key);
  if (it != windows_.end() && it->second.n > 0) {
    // A record past its window's end (no step end was published between).
    const bool past = q_.window_steps > 0 ? Due(it->second, step - 1, now) : Due(it->second, step, now);
    if (past) Emit(it->second, out);
  }
  if (it == windows_.end()) {
    if (windows_.size() >= 100000) return;  // a bound on memory for runaway names
    it = windows_.emplace(key, Window{}).first;
    it->second.head = head;
  }
  Window& w = it->second;
  if (w.n == 0) {
    w.first_step = step;
    w.started = now;
    w.acc.assign(values.size(), 0.0);
    w.finite.assign(values.size(), 0);
  }
  w.last_step = step;
  ++w.n;
  w.last = std::move(last);
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!std::isfinite(v)) continue;  // e.g. SNR without error: not averaged in
    double& a = w.acc[i];
    if (w.finite[i] == 0) a = v;
    else if (q_.op == ReduceOp::kMin) a = std::min(a, v);
    else if (q_.op == ReduceOp::kMax) a = std::max(a, v);
    else a += v;  // mean, sum
    ++w.finite[i];
  }
}

void Stream::Emit(Window& w, std::vector<std::string>* out) {
  Json e = Json::parse(w.head);
  e["op"] = ToString(q_.op);
  e["from_step"] = w.first_step;
  e["to_step"] = w.last_step;
  e["n"] = w.n;
  if (q_.op == ReduceOp::kCount) {
    e["count"] = w.n;
  } else if (q_.op == ReduceOp::kLast) {
    e.update(Json::parse(w.last));  // every field of the window's last record, numbers or not
  } else {
    for (size_t i = 0; i < w.acc.size(); ++i) {
      const std::string& name = q_.fields[i];
      if (w.finite[i] == 0) {
        e[name] = nullptr;
        continue;
      }
      double v = w.acc[i];
      if (q_.op == ReduceOp::kMean) v /= static_cast<double>(w.finite[i]);
      e[name] = Num(v);
    }
  }
  out->push_back(e.dump());
  w.n = 0;
}

void Stream::OnStepEnd(int64_t step, double now, std::vector<std::string>* out) {
  if (q_.op == ReduceOp::kNone) return;
  for (auto& [key, w] : windows_) {
    if (w.n > 0 && Due(w, step, now)) Emit(w, out);
  }
}

}  // namespace lpsim::live
