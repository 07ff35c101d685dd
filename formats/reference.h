// The scalar reference casts: fp32 -> format code -> fp32, bit exact.
//
// This is the definition of every conversion lpsim simulates; the SIMD
// kernels (simd/) are tested against it bit for bit, and it is tested
// against an independent multiprecision oracle (tests/formats/).
//
//   Format f = *ParseFormat("e4m3fn");
//   Encoded e = EncodeRef(f, 464.0f, Rounding::kNearestEven, 0);  // 0x7E (448)
//   float y = DecodeRef(f, e.code);
//
// Rules (docs/formats.md has the full table):
//  - One rounding, directly from the fp32 value; ties to even (when the format
//    has no mantissa bits, ties away from zero, as ml_dtypes does for E8M0).
//  - Overflow is decided after rounding: a rounded magnitude above max becomes
//    Inf, NaN or +-max by Format::overflow_result().
//  - NaN -> the format's NaN (sign kept where it has one), or -0 when it has
//    none. Inf -> Inf, else NaN, else +-max; saturation never changes
//    non-finite inputs. Zero keeps its sign where -0 exists.
//  - FTZ: a result that would be subnormal becomes (signed) zero.
//  - Stochastic: round up iff random_bits < floor(frac * 2^32), where frac is
//    the dropped fraction of one unit in the last place. Unbiased when at
//    most 32 bits are dropped; otherwise biased by less than 2^-32 ulp.
#ifndef LPSIM_FORMATS_REFERENCE_H_
#define LPSIM_FORMATS_REFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/cast_counts.h"
#include "core/status.h"
#include "formats/format.h"

namespace lpsim {

enum class Rounding : uint8_t { kNearestEven, kTowardZero, kStochastic };
const char* ToString(Rounding r);
StatusOr<Rounding> ParseRounding(const std::string& s);  // rne | rtz | stochastic

// What happened to one element; a bit set.
enum CastFlag : uint32_t {
  kCastUnderflow = 1u << 0,  // finite nonzero input, zero result (includes flushed)
  kCastFlushed = 1u << 1,    // result would be subnormal and FTZ made it zero
  kCastSubnormal = 1u << 2,  // result is subnormal
  kCastOverflow = 1u << 3,   // finite input, rounded magnitude above max
  kCastNanIn = 1u << 4,
  kCastInfIn = 1u << 5,
  kCastZeroIn = 1u << 6,
};

struct Encoded {
  uint32_t code;
  uint32_t flags;
};

// fp32 -> code. `random_bits` is used only by Rounding::kStochastic.
Encoded EncodeRef(const Format& f, float x, Rounding rounding, uint32_t random_bits);

// code -> fp32 (exact: every value of a valid Format is an fp32 value).
// NaN codes decode to a quiet NaN, with the code's sign for IEEE and fn NaNs.
float DecodeRef(const Format& f, uint32_t code);

// Encode with a scale: the cast sees x * scale (formed in fp32, as hardware
// does), and the classification refers to x: a finite x that scales to Inf
// counts as overflow, a nonzero x that scales to 0 as underflow.
// Precondition: scale is finite and > 0.
Encoded EncodeScaledRef(const Format& f, float x, float scale, Rounding rounding,
                        uint32_t random_bits);

struct QuantizeOptions {
  Rounding rounding = Rounding::kNearestEven;
  uint64_t seed = 0;
  float scale = 1.0f;          // finite, > 0
  uint64_t index_offset = 0;   // index of in[0] for stochastic bits
};

// Fake quantization: out[i] = Decode(Encode(in[i] * scale)) * (1 / scale),
// with (1 / scale) formed in fp32. `out` may equal `in`; `counts` may be null.
void QuantizeRef(const Format& f, const float* in, size_t n, const QuantizeOptions& opt,
                 float* out, CastCounts* counts);
// The same with a scale per element (block scaling's reference): element i
// is cast as in[i] * mult[i] and decoded times inv[i]; opt.scale is ignored.
void QuantizeRefPerElement(const Format& f, const float* in, size_t n, const QuantizeOptions& opt,
                           const float* mult, const float* inv, float* out, CastCounts* counts);

}  // namespace lpsim

#endif  // LPSIM_FORMATS_REFERENCE_H_
