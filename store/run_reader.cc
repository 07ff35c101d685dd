// RunReader (store/run_db.h): opens a run database, checks that it is one
// this lpsim can read, and turns its rows back into records.
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>

#include "store/internal/record_codec.h"
#include "store/internal/schema.h"
#include "store/internal/statement.h"
#include "store/record_columns.h"
#include "store/run_db.h"

namespace lpsim {

using store_internal::Exec;
using store_internal::QueryInt;
using store_internal::SqliteError;
using store_internal::Stmt;

namespace {

namespace fs = std::filesystem;

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

class RunReader::Impl {
 public:
  ~Impl() {
    if (db_) sqlite3_close(db_);
  }

  // "PATH: what went wrong: what to do" for read errors after Open.
  Status Fail(const std::string& what) const {
    return Status::Error(path_ + ": " + what +
                         ": the run database may be corrupt; re-run, or re-export from a copy");
  }

  // Prepares `sql`, lets bind() set its parameters and calls row() on each
  // result row. row()'s first error is returned as it is; an SQLite error as
  // Fail("<context>: <SQLite's message>").
  Status Query(const std::string& context, const std::string& sql,
               const std::function<void(Stmt&)>& bind,
               const std::function<Status(const Stmt&)>& row) const {
    Stmt st;
    Status s = st.Prepare(db_, sql.c_str());
    if (!s.ok()) return Fail(context + ": " + s.message());
    if (bind) bind(st);
    Status row_error;
    s = st.ForEachRow([&] {
      row_error = row(st);
      return row_error;
    });
    if (!row_error.ok()) return row_error;
    if (!s.ok()) return Fail(context + ": " + s.message());
    return Status();
  }

