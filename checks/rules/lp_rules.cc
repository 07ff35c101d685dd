#include "checks/rules/lp_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

// Scaling moves to core/scaling.h with the core/ layer (issue 15); until
// then its torch-free source is compiled into this library (checks/CMakeLists.txt).
#include "core/scaling.h"

#include "checks/check_config.h"
#include "formats/block_fp.h"

namespace lpsim {

void LowPrecisionRules::Catalog(std::vector<RuleInfo>* out) {
  constexpr Severity W = Severity::kWarning, E = Severity::kError;
  out->push_back(CatalogEntry("lp_underflow", "low_precision",
                  "per step and format: at least min_tensor_share of the step's gradients each lose more "
                  "than half their energy to flushing (> max_share of its nonzero values flush to zero "
                  "after its recipe, and the cast keeps < max_snr_db), in `steps` consecutive recorded "
                  "steps; gradients below min_rms_share of their reference rms (a parameter's: its "
                  "module's output gradient where recorded; else the step's largest gradient) are fp32 "
                  "rounding residue and not judged; nor is a step once the loss has converged (its last "
                  "5 steps' mean <= converged_loss_share of its first diverging_loss window's); or one "
                  "activation gradient flushes so (before convergence) and, at that step or later, the "
                  "target's rollout ends above fp32's by more than rollout_lag_share of lp_rollout's stake: "
                  "predicted vanishing gradients on that hardware",
                  "lpsim (TE LogFp8TensorStats underflows% has no threshold)", W));
  out->push_back(CatalogEntry("lp_overflow", "low_precision",
                  "share of a tensor's values that overflow a format (after its recipe), pooled over the "
                  "last `window` records, > max_share, overflowing in at least min_hits of them; tensors "
                  "under min_numel elements are not judged (one outlier is a large share); saturating "
                  "formats only when amax lands more than min_overshoot_log2 binades above max. An unscaled "
                  "activation or weight in a format that overflows to Inf/NaN: any overflow (it poisons what "
                  "is computed from it): predicted exploding / Inf on that hardware",
                  "lpsim", E));
  out->push_back(CatalogEntry("lp_headroom", "low_precision",
                  "recipe none (a scale that follows amax has no fixed headroom): the linear trend of "
                  "log2 amax over `window` records (R^2 >= min_r2) reaches the format's max within "
                  "`horizon` steps; reports the predicted step",
                  "lpsim", W));
  out->push_back(CatalogEntry("lp_dynamic_range", "low_precision",
                  "per-tensor recipes, activations and weights: the spread log2(max|x| / median |x|) exceeds "
                  "the format's binades log2(max / min subnormal), and more than max_share of the nonzero "
                  "values underflow to zero in the format under its recipe; with a per-row and per-position "
                  "summary over the batch (live activations): more than max_share of the rows, or of the "
                  "positions, lose over half their energy to flushing under the recipe's scale and under "
                  "a scale that puts amax at the format's max: predicted lost activations on that hardware",
                  "lpsim; TE dynamic_range = log2(amax) - log2(nonzero amin)", W));
  out->push_back(CatalogEntry("lp_snr", "low_precision",
                  "cast SNR of an activation or weight in a format < min_snr_db in `records` consecutive "
                  "records",
                  "lpsim (e4m3 round-to-nearest gives ~30 dB on well-scaled data)", W));
  out->push_back(CatalogEntry("lp_centred_snr", "low_precision",
                  "activations with a per-row and per-position summary, read by a normalization that "
                  "removes their mean (next activation BatchNorm: positions over the batch; LayerNorm or "
                  "GroupNorm: rows over their values): more than max_share of them keep < min_snr_db SNR of "
                  "their variation in the format, in `records` consecutive records: a large common offset "
                  "leaves the variation the normalization reads below the format's step there",
                  "lpsim (lp_snr's 10 dB, on the signal that carries information)", W));
  out->push_back(CatalogEntry("lp_block_scale_flush", "low_precision",
                  "block recipes, activations and weights of at least min_numel elements: more than "
                  "max_share of the nonzero values are in blocks whose scale rounds to zero (NVFP4's E4M3 "
                  "block scale below its smallest subnormal: the block amax is more than E4M3's range "
                  "below the tensor's); they read back as zeros: predicted lost activations on that hardware",
                  "lpsim; NVFP4 two-level scaling (E4M3 per 16 values under an FP32 tensor scale)", W));
  out->push_back(CatalogEntry("lp_delayed_warmup", "low_precision",
                  "delayed recipe: a tensor overflows its format within its first `records` records, while "
                  "the amax history is short and amax still grows past it; one warning per recipe (the "
                  "recipe's warm-up), not a finding per tensor, and lp_overflow waits for the warm-up to end",
                  "lpsim; Transformer Engine DelayedScaling starts from scale 1 and an empty amax history", W));
  out->push_back(CatalogEntry("lp_forward_loss", "low_precision",
                  "probes of an fp32 run (TrackerOptions::probe): the loss of the same forward pass, at the "
                  "same weights and batch, with weights and activations as a target stores them (and weight "
                  "averages the program keeps through a tap as the target would have kept them), is above "
                  "fp32's by more than max_gain_share of what the training has gained so far (the first "
                  "diverging_loss window's mean minus fp32's probe loss; log_scale 1: measured on the tighter "
                  "of the linear and the log scale), in `probes` probes in a row, or is not finite: predicted "
                  "lost training on that hardware",
                  "lpsim (lpsim validate's tolerance of 25% of fp32's improvement, its truth measured on the "
                  "tighter of the linear and the log scale; 0.3 for a probe at fp32's weights, which a training "
                  "on the target adapts away from: the knee of the validation corpus's trade)", W));
  out->push_back(CatalogEntry("lp_rollout", "low_precision",
                  "rollouts of an fp32 run (TrackerOptions::probe_rollout): from the same weights and "
                  "optimizer state, a few training steps on the same batch as a target trains (every role "
                  "as it stores it) end above fp32's by more than max_lag_share of the gain at stake (the "
                  "larger of fp32's gain in the rollout and the training's gain so far, which must exceed "
                  "min_gain_share of the start loss; log_scale 1: measured on the tighter of the linear and "
                  "the log scale), or make no progress from the target's own start (its probe loss) while "
                  "fp32's rollout gains at least stall_gain_share of the step's loss (the target's loss rises, "
                  "or stays with updates skipped for non-finite gradients), in `rollouts` rollouts in a row, "
                  "or lag by more than at_once_lag_share of the stake in one (unless the target kept up in an "
                  "earlier rollout and starts this one within at_once_start_share of the stake of fp32's start: "
                  "then one lagging rollout), or end non-finite: predicted lost training on that hardware",
                  "lpsim; calibrated on lpsim validate's corpus (half the gain, as against the harness's "
                  "quarter for a whole training; two rollouts, as a target that adapts catches up in the "
                  "next; a target that kept up and starts level overshoots in one rollout without breaking)", W));
  // Info: a max-of-history scale stays put by design while amax falls; what
  // a stale scale does to the values is judged by the other rules.
  out->push_back(CatalogEntry("lp_stale_scaling", "low_precision",
                  "delayed recipe: the scale stays the same for `steps` records while log2 amax moves by "
                  ">= min_amax_change_log2",
                  "lpsim; Transformer Engine delayed scaling (history 16)", Severity::kInfo));
}

using rules::AllowedLoss;
using rules::Fmt;
using rules::Push;

namespace {
// n as a share of the cast's nonzero finite inputs (0 when it has none).
double Share(uint64_t n, const CastCounts& c) {
  const uint64_t nonzero = c.numel - c.zero_in - c.nan_in - c.inf_in;
  return nonzero > 0 ? static_cast<double>(n) / static_cast<double>(nonzero) : 0;
}
// How lp_forward_loss and lp_rollout name the scale of their allowance.
std::string ScaleClause(int log_scale) {
  return log_scale != 0 ? ", on the tighter of the linear and the log scale" : "";
}
// Losses a message compares, with the fewest significant digits (3 to 9)
// that tell apart those that differ: a rollout at 1.2997 against an
// allowance of 1.2995 reads "1.2997 ... above 1.2995", not "1.3 above 1.3".
std::vector<std::string> FmtApart(const std::vector<double>& v) {
  std::vector<std::string> out(v.size());
  for (int digits = 3; digits <= 9; ++digits) {
    for (size_t i = 0; i < v.size(); ++i) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*g", digits, v[i]);
      out[i] = buf;
    }
    bool apart = true;
    for (size_t i = 0; i < v.size(); ++i) {
      for (size_t j = i + 1; j < v.size(); ++j) {
        const bool both_finite = std::isfinite(v[i]) && std::isfinite(v[j]);
        apart = apart && (!both_finite || v[i] == v[j] || out[i] != out[j]);
      }
    }
    if (apart) break;
  }
  return out;
}
}  // namespace

