#include "benchmarks/report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

namespace lpsim {
namespace bench {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

std::string BaseKernel(const std::string& kernel) {
  for (const char* prefix : {"torch_", "ref_"}) {
    if (kernel.rfind(prefix, 0) == 0) return kernel.substr(std::string(prefix).size());
  }
  return kernel;
}

// The entries of Google Benchmark's JSON report that hold a measurement:
// named, not failed, and plain iterations or "mean" aggregates.
StatusOr<std::vector<nlohmann::json>> Entries(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error("benchmark output is not JSON");
  if (!j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array()) {
    return Status::Error("benchmark JSON has no \"benchmarks\" array (run with "
                         "--benchmark_format=json)");
  }
  std::vector<nlohmann::json> out;
  for (nlohmann::json& b : j["benchmarks"]) {
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) {
      return Status::Error("a benchmark entry has no name");
    }
    if (b.contains("error_occurred") && b["error_occurred"].is_boolean() &&
        b["error_occurred"].get<bool>()) {
      continue;
    }
    if (b.contains("aggregate_name") && b["aggregate_name"] != "mean") continue;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

StatusOr<std::vector<Row>> ParseReport(const std::string& text) {
  StatusOr<std::vector<nlohmann::json>> entries = Entries(text);
  if (!entries.ok()) return entries.status();
  std::vector<Row> rows;
  for (const nlohmann::json& b : *entries) {
    if (!b.contains("bytes_per_second") || !b["bytes_per_second"].is_number()) continue;
    std::string name = b["name"].get<std::string>();
    if (b.contains("run_name") && b["run_name"].is_string()) name = b["run_name"].get<std::string>();
    // Google Benchmark may append "/real_time", "/iterations:N", "/threads:N".
    std::vector<std::string> parts = Split(name, '/');
    if (parts.size() < 4 || parts[2].size() < 2 || parts[2][0] != 't') {
      return Status::Error("benchmark name '" + name +
                           "' is not <kernel>/<target>/t<threads>/<bytes>");
    }
    Row r;
    r.kernel = parts[0];
    r.target = parts[1];
    r.threads = std::atoi(parts[2].c_str() + 1);
    r.bytes = std::strtoull(parts[3].c_str(), nullptr, 10);
    r.gb_per_s = b["bytes_per_second"].get<double>() / 1e9;
    r.ns_per_elem = r.gb_per_s > 0 ? sizeof(float) * r.threads / r.gb_per_s : 0.0;
    if (r.threads <= 0 || r.bytes == 0) {
      return Status::Error("benchmark name '" + name + "' has no thread count or size");
    }
    rows.push_back(r);
  }
  // Baselines per (size, threads).
  using Key = std::tuple<std::string, uint64_t, int>;
  std::map<Key, double> best;  // kernel -> best rate over targets
  for (const Row& r : rows) {
    double& v = best[Key{r.kernel, r.bytes, r.threads}];
    v = std::max(v, r.gb_per_s);
  }
  auto base_rate = [&](const std::string& kernel, const Row& r) {
    auto it = best.find(Key{kernel, r.bytes, r.threads});
    return it == best.end() ? 0.0 : it->second;
  };
  auto base = [&](const std::string& kernel, const Row& r) {
    auto it = best.find(Key{kernel, r.bytes, r.threads});
    return it == best.end() || it->second <= 0 ? 0.0 : r.gb_per_s / it->second;
  };
  for (Row& r : rows) {
    r.vs_read = base("read_bw", r);
    const double copy = std::max(base_rate("memcpy", r), base_rate("copy_bw", r));
    r.vs_copy = copy > 0 ? r.gb_per_s / copy : 0.0;
    const std::string k = BaseKernel(r.kernel);
    if (k == r.kernel) {
      r.vs_torch = base("torch_" + k, r);
      r.vs_ref = base("ref_" + k, r);
    }
  }
  return rows;
}

std::string FormatTable(const std::vector<Row>& rows) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-22s %-8s %3s %10s %9s %7s %8s %8s %9s %9s\n", "kernel",
                "target", "thr", "size", "GB/s", "ns/el", "vs read", "vs copy", "vs torch",
                "vs ref");
  out += line;
  auto size = [](uint64_t b) {
    char s[32];
    if (b >= (uint64_t{1} << 20)) std::snprintf(s, sizeof s, "%lluMiB", (unsigned long long)(b >> 20));
    else std::snprintf(s, sizeof s, "%lluKiB", (unsigned long long)(b >> 10));
    return std::string(s);
  };
  auto ratio = [](double v) {
    char s[32];
    if (v == 0) return std::string("-");
    std::snprintf(s, sizeof s, v >= 100 ? "%.0fx" : "%.2fx", v);
    return std::string(s);
  };
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "%-22s %-8s %3d %10s %9.2f %7.3f %8s %8s %9s %9s\n",
                  r.kernel.c_str(), r.target.c_str(), r.threads, size(r.bytes).c_str(), r.gb_per_s,
                  r.ns_per_elem,
                  ratio(r.vs_read).c_str(), ratio(r.vs_copy).c_str(), ratio(r.vs_torch).c_str(),
                  ratio(r.vs_ref).c_str());
    out += line;
  }
  return out;
}

