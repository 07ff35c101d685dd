// RunWriter / RunReader: round trips of every record kind, the documented blob
// encoding, the background writer's bounded queue, crash safety with a killed
// child process, and the errors a person can hit.
#include "store/run_db.h"
#include "tests/common/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// --- helpers ----------------------------------------------------------------

bool SameDouble(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// A record with pseudo-random stats, sparse histograms and 0-3 formats; the
// same (step, name, role) always gives the same record.
TensorRecord MakeRecord(int64_t step, const std::string& name, Role role) {
  std::seed_seq seq(name.begin(), name.end());
  std::mt19937_64 rng(seq);
  rng.discard(static_cast<unsigned long long>(step) * 7 + static_cast<unsigned>(role));
  std::uniform_real_distribution<double> u(-4, 4);
  TensorRecord r;
  r.step = step;
  r.name = name;
  r.role = role;
  r.shape = {static_cast<int64_t>(16 + rng() % 8), 32};
  r.dtype = "float32";
  r.module_type = role == Role::kActivation ? "Linear" : "";
  TensorStats& s = r.stats;
  s.count = 4096 + rng() % 1000;
  s.zeros = rng() % 50;
  s.nans = rng() % 3;
  s.pos_infs = rng() % 2;
  s.neg_infs = rng() % 2;
  for (int k = 0; k < 20; ++k) {
    s.exponent_hist[rng() % TensorStats::kExponentBins] += 1 + rng() % 1000;
    s.log_hist[rng() % TensorStats::kLogBins] += 1 + rng() % 1000;
  }
  s.exponent_hist.back() = rng() % 2;  // the edges of the key range
  s.exponent_hist.front() = 5;
  s.log_hist.back() = 1ull << 40;
  s.mean = u(rng);
  s.std = std::abs(u(rng));
  s.rms = std::abs(u(rng));
  s.min = static_cast<float>(-std::abs(u(rng)));
  s.max = static_cast<float>(std::abs(u(rng)));
  s.min_abs = static_cast<float>(std::ldexp(1.0, -140));  // an fp32 subnormal
  s.max_abs = std::max(-s.min, s.max);
  const int nformats = static_cast<int>(rng() % 4);
  for (int i = 0; i < nformats; ++i) {
    FormatRecord f;
    f.format = i == 0 ? "e4m3fn" : i == 1 ? "e5m2" : "e2m1fn";
    f.recipe = i == 2 ? "mx" : "delayed16";
    f.scale = static_cast<float>(std::ldexp(1.0 + (rng() % 100) / 128.0, -3));
    CastCounts& c = f.counts;
    c.numel = s.count;
    c.underflow = rng() % 100;
    c.flushed = rng() % 10;
    c.subnormal = rng() % 100;
    c.overflow = rng() % 5;
    c.nan_in = s.nans;
    c.inf_in = s.pos_infs + s.neg_infs;
    c.zero_in = s.zeros;
    c.sq_error = i == 1 ? 0.0 : std::abs(u(rng)) * 1e-3;  // 0: SNR +Inf
    c.sq_signal = std::abs(u(rng)) * 100;
    r.formats.push_back(f);
  }
  if (role == Role::kActivation) {
    // Increasing quantiles from -Inf (a log2 offset of a zero mean), one
    // list empty (no row varies), as SummarizeSamples can leave them.
    SampleSummary& m = r.samples.emplace();
    m.rows = r.shape[0];
    m.positions = r.shape[1];
    for (SampleSummary::Quantiles* q : {&m.row_log2_rms, &m.row_log2_offset, &m.position_log2_rms}) {
      float v = static_cast<float>(u(rng)) * 8;
      for (int k = 0; k <= SampleSummary::kQuantiles; ++k, v += static_cast<float>(std::abs(u(rng)))) q->push_back(v);
    }
    m.row_log2_offset.front() = -HUGE_VALF;
  }
  return r;
}

void ExpectSamplesEqual(const std::optional<SampleSummary>& a, const std::optional<SampleSummary>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->rows, b->rows);
  EXPECT_EQ(a->positions, b->positions);
  EXPECT_EQ(a->row_log2_rms, b->row_log2_rms);  // float ==: bit for bit but the sign of 0
  EXPECT_EQ(a->row_log2_offset, b->row_log2_offset);
  EXPECT_EQ(a->position_log2_rms, b->position_log2_rms);
  EXPECT_EQ(a->position_log2_offset, b->position_log2_offset);
}

