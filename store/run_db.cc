#include "store/run_db.h"

#include <fcntl.h>  // open(O_CREAT | O_EXCL): claim run.db atomically
#include <pthread.h>
#include <sqlite3.h>
#include <time.h>    // gmtime_r
#include <unistd.h>  // close

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <variant>

// The project version, passed by the build (store/CMakeLists.txt).
#ifndef LPSIM_VERSION
#error "LPSIM_VERSION must be defined by the build (store/CMakeLists.txt)"
#endif

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// ---------------------------------------------------------------------------
// Schema (docs/store.md describes every column).

constexpr const char* kSchemaSql = R"sql(
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
CREATE TABLE stats (
  id            INTEGER PRIMARY KEY,
  tensor_id     INTEGER NOT NULL REFERENCES tensors (id),
  step          INTEGER NOT NULL,
  count         INTEGER NOT NULL,
  zeros         INTEGER NOT NULL,
  nans          INTEGER NOT NULL,
  pos_infs      INTEGER NOT NULL,
  neg_infs      INTEGER NOT NULL,
  mean          REAL,
  std           REAL,
  rms           REAL,
  min           REAL,
  max           REAL,
  min_abs       REAL,
  max_abs       REAL,
  p25           REAL,
  p50           REAL,
  p75           REAL,
  p99           REAL,
  exponent_hist BLOB NOT NULL,
  log_hist      BLOB NOT NULL,
  shape         TEXT,
  dtype         TEXT
);
CREATE INDEX stats_tensor_step ON stats (tensor_id, step);
CREATE INDEX stats_step ON stats (step);
CREATE TABLE format_stats (
  id        INTEGER PRIMARY KEY,
  stats_id  INTEGER NOT NULL REFERENCES stats (id),
  tensor_id INTEGER NOT NULL REFERENCES tensors (id),
  step      INTEGER NOT NULL,
  format    TEXT NOT NULL,
  recipe    TEXT NOT NULL,
  scale     REAL,
  numel     INTEGER NOT NULL,
  underflow INTEGER NOT NULL,
  flushed   INTEGER NOT NULL,
  subnormal INTEGER NOT NULL,
  overflow  INTEGER NOT NULL,
  nan_in    INTEGER NOT NULL,
  inf_in    INTEGER NOT NULL,
  zero_in   INTEGER NOT NULL,
  sq_error  REAL,
  sq_signal REAL,
  snr_db    REAL
);
CREATE INDEX format_stats_tensor_step ON format_stats (tensor_id, step);
CREATE INDEX format_stats_stats ON format_stats (stats_id);
CREATE TABLE scalars (
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

// Bytes per sparse histogram entry: a 2-byte key and an 8-byte count.
constexpr size_t kHistEntryBytes = 10;

// ---------------------------------------------------------------------------
// SQLite plumbing.

std::string SqliteError(sqlite3* db) {
  return std::string(sqlite3_errmsg(db)) + " (SQLite code " +
         std::to_string(sqlite3_extended_errcode(db)) + ")";
}

class Stmt {
 public:
  Stmt() = default;
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Status Prepare(sqlite3* db, const char* sql) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    db_ = db;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      return Status::Error(SqliteError(db));
    }
    return Status();
  }
  void Finalize() {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
  }
  sqlite3_stmt* get() const { return stmt_; }

  // Binding (1-based, as SQLite). Doubles: NaN is stored as NULL by SQLite.
  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void Bind(int i, uint64_t v) { sqlite3_bind_int64(stmt_, i, static_cast<int64_t>(v)); }
  void Bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void Bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void BindNull(int i) { sqlite3_bind_null(stmt_, i); }
  // A zero-length blob, not NULL, for an empty string.
  void BindBlob(int i, const std::string& v) {
    if (v.empty()) {
      sqlite3_bind_zeroblob(stmt_, i, 0);
    } else {
      sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    }
  }

  // Runs a statement that returns no rows (or ignores them), then resets it.
  Status Run() {
    int rc;
    while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW) {
    }
    Status s = rc == SQLITE_DONE ? Status() : Status::Error(SqliteError(db_));
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    return s;
  }
  // SQLITE_ROW, SQLITE_DONE, or an error code.
  int Step() { return sqlite3_step(stmt_); }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  // Reading the current row (0-based, as SQLite).
  bool IsNull(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  int64_t Int(int i) const { return sqlite3_column_int64(stmt_, i); }
  uint64_t UInt(int i) const { return static_cast<uint64_t>(sqlite3_column_int64(stmt_, i)); }
  // NULL reads back as the NaN it was written as.
  double Real(int i) const { return IsNull(i) ? std::nan("") : sqlite3_column_double(stmt_, i); }
  std::string Text(int i) const {
    const unsigned char* p = sqlite3_column_text(stmt_, i);
    const int n = sqlite3_column_bytes(stmt_, i);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n))
             : std::string();
  }
  std::string Blob(int i) const {
    const void* p = sqlite3_column_blob(stmt_, i);
    const int n = sqlite3_column_bytes(stmt_, i);
    return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
  }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

Status Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    return Status::Error(msg + " (SQLite code " + std::to_string(sqlite3_extended_errcode(db)) +
                         ")");
  }
  return Status();
}