std::string ToJson(const std::vector<Row>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const Row& r : rows) {
    a.push_back({{"kernel", r.kernel}, {"target", r.target}, {"threads", r.threads},
                 {"bytes", r.bytes}, {"gb_per_s", r.gb_per_s}, {"ns_per_elem", r.ns_per_elem},
                 {"vs_read", r.vs_read},
                 {"vs_copy", r.vs_copy}, {"vs_torch", r.vs_torch}, {"vs_ref", r.vs_ref}});
  }
  return a.dump(2);
}

namespace {

// The model a tracker benchmark's name measures.
std::string TrackerModel(const std::vector<std::string>& parts) {
  if (parts[0] == "BM_TrainStep" && parts.size() > 1) return "demo_" + parts[1];
  if (parts[0] == "BM_TinyLm") return "transformer_lm";
  if (parts[0] == "BM_ResNet") return "resnet";
  return parts[0].rfind("BM_", 0) == 0 ? parts[0].substr(3) : parts[0];
}

}  // namespace

StatusOr<std::vector<TrackerRow>> ParseTrackerReport(const std::string& text) {
  StatusOr<std::vector<nlohmann::json>> entries = Entries(text);
  if (!entries.ok()) return entries.status();
  std::vector<TrackerRow> rows;
  for (const nlohmann::json& b : *entries) {
    const std::string name = b["name"].get<std::string>();
    if (!b.contains("label") || !b["label"].is_string() || !b.contains("real_time") ||
        !b["real_time"].is_number()) {
      return Status::Error("tracker benchmark '" + name + "' has no label or real_time");
    }
    const std::string unit = b.value("time_unit", std::string("ns"));
    const std::map<std::string, double> to_ms = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1.0}, {"s", 1e3}};
    auto u = to_ms.find(unit);
    if (u == to_ms.end()) return Status::Error("tracker benchmark '" + name + "' has time unit '" + unit + "'");
    TrackerRow r;
    r.model = TrackerModel(Split(name, '/'));
    r.mode = b["label"].get<std::string>();
    r.ms_per_step = b["real_time"].get<double>() * u->second;
    if (b.contains("peak_rss_mib") && b["peak_rss_mib"].is_number()) {
      r.peak_rss_mib = b["peak_rss_mib"].get<double>();
    }
    rows.push_back(r);
  }
  std::map<std::string, double> untracked;
  for (const TrackerRow& r : rows) {
    if (r.mode == "untracked") untracked[r.model] = r.ms_per_step;
  }
  for (TrackerRow& r : rows) {
    auto it = untracked.find(r.model);
    if (it != untracked.end() && it->second > 0) r.vs_untracked = r.ms_per_step / it->second;
  }
  return rows;
}

std::string FormatTrackerTable(const std::vector<TrackerRow>& rows) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %-10s %12s %13s %14s\n", "model", "mode", "ms/step",
                "vs untracked", "peak RSS MiB");
  out += line;
  for (const TrackerRow& r : rows) {
    char ratio[32] = "-";
    if (r.vs_untracked > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", r.vs_untracked);
    std::snprintf(line, sizeof line, "%-16s %-10s %12.3f %13s %14.0f\n", r.model.c_str(),
                  r.mode.c_str(), r.ms_per_step, ratio, r.peak_rss_mib);
    out += line;
  }
  return out;
}

std::string TrackerToJson(const std::vector<TrackerRow>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const TrackerRow& r : rows) {
    a.push_back({{"model", r.model}, {"mode", r.mode}, {"ms_per_step", r.ms_per_step},
                 {"vs_untracked", r.vs_untracked}, {"peak_rss_mib", r.peak_rss_mib}});
  }
  return a.dump(2);
}

StatusOr<std::vector<uint64_t>> ParseSizeList(const std::string& list) {
  constexpr uint64_t kMaxSize = uint64_t{1} << 40;
  const std::string help = "use sizes like 16K,4M,256M: multiples of 4K, at most 1T";
  std::vector<uint64_t> sizes;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
    size_t digits = 0;
    while (digits < item.size() && item[digits] >= '0' && item[digits] <= '9') ++digits;
    uint64_t mult = 1;
    const std::string suffix = item.substr(digits);
    if (suffix == "K" || suffix == "k") mult = uint64_t{1} << 10;
    else if (suffix == "M" || suffix == "m") mult = uint64_t{1} << 20;
    else if (suffix == "G" || suffix == "g") mult = uint64_t{1} << 30;
    else if (suffix == "T" || suffix == "t") mult = uint64_t{1} << 40;
    else if (!suffix.empty()) digits = 0;  // a bad suffix: reported below
    // Digits beyond 13 exceed 1T in any unit; checked before the conversion.
    uint64_t v = 0;
    if (digits > 0 && digits <= 13) v = std::stoull(item.substr(0, digits));
    if (v == 0) return Status::Error("bad size '" + item + "': " + help);
    if (v > kMaxSize / mult) return Status::Error("size '" + item + "' is over 1T; " + help);
    v *= mult;
    if (v % 4096 != 0) return Status::Error("size '" + item + "' is not a multiple of 4K; " + help);
    sizes.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return sizes;
}

}  // namespace bench
}  // namespace lpsim
