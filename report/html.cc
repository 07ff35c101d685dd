#include "report/html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/output.h"
#include "report/page.h"
#include "simd/scaling.h"
#include "store/run_db.h"

#ifndef LPSIM_WEB_NODE_MODULES
#define LPSIM_WEB_NODE_MODULES ""
#endif
#ifndef LPSIM_WEB_FROM_BIN
#define LPSIM_WEB_FROM_BIN "../share/lpsim/web"
#endif

namespace lpsim {

using Json = nlohmann::ordered_json;

namespace {

// The three UMD bundles, in load order.
constexpr const char* kScripts[] = {"vega/build/vega.min.js", "vega-lite/build/vega-lite.min.js",
                                    "vega-embed/build/vega-embed.min.js"};

bool HasLibraries(const std::string& dir) {
  for (const char* rel : kScripts) {
    if (::access((dir + "/" + rel).c_str(), R_OK) != 0) return false;
  }
  return true;
}

// share/lpsim/web beside an installed executable: <exe dir>/LPSIM_WEB_FROM_BIN.
std::string InstalledDir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<size_t>(n));
  const size_t slash = exe.rfind('/');
  if (slash == std::string::npos) return "";
  return exe.substr(0, slash) + "/" + LPSIM_WEB_FROM_BIN;
}

}  // namespace

std::vector<std::string> WebAssetsDirs() {
  const char* env = std::getenv("LPSIM_WEB_ASSETS");
  if (env && *env) return {env};
  std::vector<std::string> dirs;
  const std::string installed = InstalledDir();
  if (!installed.empty()) dirs.push_back(installed);
  if (*LPSIM_WEB_NODE_MODULES) dirs.push_back(LPSIM_WEB_NODE_MODULES);
  return dirs;
}

std::string WebAssetsDir() {
  const std::vector<std::string> dirs = WebAssetsDirs();
  for (const std::string& d : dirs) {
    if (HasLibraries(d)) return d;
  }
  return dirs.empty() ? std::string() : dirs.back();
}

namespace {

StatusOr<std::string> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "</script" inside inlined text would end the script element early.
std::string EscapeScript(std::string s) {
  size_t pos = 0;
  while ((pos = s.find("</script", pos)) != std::string::npos) {
    s.replace(pos, 2, "<\\/");
    pos += 3;
  }
  return s;
}

StatusOr<std::string> Libraries() {
  const std::string dir = WebAssetsDir();
  std::string out;
  for (const char* rel : kScripts) {
    const std::string path = dir + "/" + rel;
    StatusOr<std::string> js = ReadAll(path);
    if (!js.ok()) {
      std::string tried;
      for (const std::string& d : WebAssetsDirs()) tried += (tried.empty() ? "" : ", ") + d;
      return Status::Error("the report's chart libraries are missing: cannot read " + path +
                           " (looked in: " + tried +
                           "). Run scripts/setup.sh (it runs `npm ci` in report/web) and "
                           "reinstall, or point LPSIM_WEB_ASSETS at a node_modules folder "
                           "holding vega, vega-lite and vega-embed");
    }
    out += "<script>" + EscapeScript(*js) + "\n</script>\n";
  }
  return out;
}

Json Num(double v) {
  if (std::isnan(v) || std::isinf(v)) return Json();  // null: JSON has no Inf/NaN
  return v;
}

// Rounded to 4 significant digits: the page draws them, nobody reads 17.
Json Short(double v) {
  if (std::isnan(v) || std::isinf(v)) return Json();
  if (v == 0) return 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return std::strtod(buf, nullptr);
}

// Format limits (in log2 of the unscaled |x|) for a format seen through scale.
Json Range(const std::string& label, const Format& f, double scale, bool exact) {
  const double u_thr = f.ftz() ? f.MinNormal() - f.MinSubnormal() / 2 : f.MinSubnormal() / 2;
  const double ls = std::log2(scale);
  return Json::array({label, Short(std::log2(u_thr) - ls), Short(std::log2(f.MinNormal()) - ls),
                      Short(std::log2(f.MaxValue()) - ls), exact ? 1 : 0});
}

struct Builder {
  std::map<std::pair<std::string, int>, int> tensor_index;
  Json tensors = Json::array();
  std::map<std::string, int> pair_index;
  Json pairs = Json::array();
  std::vector<Format> what_if;  // ranges drawn at "current" scale when not simulated
  std::vector<ExtraRange> extra;  // e.g. a hardware target's roles
  std::vector<std::pair<int64_t, Json>> recs;  // step, compact record

