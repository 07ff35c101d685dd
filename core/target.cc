#include "core/target.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>


namespace lpsim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr std::array<TargetRole, kNumTargetRoles> kRoles = {
    TargetRole::kActivation,     TargetRole::kWeight,         TargetRole::kActivationGrad,
    TargetRole::kWeightGrad,     TargetRole::kOptimizerState, TargetRole::kMasterWeights};

// The fields a role has; each needs a source.
const char* const kRoleFields[] = {"format",     "scaling",  "rounding",
                                   "subnormals", "saturate", "matmul_unit"};

// Collects the first error with its JSON path.
class Checker {
 public:
  explicit Checker(std::string origin) : origin_(std::move(origin)) {}
  Status Fail(const std::string& path, const std::string& what) const {
    return Status::Error(origin_ + ": " + path + ": " + what);
  }

 private:
  std::string origin_;
};

Status CheckKeys(const Checker& c, const Json& obj, const std::string& path,
                 const std::set<std::string>& allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (allowed.count(it.key()) == 0) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      return c.Fail(path + (path.empty() ? "" : ".") + it.key(),
                    "unknown field; expected one of " + list);
    }
  }
  return Status();
}

Status GetString(const Checker& c, const Json& obj, const std::string& key,
                 const std::string& path, bool required, std::string* out) {
  if (!obj.contains(key)) {
    if (required) return c.Fail(path + key, "missing (a string)");
    return Status();
  }
  if (!obj[key].is_string()) return c.Fail(path + key, "must be a string");
  *out = obj[key].get<std::string>();
  return Status();
}

Status GetBool(const Checker& c, const Json& obj, const std::string& key, const std::string& path,
               bool* out) {
  if (!obj.contains(key)) return Status();
  if (!obj[key].is_boolean()) return c.Fail(path + key, "must be true or false");
  *out = obj[key].get<bool>();
  return Status();
}

Status GetInt(const Checker& c, const Json& obj, const std::string& key, const std::string& path,
              long lo, long hi, long* out) {
  if (!obj.contains(key)) return Status();
  if (!obj[key].is_number_integer()) {
    return c.Fail(path + key, "must be an integer in " + std::to_string(lo) + ".." +
                                  std::to_string(hi));
  }
  const long v = obj[key].get<long>();
  if (v < lo || v > hi) {
    return c.Fail(path + key, "must be an integer in " + std::to_string(lo) + ".." +
                                  std::to_string(hi) + ", not " + std::to_string(v));
  }
  *out = v;
  return Status();
}

