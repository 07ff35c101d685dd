// Low-precision rules: lp_underflow, lp_overflow, lp_headroom,
// lp_dynamic_range, lp_snr, lp_centred_snr, lp_block_scale_flush, lp_stale_scaling,
// lp_delayed_warmup, judged per (tensor, role,
// format, recipe) on a record's FormatRecords; lp_forward_loss on the probe
// losses of a step's scalars.
//
//   LowPrecisionRules lp(config.low_precision, &loss_rules, &sink);
//   for (const FormatRecord& f : r.formats) lp.Judge(r, f);
#ifndef LPSIM_CHECKS_RULES_LP_RULES_H_
#define LPSIM_CHECKS_RULES_LP_RULES_H_

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/records.h"
#include "checks/rules/loss_rules.h"
#include "checks/rules/params.h"
#include "checks/rules/rule_support.h"
#include "formats/format.h"

namespace lpsim {

// Every lp_* rule's `roles`: the bit set of roles it judges (default 15:
// optimizer state left out).
constexpr int kLpDefaultRoles = 15;
// The forward roles (activation 1 + weight 4): tensors whose every element
// feeds the next layer's product, so a value lost is information lost.
constexpr int kLpForwardRoles = 5;

// The parameter every lp_* rule has, `roles`; each rule's Visit lists it
// after its own.
struct LpRoles {
  int roles = kLpDefaultRoles;
  template <typename Self, typename V>
  static void VisitRoles(Self& p, V&& v) {
    v("roles", p.roles, 0, kAllRolesBits);
  }
};

struct LpUnderflowParams : LpRoles {
  double max_share = 0.1;
  // ... and the cast keeps less than this SNR: the flushed values carried
  // the gradient, not just its tail (3 dB: half of its energy lost; a
  // gradient that keeps most of its energy still points the same way, as
  // SGD's minibatch noise shows).
  double max_snr_db = 3;
  // Gradients whose rms is below this share of their reference are not
  // judged: they are the rounding residue of a gradient that is zero in
  // exact arithmetic (the bias of a layer followed by BatchNorm), which
  // carries no training signal in any format. fp32 sums of N batch terms
  // leave residue up to about 2^-24 sqrt(N) relative to the terms: 2^-16
  // covers batches up to 2^16. The reference of a parameter's gradient is
  // its module's output gradient (the terms it sums) where that is
  // recorded, else (and for activation gradients) the step's largest
  // gradient rms.
  double min_rms_share = 0x1p-16;
  // The finding: at least this share of the step's (judged) gradient
  // tensors flush so (a quarter: one layer of a deep net, its input
  // gradient, a saturated softmax, slows that layer; a quarter of the
  // network's gradients gone stalls it).
  double min_tensor_share = 0.25;
  // Not judged once the training has converged (LossRules::Converged: the
  // last 5 losses' mean at or below this share of the first diverging_loss
  // window's). Gradients that shrink as the loss falls flush late in a
  // healthy run; a training that stalls there has already made all but
  // this share of its improvement (losses >= 0: cross-entropy, MSE), which
  // is lpsim validate's tolerance for "trains fine" on the linear scale.
  // On its log scale the gate is loose, yet on the validation corpus
  // dropping it found 4 breaks for 10 false alarms (docs/validation.md).
  double converged_loss_share = 0.25;
  // ... or one activation gradient flushes so (before convergence, at this
  // step or earlier) and the target's rollout (lp_rollout's, judged on its
  // stake and scale) ends above fp32's by more than this share of the
  // stake: the flushing is the mechanism and the rollout shows it costs
  // learning. A flushed activation gradient starves the parameters before
  // it only where they have no other path to the loss, which the records
  // do not show and a rollout on the target does. A quarter: lpsim
  // validate's tolerance for a training that ends broken (lp_rollout alone
  // asks for half in two rollouts in a row). 0 switches it off.
  double rollout_lag_share = 0.25;
  // The many-gradient criterion holds in this many consecutive recorded
  // steps: a lasting flush, not the first step of a network whose residual
  // branches or gates start at zero (Fixup, LayerScale, ReZero) and pass
  // almost no gradient until their first update (lp_centred_snr's streak,
  // for the same reason).
  int steps = 2;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_share", p.max_share, 0, 1);
    v("max_snr_db", p.max_snr_db, -kNoLimit, kNoLimit);
    v("min_rms_share", p.min_rms_share, 0, 1);
    v("min_tensor_share", p.min_tensor_share, 0, 1);
    v("converged_loss_share", p.converged_loss_share, 0, 1);
    v("rollout_lag_share", p.rollout_lag_share, 0, 1);
    v("steps", p.steps, 1, kNoLimit);
    VisitRoles(p, v);
  }
};

