// The scalar definition of what each unit computes for one dot product
// d = c + sum_k a[k] b[k], bit for bit. The SIMD GEMM (mmu/gemm.h) is tested
// against it; the block-FMA model is tested against hand-built vectors and
// against ExactDotRef (tests/mmu/).
//
//   DotFormats f{e4m3fn, e4m3fn, fp32, Rounding::kTowardZero};
//   float d = BlockFmaDotRef(h100_params, f, a, 1, b, 1, k, c);
//
// Inputs are values of their formats already (the GEMM driver rounds them
// there) and c a value of the output format. Products are exact (every input
// format's products are doubles). Zero results are +0. A NaN or Inf input, or
// an accumulator that overflowed to Inf, makes the result the IEEE double sum
// of c and the products (so Inf - Inf is NaN), rounded to float.
#ifndef LPSIM_MMU_DOT_REF_H_
#define LPSIM_MMU_DOT_REF_H_

#include <cstddef>

#include "formats/format.h"
#include "formats/reference.h"
#include "mmu/unit.h"

namespace lpsim {
namespace mmu {

struct DotFormats {
  Format a;           // input format of a (for subnormal flushing)
  Format b;
  Format out;         // format of c and d: fp32, fp16 or bf16
  Rounding rounding;  // final rounding into `out`: kNearestEven or kTowardZero
};

// The block-FMA chain of unit.h for a[i * sa], b[i * sb], i < k.
float BlockFmaDotRef(const BlockFmaParams& p, const DotFormats& f, const float* a, size_t sa,
                     const float* b, size_t sb, size_t k, float c);

// acc = c; acc = fmaf(a[i], b[i], acc) for i = 0..k-1 (IEEE fp32, in order).
float Fp32FmaDotRef(const float* a, size_t sa, const float* b, size_t sb, size_t k, float c);

// c + sum a[i] b[i] summed exactly (Boost.Multiprecision, 1400-bit binary
// floats: exact for every sum of products of fp32 values), rounded once into
// `out` with `rounding`.
float ExactDotRef(const Format& out, Rounding rounding, const float* a, size_t sa, const float* b,
                  size_t sb, size_t k, float c);

// ExactDotRef's result, fast: an __int128 fixed-point sum when every term
// fits one 124-bit window (fp8/fp16/bf16 products of moderate spread), else
// ExactDotRef itself. The `exact` unit runs this.
float ExactDot(const Format& out, Rounding rounding, const float* a, size_t sa, const float* b,
               size_t sb, size_t k, float c);

// Dispatches on the unit's kind.
float DotRef(UnitKind kind, const BlockFmaParams& p, const DotFormats& f, const float* a, size_t sa,
             const float* b, size_t sb, size_t k, float c);

// Rounds the double x (finite) into `out` with `rounding` (the final rounding
// of a block FMA); with flush_subnormal, results below out's smallest normal
// become zero of x's sign.
float RoundToOutput(double x, const Format& out, Rounding rounding, bool flush_subnormal);

}  // namespace mmu
}  // namespace lpsim

#endif  // LPSIM_MMU_DOT_REF_H_
