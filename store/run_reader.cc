// RunReader (store/run_db.h): opens a run database read-only, checks that it
// is one this lpsim can read, and turns its rows back into records, refusing
// any row that holds what lpsim never writes (store/internal/row_check.h).
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>

#include "store/internal/reader_impl.h"
#include "store/internal/record_codec.h"
#include "store/internal/row_check.h"
#include "store/internal/schema.h"
#include "store/internal/statement.h"
#include "store/record_columns.h"
#include "store/run_db.h"

namespace lpsim {

using store_internal::ParseRecordRole;
using store_internal::QueryInt;
using store_internal::Quoted;
using store_internal::SqliteError;
using store_internal::Stmt;

namespace {

namespace fs = std::filesystem;

// The statuses a writer sets (docs/store.md, table runs).
constexpr const char* kRunStatuses[] = {"running", "ok", "failed", "aborted"};

// True when the file's header says WAL mode (SQLite's file format: bytes 18
// and 19, the write and read versions, are 2).
bool HeaderSaysWal(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  char header[20] = {};
  in.read(header, sizeof header);
  return in && header[18] == 2 && header[19] == 2;
}

// "file:" URI of a path, every byte but unreserved ones and '/' escaped.
std::string FileUri(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const char ch : path) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri;
}

}  // namespace


namespace store_internal {

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

StatusOr<Role> ParseRecordRole(const std::string& text) {
  for (Role r : kSingleRoles) {
    if (text == ToString(r)) return r;
  }
  return Status::Error("role " + Quoted(text) +
                       " is none of activation, activation_grad, weight, weight_grad, "
                       "optimizer_state");
}

}  // namespace store_internal

Status RunReader::Impl::Fail(const std::string& what) const {
  return Status::Error(path_ + ": " + what +
                       ": the run database may be corrupt; re-run, or re-export from a copy");
}

Status RunReader::Impl::Corrupt(const std::string& table, int64_t row, const std::string& what,
                                const std::string& context) const {
  return Status::Error(path_ + ": table " + table + ", row " + std::to_string(row) +
                       (context.empty() ? "" : " (" + context + ")") + ": " + what +
                       ": the run database is corrupt (damaged, or changed by another program); "
                       "re-run, or restore it from a copy");
}

Status RunReader::Impl::BadRow(const std::string& table, const std::string& condition,
                               const char* column, const std::string& what) const {
  std::optional<Status> bad;
  Status s = Query("cannot read table " + table,
                   "SELECT id, " + std::string(column) + " FROM " + table + " WHERE " +
                       condition + " ORDER BY id LIMIT 1",
                   nullptr, [&](const Stmt& st) {
                     bad = Corrupt(table, st.Int(0),
                                   std::string("column ") + column + " holds " +
                                       store_internal::DescribeValue(st, 1) + " where " + what +
                                       " belongs");
                     return Status();
                   });
  if (!s.ok()) return s;
  return bad ? *bad : Status();
}

Status RunReader::Impl::CheckReferences() const {
  std::optional<Status> bad;
  Status s = Query("cannot check the references between tables", "PRAGMA foreign_key_check",
                   nullptr, [&](const Stmt& st) {
                     if (!bad) {
                       bad = Corrupt(st.Text(0), st.Int(1),
                                     "it refers to a row of table " + st.Text(2) +
                                         " that does not exist");
                     }
                     return Status();
                   });
  if (!s.ok()) return s;
  return bad ? *bad : Status();
}

