// lpsim_mmu_bench: GEMM throughput of every matrix-multiply unit (mmu/) in
// multiply-accumulates per second, with Eigen's fp32 GEMM of the same shape
// in the same run as the baseline (items_per_second = MAC/s).
//
//   lpsim_mmu_bench                                # M=64, N=256, K=1024, 1 thread
//   lpsim_mmu_bench --benchmark_filter='h100|eigen' --benchmark_format=json
//
// Names: mmu/<unit>/<input>/t<threads>, eigen_fp32/t1. One-thread rows and
// Eigen's are per CPU second (fair on a shared machine), t2 rows per wall
// second. Inputs are random
// N(0, 1) values rounded into the input format outside the timed loop (the
// rounding inside Gemm then finds nothing to change, but still runs: it is
// part of what a caller pays).
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <random>
#include <string>
#include <vector>

#include "mmu/gemm.h"
#include "mmu/unit.h"
#include "simd/quantize.h"

namespace lpsim {
namespace {

constexpr size_t kM = 64, kN = 256, kK = 1024;

std::vector<float> Random(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = g(rng);
  return x;
}

void BM_Unit(benchmark::State& state, std::string unit, std::string in, int threads) {
  StatusOr<mmu::GemmConfig> cfg = mmu::MakeGemmConfig(unit, in, in, "");
  if (!cfg.ok()) {
    state.SkipWithError(cfg.status().message().c_str());
    return;
  }
  // exact runs on Boost multiprecision: a smaller K keeps the run short.
  const size_t k = unit == "exact" ? 64 : kK;
  std::vector<float> a = Random(kM * k, 1), b = Random(k * kN, 2), d(kM * kN);
  simd::Quantize(cfg->formats.a, a.data(), a.size(), {}, a.data(), nullptr);
  simd::Quantize(cfg->formats.b, b.data(), b.size(), {}, b.data(), nullptr);
  for (auto _ : state) {
    mmu::Gemm(*cfg, kM, kN, k, a.data(), b.data(), nullptr, d.data(), nullptr, threads);
    benchmark::DoNotOptimize(d.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kM * kN * k));
  state.counters["kernel"] = mmu::UsesKernel(*cfg) ? 1 : 0;
}

void BM_EigenFp32(benchmark::State& state) {
  using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<float> a = Random(kM * kK, 1), b = Random(kK * kN, 2), d(kM * kN);
  Eigen::Map<const M> am(a.data(), kM, kK), bm(b.data(), kK, kN);
  Eigen::Map<M> dm(d.data(), kM, kN);
  Eigen::setNbThreads(1);
  for (auto _ : state) {
    dm.noalias() = am * bm;
    benchmark::DoNotOptimize(d.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kM * kN * kK));
}

void Register() {
  benchmark::RegisterBenchmark("eigen_fp32/t1", BM_EigenFp32)->Unit(benchmark::kMillisecond);
  for (const mmu::Unit& u : mmu::Units()) {
    for (const mmu::UnitMode& m : u.modes) {
      // One input per mode: the first (fp8 e4m3fn where the unit takes it).
      const std::string in = m.inputs.front();
      for (int threads : {1, 2}) {
        if (threads > 1 && u.kind == mmu::UnitKind::kExact) continue;
        auto* b = benchmark::RegisterBenchmark(
            ("mmu/" + u.name + "/" + in + "/t" + std::to_string(threads)).c_str(),
            [name = u.name, in, threads](benchmark::State& s) { BM_Unit(s, name, in, threads); });
        b->Unit(benchmark::kMillisecond);
        // One thread: CPU time, as Eigen's row (the machine may be shared);
        // two: wall time, since the second thread's CPU time is not counted.
        if (threads > 1) b->UseRealTime();
      }
    }
  }
}

}  // namespace
}  // namespace lpsim

int main(int argc, char** argv) {
  lpsim::Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