// "scaling": a string shorthand ("none", "current", "delayed16", a block
// spec) or an object.
Status ParseScaling(const Checker& c, const Json& j, const std::string& path,
                    Scaling* s) {
  if (j.is_string()) {
    const std::string v = j.get<std::string>();
    if (v == "none") return Status();
    if (v == "current") {
      *s = Scaling::Current();
      return Status();
    }
    if (v == "integer") {
      *s = Scaling::Integer();
      return Status();
    }
    StatusOr<BlockSpec> b = BlockSpec::Parse(v);
    if (!b.ok()) {
      return c.Fail(path, "'" + v + "' is not a scaling; use none, current, integer, a block "
                          "spec (mx, nvfp4, 1x128, 128x128, RxC) or an object with \"kind\"");
    }
    *s = Scaling::Block(*b);
    return Status();
  }
  if (!j.is_object()) return c.Fail(path, "must be a string or an object");
  const std::string p = path + ".";
  std::string kind;
  if (Status st = GetString(c, j, "kind", p, true, &kind); !st.ok()) return st;
  long v = 0;
  if (kind == "none") {
    return CheckKeys(c, j, path, {"kind"});
  } else if (kind == "current" || kind == "delayed") {
    std::set<std::string> keys = {"kind", "margin", "power_of_two", "exponent_range"};
    if (kind == "delayed") keys.insert({"history", "amax_compute", "amax_reduction"});
    if (Status st = CheckKeys(c, j, path, keys); !st.ok()) return st;
    *s = kind == "current" ? Scaling::Current() : Scaling::Delayed();
    ScaleOptions& so = kind == "current" ? s->scale : s->delayed.scale;
    v = 0;
    if (Status st = GetInt(c, j, "margin", p, -64, 64, &v); !st.ok()) return st;
    so.margin = static_cast<int>(v);
    if (Status st = GetBool(c, j, "power_of_two", p, &so.power_of_two); !st.ok()) return st;
    if (j.contains("exponent_range")) {
      const Json& r = j["exponent_range"];
      if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() ||
          !r[1].is_number_integer() || r[0].get<long>() > r[1].get<long>() ||
          r[0].get<long>() < -126 || r[1].get<long>() > 127) {
        return c.Fail(p + "exponent_range", "must be [lo, hi], integers with -126 <= lo <= hi "
                                            "<= 127");
      }
      if (!so.power_of_two) {
        return c.Fail(p + "exponent_range", "needs \"power_of_two\": true");
      }
      so.min_exponent = r[0].get<int>();
      so.max_exponent = r[1].get<int>();
    }
    if (kind == "delayed") {
      v = 16;
      if (Status st = GetInt(c, j, "history", p, 1, 1 << 20, &v); !st.ok()) return st;
      s->delayed.history = static_cast<size_t>(v);
      std::string algo = "max";
      if (Status st = GetString(c, j, "amax_compute", p, false, &algo); !st.ok()) return st;
      if (algo == "max") s->delayed.algo = AmaxReduction::kMax;
      else if (algo == "most_recent") s->delayed.algo = AmaxReduction::kMostRecent;
      else return c.Fail(p + "amax_compute", "must be \"max\" or \"most_recent\"");
      if (Status st = GetString(c, j, "amax_reduction", p, false, &s->amax_reduction); !st.ok())
        return st;
      if (s->amax_reduction != "none" && s->amax_reduction != "data_parallel") {
        return c.Fail(p + "amax_reduction", "must be \"none\" or \"data_parallel\"");
      }
    }
    return Status();
  } else if (kind == "block") {
    if (Status st = CheckKeys(c, j, path, {"kind", "block"}); !st.ok()) return st;
    std::string spec;
    if (Status st = GetString(c, j, "block", p, true, &spec); !st.ok()) return st;
    StatusOr<BlockSpec> b = BlockSpec::Parse(spec);
    if (!b.ok()) return c.Fail(p + "block", b.status().message());
    *s = Scaling::Block(*b);
    return Status();
  } else if (kind == "integer") {
    if (Status st = CheckKeys(c, j, path, {"kind", "granularity", "symmetric"}); !st.ok())
      return st;
    *s = Scaling::Integer();
    std::string g = "per_tensor";
    if (Status st = GetString(c, j, "granularity", p, false, &g); !st.ok()) return st;
    if (g != "per_tensor" && g != "per_channel") {
      return c.Fail(p + "granularity", "must be \"per_tensor\" or \"per_channel\"");
    }
    s->integer.per_channel = g == "per_channel";
    return GetBool(c, j, "symmetric", p, &s->integer.symmetric);
  }
  return c.Fail(p + "kind", "'" + kind + "' is not a scaling kind; use none, current, delayed, "
                                          "block or integer");
}