Status RunReader::Impl::Query(const std::string& context, const std::string& sql,
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
    // Read-only, so a reader never changes a run and works where it cannot
    // write. A run that is being written, or whose writer was killed, has
    // its -wal (and -shm) file: SQLite reads the committed steps from it. A
    // closed run is in rollback-journal mode and needs no file beside it.
    // A closed run left in WAL mode (older lpsim) without its -wal would
    // make SQLite create -wal and -shm and leave them behind: no writer can
    // touch such a file again, so it is opened immutable (no locks, no side
    // files).
    const bool immutable = !fs::exists(file + "-wal", ec) && HeaderSaysWal(file);
    const std::string uri = FileUri(file) + (immutable ? "?immutable=1" : "");
    if (sqlite3_open_v2(uri.c_str(), &impl->db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                        nullptr) != SQLITE_OK) {
      const std::string msg = impl->db_ ? SqliteError(impl->db_) : "out of memory";
      return Status::Error(file + ": cannot open: " + msg);
    }
    sqlite3_busy_timeout(impl->db_, 5000);
    sqlite3* db = impl->db_;

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
    if (*version < kRunDbOldestReadableVersion || *version > kRunDbSchemaVersion) {
      const std::string have = std::to_string(*version);
      const std::string want = std::to_string(kRunDbSchemaVersion);
      if (*version > kRunDbSchemaVersion) {
        return Status::Error(file + " has schema version " + have + ", newer than the version " +
                             want + " this lpsim reads: use a newer lpsim");
      }
      return Status::Error(file + " has schema version " + have + ", older than the versions " +
                           std::to_string(kRunDbOldestReadableVersion) + ".." + want +
                           " this lpsim reads: open it with the lpsim that wrote it "
                           "(runs.lpsim_version) or re-run");
    }
    impl->schema_version_ = static_cast<int>(*version);
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
    s = impl->CheckReferences();
    if (!s.ok()) return s;
    return std::unique_ptr<RunReader>(new RunReader(std::move(impl)));
  } catch (const std::exception& e) {
    return Status::Error(path + ": cannot open: " + e.what());
  }
}

