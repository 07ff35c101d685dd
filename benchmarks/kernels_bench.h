// Registration of the kernel benchmark suite (Google Benchmark), so the
// binary's main can choose sizes and targets from its own flags first.
//
//   bench::SuiteOptions opt;  opt.sizes = {16 << 10, 256 << 20};
//   bench::RegisterKernelBenchmarks(opt);
//   benchmark::RunSpecifiedBenchmarks();
#ifndef LPSIM_BENCHMARKS_KERNELS_BENCH_H_
#define LPSIM_BENCHMARKS_KERNELS_BENCH_H_

#include <cstddef>
#include <vector>

namespace lpsim {
namespace bench {

struct SuiteOptions {
  std::vector<size_t> sizes;      // input bytes (fp32), each a multiple of 4 KiB
  bool all_targets = true;        // else only the best SIMD target
  size_t max_reference_bytes = ~size_t{0};  // scalar-reference rows up to this size
};

void RegisterKernelBenchmarks(const SuiteOptions& opt);

}  // namespace bench
}  // namespace lpsim

#endif  // LPSIM_BENCHMARKS_KERNELS_BENCH_H_