const LowPrecisionRules::Recipe& LowPrecisionRules::RecipeOf(const std::string& name) {
  auto it = recipes_.find(name);
  if (it != recipes_.end()) return it->second;
  Recipe r;
  // An unknown recipe (a newer writer's) is judged like a block recipe: no
  // per-tensor scale to reason about.
  StatusOr<Scaling> s = Scaling::Parse(name);
  if (s.ok()) {
    r.none = s->kind == Scaling::Kind::kNone;
    r.delayed = s->kind == Scaling::Kind::kDelayed;
    r.per_tensor = s->per_tensor();
  }
  return recipes_.emplace(name, r).first->second;
}

const std::optional<Format>& LowPrecisionRules::FormatOf(const std::string& spec) {
  auto it = formats_.find(spec);
  if (it == formats_.end()) {
    StatusOr<Format> parsed = ParseFormat(spec);
    it = formats_.emplace(spec, parsed.ok() ? std::optional<Format>(*parsed) : std::nullopt).first;
  }
  return it->second;
}

int LowPrecisionRules::FractionBits(const std::string& spec) {
  if (const std::optional<Format>& fmt = FormatOf(spec)) return fmt->mantissa_bits();
  if (LooksLikeBfpFormat(spec)) {
    StatusOr<BfpFormat> b = ParseBfpFormat(spec);
    // The leading one is among the magnitude bits; the block's largest
    // value sets the step, at best the position's own binade.
    if (b.ok()) return b->magnitude_bits - 1;
  }
  return -1;
}

double LowPrecisionRules::GroupsLost(const SampleSummary& s, const Format& fmt, double scale, bool rows_matter,
                                     const char** which) {
  // A group loses over half its energy when its values flush below `t`:
  // for Gaussian values, half the energy lies below 1.54 rms. Flushed: below
  // half the smallest subnormal, or below the smallest normal where
  // subnormals flush or do not exist.
  const double t = fmt.ftz() || !fmt.has_subnormals() ? fmt.MinNormal() : 0.5 * fmt.MinSubnormal();
  const double log2_limit = std::log2(t / 1.54 / scale);
  const double rows = SampleSummary::ShareBelow(s.row_log2_rms, log2_limit);
  const double positions = SampleSummary::ShareBelow(s.position_log2_rms, log2_limit);
  const double r = std::isnan(rows) || !rows_matter ? 0 : rows, p = std::isnan(positions) ? 0 : positions;
  if (which) *which = r >= p ? "rows (samples)" : "positions";
  return std::max(r, p);
}