StatusOr<RunInfo> RunReader::Info() const {
  std::optional<RunInfo> info;
  Status s = impl_->Query(
      "cannot read table runs",
      "SELECT id, name, started_at, finished_at, status, status_message, config_json, "
      "lpsim_version, last_step FROM runs ORDER BY id LIMIT 1",
      nullptr, [&](const Stmt& st) {
        using store_internal::IntegerProblem;
        using store_internal::TextProblem;
        const int64_t id = st.Int(0);
        const char* const kText[] = {"name",          "started_at",  "finished_at",
                                     "status",        "status_message", "config_json",
                                     "lpsim_version"};
        for (int i = 0; i < 7; ++i) {
          const std::string p = TextProblem(st, i + 1, kText[i], /*nullable=*/i == 2);
          if (!p.empty()) return impl_->Corrupt("runs", id, p);
        }
        std::string p = IntegerProblem(st, 8, "last_step", /*nullable=*/true);
        if (!p.empty()) return impl_->Corrupt("runs", id, p);
        RunInfo& i = info.emplace();
        i.path = impl_->path_;
        i.name = st.Text(1);
        i.started_at = st.Text(2);
        i.finished_at = st.Text(3);
        i.status = st.Text(4);
        i.status_message = st.Text(5);
        i.config_json = st.Text(6);
        i.lpsim_version = st.Text(7);
        if (!st.IsNull(8)) i.last_step = st.Int(8);
        i.schema_version = impl_->schema_version_;
        if (std::find_if(std::begin(kRunStatuses), std::end(kRunStatuses), [&](const char* k) {
              return i.status == k;
            }) == std::end(kRunStatuses)) {
          return impl_->Corrupt("runs", id,
                                "status " + Quoted(i.status) +
                                    " is none of running, ok, failed, aborted");
        }
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
      "SELECT id, name, role, module_type, shape, dtype FROM tensors ORDER BY name, role",
      nullptr, [&](const Stmt& st) {
        const int64_t id = st.Int(0);
        const char* const kText[] = {"name", "role", "module_type", "shape", "dtype"};
        for (int i = 0; i < 5; ++i) {
          const std::string p = store_internal::TextProblem(st, i + 1, kText[i]);
          if (!p.empty()) return impl_->Corrupt("tensors", id, p);
        }
        TensorInfo t;
        t.name = st.Text(1);
        const std::string context = "tensor " + Quoted(t.name);
        StatusOr<Role> role = ParseRecordRole(st.Text(2));
        if (!role.ok()) return impl_->Corrupt("tensors", id, role.status().message(), context);
        t.role = *role;
        t.module_type = st.Text(3);
        StatusOr<std::vector<int64_t>> shape = store_internal::ParseShape(st.Text(4));
        if (!shape.ok()) return impl_->Corrupt("tensors", id, shape.status().message(), context);
        t.shape = std::move(shape).value();
        t.dtype = st.Text(5);
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
  for (const char* table : {"stats", "scalars"}) {
    Status s = impl_->BadRow(table, "typeof(step) != 'integer'", "step", "an integer");
    if (!s.ok()) return s;
  }
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
  for (const char* column : {"format", "recipe"}) {
    Status s = impl_->BadRow("format_stats", std::string("typeof(") + column + ") != 'text'",
                             column, "text");
    if (!s.ok()) return s;
  }
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

StatusOr<std::vector<ScalarRecord>> RunReader::Scalars(const std::string& name) const {
  std::vector<ScalarRecord> out;
  Status s = impl_->Query(
      "cannot read table scalars",
      "SELECT id, step, name, value FROM scalars WHERE ?1 = '' OR name = ?1 ORDER BY step, id",
      [&](Stmt& st) { st.Bind(1, name); },
      [&](const Stmt& st) {
        std::string p = store_internal::IntegerProblem(st, 1, "step");
        if (p.empty()) p = store_internal::TextProblem(st, 2, "name");
        if (p.empty()) p = store_internal::RealProblem(st, 3, "value", false, false);
        if (!p.empty()) return impl_->Corrupt("scalars", st.Int(0), p);
        out.push_back(ScalarRecord{st.Int(1), st.Text(2), st.Real(3)});
        return Status();
      });
  if (!s.ok()) return s;
  return out;
}

StatusOr<std::vector<Finding>> RunReader::Findings() const {
  std::vector<Finding> out;
  Status s = impl_->Query(
      "cannot read table findings",
      "SELECT id, step, rule, severity, tensor, message, evidence_json FROM findings "
      "ORDER BY step, id",
      nullptr, [&](const Stmt& st) {
        const int64_t id = st.Int(0);
        std::string p = store_internal::IntegerProblem(st, 1, "step");
        const char* const kText[] = {"rule", "severity", "tensor", "message", "evidence_json"};
        for (int i = 0; i < 5 && p.empty(); ++i) p = store_internal::TextProblem(st, i + 2, kText[i]);
        if (!p.empty()) return impl_->Corrupt("findings", id, p);
        Finding f;
        f.step = st.Int(1);
        f.rule = st.Text(2);
        const std::string context = "rule " + Quoted(f.rule);
        StatusOr<Severity> sev = store_internal::ParseSeverity(st.Text(3));
        if (!sev.ok()) return impl_->Corrupt("findings", id, sev.status().message(), context);
        f.severity = *sev;
        f.tensor = st.Text(4);
        f.message = st.Text(5);
        StatusOr<std::map<std::string, double>> ev = store_internal::ParseEvidence(st.Text(6));
        if (!ev.ok()) return impl_->Corrupt("findings", id, ev.status().message(), context);
        f.evidence = std::move(ev).value();
        out.push_back(std::move(f));
        return Status();
      });
  if (!s.ok()) return s;
  return out;
}

StatusOr<std::vector<CaptureRecord>> RunReader::Captures() const {
  std::vector<CaptureRecord> out;
  Status s = impl_->Query(
      "cannot read table captures", "SELECT id, step, path, reason FROM captures ORDER BY step, id",
      nullptr, [&](const Stmt& st) {
        std::string p = store_internal::IntegerProblem(st, 1, "step");
        if (p.empty()) p = store_internal::TextProblem(st, 2, "path");
        if (p.empty()) p = store_internal::TextProblem(st, 3, "reason");
        if (!p.empty()) return impl_->Corrupt("captures", st.Int(0), p);
        out.push_back(CaptureRecord{st.Int(1), st.Text(2), st.Text(3)});
        return Status();
      });
  if (!s.ok()) return s;
  return out;
}

}  // namespace lpsim