struct LpOverflowParams : LpRoles {
  double max_share = 1e-2;
  int window = 10;
  int min_hits = 3;
  int min_numel = 64;
  // Saturating formats clip to max instead of giving Inf/NaN: judged only
  // when amax lands more than this many binades above max (1: the clipped
  // values lose more than half their magnitude; closer to max, clipping is
  // an error the size of one coarse rounding and keeps sign and order).
  double min_overshoot_log2 = 1;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_share", p.max_share, 0, 1);
    v("window", p.window, 1, kNoLimit);
    v("min_hits", p.min_hits, 1, kNoLimit);
    v("min_numel", p.min_numel, 0, kNoLimit);
    v("min_overshoot_log2", p.min_overshoot_log2, 0, kNoLimit);
    VisitRoles(p, v);
  }
};

struct LpHeadroomParams : LpRoles {
  int window = 20;
  double min_r2 = 0.8;
  // No further ahead than the fit saw: a trend of `window` records
  // extrapolated further is a guess (early training's fast growth of
  // logits levels off).
  double horizon = 20;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("window", p.window, 3, kNoLimit);
    v("min_r2", p.min_r2, 0, 1);
    v("horizon", p.horizon, 0, kNoLimit);
    VisitRoles(p, v);
  }
};

// Forward roles only: a gradient's tiny values (confident samples, dead
// paths) carry a negligible share of its energy; what a gradient loses to
// underflow is lp_underflow's, judged by energy.
struct LpDynamicRangeParams : LpRoles {
  LpDynamicRangeParams() { roles = kLpForwardRoles; }
  // More than half of the tensor's nonzero values underflow to zero under
  // its recipe: most of what the next layer reads is gone (as
  // lp_block_scale_flush's max_share). Fewer is the sparsity a ReLU makes:
  // the smallest values, a small share of the energy.
  double max_share = 0.5;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_share", p.max_share, 0, 1);
    VisitRoles(p, v);
  }
};

// Forward roles only: a gradient's rounding noise is unbiased and averages
// out over steps like minibatch noise; the loss that does not (values
// flushed to zero) is lp_underflow's.
struct LpSnrParams : LpRoles {
  LpSnrParams() { roles = kLpForwardRoles; }
  double min_snr_db = 10;
  // ... in this many consecutive records of the tensor: a loss that lasts,
  // not a bias that starts at zero and grows past the format's minimum.
  int records = 5;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("min_snr_db", p.min_snr_db, -kNoLimit, kNoLimit);
    v("records", p.records, 1, kNoLimit);
    VisitRoles(p, v);
  }
};

