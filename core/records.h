// Records: what the tracker observes per tensor and step, in plain structs.
//
// Rules (checks/), the run database (store/) and reports (report/) all read
// these, never tensors, so everything above the tracker works the same on a
// live job and on a stored run.
//
//   TensorRecord r{step, "fc1", Role::kActivationGrad, {64, 128}, "float32"};
//   r.stats = result.stats;  r.formats.push_back({"e5m2", "delayed16", s, counts});
#ifndef LPSIM_CORE_RECORDS_H_
#define LPSIM_CORE_RECORDS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cast_counts.h"
#include "core/status.h"
#include "core/tensor_stats.h"

namespace lpsim {

// The role a tensor plays in training. Values are bits so a set of roles is
// a Role too (`Role::kWeight | Role::kWeightGrad`, `Role::All`).
enum class Role : uint8_t {
  kActivation = 1,       // a module's output in forward
  kActivationGrad = 2,   // the gradient with respect to that output
  kWeight = 4,           // a parameter
  kWeightGrad = 8,       // a parameter's gradient
  kOptimizerState = 16,  // Adam exp_avg / exp_avg_sq, SGD momentum, ...
  kNone = 0,
  kAll = 31,
  All = kAll,  // the spelling of the public tracker API
};
constexpr Role kSingleRoles[] = {Role::kActivation, Role::kActivationGrad, Role::kWeight,
                                 Role::kWeightGrad, Role::kOptimizerState};
inline Role operator|(Role a, Role b) {
  return static_cast<Role>(static_cast<uint8_t>(a) | static_cast<uint8_t>(b));
}
inline bool Contains(Role set, Role r) {
  return (static_cast<uint8_t>(set) & static_cast<uint8_t>(r)) != 0;
}
// Single roles: activation, activation_grad, weight, weight_grad,
// optimizer_state; sets join them with '|' ("all", "none" for the extremes).
std::string ToString(Role r);
// One name, a '|' or ',' separated list, "all" or "none".
StatusOr<Role> ParseRole(const std::string& s);

// One format (with one scaling recipe) simulated on one tensor.
struct FormatRecord {
  std::string format;  // spec, e.g. "e4m3fn" or "e5m2:sat"
  std::string recipe;  // e.g. "none", "current", "delayed16", "mx"
  float scale = 1.0f;  // the multiplier the cast saw (per-tensor recipes)
  CastCounts counts;
};

// A per-neuron summary of one activation record (one tracked step) of a
// ReLU/ReLU6/Sigmoid/Tanh layer: what the per-neuron rules (dead_relu,
// activation_saturation) buffer over their window. A neuron is one index of
// the activation's channel dimension: dim 1 of a >= 4-D output (conv,
// [N, C, H, W]), else the last dimension ([N, F], [N, L, F]). Made by
// SummarizeNeurons() (checks/neurons.h); not stored in the run database.
struct NeuronSummary {
  static constexpr int kBins = 10;  // TFCheck's rho_B uses B = 10
  int axis = -1;                    // the neuron dimension of the record's shape
  // Per neuron: finite outputs seen.
  std::vector<uint32_t> count;
  // ReLU family, per neuron: outputs with |y| < zero_threshold.
  std::vector<uint32_t> near_zero;
  double zero_threshold = 0;
  // Sigmoid/Tanh, per neuron x kBins (index neuron * kBins + b): outputs
  // mapped to g in [-1, 1] (tanh: y, sigmoid: 2y - 1, clamped) fall in bin
  // b = [-1 + 2b/B, -1 + 2(b+1)/B) (g = 1 in the last); their count and the
  // sum of their g.
  std::vector<uint32_t> bin_count;
  std::vector<float> bin_sum;

  size_t neurons() const { return count.size(); }
};

// How an activation's values are spread over the samples of its batch (dim 0
// of the record's shape): per row (one sample, all its values) and per
// position (one index of the other dimensions, over the batch). The
// low-precision rules read it to tell what a cast loses as a whole: a row
// (a quiet sample that a per-row normalization would amplify), a position
// (a channel or frame below the format's range), or the sample-to-sample
// variation of a position that rides on a large common offset (a DC level
// that a later normalization removes). Each distribution is kept as
// kQuantiles + 1 quantiles (levels k / kQuantiles, nearest rank), log2 of
// the value, so any share can be read back within 1 / kQuantiles. Made by
// SummarizeSamples() (checks/samples.h) for activations; stored in the run
// database (stats.samples, docs/store.md), so a stored run is judged as the
// live one was.
struct SampleSummary {
  static constexpr int kQuantiles = 32;
  using Quantiles = std::vector<float>;  // kQuantiles + 1 values, increasing
  int64_t rows = 0;       // dim 0
  int64_t positions = 0;  // the product of the other dimensions
  // log2 rms of each row, over rows that are not all zero.
  Quantiles row_log2_rms;
  // log2(|mean| / std) of each row over its values: how far its common
  // part sits above the variation within it (what a per-row normalization,
  // LayerNorm, removes and reads); over rows whose values vary.
  Quantiles row_log2_offset;
  // log2 rms of each position over the batch, over positions not all zero.
  Quantiles position_log2_rms;
  // log2(|mean| / std) of each position over the batch: how many binades
  // its common part sits above its sample-to-sample variation; over
  // positions whose values vary (std > 0).
  Quantiles position_log2_offset;

  // The share of the distribution q below `value` (0..1), interpolated
  // between quantiles; NaN when q is empty.
  static double ShareBelow(const Quantiles& q, double value);
};

struct TensorRecord {
  int64_t step = 0;
  std::string name;            // e.g. "fc1" or "fc1.weight" or "fc1.weight.exp_avg"
  Role role = Role::kActivation;
  std::vector<int64_t> shape;
  std::string dtype = "float32";
  std::string module_type;     // e.g. "Linear", "ReLU" (for tandv export, rules)
  TensorStats stats;
  std::vector<FormatRecord> formats;
  // Set by whoever builds the record (SummarizeNeurons, for ReLU/ReLU6/
  // Sigmoid/Tanh activations); not stored, so absent in a stored run, where
  // the per-neuron rules fall back to the layer's statistics.
  std::optional<NeuronSummary> neurons;
  // Set by whoever builds the record (SummarizeSamples, for activations of
  // at least two samples); stored (schema version 2).
  std::optional<SampleSummary> samples;
};

struct ScalarRecord {
  int64_t step = 0;
  std::string name;  // "loss", "lr", ...
  double value = 0;
};

enum class Severity : uint8_t { kInfo, kWarning, kError };
const char* ToString(Severity s);

struct Finding {
  std::string rule;
  Severity severity = Severity::kWarning;
  int64_t step = 0;
  std::string tensor;   // empty for run-level findings (loss, ...)
  std::string message;  // what, why it matters, what to try
  std::map<std::string, double> evidence;
};

}  // namespace lpsim

#endif  // LPSIM_CORE_RECORDS_H_