Status ParseRole(const Checker& c, const Json& j, const std::string& path,
                 const std::map<std::string, std::string>& references, RoleSpec* r) {
  const std::string p = path + ".";
  if (Status st = CheckKeys(c, j, path,
                            {"format", "scaling", "rounding", "subnormals", "saturate",
                             "matmul_unit", "sources"});
      !st.ok()) {
    return st;
  }
  // 1. Storage format.
  if (Status st = GetString(c, j, "format", p, true, &r->storage_spec); !st.ok()) return st;
  if (LooksLikeIntFormat(r->storage_spec)) {
    StatusOr<IntFormat> f = ParseIntFormat(r->storage_spec);
    if (!f.ok()) return c.Fail(p + "format", f.status().message());
    r->storage = RoleSpec::Storage::kInteger;
    r->int_format = *f;
  } else if (LooksLikeBfpFormat(r->storage_spec)) {
    StatusOr<BfpFormat> f = ParseBfpFormat(r->storage_spec);
    if (!f.ok()) return c.Fail(p + "format", f.status().message());
    r->storage = RoleSpec::Storage::kBlockFp;
    r->bfp_format = *f;
  } else {
    StatusOr<Format> f = ParseFormat(r->storage_spec);
    if (!f.ok()) return c.Fail(p + "format", f.status().message());
    r->storage = RoleSpec::Storage::kFloat;
    r->format = *f;
  }
  // 2. Scaling, checked against the storage.
  if (j.contains("scaling")) {
    if (Status st = ParseScaling(c, j["scaling"], p + "scaling", &r->scaling); !st.ok()) return st;
  }
  const bool is_int = r->storage == RoleSpec::Storage::kInteger;
  const bool is_bfp = r->storage == RoleSpec::Storage::kBlockFp;
  if (is_int) {
    if (!j.contains("scaling")) r->scaling = Scaling::Integer();
    if (r->scaling.kind != Scaling::Kind::kInteger) {
      return c.Fail(p + "scaling", "an integer format takes \"integer\" scaling (per_tensor or "
                                   "per_channel, symmetric or not)");
    }
  } else if (r->scaling.kind == Scaling::Kind::kInteger) {
    return c.Fail(p + "scaling", "integer scaling needs an integer format (int8, uint8, int4)");
  } else if (is_bfp && r->scaling.kind != Scaling::Kind::kNone) {
    return c.Fail(p + "scaling", "block floating point carries its own shared exponent; use "
                                 "\"none\"");
  }
  // 3. Rounding.
  std::string rounding = is_int ? "away" : "rne";
  if (Status st = GetString(c, j, "rounding", p, false, &rounding); !st.ok()) return st;
  if (is_int) {
    StatusOr<IntRounding> ir = ParseIntRounding(rounding);
    if (!ir.ok()) return c.Fail(p + "rounding", ir.status().message());
    r->int_rounding = *ir;
  } else {
    StatusOr<Rounding> fr = ParseRounding(rounding);
    if (!fr.ok()) return c.Fail(p + "rounding", fr.status().message());
    r->rounding = *fr;
  }
  // 4. Subnormals, saturation, unit.
  if (j.contains("subnormals")) {
    const Json& s = j["subnormals"];
    if (!s.is_object()) return c.Fail(p + "subnormals", "must be {\"in\": bool, \"out\": bool}");
    if (Status st = CheckKeys(c, s, p + "subnormals", {"in", "out"}); !st.ok()) return st;
    if (Status st = GetBool(c, s, "in", p + "subnormals.", &r->subnormals_in); !st.ok()) return st;
    if (Status st = GetBool(c, s, "out", p + "subnormals.", &r->subnormals_out); !st.ok())
      return st;
  }
  r->saturate = is_int || is_bfp;  // both always clamp
  if (Status st = GetBool(c, j, "saturate", p, &r->saturate); !st.ok()) return st;
  if ((is_int || is_bfp) && !r->saturate) {
    return c.Fail(p + "saturate", "integer and block floating-point formats always clamp; "
                                  "use true");
  }
  if (Status st = GetString(c, j, "matmul_unit", p, false, &r->matmul_unit); !st.ok()) return st;
  if (r->storage == RoleSpec::Storage::kFloat) {
    if (r->saturate) r->format = r->format.WithSaturate(true);
    if (!r->subnormals_in || !r->subnormals_out) r->format = r->format.WithFtz(true);
  }
  // 5. Sources: one per field given, each a reference key, "assumed" or a
  // citation of its own.
  if (!j.contains("sources") || !j["sources"].is_object()) {
    return c.Fail(p + "sources", "missing: an object citing the source of every field "
                                 "(a reference key, a citation, or \"assumed\")");
  }
  const Json& src = j["sources"];
  for (auto it = src.begin(); it != src.end(); ++it) {
    if (std::find(std::begin(kRoleFields), std::end(kRoleFields), it.key()) ==
        std::end(kRoleFields)) {
      return c.Fail(p + "sources." + it.key(), "not a field of a role");
    }
    if (!it.value().is_string() || it.value().get<std::string>().empty()) {
      return c.Fail(p + "sources." + it.key(), "must be a non-empty string");
    }
    r->sources[it.key()] = it.value().get<std::string>();
  }
  for (const char* field : kRoleFields) {
    if (j.contains(field) && r->sources.count(field) == 0) {
      return c.Fail(p + "sources." + field, "missing: cite the vendor document or paper for \"" +
                                                std::string(field) + "\", or say \"assumed\"");
    }
  }
  (void)references;
  return Status();
}