// One integer from a single-row query such as a PRAGMA.
StatusOr<int64_t> QueryInt(sqlite3* db, const char* sql) {
  Stmt st;
  Status s = st.Prepare(db, sql);
  if (!s.ok()) return s;
  const int rc = st.Step();
  if (rc == SQLITE_ROW) return st.Int(0);
  if (rc == SQLITE_DONE) return Status::Error(std::string("no result from ") + sql);
  return Status::Error(SqliteError(db));
}

// ---------------------------------------------------------------------------
// Values.

std::string NowIso8601() {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  const int64_t ms =
      duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", date, static_cast<int>(ms % 1000));
  return out;
}

std::string ShapeJson(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

StatusOr<std::vector<int64_t>> ParseShape(const std::string& text) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array()) {
    return Status::Error("shape '" + text + "' is not a JSON array");
  }
  std::vector<int64_t> shape;
  for (const Json& d : j) {
    if (!d.is_number_integer()) return Status::Error("shape '" + text + "' has a non-integer");
    shape.push_back(d.get<int64_t>());
  }
  return shape;
}

// JSON has no Inf/NaN: they are written as the strings "inf", "-inf", "nan".
Json NumberJson(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::optional<double> NumberFromJson(const Json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
  }
  return std::nullopt;
}

std::string EvidenceJson(const std::map<std::string, double>& evidence) {
  Json j = Json::object();
  for (const auto& [k, v] : evidence) j[k] = NumberJson(v);
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

StatusOr<std::map<std::string, double>> ParseEvidence(const std::string& text) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Error("evidence_json is not a JSON object");
  }
  std::map<std::string, double> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::optional<double> v = NumberFromJson(it.value());
    if (!v) return Status::Error("evidence_json value '" + it.key() + "' is not a number");
    out[it.key()] = *v;
  }
  return out;
}

StatusOr<Severity> ParseSeverity(const std::string& s) {
  for (Severity v : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    if (s == ToString(v)) return v;
  }
  return Status::Error("unknown severity '" + s + "'");
}

// ---------------------------------------------------------------------------
// Sparse histogram blobs: (key, count) pairs, little-endian, keys strictly
// increasing, zero counts omitted. Exponent histograms key by the signed
// exponent e (int16; the bin holds |x| in [2^e, 2^(e+1))), log histograms by
// the bin index (uint16).

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLe(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string EncodeExponentHist(const TensorStats& s) {
  std::string out;
  for (int i = 0; i < TensorStats::kExponentBins; ++i) {
    if (s.exponent_hist[i] == 0) continue;
    const int16_t e = static_cast<int16_t>(i + TensorStats::kMinExponent);
    PutLe(&out, static_cast<uint16_t>(e), 2);
    PutLe(&out, s.exponent_hist[i], 8);
  }
  return out;
}

std::string EncodeLogHist(const TensorStats& s) {
  std::string out;
  const size_t n = std::min(s.log_hist.size(), static_cast<size_t>(TensorStats::kLogBins));
  for (size_t i = 0; i < n; ++i) {
    if (s.log_hist[i] == 0) continue;
    PutLe(&out, i, 2);
    PutLe(&out, s.log_hist[i], 8);
  }
  return out;
}

// Calls put(key, count) per entry; keys are checked against [lo, hi].
template <typename Put>
Status DecodeSparse(const std::string& blob, bool signed_key, int lo, int hi, Put put) {
  if (blob.size() % kHistEntryBytes != 0) {
    return Status::Error("blob of " + std::to_string(blob.size()) +
                         " bytes is not a whole number of 10-byte entries");
  }
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  int prev = std::numeric_limits<int>::min();
  for (size_t off = 0; off < blob.size(); off += kHistEntryBytes) {
    const uint16_t raw = static_cast<uint16_t>(GetLe(p + off, 2));
    const int key =
        signed_key ? static_cast<int>(static_cast<int16_t>(raw)) : static_cast<int>(raw);
    if (key < lo || key > hi) {
      return Status::Error("bin " + std::to_string(key) + " is outside [" + std::to_string(lo) +
                           ", " + std::to_string(hi) + "]");
    }
    if (key <= prev) return Status::Error("bins are not strictly increasing");
    prev = key;
    put(key, GetLe(p + off + 2, 8));
  }
  return Status();
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

// ===========================================================================
// RunReader

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
    Stmt meta;
    Status s = meta.Prepare(db, "SELECT value FROM meta WHERE key = 'log_hist_mantissa_bits'");
    if (!s.ok()) return impl->Fail("cannot read table meta: " + s.message());
    if (meta.Step() != SQLITE_ROW) return impl->Fail("table meta has no log_hist_mantissa_bits");
    if (meta.Text(0) != std::to_string(TensorStats::kLogMantissaBits)) {
      return Status::Error(file + " stores log histograms with " + meta.Text(0) +
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
  Stmt st;
  Status s = st.Prepare(impl_->db_,
                        "SELECT name, started_at, finished_at, status, status_message, "
                        "config_json, lpsim_version, last_step FROM runs ORDER BY id LIMIT 1");
  if (!s.ok()) return impl_->Fail("cannot read table runs: " + s.message());
  const int rc = st.Step();
  if (rc == SQLITE_DONE) return impl_->Fail("table runs is empty");
  if (rc != SQLITE_ROW) return impl_->Fail("cannot read table runs: " + SqliteError(impl_->db_));
  RunInfo info;
  info.path = impl_->path_;
  info.name = st.Text(0);
  info.started_at = st.Text(1);
  info.finished_at = st.Text(2);
  info.status = st.Text(3);
  info.status_message = st.Text(4);
  info.config_json = st.Text(5);
  info.lpsim_version = st.Text(6);
  if (!st.IsNull(7)) info.last_step = st.Int(7);
  info.schema_version = kRunDbSchemaVersion;
  return info;
}

StatusOr<std::vector<TensorInfo>> RunReader::Tensors() const {
  Stmt st;
  Status s = st.Prepare(impl_->db_,
                        "SELECT name, role, module_type, shape, dtype FROM tensors "
                        "ORDER BY name, role");
  if (!s.ok()) return impl_->Fail("cannot read table tensors: " + s.message());
  std::vector<TensorInfo> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    TensorInfo t;
    t.name = st.Text(0);
    StatusOr<Role> role = ParseRole(st.Text(1));
    if (!role.ok()) return impl_->Fail("tensor " + Quoted(t.name) + ": " + role.status().message());
    t.role = *role;
    t.module_type = st.Text(2);
    StatusOr<std::vector<int64_t>> shape = ParseShape(st.Text(3));
    if (!shape.ok())
      return impl_->Fail("tensor " + Quoted(t.name) + ": " + shape.status().message());
    t.shape = std::move(shape).value();
    t.dtype = st.Text(4);
    out.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE)
    return impl_->Fail("cannot read table tensors: " + SqliteError(impl_->db_));
  // Roles sort by enum order, not by their text.
  std::stable_sort(out.begin(), out.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.name != b.name ? a.name < b.name : a.role < b.role;
  });
  return out;
}

StatusOr<std::vector<int64_t>> RunReader::Steps() const {
  Stmt st;
  Status s = st.Prepare(impl_->db_,
                        "SELECT DISTINCT step FROM stats UNION SELECT DISTINCT step FROM scalars "
                        "ORDER BY 1");
  if (!s.ok()) return impl_->Fail("cannot list steps: " + s.message());
  std::vector<int64_t> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) out.push_back(st.Int(0));
  if (rc != SQLITE_DONE) return impl_->Fail("cannot list steps: " + SqliteError(impl_->db_));
  return out;
}