  int Tensor(const TensorRecord& r) {
    auto key = std::make_pair(r.name, static_cast<int>(r.role));
    auto it = tensor_index.find(key);
    if (it != tensor_index.end()) return it->second;
    const int i = static_cast<int>(tensors.size());
    tensors.push_back({{"name", r.name}, {"role", ToString(r.role)}, {"module", r.module_type}});
    tensor_index[key] = i;
    return i;
  }
  int Pair(const std::string& p) {
    auto it = pair_index.find(p);
    if (it != pair_index.end()) return it->second;
    const int i = static_cast<int>(pairs.size());
    pairs.push_back(p);
    pair_index[p] = i;
    return i;
  }

  void Add(const TensorRecord& r) {
    Json j;
    j["t"] = Tensor(r);
    j["s"] = r.step;
    const TensorStats::ExponentBins h = r.stats.NonzeroExponentBins();
    j["e"] = h.exponents;
    j["c"] = h.counts;
    j["n"] = r.stats.count;
    j["z"] = r.stats.zeros;
    j["nf"] = r.stats.nans + r.stats.pos_infs + r.stats.neg_infs;
    j["amax"] = Num(r.stats.max_abs);
    Json cells = Json::array(), ranges = Json::array();
    std::set<std::string> simulated_formats;
    for (const FormatRecord& f : r.formats) {
      const CastCounts& k = f.counts;
      const double n = k.numel ? static_cast<double>(k.numel) : 1.0;
      cells.push_back(Json::array({Pair(f.format + "/" + f.recipe), Short(100.0 * static_cast<double>(k.underflow) / n),
                                   Short(100.0 * static_cast<double>(k.overflow) / n), Short(k.SnrDb()),
                                   Short(f.scale)}));
      StatusOr<Format> fmt = ParseFormat(f.format);
      if (fmt.ok() && f.scale > 0 && std::isfinite(f.scale)) {
        ranges.push_back(Range(f.format + "/" + f.recipe, *fmt, f.scale, true));
        simulated_formats.insert(fmt->name());
      }
    }
    for (const Format& f : what_if) {
      if (simulated_formats.count(f.name())) continue;
      ranges.push_back(Range(f.name() + "/current", f, CurrentScale(f, r.stats.max_abs), false));
    }
    for (const ExtraRange& x : extra) {
      if (x.role != r.role) continue;
      const float s = x.scaled ? CurrentScale(x.format, r.stats.max_abs, x.scale) : 1.0f;
      ranges.push_back(Range(x.label, x.format, s, false));
    }
    j["cells"] = cells;
    j["ranges"] = ranges;
    recs.emplace_back(r.step, std::move(j));
  }

  // Keeps the records of at most max_steps steps, evenly spaced.
  Json Records(size_t max_steps, Json* kept_steps) const {
    std::vector<int64_t> steps;
    for (const auto& [s, j] : recs) steps.push_back(s);
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    std::set<int64_t> keep;
    if (steps.size() <= max_steps || max_steps < 2) {
      keep.insert(steps.begin(), steps.end());
    } else {
      for (size_t i = 0; i < max_steps; ++i) {
        keep.insert(steps[i * (steps.size() - 1) / (max_steps - 1)]);
      }
    }
    *kept_steps = Json::array();
    for (int64_t s : keep) kept_steps->push_back(s);
    Json out = Json::array();
    for (const auto& [s, j] : recs) {
      if (keep.count(s)) out.push_back(j);
    }
    return out;
  }
};

StatusOr<std::vector<Format>> WhatIfFormats(const RecommendOptions& o) {
  std::vector<Format> out;
  if (o.formats.empty()) {
    for (const char* s : kDefaultWhatIfFormats) out.push_back(*ParseFormat(s));
    return out;
  }
  for (const std::string& s : o.formats) {
    StatusOr<Format> f = ParseFormat(s);
    if (!f.ok()) return f.status();
    out.push_back(*f);
  }
  return out;
}

std::string HtmlEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

StatusOr<std::string> Assemble(const std::string& title, Json data) {
  StatusOr<std::string> libs = Libraries();
  if (!libs.ok()) return libs.status();
  // The JSON sits in a script element: "</" must not end it early.
  std::string payload = EscapeScript(data.dump());
  std::string html;
  html.reserve(libs->size() + payload.size() + 32768);
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>";
  html += HtmlEscape(title);
  html += "</title>\n<style>";
  html += kReportCss;
  html += "</style>\n";
  html += *libs;
  html += "<script id=\"lpsim-data\" type=\"application/json\">";
  html += payload;
  html += "</script>\n</head><body>\n";
  html += kReportBody;
  html += "<script>";
  html += kReportScript;
  html += "</script>\n</body></html>\n";
  return html;
}

}  // namespace

