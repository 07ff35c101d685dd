// RunReader against databases it did not write: rows made wrong with the
// SQLite C API (text in numeric columns, negative counts, counts above the
// element count, rows pointing to missing rows, unknown names) are refused
// with one message naming the table and the row; and reading leaves the run's
// directory as it found it, also where nothing may be written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "store/run_check.h"
#include "store/run_db.h"
#include "tests/common/temp_dir.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TensorRecord Record(int64_t step, const std::string& name, Role role) {
  TensorRecord r;
  r.step = step;
  r.name = name;
  r.role = role;
  r.shape = {4, 8};
  r.dtype = "float32";
  r.stats.count = 32;
  r.stats.zeros = 2;
  r.stats.exponent_hist[-3 - TensorStats::kMinExponent] = 30;
  r.stats.log_hist[1000] = 30;
  r.stats.mean = 0.1;
  r.stats.std = 0.2;
  r.stats.rms = 0.25;
  r.stats.min = -0.2f;
  r.stats.max = 0.2f;
  r.stats.min_abs = 0.125f;
  r.stats.max_abs = 0.2f;
  FormatRecord f{"e4m3fn", "none", 1.0f, {}};
  f.counts.numel = 32;
  f.counts.underflow = 1;
  f.counts.sq_error = 1e-6;
  f.counts.sq_signal = 2.0;
  r.formats.push_back(f);
  if (role == Role::kActivation) {
    SampleSummary& m = r.samples.emplace();
    m.rows = 4;
    m.positions = 8;
    for (int k = 0; k <= SampleSummary::kQuantiles; ++k) m.row_log2_rms.push_back(-3.0f + 0.01f * k);
  }
  return r;
}

// Two steps of two tensors, scalars, a finding and a capture; closed.
std::string WriteRun(const TempDir& dir) {
  StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(dir.path(), "victim", "{}");
  EXPECT_TRUE(w.ok()) << w.status().message();
  for (int64_t step = 0; step < 2; ++step) {
    EXPECT_TRUE((*w)->Add(Record(step, "fc1", Role::kActivation)).ok());
    EXPECT_TRUE((*w)->Add(Record(step, "fc1.weight", Role::kWeight)).ok());
    EXPECT_TRUE((*w)->Add(ScalarRecord{step, "loss", 1.0}).ok());
    EXPECT_TRUE((*w)->EndStep(step).ok());
  }
  Finding f;
  f.rule = "underflow";
  f.step = 1;
  f.message = "m";
  EXPECT_TRUE((*w)->Add(f).ok());
  EXPECT_TRUE((*w)->AddCapture(1, "c", "r").ok());
  EXPECT_TRUE((*w)->Close(Status()).ok());
  return dir / "run.db";
}

void Exec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
      << sql << ": " << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// Everything a reader can read, in order; the first error.
Status ReadAll(const RunReader& r) {
  Status s = ValidateRun(r);
  if (!s.ok()) return s;
  if (!r.Info().ok()) return r.Info().status();
  if (!r.Tensors().ok()) return r.Tensors().status();
  if (!r.Steps().ok()) return r.Steps().status();
  if (!r.Candidates().ok()) return r.Candidates().status();
  if (!r.Records().ok()) return r.Records().status();
  if (!r.Scalars().ok()) return r.Scalars().status();
  if (!r.Findings().ok()) return r.Findings().status();
  if (!r.Captures().ok()) return r.Captures().status();
  return Status();
}

// The refusal of a corrupt run: at Open or by Validate.
std::string Refusal(const std::string& db_path) {
  StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(db_path);
  if (!r.ok()) return r.status().message();
  Status s = ValidateRun(**r);
  EXPECT_FALSE(s.ok()) << "a corrupt run passed Validate()";
  return s.ok() ? "" : s.message();
}

struct Corruption {
  const char* name;
  const char* sql;
  // What the refusal must say: the table and row, and the problem.
  std::vector<std::string> says;
  // A reader method that must fail on its own (without Validate()).
  Status (*read)(const RunReader&);
};

