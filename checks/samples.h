// Per-row and per-position summaries of an activation over its batch, for
// the low-precision rules (lp_dynamic_range, lp_offset): what a cast loses
// as a whole row, a whole position, or a position's variation between
// samples (see SampleSummary in core/records.h).
//
// Meant for the tracker's record builder, on a tap's fp32 output at tracked
// steps; one pass over the data, three small quantile lists out. Plain
// pointer + shape in, so the rules and their tests need no torch.
//
//   std::optional<SampleSummary> s = SummarizeSamples(data, {64, 16, 60});
//   record.samples = std::move(s);
#ifndef LPSIM_CHECKS_SAMPLES_H_
#define LPSIM_CHECKS_SAMPLES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "core/records.h"

namespace lpsim {

// Summarizes a contiguous row-major fp32 tensor `x` of `shape` whose dim 0
// is the batch. Sums run in double. NaN/Inf values are skipped (nonfinite's
// job). Returns nothing for tensors of fewer than 2 dimensions or fewer
// than 2 rows, and for empty ones.
std::optional<SampleSummary> SummarizeSamples(const float* x, const std::vector<int64_t>& shape);

// The kQuantiles + 1 nearest-rank quantiles (levels k / kQuantiles) of v;
// empty when v is. Reorders v.
SampleSummary::Quantiles QuantilesOf(std::vector<float>* v);

}  // namespace lpsim

#endif  // LPSIM_CHECKS_SAMPLES_H_