LowPrecisionRules::Reader LowPrecisionRules::ReaderOf(const std::string& activation) const {
  auto next = next_module_.find(activation);
  if (next == next_module_.end()) return Reader::kOther;
  const std::string t = rules::Lower(next->second);
  if (t.find("batchnorm") != std::string::npos) return Reader::kBatchNorm;
  if (t.find("rmsnorm") != std::string::npos) return Reader::kRmsNorm;
  if (t.find("layernorm") != std::string::npos || t.find("groupnorm") != std::string::npos) return Reader::kRowNorm;
  return Reader::kOther;
}

// lp_centred_snr: the SNR left to the variation between samples, per
// position (LpCentredSnrParams says how it is estimated).
void LowPrecisionRules::CentredSnr(const TensorRecord& r, const FormatRecord& f, const std::string& key,
                                   const std::string& where, bool warming_up) {
  const LpCentredSnrParams& p = p_.lp_centred_snr;
  const int bits = FractionBits(f.format);
  // Judged where the next layer removes the common part and reads the
  // variation: BatchNorm (per channel, over the batch: each position's
  // offset over the samples) or LayerNorm/GroupNorm (per sample: each
  // row's offset over its values). Anywhere else the common part is signal
  // too (a softmax's 1/T, a deep net's near-constant features at small
  // init) and the cast's SNR is lp_snr's.
  const Reader reader = ReaderOf(r.name);
  const bool batch = reader == Reader::kBatchNorm;
  if (bits < 0 || (!batch && reader != Reader::kRowNorm)) return;
  const SampleSummary::Quantiles& offsets = batch ? r.samples->position_log2_offset : r.samples->row_log2_offset;
  if (offsets.empty()) return;
  // SNR(r) < min_snr_db  <=>  r > bits + (13.6 - min_snr_db) / 6.02 (for r >= 0).
  constexpr double kDbPerBit = 6.0206, kRoundingDb = 13.6;
  const double limit = bits + (kRoundingDb - p.min_snr_db) / kDbPerBit;
  const double share = limit >= 0 ? 1 - SampleSummary::ShareBelow(offsets, limit)
                                   : (kDbPerBit * bits + kRoundingDb < p.min_snr_db ? 1.0 : 0.0);
  const double median = offsets[SampleSummary::kQuantiles / 2];
  const char* unit = batch ? "positions (over the batch)" : "rows (over each sample's values)";
  const double median_snr = kDbPerBit * (bits - std::max(0.0, static_cast<double>(median))) + kRoundingDb;
  int& streak = centred_streak_[key];
  streak = !warming_up && share > p.max_share ? streak + 1 : 0;
  sink_->Judge("lp_centred_snr", key, streak >= p.records, r.name,
               where + ": " + Fmt(100 * share) + "% of its " + unit + " keep less than " + Fmt(p.min_snr_db) +
                   " dB SNR of their variation (median: mean " + Fmt(median) + " binades above the variation, " +
                   Fmt(median_snr) + " dB with " + std::to_string(bits) + " fraction bits), and the next layer (" +
                   next_module_.at(r.name) + ") removes the mean and reads the variation. The values ride on a common "
                   "offset and the format's step there is as large as the differences it carries: what the "
                   "normalization reads is rounding noise. Remove the offset before the cast (normalize the "
                   "input, center the layer), or keep this tensor in a format with more mantissa bits.",
               {{"share", share}, {"max_share", p.max_share}, {"median_offset_binades", median},
                {"median_centred_snr_db", median_snr}, {"fraction_bits", static_cast<double>(bits)}});
}

void LowPrecisionRules::BeginStep(const std::vector<TensorRecord>& records) {
  step_grad_rms_ = 0;
  output_grad_rms_.clear();
  next_module_.clear();
  // Activations come in forward order: each one's reader is the next, if
  // it can be. A normalization's output has its input's shape, so a next
  // activation of another shape read something else in between (an
  // attention's softmax is read by its product with V, not by the
  // LayerNorm tapped after it): no known reader.
  const TensorRecord* previous = nullptr;
  for (const TensorRecord& r : records) {
    if (r.role != Role::kActivation) continue;
    if (previous && previous->shape == r.shape) next_module_[previous->name] = r.module_type;
    previous = &r;
  }
  for (const TensorRecord& r : records) {
    if (rules::IsGradient(r.role) && std::isfinite(r.stats.rms)) step_grad_rms_ = std::max(step_grad_rms_, r.stats.rms);
    if (r.role == Role::kActivationGrad && std::isfinite(r.stats.rms)) output_grad_rms_[r.name] = r.stats.rms;
  }
}

