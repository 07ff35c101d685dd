// `lpsim bench [--big] [--sizes LIST] [--best-target] [--filter RE] [--json]`:
// runs the kernel benchmark suite (build/bin/lpsim_bench, beside this binary)
// and prints GB/s per kernel, target, thread count and size, with the ratios
// to read bandwidth, memcpy, the naive LibTorch analysis and the scalar
// reference measured in the same run (benchmarks/report.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
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
};

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int RunBench(const BenchArgs& a) {
  auto fail = [](const std::string& m, int code) {
    std::cerr << "lpsim bench: error: " << m << "\n";
    return code;
  };
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path suite = self.parent_path() / "lpsim_bench";
  if (ec || !fs::exists(suite)) {
    return fail("the benchmark suite " + suite.string() +
                    " is missing: build it (cmake --build build --target lpsim_bench)",
                kExitFailure);
  }
  const fs::path out = fs::temp_directory_path() / ("lpsim_bench_" + std::to_string(::getpid()) + ".json");
  std::string cmd = Quote(suite.string()) + " --benchmark_format=json --benchmark_out_format=json" +
                    " --benchmark_out=" + Quote(out.string());
  if (a.big) cmd += " --lpsim_big";
  if (a.best_target) cmd += " --lpsim_best_target";
  if (!a.sizes.empty()) cmd += " --lpsim_sizes=" + Quote(a.sizes);
  if (!a.filter.empty()) cmd += " --benchmark_filter=" + Quote(a.filter);
  if (a.min_time > 0) cmd += " --benchmark_min_time=" + std::to_string(a.min_time);
  cmd += " >/dev/null";  // progress and errors of the suite still reach stderr
  const int rc = std::system(cmd.c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(out, ec);
  if (rc != 0) return fail("the benchmark suite failed (exit status " + std::to_string(rc) + ")", kExitFailure);
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
  cmd->add_option("--sizes", args->sizes, "comma-separated sizes, e.g. 16K,4M,256M");
  cmd->add_option("--filter", args->filter, "regex on benchmark names (Google Benchmark)");
  cmd->add_option("--min-time", args->min_time, "seconds per benchmark");
  cmd->add_flag("--json", args->json, "print the rows as JSON");
  cmd->callback([selected, args] { *selected = [args] { return RunBench(*args); }; });
}

}  // namespace lpsim::cli