// Activations with a per-position summary over the batch (SampleSummary):
// the SNR that the cast leaves to each position's variation between
// samples, the part that carries information (a common offset carries
// none, and a later normalization removes it). A position whose mean
// |mu| is r = log2(|mu| / sigma) binades above its variation sigma is cast
// with a step of about |mu| 2^-f (f the format's fraction bits; x0.72, the
// mean of ulp / |x| over a binade), rounding noise step / sqrt(12):
// SNR = 6.02 (f - max(r, 0)) + 13.6 dB (r < 0: the values' own size sets
// the step, as for lp_snr).
struct LpCentredSnrParams : LpRoles {
  LpCentredSnrParams() { roles = 1; }
  // lp_snr's threshold: below 10 dB the noise is a third of the signal.
  double min_snr_db = 10;
  // ... for more than this share of the positions: most of what the next
  // layer reads of the samples' differences is noise.
  double max_share = 0.5;
  // ... in this many consecutive records (lp_snr's): a lasting loss, not
  // a layer passing through near-constant outputs while it learns (a
  // learned attention query growing from zero).
  int records = 5;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("min_snr_db", p.min_snr_db, -kNoLimit, kNoLimit);
    v("max_share", p.max_share, 0, 1);
    v("records", p.records, 1, kNoLimit);
    VisitRoles(p, v);
  }
};

// Block recipes, forward roles: most of a tensor in blocks whose scale
// rounds to zero (NVFP4: a block amax more than E4M3's range below the
// tensor's amax, which an outlier sets). Those values read back as zeros,
// whatever their format could have held.
struct LpBlockScaleFlushParams : LpRoles {
  LpBlockScaleFlushParams() { roles = kLpForwardRoles; }
  // More than half of the tensor's nonzero values: most of what the next
  // layer reads is gone.
  double max_share = 0.5;
  // Tensors with fewer elements have few blocks (one 16x16 block is 256),
  // where one block is a large share.
  int min_numel = 1024;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_share", p.max_share, 0, 1);
    v("min_numel", p.min_numel, 0, kNoLimit);
    VisitRoles(p, v);
  }
};

struct LpStaleScalingParams : LpRoles {
  int steps = 32;
  double min_amax_change_log2 = 1;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("steps", p.steps, 2, kNoLimit);
    v("min_amax_change_log2", p.min_amax_change_log2, 0, kNoLimit);
    VisitRoles(p, v);
  }
};

// Delayed scaling's warm-up: the first `records` records of each tensor,
// while the amax history is still short (it starts empty, scale 1, as
// Transformer Engine's DelayedScaling does) and amax grows past it.
struct LpDelayedWarmupParams : LpRoles {
  int records = 16;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("records", p.records, 1, kNoLimit);
    VisitRoles(p, v);
  }
};

// The probes of an fp32 run (TrackerOptions::probe): the loss of the same
// forward pass, at the same weights and batch, as a target computes it
// ("probe_loss:TARGET") against fp32's ("probe_loss"). Not per role: the
// probe casts every forward role at once.
struct LpForwardLossParams {
  // The target's forward pass costs more than this share of what the
  // training has gained so far (the first diverging_loss window's mean loss
  // minus fp32's probe loss). lpsim validate calls a training broken past
  // 0.25 of fp32's improvement (docs/validation.md); the probe reads the
  // target at fp32's weights, which a training on the target adapts away
  // from, so its cost overstates the final shortfall: 0.3 is the knee of
  // the validation corpus's trade (docs/validation.md, "The forward probe's
  // allowance").
  double max_gain_share = 0.3;
  // ... in this many consecutive probes (one probe's batch can be an
  // outlier, and a forward pass a target's training learns around costs
  // for a while); a non-finite probe loss counts at once. 5 (40 steps at
  // the validation harness's probe_every 8): on the 320 programs through
  // fresh21, replayed exactly from their probes, 3 gave 835 / 114 / 81,
  // 5 gave 828 / 102 / 88 (12 false alarms saved in nine groups, 7 hits
  // lost in five; median lead 4 both); written down with that criterion
  // before fresh22's predictions were looked at, and fresh22 then moved
  // one false alarm away and lost no hit (docs/validation.md).
  int probes = 5;
  // 1: the share is measured on the tighter of the linear and the log scale
  // (rules::AllowedLoss), as lpsim validate's truth measures a training's
  // shortfall: a loss that has fallen 1 -> 1e-4 allows the target 10x
  // fp32's probe loss at a share of 0.25 (16x at 0.3), not +0.25. 0: the
  // linear scale alone. docs/validation.md has what each gives on the
  // validation corpus.
  int log_scale = 1;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_gain_share", p.max_gain_share, 0, kNoLimit);
    v("probes", p.probes, 1, kNoLimit);
    v("log_scale", p.log_scale, 0, 1);
  }
};

