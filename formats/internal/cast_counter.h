// CastCounter: accumulates CastCounts element by element in the summation
// order of formats/fixed_sum.h, for scalar references that cannot go through
// QuantizeRef (integer grids, block floating point).
//
//   CastCounter counter(n);
//   for (i...) counter.Add(i, x, q, flags);
//   CastCounts c = counter.Finish();
#ifndef LPSIM_FORMATS_INTERNAL_CAST_COUNTER_H_
#define LPSIM_FORMATS_INTERNAL_CAST_COUNTER_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/fixed_sum.h"
#include "formats/reference.h"

namespace lpsim {
namespace internal {

class CastCounter {
 public:
  explicit CastCounter(size_t n) : n_(n) { c_.numel = n; }

  // Elements must be added in index order 0, 1, ..., n - 1.
  void Add(size_t i, float x, float q, uint32_t flags) {
    c_.underflow += (flags & kCastUnderflow) != 0;
    c_.flushed += (flags & kCastFlushed) != 0;
    c_.subnormal += (flags & kCastSubnormal) != 0;
    c_.overflow += (flags & kCastOverflow) != 0;
    c_.nan_in += (flags & kCastNanIn) != 0;
    c_.inf_in += (flags & kCastInfIn) != 0;
    c_.zero_in += (flags & kCastZeroIn) != 0;
    if (std::isfinite(x) && std::isfinite(q)) {
      const double d = static_cast<double>(x) - static_cast<double>(q);
      err_[i % kSumLanes] += d * d;
      sig_[i % kSumLanes] += static_cast<double>(x) * static_cast<double>(x);
    }
    if ((i + 1) % kSumChunk == 0 || i + 1 == n_) {
      chunk_err_.push_back(ReduceLanes(err_));
      chunk_sig_.push_back(ReduceLanes(sig_));
      std::fill(err_, err_ + kSumLanes, 0.0);
      std::fill(sig_, sig_ + kSumLanes, 0.0);
    }
  }

  CastCounts Finish() {
    c_.sq_error = PairwiseSum(chunk_err_.data(), chunk_err_.size());
    c_.sq_signal = PairwiseSum(chunk_sig_.data(), chunk_sig_.size());
    return c_;
  }

 private:
  size_t n_;
  CastCounts c_;
  double err_[kSumLanes] = {};
  double sig_[kSumLanes] = {};
  std::vector<double> chunk_err_, chunk_sig_;
};

}  // namespace internal
}  // namespace lpsim

#endif  // LPSIM_FORMATS_INTERNAL_CAST_COUNTER_H_
