// Reduction of analysis results across the ranks of a c10d process group.
//
// Counts and histograms are summed, extremes reduced with min/max, moments
// combined exactly from per-rank (n, mean, M2, sum of squares) in rank order,
// so every rank ends with the record of the concatenated tensor.
//
//   ReduceAcrossRanks(*pg, &result);   // all ranks, same order of calls
#ifndef LPSIM_TRACKER_DISTRIBUTED_H_
#define LPSIM_TRACKER_DISTRIBUTED_H_

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "simd/analyze.h"

namespace lpsim {

void ReduceAcrossRanks(c10d::ProcessGroup& pg, AnalyzeResult* result);

// Max of a float over ranks (for current-scaling amax).
float MaxAcrossRanks(c10d::ProcessGroup& pg, float value);

}  // namespace lpsim

#endif  // LPSIM_TRACKER_DISTRIBUTED_H_