void ExpectStatsEqual(const TensorStats& a, const TensorStats& b) {
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.zeros, b.zeros);
  EXPECT_EQ(a.nans, b.nans);
  EXPECT_EQ(a.pos_infs, b.pos_infs);
  EXPECT_EQ(a.neg_infs, b.neg_infs);
  EXPECT_TRUE(a.exponent_hist == b.exponent_hist) << "exponent_hist differs";
  EXPECT_TRUE(a.log_hist == b.log_hist) << "log_hist differs";
  EXPECT_TRUE(SameDouble(a.mean, b.mean)) << a.mean << " vs " << b.mean;
  EXPECT_TRUE(SameDouble(a.std, b.std));
  EXPECT_TRUE(SameDouble(a.rms, b.rms));
  EXPECT_TRUE(SameDouble(a.min, b.min));
  EXPECT_TRUE(SameDouble(a.max, b.max));
  EXPECT_TRUE(SameDouble(a.min_abs, b.min_abs));
  EXPECT_TRUE(SameDouble(a.max_abs, b.max_abs));
}

void ExpectRecordEqual(const TensorRecord& a, const TensorRecord& b) {
  SCOPED_TRACE("record " + a.name + " step " + std::to_string(a.step));
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.role, b.role);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.module_type, b.module_type);
  ExpectStatsEqual(a.stats, b.stats);
  ASSERT_EQ(a.formats.size(), b.formats.size());
  for (size_t i = 0; i < a.formats.size(); ++i) {
    EXPECT_EQ(a.formats[i].format, b.formats[i].format);
    EXPECT_EQ(a.formats[i].recipe, b.formats[i].recipe);
    EXPECT_EQ(a.formats[i].scale, b.formats[i].scale);
    EXPECT_TRUE(a.formats[i].counts == b.formats[i].counts) << "format " << i;
  }
  ExpectSamplesEqual(a.samples, b.samples);
}

std::unique_ptr<RunWriter> OpenWriter(const std::string& dir, const RunWriterOptions& opt = {}) {
  StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(dir, "test-run", R"({"lr": 0.1})", opt);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? std::move(w).value() : nullptr;
}

std::unique_ptr<RunReader> OpenReader(const std::string& path) {
  StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(path);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : nullptr;
}

const std::vector<std::pair<std::string, Role>> kTensors = {
    {"fc1", Role::kActivation},
    {"fc1", Role::kActivationGrad},
    {"fc1.weight", Role::kWeight},
    {"fc1.weight", Role::kWeightGrad},
    {"fc1.weight.exp_avg", Role::kOptimizerState},
};

// Writes the records of one step of the standard test run.
void WriteStep(RunWriter& w, int64_t step, std::vector<TensorRecord>* written = nullptr) {
  for (const auto& [name, role] : kTensors) {
    TensorRecord r = MakeRecord(step, name, role);
    if (written) written->push_back(r);
    ASSERT_TRUE(w.Add(std::move(r)).ok());
  }
  ASSERT_TRUE(w.Add(ScalarRecord{step, "loss", 1.0 / (step + 1)}).ok());
}

// --- round trips --------------------------------------------------------------

