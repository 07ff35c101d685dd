// Tracker (tracker/tracker.h): the public face, and the half of its Impl
// that records tensors (taps, notes, snapshots to the analyzer) and closes the
// run. Set-up, simulate mode and Step live beside it (tracker_setup.cc,
// tracker_simulate.cc, tracker_step.cc; tracker/internal/tracker_impl.h).
#include "tracker/tracker.h"

#include <cstring>
#include <exception>

#include "tracker/internal/tracker_impl.h"

namespace lpsim {
namespace {

// Straight-through: forward exactly q (x as stored), backward the gradient
// as it comes. The usual x + (q - x).detach() is not q where x is infinite
// (-inf - -inf is NaN: an attention mask of -inf turned every row NaN even
// in bf16, which stores -inf) nor where q - x rounds (x = 1e30 saturated
// to 448 gave 0).
class StraightThrough : public torch::autograd::Function<StraightThrough> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext*, const torch::Tensor& /*x*/, const torch::Tensor& q) {
    return q;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext*,
                                                 torch::autograd::variable_list grad) {
    return {grad[0], torch::Tensor()};
  }
};

}  // namespace


using tracker_internal::FastPath;

std::string ModuleTypeName(const torch::nn::Module& m) {
  std::string name = m.name();
  const size_t colon = name.rfind("::");
  if (colon != std::string::npos) name = name.substr(colon + 2);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "Impl") == 0) {
    name.resize(name.size() - 4);
  }
  return name;
}

void Tracker::Impl::Note(const std::string& key, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!noted_.insert(key).second) return;
  notes_.push_back(text);
  if (writer_) {
    Finding f;
    f.rule = "tracker_note";
    f.severity = Severity::kInfo;
    f.step = step_;
    f.tensor = key;
    f.message = text;
    analyzer_->Add(std::move(f), /*listed=*/false);
  }
}

torch::Tensor Tracker::Impl::AsFloat(const std::string& name, const torch::Tensor& t) {
  if (!t.device().is_cpu()) {
    Note(name, "tensor '" + name + "' is on " + t.device().str() +
                   ": only CPU tensors are analyzed; it was skipped");
    return {};
  }
  const auto type = t.scalar_type();
  if (type == torch::kFloat) return t.detach().contiguous();
  if (type == torch::kBFloat16 || type == torch::kHalf || type == torch::kDouble) {
    return t.detach().to(torch::kFloat).contiguous();  // bf16/fp16 widen exactly
  }
  Note(name, "tensor '" + name + "' has dtype " + std::string(c10::toString(type)) +
                 ": only floating-point tensors are analyzed; it was skipped");
  return {};
}

void Tracker::Impl::Snapshot(TensorSnapshot s, const torch::Tensor& t) {
  const float* p = t.data_ptr<float>();
  const size_t n = static_cast<size_t>(t.numel());
  if (analyzer_->background()) {
    FloatBuffer b = analyzer_->Buffer(n);
    std::memcpy(b.data.get(), p, n * sizeof(float));
    s.Own(std::move(b), n);
  } else {
    s.Borrow(p, n);
  }
  analyzer_->Add(std::move(s));
}

void Tracker::Impl::Record(const std::string& name, Role role, const torch::Tensor& t,
                           const std::string& module_type) {
  if (!t.defined() || !Selected(name, role)) return;
  const torch::Tensor x = FastPath(t) ? t : AsFloat(name, t);
  if (!x.defined()) return;
  TensorSnapshot s;
  s.step = step_;
  s.name = name;
  s.role = role;
  s.module_type = module_type;
  s.shape = t.sizes().vec();
  s.dtype = c10::toString(t.scalar_type());
  Snapshot(std::move(s), x);
}