// The rollouts of an fp32 run (TrackerOptions::probe_rollout): the loss
// after training a few steps from the same weights and optimizer state on
// the same batch, as a target trains ("rollout_loss:TARGET"), against
// fp32's ("rollout_loss") and the step's start ("probe_loss").
struct LpRolloutParams {
  // The target ends its rollout above fp32's by more than this share of the
  // gain that is at stake: the larger of fp32's gain in the rollout and the
  // training's gain so far. lpsim validate's tolerance for a training that
  // ends broken is a quarter; over 8 steps on one batch a target that
  // trains fine can lag that much and catch up (at a quarter the 128
  // programs of the validation corpus gave 63 false alarms, at a half 32:
  // docs/validation.md).
  double max_lag_share = 0.5;
  // The gain at stake must exceed this share of the start loss: before
  // anything is learnt (a warm-up's first steps, a small learning rate)
  // there is nothing to lose, and the target's rounding is all the
  // difference.
  double min_gain_share = 0.05;
  // ... in this many rollouts in a row: a target that adapts lags in one
  // rollout (a warm-up's large steps, a batch it rounds badly) and keeps up
  // in the next, a target that breaks lags in most of them. On the
  // validation corpus, of a target's rollouts from its first lagging one
  // on, 30% lag where no simulated seed breaks, 84% where the training
  // breaks (docs/validation.md). A non-finite rollout counts at once.
  int rollouts = 2;
  // ... or one rollout that lags by more than this share of the stake
  // counts at once: the target keeps a fifth or less of what is at stake
  // (1: it ends where fp32 started, or gives up the training's gain so
  // far). It keeps the lead of breaks that show at once: with two in a
  // row alone the validation corpus's median lead fell to 0. At 1, a
  // first rollout that kept 8% of fp32's progress waited 16 steps for the
  // next while the training broke at step 6; 0.8 on the 336 programs
  // through fresh23, replayed: 113 hits called earlier (78 had come after
  // their break), one false alarm and one hit more, median lead 2 -> 4;
  // written down with its criterion before fresh24 was judged, which it
  // then held (4 hits earlier, no false alarm; docs/validation.md).
  // At or below max_lag_share: every lagging rollout counts at once.
  double at_once_lag_share = 0.8;
  // ... but not where the target kept up in an earlier judged rollout and
  // starts this one where fp32 does: its own start (its forward pass at
  // this step's weights, "probe_loss:TARGET") above fp32's by no more than
  // this share of the stake. Then the whole lag is its updates' in this
  // one rollout (8 steps on one batch near a warm-up's peak or at
  // RMSprop's rates can overshoot on a target that rounds differently),
  // and it counts as one lagging rollout: the next one shows whether it
  // persists. A break from the start (no rollout kept up) or one whose
  // forward pass already costs still counts at once. On the validation
  // corpus's 296 programs this spared 12 false alarms in seven groups and
  // delayed 2 hits, with none lost (docs/validation.md). 0: every lag beyond
  // at_once_lag_share counts at once.
  double at_once_start_share = 0.25;
  // 1: the lag is measured on the tighter of the linear and the log scale
  // (rules::AllowedLoss), each stake in its own terms (fp32's rollout from
  // the step's loss; the training from its first window to the step's loss),
  // as lp_forward_loss's log_scale. 0: the linear scale alone.
  int log_scale = 1;
  // A rollout also lags when the target makes no progress from its own
  // start (its probe loss at this step, "probe_loss:TARGET") while fp32's
  // rollout gains at least this share of the step's loss: the target's
  // rollout ends above its start (its updates make the loss worse), or at
  // it with updates skipped ("rollout_skipped:TARGET": gradients not
  // finite as the target stores them). A rollout that ends exactly at its
  // start with no update skipped is not a stall: its updates stayed below
  // the stored weights' resolution, which fp32 master weights accumulate
  // over more steps than a rollout has. 0: no stall test.
  double stall_gain_share = 0.1;
  template <typename Self, typename V>
  static void Visit(Self& p, V&& v) {
    v("max_lag_share", p.max_lag_share, 0, kNoLimit);
    v("min_gain_share", p.min_gain_share, 0, kNoLimit);
    v("rollouts", p.rollouts, 1, kNoLimit);
    v("at_once_lag_share", p.at_once_lag_share, 0, kNoLimit);
    v("at_once_start_share", p.at_once_start_share, 0, kNoLimit);
    v("log_scale", p.log_scale, 0, 1);
    v("stall_gain_share", p.stall_gain_share, 0, kNoLimit);
  }
};