TEST(RunDbTest, RoundTripsEveryRecordKind) {
  TempDir dir;
  const std::string run_dir = dir / "nested/run";  // created with its parents
  std::vector<TensorRecord> written;
  {
    auto w = OpenWriter(run_dir);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->path(), run_dir + "/run.db");
    for (int64_t step = 0; step < 4; ++step) {
      WriteStep(*w, step, &written);
      ASSERT_TRUE(w->Add(ScalarRecord{step, "lr", std::nan("")}).ok());
      ASSERT_TRUE(w->EndStep(step).ok());
    }
    // Step 4: a shape and dtype that differ from the first record, a NaN
    // mean, and no formats.
    TensorRecord odd = MakeRecord(4, "fc1", Role::kActivation);
    odd.shape = {7, 32};
    odd.dtype = "bfloat16";
    odd.stats.mean = std::nan("");
    odd.formats.clear();
    written.push_back(odd);
    ASSERT_TRUE(w->Add(odd).ok());
    Finding f;
    f.rule = "gradient_underflow";
    f.severity = Severity::kError;
    f.step = 4;
    f.tensor = "fc1";
    f.message = "42% of fc1's gradient underflows in e5m2: use a scale";
    f.evidence = {{"fraction", 0.42}, {"threshold", 0.01}, {"snr_db", HUGE_VAL}};
    ASSERT_TRUE(w->Add(f).ok());
    ASSERT_TRUE(w->AddCapture(4, "captures/step4", "non-finite gradient in fc1.weight").ok());
    ASSERT_TRUE(w->EndStep(4).ok());
    ASSERT_TRUE(w->Close(Status()).ok());
  }
  EXPECT_FALSE(fs::exists(run_dir + "/run.db-wal")) << "Close checkpoints the WAL";

  auto r = OpenReader(run_dir);  // the directory or the file
  ASSERT_TRUE(r);
  StatusOr<RunInfo> info = r->Info();
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->name, "test-run");
  EXPECT_EQ(info->status, "ok");
  EXPECT_EQ(info->config_json, R"({"lr": 0.1})");
  EXPECT_FALSE(info->finished_at.empty());
  EXPECT_THAT(
      info->started_at,
      ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z"));
  EXPECT_EQ(info->last_step, 4);
  EXPECT_EQ(info->schema_version, kRunDbSchemaVersion);
  EXPECT_FALSE(info->lpsim_version.empty());

  StatusOr<std::vector<TensorInfo>> tensors = r->Tensors();
  ASSERT_TRUE(tensors.ok());
  ASSERT_EQ(tensors->size(), kTensors.size());
  EXPECT_EQ((*tensors)[0].name, "fc1");
  EXPECT_EQ((*tensors)[0].role, Role::kActivation);
  EXPECT_EQ((*tensors)[0].module_type, "Linear");
  EXPECT_EQ((*tensors)[0].dtype, "float32");
  EXPECT_EQ((*tensors)[1].role, Role::kActivationGrad);

  StatusOr<std::vector<int64_t>> steps = r->Steps();
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(*steps, (std::vector<int64_t>{0, 1, 2, 3, 4}));

  StatusOr<std::vector<TensorRecord>> all = r->Records();
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), written.size());
  for (size_t i = 0; i < written.size(); ++i) ExpectRecordEqual((*all)[i], written[i]);

  RecordFilter by_name;
  by_name.name = "fc1.weight";
  by_name.role = Role::kWeightGrad;
  StatusOr<std::vector<TensorRecord>> grads = r->Records(by_name);
  ASSERT_TRUE(grads.ok());
  ASSERT_EQ(grads->size(), 4u);
  for (int64_t step = 0; step < 4; ++step) {
    ExpectRecordEqual((*grads)[step], MakeRecord(step, "fc1.weight", Role::kWeightGrad));
  }
  RecordFilter params = RecordFilter::AtStep(1);
  params.role = Role::kWeight | Role::kWeightGrad;
  StatusOr<std::vector<TensorRecord>> p1 = r->Records(params);
  ASSERT_TRUE(p1.ok());
  ASSERT_EQ(p1->size(), 2u);
  EXPECT_EQ((*p1)[0].role, Role::kWeight);
  EXPECT_EQ((*p1)[1].role, Role::kWeightGrad);
  RecordFilter range;
  range.min_step = 1;
  range.max_step = 2;
  range.name = "fc1";
  EXPECT_EQ(r->Records(range)->size(), 4u) << "fc1's activation and gradient at steps 1, 2";
  StatusOr<std::vector<TensorRecord>> at2 = r->Records(RecordFilter::AtStep(2));
  ASSERT_TRUE(at2.ok());
  EXPECT_EQ(at2->size(), kTensors.size());
  for (const TensorRecord& rec : *at2) EXPECT_EQ(rec.step, 2);

  StatusOr<std::vector<ScalarRecord>> loss = r->Scalars("loss");
  ASSERT_TRUE(loss.ok());
  ASSERT_EQ(loss->size(), 4u);
  EXPECT_EQ((*loss)[3].value, 0.25);
  StatusOr<std::vector<ScalarRecord>> all_scalars = r->Scalars();
  ASSERT_TRUE(all_scalars.ok());
  ASSERT_EQ(all_scalars->size(), 8u);
  EXPECT_EQ((*all_scalars)[1].name, "lr");
  EXPECT_TRUE(std::isnan((*all_scalars)[1].value));

  StatusOr<std::vector<Finding>> findings = r->Findings();
  ASSERT_TRUE(findings.ok()) << findings.status().message();
  ASSERT_EQ(findings->size(), 1u);
  const Finding& f = (*findings)[0];
  EXPECT_EQ(f.rule, "gradient_underflow");
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.step, 4);
  EXPECT_EQ(f.tensor, "fc1");
  EXPECT_THAT(f.message, HasSubstr("42%"));
  EXPECT_EQ(f.evidence.at("fraction"), 0.42);
  EXPECT_EQ(f.evidence.at("snr_db"), HUGE_VAL);

  StatusOr<std::vector<CaptureRecord>> captures = r->Captures();
  ASSERT_TRUE(captures.ok());
  ASSERT_EQ(captures->size(), 1u);
  EXPECT_EQ((*captures)[0].step, 4);
  EXPECT_EQ((*captures)[0].path, "captures/step4");
  EXPECT_EQ((*captures)[0].reason, "non-finite gradient in fc1.weight");

  StatusOr<std::vector<std::pair<std::string, std::string>>> cand = r->Candidates();
  ASSERT_TRUE(cand.ok());
  for (const auto& [format, recipe] : *cand) {
    EXPECT_TRUE(format == "e4m3fn" || format == "e5m2" || format == "e2m1fn") << format;
    EXPECT_FALSE(recipe.empty());
  }
  r.reset();
  EXPECT_FALSE(fs::exists(run_dir + "/run.db-wal")) << "a reader leaves no side files";
  EXPECT_FALSE(fs::exists(run_dir + "/run.db-shm"));
}

