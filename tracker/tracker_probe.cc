// Probes (TrackerOptions::probe): the loss of this step's forward pass as
// each probe target would compute it, at this step's weights and batch; and
// rollouts (TrackerOptions::probe_rollout): the loss after a few training
// steps from here on each target. Part of tracker.cc's Impl
// (tracker/internal/tracker_impl.h).
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <cstdio>
#include <sstream>

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
  // In the units of step()'s loss (TrackerOptions::probe_loss_scale).
  AddScalar(ScalarRecord{step_, "probe_loss", opt_.probe_loss_scale * loss()});
  for (ProbeTarget& t : probes_) {
    const RoleSpec& weights = t.target.role(TargetRole::kWeight);
    for (Param& p : params_) {
      if (p.tensor.scalar_type() != torch::kFloat) continue;
      p.tensor.copy_(CastAsRole(weights, RoleKey(TargetRole::kWeight, p.name), &t.quantizers, p.tensor));
    }
    LoadStates(static_cast<size_t>(&t - probes_.data()));
    probing_ = &t;
    AddScalar(ScalarRecord{step_, "probe_loss:" + t.target.name, opt_.probe_loss_scale * loss()});
  }
}

namespace {

// An optimizer state as bytes, and back: a deep copy (OptimizerParamState's
// clone() shares its tensors, which step() changes in place).
std::string Serialize(const torch::optim::OptimizerParamState& s) {
  torch::serialize::OutputArchive out;
  s.serialize(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  return bytes.str();
}

std::unique_ptr<torch::optim::OptimizerParamState> Deserialize(const torch::optim::OptimizerParamState& like,
                                                               const std::string& bytes) {
  std::istringstream in_bytes(bytes);
  torch::serialize::InputArchive in;
  in.load_from(in_bytes);
  std::unique_ptr<torch::optim::OptimizerParamState> s = like.clone();
  s->serialize(in);
  return s;
}

}  // namespace

void Tracker::Impl::Rollout() {
  torch::AutoGradMode grad_mode(true);  // Step runs without gradients
  auto gen = at::detail::getDefaultCPUGenerator();
  torch::Tensor rng;
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    rng = gen.get_state();
  }
  // What a rollout changes, kept aside: weights, their gradients (this
  // step's, which the update still needs), the optimizer state (moved out
  // whole; each rollout trains a deep copy), buffers and the random state.
  std::vector<torch::Tensor> weights, grads;
  for (const Param& p : params_) {
    weights.push_back(p.tensor.detach().clone());
    grads.push_back(p.tensor.grad().defined() ? p.tensor.grad().detach().clone() : torch::Tensor());
  }
  std::vector<torch::Tensor> buffers = model_.buffers(), buffers_before;
  for (const torch::Tensor& b : buffers) buffers_before.push_back(b.detach().clone());
  auto state = std::move(optimizer_.state());
  optimizer_.state().clear();
  auto restore = [&]() {
    in_probe_ = false;
    probing_ = nullptr;
    rollout_step_ = 0;
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      params_[i].tensor.copy_(weights[i]);
      params_[i].tensor.mutable_grad() = grads[i];
    }
    for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(buffers_before[i]);
    optimizer_.state() = std::move(state);
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(rng);
  };
  try {
    std::vector<SavedState> bytes;
    for (const auto& [key, s] : state) bytes.push_back({key, s.get(), Serialize(*s)});
    std::vector<std::pair<std::string, RolloutResult>> results = {{"", RolloutOn(nullptr, weights, bytes)}};
    for (ProbeTarget& t : probes_) {
      if (t.target.inference_only) continue;  // no training happens there
      // On copies of the target's casts: the probes' histories go on as if
      // no rollout had run.
      ProbeTarget copy{t.target, {}};
      for (const auto& [key, q] : t.quantizers) copy.quantizers[key] = std::make_unique<RoleQuantizer>(*q);
      {
        torch::NoGradGuard no_grad;
        for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(buffers_before[i]);
        std::lock_guard<std::mutex> lock(gen.mutex());
        gen.set_state(rng);  // every rollout draws the same dropout masks
      }
      LoadStates(static_cast<size_t>(&t - probes_.data()));
      results.emplace_back(":" + t.target.name, RolloutOn(&copy, weights, bytes));
    }
    restore();
    for (const auto& [suffix, r] : results) {
      AddScalar(ScalarRecord{step_, "rollout_loss" + suffix, opt_.probe_loss_scale * r.loss});
      AddScalar(ScalarRecord{step_, "rollout_skipped" + suffix, static_cast<double>(r.skipped)});
    }
  } catch (...) {
    restore();
    throw;
  }
}

