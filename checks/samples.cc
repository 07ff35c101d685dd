#include "checks/samples.h"

#include <algorithm>
#include <cmath>

namespace lpsim {

SampleSummary::Quantiles QuantilesOf(std::vector<float>* v) {
  SampleSummary::Quantiles q;
  if (v->empty()) return q;
  const size_t n = v->size();
  constexpr int K = SampleSummary::kQuantiles;
  q.reserve(K + 1);
  // Selection, not a sort: each rank is placed with nth_element in what
  // the previous one left above it (a sort of every position cost 7x the
  // pass that summed them).
  auto from = v->begin();
  for (int k = 0; k <= K; ++k) {
    // Nearest rank: the smallest value with at least k/K of v at or below it.
    const size_t rank = static_cast<size_t>(std::ceil(static_cast<double>(k) * static_cast<double>(n) / K));
    const auto at = v->begin() + static_cast<std::ptrdiff_t>(rank == 0 ? 0 : rank - 1);
    if (at >= from) std::nth_element(from, at, v->end()), from = at;
    q.push_back(*at);
  }
  return q;
}

// A variance below this share of the mean square is double's rounding of
// ms - mean^2: no variation that fp32 values could resolve.
constexpr double kUnresolved = 0x1p-50;

std::optional<SampleSummary> SummarizeSamples(const float* x, const std::vector<int64_t>& shape) {
  if (x == nullptr || shape.size() < 2 || shape[0] < 2) return std::nullopt;
  const size_t rows = static_cast<size_t>(shape[0]);
  size_t positions = 1;
  for (size_t d = 1; d < shape.size(); ++d) positions *= static_cast<size_t>(shape[d]);
  if (positions == 0) return std::nullopt;
  // Per position: count, sum, sum of squares over the rows; per row: its
  // sum of squares and count.
  std::vector<double> sum(positions, 0), sq(positions, 0);
  std::vector<uint32_t> cnt(positions, 0);
  std::vector<float> row_log2, row_offset_log2;
  row_log2.reserve(rows), row_offset_log2.reserve(rows);
  for (size_t r = 0; r < rows; ++r) {
    const float* p = x + r * positions;
    // A NaN/Inf value adds 0 and is not counted (x - x is 0 exactly for
    // finite x, NaN otherwise).
    double row_sum = 0, row_sq = 0, row_n = 0;
    for (size_t j = 0; j < positions; ++j) {
      const float f = p[j];
      const bool finite = f - f == 0.0f;
      const double v = finite ? static_cast<double>(f) : 0.0;
      sum[j] += v, sq[j] += v * v, cnt[j] += finite ? 1u : 0u;
      row_sum += v, row_sq += v * v, row_n += finite ? 1.0 : 0.0;
    }
    if (row_sq > 0) {
      const double n = row_n, mean = row_sum / n, ms = row_sq / n;
      row_log2.push_back(static_cast<float>(0.5 * std::log2(ms)));
      if (ms - mean * mean > ms * kUnresolved) {
        row_offset_log2.push_back(static_cast<float>(std::log2(std::fabs(mean)) - 0.5 * std::log2(ms - mean * mean)));
      }
    }
  }
  std::vector<float> pos_log2, offset_log2;
  pos_log2.reserve(positions), offset_log2.reserve(positions);
  for (size_t j = 0; j < positions; ++j) {
    if (cnt[j] == 0 || !(sq[j] > 0)) continue;
    const double n = cnt[j], mean = sum[j] / n, ms = sq[j] / n;
    pos_log2.push_back(static_cast<float>(0.5 * std::log2(ms)));
    const double var = ms - mean * mean;
    if (var > ms * kUnresolved) offset_log2.push_back(static_cast<float>(std::log2(std::fabs(mean)) - 0.5 * std::log2(var)));
  }
  SampleSummary s;
  s.rows = static_cast<int64_t>(rows);
  s.positions = static_cast<int64_t>(positions);
  s.row_log2_rms = QuantilesOf(&row_log2);
  s.row_log2_offset = QuantilesOf(&row_offset_log2);
  s.position_log2_rms = QuantilesOf(&pos_log2);
  s.position_log2_offset = QuantilesOf(&offset_log2);
  return s;
}

}  // namespace lpsim