TEST(RunDbTest, StoresTheDocumentedLayout) {
  TempDir dir;
  TensorRecord r;
  r.step = 3;
  r.name = "fc2";
  r.role = Role::kActivationGrad;
  r.shape = {2, 5};
  r.stats.count = 10;
  r.stats.exponent_hist[-20 - TensorStats::kMinExponent] = 3;  // |x| in [2^-20, 2^-19)
  r.stats.exponent_hist[5 - TensorStats::kMinExponent] = 7;
  r.stats.log_hist[1016] = 9;
  r.formats.push_back({"e5m2", "none", 1.0f, {}});
  r.formats[0].counts.numel = 10;
  r.formats[0].counts.sq_error = 1;
  r.formats[0].counts.sq_signal = 100;
  {
    auto w = OpenWriter(dir.path());
    ASSERT_TRUE(w->Add(r).ok());
    ASSERT_TRUE(w->EndStep(3).ok());
    ASSERT_TRUE(w->Close(Status()).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((dir / "run.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  auto query_int = [&](const char* sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    EXPECT_EQ(sqlite3_step(st), SQLITE_ROW);
    const int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
  };
  EXPECT_EQ(query_int("PRAGMA user_version"), kRunDbSchemaVersion);
  EXPECT_EQ(query_int("PRAGMA application_id"), kRunDbApplicationId);
  EXPECT_EQ(query_int("SELECT COUNT(*) FROM stats WHERE step = 3"), 1);
  EXPECT_EQ(query_int("SELECT COUNT(*) FROM format_stats WHERE step = 3 AND format = 'e5m2'"), 1);
  EXPECT_EQ(query_int("SELECT snr_db = 20.0 FROM format_stats"), 1);
  EXPECT_EQ(query_int("SELECT shape IS NULL AND dtype IS NULL FROM stats"), 1)
      << "per-record shape/dtype are stored only where they differ from the tensors row";
  EXPECT_EQ(query_int("SELECT samples IS NULL FROM stats"), 1) << "a record without a SampleSummary";

  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT exponent_hist, log_hist, p25, p50, p75, p99 FROM stats",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  auto blob = [&](int col) {
    const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(st, col));
    return std::vector<unsigned char>(p, p + sqlite3_column_bytes(st, col));
  };
  // (int16 exponent, uint64 count) little-endian pairs, exponents increasing.
  const std::vector<unsigned char> expected_exp = {
      0xec, 0xff, 3, 0, 0, 0, 0, 0, 0, 0,  // -20 = 0xffec
      0x05, 0x00, 7, 0, 0, 0, 0, 0, 0, 0,  // 5
  };
  EXPECT_EQ(blob(0), expected_exp);
  const std::vector<unsigned char> expected_log = {0xf8, 0x03, 9, 0, 0, 0, 0, 0, 0, 0};  // 1016
  EXPECT_EQ(blob(1), expected_log);
  EXPECT_EQ(static_cast<float>(sqlite3_column_double(st, 2)), r.stats.Quantile(0.25));
  EXPECT_EQ(static_cast<float>(sqlite3_column_double(st, 3)), r.stats.Quantile(0.50));
  EXPECT_EQ(static_cast<float>(sqlite3_column_double(st, 4)), r.stats.Quantile(0.75));
  EXPECT_EQ(static_cast<float>(sqlite3_column_double(st, 5)), r.stats.Quantile(0.99));
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// --- the background writer --------------------------------------------------------

// Holding SQLite's write lock from another connection stalls the writer
// thread; Add must still return at once until the queue bound, then block
// (never drop) until the writer catches up.
TEST(RunDbTest, AddDoesNotWaitForSqliteAndBlocksAtTheBound) {
  TempDir dir;
  RunWriterOptions opt;
  opt.max_queued_records = 4;
  auto w = OpenWriter(dir.path(), opt);
  ASSERT_TRUE(w);

  sqlite3* blocker = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "run.db").c_str(), &blocker), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);

  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(w->Add(MakeRecord(0, "t" + std::to_string(i), Role::kWeight)).ok());
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  // The writer is stuck on the lock (for up to its 10 s busy timeout); a
  // generous bound still tells "returned at once" from "waited for SQLite"
  // on a loaded machine.
  EXPECT_LT(elapsed, std::chrono::seconds(2)) << "Add waited for SQLite";

  std::atomic<bool> fifth_returned{false};
  std::thread producer([&] {
    EXPECT_TRUE(w->Add(MakeRecord(0, "t4", Role::kWeight)).ok());
    fifth_returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(fifth_returned) << "a full queue must block the caller, not drop records";

  ASSERT_EQ(sqlite3_exec(blocker, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(blocker);
  producer.join();
  EXPECT_TRUE(fifth_returned);
  ASSERT_TRUE(w->EndStep(0).ok());
  ASSERT_TRUE(w->Flush().ok());

  auto r = OpenReader(dir.path());
  StatusOr<std::vector<TensorRecord>> recs = r->Records();
  ASSERT_TRUE(recs.ok());
  EXPECT_EQ(recs->size(), 5u);
  ASSERT_TRUE(w->Close(Status()).ok());
}

TEST(RunDbTest, FlushCommitsEndedStepsAndCloseCommitsTheRest) {
  TempDir dir;
  auto w = OpenWriter(dir.path());
  WriteStep(*w, 0);
  ASSERT_TRUE(w->EndStep(0).ok());
  WriteStep(*w, 1);  // not ended
  ASSERT_TRUE(w->Flush().ok());

  auto r = OpenReader(dir.path());  // a live reader
  StatusOr<RunInfo> info = r->Info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->status, "running");
  EXPECT_TRUE(info->finished_at.empty());
  EXPECT_EQ(info->last_step, 0);
  EXPECT_EQ(*r->Steps(), (std::vector<int64_t>{0}));

  ASSERT_TRUE(w->EndStep(1).ok());
  WriteStep(*w, 2);  // never ended: Close commits it
  ASSERT_TRUE(w->Flush().ok());
  EXPECT_EQ(*r->Steps(), (std::vector<int64_t>{0, 1}));
  ASSERT_TRUE(w->Close(Status::Error("diverged at step 2")).ok());

  EXPECT_EQ(*r->Steps(), (std::vector<int64_t>{0, 1, 2}));
  info = r->Info();
  EXPECT_EQ(info->status, "failed");
  EXPECT_EQ(info->status_message, "diverged at step 2");
  EXPECT_FALSE(info->finished_at.empty());

  Status again = w->Close(Status());
  EXPECT_FALSE(again.ok());
  EXPECT_THAT(again.message(), HasSubstr("already closed"));
  Status late = w->Add(ScalarRecord{3, "loss", 1});
  EXPECT_FALSE(late.ok());
  EXPECT_THAT(late.message(), HasSubstr("closed"));
}

TEST(RunDbTest, ManyThreadsAddConcurrently) {
  TempDir dir;
  RunWriterOptions opt;
  opt.max_queued_records = 16;
  auto w = OpenWriter(dir.path(), opt);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        EXPECT_TRUE(w->Add(ScalarRecord{i, "thread" + std::to_string(t), double(i)}).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_TRUE(w->Close(Status()).ok());
  auto r = OpenReader(dir.path());
  for (int t = 0; t < 4; ++t) {
    StatusOr<std::vector<ScalarRecord>> s = r->Scalars("thread" + std::to_string(t));
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s->size(), 500u);
    for (int i = 0; i < 500; ++i) EXPECT_EQ((*s)[i].value, i);
  }
}

TEST(RunDbTest, DestroyingWithoutCloseMarksTheRunAborted) {
  TempDir dir;
  {
    auto w = OpenWriter(dir.path());
    WriteStep(*w, 0);
  }
  auto r = OpenReader(dir.path());
  StatusOr<RunInfo> info = r->Info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->status, "aborted");
  EXPECT_THAT(info->status_message, HasSubstr("without Close()"));
  EXPECT_EQ(r->Records()->size(), kTensors.size()) << "queued records are still written";
}

// --- crash safety -------------------------------------------------------------

enum class Death { kExit, kAbort, kSigkill };
void PrintTo(Death d, std::ostream* os) {
  *os << (d == Death::kExit ? "_exit" : d == Death::kAbort ? "abort" : "SIGKILL");
}

// The child writes kSteps complete steps (EndStep + Flush each), then part of
// the next one (flushed into its open transaction), then dies.
constexpr int kSteps = 5;

[[noreturn]] void ChildWritesThenDies(const std::string& dir, Death death) {
  StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(dir, "doomed", "{}");
  if (!w.ok()) ::_exit(10);
  RunWriter& run = **w;
  for (int64_t step = 0; step < kSteps; ++step) {
    for (const auto& [name, role] : kTensors) {
      if (!run.Add(MakeRecord(step, name, role)).ok()) ::_exit(11);
    }
    if (!run.Add(ScalarRecord{step, "loss", 1.0}).ok()) ::_exit(11);
    if (!run.EndStep(step).ok() || !run.Flush().ok()) ::_exit(12);
  }
  for (int i = 0; i < 2; ++i) {
    if (!run.Add(MakeRecord(kSteps, kTensors[i].first, kTensors[i].second)).ok()) ::_exit(13);
  }
  if (!run.Add(ScalarRecord{kSteps, "loss", 1.0}).ok()) ::_exit(15);
  if (!run.AddCapture(kSteps, "nowhere", "partial").ok()) ::_exit(16);
  if (!run.Flush().ok()) ::_exit(14);
  switch (death) {
    case Death::kExit: ::_exit(0);
    case Death::kAbort: {
      struct rlimit no_core = {0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      ::abort();
    }
    case Death::kSigkill: ::kill(::getpid(), SIGKILL);
  }
  ::_exit(15);
}

class RunDbCrashTest : public ::testing::TestWithParam<Death> {};

TEST_P(RunDbCrashTest, DeadWriterLeavesEveryCompletedStep) {
  TempDir dir;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) ChildWritesThenDies(dir.path(), GetParam());
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  switch (GetParam()) {
    case Death::kExit:
      ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) << wstatus;
      break;
    case Death::kAbort: ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGABRT); break;
    case Death::kSigkill: ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL); break;
  }

  auto r = OpenReader(dir.path());
  ASSERT_TRUE(r);
  StatusOr<RunInfo> info = r->Info();
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->status, "running");
  EXPECT_TRUE(info->finished_at.empty());
  EXPECT_EQ(info->last_step, kSteps - 1);
  StatusOr<std::vector<int64_t>> steps = r->Steps();
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(*steps, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  StatusOr<std::vector<TensorRecord>> recs = r->Records();
  ASSERT_TRUE(recs.ok()) << recs.status().message();
  ASSERT_EQ(recs->size(), kSteps * kTensors.size());
  for (size_t i = 0; i < recs->size(); ++i) {
    const auto& [name, role] = kTensors[i % kTensors.size()];
    ExpectRecordEqual((*recs)[i],
                      MakeRecord(static_cast<int64_t>(i / kTensors.size()), name, role));
  }
  EXPECT_EQ(r->Scalars()->size(), static_cast<size_t>(kSteps));
  EXPECT_TRUE(r->Captures()->empty());
}

