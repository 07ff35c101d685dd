#include "checks/neurons.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace lpsim {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

const char* NeuronRuleFor(const std::string& module_type) {
  const std::string t = Lower(module_type);
  if (t == "relu" || t == "relu6") return "dead_relu";
  if (t == "sigmoid" || t == "tanh") return "activation_saturation";
  return nullptr;
}

int NeuronAxis(const std::vector<int64_t>& shape) {
  if (shape.empty()) return -1;
  return shape.size() >= 4 ? 1 : static_cast<int>(shape.size()) - 1;
}

std::optional<NeuronSummary> SummarizeNeurons(const float* x, const std::vector<int64_t>& shape,
                                              const std::string& module_type, double zero_threshold) {
  const std::string type = Lower(module_type);
  const bool relu = type == "relu" || type == "relu6";
  const bool sigmoid = type == "sigmoid";
  if (!relu && !sigmoid && type != "tanh") return std::nullopt;
  const int axis = NeuronAxis(shape);
  if (axis < 0 || x == nullptr) return std::nullopt;
  // View the tensor as [outer, neurons, inner]: a neuron's values are
  // x[(o * neurons + c) * inner + i].
  size_t outer = 1, inner = 1;
  for (size_t d = 0; d < static_cast<size_t>(axis); ++d) outer *= static_cast<size_t>(shape[d]);
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= static_cast<size_t>(shape[d]);
  const size_t neurons = static_cast<size_t>(shape[static_cast<size_t>(axis)]);
  if (outer * neurons * inner == 0) return std::nullopt;

  NeuronSummary s;
  s.axis = axis;
  s.count.assign(neurons, 0);
  constexpr int B = NeuronSummary::kBins;
  if (relu) {
    s.zero_threshold = zero_threshold;
    s.near_zero.assign(neurons, 0);
  } else {
    s.bin_count.assign(neurons * B, 0);
    s.bin_sum.assign(neurons * B, 0.0f);
  }
  const float zt = static_cast<float>(zero_threshold);
  for (size_t o = 0; o < outer; ++o) {
    for (size_t c = 0; c < neurons; ++c) {
      const float* p = x + (o * neurons + c) * inner;
      uint32_t n = 0, z = 0;
      if (relu) {
        for (size_t i = 0; i < inner; ++i) {
          const float v = p[i];
          if (!std::isfinite(v)) continue;
          ++n;
          z += std::fabs(v) < zt;
        }
        s.near_zero[c] += z;
      } else {
        uint32_t* bc = &s.bin_count[c * B];
        float* bs = &s.bin_sum[c * B];
        for (size_t i = 0; i < inner; ++i) {
          const float v = p[i];
          if (!std::isfinite(v)) continue;
          ++n;
          const float g = std::clamp(sigmoid ? 2.0f * v - 1.0f : v, -1.0f, 1.0f);
          const int b = std::min(B - 1, static_cast<int>((g + 1.0f) * (0.5f * B)));
          ++bc[b];
          bs[b] += g;
        }
      }
      s.count[c] += n;
    }
  }
  return s;
}

}  // namespace lpsim