StatusOr<std::vector<std::pair<std::string, std::string>>> RunReader::Candidates() const {
  Stmt st;
  Status s = st.Prepare(impl_->db_,
                        "SELECT DISTINCT format, recipe FROM format_stats ORDER BY format, recipe");
  if (!s.ok()) return impl_->Fail("cannot read table format_stats: " + s.message());
  std::vector<std::pair<std::string, std::string>> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) out.emplace_back(st.Text(0), st.Text(1));
  if (rc != SQLITE_DONE) {
    return impl_->Fail("cannot read table format_stats: " + SqliteError(impl_->db_));
  }
  return out;
}

Status RunReader::ForEachRecord(const RecordFilter& filter,
                                const std::function<Status(TensorRecord&&)>& fn) const {
  try {
    sqlite3* db = impl_->db_;
    Stmt st;
    Status s = st.Prepare(
        db,
        "SELECT s.id, s.step, t.name, t.role, t.module_type, COALESCE(s.shape, t.shape), "
        "COALESCE(s.dtype, t.dtype), s.count, s.zeros, s.nans, s.pos_infs, s.neg_infs, "
        "s.mean, s.std, s.rms, s.min, s.max, s.min_abs, s.max_abs, s.exponent_hist, s.log_hist "
        "FROM stats s JOIN tensors t ON t.id = s.tensor_id "
        "WHERE s.step BETWEEN ?1 AND ?2 AND (?3 IS NULL OR t.name = ?3) "
        "AND (?4 IS NULL OR instr(?4, '|' || t.role || '|') > 0) ORDER BY s.step, s.id");
    if (!s.ok()) return impl_->Fail("cannot read table stats: " + s.message());
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
    Stmt fst;
    s = fst.Prepare(db,
                    "SELECT format, recipe, scale, numel, underflow, flushed, subnormal, "
                    "overflow, nan_in, inf_in, zero_in, sq_error, sq_signal "
                    "FROM format_stats WHERE stats_id = ?1 ORDER BY id");
    if (!s.ok()) return impl_->Fail("cannot read table format_stats: " + s.message());

    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      TensorRecord r;
      const int64_t stats_id = st.Int(0);
      r.step = st.Int(1);
      r.name = st.Text(2);
      const std::string where = "tensor " + Quoted(r.name) + " at step " + std::to_string(r.step);
      StatusOr<Role> role = ParseRole(st.Text(3));
      if (!role.ok()) return impl_->Fail(where + ": " + role.status().message());
      r.role = *role;
      r.module_type = st.Text(4);
      StatusOr<std::vector<int64_t>> shape = ParseShape(st.Text(5));
      if (!shape.ok()) return impl_->Fail(where + ": " + shape.status().message());
      r.shape = std::move(shape).value();
      r.dtype = st.Text(6);
      TensorStats& ts = r.stats;
      ts.count = st.UInt(7);
      ts.zeros = st.UInt(8);
      ts.nans = st.UInt(9);
      ts.pos_infs = st.UInt(10);
      ts.neg_infs = st.UInt(11);
      ts.mean = st.Real(12);
      ts.std = st.Real(13);
      ts.rms = st.Real(14);
      ts.min = static_cast<float>(st.Real(15));
      ts.max = static_cast<float>(st.Real(16));
      ts.min_abs = static_cast<float>(st.Real(17));
      ts.max_abs = static_cast<float>(st.Real(18));
      s = DecodeSparse(
          st.Blob(19), /*signed_key=*/true, TensorStats::kMinExponent, TensorStats::kMaxExponent,
          [&](int e, uint64_t c) { ts.exponent_hist[e - TensorStats::kMinExponent] = c; });
      if (!s.ok()) return impl_->Fail(where + ": exponent_hist: " + s.message());
      s = DecodeSparse(st.Blob(20), /*signed_key=*/false, 0, TensorStats::kLogBins - 1,
                       [&](int b, uint64_t c) { ts.log_hist[b] = c; });
      if (!s.ok()) return impl_->Fail(where + ": log_hist: " + s.message());

      fst.Bind(1, stats_id);
      int frc;
      while ((frc = fst.Step()) == SQLITE_ROW) {
        FormatRecord f;
        f.format = fst.Text(0);
        f.recipe = fst.Text(1);
        f.scale = static_cast<float>(fst.Real(2));
        CastCounts& c = f.counts;
        c.numel = fst.UInt(3);
        c.underflow = fst.UInt(4);
        c.flushed = fst.UInt(5);
        c.subnormal = fst.UInt(6);
        c.overflow = fst.UInt(7);
        c.nan_in = fst.UInt(8);
        c.inf_in = fst.UInt(9);
        c.zero_in = fst.UInt(10);
        c.sq_error = fst.Real(11);
        c.sq_signal = fst.Real(12);
        r.formats.push_back(std::move(f));
      }
      if (frc != SQLITE_DONE) {
        return impl_->Fail(where + ": cannot read format_stats: " + SqliteError(db));
      }
      fst.Reset();
      s = fn(std::move(r));
      if (!s.ok()) return s;
    }
    if (rc != SQLITE_DONE) return impl_->Fail("cannot read table stats: " + SqliteError(db));
    return Status();
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
  Stmt st;
  Status s = st.Prepare(impl_->db_,
                        "SELECT step, name, value FROM scalars WHERE ?1 = '' OR name = ?1 "
                        "ORDER BY step, id");
  if (!s.ok()) return impl_->Fail("cannot read table scalars: " + s.message());
  st.Bind(1, name);
  std::vector<ScalarRecord> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    out.push_back(ScalarRecord{st.Int(0), st.Text(1), st.Real(2)});
  }
  if (rc != SQLITE_DONE)
    return impl_->Fail("cannot read table scalars: " + SqliteError(impl_->db_));
  return out;
}

