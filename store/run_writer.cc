// RunWriter (store/run_db.h): creates a run database and writes records to
// it on a background thread, one SQLite transaction per step.
#include <fcntl.h>  // open(O_CREAT | O_EXCL): create run.db
#include <pthread.h>
#include <sqlite3.h>
#include <unistd.h>  // close

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <iterator>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <variant>

#include "core/dir_lock.h"
#include "store/internal/record_codec.h"
#include "store/internal/schema.h"
#include "store/internal/statement.h"
#include "store/record_columns.h"
#include "store/run_db.h"

// The project version, passed by the build (store/CMakeLists.txt).
#ifndef LPSIM_VERSION
#error "LPSIM_VERSION must be defined by the build (store/CMakeLists.txt)"
#endif

namespace lpsim {

using store_internal::Exec;
using store_internal::SqliteError;
using store_internal::Stmt;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

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

// Binds every column of `columns` (derived ones included) from r, the first
// to parameter `first`.
template <typename R, size_t N>
void BindColumns(const Column<R> (&columns)[N], const R& r, int first, Stmt& st) {
  int i = first;
  for (const Column<R>& c : columns) {
    switch (c.type) {
      case ColumnType::kCount: st.Bind(i, c.count(r)); break;
      case ColumnType::kFloat:
      case ColumnType::kDouble: st.Bind(i, c.real(r)); break;
      case ColumnType::kText: st.Bind(i, c.text(r)); break;
    }
    ++i;
  }
}

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
             " and not finished: it crashed or was killed (no process writes it)";
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
        {&insert_stats_, store_internal::StatsInsertSql().c_str()},
        {&insert_format_, store_internal::FormatInsertSql().c_str()},
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
      // One transaction per batch: a writer that fell behind commits the
      // steps it catches up on together, at the batch's last step end (a
      // commit is the writer's largest fixed cost per step). One that keeps
      // up still commits every step.
      size_t last_end = batch.size();
      for (size_t i = batch.size(); i-- > 0;) {
        if (std::holds_alternative<StepEnd>(batch[i])) {
          last_end = i;
          break;
        }
      }
      Status s;
      for (size_t i = 0; i < batch.size(); ++i) {
        if (failed) break;  // after a failure records are discarded
        if (i < last_end) {
          if (const auto* end = std::get_if<StepEnd>(&batch[i])) {
            last_step_seen_ = end->step;
            continue;
          }
        }
        s = ProcessGuarded(batch[i]);
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
      insert_finding_.Bind(6, store_internal::EvidenceJson(f->evidence));
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
    insert_tensor_.Bind(4, store_internal::ShapeText(r.shape));
    insert_tensor_.Bind(5, r.dtype);
    Status s = insert_tensor_.Run();
    if (!s.ok()) return s;
    select_tensor_.Bind(1, r.name);
    select_tensor_.Bind(2, role);
    StatusOr<bool> found = select_tensor_.StepRow();
    if (!found.ok() || !*found) {
      s = found.ok() ? Status::Error("the tensors row just inserted is missing") : found.status();
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
    Stmt& st = insert_stats_;
    st.Bind(1, tensor_id);
    st.Bind(2, r.step);
    BindColumns(kStatsColumns, r.stats, store_internal::kStatsInsertFirstColumn, st);
    const int blobs = store_internal::StatsInsertBlobIndex();
    st.BindBlob(blobs, store_internal::EncodeExponentHist(r.stats));
    st.BindBlob(blobs + 1, store_internal::EncodeLogHist(r.stats));
    const std::string shape = store_internal::ShapeText(r.shape);
    if (shape != (*row)->shape) {
      st.Bind(blobs + 2, shape);
    } else {
      st.BindNull(blobs + 2);
    }
    if (r.dtype != (*row)->dtype) {
      st.Bind(blobs + 3, r.dtype);
    } else {
      st.BindNull(blobs + 3);
    }
    if (r.samples) {
      st.BindBlob(blobs + 4, store_internal::EncodeSampleSummary(*r.samples));
    } else {
      st.BindNull(blobs + 4);
    }
    Status s = st.Run();
    if (!s.ok()) return s;
    const int64_t stats_id = sqlite3_last_insert_rowid(db_);
    for (const FormatRecord& f : r.formats) {
      Stmt& fs = insert_format_;
      fs.Bind(1, stats_id);
      fs.Bind(2, tensor_id);
      fs.Bind(3, r.step);
      BindColumns(kFormatColumns, f, store_internal::kFormatInsertFirstColumn, fs);
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
      st.Bind(1, store_internal::NowIso8601());
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
    // A finished run leaves WAL mode: its content moves into run.db and the
    // -wal and -shm files go, so readers (read-only) need no file beside it
    // and read it in read-only places. This needs the only connection; with
    // a reader still open the run stays in WAL mode, and the last connection
    // to close (if it can write) checkpoints and removes the -wal file.
    // Without waiting: a reader may hold the run open for a long time.
    if (mark.ok()) {
      sqlite3_busy_timeout(db_, 0);
      (void)Exec(db_, "PRAGMA journal_mode = DELETE");  // busy: it stays in WAL mode
    }
    if (sqlite3_close(db_) != SQLITE_OK && mark.ok()) {
      mark = Status::Error(path_ + ": cannot close: " + SqliteError(db_));
    }
    db_ = nullptr;
    lock_.Release();  // the run is finished: another writer may replace it now
    return write_error.ok() ? mark : write_error;
  }

  DirLock lock_;  // the run directory's, while this writer writes
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

    // One writer per run directory, this process's or another's: a second
    // one would remove or rewrite the database and journals the first still
    // writes (core/dir_lock.h). Held until Close (or until the writer is
    // destroyed, if it never closes).
    StatusOr<DirLock> lock = DirLock::Acquire(run_dir, "run directory");
    if (!lock.ok()) return lock.status();
    std::error_code ec;
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
    // Create run.db here (SQLite opens it without SQLITE_OPEN_CREATE and
    // takes an empty file as an empty database); the directory's lock already
    // keeps other writers out, O_EXCL only guards against a foreign process.
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
    impl->lock_ = std::move(lock).value();
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
    StatusOr<bool> wal_row = wal.StepRow();
    if (!wal_row.ok() || !*wal_row || wal.Text(0) != "wal") {
      return Status::Error("cannot create " + path +
                           ": the file system does not support SQLite's WAL mode (network file "
                           "system?): choose a run directory on a local disk");
    }
    wal.Finalize();
    s = Exec(db, "PRAGMA synchronous = NORMAL");
    if (!s.ok()) return fail("PRAGMA synchronous", s);

    s = Exec(db, "BEGIN IMMEDIATE");
    if (!s.ok()) return fail("BEGIN", s);
    s = Exec(db, store_internal::SchemaSql().c_str());
    if (!s.ok()) return fail("creating the schema", s);
    const std::string pragmas = "PRAGMA application_id = " + std::to_string(kRunDbApplicationId) +
                                "; PRAGMA user_version = " + std::to_string(kRunDbSchemaVersion) +
                                ";";
    s = Exec(db, pragmas.c_str());
    if (!s.ok()) return fail("setting the schema version", s);
    {
      Stmt meta;
      s = meta.Prepare(db, "INSERT INTO meta (key, value) VALUES (?1, ?2)");
      for (const auto& [k, v] : store_internal::MetaRows()) {
        if (!s.ok()) break;
        meta.Bind(1, k);
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
        run.Bind(2, store_internal::NowIso8601());
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
