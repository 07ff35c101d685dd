// Scaling recipes: amax, the scale each recipe derives from it, and block
// quantization with per-block scales.
//
// Conventions: a scale multiplies before the cast (the format sees x * scale)
// and its fp32 reciprocal multiplies after. Counts are after scaling.
//
//   float amax = simd::Amax(x, n);
//   float s = CurrentScale(e4m3fn, amax, {/*margin=*/0, /*power_of_two=*/false});
//   DelayedScaler d(e5m2, {/*history=*/16});  s = d.Scale(); d.Update(amax);
//   BlockSpec mx = BlockSpec::Mx();  // 1x32 blocks, E8M0 scales
//   simd::BlockQuantize(e4m3fn, x, rows, cols, mx, {}, y, scales, &counts);
#ifndef LPSIM_SIMD_SCALING_H_
#define LPSIM_SIMD_SCALING_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/scaling.h"
#include "core/status.h"
#include "formats/format.h"
#include "formats/reference.h"

namespace lpsim {

// Per-tensor current scaling (Transformer Engine's compute_scale_from_amax):
// scale = (max * 2^-margin) / amax in fp32; amax 0, negative, Inf or NaN -> 1;
// an infinite scale -> FLT_MAX; a scale below FLT_MIN -> FLT_MIN (so 1/scale
// stays finite); then, with power_of_two, the largest power of two <= scale,
// its exponent clamped to [min_exponent, max_exponent].
float CurrentScale(const Format& f, float amax, const ScaleOptions& opt = {});

// Delayed scaling: the scale for this step comes from the amax history of
// previous steps (TE DelayedScaling). Update pushes amax (keeping the last
// `history`, at least 1), reduces the window (kMax: largest, NaN if any is
// NaN; kMostRecent: the new one) and, if that is finite and > 0, sets
// Scale() = CurrentScale(reduced); otherwise the previous scale stays.
// steps_since_change counts updates that left the scale as it was.
class DelayedScaler {
 public:
  using Algo = AmaxReduction;
  using Options = DelayedOptions;
  DelayedScaler(const Format& f, const Options& opt);

  float Scale() const { return scale_; }      // use for this step's cast
  void Update(float amax);                    // after the step: push amax, recompute
  size_t steps_since_change() const { return steps_since_change_; }

 private:
  Format format_;
  Options opt_;
  std::deque<float> history_;
  float scale_ = 1.0f;
  size_t steps_since_change_ = 0;
};

// NVFP4's two-level scale (NVIDIA, "Introducing NVFP4", 2025; Transformer
// Engine NVFP4BlockScaling): a per-tensor fp32 encode scale
//   s_enc = (448 * max(elem)) / tensor_amax      (1 when amax is 0 or not finite,
//                                                 FLT_MAX when that overflows)
// and per block an E4M3 decode scale
//   s_dec = e4m3fn_sat((block_amax / max(elem)) * s_enc)   (RNE)
// The block's elements are cast as x * mult with mult = s_enc / s_dec
// (clamped to FLT_MAX) and read back times inv = s_dec / s_enc. A block whose
// s_dec rounds to 0 is cast with mult = s_enc (every element then rounds to
// zero under RNE) and read back times 0. All operations in fp32.
struct Nvfp4Scale {
  float mult;
  float inv;
  uint8_t e4m3_code;  // the stored block scale
};
float Nvfp4TensorScale(const Format& elem, float tensor_amax);
Nvfp4Scale Nvfp4BlockScale(const Format& elem, float block_amax, float tensor_scale);

// One block's multiplier and read-back factor under `spec`, as
// BlockQuantize computes them: E8M0 2^-exponent of MxScaleCode, NVFP4
// Nvfp4BlockScale under `tensor_scale` (inv 0: the block reads back as
// zeros), fp32 CurrentScale(f, block_amax, spec.scale).
struct BlockScale {
  float mult;
  float inv;
};
BlockScale BlockScaleOf(const Format& f, const BlockSpec& spec, float block_amax, float tensor_scale);
// The element format of a block recipe: MX and NVFP4 elements saturate,
// fp32-scaled blocks keep f's overflow rule.
Format BlockElementFormat(const Format& f, const BlockSpec& spec);

// MX shared scale of a block (OCP MX v1.0): exponent
// floor(log2(amax)) - emax(elem), clamped to [-127, 127]; an all-zero block
// uses -127 (an Inf amax 127). Returned as the E8M0 code (exponent + 127);
// a NaN amax gives 0xFF, the E8M0 NaN. BlockQuantize's amax is over finite
// elements only, so Inf/NaN elements do not poison their block's scale (they
// are cast by the format's own Inf/NaN rule).
uint8_t MxScaleCode(const Format& elem, float block_amax);

namespace simd {

// Largest finite |x|; 0 if none.
float Amax(const float* x, size_t n, int threads = 1);

// Quantize each block with its own scale. `scales` receives one value per
// block, row-major over blocks: the dequantization factor, x ~ q * scales[b]
// (the fp32 reciprocal of the multiplier the cast saw; for kE8m0 exactly
// 2^(shared exponent)); it may be null. The block amax is the largest finite
// |x|; kFp32 multipliers are CurrentScale(f, amax, spec.scale) and the
// elements keep f's overflow policy; kE8m0 multipliers are 2^-exponent of
// MxScaleCode and MX elements always saturate (OCP MX); kNvfp4 blocks are
// scaled as Nvfp4BlockScale says, with the largest block amax as the tensor
// amax, and their elements saturate too. opt.scale is ignored
// (the block scales replace it); rounding, seed and index_offset apply as in
// QuantizeRef. Counts and sums follow element order (row-major) exactly as
// QuantizeRef would with a per-element scale, so they are identical for any
// thread count; `flushed` also counts the nonzero finite inputs of blocks
// whose scale rounds to zero (NVFP4), which read back as zeros. `out` may
// equal `in`, or be null when only the counts (and scales) are wanted.
void BlockQuantize(const Format& f, const float* in, size_t rows, size_t cols,
                   const BlockSpec& spec, const QuantizeOptions& opt, float* out, float* scales,
                   CastCounts* counts, int threads = 1);

// BlockQuantize's counts (out and scales null) for each of `formats` into
// counts[0, formats.size()), the block amaxes found once for all of them.
void BlockCounts(const std::vector<Format>& formats, const float* in, size_t rows, size_t cols,
                 const BlockSpec& spec, const QuantizeOptions& opt, CastCounts* counts,
                 int threads = 1);

// The scalar twin.
void BlockQuantizeRef(const Format& f, const float* in, size_t rows, size_t cols,
                      const BlockSpec& spec, const QuantizeOptions& opt, float* out,
                      float* scales, CastCounts* counts);

}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_SCALING_H_