StatusOr<std::vector<Finding>> RunReader::Findings() const {
  Stmt st;
  Status s = st.Prepare(impl_->db_,
                        "SELECT step, rule, severity, tensor, message, evidence_json "
                        "FROM findings ORDER BY step, id");
  if (!s.ok()) return impl_->Fail("cannot read table findings: " + s.message());
  std::vector<Finding> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    Finding f;
    f.step = st.Int(0);
    f.rule = st.Text(1);
    StatusOr<Severity> sev = ParseSeverity(st.Text(2));
    if (!sev.ok()) return impl_->Fail("finding " + Quoted(f.rule) + ": " + sev.status().message());
    f.severity = *sev;
    f.tensor = st.Text(3);
    f.message = st.Text(4);
    StatusOr<std::map<std::string, double>> ev = ParseEvidence(st.Text(5));
    if (!ev.ok()) return impl_->Fail("finding " + Quoted(f.rule) + ": " + ev.status().message());
    f.evidence = std::move(ev).value();
    out.push_back(std::move(f));
  }
  if (rc != SQLITE_DONE)
    return impl_->Fail("cannot read table findings: " + SqliteError(impl_->db_));
  return out;
}

StatusOr<std::vector<CaptureRecord>> RunReader::Captures() const {
  Stmt st;
  Status s = st.Prepare(impl_->db_, "SELECT step, path, reason FROM captures ORDER BY step, id");
  if (!s.ok()) return impl_->Fail("cannot read table captures: " + s.message());
  std::vector<CaptureRecord> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    out.push_back(CaptureRecord{st.Int(0), st.Text(1), st.Text(2)});
  }
  if (rc != SQLITE_DONE)
    return impl_->Fail("cannot read table captures: " + SqliteError(impl_->db_));
  return out;
}

// ===========================================================================
// RunWriter

namespace {

struct StepEnd {
  int64_t step;
};
using Item = std::variant<TensorRecord, ScalarRecord, Finding, CaptureRecord, StepEnd>;

// A tensors row as the writer knows it, to store per-record shape and dtype
// only where they differ from it.
struct TensorRow {
  int64_t id;
  std::string shape;
  std::string dtype;
};

// The message for an existing run.db that Open refuses.
std::string ExistingRunMessage(const std::string& db_path) {
  std::string what;
  StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(db_path);
  if (!r.ok()) {
    what = "an unreadable file (" + r.status().message() + ")";
  } else {
    StatusOr<RunInfo> info = (*r)->Info();
    if (!info.ok()) {
      what = "a run database whose run is unreadable";
    } else if (info->finished_at.empty()) {
      what = "run " + Quoted(info->name) + " started " + info->started_at +
             " and not finished: still running, or it crashed";
    } else {
      what = "run " + Quoted(info->name) + ", finished " + info->finished_at + " with status " +
             info->status;
    }
  }
  return db_path + " already exists and holds " + what +
         ": choose a new run directory, or overwrite it (--overwrite, "
         "RunWriterOptions::overwrite) to replace it";
}

}  // namespace