// Merges `defaults` under `role` (role keys win; "sources" merged key by key).
Json Merge(const Json& defaults, const Json& role) {
  Json out = defaults;
  for (auto it = role.begin(); it != role.end(); ++it) {
    if (it.key() == "sources" && out.contains("sources") && out["sources"].is_object() &&
        it.value().is_object()) {
      for (auto s = it.value().begin(); s != it.value().end(); ++s) out["sources"][s.key()] = *s;
    } else {
      out[it.key()] = it.value();
    }
  }
  return out;
}

std::string ExecutableDir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = '\0';
  return fs::path(buf).parent_path().string();
}

}  // namespace

const char* ToString(TargetRole r) {
  switch (r) {
    case TargetRole::kActivation: return "activation";
    case TargetRole::kWeight: return "weight";
    case TargetRole::kActivationGrad: return "activation_grad";
    case TargetRole::kWeightGrad: return "weight_grad";
    case TargetRole::kOptimizerState: return "optimizer_state";
    case TargetRole::kMasterWeights: return "master_weights";
  }
  return "?";
}

StatusOr<TargetRole> ParseTargetRole(const std::string& s) {
  for (TargetRole r : kRoles) {
    if (s == ToString(r)) return r;
  }
  return Status::Error("unknown role '" + s + "': use activation, weight, activation_grad, "
                       "weight_grad, optimizer_state or master_weights");
}

TargetRole ToTargetRole(Role r) {
  switch (r) {
    case Role::kActivation: return TargetRole::kActivation;
    case Role::kActivationGrad: return TargetRole::kActivationGrad;
    case Role::kWeightGrad: return TargetRole::kWeightGrad;
    case Role::kOptimizerState: return TargetRole::kOptimizerState;
    default: return TargetRole::kWeight;
  }
}

const std::array<TargetRole, kNumTargetRoles>& AllTargetRoles() { return kRoles; }

double RoleSpec::MaxValue() const {
  switch (storage) {
    case Storage::kFloat: return format.MaxValue();
    case Storage::kInteger: return std::max(-int_format.qmin(), int_format.qmax());
    case Storage::kBlockFp: return bfp_format.MaxRelative();
  }
  return 0;
}

double RoleSpec::MinPositive() const {
  switch (storage) {
    case Storage::kFloat: return format.ftz() ? format.MinNormal() : format.MinSubnormal();
    case Storage::kInteger: return 1.0;
    case Storage::kBlockFp: return std::ldexp(1.0, 1 - bfp_format.magnitude_bits);
  }
  return 0;
}

std::string RoleSpec::StorageName() const {
  switch (storage) {
    case Storage::kFloat: return format.name();
    case Storage::kInteger: return int_format.name;
    case Storage::kBlockFp: return bfp_format.name;
  }
  return "?";
}

std::string Target::Source(TargetRole r, const std::string& field) const {
  const auto& s = role(r).sources;
  auto it = s.find(field);
  if (it == s.end()) return "default";
  auto ref = references.find(it->second);
  return ref == references.end() ? it->second : ref->second;
}

