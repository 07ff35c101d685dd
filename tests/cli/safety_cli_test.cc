// "Nothing lost, nothing silently wrong" (issue 14), end to end on the real
// `lpsim` binary: an output is never an input or a run's own file, devices
// are written in place, a corrupt run is refused by every reader, every flag
// is range-checked up front, and every error is one escaped line with exit 2
// (bad input) or 1 (the machine failed). Inputs are compared byte for byte
// after each refused command.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "store/npy.h"
#include "store/run_db.h"
#include "tests/common/binary_test.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class SafetyCliTest : public BinaryTest {
 protected:
  // A finished run with two steps of one tensor, in DIR/run.
  std::string WriteRun(const std::string& tensor = "fc1") const {
    const std::string run = Path("run");
    auto w = RunWriter::Open(run, "safety", "{}");
    EXPECT_TRUE(w.ok()) << w.status().message();
    for (int64_t s = 0; s < 2; ++s) {
      TensorRecord r;
      r.step = s;
      r.name = tensor;
      r.role = Role::kActivation;
      r.shape = {4};
      r.dtype = "float32";
      r.stats.count = 4;
      r.stats.max_abs = 2.0f;
      r.stats.min_abs = 0.5f;
      EXPECT_TRUE((*w)->Add(r).ok());
      EXPECT_TRUE((*w)->Add(ScalarRecord{s, "loss", 1.0}).ok());
      EXPECT_TRUE((*w)->EndStep(s).ok());
    }
    EXPECT_TRUE((*w)->Close(Status()).ok());
    return run;
  }

  // A refused command: `code`, one line on stderr starting with the
  // command's prefix and saying `says`, nothing written to stdout.
  void ExpectRefused(const std::string& args, int code, const std::string& prefix,
                     const std::string& says) const {
    SCOPED_TRACE(args);
    const BinaryResult r = Run(args);
    ExpectOneErrorLine(r, code, prefix, says);
    EXPECT_EQ(r.out, "");
  }

  // The names in DIR (or a folder in it), for "nothing was left behind".
  std::vector<std::string> Names(const std::string& sub = "") const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(sub.empty() ? dir_ : dir_ / sub)) {
      names.push_back(e.path().filename());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

void Exec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// ---- Outputs that are inputs.

TEST_F(SafetyCliTest, AnOutputIsNeverAnInput) {
  WriteArray("x.npy", {1.0f, 2.0f, 1000.0f});
  const std::string before = ReadFile(Path("x.npy"));
  fs::create_symlink(Path("x.npy"), Path("link.npy"));
  fs::create_hard_link(Path("x.npy"), Path("hard.npy"));
  const std::string x = Path("x.npy");
  ExpectRefused("quantize --format e4m3fn " + x + " " + x, 2, "quantize",
                "writing it would destroy the input");
  ExpectRefused("quantize --format e4m3fn " + x + " " + Path("link.npy"), 2, "quantize",
                "is the input");
  ExpectRefused("quantize --format e4m3fn " + x + " " + Path("hard.npy"), 2, "quantize",
                "is the input");
  ExpectRefused("quantize --format e4m3fn " + x + " " + dir_.string() + "/./x.npy", 2, "quantize",
                "is the input");
  ExpectRefused("quantize --target int8-npu --role weight " + x + " " + x, 2, "quantize",
                "is the input");
  ExpectRefused("analyze " + x + " --report " + x, 2, "analyze", "--report");
  fs::create_directories(Path("d"));
  WriteArray("d/a.npy", {1.0f, 2.0f});
  const std::string a_before = ReadFile(Path("d/a.npy"));
  ExpectRefused("analyze " + Path("d") + " --report " + Path("d/a.npy"), 2, "analyze",
                "is the input");
  ExpectRefused("gemm --unit exact " + x + " " + x + " " + x, 2, "gemm", "is the input");
  EXPECT_EQ(ReadFile(x), before);
  EXPECT_EQ(ReadFile(Path("d/a.npy")), a_before);
  // A directory as the output.
  ExpectRefused("quantize --format e4m3fn " + x + " " + Path("d"), 2, "quantize",
                "is a directory");
  EXPECT_THAT(Names(), ::testing::ElementsAre("d", "hard.npy", "link.npy", "x.npy"));
  EXPECT_THAT(Names("d"), ::testing::ElementsAre("a.npy"));
}

TEST_F(SafetyCliTest, ARunsOwnFilesAreNeverAnOutput) {
  const std::string run = WriteRun();
  const std::string db = run + "/run.db";
  const std::string before = ReadFile(db);
  ExpectRefused("export " + run + " --format csv " + db, 2, "export", "must not replace");
  ExpectRefused("export " + db + " --format json " + db, 2, "export", "must not replace");
  ExpectRefused("export " + run + " " + db + "-wal", 2, "export", "must not replace");
  ExpectRefused("report " + run + " -o " + db, 2, "report", "must not replace");
  ExpectRefused("report " + db + " -o " + run + "/../run/run.db", 2, "report", "must not replace");
  ExpectRefused("report " + run + " -o " + run, 2, "report", "is a directory");
  EXPECT_EQ(ReadFile(db), before);
  // Readers leave no journals behind, refused or not.
  ASSERT_EQ(Run("export " + run + " --format csv " + Path("out.csv")).code, 0);
  ASSERT_EQ(Run("report " + run).code, 0);
  EXPECT_EQ(ReadFile(db), before);
  EXPECT_THAT(Names("run"), ::testing::ElementsAre("report.html", "run.db"));
}

// ---- Devices, pipes and stdout: written in place, errors reported.

TEST_F(SafetyCliTest, DevicesAreWrittenInPlaceAndTheirErrorsReported) {
  if (!fs::is_character_file("/dev/full")) GTEST_SKIP() << "no /dev/full";
  WriteArray("x.npy", {1.0f, 2.0f});
  const std::string run = WriteRun();
  ExpectRefused("quantize --format e4m3fn " + Path("x.npy") + " /dev/full", 1, "quantize",
                "No space left on device");
  ExpectRefused("export " + run + " --format csv /dev/full", 1, "export",
                "No space left on device");
  ExpectRefused("report " + run + " -o /dev/full", 1, "report", "No space left on device");
  EXPECT_TRUE(fs::is_character_file("/dev/full")) << "the device is still a device";
  // /dev/null takes everything: success, and still a device.
  EXPECT_EQ(Run("quantize --format e4m3fn " + Path("x.npy") + " /dev/null").code, 0);
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(SafetyCliTest, DashIsStandardOutput) {
  const std::string run = WriteRun();
  BinaryResult r = Run("report " + run + " -o -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(r.out, Not(HasSubstr("Report written to")));
  r = Run("export " + run + " --format csv -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("fc1"));
  // Into a pipe (a FIFO is written in place like a device).
  const std::string cmd = std::string("'") + LPSIM_BIN + "' export " + run + " --format csv - | cat > '" +
                          Path("piped.csv") + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(ReadFile(Path("piped.csv")), r.out);
  EXPECT_FALSE(fs::exists("-"));
  EXPECT_FALSE(fs::exists(run + "/-"));
  // An array to stdout is the file's bytes alone; the summary goes to stderr.
  WriteArray("x.npy", {1.0f, 3.0f, 500.0f, -2.0f});
  ASSERT_TRUE(WriteNpy(Path("m.npy"), {2, 2}, std::vector<float>{1, 2, 3, 4}.data()).ok());
  for (const std::string& args : {std::string("quantize --format e4m3fn ") + Path("x.npy"),
                                  "gemm --unit h100 " + Path("m.npy") + " " + Path("m.npy")}) {
    SCOPED_TRACE(args);
    ASSERT_EQ(Run(args + " " + Path("file.npy")).code, 0);
    r = Run(args + " -");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, ReadFile(Path("file.npy")));
    EXPECT_THAT(r.err, HasSubstr("-> -"));
  }
}

TEST_F(SafetyCliTest, ReportIntoAMissingDirectorySaysWhy) {
  const std::string run = WriteRun();
  ExpectRefused("report " + run + " -o " + Path("no/such/dir/r.html"), 2, "report",
                "its folder " + Path("no/such/dir") + " cannot be used (No such file or directory)");
  ExpectRefused("report " + run + " -o " + Path("run"), 2, "report", "is a directory");
  EXPECT_THAT(Names(), ::testing::ElementsAre("run"));
}

// ---- A corrupt run: every reader refuses it with exit 2, and reads it
// without changing it.

TEST_F(SafetyCliTest, EveryReaderRefusesACorruptRun) {
  const std::string run = WriteRun();
  const std::string db = run + "/run.db";
  Exec(db, "UPDATE stats SET count = 'many' WHERE step = 1");
  const std::string before = ReadFile(db);
  for (const std::string& args :
       {"export " + run + " --format csv " + Path("o.csv"), "export " + run + " --format json -",
        "export " + run + " " + Path("o.tandv"), "report " + run + " -o " + Path("r.html"),
        "check " + run, "recommend " + run, "recommend " + run + " --targets int8-npu"}) {
    SCOPED_TRACE(args);
    const BinaryResult r = Run(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("stats"));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "") << "never partly shown";
  }
  EXPECT_EQ(ReadFile(db), before);
  EXPECT_THAT(Names(), ::testing::ElementsAre("run"));
  EXPECT_THAT(Names("run"), ::testing::ElementsAre("run.db"));
}

// ---- Specs, names and arrays.

TEST_F(SafetyCliTest, ConflictingSpecOptionsAreRefused) {
  WriteArray("x.npy", {1.0f});
  const std::string io = " " + Path("x.npy") + " " + Path("o.npy");
  ExpectRefused("quantize --format e4m3:sat:nosat" + io, 2, "quantize",
                "'nosat' conflicts with 'sat' given before");
  ExpectRefused("quantize --format e4m3:bias=7:bias=9" + io, 2, "quantize",
                "'bias=9' conflicts with 'bias=7'");
  ExpectRefused("formats --format e5m2:ftz:ftz", 2, "formats", "'ftz' is given twice");
  ExpectRefused("analyze " + Path("x.npy") + " --formats e4m3:nan=fn:nan=fnuz", 2, "analyze",
                "conflicts");
  EXPECT_FALSE(fs::exists(Path("o.npy")));
}

TEST_F(SafetyCliTest, ControlCharactersAreEscapedInMessages) {
  WriteArray("x.npy", {1.0f});
  // printf in the shell makes the bytes: ESC [ 2 J clears a terminal.
  BinaryResult r = Run("quantize --format \"$(printf 'e4m3\\033[2J')\" " + Path("x.npy") + " " +
                    Path("o.npy"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_THAT(r.err, HasSubstr("e4m3\\x1b[2J"));
  // A file name with a newline and a bell in it: still one line.
  r = Run("quantize --format e4m3fn \"" + dir_.string() + "/$(printf 'a\\nb\\007.npy')\" " +
          Path("o.npy"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("a\\nb\\x07.npy"));
  EXPECT_EQ(r.err.find('\a'), std::string::npos);
}

// Names stored in a run (a user's module names) are shown escaped too.
TEST_F(SafetyCliTest, NamesFromARunAreEscaped) {
  const std::string run = WriteRun("fc\x1b[2J\n");
  for (const char* cmd : {"recommend", "check"}) {
    SCOPED_TRACE(cmd);
    const BinaryResult r = Run(std::string(cmd) + " " + run);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  }
  EXPECT_THAT(Run("recommend " + run).out, HasSubstr("fc\\x1b[2J\\n"));
}

// numpy itself stops at 32 dimensions (NPY_MAXDIMS before numpy 2).
std::string NpyWithShape(size_t dims) {
  std::string shape = "(";
  for (size_t i = 0; i < dims; ++i) shape += "1,";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string s("\x93NUMPY\x01\x00", 8);
  s += static_cast<char>(header.size() & 0xff);
  s += static_cast<char>(header.size() >> 8);
  return s + header + std::string(4, '\0');
}

TEST_F(SafetyCliTest, TooManyDimensionsAreRefused) {
  WriteFile("d32.npy", NpyWithShape(32));
  EXPECT_EQ(Run("quantize --format e4m3fn " + Path("d32.npy") + " " + Path("o.npy")).code, 0);
  WriteFile("d101.npy", NpyWithShape(101));
  ExpectRefused("quantize --format e4m3fn " + Path("d101.npy") + " " + Path("o2.npy"), 2,
                "quantize", "101 dimensions; lpsim reads at most 32");
  ExpectRefused("analyze " + Path("d101.npy"), 2, "analyze", "101 dimensions");
  EXPECT_FALSE(fs::exists(Path("o2.npy")));
}

// ---- analyze DIR: entries it cannot use are notes, not the end.

TEST_F(SafetyCliTest, AnalyzeDirSkipsLoopsAndIntegerArraysWithANote) {
  fs::create_directories(Path("t"));
  WriteArray("t/a.npy", {1.0f, 0.5f, 1e-3f});
  fs::create_symlink("loop.npy", Path("t/loop.npy"));  // points at itself
  fs::create_symlink("gone.npy", Path("t/dangling.npy"));
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string int_npy("\x93NUMPY\x01\x00", 8);
  int_npy += static_cast<char>(header.size());
  int_npy += '\0';
  int_npy += header + std::string(8, '\0');
  WriteFile("t/ints.npy", int_npy);
  BinaryResult r = Run("analyze " + Path("t"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("loop.npy: skipped: Too many levels of symbolic links"));
  EXPECT_THAT(r.out, HasSubstr("ints.npy: skipped: unsupported dtype '<i4' (int32), not a float array"));
  EXPECT_THAT(r.out, HasSubstr("dangling.npy: skipped"));
  // Named on its own, the integer array is an error, and so is the loop.
  ExpectRefused("analyze " + Path("t/ints.npy"), 2, "analyze", "unsupported dtype '<i4' (int32)");
  ExpectRefused("analyze " + Path("t/loop.npy"), 2, "analyze", "Too many levels of symbolic links");
  // Nothing usable: the notes, then the error.
  fs::create_directories(Path("empty"));
  fs::create_symlink("loop2.npy", Path("empty/loop2.npy"));
  r = Run("analyze " + Path("empty"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith("note: " + Path("empty/loop2.npy") + ": skipped: Too many levels"));
  EXPECT_THAT(r.err, HasSubstr("\nlpsim analyze: error: no .npy, .pt or .pth files in"));
}

// ---- lpsim demo: flags checked before training starts.

TEST_F(SafetyCliTest, DemoFlagsAreRangeChecked) {
  const std::string rd = " --quiet --steps 2 --run-dir " + Path("run");
  for (const char* lr : {"nan", "-1", "inf", "1e38", "0", "11"}) {
    ExpectRefused(std::string("demo --lr ") + lr + rd, 2, "demo", "--lr must be a number in (0, 10]");
  }
  ExpectRefused("demo --lr 1e-3x" + rd, 2, "demo", "--lr '1e-3x' is not a number");
  for (const char* seed : {"-1", "18446744073709551616", "99999999999999999999999", "1e3"}) {
    ExpectRefused(std::string("demo --seed ") + seed + rd, 2, "demo",
                  std::string("--seed '") + seed + "' is not an integer in 0..2^64-1");
  }
  ExpectRefused("demo --batch 100000000" + rd, 2, "demo", "--batch must be in 1..65536");
  ExpectRefused("demo --every 0" + rd, 2, "demo", "--every must be >= 1");
  EXPECT_FALSE(fs::exists(Path("run"))) << "nothing ran";
  // The largest seed is a seed.
  EXPECT_EQ(Run("demo --seed 18446744073709551615" + rd).code, 0);
}

// A demo whose training cannot apply a single step (here: activations
// stored in e2m1 without saturation overflow to Inf at once) fails with
// exit 1, and its run says so instead of "ok".
TEST_F(SafetyCliTest, ADemoWhoseTrainingFailsMarksTheRunFailed) {
  std::string roles;
  for (const char* role : {"activation", "weight", "activation_grad", "weight_grad",
                           "optimizer_state", "master_weights"}) {
    roles += std::string(roles.empty() ? "" : ", ") + "\"" + role + "\": {\"format\": \"" +
             (std::string(role) == "activation" ? "e2m1" : "fp32") +
             "\", \"scaling\": \"none\", \"sources\": {\"format\": \"assumed\", "
             "\"scaling\": \"assumed\"}}";
  }
  WriteFile("overflow.json", "{\"name\": \"overflow\", \"description\": \"d\", \"roles\": {" +
                                 roles + "}}");
  ExpectRefused("demo --simulate --target " + Path("overflow.json") + " --steps 3 --quiet --run-dir " +
                    Path("run"),
                1, "demo", "no step of 3 was applied: every loss or gradient was NaN or Inf");
  StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(Path("run"));
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  StatusOr<RunInfo> info = (*reader)->Info();
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->status, "failed");
  EXPECT_THAT(info->status_message, HasSubstr("no step of 3 was applied"));
}

// ---- lpsim bench: flags checked before the suite starts.

TEST_F(SafetyCliTest, BenchFlagsAreCheckedUpFront) {
  // Each case also names a filter that matches nothing (or a tiny size), so
  // that a check that is missed cannot start the whole suite.
  const std::string none = " --filter zzz_no_such_benchmark";
  ExpectRefused("bench --sizes 1T" + none, 2, "bench", "of memory and");
  ExpectRefused("bench --sizes 16K,12x" + none, 2, "bench", "--sizes: bad size '12x'");
  ExpectRefused("bench --sizes 1000" + none, 2, "bench", "not a multiple of 4K");
  ExpectRefused("bench --sizes 99999999999999999999G" + none, 2, "bench", "bad size");
  ExpectRefused("bench --sizes 2048G" + none, 2, "bench", "over 1T");
  ExpectRefused("bench --sizes ''" + none, 2, "bench", "bad size ''");
  ExpectRefused("bench --min-time 1e308" + none, 2, "bench", "--min-time must be");
  ExpectRefused("bench --min-time -1" + none, 2, "bench", "--min-time must be");
  ExpectRefused("bench --min-time nan" + none, 2, "bench", "--min-time must be");
  ExpectRefused("bench --sizes 4K --filter '('", 2, "bench",
                "--filter '(' is not a valid regular expression");
  ExpectRefused("bench --sizes 4K --filter ''", 2, "bench", "--filter is empty");
  ExpectRefused("bench --tracker --sizes 4K" + none, 2, "bench",
                "--tracker runs the training-loop benchmark");
  // A filter that matches nothing is said so (the suite itself only prints
  // its own line and writes no report).
  if (fs::exists(fs::path(LPSIM_BIN).parent_path() / "lpsim_bench")) {
    const BinaryResult r = Run("bench --sizes 4K" + none);
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("lpsim bench: error: no benchmark matches --filter "
                                 "'zzz_no_such_benchmark'"));
  }
  // The tracker benchmark's rows, with the ratio to the untracked step.
  if (fs::exists(fs::path(LPSIM_BIN).parent_path() / "lpsim_tracker_bench")) {
    const BinaryResult r =
        Run("bench --tracker --json --min-time 0.05 --filter 'BM_TrainStep/mlp/every:(0|10)/'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("\"model\": \"demo_mlp\""));
    EXPECT_THAT(r.out, HasSubstr("\"mode\": \"every 10\""));
    EXPECT_THAT(r.out, HasSubstr("\"vs_untracked\": 1.0\n"));  // the untracked row itself
  }
}

// ---- lpsim replay: an incomplete or unknown capture names what is wrong.

TEST_F(SafetyCliTest, ReplayNamesTheMissingFileOrBadField) {
  const std::string cap = Path("cap");
  fs::create_directories(cap);
  const std::string manifest =
      R"({"lpsim_capture": 1, "step": 3, "model": "mlp", "reason": "r", "loss": null,)"
      R"( "lr": 0.001, "has_batch": true, "update_applied": false, "files": ["manifest.json",)"
      R"( "finding.json", "model.pt", "optimizer.pt", "rng.pt", "inputs.pt", "targets.pt"]})";
  auto write = [&](const std::string& m) { std::ofstream(cap + "/manifest.json") << m; };
  write(manifest);
  for (const char* f : {"finding.json", "model.pt", "optimizer.pt", "rng.pt", "inputs.pt"}) {
    std::ofstream(cap + "/" + f) << "x";
  }
  BinaryResult r = Run("replay " + cap);
  if (r.err.rfind("lpsim replay: ", 0) != 0) {
    GTEST_SKIP() << "this lpsim has no replay (built without LibTorch): " << r.err;
  }
  ExpectRefused("replay " + cap, 2, "replay", "targets.pt is missing, and manifest.json lists it");
  fs::remove(cap + "/rng.pt");
  ExpectRefused("replay " + cap, 2, "replay", "rng.pt is missing");
  std::string bad = manifest;
  bad.replace(bad.find("\"step\": 3"), 9, "\"step\": \"three\"");
  write(bad);
  ExpectRefused("replay " + cap, 2, "replay", "manifest.json: field 'step' must be a whole number");
  bad = manifest;
  bad.replace(bad.find("\"lpsim_capture\": 1"), 18, "\"lpsim_capture\": 7");
  write(bad);
  ExpectRefused("replay " + cap, 2, "replay", "capture manifest version 7 is not supported");
  write("{\"lpsim_capture\": 1, \"files\": [\"../etc/passwd\"]}");
  ExpectRefused("replay " + cap, 2, "replay", "not a file name in the capture folder");
  write("{not json");
  ExpectRefused("replay " + cap, 2, "replay", "not valid JSON");
  // Every file present, but a corrupt tensor: LibTorch's error in one line,
  // naming the file.
  write(manifest);
  for (const char* f : {"rng.pt", "targets.pt"}) std::ofstream(cap + "/" + f) << "x";
  ExpectRefused("replay " + cap, 2, "replay", "inputs.pt");
}

}  // namespace
}  // namespace lpsim