// lp_underflow: vanishing gradients are a property of the network, not of
// one tensor: one layer whose gradient flushes (the first layer's input
// gradient, a saturated softmax) slows that layer; a quarter of the
// network's gradients flushing stalls the training.
void LowPrecisionRules::EndStep() {
  const LpUnderflowParams& p = p_.lp_underflow;
  const bool converged = loss_->Converged(p.converged_loss_share);
  for (const auto& [key, u] : underflow_) {
    const auto& [format, recipe] = key;
    // A step without this key's gradients (not recorded: TrackerOptions::
    // every) neither extends nor breaks the streak of recorded steps.
    if (u.judged == 0) continue;
    const double tensor_share = static_cast<double>(u.flushed) / u.judged;
    int& streak = underflow_streak_[key];
    streak = u.flushed > 0 && tensor_share >= p.min_tensor_share && !converged ? streak + 1 : 0;
    sink_->Judge("lp_underflow", format + "|" + recipe, streak >= p.steps, u.tensor,
                 std::to_string(u.flushed) + " of the step's " + std::to_string(u.judged) + " gradients in " +
                     format + " (" + recipe + ") keep less than " + Fmt(p.max_snr_db) + " dB SNR with "
                     "over " + Fmt(100 * p.max_share) + "% of their values flushed to zero" +
                     (streak > 1 ? " (" + std::to_string(streak) + " steps in a row)" : std::string()) +
                     "; first " + u.where +
                     ": " + Fmt(100 * u.share) + "% of its nonzero values flush. On that hardware the gradients vanish and training stalls; use loss scaling "
                     "or a per-tensor recipe (current/delayed), or a format with more exponent range "
                     "(e5m2, bf16).",
                 {{"tensor_share", tensor_share}, {"min_tensor_share", p.min_tensor_share},
                  {"steps_in_a_row", static_cast<double>(streak)},
                  {"underflow_share", u.share}, {"snr_db", u.snr}, {"rms_share_of_reference", u.rms_share}});
  }
  // Keys stay (judged false next step when nothing flushes); counts restart.
  for (auto& [key, u] : underflow_) u = Underflow{};
  // One activation gradient flushing, confirmed by this step's rollouts.
  if (first_flush_.step < 0 && step_flush_.step >= 0 && !converged) first_flush_ = step_flush_;
  step_flush_ = Flush{};
  if (p.rollout_lag_share > 0) {
    for (const auto& [target, r] : rollout_lag_) {
      const Flush& f = first_flush_;
      const bool lags = !std::isfinite(r.loss) || r.loss > r.allowed;
      const std::vector<std::string> n = FmtApart({r.loss, r.fp32, r.allowed});
      sink_->Judge("lp_underflow", "rollout|" + target, f.step >= 0 && lags, f.tensor,
                   "on " + target + " " + f.where + " loses over half its energy to flushing (" +
                       Fmt(100 * f.share) + "% of its nonzero values flush, " + Fmt(f.snr) +
                       " dB SNR left; first at step " + std::to_string(f.step) + ") and a few training steps " +
                       "there from this step's weights reach loss " + n[0] + " where fp32 reaches " + n[1] +
                       ": above " + n[2] + ", the most that lags by no more than " +
                       Fmt(100 * p.rollout_lag_share) + "% of the " + Fmt(r.stake) + " at stake" +
                       ScaleClause(p_.lp_rollout.log_scale) +
                       ". The parameters before that gradient learn less on that hardware; use loss scaling, "
                       "keep subnormals, or keep activation gradients in a format with more exponent range.",
                   {{"underflow_share", f.share}, {"snr_db", f.snr}, {"flush_step", static_cast<double>(f.step)},
                    {"rollout_loss", r.loss}, {"fp32_rollout_loss", r.fp32}, {"allowed_loss", r.allowed},
                    {"rollout_lag_share", p.rollout_lag_share}});
    }
  }
  rollout_lag_.clear();
}

void LowPrecisionRules::ForwardLoss(const std::vector<ScalarRecord>& scalars) {
  static const std::string kProbe = "probe_loss", kTarget = "probe_loss:";
  const LpForwardLossParams& p = p_.lp_forward_loss;
  double fp32 = NAN;
  for (const ScalarRecord& s : scalars) {
    if (s.name == kProbe) fp32 = s.value;
  }
  if (!std::isfinite(fp32)) return;
  Rollouts(scalars, fp32);
  // The gain so far: from the first window's mean loss (the training's
  // start) to fp32's probe loss (where it is now).
  const double gain = loss_->first_window() - fp32;
  for (const ScalarRecord& s : scalars) {
    if (s.name.rfind(kTarget, 0) != 0) continue;
    const std::string target = s.name.substr(kTarget.size());
    const double cost = s.value - fp32;
    int& streak = forward_streak_[target];
    double allowed = NAN;
    if (!std::isfinite(s.value)) {
      streak = p.probes;
    } else if (std::isfinite(gain) && gain > 0) {
      allowed = AllowedLoss(fp32, loss_->first_window(), fp32, p.max_gain_share, p.log_scale != 0);
      streak = s.value > allowed ? streak + 1 : 0;
    } else {
      continue;  // no gain yet (or before the first window): nothing to lose
    }
    const double share = std::isfinite(gain) && gain > 0 ? cost / gain : NAN;
    sink_->Judge("lp_forward_loss", "forward|" + target, streak >= p.probes, s.name,
                 "on " + target + " the forward pass alone (weights and activations as it stores them) gives "
                     "loss " + Fmt(s.value) + " where fp32 gives " + Fmt(fp32) + " at the same weights and "
                     "batch: " +
                     (std::isfinite(allowed) ? "above " + Fmt(allowed) + ", the most that loses no more than " +
                                                   Fmt(100 * p.max_gain_share) + "% of the training's gain so far (" +
                                                   Fmt(loss_->first_window()) + " -> " + Fmt(fp32) + ")" + ScaleClause(p.log_scale) +
                                                   ", in " + std::to_string(p.probes) + " probes in a row"
                                             : std::string("not finite")) +
                     ". On "
                     "that hardware the training loses what it learns; the tensors the other lp_* findings "
                     "name (or a record of each tap cast as the target stores it) show where.",
                 {{"probe_loss", s.value}, {"fp32_probe_loss", fp32}, {"gain", gain}, {"gain_share", share},
                  {"max_gain_share", p.max_gain_share}, {"allowed_loss", allowed}});
  }
}

