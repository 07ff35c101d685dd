// The format recommender: which format and scaling recipe to use for each
// role and layer of a run, with numbers and reasons.
//
// Formats simulated during the run have exact counts (FormatRecord); any other
// format is estimated from the stored histograms ("what if", EstimateCast).
// Each candidate is judged against budgets, and the narrowest format (fewest
// bits) that keeps within all of them is recommended. docs/report.md states
// the defaults and the estimate's bound.
//
//   StatusOr<std::unique_ptr<RunReader>> run = RunReader::Open("runs/demo");
//   RecommendOptions opt;  opt.budgets.min_snr_db = 25;
//   StatusOr<Recommendation> r = Recommend(**run, opt);
//   for (const LayerAdvice& a : r->rows) std::cout << a.layer << " " << a.best << "\n";
#ifndef LPSIM_REPORT_RECOMMEND_H_
#define LPSIM_REPORT_RECOMMEND_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/records.h"
#include "core/scaling.h"
#include "core/status.h"
#include "formats/block_fp.h"
#include "formats/format.h"
#include "simd/analyze.h"
#include "simd/scaling.h"

namespace lpsim {

class RunReader;

// An estimated count: the true count lies in [lower, upper]. Exact counts
// have lower == upper. `expected` is the count under the estimate's model
// (a best guess, within the bounds): what predictions use; the bounds are
// what budgets use.
struct CountBound {
  uint64_t lower = 0;
  uint64_t upper = 0;
  double expected = 0;
  CountBound& operator+=(const CountBound& o) {
    lower += o.lower;
    upper += o.upper;
    expected += o.expected;
    return *this;
  }
};

// What casting a tensor with `stats` into `format` after multiplying by
// `scale` would do, from its histograms alone (round to nearest even).
struct CastEstimate {
  uint64_t numel = 0;
  CountBound underflow;  // nonzero finite inputs that become zero (incl. flushed)
  CountBound overflow;   // finite inputs whose rounded magnitude exceeds max
  // The model's count of underflows that are flushes, not roundings: FTZ
  // formats' subnormal results, and the elements of blocks whose scale
  // rounds to zero (NVFP4's E4M3 scale below its smallest subnormal).
  double flushed = 0;
  // A model, not a bound: uniform rounding error of ulp^2/12 per element at
  // its log-histogram bin's midpoint, x^2 for underflow, and (saturating
  // formats) the clamp error for overflow. Same convention as the exact
  // counts: only elements with finite input and output.
  double sq_error = 0;
  double sq_signal = 0;
};

// The estimate. Bins of the log histogram (8 per binade), clipped to
// [min_abs, max_abs], that lie wholly on one side of a threshold count
// exactly; a bin straddling one adds its count to `upper` only, and to
// `expected` the share of the bin (log-uniform within it) beyond it. Thresholds:
// underflow iff |x*s| <= min_subnormal/2 (FTZ formats: < min_normal -
// min_subnormal/2), overflow iff |x*s| >= max + ulp(max)/2; bin edges are
// widened by 2^-22 relative to cover the fp32 rounding of x*s, so the
// bounds hold for every scale. Precondition: scale finite and > 0.
CastEstimate EstimateCast(const TensorStats& stats, const Format& format, float scale);

// The fp32 scale a recipe that can be replayed from one record's stats
// gives: "none" -> 1, "current" -> CurrentScale(format, max_abs). Delayed
// scaling needs the history (DelayedScaler over the previous records'
// max_abs, see Recommend) and block recipes per-block amaxes
// (EstimateBlockCast): an error here.
StatusOr<float> WhatIfScale(const std::string& recipe, const Format& format,
                            const TensorStats& stats);

// What a block recipe (one scale per block, simd::BlockQuantize) would do,
// from the per-tensor histograms alone. The histograms cannot tell which
// block an element is in, so the bounds know only that its block amax lies
// in [|x|, A] (A = the tensor's max_abs): the block contains x and lies in
// the tensor. The block multiplier m(a) (E8M0: 2^-(floor(log2 a) - emax);
// fp32: CurrentScale(a); NVFP4: Nvfp4BlockScale under the tensor scale of A)
// never grows with a, so every element sees a multiplier in [m(A), m(|x|)]:
//   underflow.upper, overflow.lower: every block has the tensor's amax
//     (multiplier m(A) for all: the most underflow, the least overflow);
//   underflow.lower, overflow.upper: every element is its own block's amax
//     (multiplier m(|x|): the least underflow, the most overflow; for MX,
//     elements whose mantissa is above the format's max mantissa may clamp).
// The model (`expected`, sq_error, sq_signal): the elements are placed in
// blocks at random, so an element's block amax is the larger of |x| and the
// largest of B - 1 elements drawn from the histogram (B = numel / blocks;
// zeros, NaN and Inf count as zero, as they do for a block amax). That
// misses structure (an outlier channel sits in the same block of every row,
// a small sample in blocks of its own), but it sees what per-tensor bounds
// cannot: blocks whose scale flushes (NVFP4's E4M3 block scale below its
// smallest subnormal), and the error of each element at its block's scale.
// Bins count as in EstimateCast (2^-22 edge slack). When `shape` is known
// and the tensor is one block (as the tracker cuts it: [numel / last_dim,
// last_dim]), every block amax is A and the estimate is EstimateCast's at
// m(A). MX and NVFP4 elements saturate.
CastEstimate EstimateBlockCast(const TensorStats& stats, const Format& format,
                               const BlockSpec& spec, const std::vector<int64_t>& shape = {});

// The same model for block floating point (formats/block_fp.h: 1 x block
// values share the exponent of their largest, each keeps a sign and
// magnitude_bits): an element flushes when it is more than magnitude_bits
// binades below its block's grid; its error is the grid's step^2 / 12. The
// bounds are as above (the grid of A for all, or of |x| itself); overflow
// (a rounding carry that saturates) is not counted.
CastEstimate EstimateBfpCast(const TensorStats& stats, const BfpFormat& format,
                             const std::vector<int64_t>& shape = {});

// The recommender replays every recipe Scaling::Parse knows from stored
// records: none, current, delayedN (TE's delayed scaling over the stored amax
// history) and block recipes (bounded, see EstimateBlockCast).

// Limits a candidate must keep within, as fractions of all elements.
struct Budgets {
  double max_underflow = 1e-3;  // 0.1 % of elements may flush to zero
  double max_overflow = 0.0;    // no element may overflow
  double min_snr_db = 20.0;     // signal-to-quantization-noise ratio
};

struct RecommendOptions {
  // Formats to consider. Empty: every format simulated in the run plus
  // kDefaultWhatIfFormats.
  std::vector<std::string> formats;
  // Recipes replayed for formats without exact counts (Scaling::Parse),
  // plus every replayable recipe the run itself simulated. Block recipes are
  // replayed only for formats of at most 8 bits (MX and tile scaling exist
  // for fp8/fp6/fp4). Records must come in step order (Recommend reads them
  // so): delayed scaling replays each tensor's amax history.
  std::vector<std::string> what_if_recipes = {"none", "current", "delayed16", "mx"};
  Budgets budgets;
};

// The formats estimated by default, narrowest first.
extern const char* const kDefaultWhatIfFormats[7];

// One format x recipe, summed over the tracked steps of one layer (or, for a
// role's summary row, of every layer of that role).
struct Candidate {
  std::string format;
  std::string recipe;
  int bits = 0;
  bool exact = false;   // from simulated counts; else estimated from histograms
  uint64_t numel = 0;
  CountBound underflow;
  CountBound overflow;
  double sq_error = 0, sq_signal = 0;
  bool within_budget = false;
  std::string verdict;  // "within budgets" or the first budget it breaks

