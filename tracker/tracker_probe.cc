// Probes (TrackerOptions::probe): the loss of this step's forward pass as
// each probe target would compute it, at this step's weights and batch. Part
// of tracker.cc's Impl (tracker/internal/tracker_impl.h).
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "simd/scaling.h"
#include "tracker/internal/tracker_impl.h"

namespace lpsim {

void Tracker::Impl::Probe() {
  torch::NoGradGuard no_grad;
  auto gen = at::detail::getDefaultCPUGenerator();
  torch::Tensor rng;
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    rng = gen.get_state();
  }
  // What a forward pass changes: the buffers (BatchNorm's running
  // statistics, its batch count) and the random state; the weights are
  // swapped for their casts below.
  std::vector<torch::Tensor> buffers = model_.buffers(), buffers_before;
  for (const torch::Tensor& b : buffers) buffers_before.push_back(b.detach().clone());
  std::vector<torch::Tensor> weights_before;
  for (const Param& p : params_) weights_before.push_back(p.tensor.detach().clone());
  auto restore = [&](bool weights) {
    probing_ = nullptr;
    if (weights) {
      for (size_t i = 0; i < params_.size(); ++i) params_[i].tensor.copy_(weights_before[i]);
    }
    for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(buffers_before[i]);
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(rng);
  };
  // One call on the probe target in progress (probing_; null: as is).
  auto loss = [&]() -> double {
    const bool cast = probing_ != nullptr;
    double v = NAN;
    in_probe_ = true;
    try {
      const torch::Tensor l = opt_.probe();
      if (l.defined() && l.numel() == 1) v = l.detach().item<double>();
    } catch (...) {
      in_probe_ = false;
      restore(cast);
      throw;
    }
    in_probe_ = false;
    restore(cast);  // the call as is leaves the weights as they were
    return v;
  };
  AddScalar(ScalarRecord{step_, "probe_loss", loss()});
  for (ProbeTarget& t : probes_) {
    const RoleSpec& weights = t.target.role(TargetRole::kWeight);
    for (Param& p : params_) {
      if (p.tensor.scalar_type() != torch::kFloat) continue;
      p.tensor.copy_(CastAsRole(weights, RoleKey(TargetRole::kWeight, p.name), &t.quantizers, p.tensor));
    }
    probing_ = &t;
    AddScalar(ScalarRecord{step_, "probe_loss:" + t.target.name, loss()});
  }
}

void Tracker::Impl::ObserveForProbes(TargetRole role, const std::string& key, const torch::Tensor& x) {
  float amax = -1;  // one pass over x, shared by every target that keeps a history
  for (ProbeTarget& t : probes_) {
    const RoleSpec& spec = t.target.role(role);
    if (spec.storage != RoleSpec::Storage::kFloat || spec.scaling.kind != Scaling::Kind::kDelayed) continue;
    if (amax < 0) {
      const torch::Tensor f = x.detach().to(torch::kFloat).contiguous();
      amax = simd::Amax(f.data_ptr<float>(), static_cast<size_t>(f.numel()), opt_.threads);
    }
    QuantizerFor(spec, key, &t.quantizers)->Observe(amax);
  }
}

}  // namespace lpsim
