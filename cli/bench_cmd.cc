// `lpsim bench [--big] [--sizes LIST] [--best-target] [--filter RE] [--json]`:
// runs the kernel benchmark suite (build/bin/lpsim_bench, beside this binary)
// and prints GB/s per kernel, target, thread count and size, with the ratios
// to read bandwidth, memcpy, the naive LibTorch analysis and the scalar
// reference measured in the same run (benchmarks/report.h).
// `lpsim bench --tracker [--filter RE] [--json]` runs the tracker benchmark
// (lpsim_tracker_bench) instead: ms per training step of each model
// untracked, tracked every step and every 10 steps, and in simulate mode,
// with the ratio to the untracked step of the same run.
#include <regex.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "benchmarks/report.h"
#include "cli/commands.h"

namespace lpsim::cli {
namespace {

namespace fs = std::filesystem;

struct BenchArgs {
  bool big = false;
  bool best_target = false;
  std::string sizes;
  std::string filter;
  double min_time = 0;
  bool json = false;
  bool tracker = false;
  bool sizes_given = false, filter_given = false;  // an empty value is an error, not "all"
};

// Seconds per benchmark: Google Benchmark's default is 0.5; an hour per
// benchmark is already a day for the suite.
constexpr double kMaxMinTime = 3600;
// The suite holds an input and an output buffer of the size, and the
// LibTorch baseline a few temporaries of it.
constexpr uint64_t kBuffersPerSize = 4;

// Memory the kernel could take without swapping: MemAvailable, or the
// physical memory where /proc/meminfo has no such line; 0 if unknown.
uint64_t AvailableMemory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib << 10;
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

std::string GiB(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  return b;
}

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int RunBench(const BenchArgs& a) {
  auto fail = [](const std::string& m, int code) { return PrintError("bench", m, code); };
  // Every flag is checked here, before the suite starts: its own errors
  // would come back only as an exit status.
  if (!(a.min_time >= 0 && a.min_time <= kMaxMinTime)) {
    return fail("--min-time must be a number of seconds in 0.." + std::to_string(static_cast<int>(kMaxMinTime)) +
                    " (0: the suite's default)",
                kExitBadInput);
  }
  if (a.filter_given && a.filter.empty()) {
    return fail("--filter is empty: give a regular expression on benchmark names", kExitBadInput);
  }
  if (a.tracker && (a.big || a.best_target || a.sizes_given)) {
    return fail("--tracker runs the training-loop benchmark, which has no sizes or SIMD targets: "
                "leave out --big, --best-target and --sizes",
                kExitBadInput);
  }
  if (a.sizes_given) {
    StatusOr<std::vector<uint64_t>> sizes = bench::ParseSizeList(a.sizes);
    if (!sizes.ok()) return fail("--sizes: " + sizes.status().message(), kExitBadInput);
    const uint64_t avail = AvailableMemory();
    for (uint64_t size : *sizes) {
      if (avail > 0 && size > avail / kBuffersPerSize) {
        return fail("--sizes: a benchmark of " + GiB(size) + " needs about " +
                        GiB(size * kBuffersPerSize) + " of memory and " + GiB(avail) +
                        " is available: use smaller sizes",
                    kExitBadInput);
      }
    }
  }
  if (!a.filter.empty()) {
    // Google Benchmark compiles the filter as a POSIX extended regex.
    regex_t re;
    const int rc = ::regcomp(&re, a.filter.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[256];
      ::regerror(rc, &re, why, sizeof why);
      return fail("--filter '" + a.filter + "' is not a valid regular expression: " + why,
                  kExitBadInput);
    }
    ::regfree(&re);
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const std::string suite_name = a.tracker ? "lpsim_tracker_bench" : "lpsim_bench";
  const fs::path suite = self.parent_path() / suite_name;
  if (ec || !fs::exists(suite, ec)) {
    return fail("the benchmark suite " + suite.string() + " is missing: build it (cmake --build build --target " +
                    suite_name + ")",
                kExitFailure);
  }
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) return fail("no folder for temporary files: " + ec.message() + " (check TMPDIR)", kExitFailure);
  const fs::path out = tmp / ("lpsim_bench_" + std::to_string(::getpid()) + ".json");
  std::string cmd = Quote(suite.string()) + " --benchmark_format=json --benchmark_out_format=json" +
                    " --benchmark_out=" + Quote(out.string());
  if (a.big) cmd += " --lpsim_big";
  if (a.best_target) cmd += " --lpsim_best_target";
  if (a.sizes_given) cmd += " --lpsim_sizes=" + Quote(a.sizes);
  if (a.filter_given) cmd += " --benchmark_filter=" + Quote(a.filter);
  if (a.min_time > 0) cmd += " --benchmark_min_time=" + std::to_string(a.min_time);
  cmd += " >/dev/null";  // progress and errors of the suite still reach stderr
  const int status = std::system(cmd.c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(out, ec);
  if (status == -1) return fail(std::string("cannot start the benchmark suite: ") + std::strerror(errno), kExitFailure);
  if (WIFSIGNALED(status)) {
    return fail(std::string("the benchmark suite was killed by signal ") + std::to_string(WTERMSIG(status)) +
                    " (" + ::strsignal(WTERMSIG(status)) + ")",
                kExitFailure);
  }
  if (WEXITSTATUS(status) != 0) {
    return fail("the benchmark suite failed with exit code " + std::to_string(WEXITSTATUS(status)) +
                    " (its message is above)",
                kExitFailure);
  }
  // Google Benchmark writes no report at all when the filter matches nothing.
  const bool none = text.str().find_first_not_of(" \t\r\n") == std::string::npos;
  if (!a.filter.empty() && none) {
    return fail("no benchmark matches --filter '" + a.filter +
                    (a.tracker ? "' (names are BM_TrainStep/<mlp|cnn>/every:<k>, BM_TinyLm/every:<k>, "
                                 "BM_ResNet/every:<k>; k = 0 untracked, -1 simulate)"
                               : "' (names are <kernel>/<target>/t<threads>/<bytes>, e.g. quantize_fp8)"),
                kExitBadInput);
  }
  if (a.tracker) {
    StatusOr<std::vector<bench::TrackerRow>> rows = bench::ParseTrackerReport(text.str());
    if (!rows.ok()) return fail(rows.status().message(), kExitFailure);
    std::cout << (a.json ? bench::TrackerToJson(*rows) + "\n" : bench::FormatTrackerTable(*rows));
    return kExitOk;
  }
  StatusOr<std::vector<bench::Row>> rows = bench::ParseReport(text.str());
  if (!rows.ok()) return fail(rows.status().message(), kExitFailure);
  std::cout << (a.json ? bench::ToJson(*rows) + "\n" : bench::FormatTable(*rows));
  return kExitOk;
}

}  // namespace

void AddBenchCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app->add_subcommand(
      "bench", "Run the SIMD kernel benchmarks against read bandwidth, memcpy and LibTorch");
  cmd->add_flag("--big", args->big, "also 64 MiB and 256 MiB (DRAM-bound) sizes");
  cmd->add_flag("--best-target", args->best_target, "only this CPU's best SIMD target");
  CLI::Option* sizes = cmd->add_option("--sizes", args->sizes, "comma-separated sizes, e.g. 16K,4M,256M");
  CLI::Option* filter =
      cmd->add_option("--filter", args->filter, "regex on benchmark names (Google Benchmark)");
  cmd->add_option("--min-time", args->min_time, "seconds per benchmark (at most 3600)");
  cmd->add_flag("--json", args->json, "print the rows as JSON");
  cmd->add_flag("--tracker", args->tracker,
                "the training-loop benchmark instead: ms per step untracked, tracked every 1 and "
                "10 steps, and simulated, for the demo models, a transformer LM and a ResNet");
  cmd->callback([selected, args, sizes, filter] {
    args->sizes_given = sizes->count() > 0;
    args->filter_given = filter->count() > 0;
    *selected = [args] { return RunBench(*args); };
  });
}

}  // namespace lpsim::cli