Tracker::Impl::RolloutResult Tracker::Impl::RolloutOn(ProbeTarget* t, const std::vector<torch::Tensor>& weights,
                                                      const std::vector<SavedState>& state) {
  RolloutResult result;
  auto& live = optimizer_.state();
  live.clear();
  for (const SavedState& s : state) live[s.key] = Deserialize(*s.like, s.bytes);
  const RoleCast cast = [&](TargetRole role, const std::string& key, const torch::Tensor& x) {
    return CastAsRole(t->target.role(role), RoleKey(role, key), &t->quantizers, x);
  };
  // On a target, as simulate mode trains: fp32 master weights, the forward
  // weights their cast.
  std::vector<torch::Tensor> master(params_.size());
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      Param& p = params_[i];
      if (!t || p.tensor.scalar_type() != torch::kFloat) {
        p.tensor.copy_(weights[i]);
        continue;
      }
      master[i] = weights[i].clone();
      p.tensor.copy_(cast(TargetRole::kWeight, p.name, master[i]));
    }
  }
  in_probe_ = true;
  probing_ = t;
  for (int k = 0; k < opt_.probe_rollout; ++k) {
    rollout_step_ = k;
    for (Param& p : params_) p.tensor.mutable_grad() = torch::Tensor();
    const torch::Tensor l = opt_.probe();
    if (!l.defined() || l.numel() != 1) return result;
    if (!std::isfinite(l.detach().item<double>())) return result;  // the training diverged
    (l * opt_.probe_loss_scale).backward();
    torch::NoGradGuard no_grad;
    bool finite = true;
    for (size_t i = 0; i < params_.size(); ++i) {
      Param& p = params_[i];
      torch::Tensor& g = p.tensor.mutable_grad();
      if (!g.defined()) continue;
      if (master[i].defined()) g.copy_(cast(TargetRole::kWeightGrad, p.name, g));
      finite = finite && AllFinite(g);
    }
    if (!finite) {  // skipped, as the tracker skips such an update
      ++result.skipped;
      continue;
    }
    for (size_t i = 0; i < params_.size(); ++i) {
      if (master[i].defined()) params_[i].tensor.copy_(master[i]);
    }
    optimizer_.step();
    for (size_t i = 0; i < params_.size(); ++i) {
      if (master[i].defined()) StoreUpdated(params_[i], master[i], cast);
    }
  }
  rollout_step_ = opt_.probe_rollout;
  torch::NoGradGuard no_grad;
  const torch::Tensor l = opt_.probe();  // the loss reached
  if (l.defined() && l.numel() == 1) result.loss = l.detach().item<double>();
  return result;
}

void Tracker::Impl::FollowStates() {
  torch::NoGradGuard no_grad;
  // New states: a float buffer equal to a tap output of this step (not the
  // buffer itself, tapped where it is: that tap only reads it, and what the
  // program keeps is not the tap's cast).
  if (!no_grad_taps_.empty()) {
    for (const auto& item : model_.named_buffers()) {
      const torch::Tensor& b = item.value();
      if (!tracker_internal::FastPath(b) || b.numel() == 0) continue;
      if (std::any_of(states_.begin(), states_.end(), [&](const StoredState& s) { return s.buffer.is_same(b); })) {
        continue;
      }
      for (const auto& [tap, x] : no_grad_taps_) {
        if (StateTap(tap) || x.sizes() != b.sizes() || x.data_ptr() == b.data_ptr() ||
            !torch::equal(x.to(torch::kFloat), b)) {
          continue;
        }
        StoredState s;
        s.tap = tap;
        s.name = item.key();
        s.buffer = b;
        states_.push_back(std::move(s));
        break;
      }
    }
    no_grad_taps_.clear();
  }
  for (StoredState& s : states_) {
    const torch::Tensor b = s.buffer.detach();
    // The fit: the step's change of b against w - b for each weight of its
    // shape (the one that explains it best, once chosen, kept): a_t the
    // least-squares coefficient; it holds while the rest is under 1% of
    // the change's energy (fp32's own rounding of a small update is far less).
    double a = 0;
    if (s.previous.defined()) {
      const torch::Tensor d = b - s.previous;
      const double dd = d.square().sum().item<double>();
      int best = -1;
      double best_rest = 0.01;  // the largest rest that fits
      for (size_t i = 0; i < params_.size(); ++i) {
        const torch::Tensor& w = params_[i].tensor;
        if ((s.param >= 0 && static_cast<int>(i) != s.param) || w.scalar_type() != torch::kFloat ||
            w.sizes() != b.sizes()) {
          continue;
        }
        const torch::Tensor g = w.detach() - s.previous;
        const double gg = g.square().sum().item<double>();
        if (gg == 0 || dd == 0) {  // nothing moved: no evidence either way
          if (static_cast<int>(i) == s.param) best = s.param;
          continue;
        }
        const double ai = (d * g).sum().item<double>() / gg;
        const double rest = (d - ai * g).square().sum().item<double>() / dd;
        if (rest <= best_rest && ai >= 0 && ai <= 1) {
          best = static_cast<int>(i);
          best_rest = rest;
          a = ai;
        }
      }
      if (best < 0 && s.param >= 0) s.on_target.clear();  // no longer such an average: not loaded
      if (best >= 0 && s.param < 0) {
        const std::string& w = params_[static_cast<size_t>(best)].name;
        char rate[32];
        std::snprintf(rate, sizeof rate, "%.3g", a);
        Note("average:" + s.tap, "buffer '" + s.name + "', stored from tap '" + s.tap + "', moves as an average of '" +
                                     w + "' (b += " + std::string(rate) + " (w - b) at step " + std::to_string(step_) +
                                     "): each probe target's probes and rollouts read it as that target keeps "
                                     "it, the tap's cast of every update (an update below half its step is lost)");
      }
      s.param = best;
    }
    s.on_target.resize(probes_.size());
    for (size_t i = 0; i < probes_.size(); ++i) {
      ProbeTarget& t = probes_[i];
      torch::Tensor next = b.clone();  // until fitted: the tap's cast of fp32's value
      if (s.param >= 0 && s.on_target[i].defined()) {
        const torch::Tensor& kept = s.on_target[i];
        next = kept + a * (params_[static_cast<size_t>(s.param)].tensor.detach() - kept);
      }
      s.on_target[i] = CastAsRole(t.target.role(TargetRole::kActivation),
                                  RoleKey(TargetRole::kActivation, s.tap), &t.quantizers, next);
    }
    s.previous = b.clone();
  }
}

void Tracker::Impl::LoadStates(size_t i) {
  torch::NoGradGuard no_grad;
  for (StoredState& s : states_) {
    if (s.param >= 0 && i < s.on_target.size() && s.on_target[i].defined()) s.buffer.copy_(s.on_target[i]);
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
