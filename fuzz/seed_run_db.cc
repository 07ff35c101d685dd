// Writes the seed corpus of the run database fuzzer (fuzz/corpus/run_db/):
// a small real run made with RunWriter, and copies of it broken the ways
// issue 14 lists (text in numeric columns, stats rows of missing tensors,
// negative counts, a wrong blob, a foreign schema version). Each file is
// re-packed with 512-byte pages and a rollback journal, so the seeds stay a
// few KiB and never leave -wal files.
//
//   lpsim_fuzz_seed_run_db fuzz/corpus/run_db
#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "store/run_db.h"

namespace fs = std::filesystem;
using namespace lpsim;

namespace {

bool Exec(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  bool ok = sqlite3_open(db.c_str(), &h) == SQLITE_OK;
  char* err = nullptr;
  if (ok && sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "%s: %s: %s\n", db.c_str(), sql.c_str(), err ? err : "?");
    sqlite3_free(err);
    ok = false;
  }
  sqlite3_close(h);
  return ok;
}

TensorRecord Rec(int64_t step, const std::string& name, Role role, float scale) {
  TensorRecord r;
  r.step = step;
  r.name = name;
  r.role = role;
  r.shape = {2, 3};
  r.module_type = role == Role::kActivation ? "ReLU" : "Linear";
  TensorStats& s = r.stats;
  s.count = 6;
  s.zeros = role == Role::kActivation ? 2 : 0;
  s.mean = 0.1 * scale;
  s.std = scale;
  s.rms = scale;
  s.min = -scale;
  s.max = scale;
  s.min_abs = 0.01 * scale;
  s.max_abs = scale;
  s.exponent_hist[TensorStats::kExponentBins / 2] = 4;
  s.exponent_hist[TensorStats::kExponentBins / 2 + 1] = 6 - s.zeros - 4;
  s.log_hist[127 << TensorStats::kLogMantissaBits] = 6 - s.zeros;
  CastCounts c;
  c.numel = 6;
  c.zero_in = s.zeros;
  c.underflow = 1;
  c.sq_signal = 6 * scale * scale;
  c.sq_error = 0.01 * c.sq_signal;
  r.formats.push_back({"e4m3fn", "none", 1.0f, c});
  r.formats.push_back({"e5m2", "delayed16", 2.0f, c});
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const fs::path out = argv[1];
  const fs::path work = fs::temp_directory_path() / ("lpsim_seed_run_db." + std::to_string(::getpid()));
  fs::remove_all(work);
  {
    StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(work.string(), "seed", R"({"lr": 0.001})");
    if (!w.ok()) {
      std::fprintf(stderr, "%s\n", w.status().message().c_str());
      return 1;
    }
    RunWriter& run = **w;
    for (int64_t step = 0; step < 2; ++step) {
      (void)run.Add(Rec(step, "fc1.weight", Role::kWeight, 0.1f));
      (void)run.Add(Rec(step, "relu1", Role::kActivation, 2.0f));
      (void)run.Add(ScalarRecord{step, "loss", 2.0 - static_cast<double>(step)});
      (void)run.Add(ScalarRecord{step, "lr", NAN});
      (void)run.EndStep(step);
    }
    Finding f;
    f.rule = "lp_underflow";
    f.step = 1;
    f.tensor = "fc1.weight";
    f.message = "16.7% of the nonzero values flush to zero";
    f.evidence = {{"share", 0.167}};
    (void)run.Add(f);
    (void)run.AddCapture(1, "captures/step_1", "non-finite gradient in fc1.weight");
    Status s = run.Close(Status());
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 1;
    }
  }
  const std::string base = (work / kRunDbFileName).string();
  if (!Exec(base, "PRAGMA journal_mode = DELETE; PRAGMA page_size = 512; VACUUM;")) return 1;
  fs::create_directories(out);
  const std::vector<std::pair<std::string, std::string>> variants = {
      {"ok.db", ""},
      {"text_in_numeric.db", "UPDATE stats SET count = 'many' WHERE id = 1;"
                             "UPDATE format_stats SET numel = 'x' WHERE id = 2;"},
      {"missing_tensor.db", "PRAGMA foreign_keys = OFF; UPDATE stats SET tensor_id = 99 WHERE id = 3;"},
      {"negative_counts.db", "UPDATE stats SET nans = -5 WHERE id = 1;"
                             "UPDATE format_stats SET underflow = -1;"},
      {"bad_blob.db", "UPDATE stats SET exponent_hist = x'0102030405' WHERE id = 2;"},
      {"bad_role.db", "UPDATE tensors SET role = 'bogus', shape = '[2,' WHERE id = 1;"},
      {"null_text.db", "PRAGMA ignore_check_constraints = ON; UPDATE runs SET status = 7, config_json = '{';"},
      {"schema_v2.db", "PRAGMA user_version = 2;"},
  };
  for (const auto& [name, sql] : variants) {
    const std::string dst = (out / name).string();
    fs::copy_file(base, dst, fs::copy_options::overwrite_existing);
    if (!sql.empty() && !Exec(dst, sql + "VACUUM;")) return 1;
  }
  fs::remove_all(work);
  return 0;
}