class RunWriter::Impl {
 public:
  ~Impl() {
    // Statements before the connection.
    for (Stmt* s : AllStatements()) s->Finalize();
    if (db_) sqlite3_close(db_);
  }

  std::vector<Stmt*> AllStatements() {
    return {&insert_tensor_, &select_tensor_,  &insert_stats_,   &insert_format_,
            &insert_scalar_, &insert_finding_, &insert_capture_, &update_last_step_};
  }

  Status Prepare() {
    struct {
      Stmt* stmt;
      const char* sql;
    } const kStatements[] = {
        {&insert_tensor_,
         "INSERT OR IGNORE INTO tensors (name, role, module_type, shape, dtype) "
         "VALUES (?1, ?2, ?3, ?4, ?5)"},
        {&select_tensor_, "SELECT id, shape, dtype FROM tensors WHERE name = ?1 AND role = ?2"},
        {&insert_stats_,
         "INSERT INTO stats (tensor_id, step, count, zeros, nans, pos_infs, neg_infs, mean, std, "
         "rms, min, max, min_abs, max_abs, p25, p50, p75, p99, exponent_hist, log_hist, shape, "
         "dtype) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
         "?17, ?18, ?19, ?20, ?21, ?22)"},
        {&insert_format_,
         "INSERT INTO format_stats (stats_id, tensor_id, step, format, recipe, scale, numel, "
         "underflow, flushed, subnormal, overflow, nan_in, inf_in, zero_in, sq_error, sq_signal, "
         "snr_db) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
         "?17)"},
        {&insert_scalar_, "INSERT INTO scalars (step, name, value) VALUES (?1, ?2, ?3)"},
        {&insert_finding_,
         "INSERT INTO findings (step, rule, severity, tensor, message, evidence_json) "
         "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"},
        {&insert_capture_, "INSERT INTO captures (step, path, reason) VALUES (?1, ?2, ?3)"},
        {&update_last_step_, "UPDATE runs SET last_step = ?1 WHERE id = ?2"},
    };
    for (const auto& s : kStatements) {
      Status st = s.stmt->Prepare(db_, s.sql);
      if (!st.ok()) return st;
    }
    return Status();
  }

  // --- producer side ---------------------------------------------------------

  Status Enqueue(Item item) {
    std::unique_lock<std::mutex> lk(mu_);
    const uint64_t bound = std::max<size_t>(options_.max_queued_records, 1);
    space_cv_.wait(lk, [&] { return enqueued_ - processed_ < bound || !error_.ok() || stopping_; });
    if (!error_.ok()) return error_;
    if (stopping_)
      return Status::Error(path_ + ": the RunWriter is closed; nothing more is stored");
    const bool was_empty = queue_.empty();
    queue_.push_back(std::move(item));
    ++enqueued_;
    lk.unlock();
    // The writer sleeps only on an empty queue.
    if (was_empty) work_cv_.notify_one();
    return Status();
  }

  Status Flush() {
    std::unique_lock<std::mutex> lk(mu_);
    const uint64_t target = enqueued_;
    space_cv_.wait(lk, [&] { return processed_ >= target || !error_.ok(); });
    return error_;
  }

  // --- writer thread ---------------------------------------------------------