INSTANTIATE_TEST_SUITE_P(Deaths, RunDbCrashTest,
                         ::testing::Values(Death::kExit, Death::kAbort, Death::kSigkill),
                         [](const ::testing::TestParamInfo<Death>& p) {
                           return p.param == Death::kExit    ? std::string("Exit")
                                  : p.param == Death::kAbort ? std::string("Abort")
                                                             : std::string("Sigkill");
                         });

// The parent kills a child that writes as fast as it can, at whatever point
// it has reached: every step in the database must be whole.
TEST(RunDbCrashTest, KilledAtARandomPointLeavesWholeSteps) {
  TempDir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  constexpr int kPerStep = 40;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(dir.path(), "busy", "{}");
    if (!w.ok()) ::_exit(10);
    for (int64_t step = 0;; ++step) {
      for (int i = 0; i < kPerStep; ++i) {
        if (!(*w)->Add(MakeRecord(step, "t" + std::to_string(i), Role::kActivation)).ok()) ::_exit(12);
      }
      if (!(*w)->EndStep(step).ok()) ::_exit(13);
      if (step % 4 == 0) {
        if (!(*w)->Flush().ok()) ::_exit(14);
        char c = 1;
        if (::write(fds[1], &c, 1) != 1) ::_exit(11);
      }
    }
  }
  ::close(fds[1]);
  char buf[3];
  size_t got = 0;
  while (got < sizeof buf) {
    const ssize_t n = ::read(fds[0], buf + got, sizeof buf - got);
    ASSERT_GT(n, 0) << "the child died early";
    got += static_cast<size_t>(n);
  }
  ::kill(pid, SIGKILL);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ::close(fds[0]);

  auto r = OpenReader(dir.path());
  ASSERT_TRUE(r);
  StatusOr<std::vector<int64_t>> steps = r->Steps();
  ASSERT_TRUE(steps.ok());
  ASSERT_GE(steps->size(), 9u) << "steps 0..8 were flushed before the kill";
  for (size_t i = 0; i < steps->size(); ++i) {
    EXPECT_EQ((*steps)[i], static_cast<int64_t>(i));
    StatusOr<std::vector<TensorRecord>> at = r->Records(RecordFilter::AtStep((*steps)[i]));
    ASSERT_TRUE(at.ok()) << at.status().message();
    EXPECT_EQ(at->size(), static_cast<size_t>(kPerStep)) << "step " << (*steps)[i] << " is partial";
  }
  EXPECT_EQ(r->Info()->last_step, steps->back());
}

