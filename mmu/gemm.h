// GEMM and batched dot products on a matrix-multiply unit (mmu/unit.h).
//
// Inputs are first rounded into the unit's input formats (to nearest even;
// GemmNotes counts what changed) and c into the output format; then every
// output element is the unit's dot product of mmu/dot_ref.h, bit for bit.
// Block-FMA units writing fp32 run on a Highway kernel (lanes across output
// columns, exact double arithmetic; mmu/gemm-inl.h says why it is exact),
// fp32-fma on native FMA lanes, everything else (exact, fp16/bf16 outputs,
// alignments wider than the kernel holds) on the scalar reference.
//
//   StatusOr<GemmConfig> cfg = MakeGemmConfig("h100", "e4m3fn", "e4m3fn", "");
//   Gemm(*cfg, m, n, k, a, b, /*c=*/nullptr, d, &notes);  // d = a b
#ifndef LPSIM_MMU_GEMM_H_
#define LPSIM_MMU_GEMM_H_

#include <cstddef>
#include <string>

#include "formats/format.h"
#include "formats/reference.h"
#include "core/status.h"
#include "mmu/dot_ref.h"
#include "mmu/unit.h"

namespace lpsim {
namespace mmu {

struct GemmConfig {
  const Unit* unit = nullptr;
  const UnitMode* mode = nullptr;
  DotFormats formats;  // inputs, output and the final rounding
};

// Validates the unit, the input formats (the unit must take both) and the
// output format (empty: the unit's default); errors say what is accepted.
StatusOr<GemmConfig> MakeGemmConfig(const std::string& unit, const std::string& in_a,
                                    const std::string& in_b, const std::string& out);

// How many input values were not in their format and were rounded (to
// nearest even) before the product, and how many were flushed as subnormal.
struct GemmNotes {
  size_t a_rounded = 0;
  size_t b_rounded = 0;
  size_t c_rounded = 0;
  size_t flushed = 0;
};

// D = A B + C: A is m x k, B is k x n, C (null: zeros) and D are m x n, all
// row-major. D may not alias the inputs. `notes` may be null.
void Gemm(const GemmConfig& cfg, size_t m, size_t n, size_t k, const float* a, const float* b,
          const float* c, float* d, GemmNotes* notes, int threads = 1);

// D[i] = sum_k A[i,k] B[i,k] + C[i]: A and B m x k, C (null: zeros) and D of
// length m; the batched inner products hardware test vectors use.
void RowwiseDot(const GemmConfig& cfg, size_t m, size_t k, const float* a, const float* b,
                const float* c, float* d, GemmNotes* notes, int threads = 1);

// The reference twins: the same results from DotRef, one element at a time.
void GemmRef(const GemmConfig& cfg, size_t m, size_t n, size_t k, const float* a, const float* b,
             const float* c, float* d);
void RowwiseDotRef(const GemmConfig& cfg, size_t m, size_t k, const float* a, const float* b,
                   const float* c, float* d);

// Whether Gemm runs this configuration on the SIMD kernel.
bool UsesKernel(const GemmConfig& cfg);

}  // namespace mmu
}  // namespace lpsim

#endif  // LPSIM_MMU_GEMM_H_