Status ReadRecords(const RunReader& r) { return r.Records().ok() ? Status() : r.Records().status(); }
Status ReadInfo(const RunReader& r) { return r.Info().ok() ? Status() : r.Info().status(); }
Status ReadTensors(const RunReader& r) { return r.Tensors().ok() ? Status() : r.Tensors().status(); }
Status ReadScalars(const RunReader& r) { return r.Scalars().ok() ? Status() : r.Scalars().status(); }
Status ReadSteps(const RunReader& r) { return r.Steps().ok() ? Status() : r.Steps().status(); }
Status ReadFindings(const RunReader& r) {
  return r.Findings().ok() ? Status() : r.Findings().status();
}
Status ReadCaptures(const RunReader& r) {
  return r.Captures().ok() ? Status() : r.Captures().status();
}
Status ReadCandidates(const RunReader& r) {
  return r.Candidates().ok() ? Status() : r.Candidates().status();
}

class CorruptRowTest : public ::testing::TestWithParam<Corruption> {};

TEST_P(CorruptRowTest, IsRefusedNamingTableAndRow) {
  const Corruption& c = GetParam();
  TempDir dir;
  const std::string db = WriteRun(dir);
  {
    StatusOr<std::unique_ptr<RunReader>> clean = RunReader::Open(db);
    ASSERT_TRUE(clean.ok()) << clean.status().message();
    ASSERT_TRUE(ReadAll(**clean).ok()) << ReadAll(**clean).message();
  }
  Exec(db, c.sql);
  const std::string msg = Refusal(db);
  EXPECT_THAT(msg, HasSubstr(db)) << "the message names the file";
  for (const std::string& s : c.says) EXPECT_THAT(msg, HasSubstr(s));
  EXPECT_THAT(msg, HasSubstr("corrupt"));
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  if (c.read) {
    StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(db);
    ASSERT_TRUE(r.ok()) << r.status().message();
    Status s = c.read(**r);
    ASSERT_FALSE(s.ok()) << "the reader method alone refuses the row too";
    EXPECT_EQ(s.message(), msg);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CorruptRowTest,
    ::testing::Values(
        Corruption{"TextCount", "UPDATE stats SET count = 'many' WHERE id = 2",
                   {"table stats, row 2", "column count", "text 'many'", "an integer"},
                   ReadRecords},
        Corruption{"NegativeCount", "UPDATE stats SET zeros = -5 WHERE id = 3",
                   {"table stats, row 3", "column zeros holds -5", "negative"}, ReadRecords},
        Corruption{"CountAboveElements", "UPDATE stats SET nans = 33 WHERE id = 1",
                   {"table stats, row 1", "column nans holds 33", "32 elements"}, ReadRecords},
        Corruption{"TextInRealColumn", "UPDATE stats SET mean = 'x' WHERE id = 4",
                   {"table stats, row 4", "column mean", "a number"}, ReadRecords},
        Corruption{"NegativeStd", "UPDATE stats SET std = -1 WHERE id = 1",
                   {"table stats, row 1", "column std", "negative"}, ReadRecords},
        Corruption{"Fp32OutOfRange", "UPDATE stats SET max_abs = 1e300 WHERE id = 1",
                   {"table stats, row 1", "column max_abs", "fp32 range"}, ReadRecords},
        Corruption{"TextInBlobColumn", "UPDATE stats SET log_hist = 'abc' WHERE id = 2",
                   {"table stats, row 2", "column log_hist", "a blob"}, ReadRecords},
        // Activations (rows 1 and 3) hold a sample summary.
        Corruption{"TextInSamples", "UPDATE stats SET samples = 'abc' WHERE id = 3",
                   {"table stats, row 3", "column samples", "a blob"}, ReadRecords},
        Corruption{"SamplesCut", "UPDATE stats SET samples = substr(samples, 1, 40) WHERE id = 1",
                   {"table stats, row 1", "samples: blob of 40 bytes ends inside the summary"}, ReadRecords},
        Corruption{"SamplesBadLength", "UPDATE stats SET samples = X'0400000000000000080000000000000005' WHERE id = 1",
                   {"table stats, row 1", "samples: row_log2_rms has 5 quantiles, not 0 or 33"}, ReadRecords},
        Corruption{"SamplesTrailing", "UPDATE stats SET samples = CAST(samples || X'00' AS BLOB) WHERE id = 3",
                   {"table stats, row 3", "1 bytes after the summary"}, ReadRecords},
        Corruption{"SamplesDecrease",
                   "UPDATE stats SET samples = CAST(substr(samples, 1, 17) || X'000080bf' || substr(samples, 22) "
                   "AS BLOB) WHERE id = 1",
                   {"table stats, row 1", "samples: row_log2_rms decreases"}, ReadRecords},
        Corruption{"SamplesNegativeRows", "UPDATE stats SET samples = CAST(X'FFFFFFFFFFFFFFFF' || substr(samples, 9) AS BLOB) WHERE id = 1",
                   {"table stats, row 1", "rows -1"}, ReadRecords},
        Corruption{"TextStep", "UPDATE stats SET step = 'one' WHERE id = 2",
                   {"table stats, row 2", "column step"}, ReadSteps},
        Corruption{"StatsOfMissingTensor", "UPDATE stats SET tensor_id = 99 WHERE id = 3",
                   {"table stats, row 3", "table tensors"}, nullptr},
        Corruption{"FormatOfMissingStats", "UPDATE format_stats SET stats_id = 77 WHERE id = 2",
                   {"table format_stats, row 2", "table stats"}, nullptr},
        Corruption{"FormatNegativeCount", "UPDATE format_stats SET overflow = -1 WHERE id = 4",
                   {"table format_stats, row 4", "column overflow", "negative"}, ReadRecords},
        Corruption{"FormatAboveNumel", "UPDATE format_stats SET underflow = 40 WHERE id = 1",
                   {"table format_stats, row 1", "column underflow", "32 elements"},
                   ReadRecords},
        Corruption{"FormatBlobAsName", "UPDATE format_stats SET format = X'01' WHERE id = 1",
                   {"table format_stats, row 1", "column format"}, ReadCandidates},
        Corruption{"TensorRoleSet", "UPDATE tensors SET role = 'weight|weight_grad' WHERE id = 2",
                   {"table tensors, row 2", "role"}, ReadTensors},
        Corruption{"TensorNegativeShape", "UPDATE tensors SET shape = '[4,-8]' WHERE id = 1",
                   {"table tensors, row 1", "shape"}, ReadTensors},
        Corruption{"ScalarTextValue", "UPDATE scalars SET value = 'NaN?' WHERE id = 2",
                   {"table scalars, row 2", "column value"}, ReadScalars},
        Corruption{"ScalarTextStep", "UPDATE scalars SET step = 'x' WHERE id = 1",
                   {"table scalars, row 1", "column step"}, ReadSteps},
        Corruption{"FindingSeverity", "UPDATE findings SET severity = 'fatal' WHERE id = 1",
                   {"table findings, row 1", "severity"}, ReadFindings},
        Corruption{"CaptureBlobPath", "UPDATE captures SET path = X'01' WHERE id = 1",
                   {"table captures, row 1", "column path"}, ReadCaptures},
        Corruption{"RunStatus", "UPDATE runs SET status = 'fine'",
                   {"table runs, row 1", "status 'fine'"}, ReadInfo},
        Corruption{"RunLastStepText", "UPDATE runs SET last_step = 'two'",
                   {"table runs, row 1", "column last_step"}, ReadInfo}),
    [](const ::testing::TestParamInfo<Corruption>& p) { return std::string(p.param.name); });

// --- reading leaves the run as it was ---------------------------------------

std::set<std::string> Listing(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// A run whose writer was killed: WAL mode, with its -wal and -shm files.
void WriteCrashedRun(const std::string& dir) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(dir, "crashed", "{}");
    if (!w.ok()) ::_exit(10);
    if (!(*w)->Add(Record(0, "fc1", Role::kActivation)).ok()) ::_exit(11);
    if (!(*w)->EndStep(0).ok() || !(*w)->Flush().ok()) ::_exit(12);
    ::_exit(0);  // no Close, no destructors
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
}

enum class RunState { kFinished, kFinishedInWalMode, kCrashed };

void WriteRunIn(RunState state, const TempDir& dir) {
  if (state == RunState::kCrashed) {
    WriteCrashedRun(dir.path());
    ASSERT_TRUE(fs::exists(dir / "run.db-wal"));
    return;
  }
  WriteRun(dir);
  // Runs written before readers were read-only stayed in WAL mode.
  if (state == RunState::kFinishedInWalMode) Exec(dir / "run.db", "PRAGMA journal_mode = WAL");
  ASSERT_FALSE(fs::exists(dir / "run.db-wal"));
}

// What a reader reads of a run, as one status.
Status ReadRun(const std::string& dir) {
  StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(dir);
  if (!r.ok()) return r.status();
  Status s = ReadAll(**r);
  if (s.ok() && (*r)->Records()->empty()) s = Status::Error("no records were read");
  return s;
}

class ReadOnlyReadTest : public ::testing::TestWithParam<RunState> {};

TEST_P(ReadOnlyReadTest, ReaderLeavesNoFiles) {
  TempDir dir;
  WriteRunIn(GetParam(), dir);
  const std::set<std::string> before = Listing(dir.path());
  Status s = ReadRun(dir.path());
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Listing(dir.path()), before) << "the reader created or removed files";
}