// --- errors --------------------------------------------------------------------

std::string OpenError(const std::string& path) {
  StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(path);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(RunDbErrorTest, MissingFile) {
  TempDir dir;
  const std::string msg = OpenError(dir / "nope/run.db");
  EXPECT_THAT(msg, HasSubstr(dir / "nope/run.db"));
  EXPECT_THAT(msg, HasSubstr("no such file"));
}

TEST(RunDbErrorTest, DirectoryWithoutRunDb) {
  TempDir dir;
  const std::string msg = OpenError(dir.path());
  EXPECT_THAT(msg, HasSubstr("without run.db"));
}

TEST(RunDbErrorTest, GarbageFile) {
  TempDir dir;
  WriteFile(dir / "run.db", std::string(4096, 'x') + "this is not SQLite");
  const std::string msg = OpenError(dir.path());
  EXPECT_THAT(msg, HasSubstr(dir / "run.db"));
  EXPECT_THAT(msg, HasSubstr("not an lpsim run database"));
  EXPECT_THAT(msg, HasSubstr("not an SQLite file, or it is corrupt"));
}

TEST(RunDbErrorTest, EmptyFile) {
  TempDir dir;
  WriteFile(dir / "run.db", "");
  EXPECT_THAT(OpenError(dir / "run.db"), HasSubstr("is empty"));
}

TEST(RunDbErrorTest, OtherSqliteDatabase) {
  TempDir dir;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "run.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_THAT(OpenError(dir.path()), HasSubstr("an SQLite database but not an lpsim run database"));
}

TEST(RunDbErrorTest, WrongSchemaVersion) {
  TempDir dir;
  ASSERT_TRUE(OpenWriter(dir.path())->Close(Status()).ok());
  for (int version : {kRunDbSchemaVersion + 1, 0}) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir / "run.db").c_str(), &db), SQLITE_OK);
    const std::string sql = "PRAGMA user_version = " + std::to_string(version);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    const std::string msg = OpenError(dir.path());
    EXPECT_THAT(msg, HasSubstr("schema version " + std::to_string(version)));
    EXPECT_THAT(msg, HasSubstr(version > kRunDbSchemaVersion ? "use a newer lpsim"
                                                             : "the lpsim that wrote it"));
  }
}