StatusOr<Target> ParseTarget(const std::string& json_text, const std::string& origin) {
  const Checker c(origin);
  Json j;
  try {
    j = Json::parse(json_text);
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    return Status::Error(origin + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) return c.Fail("(top)", "must be a JSON object");
  if (Status st = CheckKeys(c, j, "",
                            {"name", "description", "vendor", "inference_only", "references", "defaults", "roles"});
      !st.ok()) {
    return st;
  }
  Target t;
  t.origin = origin;
  if (Status st = GetString(c, j, "name", "", true, &t.name); !st.ok()) return st;
  if (t.name.empty() || t.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") !=
                            std::string::npos) {
    return c.Fail("name", "must be lower-case letters, digits, '-', '_' or '.'");
  }
  if (Status st = GetString(c, j, "description", "", true, &t.description); !st.ok()) return st;
  if (Status st = GetString(c, j, "vendor", "", false, &t.vendor); !st.ok()) return st;
  if (Status st = GetBool(c, j, "inference_only", "", &t.inference_only); !st.ok()) return st;
  if (j.contains("references")) {
    if (!j["references"].is_object()) return c.Fail("references", "must be an object");
    for (auto it = j["references"].begin(); it != j["references"].end(); ++it) {
      if (!it.value().is_string()) return c.Fail("references." + it.key(), "must be a string");
      t.references[it.key()] = it.value().get<std::string>();
    }
  }
  Json defaults = Json::object();
  if (j.contains("defaults")) {
    if (!j["defaults"].is_object()) return c.Fail("defaults", "must be an object");
    defaults = j["defaults"];
  }
  if (!j.contains("roles") || !j["roles"].is_object()) {
    return c.Fail("roles", "missing: an object with activation, weight, activation_grad, "
                           "weight_grad, optimizer_state and master_weights");
  }
  const Json& roles = j["roles"];
  for (auto it = roles.begin(); it != roles.end(); ++it) {
    if (!ParseTargetRole(it.key()).ok()) {
      return c.Fail("roles." + it.key(), "unknown role; use activation, weight, activation_grad, "
                                         "weight_grad, optimizer_state or master_weights");
    }
  }
  for (TargetRole r : kRoles) {
    const std::string name = ToString(r);
    if (!roles.contains(name)) return c.Fail("roles." + name, "missing");
    if (!roles[name].is_object()) return c.Fail("roles." + name, "must be an object");
    const Json merged = Merge(defaults, roles[name]);
    Status st = ParseRole(c, merged, "roles." + name, t.references,
                          &t.roles[static_cast<size_t>(r)]);
    if (!st.ok()) return st;
  }
  return t;
}

StatusOr<Target> LoadTarget(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return Status::Error(path + ": cannot read the target file; give a readable .json path or "
                         "a built-in name (lpsim targets lists them)");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseTarget(ss.str(), path);
}

std::vector<std::string> TargetDirs() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("LPSIM_TARGETS_DIR"); env && *env) candidates.push_back(env);
  const std::string exe = ExecutableDir();
  if (!exe.empty()) candidates.push_back(exe + "/../share/lpsim/targets");
#ifdef LPSIM_SOURCE_TARGETS_DIR
  candidates.push_back(LPSIM_SOURCE_TARGETS_DIR);
#endif
  std::vector<std::string> out;
  for (const std::string& d : candidates) {
    std::error_code ec;
    if (fs::is_directory(d, ec)) out.push_back(fs::path(d).lexically_normal().string());
  }
  return out;
}

StatusOr<std::vector<Target>> BuiltinTargets() {
  const std::vector<std::string> dirs = TargetDirs();
  if (dirs.empty()) {
    return Status::Error("no targets folder found (looked in $LPSIM_TARGETS_DIR, "
                         "../share/lpsim/targets next to the executable and the source tree); "
                         "set LPSIM_TARGETS_DIR or give a target file by path");
  }
  std::vector<std::string> files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dirs[0], ec)) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<Target> out;
  for (const std::string& f : files) {
    StatusOr<Target> t = LoadTarget(f);
    if (!t.ok()) return t.status();
    if (t->name != fs::path(f).stem().string()) {
      return Status::Error(f + ": name: '" + t->name + "' must match the file name '" +
                           fs::path(f).stem().string() + "'");
    }
    out.push_back(std::move(t).value());
  }
  return out;
}

StatusOr<Target> FindTarget(const std::string& name_or_path) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 &&
                        name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
  if (is_path) return LoadTarget(name_or_path);
  StatusOr<std::vector<Target>> all = BuiltinTargets();
  if (!all.ok()) return all.status();
  std::string names;
  for (const Target& t : *all) {
    if (t.name == name_or_path) return t;
    names += (names.empty() ? "" : ", ") + t.name;
  }
  return Status::Error("unknown target '" + name_or_path + "': use one of " + names +
                       ", or a path to a target .json file");
}

std::pair<size_t, size_t> RoleMatrixShape(const RoleSpec& role,
                                          const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(std::max<int64_t>(d, 0));
  if (shape.size() < 2 || n == 0) return {1, shape.empty() ? 1 : n};
  if (role.storage == RoleSpec::Storage::kInteger && role.scaling.integer.per_channel) {
    const size_t rows = static_cast<size_t>(shape[0]);
    return {rows, n / rows};
  }
  const size_t cols = static_cast<size_t>(shape.back());
  return {n / cols, cols};
}

}  // namespace lpsim
