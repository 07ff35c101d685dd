// lpsim_bench: the kernel benchmark suite.
//
//   lpsim_bench                         # 16 KiB, 256 KiB, 4 MiB; every target
//   lpsim_bench --lpsim_big             # ... plus 64 MiB and 256 MiB (DRAM)
//   lpsim_bench --lpsim_sizes=256M --lpsim_best_target --benchmark_format=json
//
// lpsim flags (removed before Google Benchmark parses the rest):
//   --lpsim_sizes=LIST     comma-separated sizes with K/M suffix (binary units)
//   --lpsim_big            add 64M and 256M to the sizes
//   --lpsim_best_target    only the best SIMD target of this CPU
//   --lpsim_ref_max=SIZE   largest size for the (slow) scalar-reference rows
// All Google Benchmark flags work (--benchmark_filter, --benchmark_format=json,
// --benchmark_min_time, ...); benchmarks/report.h turns the JSON into a table.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "benchmarks/kernels_bench.h"
#include "benchmarks/report.h"
#include "simd/targets.h"

int main(int argc, char** argv) {
  lpsim::bench::SuiteOptions opt;
  opt.sizes = {size_t{16} << 10, size_t{256} << 10, size_t{4} << 20};
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lpsim_big") {
      opt.sizes.push_back(size_t{64} << 20);
      opt.sizes.push_back(size_t{256} << 20);
    } else if (a == "--lpsim_best_target") {
      opt.all_targets = false;
    } else if (a.rfind("--lpsim_sizes=", 0) == 0) {
      lpsim::StatusOr<std::vector<uint64_t>> sizes = lpsim::bench::ParseSizeList(a.substr(14));
      if (!sizes.ok()) {
        std::fprintf(stderr, "lpsim_bench: --lpsim_sizes: %s\n", sizes.status().message().c_str());
        return 2;
      }
      opt.sizes.assign(sizes->begin(), sizes->end());
    } else if (a.rfind("--lpsim_ref_max=", 0) == 0) {
      lpsim::StatusOr<std::vector<uint64_t>> max = lpsim::bench::ParseSizeList(a.substr(16));
      if (!max.ok() || max->size() != 1) {
        std::fprintf(stderr, "lpsim_bench: bad --lpsim_ref_max '%s'\n", a.c_str() + 16);
        return 2;
      }
      opt.max_reference_bytes = static_cast<size_t>(max->front());
    } else if (a.rfind("--lpsim_", 0) == 0) {
      std::fprintf(stderr, "lpsim_bench: unknown flag %s (see the top of bench_main.cc)\n",
                   a.c_str());
      return 2;
    } else {
      rest.push_back(argv[i]);
    }
  }
  std::string targets;
  for (int64_t t : lpsim::simd::AvailableTargets()) {
    targets += std::string(targets.empty() ? "" : ",") + lpsim::simd::TargetName(t);
  }
  benchmark::AddCustomContext("lpsim_targets", targets);
  lpsim::bench::RegisterKernelBenchmarks(opt);
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
