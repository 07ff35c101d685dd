// Activation rules: activation_out_of_range, activation_saturation and
// dead_relu, judged per neuron when the record carries a NeuronSummary
// (checks/neurons.h), else per layer from its statistics (a stored run).
//
//   ActivationRules activations(config.activations, &sink);
//   activations.Activation(r);  // an activation record with its module_type
#ifndef LPSIM_CHECKS_RULES_ACTIVATION_RULES_H_
#define LPSIM_CHECKS_RULES_ACTIVATION_RULES_H_

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/records.h"
#include "checks/rules/loss_rules.h"
#include "checks/rules/params.h"
#include "checks/rules/rule_support.h"

namespace lpsim {

struct ActivationOutOfRangeParams {
  double tolerance = 1e-6;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("tolerance", p.tolerance, 0, kNoLimit);
  }
};

struct ActivationSaturationParams {
  double max_rho = 0.85;
  int window = 10;
  double max_saturated_neurons = 0.5;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_rho", p.max_rho, 0, 1);
    v("window", p.window, 1, kNoLimit);
    v("max_saturated_neurons", p.max_saturated_neurons, 0, 1);
  }
};

struct DeadReluParams {
  double max_zero_share = 0.85;
  int window = 10;
  double zero_threshold = 1e-5;
  double neuron_zero_share = 0.95;
  double max_dead_neurons = 0.5;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_zero_share", p.max_zero_share, 0, 1);
    v("window", p.window, 1, kNoLimit);
    v("zero_threshold", p.zero_threshold, 0, kNoLimit);
    v("neuron_zero_share", p.neuron_zero_share, 0, 1);
    v("max_dead_neurons", p.max_dead_neurons, 0, 1);
  }
};

struct ActivationParams {
  ActivationOutOfRangeParams activation_out_of_range;
  ActivationSaturationParams activation_saturation;
  DeadReluParams dead_relu;
  template <typename Self, typename F>
  static void Rules(Self& p, F&& f) {
    f("activation_out_of_range", p.activation_out_of_range);
    f("activation_saturation", p.activation_saturation);
    f("dead_relu", p.dead_relu);
  }
};

namespace rules {

// The last `window` per-neuron summaries of one layer and their per-neuron
// totals, kept up to date as summaries enter and leave (no re-summing).
struct NeuronWindow {
  std::deque<NeuronSummary> buf;
  std::vector<uint64_t> count, near_zero, bin_count;
  std::vector<double> bin_sum;

  void Push(NeuronSummary s, size_t cap);

 private:
  void Apply(const NeuronSummary& s, int sign);
};

}  // namespace rules

struct RuleInfo;

class ActivationRules {
 public:
  static void Catalog(std::vector<RuleInfo>* out);

  // `loss` gates dead_relu and activation_saturation on a stalled loss; it
  // must outlive this.
  ActivationRules(const ActivationParams& params, const LossRules* loss, FindingSink* sink)
      : p_(params), loss_(loss), sink_(sink) {}
  void Activation(const TensorRecord& r);

 private:
  void SaturationPerNeuron(const TensorRecord& r);
  void SaturationPerLayer(const TensorRecord& r, const std::string& type);
  void DeadPerNeuron(const TensorRecord& r);
  void DeadPerLayer(const TensorRecord& r);

  // Dead or saturated units are a cause; they are reported with their
  // symptom, a loss that stopped improving over 2 x the rule's window. A
  // run with no loss recorded (records checked on their own) shows no
  // progress either: the rule judges the records alone.
  bool Stalled(int window) const {
    return loss_->losses().empty() || loss_->Stalled(2 * static_cast<size_t>(window));
  }

  ActivationParams p_;
  const LossRules* loss_;
  FindingSink* sink_;
  std::map<std::string, std::deque<std::pair<double, double>>> layer_buf_;  // (sum, count)
  std::map<std::string, rules::NeuronWindow> neuron_buf_;
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_RULES_ACTIVATION_RULES_H_