  std::string path_;
  sqlite3* db_ = nullptr;
};

RunReader::RunReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunReader::~RunReader() = default;
const std::string& RunReader::path() const { return impl_->path_; }

StatusOr<std::unique_ptr<RunReader>> RunReader::Open(const std::string& path) {
  try {
    std::error_code ec;
    fs::path p(path);
    if (fs::is_directory(p, ec)) {
      p /= kRunDbFileName;
      if (!fs::exists(p, ec)) {
        return Status::Error(path + " is a directory without " + kRunDbFileName +
                             ": not a run directory; pass the RUN_DIR an lpsim run wrote, or "
                             "its run.db");
      }
    }
    const std::string file = p.string();
    const fs::file_status st = fs::status(p, ec);
    if (!fs::exists(st)) {
      return Status::Error(file + ": no such file: pass a run directory or its " + kRunDbFileName +
                           " (written by lpsim)");
    }
    if (!fs::is_regular_file(st)) {
      return Status::Error(file + " is not a regular file: pass a run directory or its " +
                           kRunDbFileName);
    }
    if (fs::file_size(p, ec) == 0 && !ec) {
      return Status::Error(file +
                           " is empty: not a run database (a run that stopped before it "
                           "wrote anything?); delete it or use another run");
    }

    auto impl = std::make_unique<Impl>();
    impl->path_ = file;
    // Read-write (SQLite falls back to read-only for a write-protected file)
    // but query_only: the last connection to close then removes the -wal and
    // -shm files, which a read-only one would leave behind, and a reader
    // after a crash checkpoints the committed steps into run.db.
    if (sqlite3_open_v2(file.c_str(), &impl->db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      const std::string msg = impl->db_ ? SqliteError(impl->db_) : "out of memory";
      return Status::Error(file + ": cannot open: " + msg);
    }
    sqlite3_busy_timeout(impl->db_, 5000);
    sqlite3* db = impl->db_;
    if (Status s = Exec(db, "PRAGMA query_only = 1"); !s.ok()) {
      return Status::Error(file + ": cannot open: " + s.message());
    }

    StatusOr<int64_t> app = QueryInt(db, "PRAGMA application_id");
    if (!app.ok()) {
      return Status::Error(file + " is not an lpsim run database: SQLite cannot read it (" +
                           SqliteError(db) + "): it is not an SQLite file, or it is corrupt");
    }
    StatusOr<int64_t> version = QueryInt(db, "PRAGMA user_version");
    if (!version.ok()) {
      return Status::Error(file +
                           ": cannot read the schema version: " + version.status().message());
    }
    if (*app != kRunDbApplicationId) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(*app));
      return Status::Error(file +
                           " is an SQLite database but not an lpsim run database "
                           "(application_id " +
                           buf + "): pass the run.db of a run lpsim wrote");
    }
    if (*version != kRunDbSchemaVersion) {
      const std::string have = std::to_string(*version);
      const std::string want = std::to_string(kRunDbSchemaVersion);
      if (*version > kRunDbSchemaVersion) {
        return Status::Error(file + " has schema version " + have + ", newer than the version " +
                             want + " this lpsim reads: use a newer lpsim");
      }
      return Status::Error(file + " has schema version " + have + ", older than the version " +
                           want +
                           " this lpsim reads: open it with the lpsim that wrote it "
                           "(runs.lpsim_version) or re-run");
    }
    // The log histogram's resolution is part of the format.
    std::optional<std::string> bits;
    Status s = impl->Query("cannot read table meta",
                           "SELECT value FROM meta WHERE key = 'log_hist_mantissa_bits'", nullptr,
                           [&](const Stmt& st) {
                             if (!bits) bits = st.Text(0);
                             return Status();
                           });
    if (!s.ok()) return s;
    if (!bits) return impl->Fail("table meta has no log_hist_mantissa_bits");
    if (*bits != std::to_string(TensorStats::kLogMantissaBits)) {
      return Status::Error(file + " stores log histograms with " + *bits +
                           " mantissa bits, this lpsim uses " +
                           std::to_string(TensorStats::kLogMantissaBits) +
                           ": open it with the lpsim that wrote it");
    }
    return std::unique_ptr<RunReader>(new RunReader(std::move(impl)));
  } catch (const std::exception& e) {
    return Status::Error(path + ": cannot open: " + e.what());
  }
}

StatusOr<RunInfo> RunReader::Info() const {
  std::optional<RunInfo> info;
  Status s = impl_->Query(
      "cannot read table runs",
      "SELECT name, started_at, finished_at, status, status_message, config_json, lpsim_version, "
      "last_step FROM runs ORDER BY id LIMIT 1",
      nullptr, [&](const Stmt& st) {
        RunInfo& i = info.emplace();
        i.path = impl_->path_;
        i.name = st.Text(0);
        i.started_at = st.Text(1);
        i.finished_at = st.Text(2);
        i.status = st.Text(3);
        i.status_message = st.Text(4);
        i.config_json = st.Text(5);
        i.lpsim_version = st.Text(6);
        if (!st.IsNull(7)) i.last_step = st.Int(7);
        i.schema_version = kRunDbSchemaVersion;
        return Status();
      });
  if (!s.ok()) return s;
  if (!info) return impl_->Fail("table runs is empty");
  return std::move(*info);
}

StatusOr<std::vector<TensorInfo>> RunReader::Tensors() const {
  std::vector<TensorInfo> out;
  Status s = impl_->Query(
      "cannot read table tensors",
      "SELECT name, role, module_type, shape, dtype FROM tensors ORDER BY name, role", nullptr,
      [&](const Stmt& st) {
        TensorInfo t;
        t.name = st.Text(0);
        StatusOr<Role> role = ParseRole(st.Text(1));
        if (!role.ok()) {
          return impl_->Fail("tensor " + Quoted(t.name) + ": " + role.status().message());
        }
        t.role = *role;
        t.module_type = st.Text(2);
        StatusOr<std::vector<int64_t>> shape = store_internal::ParseShape(st.Text(3));
        if (!shape.ok()) {
          return impl_->Fail("tensor " + Quoted(t.name) + ": " + shape.status().message());
        }
        t.shape = std::move(shape).value();
        t.dtype = st.Text(4);
        out.push_back(std::move(t));
        return Status();
      });
  if (!s.ok()) return s;
  // Roles sort by enum order, not by their text.
  std::stable_sort(out.begin(), out.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.name != b.name ? a.name < b.name : a.role < b.role;
  });
  return out;
}

