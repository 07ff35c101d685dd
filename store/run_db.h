// The run database: one SQLite file per run, RUN_DIR/run.db, written off the
// training thread and read by checks, reports, exports and the CLI.
//
// The schema, its units and blob encodings are documented in docs/store.md.
//
//   StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open("runs/a", "a", config);
//   if (!w.ok()) { std::cerr << w.status().message() << "\n"; return 2; }
//   RunWriter& run = **w;
//   for (int64_t step = 0; step < n; ++step) {
//     run.Add(tensor_record);  run.Add(ScalarRecord{step, "loss", loss});
//     run.EndStep(step);       // the step's records commit together
//   }
//   Status s = run.Close(Status());
//
//   StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open("runs/a");
//   RecordFilter fc1;  fc1.name = "fc1";
//   StatusOr<std::vector<TensorRecord>> recs = (*r)->Records(fc1);
//
// Crash safety: each batch of records between two EndStep calls is one SQLite
// transaction in WAL mode. A process killed at any point leaves a database
// that opens and holds every step whose EndStep had been committed (Flush
// waits for that), and nothing of a step it was still writing.
#ifndef LPSIM_STORE_RUN_DB_H_
#define LPSIM_STORE_RUN_DB_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/records.h"
#include "core/status.h"

namespace lpsim {

// PRAGMA user_version of the databases this build writes and reads. Bump it
// with any change a reader of the previous version would misread.
// Version 2 added stats.samples; RunReader reads version 1 too (its records
// come back without SampleSummary).
constexpr int kRunDbSchemaVersion = 2;
constexpr int kRunDbOldestReadableVersion = 1;
// PRAGMA application_id of an lpsim run database ("lpsr").
constexpr int32_t kRunDbApplicationId = 0x6c707372;
// The database file inside a run directory.
constexpr const char kRunDbFileName[] = "run.db";

// A capture folder written when a step was skipped (NaN/Inf gradient, ...).
struct CaptureRecord {
  int64_t step = 0;
  std::string path;    // the capture folder
  std::string reason;  // e.g. "non-finite gradient in fc2.weight"
};

// The runs row.
struct RunInfo {
  std::string path;  // the database file
  std::string name;
  std::string started_at;            // ISO 8601 UTC, e.g. 2026-11-29T12:41:36.123Z
  std::string finished_at;           // empty while running, or after a crash
  std::string status;                // running | ok | failed | aborted
  std::string status_message;        // why, for failed and aborted runs
  std::string config_json;           // the run's configuration, a JSON document
  std::string lpsim_version;         // the lpsim that wrote the run
  std::optional<int64_t> last_step;  // the last step committed by EndStep
  int schema_version = 0;
};

// A tensors row: one per (name, role).
struct TensorInfo {
  std::string name;
  Role role = Role::kActivation;
  std::string module_type;
  std::vector<int64_t> shape;  // as first recorded (records carry their own)
  std::string dtype;
};

struct RunWriterOptions {
  // Replace an existing RUN_DIR/run.db (and its -wal/-shm files) instead of
  // refusing to open it.
  bool overwrite = false;
  // Records (of any kind) queued for the background writer before Add blocks
  // the caller; nothing is ever dropped. A TensorRecord takes up to ~20 KiB
  // while queued (its histograms), so the default bounds the queue at ~80 MiB.
  size_t max_queued_records = 4096;
  // How long the writer waits for a write lock held by another connection
  // before it gives up with an error.
  int busy_timeout_ms = 10000;
};

// Writes one run. Add, EndStep and Flush may be called from any thread; the
// writes happen on a background thread. A failed write (disk full, ...) is
// sticky: every later call returns it and records are discarded, so the
// training never blocks on a broken store.
class RunWriter {
 public:
  // Creates run_dir (and parents) and run_dir/run.db. Refuses an existing
  // run.db, whatever it holds, unless options.overwrite, and refuses, even
  // with overwrite, a run directory another writer still writes (in this
  // process or another; the lock is the directory's, core/dir_lock.h, held
  // until Close). config_json must be a JSON document ("" stands for {}).
  static StatusOr<std::unique_ptr<RunWriter>> Open(const std::string& run_dir,
                                                   const std::string& name,
                                                   const std::string& config_json,
                                                   const RunWriterOptions& options = {});

  // Without Close, closes with status "aborted".
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // Queue a record; returns at once unless max_queued_records are waiting,
  // then blocks until the writer catches up. Errors: a previous write
  // failed, or the writer is closed.
  Status Add(TensorRecord record);
  Status Add(ScalarRecord record);
  Status Add(Finding finding);
  Status AddCapture(int64_t step, std::string path, std::string reason);

  // Ends a batch: everything added since the previous EndStep commits in one
  // transaction, and runs.last_step becomes `step`. Records added later go to
  // the next batch, whatever their step.
  Status EndStep(int64_t step);

  // Waits until the writer has committed every batch ended before this call.
  // Records of a batch not yet ended are written into its open transaction
  // but become visible (and survive a crash) only at its EndStep or Close.
  Status Flush();

  // Commits what is queued, including a batch not ended by EndStep, and
  // marks the run finished: status "ok" when run_status is ok, else "failed"
  // with its message. Returns the first write error, if any. Later calls
  // return an error.
  Status Close(const Status& run_status);

  // RUN_DIR/run.db.
  const std::string& path() const;

 private:
  class Impl;
  explicit RunWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Which records RunReader::Records returns; unset fields match everything.
struct RecordFilter {
  std::optional<std::string> name;
  std::optional<Role> role;  // a role, or a set (Role::kWeight | Role::kWeightGrad)
  int64_t min_step = std::numeric_limits<int64_t>::min();
  int64_t max_step = std::numeric_limits<int64_t>::max();

  static RecordFilter AtStep(int64_t step) {
    RecordFilter f;
    f.min_step = f.max_step = step;
    return f;
  }
};

// Reads a run database, also while a writer is still writing it (readers see
// the committed steps). One RunReader must not be used by two threads at once.
class RunReader {
 public:
  // `path` is the database file or the run directory holding run.db. Refuses
  // a missing file, a file that is not an lpsim run database, and a schema
  // version other than kRunDbSchemaVersion.
  static StatusOr<std::unique_ptr<RunReader>> Open(const std::string& path);

  ~RunReader();
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;

  const std::string& path() const;

  StatusOr<RunInfo> Info() const;
  // Ordered by name, then role.
  StatusOr<std::vector<TensorInfo>> Tensors() const;
  // Every step that has a tensor record or a scalar, ascending.
  StatusOr<std::vector<int64_t>> Steps() const;
  // Distinct (format, recipe) pairs simulated anywhere in the run, sorted.
  StatusOr<std::vector<std::pair<std::string, std::string>>> Candidates() const;

  // Tensor records with their stats and formats (in the order they were
  // added), ordered by step, then by the order they were added. fn's first
  // error stops the walk and is returned. Use this on big runs: Records()
  // holds every record (~20 KiB each) in memory at once.
  Status ForEachRecord(const RecordFilter& filter,
                       const std::function<Status(TensorRecord&&)>& fn) const;
  StatusOr<std::vector<TensorRecord>> Records(const RecordFilter& filter = {}) const;

  // Scalars ordered by step, then the order they were added; name "" = all.
  StatusOr<std::vector<ScalarRecord>> Scalars(const std::string& name = "") const;
  // Ordered by step, then the order they were added.
  StatusOr<std::vector<Finding>> Findings() const;
  StatusOr<std::vector<CaptureRecord>> Captures() const;

 private:
  class Impl;
  explicit RunReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lpsim

#endif  // LPSIM_STORE_RUN_DB_H_
