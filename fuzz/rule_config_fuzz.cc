// Fuzzes the rule configuration (checks/checker.h, CheckConfig::FromJson):
// every document is either refused with a message or gives a configuration
// that survives its own round trip (ToJson, FromJson), and a Checker built
// from it runs a small fixed training trace (every rule family: weights,
// gradients, ReLU/Sigmoid activations, optimizer state, low-precision
// formats under none/current/delayed recipes, loss and update ratios, a
// non-finite step) without a sanitizer report, whatever the thresholds.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "checks/checker.h"
#include "checks/neurons.h"
#include "formats/format.h"
#include "fuzz/fuzz_util.h"
#include "simd/analyze.h"

namespace {

using namespace lpsim;

// A rules file is small; longer inputs only make the JSON parser slower.
constexpr size_t kMaxConfigBytes = 16 << 10;
constexpr int kSteps = 6;

TensorRecord Rec(int64_t step, const std::string& name, Role role, std::vector<float> x,
                 std::vector<int64_t> shape, const std::string& module_type,
                 const std::string& recipe) {
  std::vector<FormatSlot> slots;
  std::vector<std::string> specs = {"e4m3fn", "e5m2", "bf16"};
  float amax = 0;
  for (float v : x) amax = std::isfinite(v) ? std::max(amax, std::fabs(v)) : amax;
  for (const std::string& s : specs) {
    const Format f = *ParseFormat(s);
    slots.push_back({f, recipe == "none" || amax == 0 ? 1.0f : f.MaxValue() / amax});
  }
  const AnalyzeResult a = simd::AnalyzeRef(x.data(), x.size(), slots);
  TensorRecord r;
  r.step = step;
  r.name = name;
  r.role = role;
  r.module_type = module_type;
  r.stats = a.stats;
  for (size_t i = 0; i < specs.size(); ++i) {
    r.formats.push_back({specs[i], recipe, slots[i].scale, a.formats[i]});
  }
  if (!module_type.empty()) {
    r.neurons = SummarizeNeurons(x.data(), shape, module_type, /*zero_threshold=*/1e-5);
  }
  r.shape = std::move(shape);
  return r;
}

struct Step {
  std::vector<TensorRecord> tensors;
  std::vector<ScalarRecord> scalars;
};

// A little run whose numbers move every step: weights grow, gradients
// shrink, the loss falls then turns NaN at the last step.
const std::vector<Step>& Trace() {
  static const std::vector<Step> trace = [] {
    std::vector<Step> out(kSteps);
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto draw = [&](size_t n, float scale, float shift) {
      std::vector<float> v(n);
      for (float& x : v) x = normal(rng) * scale + shift;
      return v;
    };
    for (int s = 0; s < kSteps; ++s) {
      Step& st = out[s];
      const float grow = 1.0f + 0.5f * static_cast<float>(s);
      const char* recipe = s % 3 == 0 ? "none" : s % 3 == 1 ? "current" : "delayed16";
      st.tensors.push_back(Rec(s, "fc1.weight", Role::kWeight, draw(64, 0.1f * grow, 0), {8, 8}, "", recipe));
      std::vector<float> g = draw(64, 1e-3f / grow, 0);
      if (s == kSteps - 1) g[3] = NAN, g[5] = INFINITY;
      st.tensors.push_back(Rec(s, "fc1.weight", Role::kWeightGrad, g, {8, 8}, "", recipe));
      std::vector<float> relu = draw(64, 1.0f, -0.5f * static_cast<float>(s));
      for (float& v : relu) v = std::max(v, 0.0f);
      st.tensors.push_back(Rec(s, "relu1", Role::kActivation, relu, {4, 16}, "ReLU", recipe));
      std::vector<float> sig = draw(64, 4.0f, 0);
      for (float& v : sig) v = 1.0f / (1.0f + std::exp(-v));
      st.tensors.push_back(Rec(s, "sig1", Role::kActivation, sig, {4, 16}, "Sigmoid", "delayed16"));
      st.tensors.push_back(Rec(s, "relu1", Role::kActivationGrad, draw(64, 1e-6f, 0), {4, 16}, "", recipe));
      st.tensors.push_back(Rec(s, "fc1.weight.exp_avg", Role::kOptimizerState, draw(64, 1e-4f, 0), {8, 8}, "", "none"));
      st.scalars.push_back({s, "loss", s == kSteps - 1 ? NAN : 2.0 / (1 + s) - (s == 3 ? 3.0 : 0.0)});
      st.scalars.push_back({s, "lr", 1e-3});
      st.scalars.push_back({s, "update_ratio/fc1.weight", 1e-3 * s});
    }
    return out;
  }();
  return trace;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxConfigBytes) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  StatusOr<CheckConfig> config = CheckConfig::FromJson(text);
  if (!config.ok()) {
    FUZZ_CHECK(!config.status().message().empty());
    return 0;
  }
  StatusOr<CheckConfig> again = CheckConfig::FromJson(config->ToJson());
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->ToJson() == config->ToJson());
  Checker checker(*config);
  for (int s = 0; s < kSteps; ++s) {
    const Step& st = Trace()[s];
    if (s == 0) {
      for (const TensorRecord& r : st.tensors) {
        if (r.role == Role::kWeight) checker.AddInitialWeight(r);
      }
    }
    for (const TensorRecord& r : st.tensors) checker.Add(r);
    for (const ScalarRecord& r : st.scalars) checker.Add(r);
    for (const Finding& f : checker.EndStep(s)) FUZZ_CHECK(!f.rule.empty() && !f.message.empty());
  }
  return 0;
}
