// Integer quantization with a scale and a zero point (affine), the scheme of
// TFLite, CMSIS-NN and most int8 NPUs: the scalar reference.
//
// real = (q - zero_point) * scale, with q an integer in [qmin, qmax]
// (TFLite quantization spec, tensorflow.org/lite/performance/quantization_spec).
// Quantizing: q = clamp(round(x / scale) + zero_point, qmin, qmax), the
// division in fp32 and round() half away from zero as TFLite's reference
// kernels do (TfLiteRound = std::round); RNE and stochastic rounding are
// there for hardware that does those.
//
//   IntFormat i8 = *ParseIntFormat("int8");
//   IntFormat w8 = *ParseIntFormat("int8:narrow");           // [-127, 127]
//   IntQuantParams p = SymmetricIntParams(w8, amax);          // weights
//   IntQuantParams a = AsymmetricIntParams(i8, min, max);     // activations
//   IntEncoded e = QuantizeIntRef(i8, x, a, IntRounding::kHalfAway, 0);
//   float y = DequantizeIntRef(e.q, a);
//
// Non-finite inputs (assumed, as Arm's FCVTZS does for float -> integer):
// NaN -> the zero point (reads back as 0), +-Inf -> qmax / qmin.
#ifndef LPSIM_FORMATS_INTEGER_H_
#define LPSIM_FORMATS_INTEGER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/reference.h"
#include "core/status.h"

namespace lpsim {

struct IntFormat {
  std::string name;
  int bits = 8;            // 2..16
  bool is_signed = true;
  // Narrow range: a signed format drops its most negative code, so the range
  // is symmetric ([-127, 127] for int8: TFLite's weights).
  bool narrow = false;

  int qmin() const;
  int qmax() const;
  bool operator==(const IntFormat& o) const;
};

// int8, uint8, int4, uint4, int16 (full range).
const std::vector<IntFormat>& BuiltinIntFormats();
// "int8", "uint8", "int4", "uint4", "int16", "intN"/"uintN" (N in 2..16),
// optionally followed by ":narrow" (signed only).
StatusOr<IntFormat> ParseIntFormat(const std::string& spec);
// Whether `spec` is meant as an integer format (starts with int/uint + digit).
bool LooksLikeIntFormat(const std::string& spec);

enum class IntRounding : uint8_t {
  kHalfAway,     // round half away from zero (TFLite, CMSIS-NN reference)
  kNearestEven,  // round half to even
  kStochastic,   // up with probability equal to the dropped fraction
};
const char* ToString(IntRounding r);
StatusOr<IntRounding> ParseIntRounding(const std::string& s);  // away | rne | stochastic

struct IntQuantParams {
  float scale = 1.0f;      // finite, > 0
  int32_t zero_point = 0;  // within [qmin, qmax]
  bool operator==(const IntQuantParams& o) const {
    return scale == o.scale && zero_point == o.zero_point;
  }
};

// Symmetric (zero point 0): scale = amax / qmax in fp32, the scheme of
// TFLite's int8 weights (per tensor or per output channel). An amax that is
// zero, negative or not finite gives scale 1.
IntQuantParams SymmetricIntParams(const IntFormat& f, float amax);

// Asymmetric: TFLite's ChooseQuantizationParams
// (tensorflow/lite/kernels/internal/quantization_util.h), in double: the
// range is widened to include 0; scale = (rmax - rmin) / (qmax - qmin); the
// zero point is taken from whichever end gives the smaller error, clamped
// to [qmin, qmax] and rounded half away from zero ("nudged"), so 0 is exact.
// An empty range (rmin == rmax == 0) gives scale 1 and zero point
// clamp(0, qmin, qmax).
IntQuantParams AsymmetricIntParams(const IntFormat& f, float min, float max);

struct IntEncoded {
  int32_t q;
  uint32_t flags;  // CastFlag bits: overflow = clamped, underflow = nonzero x read back as 0
};

// x -> q. `random_bits` is used only by IntRounding::kStochastic (round up
// iff random_bits < floor(frac * 2^32)).
IntEncoded QuantizeIntRef(const IntFormat& f, float x, const IntQuantParams& p,
                          IntRounding rounding, uint32_t random_bits);

// q -> real: scale * (q - zero_point), in fp32.
float DequantizeIntRef(int32_t q, const IntQuantParams& p);

// Fake quantization of a [rows x cols] row-major tensor.
struct IntQuantizeOptions {
  bool per_row = false;     // per output channel: one scale (and zero point) per row
  bool symmetric = true;    // false: zero point from the row's / tensor's min and max
  IntRounding rounding = IntRounding::kHalfAway;
  uint64_t seed = 0;        // stochastic rounding (formats/stochastic.h)
  uint64_t index_offset = 0;
};

// out[i] = Dequantize(Quantize(in[i])) with parameters chosen from the finite
// values of each row (per_row) or the whole tensor. `params` (may be null)
// receives one entry per row or one for the tensor; `counts` (may be null)
// follow the summation order of formats/fixed_sum.h. `out` may equal `in`.
void IntQuantizeRef(const IntFormat& f, const float* in, size_t rows, size_t cols,
                    const IntQuantizeOptions& opt, float* out,
                    std::vector<IntQuantParams>* params, CastCounts* counts);

// The cast alone with given parameters (the reference of simd::IntQuantizeWith):
// params[r] for row r when opt.per_row, else params[0] for the whole tensor
// (opt.symmetric is unused); the stochastic index of element i is
// opt.index_offset + i. `counts` may be null; `out` may equal `in`.
void IntQuantizeWithRef(const IntFormat& f, const float* in, size_t rows, size_t cols,
                        const IntQuantParams* params, const IntQuantizeOptions& opt, float* out,
                        CastCounts* counts);

}  // namespace lpsim

#endif  // LPSIM_FORMATS_INTEGER_H_
