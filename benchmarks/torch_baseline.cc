#include "benchmarks/torch_baseline.h"

#ifdef LPSIM_HAVE_TORCH
#include <torch/torch.h>
#endif

#include <cmath>

namespace lpsim {
namespace bench {

#ifdef LPSIM_HAVE_TORCH

bool HaveTorch() { return true; }

double TorchAnalyze(const float* x, size_t n, const std::vector<FormatSlot>& slots, int threads) {
  torch::set_num_threads(threads);
  torch::NoGradGuard no_grad;
  const torch::Tensor t =
      torch::from_blob(const_cast<float*>(x), {static_cast<int64_t>(n)}, torch::kFloat32);
  const torch::Tensor finite = torch::isfinite(t);
  const torch::Tensor zero = t == 0;
  const torch::Tensor nonzero = finite & ~zero;
  double check = 0;
  check += zero.sum().item<int64_t>();
  check += torch::isnan(t).sum().item<int64_t>();
  check += torch::isposinf(t).sum().item<int64_t>();
  check += torch::isneginf(t).sum().item<int64_t>();
  // Exponent histogram: |x| = m 2^e with m in [0.5, 1), so floor(log2|x|) = e - 1.
  const auto fr = torch::frexp(t);
  const torch::Tensor exps = std::get<1>(fr).masked_select(nonzero).to(torch::kLong) - 1 + 149;
  check += torch::bincount(exps, {}, 277).max().item<int64_t>();
  // Moments, extremes.
  const torch::Tensor xf = t.masked_select(finite);
  const torch::Tensor xd = xf.to(torch::kFloat64);
  check += xd.mean().item<double>();
  check += xd.std(/*unbiased=*/false).item<double>();
  check += xd.square().mean().sqrt().item<double>();
  check += xf.min().item<float>() + xf.max().item<float>() + xf.abs().max().item<float>();
  // Per format: the scaled cast emulated with ops, and its counts.
  for (const FormatSlot& s : slots) {
    const Format& f = s.format;
    const int m = f.mantissa_bits();
    const double min_normal = f.MinNormal();
    const double min_sub = f.MinSubnormal();
    const double max = f.MaxValue();
    const torch::Tensor v = t * s.scale;
    const torch::Tensor a = v.abs();
    check += (nonzero & (a < min_sub / 2)).sum().item<int64_t>();
    check += (nonzero & (a >= min_sub / 2) & (a < min_normal)).sum().item<int64_t>();
    check += (finite & (a > max)).sum().item<int64_t>();
    // Round to nearest (ties to even via torch::round) at the value's ulp.
    const torch::Tensor e = torch::clamp_min(std::get<1>(torch::frexp(v)) - 1, f.min_normal_exponent());
    const torch::Tensor ulp = torch::exp2((e - m).to(torch::kFloat32));
    const torch::Tensor q = torch::clamp(torch::round(v / ulp) * ulp, -max, max) / s.scale;
    const torch::Tensor d = (t - q).masked_select(finite).to(torch::kFloat64);
    check += d.square().sum().item<double>();
  }
  return check;
}

#else

bool HaveTorch() { return false; }
double TorchAnalyze(const float*, size_t, const std::vector<FormatSlot>&, int) { return 0; }

#endif

}  // namespace bench
}  // namespace lpsim