void LowPrecisionRules::Rollouts(const std::vector<ScalarRecord>& scalars, double start) {
  static const std::string kRollout = "rollout_loss", kTarget = "rollout_loss:", kProbeTarget = "probe_loss:",
                           kSkipped = "rollout_skipped:";
  const LpRolloutParams& p = p_.lp_rollout;
  double fp32 = NAN;
  for (const ScalarRecord& s : scalars) {
    if (s.name == kRollout) fp32 = s.value;
  }
  if (!std::isfinite(fp32)) return;  // fp32 itself diverges on this batch: no reference
  // The gain at stake: what fp32 learns in the rollout, or what the
  // training has learnt so far, whichever is larger.
  const double so_far = loss_->first_window() - start;
  const double stake = std::max(start - fp32, std::isfinite(so_far) ? so_far : 0.0);
  const bool judged = stake > p.min_gain_share * std::fabs(start);
  // The highest rollout loss within max_lag_share of the stake: the larger
  // allowance of the two stakes, each on its own scale(s).
  auto allowance = [&](double share) {
    double a = AllowedLoss(fp32, start, fp32, share, p.log_scale != 0);
    if (std::isfinite(so_far) && so_far > 0) {
      a = std::max(a, AllowedLoss(fp32, loss_->first_window(), start, share, p.log_scale != 0));
    }
    return a;
  };
  const double allowed = allowance(p.max_lag_share);
  // A lag this large counts at once (the whole stake lost).
  const double at_once = allowance(std::max(p.at_once_lag_share, p.max_lag_share));
  // Per target: its own start (its probe loss) and its skipped updates.
  std::map<std::string, double> target_start, skipped;
  for (const ScalarRecord& s : scalars) {
    if (s.name.rfind(kProbeTarget, 0) == 0) target_start[s.name.substr(kProbeTarget.size())] = s.value;
    if (s.name.rfind(kSkipped, 0) == 0) skipped[s.name.substr(kSkipped.size())] = s.value;
  }
  const bool fp32_learns = p.stall_gain_share > 0 && start - fp32 >= p.stall_gain_share * std::fabs(start);
  for (const ScalarRecord& s : scalars) {
    if (s.name.rfind(kTarget, 0) != 0) continue;
    const std::string target = s.name.substr(kTarget.size());
    const double lag = s.value - fp32;
    RolloutState& state = rollout_[target];
    int& streak = state.streak;
    const bool kept_up = state.kept_up;  // before this rollout
    // No progress from the target's own start where fp32 learns: its loss
    // rose, or stayed with updates skipped (not: stayed with every update
    // below the stored weights' resolution).
    double own_start = NAN, own_skipped = 0;
    if (auto it = target_start.find(target); it != target_start.end()) own_start = it->second;
    if (auto it = skipped.find(target); it != skipped.end()) own_skipped = it->second;
    const bool stalled = fp32_learns && std::isfinite(own_start) && std::isfinite(s.value) &&
                         (s.value > own_start || (s.value == own_start && own_skipped > 0));
    // The whole stake lost counts at once, unless the target kept up in
    // an earlier rollout and starts this one where fp32 does (its forward
    // pass costs no more than at_once_start_share of the stake): then the
    // lag is this rollout's updates', one lagging rollout.
    const bool starts_level = std::isfinite(own_start) && own_start - start <= p.at_once_start_share * stake;
    const bool lost_at_once = std::isfinite(s.value) && judged && s.value > at_once &&
                              !(p.at_once_start_share > 0 && kept_up && starts_level);
    if (!std::isfinite(s.value)) {
      streak = p.rollouts;
    } else if (judged) {
      const bool lags = s.value > allowed || stalled;
      streak = lost_at_once ? std::max(streak + 1, p.rollouts) : lags ? streak + 1 : 0;
      if (!lags) state.kept_up = true;
    } else {
      continue;  // nothing learnt yet: nothing to lose
    }
    const double share = judged ? lag / stake : NAN;
    // For lp_underflow's rollout check, judged at the step's end.
    const double underflow_allowed = allowance(p_.lp_underflow.rollout_lag_share);
    rollout_lag_[target] = {s.value, fp32, underflow_allowed, stake};
    const std::vector<std::string> n = FmtApart({s.value, fp32, start, at_once, allowed, own_start});
    sink_->Judge("lp_rollout", "rollout|" + target, streak >= p.rollouts, s.name,
                 "on " + target + " a few training steps from this step's weights and optimizer state, on "
                     "this step's batch, reach loss " + n[0] + " where fp32 reaches " + n[1] +
                     " from " + n[2] + ": " +
                     (!judged || !std::isfinite(s.value) ? std::string("the training diverges")
                      : lost_at_once
                          ? "above " + n[3] + ", a lag of " +
                                Fmt(100 * std::max(p.at_once_lag_share, p.max_lag_share)) + "% of the " +
                                Fmt(stake) + " at stake" + ScaleClause(p.log_scale) + ", in one rollout"
                      : s.value > allowed
                          ? "above " + n[4] + ", the most that lags by no more than " +
                                Fmt(100 * p.max_lag_share) + "% of the " + Fmt(stake) + " at stake" +
                                ScaleClause(p.log_scale) + ", in " + std::to_string(p.rollouts) +
                                (p.rollouts == 1 ? " rollout" : " rollouts in a row")
                          : "no progress from its own start " + n[5] +
                                (s.value > own_start ? std::string(" (its updates make the loss worse)")
                                                     : " (" + Fmt(own_skipped) + " of its updates skipped: its gradients "
                                                       "are not finite as it stores them)") +
                                " where fp32 gains " + Fmt(100 * (start - fp32) / std::fabs(start)) +
                                "% of the loss, lagging or stalled in " + std::to_string(p.rollouts) +
                                (p.rollouts == 1 ? " rollout" : " rollouts in a row")) +
                     ". On that hardware the training does not learn what fp32 learns; the tensors the other "
                     "lp_* findings name (or simulate mode on the target) show where.",
                 {{"rollout_loss", s.value}, {"fp32_rollout_loss", fp32}, {"start_loss", start},
                  {"stake", stake}, {"lag_share", share}, {"max_lag_share", p.max_lag_share},
                  {"allowed_loss", judged ? allowed : NAN}, {"at_once_loss", judged ? at_once : NAN},
                  {"target_start_loss", own_start}, {"skipped_updates", own_skipped}, {"stalled", stalled ? 1.0 : 0.0},
                  {"kept_up_before", kept_up ? 1.0 : 0.0}});
  }
}