  void Run() {
    std::deque<Item> batch;
    for (;;) {
      bool failed;
      {
        std::unique_lock<std::mutex> lk(mu_);
        work_cv_.wait(lk, [&] { return !queue_.empty() || stopping_; });
        if (queue_.empty()) break;  // stopping, and everything is written
        batch.swap(queue_);         // O(1): records are not moved
        failed = !error_.ok();
      }
      Status s;
      for (Item& item : batch) {
        if (failed) break;  // after a failure records are discarded
        s = ProcessGuarded(item);
        failed = !s.ok();
      }
      {
        std::lock_guard<std::mutex> lk(mu_);
        if (!s.ok() && error_.ok()) error_ = s;
        processed_ += batch.size();
      }
      space_cv_.notify_all();
      batch.clear();
    }
    // Close: the batch not ended by EndStep is complete now.
    if (in_txn_) {
      Status s = Commit(last_step_seen_);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lk(mu_);
        if (error_.ok()) error_ = s;
      }
    }
  }

  Status ProcessGuarded(Item& item) {
    Status s;
    try {
      s = Process(item);
    } catch (const std::exception& e) {
      s = Status::Error(e.what());
    }
    if (!s.ok()) {
      if (in_txn_) (void)Exec(db_, "ROLLBACK");  // the batch's error is what matters
      in_txn_ = false;
      tensors_.clear();  // ids inserted by the rolled-back batch are gone
      return Status::Error(path_ + ": writing the batch after step " +
                           (last_committed_ ? std::to_string(*last_committed_) : "(none)") +
                           " failed: " + s.message() +
                           ": check free disk space and permissions; records from this batch "
                           "on are not stored");
    }
    return s;
  }

  Status Begin() {
    if (in_txn_) return Status();
    Status s = Exec(db_, "BEGIN IMMEDIATE");
    if (s.ok()) in_txn_ = true;
    return s;
  }

  Status Commit(std::optional<int64_t> step) {
    if (!in_txn_) return Status();
    if (step) {
      update_last_step_.Bind(1, *step);
      update_last_step_.Bind(2, run_id_);
      Status s = update_last_step_.Run();
      if (!s.ok()) return s;
    }
    Status s = Exec(db_, "COMMIT");
    if (!s.ok()) return s;
    in_txn_ = false;
    if (step) last_committed_ = step;
    return s;
  }

  Status Process(Item& item) {
    if (auto* end = std::get_if<StepEnd>(&item)) {
      last_step_seen_ = end->step;
      // An empty batch still advances last_step.
      Status s = Begin();
      if (!s.ok()) return s;
      return Commit(end->step);
    }
    Status s = Begin();
    if (!s.ok()) return s;
    if (auto* r = std::get_if<TensorRecord>(&item)) return WriteTensor(*r);
    if (auto* r = std::get_if<ScalarRecord>(&item)) {
      insert_scalar_.Bind(1, r->step);
      insert_scalar_.Bind(2, r->name);
      insert_scalar_.Bind(3, r->value);
      return insert_scalar_.Run();
    }
    if (auto* f = std::get_if<Finding>(&item)) {
      insert_finding_.Bind(1, f->step);
      insert_finding_.Bind(2, f->rule);
      insert_finding_.Bind(3, std::string(ToString(f->severity)));
      insert_finding_.Bind(4, f->tensor);
      insert_finding_.Bind(5, f->message);
      insert_finding_.Bind(6, EvidenceJson(f->evidence));
      return insert_finding_.Run();
    }
    if (auto* c = std::get_if<CaptureRecord>(&item)) {
      insert_capture_.Bind(1, c->step);
      insert_capture_.Bind(2, c->path);
      insert_capture_.Bind(3, c->reason);
      return insert_capture_.Run();
    }
    return Status();
  }

  StatusOr<const TensorRow*> TensorId(const TensorRecord& r) {
    auto key = std::make_pair(r.name, r.role);
    auto it = tensors_.find(key);
    if (it != tensors_.end()) return &it->second;
    const std::string role = ToString(r.role);
    insert_tensor_.Bind(1, r.name);
    insert_tensor_.Bind(2, role);
    insert_tensor_.Bind(3, r.module_type);
    insert_tensor_.Bind(4, ShapeJson(r.shape));
    insert_tensor_.Bind(5, r.dtype);
    Status s = insert_tensor_.Run();
    if (!s.ok()) return s;
    select_tensor_.Bind(1, r.name);
    select_tensor_.Bind(2, role);
    if (select_tensor_.Step() != SQLITE_ROW) {
      s = Status::Error(SqliteError(db_));
      select_tensor_.Reset();
      return s;
    }
    TensorRow row{select_tensor_.Int(0), select_tensor_.Text(1), select_tensor_.Text(2)};
    select_tensor_.Reset();
    return &tensors_.emplace(std::move(key), std::move(row)).first->second;
  }

  Status WriteTensor(const TensorRecord& r) {
    StatusOr<const TensorRow*> row = TensorId(r);
    if (!row.ok()) return row.status();
    const int64_t tensor_id = (*row)->id;
    const TensorStats& ts = r.stats;
    Stmt& st = insert_stats_;
    st.Bind(1, tensor_id);
    st.Bind(2, r.step);
    st.Bind(3, ts.count);
    st.Bind(4, ts.zeros);
    st.Bind(5, ts.nans);
    st.Bind(6, ts.pos_infs);
    st.Bind(7, ts.neg_infs);
    st.Bind(8, ts.mean);
    st.Bind(9, ts.std);
    st.Bind(10, ts.rms);
    st.Bind(11, static_cast<double>(ts.min));
    st.Bind(12, static_cast<double>(ts.max));
    st.Bind(13, static_cast<double>(ts.min_abs));
    st.Bind(14, static_cast<double>(ts.max_abs));
    st.Bind(15, static_cast<double>(ts.Quantile(0.25)));
    st.Bind(16, static_cast<double>(ts.Quantile(0.50)));
    st.Bind(17, static_cast<double>(ts.Quantile(0.75)));
    st.Bind(18, static_cast<double>(ts.Quantile(0.99)));
    st.BindBlob(19, EncodeExponentHist(ts));
    st.BindBlob(20, EncodeLogHist(ts));
    const std::string shape = ShapeJson(r.shape);
    if (shape != (*row)->shape) {
      st.Bind(21, shape);
    } else {
      st.BindNull(21);
    }
    if (r.dtype != (*row)->dtype) {
      st.Bind(22, r.dtype);
    } else {
      st.BindNull(22);
    }
    Status s = st.Run();
    if (!s.ok()) return s;
    const int64_t stats_id = sqlite3_last_insert_rowid(db_);
    for (const FormatRecord& f : r.formats) {
      Stmt& fs = insert_format_;
      const CastCounts& c = f.counts;
      fs.Bind(1, stats_id);
      fs.Bind(2, tensor_id);
      fs.Bind(3, r.step);
      fs.Bind(4, f.format);
      fs.Bind(5, f.recipe);
      fs.Bind(6, static_cast<double>(f.scale));
      fs.Bind(7, c.numel);
      fs.Bind(8, c.underflow);
      fs.Bind(9, c.flushed);
      fs.Bind(10, c.subnormal);
      fs.Bind(11, c.overflow);
      fs.Bind(12, c.nan_in);
      fs.Bind(13, c.inf_in);
      fs.Bind(14, c.zero_in);
      fs.Bind(15, c.sq_error);
      fs.Bind(16, c.sq_signal);
      fs.Bind(17, c.SnrDb());
      s = fs.Run();
      if (!s.ok()) return s;
    }
    return Status();
  }

  // Marks the run finished; on the closing thread, after the writer stopped.
  Status MarkFinished(const std::string& status, const std::string& message) {
    Stmt st;
    Status s = st.Prepare(db_,
                          "UPDATE runs SET finished_at = ?1, status = ?2, status_message = ?3 "
                          "WHERE id = ?4");
    if (s.ok()) {
      st.Bind(1, NowIso8601());
      st.Bind(2, status);
      st.Bind(3, message);
      st.Bind(4, run_id_);
      s = st.Run();
    }
    if (!s.ok()) {
      return Status::Error(path_ + ": cannot mark the run finished: " + s.message());
    }
    return s;
  }

  Status Close(const std::string& status, const std::string& message) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (closed_) return Status::Error(path_ + ": the RunWriter is already closed");
      closed_ = true;
      stopping_ = true;
    }
    work_cv_.notify_all();
    space_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    // The writer thread is gone: the connection and error_ are ours.
    Status write_error = error_;
    std::string st = status;
    std::string msg = message;
    if (!write_error.ok() && st == "ok") {
      st = "failed";
      msg = "storing records failed: " + write_error.message();
    }
    Status mark = MarkFinished(st, msg);
    for (Stmt* s : AllStatements()) s->Finalize();
    // The last connection to close checkpoints and removes the -wal file.
    if (sqlite3_close(db_) != SQLITE_OK && mark.ok()) {
      mark = Status::Error(path_ + ": cannot close: " + SqliteError(db_));
    }
    db_ = nullptr;
    return write_error.ok() ? mark : write_error;
  }

  std::string path_;
  RunWriterOptions options_;
  sqlite3* db_ = nullptr;
  int64_t run_id_ = 0;

  // Writer thread only.
  Stmt insert_tensor_, select_tensor_, insert_stats_, insert_format_, insert_scalar_,
      insert_finding_, insert_capture_, update_last_step_;
  std::map<std::pair<std::string, Role>, TensorRow> tensors_;
  bool in_txn_ = false;
  std::optional<int64_t> last_step_seen_;
  std::optional<int64_t> last_committed_;

  // Shared, under mu_.
  std::mutex mu_;
  std::condition_variable work_cv_;   // the writer waits for items
  std::condition_variable space_cv_;  // producers wait for room, Flush for progress
  std::deque<Item> queue_;
  uint64_t enqueued_ = 0;
  uint64_t processed_ = 0;
  bool stopping_ = false;
  bool closed_ = false;
  Status error_;  // the first write error: sticky

  std::thread thread_;
};

