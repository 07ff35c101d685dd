// The validation harness's truth (validation.cc): whether a training
// simulated on a hardware target is broken, judged against fp32 runs of the
// same program. Pure arithmetic on loss and accuracy curves (no LibTorch),
// so that it is tested on its own (tests/examples/truth_test.cc).
//
//   Truth one = Judge({fp32_seed11, fp32_seed12, fp32_seed13}, simulated);
//   Truth cell = Combine({Judge(fp32, sim11), Judge(fp32, sim12), Judge(fp32, sim13)});
#ifndef LPSIM_EXAMPLES_VALIDATION_TRUTH_H_
#define LPSIM_EXAMPLES_VALIDATION_TRUTH_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace lpsim::validation {

// Truth: a simulated run is broken when its final loss (mean of the last
// kFinalWindow steps) is above fp32's by more than this share of fp32's
// improvement (first window mean - final mean), measured on the linear
// scale or, for a positive loss, on the log scale, whichever is tighter
// (a loss that falls by orders of magnitude is judged in orders: fp32
// going 1 -> 1e-4 allows 10x its final loss, not 0.25 above it) ...
constexpr double kLossTolerance = 0.25;
// How the tolerance is measured, as recorded in `lpsim validate --json`.
constexpr const char* kLossScale = "linear or log, the tighter";
// ... or its final accuracy is this much (absolute) below fp32's.
constexpr double kAccuracyTolerance = 0.05;
constexpr int kFinalWindow = 10;
// The break step: the first step whose kBreakWindow-step mean loss is above
// fp32's by more than kLossTolerance of fp32's improvement (or non-finite).
constexpr int kBreakWindow = 5;

// One training's loss (and, for a classifier, accuracy) at every step.
struct Curve {
  std::vector<double> loss, accuracy;  // per step (accuracy: classification only)
  bool nonfinite = false;
  double Final(const std::vector<double>& v) const {
    const size_t k = std::min<size_t>(kFinalWindow, v.size());
    double s = 0;
    for (size_t i = v.size() - k; i < v.size(); ++i) s += v[i];
    return k ? s / k : 0;
  }
};

struct Truth {
  bool broken = false;
  int64_t step = -1;  // the break step (broken runs)
  std::string why;    // "NaN", "loss 0.9 vs 0.1", ...
  double final_loss = 0, final_accuracy = 0;
  // The simulated runs it combines (Combine), one per seed (in seed
  // order), each judged alone (their own `seeds` empty).
  std::vector<Truth> seeds;
};

// One simulated run against the fp32 runs of its program (`fp32`: the
// tracked run first, whose improvement sets the tolerance, then the other
// seeds'): broken when its loss is non-finite, or its final loss is above
// the worst fp32 run's by more than kLossTolerance of the tracked run's
// improvement (Bound), or its final accuracy is more than kAccuracyTolerance
// below the worst fp32 run's. The break step: the first step whose
// kBreakWindow-step mean is above Bound of every fp32 run's (or
// non-finite); the last step when only the accuracy fell behind.
Truth Judge(const std::vector<Curve>& fp32, const Curve& sim);

// The highest loss within the tolerance of an fp32 loss `reference`, for a
// tracked fp32 run that went from `first` (its first window's mean) to
// `final`: reference + kLossTolerance * (first - final), or, when
// first > final > 0 and reference > 0, reference * (first / final) ^
// kLossTolerance where that is lower.
double Bound(double reference, double first, double final);

// The truth of several simulated runs of one target, each judged alone
// (Judge) and given in seed order: broken when more than half of them
// break, at the step by which more than half have broken, the reason that
// of the run that made the majority; the final loss and accuracy are the
// runs' medians (a non-finite loss counts as the largest). One run is its
// own truth.
Truth Combine(std::vector<Truth> runs);

// A 95% confidence interval of a proportion of `k` in `n` (precision: hits
// of the predictions; recall: hits of the breaks), Clopper-Pearson's exact
// interval (Boost.Math): each end leaves 2.5% of the binomial's probability
// outside. {NaN, NaN} when n is 0. The corpus is a sample of programs: a
// target's 0.90 on 60 breaks is any recall from about 0.80 to 0.96.
struct Interval {
  double lo, hi;
};
Interval ProportionInterval(int k, int n);

// The cells of one cluster: a program's cells on every target, which share
// the program (a breaker planted in it, its loss curve) and are not
// independent draws.
struct ClusterCounts {
  int tp = 0, fp = 0, fn = 0;
};
struct PrecisionRecallIntervals {
  Interval precision, recall;
};
// 95% intervals of the pooled precision and recall over cells that come in
// clusters: the percentile bootstrap over clusters (the clusters drawn with
// replacement `resamples` times, each draw's pooled precision and recall;
// the 2.5% and 97.5% quantiles of those, draws without a prediction or a
// break left out). Treating correlated cells as independent (Clopper-Pearson
// on the pooled counts) gives intervals too narrow; this one is as wide as
// the clusters vary. Deterministic: the draws come from a fixed-seed
// mt19937_64, so one input gives one interval. {NaN, NaN} without clusters.
PrecisionRecallIntervals ClusterBootstrapIntervals(const std::vector<ClusterCounts>& clusters, int resamples = 4000,
                                                   uint64_t seed = 1);

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_TRUTH_H_