void LowPrecisionRules::Judge(const TensorRecord& r, const FormatRecord& f) {
  const CastCounts& c = f.counts;
  const std::string key = r.name + "|" + ToString(r.role) + "|" + f.format + "|" + f.recipe;
  const std::string where = "[" + f.format + ", " + f.recipe + "] " + ToString(r.role) + " '" + r.name + "'";
  if (c.numel == 0) return;
  const Recipe& recipe = RecipeOf(f.recipe);
  // A delayed recipe's first record has no amax history yet (scale 1).
  int delayed_record = 0;
  if (recipe.delayed && (delayed_record = ++delayed_records_[key]) == 1) return;
  const bool warming_up = recipe.delayed && delayed_record <= p_.lp_delayed_warmup.records;
  const std::optional<Format>& fmt = FormatOf(f.format);
  // bf16/fp32-range formats under a scaling recipe: their range covers
  // fp32's and the recipe's scale (clamped to fp32) means nothing for them.
  if (fmt && fmt->exponent_bits() >= 8 && !recipe.none && recipe.per_tensor) return;
  auto role_on = [&](int roles) { return (roles & static_cast<int>(r.role)) != 0; };
  if (rules::IsGradient(r.role) && role_on(p_.lp_underflow.roles) && !warming_up) {
    // Tallied here, judged for the whole step in EndStep.
    // Residue is small against the terms that cancel: a parameter's
    // gradient is judged against its module's output gradient where that
    // is recorded ('fc1.bias' against 'fc1'); the early layers of a deep
    // net have gradients 10^7 below the last layer's that are no residue.
    double reference = step_grad_rms_;
    if (r.role == Role::kWeightGrad) {
      const size_t dot = r.name.rfind('.');
      auto out = dot == std::string::npos ? output_grad_rms_.end() : output_grad_rms_.find(r.name.substr(0, dot));
      if (out != output_grad_rms_.end() && out->second > 0) reference = out->second;
    }
    const double rms_share = reference > 0 ? r.stats.rms / reference : 1;
    if (!(rms_share < p_.lp_underflow.min_rms_share)) {
      Underflow& u = underflow_[{f.format, f.recipe}];
      const double share = Share(c.underflow, c);
      const double snr = c.SnrDb();
      const bool lossy = !(snr >= p_.lp_underflow.max_snr_db);  // NaN (no signal left) counts as lossy
      ++u.judged;
      if (share > p_.lp_underflow.max_share && lossy) {
        if (++u.flushed == 1) {
          u.tensor = r.name, u.where = where;
          u.share = share, u.snr = snr, u.rms_share = rms_share;
        }
        if (r.role == Role::kActivationGrad && step_flush_.step < 0) step_flush_ = {r.step, r.name, where, share, snr};
      }
    }
  }
  if (warming_up && role_on(p_.lp_delayed_warmup.roles) && c.overflow > 0 &&
      c.numel >= static_cast<uint64_t>(p_.lp_overflow.min_numel)) {
    // Once per recipe: the condition is never seen false for this key.
    sink_->Judge("lp_delayed_warmup", "warmup|" + f.recipe, true, "",
                 "[" + f.recipe + "] delayed scaling overflows while its amax history warms up (first at " +
                     ToString(r.role) + " '" + r.name + "' in " + f.format + ", " +
                     Fmt(100.0 * static_cast<double>(c.overflow) / static_cast<double>(c.numel)) +
                     "% of its values, record " + std::to_string(delayed_record) +
                     "): amax grows past a short history in the first steps. Hardware casts saturate there; "
                     "if the first steps matter, start from current scaling or give the recipe a margin.",
                 {{"overflow_share", static_cast<double>(c.overflow) / static_cast<double>(c.numel)},
                  {"record", static_cast<double>(delayed_record)}});
  }
  // Block recipes (mx, nvfp4, 1x128) scale each block by its own amax;
  // OCP MX's E8M0 scale leaves the block max up to 2x above the element
  // max, where it saturates by design: clipping, not a predicted explosion.
  if (!warming_up && recipe.per_tensor && role_on(p_.lp_overflow.roles)) {
    const LpOverflowParams& p = p_.lp_overflow;
    const double share = static_cast<double>(c.overflow) / static_cast<double>(c.numel);
    auto& hits = overflow_hits_[key];
    Push(&hits, std::make_pair(static_cast<double>(c.overflow), static_cast<double>(c.numel)),
         static_cast<size_t>(p.window));
    double over = 0, total = 0;
    size_t n_hits = 0;
    for (const auto& [o, n] : hits) over += o, total += n, n_hits += o > 0;
    const double pooled = total > 0 ? over / total : 0;
    // How far past max the largest value lands (binades); saturating
    // formats clip, and clipping just past max is not an explosion.
    const double overshoot = fmt && f.scale > 0 && r.stats.max_abs > 0
                                 ? std::log2(static_cast<double>(r.stats.max_abs) * f.scale / fmt->MaxValue())
                                 : kNoLimit;
    const bool saturates = fmt && fmt->overflow_result() == OverflowResult::kMax;
    // An unscaled activation or weight that overflows to Inf/NaN poisons
    // every value computed from it (a row's LayerNorm or softmax, then the
    // loss), and no scale adapts to it: one is enough, in any record. A
    // scaled tensor's overflow is a scale lagging amax (one skipped step,
    // then the scale follows), a gradient's Inf a skipped step under loss
    // scaling, a saturated value a clip: those need a share that persists.
    const bool poisons = !saturates && recipe.none && (static_cast<int>(r.role) & kLpForwardRoles) != 0;
    const bool cond = c.overflow > 0 && (poisons || (c.numel >= static_cast<uint64_t>(p.min_numel) &&
                                                     pooled > p.max_share && n_hits >= static_cast<size_t>(p.min_hits) &&
                                                     (!saturates || overshoot > p.min_overshoot_log2)));
    sink_->Judge("lp_overflow", key, cond, r.name,
                 where + ": " + Fmt(100 * share) + "% of the values overflow " + f.format + " with " +
                     f.recipe + " scaling. On that hardware they become Inf/NaN or clip to max: predicted "
                     "exploding values; use a per-tensor scale (current, or delayed with a margin), or a "
                     "format with more range.",
                 {{"overflow_share", share}, {"pooled_share", pooled}, {"max_share", p.max_share}, {"scale", f.scale},
                  {"overshoot_binades", overshoot}});
  }
  if (c.numel > c.zero_in + c.nan_in + c.inf_in && c.sq_signal > 0 && role_on(p_.lp_snr.roles)) {
    const double snr = c.SnrDb();
    const double min_snr = p_.lp_snr.min_snr_db;
    int& streak = snr_streak_[key];
    streak = !warming_up && std::isfinite(snr) && snr < min_snr ? streak + 1 : 0;
    sink_->Judge("lp_snr", key, streak >= p_.lp_snr.records, r.name,
                 where + ": the cast keeps only " + Fmt(snr) + " dB SNR (< " + Fmt(min_snr) +
                     " dB): the values lose most of their information. Use a format with more mantissa "
                     "bits, finer-grained scaling (mx, 1x128), or keep this tensor in higher precision.",
                 {{"snr_db", snr}, {"min_snr_db", min_snr}});
  }
  if (r.samples && role_on(p_.lp_centred_snr.roles)) CentredSnr(r, f, key, where, warming_up);
  if (!recipe.per_tensor && role_on(p_.lp_block_scale_flush.roles)) {
    const LpBlockScaleFlushParams& p = p_.lp_block_scale_flush;
    const double share = Share(c.flushed, c);
    sink_->Judge("lp_block_scale_flush", key,
                 c.numel >= static_cast<uint64_t>(p.min_numel) && share > p.max_share, r.name,
                 where + ": " + Fmt(100 * share) + "% of its nonzero values are in blocks whose scale "
                     "rounds to zero; they read back as zeros. A few values far above the rest (an outlier "
                     "channel) set the tensor scale, and the other blocks fall below the block scale's "
                     "range. Keep this tensor in higher precision, use fp32 block scales (1x128, mx), or "
                     "tame the outliers (per-channel scaling, smoothing).",
                 {{"flushed_share", share}, {"max_share", p.max_share}});
  }
  if (!recipe.per_tensor || r.stats.max_abs <= 0 || !(f.scale > 0) || !fmt) return;
  const double fmax = fmt->MaxValue(), fmin = fmt->MinSubnormal();
  if (role_on(p_.lp_dynamic_range.roles)) {
    // What the cast under the recipe loses (its scale may be stale, a power
    // of two, or flush subnormals), and the spread that causes it.
    const double lost = Share(c.underflow, c);
    const double median = r.stats.Quantile(0.5);
    const double spread = median > 0 ? std::log2(r.stats.max_abs / median) : kNoLimit;
    const double capacity = std::log2(fmax / fmin);
    const double max_share = p_.lp_dynamic_range.max_share;
    if (r.samples) {
      // Whole rows or positions lost, not single values: a saturated
      // softmax flushes most of its values, the tiny probabilities, and
      // keeps every row's and every class's energy; a quiet sample, a quiet
      // channel or frame loses all of its own. Lost under the recipe's
      // scale and under the scale that puts amax at max: a range too wide
      // for the format, not a level (a LayerScale branch at 1e-6 is
      // below an unscaled format's minimum and trains).
      // Quiet rows matter where the next layer normalizes each sample
      // (LayerNorm, GroupNorm, RMSNorm): it scales what is left of them back
      // up. Read by anything else, a quiet sample is as quiet in fp32 (a
      // BatchNorm after it divides by the batch's spread, which the loud
      // samples set).
      const char* which = "";
      const Reader reader = ReaderOf(r.name);
      const bool rows_matter = reader == Reader::kRowNorm || reader == Reader::kRmsNorm;
      const double groups = GroupsLost(*r.samples, *fmt, f.scale, rows_matter, &which);
      const double ideal = GroupsLost(*r.samples, *fmt, fmax / r.stats.max_abs, rows_matter, nullptr);
      sink_->Judge("lp_dynamic_range", key, !warming_up && groups > max_share && ideal > max_share, r.name,
                   where + ": " + Fmt(100 * groups) + "% of its " + which + " lose over half their energy to "
                       "flushing (" + Fmt(100 * lost) + "% of its nonzero values underflow). Its values span " +
                       Fmt(spread) + " binades from max|x| down to the median |x|, against the " + Fmt(capacity) +
                       " that " + f.format + " holds: a scale that keeps max|x| loses whole " + which +
                       ". Use block scaling (mx, 1x128), a per-row scale, or a wider format for this tensor.",
                   {{"groups_lost_share", groups}, {"groups_lost_share_at_amax_scale", ideal},
                    {"underflow_share", lost}, {"max_share", max_share}, {"spread_binades", spread},
                    {"format_binades", capacity}});
    } else {
      // Both: a spread wider than the format (not a level: a bias growing
      // from its zero init is below an unscaled format's minimum for a while,
      // and no scale would lose it), and most of the values lost to it.
      sink_->Judge("lp_dynamic_range", key, !warming_up && spread > capacity && lost > max_share, r.name,
                   where + ": " + Fmt(100 * lost) + "% of its nonzero values underflow to zero. Its values "
                       "span " + Fmt(spread) + " binades from max|x| down to the median |x|, against the " +
                       Fmt(capacity) + " that " + f.format + " holds: a scale that keeps max|x| loses most of "
                       "the tensor. Use block scaling (mx, 1x128) or a wider format for this tensor.",
                   {{"underflow_share", lost}, {"max_share", max_share},
                    {"spread_binades", spread}, {"format_binades", capacity}});
    }
  }
  if (recipe.none && role_on(p_.lp_headroom.roles)) Headroom(r, f, key, where, fmax);
  if (recipe.delayed && role_on(p_.lp_stale_scaling.roles)) StaleScaling(r, f, key, where);
}