StatusOr<std::vector<int64_t>> RunReader::Steps() const {
  std::vector<int64_t> out;
  Status s = impl_->Query(
      "cannot list steps",
      "SELECT DISTINCT step FROM stats UNION SELECT DISTINCT step FROM scalars ORDER BY 1",
      nullptr, [&](const Stmt& st) {
        out.push_back(st.Int(0));
        return Status();
      });
  if (!s.ok()) return s;
  return out;
}

StatusOr<std::vector<std::pair<std::string, std::string>>> RunReader::Candidates() const {
  std::vector<std::pair<std::string, std::string>> out;
  Status s = impl_->Query(
      "cannot read table format_stats",
      "SELECT DISTINCT format, recipe FROM format_stats ORDER BY format, recipe", nullptr,
      [&](const Stmt& st) {
        out.emplace_back(st.Text(0), st.Text(1));
        return Status();
      });
  if (!s.ok()) return s;
  return out;
}

namespace {

// Reads the stored (not derived) columns of `columns` from st, starting at
// result column `first`, into r.
template <typename R, size_t N>
void ReadColumns(const Column<R> (&columns)[N], const Stmt& st, int first, R& r) {
  int i = first;
  for (const Column<R>& c : columns) {
    if (c.derived()) continue;
    switch (c.type) {
      case ColumnType::kCount: c.set_count(r, st.UInt(i)); break;
      case ColumnType::kFloat:
      case ColumnType::kDouble: c.set_real(r, st.Real(i)); break;
      case ColumnType::kText: c.set_text(r, st.Text(i)); break;
    }
    ++i;
  }
}

}  // namespace

Status RunReader::ForEachRecord(const RecordFilter& filter,
                                const std::function<Status(TensorRecord&&)>& fn) const {
  try {
    // Result columns: 0 id, 1 step, 2 name, 3 role, 4 module_type, 5 shape,
    // 6 dtype, then the stored stats columns, then the two histograms.
    constexpr int kFirstStat = 7;
    static const std::string kRecordsSql =
        "SELECT s.id, s.step, t.name, t.role, t.module_type, COALESCE(s.shape, t.shape), "
        "COALESCE(s.dtype, t.dtype), " +
        store_internal::StoredStatsColumnList("s.") +
        ", s.exponent_hist, s.log_hist "
        "FROM stats s JOIN tensors t ON t.id = s.tensor_id "
        "WHERE s.step BETWEEN ?1 AND ?2 AND (?3 IS NULL OR t.name = ?3) "
        "AND (?4 IS NULL OR instr(?4, '|' || t.role || '|') > 0) ORDER BY s.step, s.id";
    static const std::string kFormatsSql = "SELECT " +
                                           store_internal::StoredFormatColumnList("") +
                                           " FROM format_stats WHERE stats_id = ?1 ORDER BY id";
    int stored_stats = 0;
    for (const StatsColumn& c : kStatsColumns) stored_stats += c.derived() ? 0 : 1;
    const int exponent_col = kFirstStat + stored_stats;

    Stmt fst;
    Status s = fst.Prepare(impl_->db_, kFormatsSql.c_str());
    if (!s.ok()) return impl_->Fail("cannot read table format_stats: " + s.message());

    auto bind = [&](Stmt& st) {
      st.Bind(1, filter.min_step);
      st.Bind(2, filter.max_step);
      if (filter.name) {
        st.Bind(3, *filter.name);
      } else {
        st.BindNull(3);
      }
      if (filter.role) {
        // "|weight|weight_grad|": each single role of the set, delimited.
        std::string roles = "|";
        for (Role single : kSingleRoles) {
          if (Contains(*filter.role, single)) roles += ToString(single) + "|";
        }
        st.Bind(4, roles);
      } else {
        st.BindNull(4);
      }
    };
    return impl_->Query("cannot read table stats", kRecordsSql, bind, [&](const Stmt& st) {
      TensorRecord r;
      const int64_t stats_id = st.Int(0);
      r.step = st.Int(1);
      r.name = st.Text(2);
      const std::string where = "tensor " + Quoted(r.name) + " at step " + std::to_string(r.step);
      StatusOr<Role> role = ParseRole(st.Text(3));
      if (!role.ok()) return impl_->Fail(where + ": " + role.status().message());
      r.role = *role;
      r.module_type = st.Text(4);
      StatusOr<std::vector<int64_t>> shape = store_internal::ParseShape(st.Text(5));
      if (!shape.ok()) return impl_->Fail(where + ": " + shape.status().message());
      r.shape = std::move(shape).value();
      r.dtype = st.Text(6);
      ReadColumns(kStatsColumns, st, kFirstStat, r.stats);
      Status hs = store_internal::DecodeExponentHist(st.Blob(exponent_col), &r.stats);
      if (!hs.ok()) return impl_->Fail(where + ": exponent_hist: " + hs.message());
      hs = store_internal::DecodeLogHist(st.Blob(exponent_col + 1), &r.stats);
      if (!hs.ok()) return impl_->Fail(where + ": log_hist: " + hs.message());

      fst.Bind(1, stats_id);
      hs = fst.ForEachRow([&] {
        FormatRecord f;
        ReadColumns(kFormatColumns, fst, 0, f);
        r.formats.push_back(std::move(f));
        return Status();
      });
      if (!hs.ok()) return impl_->Fail(where + ": cannot read format_stats: " + hs.message());
      return fn(std::move(r));
    });
  } catch (const std::exception& e) {
    return impl_->Fail(std::string("reading records failed: ") + e.what());
  }
}

