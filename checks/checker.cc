#include "checks/checker.h"

#include <algorithm>

#include "checks/rules/rule_support.h"

namespace lpsim {

// The families, fed in a fixed order (findings of one step come out in the
// order they fired, then sorted by severity): weight shapes, initial weights,
// scalars (loss, update ratios), gradients across layers, then each record
// (nonfinite, weights, activations, low precision per format).
class Checker::Impl {
 public:
  explicit Impl(CheckConfig c)
      : config_(std::move(c)),
        sink_(&config_),
        nonfinite_(&sink_),
        loss_(config_.loss, &sink_),
        weights_(config_.weights, &loss_, &sink_),
        gradients_(config_.gradients, &loss_, &sink_),
        activations_(config_.activations, &loss_, &sink_),
        low_precision_(config_.low_precision, &loss_, &sink_) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  const CheckConfig& config() const { return config_; }
  const std::vector<Finding>& findings() const { return sink_.findings(); }
  void Add(const TensorRecord& r) { records_.push_back(r); }
  void Add(const ScalarRecord& s) { scalars_.push_back(s); }
  void AddInitial(const TensorRecord& r) { initial_.push_back(r); }
  Policy PolicyFor(const std::string& rule) const {
    auto it = config_.rules.find(rule);
    return it == config_.rules.end() ? Policy::kLog : it->second.policy;
  }

  std::vector<Finding> EndStep(int64_t step) {
    static const std::string kUpdateRatio = "update_ratio/";
    sink_.BeginStep(step);
    weights_.BeginStep();
    if (!weights_.HasOutputLayer()) {
      // The last >=2-D weight in parameter order (initial values of a live
      // run, else the first step's records) is the output layer.
      const std::vector<TensorRecord>& seen = initial_.empty() ? records_ : initial_;
      for (const TensorRecord& r : seen) {
        if (r.role == Role::kWeight && r.shape.size() >= 2) weights_.SetOutputLayer(r.name);
      }
    }
    for (const TensorRecord& r : records_) {
      if (r.role == Role::kWeight) weights_.NoteShape(r);
      if (r.role == Role::kWeightGrad) weights_.NoteGradient(r);
    }
    for (const TensorRecord& r : initial_) weights_.PoorInit(r);
    initial_.clear();
    // The loss first: unstable_learning and lp_underflow read the step's loss.
    for (const ScalarRecord& s : scalars_) {
      if (s.name == "loss" && nonfinite_.Loss(s.value)) loss_.Add(s.value);
    }
    low_precision_.ForwardLoss(scalars_);
    for (const ScalarRecord& s : scalars_) {
      if (s.name.rfind(kUpdateRatio, 0) == 0) weights_.UpdateRatio(s.name.substr(kUpdateRatio.size()), s.value);
    }
    gradients_.Step(records_);
    low_precision_.BeginStep(records_);
    for (const TensorRecord& r : records_) {
      nonfinite_.Tensor(r);
      if (r.role == Role::kWeight) weights_.Weight(r);
      if (r.role == Role::kActivation) activations_.Activation(r);
      for (const FormatRecord& f : r.formats) low_precision_.Judge(r, f);
    }
    low_precision_.EndStep();
    records_.clear();
    scalars_.clear();
    return sink_.TakeFresh();
  }

 private:
  CheckConfig config_;
  FindingSink sink_;
  std::vector<TensorRecord> records_, initial_;
  std::vector<ScalarRecord> scalars_;
  NonfiniteRule nonfinite_;
  LossRules loss_;
  WeightRules weights_;
  GradientRules gradients_;
  ActivationRules activations_;
  LowPrecisionRules low_precision_;
};

Checker::Checker(CheckConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Checker::~Checker() = default;
Checker::Checker(Checker&&) noexcept = default;
Checker& Checker::operator=(Checker&&) noexcept = default;
const CheckConfig& Checker::config() const { return impl_->config(); }
void Checker::Add(const TensorRecord& record) { impl_->Add(record); }
void Checker::Add(const ScalarRecord& scalar) { impl_->Add(scalar); }
void Checker::AddInitialWeight(const TensorRecord& record) { impl_->AddInitial(record); }
std::vector<Finding> Checker::EndStep(int64_t step) { return impl_->EndStep(step); }
const std::vector<Finding>& Checker::findings() const { return impl_->findings(); }
Policy Checker::PolicyFor(const std::string& rule) const { return impl_->PolicyFor(rule); }

void SortForDisplay(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    return a.step > b.step;
  });
}

}  // namespace lpsim