// lp_headroom: the least-squares trend of log2 amax (unscaled) against the step.
void LowPrecisionRules::Headroom(const TensorRecord& r, const FormatRecord& f, const std::string& key,
                                 const std::string& where, double fmax) {
  const LpHeadroomParams& p = p_.lp_headroom;
  const size_t window = static_cast<size_t>(p.window);
  auto& d = amax_log_[key];
  Push(&d, std::make_pair(static_cast<double>(r.step), std::log2(static_cast<double>(r.stats.max_abs) * f.scale)),
       window);
  if (d.size() < window) return;
  const double n = static_cast<double>(d.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (const auto& [x, y] : d) sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y;
  const double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
  const double slope = vx > 0 ? cxy / vx : 0;
  const double r2 = vx > 0 && vy > 0 ? cxy * cxy / (vx * vy) : 0;
  const double limit = std::log2(fmax);
  const double now = d.back().second;
  bool cond = false;
  double predicted = 0;
  if (slope > 0 && r2 >= p.min_r2 && now < limit) {
    const double intercept = (sy - slope * sx) / n;
    predicted = (limit - intercept) / slope;
    cond = predicted - static_cast<double>(r.step) <= p.horizon;
  }
  sink_->Judge("lp_headroom", key, cond, r.name,
               where + ": headroom is shrinking: log2 amax rises " + Fmt(slope) + " binades per step "
                   "(R^2 " + Fmt(r2) + ") and reaches " + f.format + "'s max (2^" + Fmt(limit) +
                   ") at about step " + Fmt(std::ceil(predicted)) + ". Expect overflow there; use "
                   "per-tensor current scaling, a margin, or find why the values grow.",
               {{"predicted_step", std::ceil(predicted)}, {"slope_binades_per_step", slope}, {"r2", r2},
                {"log2_amax_scaled", now}, {"log2_format_max", limit}});
}

// lp_stale_scaling: a delayed scale that does not follow amax.
void LowPrecisionRules::StaleScaling(const TensorRecord& r, const FormatRecord& f, const std::string& key,
                                     const std::string& where) {
  const LpStaleScalingParams& p = p_.lp_stale_scaling;
  const size_t steps = static_cast<size_t>(p.steps);
  auto& d = scale_hist_[key];
  Push(&d, std::make_pair(f.scale, std::log2(static_cast<double>(r.stats.max_abs))), steps);
  if (d.size() < steps) return;
  bool same = true;
  double lo = d.front().second, hi = d.front().second;
  for (const auto& [sc, la] : d) {
    same = same && sc == d.front().first;
    lo = std::min(lo, la), hi = std::max(hi, la);
  }
  const double moved = hi - lo;
  sink_->Judge("lp_stale_scaling", key, same && moved >= p.min_amax_change_log2, r.name,
               where + ": the delayed scale (" + Fmt(f.scale) + ") has not changed for " + std::to_string(steps) +
                   " records while amax moved " + Fmt(moved) +
                   " binades. The scale is stale: the amax history is not updated or one old spike "
                   "dominates it; check the recipe's history length and its update.",
               {{"scale", f.scale}, {"amax_change_binades", moved}});
}

}  // namespace lpsim
