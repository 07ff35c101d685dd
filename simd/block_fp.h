// Block floating point with a shared exponent (Tenstorrent bfp8 / bfp4 /
// bfp2), SIMD: the bit-exact twin of BfpQuantizeRef (formats/block_fp.h),
// dispatched at run time like simd/quantize.h.
//
// Outputs, exponents and counts (sums in the order of formats/fixed_sum.h)
// are identical to the reference's for every target and thread count;
// tensors of at least 2^18 elements per thread are split over up to
// `threads` threads.
//
//   BfpFormat f = *ParseBfpFormat("bfp8");
//   std::vector<uint8_t> exps(rows * f.BlocksPerRow(cols));
//   simd::BfpQuantize(f, x, rows, cols, {}, y, exps.data(), &counts);
#ifndef LPSIM_SIMD_BLOCK_FP_H_
#define LPSIM_SIMD_BLOCK_FP_H_

#include <cstddef>
#include <cstdint>

#include "formats/block_fp.h"
#include "formats/reference.h"

namespace lpsim {
namespace simd {

// Fake quantization of a [rows x cols] row-major tensor, blocks along rows.
// `exps` (may be null) receives rows * BlocksPerRow(cols) exponent fields
// (E + 127); `counts` may be null; opt.scale is ignored; `out` may equal `in`.
void BfpQuantize(const BfpFormat& f, const float* in, size_t rows, size_t cols,
                 const QuantizeOptions& opt, float* out, uint8_t* exps, CastCounts* counts,
                 int threads = 1);

}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_BLOCK_FP_H_
