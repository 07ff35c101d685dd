#include "checks/rules/activation_rules.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "checks/check_config.h"
#include "core/bits.h"

namespace lpsim {

void ActivationRules::Catalog(std::vector<RuleInfo>* out) {
  constexpr Severity W = Severity::kWarning, E = Severity::kError;
  out->push_back(CatalogEntry("activation_out_of_range", "activations",
                  "outputs of Sigmoid/Softmax outside [0,1], Tanh outside [-1,1], ReLU/ReLU6 below 0 "
                  "(by the tap's module_type)",
                  "TFCheck activation range check", E));
  out->push_back(CatalogEntry("activation_saturation", "activations",
                  "Sigmoid/Tanh layer: share of neurons whose rho_B (B = 10 bins of the output mapped to "
                  "[-1, 1]) over the last `window` records exceeds max_rho is > max_saturated_neurons; "
                  "without per-neuron summaries (a stored run), the layer's rho_B from its log histogram "
                  "> max_rho; reported while the data show the loss has stopped improving (a line through "
                  "2 x window losses: its decrease plus loss_not_decreasing's z standard errors is below "
                  "its min_decrease)",
                  "TFCheck rho_B (Rakitianskaia & Engelbrecht, B = 10); TheDeepChecker rho > 0.85 in > 50% "
                  "of the neurons (buffer of 10 batches); symptom gate: AUTOTRAINER (causes are diagnosed "
                  "once a symptom shows)", W));
  out->push_back(CatalogEntry("dead_relu", "activations",
                  "ReLU layer: share of dead neurons (>= neuron_zero_share of their outputs over the last "
                  "`window` records below zero_threshold) is > max_dead_neurons; without per-neuron "
                  "summaries (a stored run), the layer's share of zero outputs > max_zero_share (> 50% dead "
                  "neurons plus live ones 70% at zero gives 0.85); reported while the data show the loss "
                  "has stopped improving (as for activation_saturation)",
                  "TheDeepChecker (95th percentile of |y| < 1e-5 in > 50% of the neurons), DeepDiagnosis "
                  "(>= 70% zero); symptom gate: AUTOTRAINER", W));
}

using rules::Fmt;
using rules::Push;

namespace rules {

void NeuronWindow::Push(NeuronSummary s, size_t cap) {
  const bool same_layout = !buf.empty() && buf.front().neurons() == s.neurons() &&
                           buf.front().near_zero.size() == s.near_zero.size() &&
                           buf.front().bin_count.size() == s.bin_count.size();
  if (!same_layout) {  // a new layer shape: start over
    buf.clear();
    count.assign(s.count.size(), 0);
    near_zero.assign(s.near_zero.size(), 0);
    bin_count.assign(s.bin_count.size(), 0);
    bin_sum.assign(s.bin_sum.size(), 0.0);
  }
  Apply(s, +1);
  buf.push_back(std::move(s));
  while (buf.size() > cap) {
    Apply(buf.front(), -1);
    buf.pop_front();
  }
}

void NeuronWindow::Apply(const NeuronSummary& s, int sign) {
  // sign is +1 (a summary enters the window) or -1 (it leaves).
  auto apply = [sign](uint64_t* total, uint64_t v) { *total = sign > 0 ? *total + v : *total - v; };
  for (size_t i = 0; i < s.count.size(); ++i) apply(&count[i], s.count[i]);
  for (size_t i = 0; i < s.near_zero.size(); ++i) apply(&near_zero[i], s.near_zero[i]);
  for (size_t i = 0; i < s.bin_count.size(); ++i) apply(&bin_count[i], s.bin_count[i]);
  for (size_t i = 0; i < s.bin_sum.size(); ++i) bin_sum[i] += sign * static_cast<double>(s.bin_sum[i]);
}

}  // namespace rules

namespace {

// The value at the middle of a log-histogram bin (TensorStats::kLogMantissaBits).
double LogBinValue(size_t b) {
  const int shift = 23 - TensorStats::kLogMantissaBits;
  const uint32_t bits = (static_cast<uint32_t>(b) << shift) | (1u << (shift - 1));
  return FloatOf(bits);
}

}  // namespace

void ActivationRules::Activation(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  const std::string type = rules::Lower(r.module_type);
  if (type.empty() || s.finite() == 0) return;
  double lo = -INFINITY, hi = INFINITY;
  if (type == "sigmoid" || type == "softmax") lo = 0, hi = 1;
  if (type == "tanh") lo = -1, hi = 1;
  if (type == "relu") lo = 0;
  if (type == "relu6") lo = 0, hi = 6;
  if (std::isfinite(lo) || std::isfinite(hi)) {
    const double tol = p_.activation_out_of_range.tolerance;
    sink_->Judge("activation_out_of_range", r.name, s.min < lo - tol || s.max > hi + tol, r.name,
                 "outputs of " + r.module_type + " layer '" + r.name + "' lie in [" + Fmt(s.min) + ", " +
                     Fmt(s.max) + "], outside the function's range [" + Fmt(lo) + ", " + Fmt(hi) +
                     "]. The activation is not what the tap says, or something modifies its output; "
                     "check the layer.",
                 {{"min", s.min}, {"max", s.max}, {"range_lo", lo}, {"range_hi", hi}});
  }
  const bool per_neuron = r.neurons && r.neurons->neurons() > 0;
  if (type == "sigmoid" || type == "tanh") {
    if (per_neuron && !r.neurons->bin_count.empty()) {
      SaturationPerNeuron(r);
    } else {
      SaturationPerLayer(r, type);
    }
    return;
  }
  if (type == "relu" || type == "relu6") {  // LeakyReLU is never exactly 0
    if (per_neuron && !r.neurons->near_zero.empty()) {
      DeadPerNeuron(r);
    } else {
      DeadPerLayer(r);
    }
  }
}

// Without a per-neuron summary (e.g. a stored run): rho_B of the whole
// layer. With an even number of bins split at 0 it equals mean |g|, g the
// output mapped to [-1, 1]; values come from the log histogram (bin
// midpoints).
void ActivationRules::SaturationPerLayer(const TensorRecord& r, const std::string& type) {
  const TensorStats& s = r.stats;
  double sum = 0;
  for (size_t b = 0; b < s.log_hist.size(); ++b) {
    if (s.log_hist[b] == 0) continue;
    const double v = LogBinValue(b);
    const double g = type == "tanh" ? std::min(1.0, v) : std::fabs(2 * std::min(1.0, v) - 1);
    sum += g * static_cast<double>(s.log_hist[b]);
  }
  if (type == "sigmoid") sum += static_cast<double>(s.zeros);  // sigmoid 0 -> g = -1
  const ActivationSaturationParams& p = p_.activation_saturation;
  const size_t window = static_cast<size_t>(p.window);
  auto& d = layer_buf_[r.name + "|sat"];
  Push(&d, std::make_pair(sum, static_cast<double>(s.finite())), window);
  if (d.size() < window) return;
  double a = 0, c = 0;
  for (const auto& [x, n] : d) a += x, c += n;
  const double rho = c > 0 ? a / c : 0;
  sink_->Judge("activation_saturation", r.name, rho > p.max_rho && Stalled(p.window), r.name,
               r.module_type + " layer '" + r.name + "' is saturated: rho_B = " + Fmt(rho) + " > " +
                   Fmt(p.max_rho) + " over the last " + std::to_string(window) +
                   " records (whole layer: no per-neuron summaries in this run), most outputs sit at "
                   "the flat ends of the function where gradients vanish. Use ReLU-like activations, "
                   "normalize inputs, or scale down the initial weights and biases.",
               {{"rho_b", rho}, {"max_rho", p.max_rho}, {"per_neuron", 0}});
}

// Without a per-neuron summary: the layer's share of exact zeros.
void ActivationRules::DeadPerLayer(const TensorRecord& r) {
  const TensorStats& s = r.stats;
  const DeadReluParams& p = p_.dead_relu;
  const size_t window = static_cast<size_t>(p.window);
  auto& d = layer_buf_[r.name + "|dead"];
  Push(&d, std::make_pair(static_cast<double>(s.zeros), static_cast<double>(s.count)), window);
  if (d.size() < window) return;
  double z = 0, c = 0;
  for (const auto& [x, n] : d) z += x, c += n;
  const double share = c > 0 ? z / c : 0;
  sink_->Judge("dead_relu", r.name, share > p.max_zero_share && Stalled(p.window), r.name,
               "ReLU layer '" + r.name + "' is dying: " + Fmt(100 * share) + "% of its outputs were 0 "
                   "over the last " + std::to_string(window) + " records (threshold " +
                   Fmt(100 * p.max_zero_share) + "%, whole layer: no per-neuron summaries in this run). "
                   "Dead units get no gradient and never recover; lower the learning rate, check for large "
                   "negative biases, or use LeakyReLU.",
               {{"zero_share", share}, {"max_zero_share", p.max_zero_share}, {"per_neuron", 0}});
}

void ActivationRules::SaturationPerNeuron(const TensorRecord& r) {
  const ActivationSaturationParams& p = p_.activation_saturation;
  const size_t window = static_cast<size_t>(p.window);
  rules::NeuronWindow& w = neuron_buf_[r.name + "|sat"];
  w.Push(*r.neurons, window);
  if (w.buf.size() < window) return;
  constexpr size_t B = NeuronSummary::kBins;
  size_t seen = 0, saturated = 0;
  double layer_abs = 0, layer_n = 0;
  for (size_t n = 0; n < w.count.size(); ++n) {
    if (w.count[n] == 0) continue;
    // rho_B = sum_b N_b |mean g of bin b| / sum_b N_b.
    double a = 0;
    for (size_t b = 0; b < B; ++b) a += std::fabs(w.bin_sum[n * B + b]);
    const double rho = a / static_cast<double>(w.count[n]);
    ++seen;
    saturated += rho > p.max_rho;
    layer_abs += a, layer_n += static_cast<double>(w.count[n]);
  }
  if (seen == 0) return;
  const double share = static_cast<double>(saturated) / static_cast<double>(seen);
  const double rho = layer_n > 0 ? layer_abs / layer_n : 0;
  sink_->Judge("activation_saturation", r.name, share > p.max_saturated_neurons && Stalled(p.window), r.name,
               r.module_type + " layer '" + r.name + "' is saturated: " + std::to_string(saturated) +
                   " of its " + std::to_string(seen) + " neurons (" + Fmt(100 * share) + "%, threshold " +
                   Fmt(100 * p.max_saturated_neurons) + "%) have rho_B > " + Fmt(p.max_rho) +
                   " over the last " + std::to_string(window) +
                   " records: their outputs sit at the flat ends of the function where gradients vanish. "
                   "Use ReLU-like activations, normalize inputs, or scale down the initial weights and biases.",
               {{"saturated_neurons", static_cast<double>(saturated)},
                {"neurons", static_cast<double>(seen)},
                {"saturated_share", share},
                {"max_saturated_neurons", p.max_saturated_neurons},
                {"rho_b", rho},
                {"max_rho", p.max_rho},
                {"per_neuron", 1}});
}

void ActivationRules::DeadPerNeuron(const TensorRecord& r) {
  const DeadReluParams& p = p_.dead_relu;
  const size_t window = static_cast<size_t>(p.window);
  rules::NeuronWindow& w = neuron_buf_[r.name + "|dead"];
  w.Push(*r.neurons, window);
  if (w.buf.size() < window) return;
  size_t seen = 0, dead = 0;
  double z = 0, c = 0;
  for (size_t n = 0; n < w.count.size(); ++n) {
    if (w.count[n] == 0) continue;
    ++seen;
    const double share = static_cast<double>(w.near_zero[n]) / static_cast<double>(w.count[n]);
    dead += share >= p.neuron_zero_share;
    z += static_cast<double>(w.near_zero[n]), c += static_cast<double>(w.count[n]);
  }
  if (seen == 0) return;
  const double share = static_cast<double>(dead) / static_cast<double>(seen);
  sink_->Judge("dead_relu", r.name, share > p.max_dead_neurons && Stalled(p.window), r.name,
               "ReLU layer '" + r.name + "' is dying: " + std::to_string(dead) + " of its " +
                   std::to_string(seen) + " neurons (" + Fmt(100 * share) + "%, threshold " +
                   Fmt(100 * p.max_dead_neurons) + "%) output ~0 (|y| < " + Fmt(r.neurons->zero_threshold) +
                   ") for at least " + Fmt(100 * p.neuron_zero_share) + "% of the inputs over the last " +
                   std::to_string(window) +
                   " records. Dead units get no gradient and never recover; lower the learning rate, check "
                   "for large negative biases, or use LeakyReLU.",
               {{"dead_neurons", static_cast<double>(dead)},
                {"neurons", static_cast<double>(seen)},
                {"dead_share", share},
                {"max_dead_neurons", p.max_dead_neurons},
                {"zero_share", c > 0 ? z / c : 0.0},
                {"per_neuron", 1}});
}

}  // namespace lpsim
