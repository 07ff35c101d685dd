// CastCounts: what happened to one tensor cast into one format with one
// scale. The reference casts (formats/), the SIMD kernels (simd/) and every
// record (core/records.h) share this one struct.
//
//   CastCounts c;  QuantizeRef(e4m3fn, x, n, {}, y, &c);
//   double snr = c.SnrDb();
//
// Header-only: formats/ (std only) uses it as well as every layer above.
#ifndef LPSIM_CORE_CAST_COUNTS_H_
#define LPSIM_CORE_CAST_COUNTS_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace lpsim {

// Counts for one tensor cast into one format with one scale.
struct CastCounts {
  uint64_t numel = 0;
  uint64_t underflow = 0;
  uint64_t flushed = 0;
  uint64_t subnormal = 0;
  uint64_t overflow = 0;
  uint64_t nan_in = 0;
  uint64_t inf_in = 0;
  uint64_t zero_in = 0;
  // Over elements whose input and output are finite, in the fixed order of
  // fixed_sum.h: sum (x - q)^2 and sum x^2, each term formed in double.
  double sq_error = 0.0;
  double sq_signal = 0.0;

  // 10 log10(sq_signal / sq_error); +Inf when there is no error.
  double SnrDb() const {
    if (sq_error == 0.0) return std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(sq_signal / sq_error);
  }
  // Counts equal and sums equal bit for bit.
  bool operator==(const CastCounts& o) const {
    auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    return numel == o.numel && underflow == o.underflow && flushed == o.flushed &&
           subnormal == o.subnormal && overflow == o.overflow && nan_in == o.nan_in &&
           inf_in == o.inf_in && zero_in == o.zero_in && same(sq_error, o.sq_error) &&
           same(sq_signal, o.sq_signal);
  }
};

}  // namespace lpsim

#endif  // LPSIM_CORE_CAST_COUNTS_H_
