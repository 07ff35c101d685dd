#include "store/internal/schema.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "store/record_columns.h"

namespace lpsim::store_internal {
namespace {

// The tables whose columns are not records' statistics.
constexpr const char* kRunsSql = R"sql(
CREATE TABLE runs (
  id             INTEGER PRIMARY KEY,
  name           TEXT NOT NULL,
  started_at     TEXT NOT NULL,
  finished_at    TEXT,
  status         TEXT NOT NULL,
  status_message TEXT NOT NULL DEFAULT '',
  config_json    TEXT NOT NULL,
  lpsim_version  TEXT NOT NULL,
  last_step      INTEGER
);
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE tensors (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  role        TEXT NOT NULL,
  module_type TEXT NOT NULL,
  shape       TEXT NOT NULL,
  dtype       TEXT NOT NULL,
  UNIQUE (name, role)
);
)sql";

constexpr const char* kStatsIndexesSql = R"sql(CREATE INDEX stats_tensor_step ON stats (tensor_id, step);
CREATE INDEX stats_step ON stats (step);
)sql";

constexpr const char* kFormatIndexesSql =
    R"sql(CREATE INDEX format_stats_tensor_step ON format_stats (tensor_id, step);
CREATE INDEX format_stats_stats ON format_stats (stats_id);
)sql";

constexpr const char* kOtherTablesSql = R"sql(CREATE TABLE scalars (
  id    INTEGER PRIMARY KEY,
  step  INTEGER NOT NULL,
  name  TEXT NOT NULL,
  value REAL
);
CREATE INDEX scalars_name_step ON scalars (name, step);
CREATE INDEX scalars_step ON scalars (step);
CREATE TABLE findings (
  id            INTEGER PRIMARY KEY,
  step          INTEGER NOT NULL,
  rule          TEXT NOT NULL,
  severity      TEXT NOT NULL,
  tensor        TEXT NOT NULL,
  message       TEXT NOT NULL,
  evidence_json TEXT NOT NULL
);
CREATE INDEX findings_step ON findings (step);
CREATE TABLE captures (
  id     INTEGER PRIMARY KEY,
  step   INTEGER NOT NULL,
  path   TEXT NOT NULL,
  reason TEXT NOT NULL
);
CREATE INDEX captures_step ON captures (step);
)sql";

struct SqlColumn {
  std::string name;
  std::string type;
};

// "CREATE TABLE name (\n  col  TYPE,\n ...\n);\n", names padded to one width.
std::string CreateTable(const char* table, const std::vector<SqlColumn>& cols) {
  size_t width = 0;
  for (const SqlColumn& c : cols) width = std::max(width, c.name.size());
  std::string sql = std::string("CREATE TABLE ") + table + " (\n";
  for (size_t i = 0; i < cols.size(); ++i) {
    sql += "  " + cols[i].name + std::string(width + 1 - cols[i].name.size(), ' ') + cols[i].type;
    sql += i + 1 < cols.size() ? ",\n" : "\n";
  }
  return sql + ");\n";
}

template <typename R, size_t N>
void AppendColumns(const Column<R> (&columns)[N], std::vector<SqlColumn>* out) {
  for (const Column<R>& c : columns) out->push_back({c.name, c.SqlType()});
}

std::string Insert(const char* table, const std::vector<std::string>& names) {
  std::string cols, params;
  for (size_t i = 0; i < names.size(); ++i) {
    cols += (i ? ", " : "") + names[i];
    params += (i ? ", ?" : "?") + std::to_string(i + 1);
  }
  return std::string("INSERT INTO ") + table + " (" + cols + ") VALUES (" + params + ")";
}

template <typename R, size_t N>
std::vector<std::string> Names(const Column<R> (&columns)[N]) {
  std::vector<std::string> names;
  for (const Column<R>& c : columns) names.push_back(c.name);
  return names;
}

template <typename R, size_t N>
std::string StoredList(const Column<R> (&columns)[N], const std::string& prefix) {
  std::string list;
  for (const Column<R>& c : columns) {
    if (c.derived()) continue;
    list += (list.empty() ? "" : ", ") + prefix + c.name;
  }
  return list;
}

}  // namespace

const std::string& SchemaSql() {
  static const std::string sql = [] {
    std::vector<SqlColumn> stats = {{"id", "INTEGER PRIMARY KEY"},
                                    {"tensor_id", "INTEGER NOT NULL REFERENCES tensors (id)"},
                                    {"step", "INTEGER NOT NULL"}};
    AppendColumns(kStatsColumns, &stats);
    stats.insert(stats.end(), {{"exponent_hist", "BLOB NOT NULL"},
                               {"log_hist", "BLOB NOT NULL"},
                               {"shape", "TEXT"},
                               {"dtype", "TEXT"},
                               {"samples", "BLOB"}});
    std::vector<SqlColumn> formats = {{"id", "INTEGER PRIMARY KEY"},
                                      {"stats_id", "INTEGER NOT NULL REFERENCES stats (id)"},
                                      {"tensor_id", "INTEGER NOT NULL REFERENCES tensors (id)"},
                                      {"step", "INTEGER NOT NULL"}};
    AppendColumns(kFormatColumns, &formats);
    return kRunsSql + CreateTable("stats", stats) + kStatsIndexesSql +
           CreateTable("format_stats", formats) + kFormatIndexesSql + kOtherTablesSql;
  }();
  return sql;
}

std::vector<std::pair<std::string, std::string>> MetaRows() {
  return {
      {"exponent_hist_min", std::to_string(TensorStats::kMinExponent)},
      {"exponent_hist_max", std::to_string(TensorStats::kMaxExponent)},
      {"log_hist_mantissa_bits", std::to_string(TensorStats::kLogMantissaBits)},
      {"log_hist_bins", std::to_string(TensorStats::kLogBins)},
  };
}

const std::string& StatsInsertSql() {
  static const std::string sql = [] {
    std::vector<std::string> names = {"tensor_id", "step"};
    const std::vector<std::string> values = Names(kStatsColumns);
    names.insert(names.end(), values.begin(), values.end());
    names.insert(names.end(), {"exponent_hist", "log_hist", "shape", "dtype", "samples"});
    return Insert("stats", names);
  }();
  return sql;
}

int StatsInsertBlobIndex() {
  return kStatsInsertFirstColumn + static_cast<int>(std::size(kStatsColumns));
}

const std::string& FormatInsertSql() {
  static const std::string sql = [] {
    std::vector<std::string> names = {"stats_id", "tensor_id", "step"};
    const std::vector<std::string> values = Names(kFormatColumns);
    names.insert(names.end(), values.begin(), values.end());
    return Insert("format_stats", names);
  }();
  return sql;
}

std::string StoredStatsColumnList(const std::string& prefix) {
  return StoredList(kStatsColumns, prefix);
}

std::string StoredFormatColumnList(const std::string& prefix) {
  return StoredList(kFormatColumns, prefix);
}

}  // namespace lpsim::store_internal
