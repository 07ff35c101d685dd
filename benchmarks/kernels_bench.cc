// The kernel benchmark suite: simd/ kernels per SIMD target and thread
// count, with their baselines in the same run (read bandwidth, memcpy, the
// scalar reference, naive LibTorch ops). Names follow benchmarks/report.h:
// <kernel>/<target>/t<threads>/<bytes>.
#include "benchmarks/kernels_bench.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/bandwidth.h"
#include "benchmarks/torch_baseline.h"
#include "formats/block_fp.h"
#include "formats/format.h"
#include "formats/integer.h"
#include "formats/reference.h"
#include "simd/analyze.h"
#include "simd/block_fp.h"
#include "simd/integer.h"
#include "simd/quantize.h"
#include "simd/scaling.h"
#include "simd/targets.h"

namespace lpsim {
namespace bench {
namespace {

// Gradient-like input: N(0, 2^-10) with 5% exact zeros, fixed seed. One
// buffer of the largest size; smaller sizes use its prefix.
const float* Data(size_t n) {
  static std::vector<float>* data = new std::vector<float>();
  if (data->size() < n) {
    data->resize(n);
    std::mt19937_64 rng(2024);
    std::normal_distribution<float> normal(0.0f, 1.0f / 1024);
    for (float& v : *data) v = rng() % 20 == 0 ? 0.0f : normal(rng);
  }
  return data->data();
}

float* Scratch(size_t n) {
  static std::vector<float>* out = new std::vector<float>();
  if (out->size() < n) out->resize(n);
  return out->data();
}

// Splits [0, n) over `threads` std::threads (the baselines' own threading):
// fn(thread, begin, end).
void ParallelFor(size_t n, int threads, const std::function<void(int, size_t, size_t)>& fn) {
  if (threads <= 1) {
    fn(0, 0, n);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    pool.emplace_back([&, t] { fn(t, n * t / threads, n * (t + 1) / threads); });
  }
  fn(0, 0, n / threads);
  for (std::thread& t : pool) t.join();
}

// The analysis slots of a 1/4/8-format benchmark: the usual candidates, fp8
// and fp4/fp6 with current scaling from the tensor's amax.
std::vector<FormatSlot> BenchSlots(size_t count, float amax) {
  const struct {
    const char* name;
    bool scaled;
    Rounding rounding;
  } kCandidates[] = {
      {"e4m3fn", true, Rounding::kNearestEven}, {"e5m2", true, Rounding::kNearestEven},
      {"e2m1fn", true, Rounding::kStochastic},  {"bf16", false, Rounding::kNearestEven},
      {"e3m2fn", true, Rounding::kNearestEven}, {"e2m3fn", true, Rounding::kNearestEven},
      {"fp16", false, Rounding::kNearestEven},  {"e4m3fnuz", true, Rounding::kStochastic},
  };
  std::vector<FormatSlot> slots;
  for (size_t i = 0; i < count; ++i) {
    FormatSlot s{*ParseFormat(kCandidates[i].name)};
    s.scale = kCandidates[i].scaled ? CurrentScale(s.format, amax) : 1.0f;
    s.rounding = kCandidates[i].rounding;
    s.seed = i;
    slots.push_back(s);
  }
  return slots;
}

float AmaxOf(size_t n) {
  static std::map<size_t, float>* cache = new std::map<size_t, float>();
  auto it = cache->find(n);
  if (it != cache->end()) return it->second;
  const float a = simd::Amax(Data(n), n);
  (*cache)[n] = a;
  return a;
}

// Integer and block floating-point fake quantization of Data(n) as a
// [n / 1024 x 1024] tensor, SIMD or the scalar reference; returns numel.
struct Lattice {
  const char* name;
  std::function<uint64_t(size_t n, int threads, bool simd)> run;
};

const std::vector<Lattice>& Lattices() {
  static const std::vector<Lattice>* kLattices = new std::vector<Lattice>{
      // TFLite activations: int8, asymmetric, per tensor, half away from zero.
      {"int8_tensor",
       [](size_t n, int threads, bool simd) {
         static const IntFormat f = *ParseIntFormat("int8");
         IntQuantizeOptions o;
         o.symmetric = false;
         CastCounts cc;
         if (simd) {
           simd::IntQuantize(f, Data(n), n / 1024, 1024, o, Scratch(n), nullptr, &cc, threads);
         } else {
           IntQuantizeRef(f, Data(n), n / 1024, 1024, o, Scratch(n), nullptr, &cc);
         }
         return cc.numel;
       }},
      // TFLite weights: int8 narrow, symmetric, per output channel (row).
      {"int8_channel",
       [](size_t n, int threads, bool simd) {
         static const IntFormat f = *ParseIntFormat("int8:narrow");
         IntQuantizeOptions o;
         o.per_row = true;
         CastCounts cc;
         if (simd) {
           simd::IntQuantize(f, Data(n), n / 1024, 1024, o, Scratch(n), nullptr, &cc, threads);
         } else {
           IntQuantizeRef(f, Data(n), n / 1024, 1024, o, Scratch(n), nullptr, &cc);
         }
         return cc.numel;
       }},
      {"bfp8",
       [](size_t n, int threads, bool simd) {
         static const BfpFormat f = *ParseBfpFormat("bfp8");
         CastCounts cc;
         if (simd) {
           simd::BfpQuantize(f, Data(n), n / 1024, 1024, {}, Scratch(n), nullptr, &cc, threads);
         } else {
           BfpQuantizeRef(f, Data(n), n / 1024, 1024, {}, Scratch(n), nullptr, &cc);
         }
         return cc.numel;
       }},
  };
  return *kLattices;
}

struct Case {
  std::string kernel;
  int64_t target;  // 0: not a SIMD kernel ("-")
  int threads;
  size_t bytes;
};

using Body = std::function<void(const Case&, size_t n)>;

void Run(benchmark::State& state, const Case& c, const Body& body) {
  const size_t n = c.bytes / sizeof(float);
  Data(n);
  Scratch(n);
  std::unique_ptr<simd::ScopedTarget> force;
  if (c.target != 0) force = std::make_unique<simd::ScopedTarget>(c.target);
  if (c.kernel.rfind("torch_", 0) == 0 && !HaveTorch()) {
    state.SkipWithError("built without LibTorch");
    return;
  }
  for (auto _ : state) {
    body(c, n);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(c.bytes));
  state.SetLabel(c.target != 0 ? simd::TargetName(c.target) : "-");
}

void Register(const Case& c, const Body& body) {
  const std::string name = c.kernel + "/" + (c.target != 0 ? simd::TargetName(c.target) : "-") +
                           "/t" + std::to_string(c.threads) + "/" + std::to_string(c.bytes);
  benchmark::RegisterBenchmark(name.c_str(), [c, body](benchmark::State& s) { Run(s, c, body); })
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

void RegisterKernelBenchmarks(const SuiteOptions& opt) {
  std::vector<int64_t> targets = simd::AvailableTargets();
  if (!opt.all_targets && !targets.empty()) targets.resize(1);  // the best one
  const int thread_counts[] = {1, 2};

  // Per-target kernels.
  struct Kernel {
    const char* name;
    Body body;
  };
  std::vector<Kernel> kernels = {
      {"read_bw",
       [](const Case& c, size_t n) {
         const float* x = Data(n);
         std::vector<float> sums(c.threads);
         ParallelFor(n, c.threads,
                     [&](int t, size_t a, size_t b) { sums[t] = SumFloats(x + a, b - a); });
         benchmark::DoNotOptimize(sums.data());
       }},
  };
  kernels.push_back({"copy_bw", [](const Case& c, size_t n) {
                       const float* x = Data(n);
                       float* y = Scratch(n);
                       ParallelFor(n, c.threads,
                                   [&](int, size_t a, size_t b) { CopyFloats(x + a, b - a, y + a); });
                     }});
  for (size_t k : {1, 4, 8}) {
    kernels.push_back({k == 1 ? "analyze_1fmt" : k == 4 ? "analyze_4fmt" : "analyze_8fmt",
                       [k](const Case& c, size_t n) {
                         static thread_local std::map<size_t, std::vector<FormatSlot>> slots;
                         auto& s = slots[n * 16 + k];
                         if (s.empty()) s = BenchSlots(k, AmaxOf(n));
                         AnalyzeResult r = simd::Analyze(Data(n), n, s, c.threads);
                         benchmark::DoNotOptimize(r.stats.mean);
                       }});
  }
  // One slot alone, the costly kinds: e2m1fn with stochastic rounding (most
  // scaled values below its normal range) and bf16 (unscaled); the cost of
  // one more format is (analyze_8fmt - analyze_4fmt) / 4 per element.
  kernels.push_back({"analyze_e2m1_sr", [](const Case& c, size_t n) {
                       static thread_local std::map<size_t, std::vector<FormatSlot>> slots;
                       auto& s = slots[n];
                       if (s.empty()) s = {BenchSlots(3, AmaxOf(n))[2]};
                       AnalyzeResult r = simd::Analyze(Data(n), n, s, c.threads);
                       benchmark::DoNotOptimize(r.stats.mean);
                     }});
  const struct {
    const char* kernel;
    const char* format;
    bool counts;
  } kQuantize[] = {{"quantize_fp8", "e4m3fn", false},  {"quantize_fp8_counts", "e4m3fn", true},
                   {"quantize_fp6", "e3m2fn", false},  {"quantize_fp4", "e2m1fn", false},
                   {"quantize_bf16", "bf16", false},   {"quantize_fp16", "fp16", false}};
  for (const auto& q : kQuantize) {
    const Format f = *ParseFormat(q.format);
    const bool counts = q.counts;
    kernels.push_back({q.kernel, [f, counts](const Case& c, size_t n) {
                         QuantizeOptions opt;
                         opt.scale = f.mantissa_bits() >= 7 ? 1.0f : CurrentScale(f, AmaxOf(n));
                         CastCounts cc;
                         simd::Quantize(f, Data(n), n, opt, Scratch(n), counts ? &cc : nullptr,
                                        c.threads);
                         benchmark::DoNotOptimize(cc.numel);
                       }});
  }
  kernels.push_back({"mx_fp8", [](const Case& c, size_t n) {
                       static const Format f = *ParseFormat("e4m3fn");
                       const size_t cols = 1024, rows = n / cols;
                       static std::vector<float> scales;
                       scales.resize(rows * cols / 32 + 1);
                       CastCounts cc;
                       simd::BlockQuantize(f, Data(n), rows, cols, BlockSpec::Mx(), {}, Scratch(n),
                                           scales.data(), &cc, c.threads);
                       benchmark::DoNotOptimize(cc.numel);
                     }});
  // Integer and block floating-point targets (int8 NPU, Tenstorrent), with
  // counts as RoleQuantizer asks for them; the ref_ rows below are their
  // scalar twins.
  for (const Lattice& l : Lattices()) {
    kernels.push_back({l.name, [l](const Case& c, size_t n) {
                         benchmark::DoNotOptimize(l.run(n, c.threads, /*simd=*/true));
                       }});
  }

  for (size_t bytes : opt.sizes) {
    for (const Kernel& k : kernels) {
      for (int64_t t : targets) {
        for (int th : thread_counts) Register({k.name, t, th, bytes}, k.body);
      }
    }
    // Baselines without a SIMD target.
    for (int th : thread_counts) {
      Register({"memcpy", 0, th, bytes}, [](const Case& c, size_t n) {
        const float* x = Data(n);
        float* y = Scratch(n);
        ParallelFor(n, c.threads, [&](int, size_t a, size_t b) {
          std::memcpy(y + a, x + a, (b - a) * sizeof(float));
        });
      });
      for (size_t k : {1, 4}) {
        Register({k == 1 ? "torch_analyze_1fmt" : "torch_analyze_4fmt", 0, th, bytes},
                 [k](const Case& c, size_t n) {
                   benchmark::DoNotOptimize(
                       TorchAnalyze(Data(n), n, BenchSlots(k, AmaxOf(n)), c.threads));
                 });
      }
    }
    if (bytes <= opt.max_reference_bytes) {
      Register({"ref_analyze_1fmt", 0, 1, bytes}, [](const Case&, size_t n) {
        AnalyzeResult r = simd::AnalyzeRef(Data(n), n, BenchSlots(1, AmaxOf(n)));
        benchmark::DoNotOptimize(r.stats.mean);
      });
      for (const Lattice& l : Lattices()) {
        Register({std::string("ref_") + l.name, 0, 1, bytes}, [l](const Case&, size_t n) {
          benchmark::DoNotOptimize(l.run(n, 1, /*simd=*/false));
        });
      }
      Register({"ref_quantize_fp8", 0, 1, bytes}, [](const Case&, size_t n) {
        static const Format f = *ParseFormat("e4m3fn");
        QuantizeOptions opt;
        opt.scale = CurrentScale(f, AmaxOf(n));
        QuantizeRef(f, Data(n), n, opt, Scratch(n), nullptr);
      });
    }
  }
}

}  // namespace bench
}  // namespace lpsim
