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
#include "simd/targets.h"

namespace {

bool ParseSize(const std::string& s, size_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  size_t mult = 1;
  if (*end == 'K' || *end == 'k') mult = size_t{1} << 10, ++end;
  else if (*end == 'M' || *end == 'm') mult = size_t{1} << 20, ++end;
  else if (*end == 'G' || *end == 'g') mult = size_t{1} << 30, ++end;
  if (*end != '\0' || v == 0) return false;
  *out = static_cast<size_t>(v) * mult;
  return *out % 4096 == 0;
}

}  // namespace

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
      opt.sizes.clear();
      std::string list = a.substr(14);
      size_t start = 0;
      while (start <= list.size()) {
        const size_t comma = list.find(',', start);
        const std::string item = list.substr(start, comma - start);
        size_t bytes;
        if (!ParseSize(item, &bytes)) {
          std::fprintf(stderr, "lpsim_bench: bad size '%s' (use e.g. 16K,4M,256M: multiples of 4K)\n",
                       item.c_str());
          return 2;
        }
        opt.sizes.push_back(bytes);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (a.rfind("--lpsim_ref_max=", 0) == 0) {
      if (!ParseSize(a.substr(16), &opt.max_reference_bytes)) {
        std::fprintf(stderr, "lpsim_bench: bad --lpsim_ref_max '%s'\n", a.c_str() + 16);
        return 2;
      }
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
