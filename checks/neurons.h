// Per-neuron summaries of activation outputs, for the per-neuron rules
// (dead_relu, activation_saturation; TFCheck / TheDeepChecker judge neurons,
// not layers).
//
// Meant for the tracker's record builder, on a tap's fp32 output at tracked
// steps only, and only for ReLU/ReLU6/Sigmoid/Tanh taps whose rule is on; one
// pass over the data, a few numbers per neuron out. Plain pointer + shape in,
// so the rules and their tests need no torch.
//
//   std::optional<NeuronSummary> s =
//       SummarizeNeurons(data, {64, 128}, "ReLU", /*zero_threshold=*/1e-5);
//   record.neurons = std::move(s);
#ifndef LPSIM_CHECKS_NEURONS_H_
#define LPSIM_CHECKS_NEURONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/records.h"

namespace lpsim {

// The per-neuron rule that judges outputs of this module type (case
// insensitive): "dead_relu" for ReLU/ReLU6, "activation_saturation" for
// Sigmoid/Tanh; nullptr for any other type.
const char* NeuronRuleFor(const std::string& module_type);

// The neuron dimension of an activation of this shape: 1 for >= 4-D
// ([N, C, H, W], [N, C, D, H, W]), else the last one; -1 for a scalar.
int NeuronAxis(const std::vector<int64_t>& shape);

// Summarizes a contiguous row-major fp32 activation `x` of `shape` (see
// NeuronSummary). ReLU family: count and near-zero count (|y| <
// zero_threshold) per neuron; Sigmoid/Tanh: count and the 10-bin histogram of
// g per neuron. NaN/Inf outputs are not counted (nonfinite's job). Returns
// nothing for other module types, scalars and empty tensors.
std::optional<NeuronSummary> SummarizeNeurons(const float* x, const std::vector<int64_t>& shape,
                                              const std::string& module_type, double zero_threshold);

}  // namespace lpsim

#endif  // LPSIM_CHECKS_NEURONS_H_
