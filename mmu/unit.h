// Matrix-multiply units: how an accelerator accumulates a dot product.
//
// A tensor core does not sum products the way a chain of IEEE fp32 FMAs does.
// Following the models of Fasi, Higham, Mikaitis and Pranesh ("Numerical
// behavior of NVIDIA tensor cores", PeerJ Computer Science 7:e330, 2021) and
// Khattak and Mikaitis ("Accurate Models of NVIDIA Tensor Cores", arXiv
// 2512.07004, 2025), a unit computes d = c + sum_k a_k b_k as a chain of
// *block FMAs*: each takes `group` exact products and the running sum c,
// aligns them all to the largest exponent keeping `alignment_bits` fraction
// bits (the rest truncated or rounded away), adds them exactly in fixed point
// and normalizes once, rounding into the output format. DeepSeek-V3's recipe
// (technical report, arXiv 2412.19437, section 3.3.2) adds the partial sum to
// an fp32 accumulator every `promote_every` products.
//
//   StatusOr<const Unit*> u = FindUnit("h100");
//   StatusOr<const UnitMode*> m = (*u)->ModeFor(e4m3fn, e4m3fn);
//   // mmu/gemm.h runs a GEMM on it; mmu/dot_ref.h is the scalar definition.
//
// docs/mmu.md has the table of units, their parameters and sources.
#ifndef LPSIM_MMU_UNIT_H_
#define LPSIM_MMU_UNIT_H_

#include <string>
#include <vector>

#include "formats/format.h"
#include "formats/reference.h"
#include "core/status.h"

namespace lpsim {
namespace mmu {

// How the bits of a term below the alignment point are dropped.
enum class AlignRounding : uint8_t {
  kTruncate,     // toward zero on the magnitude (sign-magnitude adders)
  kFloor,        // toward -Inf (two's-complement truncation)
  kNearestEven,  // to nearest, ties to even
};
const char* ToString(AlignRounding r);

// alignment_bits meaning "keep every bit": each block FMA is then exact
// before its one rounding into the output format.
constexpr int kUnlimitedAlignment = -1;

// One block FMA and the chain of them. All products a_k * b_k are exact.
struct BlockFmaParams {
  // Products summed before one normalization (the FMA size).
  int group = 1;
  // Fraction bits kept below the leading bit of the largest term of a block
  // FMA when all terms (products and c) are aligned to it; fp32 has 23, so
  // "1 extra bit" is 24. kUnlimitedAlignment keeps all bits.
  int alignment_bits = 23;
  AlignRounding align_rounding = AlignRounding::kTruncate;
  // Normalization points inside a group: with subgroups = s > 1 the group's
  // products are split into s interleaved sets (product t goes to set t % s),
  // each set is aligned to its own largest exponent and summed exactly; the s
  // partial sums and c are then aligned (same alignment_bits and rounding)
  // and added, and that sum is rounded into the output.
  int subgroups = 1;
  // Bits of the fixed-point adder above the leading bit of the largest term.
  // A sum that needs more wraps around in two's complement, as a too-narrow
  // adder would; named units have enough bits never to wrap.
  int carry_bits = 8;
  // Subnormal inputs (in their input format) are flushed to zero when false.
  bool subnormal_inputs = true;
  // Subnormal results (in the output format) are flushed to zero when false.
  bool subnormal_output = true;
  // Every promote_every products (a multiple of group), the partial sum,
  // started from zero, is added to an fp32 accumulator (rounded to nearest)
  // that started at c. 0: never; c is the first block FMA's accumulator.
  int promote_every = 0;
};

// What a unit computes: a chain of block FMAs, a sequential IEEE fp32 FMA
// loop, or the exact dot product rounded once.
enum class UnitKind : uint8_t { kBlockFma, kFp32Fma, kExact };

// The final rounding into one output format (the format of c and d).
struct OutputMode {
  std::string format;  // "fp32", "fp16", "bf16"
  Rounding rounding;   // kNearestEven or kTowardZero
};

// One set of input formats a unit accepts and the parameters it has for them.
struct UnitMode {
  std::vector<std::string> inputs;  // formats for A and B, e.g. {"e4m3fn", "e5m2"}
  BlockFmaParams params;            // kBlockFma only
  std::vector<OutputMode> outputs;  // first = default
  std::string source;               // where each parameter comes from
  bool Accepts(const Format& f) const;
  // The rounding into `out`, or an error naming the outputs there are.
  StatusOr<Rounding> RoundingFor(const Format& out) const;
};

struct Unit {
  std::string name;      // "h100"
  std::string hardware;  // "NVIDIA H100/H200 (Hopper) tensor cores"
  UnitKind kind = UnitKind::kBlockFma;
  std::vector<UnitMode> modes;
  std::vector<std::string> aliases;  // "h200"
  // The mode whose inputs include both formats, or an error listing what the
  // unit accepts.
  StatusOr<const UnitMode*> ModeFor(const Format& a, const Format& b) const;
};

// Every named unit (docs/mmu.md), in display order.
const std::vector<Unit>& Units();
// By name or alias; the error lists the names.
StatusOr<const Unit*> FindUnit(const std::string& name);

// The fp32 output format and the others a unit may write.
const Format& Fp32Format();

}  // namespace mmu
}  // namespace lpsim

#endif  // LPSIM_MMU_UNIT_H_