  double SnrDb() const;  // +Inf when there is no error
  double UnderflowUpper() const { return Share(underflow.upper); }
  double OverflowUpper() const { return Share(overflow.upper); }
  // count / numel (0 for an empty candidate).
  double Share(uint64_t count) const {
    return numel ? static_cast<double>(count) / static_cast<double>(numel) : 0;
  }
};

struct LayerAdvice {
  Role role = Role::kActivation;
  std::string layer;  // tensor name; "*" for the role's summary row
  int64_t steps = 0;  // tracked steps summed
  // Ranked: within budget first, then fewer bits, then higher SNR, then
  // lower underflow and overflow.
  std::vector<Candidate> candidates;
  std::string best;    // "format/recipe", or "" when nothing fits
  std::string reason;  // why best, and why each narrower one was rejected
};

struct Recommendation {
  Budgets budgets;
  std::vector<LayerAdvice> rows;  // per role: the "*" row, then each layer
};

StatusOr<Recommendation> Recommend(const RunReader& run, const RecommendOptions& options);

// The same from records in memory (lpsim analyze, tests): one row per
// (role, name), plus the role's "*" row.
StatusOr<Recommendation> RecommendFromRecords(const std::vector<TensorRecord>& records,
                                              const RecommendOptions& options);

// {"budgets": {max_underflow_pct, max_overflow_pct, min_snr_db}, "rows": [{role,
// layer, steps, best, reason, candidates: [{format, recipe, bits, exact,
// underflow_pct: [lower, upper], overflow_pct: [lower, upper], snr_db (null =
// inf), within_budget, verdict}]}]}: what `lpsim recommend --json` prints and
// the report embeds.
nlohmann::ordered_json RecommendationJson(const Recommendation& r);

}  // namespace lpsim

#endif  // LPSIM_REPORT_RECOMMEND_H_