// The samples blob's layout (docs/store.md): rows and positions as int64, then
// each quantile list as a uint8 length and float32 values, little-endian.
TEST(RunDbTest, StoresSampleSummariesInTheDocumentedLayout) {
  TempDir dir;
  TensorRecord r = MakeRecord(0, "fc1", Role::kActivation);
  SampleSummary& m = *r.samples;
  m.rows = 2;
  m.positions = 258;
  m.row_log2_rms.assign(SampleSummary::kQuantiles + 1, 1.0f);  // 0x3f800000
  m.row_log2_offset.assign(SampleSummary::kQuantiles + 1, -2.0f);  // 0xc0000000
  m.position_log2_rms.clear();
  m.position_log2_offset.clear();
  {
    auto w = OpenWriter(dir.path());
    ASSERT_TRUE(w->Add(r).ok());
    ASSERT_TRUE(w->Close(Status()).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((dir / "run.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT samples FROM stats", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(st, 0));
  const std::vector<unsigned char> got(p, p + sqlite3_column_bytes(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  std::vector<unsigned char> want = {2, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 33};
  for (int k = 0; k < 33; ++k) want.insert(want.end(), {0x00, 0x00, 0x80, 0x3f});
  want.push_back(33);
  for (int k = 0; k < 33; ++k) want.insert(want.end(), {0x00, 0x00, 0x00, 0xc0});
  want.insert(want.end(), {0, 0});
  EXPECT_EQ(got, want);
}

// Version 1 databases (no stats.samples) are still read: the same records,
// without sample summaries.
TEST(RunDbTest, ReadsVersionOneDatabasesWithoutSampleSummaries) {
  TempDir dir;
  std::vector<TensorRecord> written;
  {
    auto w = OpenWriter(dir.path());
    WriteStep(*w, 0, &written);
    WriteStep(*w, 1, &written);
    ASSERT_TRUE(w->Close(Status()).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "run.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE stats DROP COLUMN samples; PRAGMA user_version = 1", nullptr, nullptr,
                         nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  auto r = OpenReader(dir.path());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->Info()->schema_version, 1);
  StatusOr<std::vector<TensorRecord>> recs = r->Records();
  ASSERT_TRUE(recs.ok()) << recs.status().message();
  ASSERT_EQ(recs->size(), written.size());
  int had_samples = 0;
  for (size_t i = 0; i < written.size(); ++i) {
    had_samples += written[i].samples.has_value();
    written[i].samples.reset();
    ExpectRecordEqual(written[i], (*recs)[i]);
  }
  EXPECT_EQ(had_samples, 2) << "the written run held sample summaries to drop";
}

TEST(RunDbErrorTest, CorruptHistogramBlob) {
  TempDir dir;
  {
    auto w = OpenWriter(dir.path());
    WriteStep(*w, 0);
    ASSERT_TRUE(w->Close(Status()).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "run.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "UPDATE stats SET exponent_hist = X'0102030405'", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  auto r = OpenReader(dir.path());
  StatusOr<std::vector<TensorRecord>> recs = r->Records();
  ASSERT_FALSE(recs.ok());
  EXPECT_THAT(recs.status().message(), HasSubstr("exponent_hist"));
  EXPECT_THAT(recs.status().message(), HasSubstr("table stats, row 1"));
  EXPECT_THAT(recs.status().message(), HasSubstr("is corrupt"));
}

TEST(RunDbErrorTest, ExistingRunIsRefusedUnlessOverwrite) {
  TempDir dir;
  {
    auto w = OpenWriter(dir.path());
    WriteStep(*w, 0);
    ASSERT_TRUE(w->Close(Status()).ok());
  }
  StatusOr<std::unique_ptr<RunWriter>> again = RunWriter::Open(dir.path(), "second", "{}");
  ASSERT_FALSE(again.ok());
  const std::string msg = again.status().message();
  EXPECT_THAT(msg, HasSubstr(dir / "run.db"));
  EXPECT_THAT(msg, HasSubstr("run 'test-run', finished"));
  EXPECT_THAT(msg, HasSubstr("new run directory"));
  EXPECT_THAT(msg, HasSubstr("--overwrite"));
  EXPECT_EQ(OpenReader(dir.path())->Records()->size(), kTensors.size()) << "left untouched";

  RunWriterOptions opt;
  opt.overwrite = true;
  StatusOr<std::unique_ptr<RunWriter>> over = RunWriter::Open(dir.path(), "second", "{}", opt);
  ASSERT_TRUE(over.ok()) << over.status().message();
  ASSERT_TRUE((*over)->Close(Status()).ok());
  auto r = OpenReader(dir.path());
  EXPECT_EQ(r->Info()->name, "second");
  EXPECT_TRUE(r->Records()->empty());
}

TEST(RunDbErrorTest, RunningRunIsRefusedEvenWithOverwrite) {
  TempDir dir;
  auto w = OpenWriter(dir.path());
  WriteStep(*w, 0);
  ASSERT_TRUE(w->Flush().ok());
  StatusOr<std::unique_ptr<RunWriter>> again = RunWriter::Open(dir.path(), "second", "{}");
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(),
              HasSubstr("run directory " + dir.path() + " is in use by process " + std::to_string(::getpid())));
  // Overwriting would remove the database and its journals under the
  // writer: refused too, and the run goes on unharmed.
  RunWriterOptions opt;
  opt.overwrite = true;
  StatusOr<std::unique_ptr<RunWriter>> over = RunWriter::Open(dir.path(), "second", "{}", opt);
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(over.status().message(), HasSubstr("is in use by process"));
  WriteStep(*w, 1);
  ASSERT_TRUE(w->Close(Status()).ok());
  auto r = OpenReader(dir.path());
  EXPECT_EQ(r->Info()->name, "test-run");
  EXPECT_EQ(r->Records()->size(), 2 * kTensors.size());
  // Closed, the run may be replaced.
  StatusOr<std::unique_ptr<RunWriter>> after = RunWriter::Open(dir.path(), "second", "{}", opt);
  ASSERT_TRUE(after.ok()) << after.status().message();
  ASSERT_TRUE((*after)->Close(Status()).ok());
}

TEST(RunDbErrorTest, CrashedRunIsNamedAsSuch) {
  TempDir dir;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto w = RunWriter::Open(dir.path(), "crashed", "{}");
    ::_exit(w.ok() ? 0 : 1);  // no Close: as a crash leaves it
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  StatusOr<std::unique_ptr<RunWriter>> again = RunWriter::Open(dir.path(), "second", "{}");
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("not finished: it crashed or was killed (no process writes it)"));
}

TEST(RunDbErrorTest, GarbageRunDbIsRefused) {
  TempDir dir;
  WriteFile(dir / "run.db", "garbage");
  StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(dir.path(), "x", "{}");
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr("an unreadable file"));
}

TEST(RunDbErrorTest, BadConfigAndUncreatableDirectory) {
  TempDir dir;
  StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(dir / "a", "x", "{not json");
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr("not valid JSON"));
  EXPECT_FALSE(fs::exists(dir / "a/run.db"));

  WriteFile(dir / "file", "x");
  w = RunWriter::Open(dir / "file/run", "x", "{}");
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr("cannot create run directory " + (dir / "file/run")));
}

}  // namespace
}  // namespace lpsim
