// Affine integer fake quantization (int8, uint8, int4 with a scale and a zero
// point, TFLite's rounding and clamping), SIMD: bit-exact twins of
// formats/integer.h, dispatched at run time like simd/quantize.h.
//
// Outputs, parameters and counts (integer counts, and sums in the order of
// formats/fixed_sum.h) are identical to IntQuantizeRef's for every target and
// thread count; tensors of at least 2^18 elements per thread are split over
// up to `threads` threads in whole summation chunks.
//
//   IntQuantizeOptions o;
//   o.per_row = true;                                  // per output channel
//   simd::IntQuantize(*ParseIntFormat("int8:narrow"), w, rows, cols, o, y, &params, &counts);
//   // A calibrated range instead of the tensor's own (values may saturate):
//   IntQuantParams p = AsymmetricIntParams(i8, -1.0f, 3.0f);
//   simd::IntQuantizeWith(i8, x, 1, n, &p, {}, y, &counts);
#ifndef LPSIM_SIMD_INTEGER_H_
#define LPSIM_SIMD_INTEGER_H_

#include <cstddef>
#include <vector>

#include "formats/integer.h"
#include "formats/reference.h"

namespace lpsim {
namespace simd {

// IntQuantizeRef: parameters from the finite values of each row (per_row) or
// of the whole tensor, then the cast. `params` and `counts` may be null;
// `out` may equal `in`.
void IntQuantize(const IntFormat& f, const float* in, size_t rows, size_t cols,
                 const IntQuantizeOptions& opt, float* out, std::vector<IntQuantParams>* params,
                 CastCounts* counts, int threads = 1);

// The cast alone with given parameters: params[r] for row r when
// opt.per_row, else params[0] for the whole tensor (opt.symmetric is
// unused). Each element is DequantizeIntRef(QuantizeIntRef(...)) with the
// stochastic index opt.index_offset + i. Parameters must be valid (scale
// finite and > 0, zero point in [qmin, qmax]).
void IntQuantizeWith(const IntFormat& f, const float* in, size_t rows, size_t cols,
                     const IntQuantParams* params, const IntQuantizeOptions& opt, float* out,
                     CastCounts* counts, int threads = 1);

}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_INTEGER_H_