// Runs fn in a child process that cannot write to `dir`: a read-only bind
// mount of it in a private mount namespace where the kernel allows one
// (the directory then refuses writes with EROFS, even to root), else, as a
// user other than root, a directory and files without write permission.
// Returns the child's exit code, or -1 when neither is possible here.
int InReadOnlyDir(const std::string& dir, int (*fn)(const std::string&)) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    bool read_only = false;
    if (::unshare(CLONE_NEWNS) == 0 &&
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
        ::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) == 0 &&
        ::mount(nullptr, dir.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) == 0) {
      read_only = true;
    } else if (::geteuid() != 0) {
      read_only = ::chmod(dir.c_str(), 0555) == 0;
      for (const auto& e : fs::directory_iterator(dir)) ::chmod(e.path().c_str(), 0444);
    }
    if (!read_only) ::_exit(100);
    // The proof that nothing can be written here.
    const std::string probe = dir + "/probe";
    FILE* f = std::fopen(probe.c_str(), "w");
    if (f) {
      std::fclose(f);
      ::_exit(101);
    }
    ::_exit(fn(dir));
  }
  int wstatus = 0;
  if (::waitpid(pid, &wstatus, 0) != pid || !WIFEXITED(wstatus)) return -2;
  return WEXITSTATUS(wstatus) == 100 ? -1 : WEXITSTATUS(wstatus);
}