torch::Tensor Tracker::Impl::Tap(const std::string& name, const torch::Tensor& x,
                                 const std::string& module_type) {
  if (!x.defined()) return x;
  if (in_probe_) {  // a probe's or rollout's pass: nothing recorded; as the probe target (if any) stores it
    if (!probing_ || !x.is_floating_point() || !x.device().is_cpu()) return x;
    ProbeTarget* t = probing_;
    torch::Tensor q =
        CastAsRole(t->target.role(TargetRole::kActivation), RoleKey(TargetRole::kActivation, name), &t->quantizers, x);
    if (!x.requires_grad()) return q;  // a probe: no gradients
    // A rollout trains as simulate mode does: straight-through, the
    // gradient as the target stores it.
    torch::Tensor y = StraightThrough::apply(x, q.detach());
    y.register_hook([this, t, name](torch::Tensor grad) -> torch::Tensor {
      return CastAsRole(t->target.role(TargetRole::kActivationGrad), RoleKey(TargetRole::kActivationGrad, name),
                        &t->quantizers, grad);
    });
    return y;
  }
  if (!probes_.empty() && x.is_floating_point() && x.device().is_cpu()) {
    const bool state = StateTap(name);  // FollowStates casts it, every step
    // A probe step's own casts feed the histories; the steps between observe.
    if (!ProbeStep() && !state) ObserveForProbes(TargetRole::kActivation, RoleKey(TargetRole::kActivation, name), x);
    if (!x.requires_grad() && !state) no_grad_taps_[name] = x;  // a stored state? (FollowStates)
  }
  const bool tracking = Tracking();
  if (tracking) Record(name, Role::kActivation, x, module_type);
  torch::Tensor y = x;
  if (opt_.simulate && x.is_floating_point() && x.device().is_cpu()) {
    // Straight-through: forward sees q(x), backward passes the gradient on.
    torch::Tensor q = FakeQuant(sim_fwd_, name, Role::kActivation, x);
    y = x.requires_grad() ? StraightThrough::apply(x, q.detach()) : q;
  }
  if (y.requires_grad() && (opt_.simulate || (tracking && Selected(name, Role::kActivationGrad)))) {
    const int64_t step = step_;
    y.register_hook([this, name, module_type, step](torch::Tensor grad) -> torch::Tensor {
      if (step == step_ && Tracking()) Record(name, Role::kActivationGrad, grad, module_type);
      if (!opt_.simulate) return {};
      return FakeQuant(sim_bwd_, name, Role::kActivationGrad, grad);
    });
  }
  return y;
}

void Tracker::Impl::Scalar(const std::string& name, double value) {
  AddScalar(ScalarRecord{step_, name, value});
}

Status Tracker::Impl::Close(const std::string& status) {
  if (closed_) return Status();
  closed_ = true;
  if (!analyzer_) return Status();  // Init failed before the run was opened
  analyzer_->Drain();
  Check(nullptr, 0.0);  // findings the analyzer thread judged after the last step
  if (live_) live_->Close(status);
  if (!writer_) return Status();
  return writer_->Close(status == "finished" ? Status() : Status::Error(status));
}

// --- Tracker -----------------------------------------------------------------

Tracker::Tracker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Tracker::Tracker(torch::nn::Module& model, torch::optim::Optimizer& optimizer, TrackerOptions opt)
    : impl_(std::make_unique<Impl>(model, optimizer, std::move(opt))) {
  Status s = impl_->Init(this);
  if (!s.ok()) throw TrackerError("lpsim::Tracker: " + s.message());
}

StatusOr<std::unique_ptr<Tracker>> Tracker::Create(torch::nn::Module& model,
                                                   torch::optim::Optimizer& optimizer,
                                                   TrackerOptions opt) {
  std::unique_ptr<Tracker> t(new Tracker(std::make_unique<Impl>(model, optimizer, std::move(opt))));
  Status s;
  try {
    s = t->impl_->Init(t.get());
  } catch (const c10::Error& e) {
    s = Status::Error(std::string("LibTorch error while setting up the tracker: ") + e.what_without_backtrace());
  }
  if (!s.ok()) return s;
  return t;
}

Tracker::~Tracker() {
  if (!impl_) return;
  // A destructor cannot report; a run that an exception ends is not "ok".
  (void)impl_->Close(std::uncaught_exceptions() > 0
                         ? "failed: an exception ended the training loop before Tracker::Close"
                         : "finished");
}

torch::Tensor Tracker::tap(const std::string& name, const torch::Tensor& x,
                           const std::string& module_type) {
  return impl_->Tap(name, x, module_type);
}

StepResult Tracker::step(const torch::Tensor& loss) { return impl_->Step(loss); }
void Tracker::set_batch(const torch::Tensor& inputs, const torch::Tensor& targets) {
  impl_->SetBatch(inputs, targets);
}
std::vector<Finding> Tracker::findings() const { return impl_->findings(); }
void Tracker::scalar(const std::string& name, double value) { impl_->Scalar(name, value); }
int64_t Tracker::current_step() const { return impl_->step(); }
bool Tracker::tracking_now() const { return impl_->Tracking(); }
const std::string& Tracker::run_path() const { return impl_->run_path(); }
std::vector<std::string> Tracker::notes() const { return impl_->notes(); }
std::vector<TensorRecord> Tracker::last_records() const { return impl_->last_records(); }
Status Tracker::Close(const std::string& status) { return impl_->Close(status); }
live::Agent* Tracker::live_agent() const { return impl_->agent(); }
std::string Tracker::live_url() const { return impl_->agent() ? impl_->agent()->url() : ""; }

torch::Tensor TrackedSequentialImpl::forward(torch::Tensor x) {
  const auto children = named_children();
  size_t i = 0;
  for (auto it = begin(); it != end(); ++it, ++i) {
    x = it->forward(x);
    if (tracker_ && is_training() && i < children.size()) {
      x = tracker_->tap(prefix_ + children[i].key(), x, ModuleTypeName(*children[i].value()));
    }
  }
  return x;
}

}  // namespace lpsim