struct LowPrecisionParams {
  LpUnderflowParams lp_underflow;
  LpOverflowParams lp_overflow;
  LpHeadroomParams lp_headroom;
  LpDynamicRangeParams lp_dynamic_range;
  LpSnrParams lp_snr;
  LpCentredSnrParams lp_centred_snr;
  LpBlockScaleFlushParams lp_block_scale_flush;
  LpStaleScalingParams lp_stale_scaling;
  LpDelayedWarmupParams lp_delayed_warmup;
  LpForwardLossParams lp_forward_loss;
  LpRolloutParams lp_rollout;
  template <typename Self, typename F>
  static void Rules(Self& p, F&& f) {
    f("lp_underflow", p.lp_underflow);
    f("lp_overflow", p.lp_overflow);
    f("lp_headroom", p.lp_headroom);
    f("lp_dynamic_range", p.lp_dynamic_range);
    f("lp_snr", p.lp_snr);
    f("lp_centred_snr", p.lp_centred_snr);
    f("lp_block_scale_flush", p.lp_block_scale_flush);
    f("lp_stale_scaling", p.lp_stale_scaling);
    f("lp_delayed_warmup", p.lp_delayed_warmup);
    f("lp_forward_loss", p.lp_forward_loss);
    f("lp_rollout", p.lp_rollout);
  }
};

struct RuleInfo;

class LowPrecisionRules {
 public:
  static void Catalog(std::vector<RuleInfo>* out);

  // `loss`: the run's loss rules, fed before the step's records are judged.
  LowPrecisionRules(const LowPrecisionParams& params, const LossRules* loss, FindingSink* sink)
      : p_(params), loss_(loss), sink_(sink) {}
  // Before a step's records are judged: the step's largest gradient rms.
  void BeginStep(const std::vector<TensorRecord>& records);
  // One format (with its recipe) simulated on record r.
  void Judge(const TensorRecord& r, const FormatRecord& f);
  // After a step's records: the rules judged for the whole step (lp_underflow).
  void EndStep();
  // The step's scalars, after its loss reached the loss rules: lp_forward_loss
  // on the probes ("probe_loss" and "probe_loss:TARGET") among them, and
  // lp_rollout on the rollouts ("rollout_loss", "rollout_loss:TARGET").
  void ForwardLoss(const std::vector<ScalarRecord>& scalars);

