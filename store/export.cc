#include "store/export.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/output.h"
#include "store/internal/record_codec.h"
#include "store/record_columns.h"

namespace lpsim {
namespace {

using Json = nlohmann::json;

// Exponent windows wider than this are not useful: fp32 frexp exponents lie
// in [-148, 128].
constexpr int kMaxTandvWindow = 1000;

// ---------------------------------------------------------------------------
// Text.

// Shortest text that reads back to the same value; inf, -inf, nan for the
// non-finite ones (pandas and Python's float() read them).
template <typename T>
std::string Num(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void CsvRow(std::ostream& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out << ',';
    out << CsvField(fields[i]);
  }
  out << '\n';
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

using store_internal::NumberJson;
using store_internal::ShapeText;

// A column's value as CSV text: counts in decimal, reals as Num gives them
// (fp32 values in their shortest fp32 spelling), text as it is.
template <typename R>
std::string ColumnText(const Column<R>& c, const R& r) {
  switch (c.type) {
    case ColumnType::kCount: return std::to_string(c.count(r));
    case ColumnType::kFloat: return Num(static_cast<float>(c.real(r)));
    case ColumnType::kDouble: return Num(c.real(r));
    case ColumnType::kText: return c.text(r);
  }
  return "";
}

// The same as a JSON value; non-finite reals as NumberJson spells them.
template <typename R>
Json ColumnJson(const Column<R>& c, const R& r) {
  switch (c.type) {
    case ColumnType::kCount: return c.count(r);
    case ColumnType::kFloat:
    case ColumnType::kDouble: return NumberJson(c.real(r));
    case ColumnType::kText: return c.text(r);
  }
  return Json();
}

template <typename R, size_t N>
const Column<R>& MustFind(const Column<R> (&columns)[N], const char* name) {
  const Column<R>* c = FindColumn(columns, name);
  if (!c) throw std::logic_error(std::string("no record column ") + name);
  return *c;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status StreamError(const std::ostream& out) {
  if (out) return Status();
  return Status::Error(std::string("write failed: ") + std::strerror(errno));
}

// ---------------------------------------------------------------------------
// tandv

Status ExportTandv(const RunReader& reader, std::ostream& out, const ExportOptions& opt) {
  if (opt.tandv_min_exp > opt.tandv_max_exp || opt.tandv_min_exp < -kMaxTandvWindow ||
      opt.tandv_max_exp > kMaxTandvWindow) {
    return Status::Error("tandv exponent window [" + std::to_string(opt.tandv_min_exp) + ", " +
                         std::to_string(opt.tandv_max_exp) +
                         "] is invalid: use min <= max within [-1000, 1000] (default [-16, 16])");
  }
  StatusOr<std::vector<std::pair<std::string, std::string>>> candidates = reader.Candidates();
  if (!candidates.ok()) return candidates.status();

  static const char* const kMeta[] = {"name", "type", "tensor_type", "step", "dtype"};
  // tandv's scalar_stats first (rm2 is our rms), then ours.
  static const std::pair<const char*, const char*> kStats[] = {
      {"mean", "mean"},         {"std", "std"},   {"max_abs", "max_abs"},   {"min_abs", "min_abs"},
      {"rm2", "rms"},           {"count", "count"}, {"zeros", "zeros"},     {"nans", "nans"},
      {"pos_infs", "pos_infs"}, {"neg_infs", "neg_infs"}, {"min", "min"},   {"max", "max"},
      {"p25", "p25"},           {"p50", "p50"},   {"p75", "p75"},           {"p99", "p99"}};
  static const char* const kPerFormat[] = {"underflow", "flushed", "subnormal", "overflow",
                                           "snr_db"};
  std::vector<const StatsColumn*> stats_columns;
  for (const auto& [header, column] : kStats) {
    stats_columns.push_back(&MustFind(kStatsColumns, column));
  }
  std::vector<const FormatColumn*> format_columns;
  for (const char* column : kPerFormat) format_columns.push_back(&MustFind(kFormatColumns, column));
  std::vector<std::string> groups, columns;
  auto add = [&](const std::string& g, const std::string& c) {
    groups.push_back(g);
    columns.push_back(c);
  };
  for (const char* c : kMeta) add("metadata", c);
  for (const auto& [header, column] : kStats) add("scalar_stats", header);
  for (const auto& [format, recipe] : *candidates) {
    for (const char* c : kPerFormat) add("scalar_stats", format + "/" + recipe + "/" + c);
  }
  add("exponent_counts", "-inf");
  for (int k = opt.tandv_min_exp; k <= opt.tandv_max_exp; ++k) {
    add("exponent_counts", std::to_string(k));
  }
  add("exponent_counts", "+inf");
  CsvRow(out, groups);
  CsvRow(out, columns);

  std::map<std::pair<std::string, std::string>, size_t> candidate_index;
  for (size_t i = 0; i < candidates->size(); ++i) candidate_index[(*candidates)[i]] = i;
  const size_t window = static_cast<size_t>(opt.tandv_max_exp - opt.tandv_min_exp + 1);

  return reader.ForEachRecord({}, [&](TensorRecord&& r) {
    const TensorStats& s = r.stats;
    const TandvNames names = ToTandvNames(r.name, r.role);
    std::vector<std::string> row = {names.name, r.module_type, names.tensor_type,
                                    std::to_string(r.step), r.dtype};
    for (const StatsColumn* c : stats_columns) row.push_back(ColumnText(*c, s));

    // Per-candidate columns; empty where this record did not simulate it
    // (the first record of a (format, recipe) pair wins if it repeats).
    std::vector<std::string> per_format(candidates->size() * format_columns.size());
    std::vector<bool> seen(candidates->size(), false);
    for (const FormatRecord& f : r.formats) {
      auto it = candidate_index.find({f.format, f.recipe});
      if (it == candidate_index.end() || seen[it->second]) continue;
      seen[it->second] = true;
      for (size_t k = 0; k < format_columns.size(); ++k) {
        per_format[it->second * format_columns.size() + k] = ColumnText(*format_columns[k], f);
      }
    }
    row.insert(row.end(), per_format.begin(), per_format.end());

    // Our bin e holds |x| in [2^e, 2^(e+1)); frexp gives that |x| exponent
    // k = e + 1, tandv's column. Zeros and NaNs are in no column; infinities
    // are above every window.
    uint64_t below = 0, above = s.pos_infs + s.neg_infs;
    std::vector<uint64_t> counts(window, 0);
    for (int i = 0; i < TensorStats::kExponentBins; ++i) {
      const uint64_t c = s.exponent_hist[static_cast<size_t>(i)];
      if (c == 0) continue;
      const int k = i + TensorStats::kMinExponent + 1;
      if (k < opt.tandv_min_exp) {
        below += c;
      } else if (k > opt.tandv_max_exp) {
        above += c;
      } else {
        counts[static_cast<size_t>(k - opt.tandv_min_exp)] += c;
      }
    }
    row.push_back(std::to_string(below));
    for (uint64_t c : counts) row.push_back(std::to_string(c));
    row.push_back(std::to_string(above));
    CsvRow(out, row);
    return StreamError(out);
  });
}

// ---------------------------------------------------------------------------
// CSV

Status ExportCsv(const RunReader& reader, std::ostream& out) {
  std::vector<std::string> header = {"step", "name", "role", "module_type", "dtype", "shape"};
  for (const StatsColumn& c : kStatsColumns) header.push_back(c.name);
  for (const FormatColumn& c : kFormatColumns) header.push_back(c.name);
  CsvRow(out, header);
  return reader.ForEachRecord({}, [&](TensorRecord&& r) {
    std::vector<std::string> head = {std::to_string(r.step), r.name,  ToString(r.role),
                                     r.module_type,          r.dtype, ShapeText(r.shape)};
    for (const StatsColumn& c : kStatsColumns) head.push_back(ColumnText(c, r.stats));
    if (r.formats.empty()) {
      std::vector<std::string> row = head;
      row.resize(head.size() + std::size(kFormatColumns));  // no format: its columns stay empty
      CsvRow(out, row);
    }
    for (const FormatRecord& f : r.formats) {
      std::vector<std::string> row = head;
      for (const FormatColumn& c : kFormatColumns) row.push_back(ColumnText(c, f));
      CsvRow(out, row);
    }
    return StreamError(out);
  });
}

// ---------------------------------------------------------------------------
// JSON

// Sparse histogram as {"key": count} for the nonzero bins.
template <typename Key>
Json SparseJson(const uint64_t* counts, size_t n, Key key) {
  Json j = Json::object();
  for (size_t i = 0; i < n; ++i) {
    if (counts[i]) j[std::to_string(key(static_cast<int>(i)))] = counts[i];
  }
  return j;
}

Json RecordJson(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  Json stats = Json::object();
  for (const StatsColumn& c : kStatsColumns) stats[c.name] = ColumnJson(c, s);
  stats["exponent_hist"] = SparseJson(s.exponent_hist.data(), s.exponent_hist.size(),
                                      [](int i) { return i + TensorStats::kMinExponent; });
  stats["log_hist"] = SparseJson(s.log_hist.data(), s.log_hist.size(), [](int i) { return i; });
  Json formats = Json::array();
  for (const FormatRecord& f : r.formats) {
    Json fj = Json::object();
    for (const FormatColumn& c : kFormatColumns) fj[c.name] = ColumnJson(c, f);
    formats.push_back(std::move(fj));
  }
  return {{"step", r.step},
          {"name", r.name},
          {"role", ToString(r.role)},
          {"module_type", r.module_type},
          {"shape", r.shape},
          {"dtype", r.dtype},
          {"stats", std::move(stats)},
          {"formats", std::move(formats)}};
}

Status ExportJson(const RunReader& reader, std::ostream& out) {
  StatusOr<RunInfo> info = reader.Info();
  if (!info.ok()) return info.status();
  Json config = Json::parse(info->config_json, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) config = info->config_json;  // keep it, as text
  Json run = {{"name", info->name},
              {"started_at", info->started_at},
              {"finished_at", info->finished_at.empty() ? Json() : Json(info->finished_at)},
              {"status", info->status},
              {"status_message", info->status_message},
              {"config", std::move(config)},
              {"lpsim_version", info->lpsim_version},
              {"last_step", info->last_step ? Json(*info->last_step) : Json()},
              {"schema_version", info->schema_version}};

  StatusOr<std::vector<TensorInfo>> tensors = reader.Tensors();
  if (!tensors.ok()) return tensors.status();
  Json tj = Json::array();
  for (const TensorInfo& t : *tensors) {
    tj.push_back({{"name", t.name},
                  {"role", ToString(t.role)},
                  {"module_type", t.module_type},
                  {"shape", t.shape},
                  {"dtype", t.dtype}});
  }

  out << "{\"run\": " << Dump(run) << ",\n\"tensors\": " << Dump(tj) << ",\n\"records\": [";
  bool first = true;
  Status s = reader.ForEachRecord({}, [&](TensorRecord&& r) {
    out << (first ? "\n" : ",\n") << Dump(RecordJson(r));
    first = false;
    return StreamError(out);
  });
  if (!s.ok()) return s;

  StatusOr<std::vector<ScalarRecord>> scalars = reader.Scalars();
  if (!scalars.ok()) return scalars.status();
  out << "],\n\"scalars\": [";
  first = true;
  for (const ScalarRecord& r : *scalars) {
    out << (first ? "\n" : ",\n")
        << Dump({{"step", r.step}, {"name", r.name}, {"value", NumberJson(r.value)}});
    first = false;
  }

  StatusOr<std::vector<Finding>> findings = reader.Findings();
  if (!findings.ok()) return findings.status();
  out << "],\n\"findings\": [";
  first = true;
  for (const Finding& f : *findings) {
    Json evidence = Json::object();
    for (const auto& [k, v] : f.evidence) evidence[k] = NumberJson(v);
    out << (first ? "\n" : ",\n")
        << Dump({{"step", f.step},
                 {"rule", f.rule},
                 {"severity", ToString(f.severity)},
                 {"tensor", f.tensor},
                 {"message", f.message},
                 {"evidence", std::move(evidence)}});
    first = false;
  }

  StatusOr<std::vector<CaptureRecord>> captures = reader.Captures();
  if (!captures.ok()) return captures.status();
  out << "],\n\"captures\": [";
  first = true;
  for (const CaptureRecord& c : *captures) {
    out << (first ? "\n" : ",\n")
        << Dump({{"step", c.step}, {"path", c.path}, {"reason", c.reason}});
    first = false;
  }
  out << "]}\n";
  return StreamError(out);
}

}  // namespace

const char* ToString(ExportKind k) {
  switch (k) {
    case ExportKind::kTandv: return "tandv";
    case ExportKind::kCsv: return "csv";
    case ExportKind::kJson: return "json";
  }
  return "?";
}

StatusOr<ExportKind> ParseExportKind(const std::string& s) {
  for (ExportKind k : {ExportKind::kTandv, ExportKind::kCsv, ExportKind::kJson}) {
    if (s == ToString(k)) return k;
  }
  return Status::Error("unknown export kind '" + s + "': use tandv, csv or json");
}

TandvNames ToTandvNames(const std::string& name, Role role) {
  TandvNames out;
  std::string base = name;
  switch (role) {
    case Role::kActivation: out.tensor_type = "Activation"; break;
    case Role::kActivationGrad: out.tensor_type = "Gradient"; break;
    case Role::kWeight: out.tensor_type = "Weights"; break;
    case Role::kWeightGrad: out.tensor_type = "Weight_Gradients"; break;
    case Role::kOptimizerState: {
      // "<param>.<key>": tandv names the row by the parameter.
      const size_t dot = name.rfind('.');
      if (dot == std::string::npos || dot + 1 == name.size()) {
        out.tensor_type = "Optimiser_State.state";
      } else {
        out.tensor_type = "Optimiser_State." + name.substr(dot + 1);
        base = name.substr(0, dot);
      }
      break;
    }
    default:  // a set of roles: not a record's role; keep our spelling
      out.tensor_type = ToString(role);
      break;
  }
  // tandv names parameters without their ".weight" (torch's removesuffix).
  if (role != Role::kActivation && role != Role::kActivationGrad && EndsWith(base, ".weight")) {
    base.resize(base.size() - 7);
  }
  out.name = std::move(base);
  return out;
}

Status ExportTo(const RunReader& reader, ExportKind kind, std::ostream& out,
                const ExportOptions& options) {
  try {
    switch (kind) {
      case ExportKind::kTandv: return ExportTandv(reader, out, options);
      case ExportKind::kCsv: return ExportCsv(reader, out);
      case ExportKind::kJson: return ExportJson(reader, out);
    }
    return Status::Error("unknown export kind");
  } catch (const std::exception& e) {
    return Status::Error(std::string("export failed: ") + e.what());
  }
}

Status Export(const RunReader& reader, ExportKind kind, const std::string& out_path,
              const ExportOptions& options) {
  Status s = WriteOutput(out_path, [&](OutputSink& out) {
    return ExportTo(reader, kind, out.stream(), options);
  });
  return s.Prefixed(std::string("exporting ") + ToString(kind) + " to " + out_path +
                    " failed (nothing was written): ");
}

}  // namespace lpsim