RunWriter::RunWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RunWriter::~RunWriter() {
  if (impl_ && !impl_->closed_) {
    // A destructor cannot report: the run is marked aborted as well as it can.
    (void)impl_->Close("aborted",
                       "the RunWriter was destroyed without Close(): the program may have ended early");
  }
}

const std::string& RunWriter::path() const { return impl_->path_; }

StatusOr<std::unique_ptr<RunWriter>> RunWriter::Open(const std::string& run_dir,
                                                     const std::string& name,
                                                     const std::string& config_json,
                                                     const RunWriterOptions& options) {
  try {
    const std::string config = config_json.empty() ? "{}" : config_json;
    const Json parsed = Json::parse(config, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      return Status::Error("run " + Quoted(name) +
                           ": the configuration is not valid JSON: pass a JSON document (or "
                           "\"\" for none)");
    }

    std::error_code ec;
    fs::create_directories(run_dir, ec);
    if (ec) {
      return Status::Error("cannot create run directory " + run_dir + ": " + ec.message() +
                           ": check the path and its permissions");
    }
    const fs::path db_path = fs::path(run_dir) / kRunDbFileName;
    const std::string path = db_path.string();
    const std::string side_files[] = {path + "-wal", path + "-shm", path + "-journal"};
    if (fs::exists(fs::symlink_status(db_path, ec))) {
      if (!options.overwrite) return Status::Error(ExistingRunMessage(path));
      fs::remove(db_path, ec);
      if (ec) return Status::Error("cannot remove " + path + " to overwrite it: " + ec.message());
    }
    // Side files without their database are stale; SQLite must not apply them.
    for (const std::string& f : side_files) {
      fs::remove(f, ec);
      if (ec) return Status::Error("cannot remove stale " + f + ": " + ec.message());
    }
    // Claim the name atomically, so two runs started on one directory at
    // once cannot share it (SQLite takes an empty file as an empty database).
    const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int err = errno;
      if (err == EEXIST) return Status::Error(ExistingRunMessage(path));
      return Status::Error("cannot create " + path + ": " + std::strerror(err) +
                           ": check the run directory's permissions");
    }
    ::close(fd);
    // A run.db this call failed to set up is removed (after impl closes it).
    struct RemoveOnFailure {
      const std::string& path;
      bool armed = true;
      ~RemoveOnFailure() {
        if (!armed) return;
        std::error_code ignored;
        fs::remove(path, ignored);
        fs::remove(path + "-wal", ignored);
        fs::remove(path + "-shm", ignored);
      }
    } remove_on_failure{path};

    auto impl = std::make_unique<Impl>();
    impl->path_ = path;
    impl->options_ = options;
    if (sqlite3_open_v2(path.c_str(), &impl->db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      const std::string msg = impl->db_ ? SqliteError(impl->db_) : "out of memory";
      return Status::Error("cannot open " + path + ": " + msg);
    }
    sqlite3* db = impl->db_;
    sqlite3_busy_timeout(db, options.busy_timeout_ms);
    auto fail = [&](const std::string& what, const Status& s) {
      return Status::Error("cannot create " + path + ": " + what + ": " + s.message());
    };
    // WAL: readers never block the writer, and a crash loses at most the
    // transaction in progress. synchronous=NORMAL syncs at checkpoints only:
    // committed steps survive a killed process; a power cut may lose the
    // last few.
    Stmt wal;
    Status s = wal.Prepare(db, "PRAGMA journal_mode = WAL");
    if (!s.ok()) return fail("cannot select WAL mode", s);
    if (wal.Step() != SQLITE_ROW || wal.Text(0) != "wal") {
      return Status::Error("cannot create " + path +
                           ": the file system does not support SQLite's WAL mode (network file "
                           "system?): choose a run directory on a local disk");
    }
    wal.Finalize();
    s = Exec(db, "PRAGMA synchronous = NORMAL");
    if (!s.ok()) return fail("PRAGMA synchronous", s);

    s = Exec(db, "BEGIN IMMEDIATE");
    if (!s.ok()) return fail("BEGIN", s);
    s = Exec(db, kSchemaSql);
    if (!s.ok()) return fail("creating the schema", s);
    const std::string pragmas = "PRAGMA application_id = " + std::to_string(kRunDbApplicationId) +
                                "; PRAGMA user_version = " + std::to_string(kRunDbSchemaVersion) +
                                ";";
    s = Exec(db, pragmas.c_str());
    if (!s.ok()) return fail("setting the schema version", s);
    {
      Stmt meta;
      s = meta.Prepare(db, "INSERT INTO meta (key, value) VALUES (?1, ?2)");
      const std::pair<const char*, std::string> rows[] = {
          {"exponent_hist_min", std::to_string(TensorStats::kMinExponent)},
          {"exponent_hist_max", std::to_string(TensorStats::kMaxExponent)},
          {"log_hist_mantissa_bits", std::to_string(TensorStats::kLogMantissaBits)},
          {"log_hist_bins", std::to_string(TensorStats::kLogBins)},
      };
      for (const auto& [k, v] : rows) {
        if (!s.ok()) break;
        meta.Bind(1, std::string(k));
        meta.Bind(2, v);
        s = meta.Run();
      }
      if (!s.ok()) return fail("writing table meta", s);

      Stmt run;
      s = run.Prepare(db,
                      "INSERT INTO runs (name, started_at, status, config_json, lpsim_version) "
                      "VALUES (?1, ?2, 'running', ?3, ?4)");
      if (s.ok()) {
        run.Bind(1, name);
        run.Bind(2, NowIso8601());
        run.Bind(3, config);
        run.Bind(4, std::string(LPSIM_VERSION));
        s = run.Run();
      }
      if (!s.ok()) return fail("writing table runs", s);
    }
    impl->run_id_ = sqlite3_last_insert_rowid(db);
    s = Exec(db, "COMMIT");
    if (!s.ok()) return fail("COMMIT", s);
    s = impl->Prepare();
    if (!s.ok()) return fail("preparing statements", s);

    Impl* raw = impl.get();
    raw->thread_ = std::thread([raw] { raw->Run(); });
    pthread_setname_np(raw->thread_.native_handle(), "lpsim-store");  // for top/perf
    remove_on_failure.armed = false;
    return std::unique_ptr<RunWriter>(new RunWriter(std::move(impl)));
  } catch (const std::exception& e) {
    return Status::Error("cannot open run directory " + run_dir + ": " + e.what());
  }
}

Status RunWriter::Add(TensorRecord record) { return impl_->Enqueue(std::move(record)); }
Status RunWriter::Add(ScalarRecord record) { return impl_->Enqueue(std::move(record)); }
Status RunWriter::Add(Finding finding) { return impl_->Enqueue(std::move(finding)); }
Status RunWriter::AddCapture(int64_t step, std::string path, std::string reason) {
  return impl_->Enqueue(CaptureRecord{step, std::move(path), std::move(reason)});
}
Status RunWriter::EndStep(int64_t step) { return impl_->Enqueue(StepEnd{step}); }
Status RunWriter::Flush() { return impl_->Flush(); }

Status RunWriter::Close(const Status& run_status) {
  return run_status.ok() ? impl_->Close("ok", "") : impl_->Close("failed", run_status.message());
}

}  // namespace lpsim