 private:
  // lp_underflow's tally of a step: gradients judged, and those that flush
  // (the first of them named in the finding).
  struct Underflow {
    int judged = 0, flushed = 0;
    std::string tensor, where;
    double share = 0, snr = 0, rms_share = 0;
  };
  std::map<std::pair<std::string, std::string>, Underflow> underflow_;  // per (format, recipe)
  std::map<std::pair<std::string, std::string>, int> underflow_streak_;  // consecutive steps it held
  // lp_underflow's rollout check: the first activation gradient that
  // flushed (this step's, kept once the step is judged unconverged), and
  // per target this step's rollout, when it was judged: the losses it and
  // fp32's reached, the most within rollout_lag_share of the stake.
  struct Flush {
    int64_t step = -1;
    std::string tensor, where;
    double share = 0, snr = 0;
  };
  Flush step_flush_, first_flush_;
  struct RolloutLag {
    double loss = 0, fp32 = 0, allowed = 0, stake = 0;
  };
  std::map<std::string, RolloutLag> rollout_lag_;
  // What the rules need to know of a record's recipe (parsed as a Scaling).
  struct Recipe {
    bool none = false;        // no scaling: a fixed headroom
    bool delayed = false;     // a scale from an amax history
    bool per_tensor = false;  // one multiplier per tensor (none, current, delayed)
  };
  const Recipe& RecipeOf(const std::string& name);
  const std::optional<Format>& FormatOf(const std::string& spec);
  // The fraction bits of a format spec (float formats: mantissa bits; block
  // floating point: magnitude bits - 1), or -1 when unknown.
  int FractionBits(const std::string& spec);
  void CentredSnr(const TensorRecord& r, const FormatRecord& f, const std::string& key, const std::string& where,
                  bool warming_up);
  // lp_dynamic_range from the record's SampleSummary: the larger of the
  // shares of rows (when `rows_matter`) and of positions that lose over
  // half their energy to flushing, at `scale` (and, if `which`, which).
  static double GroupsLost(const SampleSummary& s, const Format& fmt, double scale, bool rows_matter,
                           const char** which);
  // What reads an activation: the next activation of the step, by module
  // type. BatchNorm removes each channel's mean over the batch; LayerNorm
  // and GroupNorm each sample's mean over its values; RMSNorm scales each
  // sample without removing its mean.
  enum class Reader { kOther, kBatchNorm, kRowNorm, kRmsNorm };
  Reader ReaderOf(const std::string& activation) const;
  void Headroom(const TensorRecord& r, const FormatRecord& f, const std::string& key, const std::string& where,
                double fmax);
  void Rollouts(const std::vector<ScalarRecord>& scalars, double fp32_start);
  void StaleScaling(const TensorRecord& r, const FormatRecord& f, const std::string& key,
                    const std::string& where);

  LowPrecisionParams p_;
  const LossRules* loss_;
  FindingSink* sink_;
  std::map<std::string, Recipe> recipes_;
  std::map<std::string, std::optional<Format>> formats_;  // parsed specs
  std::map<std::string, std::deque<std::pair<double, double>>> amax_log_;  // (step, log2 amax)
  std::map<std::string, std::deque<std::pair<float, double>>> scale_hist_;  // (scale, log2 amax)
  std::map<std::string, std::deque<std::pair<double, double>>> overflow_hits_;  // (overflow, numel)
  std::map<std::string, int> delayed_records_;  // records seen per delayed key
  std::map<std::string, int> snr_streak_;      // consecutive low-SNR records per key
  std::map<std::string, int> centred_streak_;  // consecutive low centred-SNR records per key
  std::map<std::string, int> forward_streak_;  // consecutive costly probes per target
  struct RolloutState {
    int streak = 0;        // consecutive lagging rollouts
    bool kept_up = false;  // an earlier judged rollout did not lag
  };
  std::map<std::string, RolloutState> rollout_;  // per target
  double step_grad_rms_ = 0;                    // the largest gradient rms of the step
  std::map<std::string, double> output_grad_rms_;  // the step's activation gradient rms by name
  std::map<std::string, std::string> next_module_;  // activation -> the next activation's module type (same shape)
};

}  // namespace lpsim

#endif  // LPSIM_CHECKS_RULES_LP_RULES_H_