StatusOr<std::vector<TensorRecord>> RunReader::Records(const RecordFilter& filter) const {
  std::vector<TensorRecord> out;
  Status s = ForEachRecord(filter, [&](TensorRecord&& r) {
    out.push_back(std::move(r));
    return Status();
  });
  if (!s.ok()) return s;
  return out;
}

StatusOr<std::vector<ScalarRecord>> RunReader::Scalars(const std::string& name) const {
  std::vector<ScalarRecord> out;
  Status s = impl_->Query(
      "cannot read table scalars",
      "SELECT step, name, value FROM scalars WHERE ?1 = '' OR name = ?1 ORDER BY step, id",
      [&](Stmt& st) { st.Bind(1, name); },
      [&](const Stmt& st) {
        out.push_back(ScalarRecord{st.Int(0), st.Text(1), st.Real(2)});
        return Status();
      });
  if (!s.ok()) return s;
  return out;
}

StatusOr<std::vector<Finding>> RunReader::Findings() const {
  std::vector<Finding> out;
  Status s = impl_->Query(
      "cannot read table findings",
      "SELECT step, rule, severity, tensor, message, evidence_json FROM findings "
      "ORDER BY step, id",
      nullptr, [&](const Stmt& st) {
        Finding f;
        f.step = st.Int(0);
        f.rule = st.Text(1);
        StatusOr<Severity> sev = store_internal::ParseSeverity(st.Text(2));
        if (!sev.ok()) {
          return impl_->Fail("finding " + Quoted(f.rule) + ": " + sev.status().message());
        }
        f.severity = *sev;
        f.tensor = st.Text(3);
        f.message = st.Text(4);
        StatusOr<std::map<std::string, double>> ev = store_internal::ParseEvidence(st.Text(5));
        if (!ev.ok()) {
          return impl_->Fail("finding " + Quoted(f.rule) + ": " + ev.status().message());
        }
        f.evidence = std::move(ev).value();
        out.push_back(std::move(f));
        return Status();
      });
  if (!s.ok()) return s;
  return out;
}

StatusOr<std::vector<CaptureRecord>> RunReader::Captures() const {
  std::vector<CaptureRecord> out;
  Status s = impl_->Query("cannot read table captures",
                          "SELECT step, path, reason FROM captures ORDER BY step, id", nullptr,
                          [&](const Stmt& st) {
                            out.push_back(CaptureRecord{st.Int(0), st.Text(1), st.Text(2)});
                            return Status();
                          });
  if (!s.ok()) return s;
  return out;
}

}  // namespace lpsim
