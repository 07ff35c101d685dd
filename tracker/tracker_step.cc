// Tracker::Impl::Step in its numbered sections (finite check, weight
// gradients, the update, weights and optimizer state, the rules), and what
// the rules' policies do afterwards: warn, raise, stop, capture. Part of
// tracker.cc's Impl (tracker/internal/tracker_impl.h).
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "tracker/capture.h"
#include "tracker/internal/tracker_impl.h"

namespace lpsim {

using tracker_internal::FastPath;

bool Tracker::Impl::AllFinite(const torch::Tensor& t) {
  if (!FastPath(t)) return torch::isfinite(t).all().item<bool>();
  // All exponent bits set = Inf or NaN; one branch-free (vectorized) pass.
  const auto* bits = reinterpret_cast<const uint32_t*>(t.data_ptr<float>());
  const size_t n = static_cast<size_t>(t.numel());
  uint32_t max_exp = 0;
  for (size_t i = 0; i < n; ++i) max_exp = std::max(max_exp, bits[i] & 0x7f800000u);
  return max_exp != 0x7f800000u;
}

std::vector<std::pair<const char*, torch::Tensor>> Tracker::Impl::OptimizerState(const Param& p) {
  auto& state = optimizer_.state();
  // LibTorch keys optimizer state by the parameter's TensorImpl address.
  auto it = state.find(c10::guts::to_string(p.tensor.unsafeGetTensorImpl()));
  if (it == state.end()) return {};
  torch::optim::OptimizerParamState* s = it->second.get();
  std::vector<std::pair<const char*, torch::Tensor>> tensors;
  if (auto* a = dynamic_cast<torch::optim::AdamParamState*>(s)) {
    tensors = {{"exp_avg", a->exp_avg()}, {"exp_avg_sq", a->exp_avg_sq()}, {"max_exp_avg_sq", a->max_exp_avg_sq()}};
  } else if (auto* w = dynamic_cast<torch::optim::AdamWParamState*>(s)) {
    tensors = {{"exp_avg", w->exp_avg()}, {"exp_avg_sq", w->exp_avg_sq()}, {"max_exp_avg_sq", w->max_exp_avg_sq()}};
  } else if (auto* g = dynamic_cast<torch::optim::SGDParamState*>(s)) {
    tensors = {{"momentum_buffer", g->momentum_buffer()}};
  } else if (auto* r = dynamic_cast<torch::optim::RMSpropParamState*>(s)) {
    tensors = {{"square_avg", r->square_avg()}, {"momentum_buffer", r->momentum_buffer()}, {"grad_avg", r->grad_avg()}};
  } else if (auto* ag = dynamic_cast<torch::optim::AdagradParamState*>(s)) {
    tensors = {{"sum", ag->sum()}};
  }
  return tensors;
}

void Tracker::Impl::RecordOptimizerState(const Param& p) {
  for (const auto& [key, t] : OptimizerState(p)) {
    if (t.defined() && t.numel() > 0) Record(p.name + "." + key, Role::kOptimizerState, t, "");
  }
}

StepResult Tracker::Impl::Step(const torch::Tensor& loss) {
  StepResult result;
  result.step = step_;
  result.tracked = Tracking();
  torch::NoGradGuard no_grad;

  // 1. Loss and gradients must be finite before anything is applied: the
  // gradients as the optimizer would receive them, so in simulate mode after
  // their fake quantization (kept aside: the records see them as computed).
  const double loss_value = loss.defined() ? loss.detach().item<double>() : 0.0;
  std::string bad;
  if (!std::isfinite(loss_value)) bad = "loss is " + std::to_string(loss_value);
  // Every parameter is cast even after a bad one: with a process group the
  // casts' amax reductions must happen in the same order on every rank.
  std::vector<torch::Tensor> sim_grads(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& p = params_[i];
    const torch::Tensor& g = p.tensor.grad();
    if (!g.defined()) continue;
    if (bad.empty() && !AllFinite(g)) bad = "gradient of '" + p.name + "' is not finite";
    if (!opt_.simulate || !p.master.defined()) continue;
    sim_grads[i] = FakeQuant(sim_bwd_, p.name, Role::kWeightGrad, g);
    if (bad.empty() && !AllFinite(sim_grads[i])) {
      bad = "gradient of '" + p.name + "' is not finite after its cast to " + sim_bwd_.name() +
            " with " + RecipeFor(Role::kWeightGrad).Name() + " scaling";
    }
  }
  if (opt_.process_group) {  // every rank skips if any rank saw a non-finite value
    torch::Tensor flag = torch::full({1}, bad.empty() ? 0.0f : 1.0f);
    std::vector<torch::Tensor> v = {flag};
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp::MAX;
    opt_.process_group->allreduce(v, o)->wait();
    if (bad.empty() && flag.item<float>() > 0) bad = "another rank saw a non-finite loss or gradient";
  }

  AddScalar(ScalarRecord{step_, "loss", loss_value});
  if (!probes_.empty()) FollowStates();
  if (ProbeStep()) {
    Probe();  // before the update: this step's weights
    if (RolloutStep()) Rollout();
  } else if (!probes_.empty()) {
    for (const Param& p : params_) {
      if (p.tensor.scalar_type() != torch::kFloat) continue;
      ObserveForProbes(TargetRole::kWeight, RoleKey(TargetRole::kWeight, p.name), p.tensor);
    }
  }
  if (!optimizer_.param_groups().empty()) {
    AddScalar(ScalarRecord{step_, "lr", optimizer_.param_groups()[0].options().get_lr()});
  }

  if (!bad.empty()) {
    result.applied = false;
    result.reason = bad;
    if (writer_) {
      Finding f;
      f.rule = "nonfinite_update_skipped";
      f.severity = Severity::kError;
      f.step = step_;
      f.message = "step " + std::to_string(step_) + " was not applied: " + bad +
                  ". The update was skipped so the weights stay finite; look at the learning "
                  "rate, the loss scale and the inputs of this step.";
      f.evidence["loss"] = loss_value;
      analyzer_->Add(f);
      if (opt_.capture_nonfinite) result.capture_dir = Capture(f, /*applied=*/false, loss_value);
    }
  } else {
    // 2. Weight gradients (as computed), then simulate's view of them.
    if (result.tracked) {
      for (const Param& p : params_) Record(p.name, Role::kWeightGrad, p.tensor.grad(), "");
    }
    if (!initial_fed_ && writer_ && opt_.checks) {
      // The rules judge initialization on the weights before any update.
      initial_fed_ = true;
      for (const Param& p : params_) {
        if (p.tensor.scalar_type() != torch::kFloat) continue;
        TensorSnapshot s;
        s.step = step_;
        s.name = p.name;
        s.role = Role::kWeight;
        s.shape = p.tensor.sizes().vec();
        s.initial_weight = true;
        Snapshot(std::move(s), p.tensor.detach().contiguous());
      }
    }
    const bool ratios = result.tracked && writer_ && Contains(opt_.roles, Role::kWeight);
    before_.resize(params_.size());
    for (size_t i = 0; i < params_.size(); ++i) {
      Param& p = params_[i];
      if (opt_.simulate && p.master.defined()) {
        if (sim_grads[i].defined()) p.tensor.mutable_grad().copy_(sim_grads[i]);
        p.tensor.copy_(p.master);  // the update applies to the fp32 master weights
      }
      if (ratios && Selected(p.name, Role::kWeight)) {
        const torch::Tensor w = FastPath(p.tensor) ? p.tensor : p.tensor.detach().to(torch::kFloat).contiguous();
        before_[i].assign(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
      }
    }
    // 3. The update.
    optimizer_.step();
    // 4. Weights, update ratios, optimizer state. Simulate mode stores
    // them as the target does (with a target, its optimizer state and
    // master weights as it stores them; without, fp32: only the forward
    // weights are cast).
    const RoleCast store = [&](TargetRole role, const std::string& key, const torch::Tensor& x) {
      if (role == TargetRole::kWeight) return FakeQuant(sim_fwd_, key, Role::kWeight, x);
      return target_ ? SimulateRole(role, key, x) : x;
    };
    for (size_t i = 0; i < params_.size(); ++i) {
      Param& p = params_[i];
      if (result.tracked) {
        Record(p.name, Role::kWeight, p.tensor, "");
        if (ratios && Selected(p.name, Role::kWeight)) {
          // mean|w_after - w_before| / mean|w_after|
          const torch::Tensor w = FastPath(p.tensor) ? p.tensor : p.tensor.detach().to(torch::kFloat).contiguous();
          const float* after = w.data_ptr<float>();
          const float* prev = before_[i].data();
          double dw = 0, aw = 0;
          for (size_t k = 0; k < before_[i].size(); ++k) {
            dw += std::fabs(after[k] - prev[k]);
            aw += std::fabs(after[k]);
          }
          AddScalar(ScalarRecord{step_, "update_ratio/" + p.name, aw > 0 ? dw / aw : 0.0});
        }
        RecordOptimizerState(p);
      }
      if (opt_.simulate && p.master.defined()) StoreUpdated(p, p.master, store);
    }
  }

  // 5. The rules judge the step and its records commit (inline, or queued
  // for the analyzer thread).
  analyzer_->EndStep(step_, result.tracked);
  const std::string raise = Check(&result, loss_value);
  batch_inputs_ = batch_targets_ = batch_rng_ = torch::Tensor();
  ++step_;
  if (live_) live_->ApplyPending(step_, analyzer_.get());
  if (!raise.empty()) throw TrackerError(raise);
  return result;
}

void Tracker::Impl::SetBatch(const torch::Tensor& inputs, const torch::Tensor& targets) {
  batch_inputs_ = inputs.defined() ? inputs.detach() : inputs;
  batch_targets_ = targets.defined() ? targets.detach() : targets;
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  batch_rng_ = gen.get_state();
}

std::string Tracker::Impl::Capture(const Finding& f, bool applied, double loss) {
  if (!writer_ || last_capture_step_ == step_) return "";
  if (captures_ >= opt_.max_captures) {
    Note("captures", "more than " + std::to_string(opt_.max_captures) +
                         " captures in this run (TrackerOptions.max_captures): later steps were not captured");
    return "";
  }
  const std::string dir =
      (std::filesystem::path(opt_.run_dir) / "captures" / ("step_" + std::to_string(step_))).string();
  CaptureInput in;
  in.manifest.step = step_;
  in.manifest.model = opt_.capture_model;
  in.manifest.reason = f.rule + ": " + f.message;
  in.manifest.loss = loss;
  in.manifest.lr = optimizer_.param_groups().empty() ? 0.0 : optimizer_.param_groups()[0].options().get_lr();
  in.manifest.update_applied = applied;
  in.finding = f;
  in.inputs = batch_inputs_;
  in.targets = batch_targets_;
  in.rng_state = batch_rng_;
  const Status s = WriteCapture(dir, model_, optimizer_, in);
  if (!s.ok()) {
    Note("capture_failed", s.message());
    return "";
  }
  ++captures_;
  last_capture_step_ = step_;
  // A write error sticks in the writer and is returned by Close.
  (void)writer_->AddCapture(step_, dir, f.rule + (f.tensor.empty() ? "" : " in " + f.tensor));
  return dir;
}

std::string Tracker::Impl::Check(StepResult* result, double loss) {
  if (!writer_ || !opt_.checks) return "";
  std::vector<Finding> fresh = analyzer_->TakeNew();
  std::string raise;
  for (const Finding& f : fresh) {
    const Policy policy = PolicyFor(f.rule);
    if (policy == Policy::kWarn || (!result && policy != Policy::kLog)) {
      if (warned_.insert(f.rule + "|" + f.tensor).second) {
        std::cerr << "lpsim: " << ToString(f.severity) << " at step " << f.step << " [" << f.rule << "] "
                  << f.message << "\n";
      }
    }
    if (!result) continue;
    switch (policy) {
      case Policy::kLog:
      case Policy::kWarn: break;
      case Policy::kRaise:
        if (raise.empty()) raise = "lpsim: rule " + f.rule + " fired at step " + std::to_string(f.step) + ": " + f.message;
        break;
      case Policy::kStop: result->stop = true; break;
      case Policy::kCapture: {
        const std::string dir = Capture(f, result->applied, loss);
        if (!dir.empty()) result->capture_dir = dir;
        break;
      }
    }
  }
  if (result) result->findings = std::move(fresh);
  return raise;
}

}  // namespace lpsim