int ReadInChild(const std::string& dir) {
  Status s = ReadRun(dir);
  if (!s.ok()) std::fprintf(stderr, "%s\n", s.message().c_str());
  return s.ok() ? 0 : 1;
}

TEST_P(ReadOnlyReadTest, ReadsARunInAReadOnlyDirectory) {
  TempDir dir;
  WriteRunIn(GetParam(), dir);
  const std::set<std::string> before = Listing(dir.path());
  const int code = InReadOnlyDir(dir.path(), ReadInChild);
  if (code == -1) GTEST_SKIP() << "no way to make a read-only directory here";
  ASSERT_NE(code, 101) << "the directory was still writable";
  EXPECT_EQ(code, 0) << "the run could not be read (message above)";
  EXPECT_EQ(Listing(dir.path()), before);
}

INSTANTIATE_TEST_SUITE_P(States, ReadOnlyReadTest,
                         ::testing::Values(RunState::kFinished, RunState::kFinishedInWalMode,
                                           RunState::kCrashed),
                         [](const ::testing::TestParamInfo<RunState>& p) {
                           return p.param == RunState::kFinished            ? std::string("Finished")
                                  : p.param == RunState::kFinishedInWalMode ? std::string("WalMode")
                                                                            : std::string("Crashed");
                         });

// A closed run is a plain rollback-journal database: nothing beside run.db.
TEST(RunStateTest, ClosedRunLeavesOnlyRunDb) {
  TempDir dir;
  WriteRun(dir);
  EXPECT_EQ(Listing(dir.path()), std::set<std::string>{"run.db"});
}

TEST(RunStateTest, StatusNoteSaysWhatHappened) {
  RunInfo info;
  info.name = "a";
  info.status = "ok";
  info.finished_at = "2026-01-01T00:00:00.000Z";
  EXPECT_EQ(RunStatusNote(info), "");
  info.status = "failed";
  info.status_message = "LibTorch error: out of memory";
  info.last_step = 7;
  EXPECT_THAT(RunStatusNote(info), HasSubstr("run 'a' failed: LibTorch error: out of memory"));
  EXPECT_THAT(RunStatusNote(info), HasSubstr("step 7"));
  info.status = "running";
  info.finished_at.clear();
  info.last_step.reset();
  EXPECT_THAT(RunStatusNote(info), HasSubstr("not finished"));
  EXPECT_THAT(RunStatusNote(info), HasSubstr("killed"));
  EXPECT_THAT(RunStatusNote(info), HasSubstr("no step"));
  info.status = "aborted";
  info.status_message = "destroyed without Close()";
  EXPECT_THAT(RunStatusNote(info), HasSubstr("aborted: destroyed without Close()"));
}

}  // namespace
}  // namespace lpsim
