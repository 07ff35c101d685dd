// Simulate mode's fake quantization: a tensor as a format (with the role's
// scaling recipe) or as a hardware target stores the role. Part of
// tracker.cc's Impl (tracker/internal/tracker_impl.h).
#include "simd/quantize.h"
#include "tracker/distributed.h"
#include "tracker/internal/tracker_impl.h"

namespace lpsim {
namespace {

std::string Key(const std::string& name, Role role) { return ToString(role) + ":" + name; }

// The 2-D view block recipes use: [numel / last_dim, last_dim].
void Matrix(const torch::Tensor& t, size_t* rows, size_t* cols) {
  const size_t n = static_cast<size_t>(t.numel());
  *cols = t.dim() == 0 ? 1 : static_cast<size_t>(t.size(t.dim() - 1));
  if (*cols == 0) *cols = 1;
  *rows = n / *cols;
}

}  // namespace

float Tracker::Impl::GlobalAmax(const torch::Tensor& x) {
  float amax = simd::Amax(x.data_ptr<float>(), static_cast<size_t>(x.numel()), opt_.threads);
  if (opt_.process_group) amax = MaxAcrossRanks(*opt_.process_group, amax);
  return amax;
}

torch::Tensor Tracker::Impl::FakeQuant(const Format& f_in, const std::string& key, Role role,
                                       const torch::Tensor& x_in) {
  // With a target: the role as the target stores it, unless role_scaling
  // named the role (then the target's float format with that recipe).
  const RoleSpec* spec = target_ ? &target_->role(ToTargetRole(role)) : nullptr;
  if (spec && !(spec->storage == RoleSpec::Storage::kFloat && explicit_scaling_.count(role))) {
    return SimulateRole(ToTargetRole(role), key, x_in);
  }
  const Format& f = spec ? spec->format : f_in;
  torch::Tensor x = x_in.detach().to(torch::kFloat).contiguous();
  torch::Tensor out = torch::empty_like(x);
  const size_t n = static_cast<size_t>(x.numel());
  const Scaling& recipe = RecipeFor(role);
  QuantizeOptions q;
  switch (recipe.kind) {
    case Scaling::Kind::kNone:
    case Scaling::Kind::kInteger: break;  // integer recipes only come with integer storage
    case Scaling::Kind::kCurrent: q.scale = CurrentScale(f, GlobalAmax(x), recipe.scale); break;
    case Scaling::Kind::kDelayed: {
      DelayedScaler* d;
      {
        std::lock_guard<std::mutex> lock(mu_);
        d = &sim_delayed_.try_emplace(Key(key, role), f, recipe.delayed).first->second;
      }
      q.scale = d->Scale();
      d->Update(GlobalAmax(x));
      break;
    }
    case Scaling::Kind::kBlock: {
      size_t rows, cols;
      Matrix(x, &rows, &cols);
      std::vector<float> scales(recipe.block.BlocksPerRow(cols) * recipe.block.BlocksPerCol(rows));
      simd::BlockQuantize(f, x.data_ptr<float>(), rows, cols, recipe.block, q,
                          out.data_ptr<float>(), scales.data(), nullptr, opt_.threads);
      return out.to(x_in.scalar_type());
    }
  }
  simd::Quantize(f, x.data_ptr<float>(), n, q, out.data_ptr<float>(), nullptr, opt_.threads);
  return out.to(x_in.scalar_type());
}

torch::Tensor Tracker::Impl::SimulateRole(TargetRole role, const std::string& key,
                                          const torch::Tensor& x_in) {
  return CastAsRole(target_->role(role), RoleKey(role, key), &sim_roles_, x_in);
}

void Tracker::Impl::StoreUpdated(Param& p, torch::Tensor& master, const RoleCast& cast) {
  for (auto& [key, s] : OptimizerState(p)) {
    if (!s.defined() || s.numel() == 0 || s.scalar_type() != torch::kFloat) continue;
    const torch::Tensor stored = cast(TargetRole::kOptimizerState, p.name + "." + key, s);
    if (!stored.is_same(s)) s.copy_(stored);
  }
  master.copy_(cast(TargetRole::kMasterWeights, p.name, p.tensor));
  p.tensor.copy_(cast(TargetRole::kWeight, p.name, master));
}

RoleQuantizer* Tracker::Impl::QuantizerFor(const RoleSpec& spec, const std::string& key, Quantizers* quantizers) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<RoleQuantizer>& slot = (*quantizers)[key];
  if (!slot) slot = std::make_unique<RoleQuantizer>(spec);
  return slot.get();
}

torch::Tensor Tracker::Impl::CastAsRole(const RoleSpec& spec, const std::string& key, Quantizers* quantizers,
                                        const torch::Tensor& x_in) {
  if (spec.storage == RoleSpec::Storage::kFloat && spec.format.name() == "fp32" &&
      spec.scaling.kind == Scaling::Kind::kNone) {
    return x_in;  // fp32 storage: nothing to simulate
  }
  torch::Tensor x = x_in.detach().to(torch::kFloat).contiguous();
  torch::Tensor out = torch::empty_like(x);
  RoleQuantizer* q = QuantizerFor(spec, key, quantizers);
  const std::pair<size_t, size_t> shape = RoleMatrixShape(spec, x.sizes().vec());
  RoleQuantizer::Options o;
  o.threads = opt_.threads;
  o.seed = static_cast<uint64_t>(step_ + rollout_step_);  // a rollout's step k casts as step_ + k would
  q->Quantize(x.data_ptr<float>(), shape.first, shape.second, o, out.data_ptr<float>(), nullptr);
  return out.to(x_in.scalar_type());
}

}  // namespace lpsim