StatusOr<std::string> RenderReport(const RunReader& run, const ReportOptions& options) {
  StatusOr<RunInfo> info = run.Info();
  if (!info.ok()) return info.status();
  StatusOr<std::vector<Format>> what_if = WhatIfFormats(options.recommend);
  if (!what_if.ok()) return what_if.status();
  Builder b;
  b.what_if = *what_if;
  b.extra = options.extra_ranges;
  Status s = run.ForEachRecord({}, [&](TensorRecord&& r) {
    b.Add(r);
    return Status();
  });
  if (!s.ok()) return s;
  StatusOr<Recommendation> rec = Recommend(run, options.recommend);
  if (!rec.ok()) return rec.status();
  StatusOr<std::vector<ScalarRecord>> scalars = run.Scalars();
  if (!scalars.ok()) return scalars.status();
  StatusOr<std::vector<Finding>> findings = run.Findings();
  if (!findings.ok()) return findings.status();

  Json data;
  const std::string title =
      options.title.empty() ? "lpsim report: " + info->name : options.title;
  data["title"] = title;
  data["run"] = {{"name", info->name},
                 {"path", info->path},
                 {"status", info->status},
                 {"started_at", info->started_at},
                 {"finished_at", info->finished_at},
                 {"last_step", info->last_step ? Json(*info->last_step) : Json()},
                 {"lpsim_version", info->lpsim_version}};
  data["tensors"] = b.tensors;
  data["pairs"] = b.pairs;
  Json kept;
  data["records"] = b.Records(options.max_steps, &kept);
  data["steps"] = kept;
  // Scalars: every step up to 20x max_steps, else evenly thinned per name.
  std::map<std::string, std::vector<const ScalarRecord*>> by_name;
  for (const ScalarRecord& sc : *scalars) by_name[sc.name].push_back(&sc);
  Json sj = Json::array();
  const size_t max_scalar = std::max<size_t>(options.max_steps * 20, 2);
  for (const auto& [name, v] : by_name) {
    const size_t stride = (v.size() + max_scalar - 1) / max_scalar;
    for (size_t i = 0; i < v.size(); ++i) {
      if (i % stride != 0 && i + 1 != v.size()) continue;
      sj.push_back({{"step", v[i]->step}, {"name", name}, {"value", Short(v[i]->value)}});
    }
  }
  data["scalars"] = sj;
  Json fj = Json::array();
  for (const Finding& f : *findings) {
    Json ev = Json::object();
    for (const auto& [k, v] : f.evidence) ev[k] = Num(v);
    fj.push_back({{"step", f.step},
                  {"rule", f.rule},
                  {"severity", ToString(f.severity)},
                  {"tensor", f.tensor},
                  {"message", f.message},
                  {"evidence", ev}});
  }
  data["findings"] = fj;
  Json pj = Json::array();
  for (const auto& [target, p] : options.predictions) {
    Json one = {{"target", target}};
    one.update(PredictionJson(target, p));
    pj.push_back(std::move(one));
  }
  data["predictions"] = pj;
  data["recommendation"] = RecommendationJson(*rec);
  return Assemble(title, std::move(data));
}

StatusOr<std::string> RenderRecordsReport(const std::string& title,
                                          const std::vector<TensorRecord>& records,
                                          const ReportOptions& options) {
  StatusOr<std::vector<Format>> what_if = WhatIfFormats(options.recommend);
  if (!what_if.ok()) return what_if.status();
  Builder b;
  b.what_if = *what_if;
  b.extra = options.extra_ranges;
  for (const TensorRecord& r : records) b.Add(r);
  StatusOr<Recommendation> rec = RecommendFromRecords(records, options.recommend);
  if (!rec.ok()) return rec.status();
  Json data;
  data["title"] = title;
  data["run"] = {{"name", title}, {"path", ""}, {"status", "at rest"}};
  data["tensors"] = b.tensors;
  data["pairs"] = b.pairs;
  Json kept;
  data["records"] = b.Records(options.max_steps, &kept);
  data["steps"] = kept;
  data["scalars"] = Json::array();
  data["findings"] = Json::array();
  data["predictions"] = Json::array();
  data["recommendation"] = RecommendationJson(*rec);
  return Assemble(title, std::move(data));
}

Status WriteReport(const RunReader& run, const ReportOptions& options, const std::string& path) {
  StatusOr<std::string> html = RenderReport(run, options);
  if (!html.ok()) return html.status();
  return WriteOutput(path, *html);
}

}  // namespace lpsim
