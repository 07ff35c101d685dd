// Scaling recipes as typed values: what real low-precision training does to
// a tensor before casting it. Nothing; a per-tensor scale from the current
// amax or from an amax history (delayed, Transformer Engine's rule); or
// per-block scales (MX, row-wise, 1x128, 128x128). The numbers a recipe
// derives from amax are computed in simd/scaling.h; this file only says what
// the recipe is, so every layer (the tracker, the rules, the recommender)
// names and parses recipes the same way.
//
//   Scaling s = Scaling::Delayed(16);            // s.Name() == "delayed16"
//   StatusOr<Scaling> mx = Scaling::Parse("mx");  // 1x32 blocks, E8M0 scales
//   if (mx->per_tensor()) ...
#ifndef LPSIM_CORE_SCALING_H_
#define LPSIM_CORE_SCALING_H_

#include <cstddef>
#include <string>

#include "core/status.h"

namespace lpsim {

struct ScaleOptions {
  int margin = 0;             // scale = max / amax * 2^-margin
  bool power_of_two = false;  // round the scale down to a power of two
  // With power_of_two: the scale's exponent is clamped to [min_exponent,
  // max_exponent]. The defaults leave every fp32 power of two; Graphcore's
  // IPU, whose per-tensor FP8 exponent bias is a 6-bit signed value, uses
  // [-32, 31] (IpuExponentBias).
  int min_exponent = -126;
  int max_exponent = 127;

  // A per-tensor exponent bias as the IPU applies it (assumed range
  // [-32, 31]; Noune et al., "8-bit Numerical Formats for Deep Neural
  // Networks", arXiv:2206.02915): a power-of-two current scale.
  static ScaleOptions IpuExponentBias(int margin = 0) { return {margin, true, -32, 31}; }
};

// How a delayed scaler reduces its amax history.
enum class AmaxReduction { kMax, kMostRecent };

// Delayed scaling (Transformer Engine's DelayedScaling): the scale for a step
// comes from the amax of the previous `history` steps.
struct DelayedOptions {
  size_t history = 16;
  AmaxReduction algo = AmaxReduction::kMax;
  ScaleOptions scale;
};

// How a 2-D tensor [rows x cols] is cut into blocks that share one scale.
struct BlockSpec {
  // kFp32: an fp32 scale per block (CurrentScale of the block amax);
  // kE8m0: OCP MX, a power-of-two E8M0 scale per block (MxScaleCode);
  // kNvfp4: an E4M3 scale per block under a per-tensor fp32 scale
  // (Nvfp4BlockScale). Elements of kE8m0 and kNvfp4 blocks saturate.
  enum class ScaleType { kFp32, kE8m0, kNvfp4 };
  size_t block_rows = 1;   // 0 = all rows
  size_t block_cols = 32;  // 0 = all columns
  ScaleType scale_type = ScaleType::kE8m0;
  ScaleOptions scale;      // for kFp32 scales

  static BlockSpec Mx() { return {1, 32, ScaleType::kE8m0, {}}; }
  static BlockSpec Rowwise() { return {1, 0, ScaleType::kFp32, {}}; }
  static BlockSpec Columnwise() { return {0, 1, ScaleType::kFp32, {}}; }
  static BlockSpec Tile1x128() { return {1, 128, ScaleType::kFp32, {0, true}}; }
  static BlockSpec Tile128x128() { return {128, 128, ScaleType::kFp32, {0, true}}; }
  // NVFP4: 1x16 blocks (activations, gradients), 16x16 (TE's weights).
  static BlockSpec Nvfp4() { return {1, 16, ScaleType::kNvfp4, {}}; }
  static BlockSpec Nvfp4Weight() { return {16, 16, ScaleType::kNvfp4, {}}; }
  // "mx", "nvfp4", "row", "col", "1x128", "128x128", or "RxC" (R, C a count
  // or "all"; fp32 power-of-two scales), then options ":e8m0", ":fp32",
  // ":nvfp4", ":pow2", ":nopow2", ":margin=N". Example: "1x32:fp32:nopow2",
  // "16x16:nvfp4".
  static StatusOr<BlockSpec> Parse(const std::string& name);

  // Blocks along a row / a column; 0 for an empty dimension.
  size_t BlocksPerRow(size_t cols) const;
  size_t BlocksPerCol(size_t rows) const;
};

// Integer quantization's scale (int8, uint8, int4 storage).
struct IntegerScaling {
  bool per_channel = false;  // one scale per output channel (row), else per tensor
  bool symmetric = true;     // zero point 0
};

struct Scaling {
  enum class Kind {
    kNone,     // cast as is
    kCurrent,  // per tensor, from this tensor's amax
    kDelayed,  // per tensor, from an amax history of earlier steps
    kBlock,    // per block (1x128, 128x128, MX, NVFP4, ...): BlockSpec
    kInteger,  // integer scale (and zero point) per tensor or per channel;
               // only for integer storage (hardware targets, core/target.h)
  };
  Kind kind = Kind::kNone;
  DelayedOptions delayed;  // kDelayed
  ScaleOptions scale;      // kCurrent
  BlockSpec block;         // kBlock
  IntegerScaling integer;  // kInteger
  // kDelayed: how a target file says the amax is reduced across ranks,
  // "none" or "data_parallel"; recorded, not simulated.
  std::string amax_reduction = "none";

  static Scaling None() { return {}; }
  static Scaling Current(int margin = 0, bool power_of_two = false);
  static Scaling Delayed(size_t history = 16, int margin = 0,
                         AmaxReduction algo = AmaxReduction::kMax);
  static Scaling Block(const BlockSpec& spec);
  static Scaling Mx() { return Block(BlockSpec::Mx()); }
  static Scaling Integer(bool per_channel = false, bool symmetric = true);

  // "none", "current", "delayed16" (history 16), "delayed" (= delayed16), or
  // a block spec (BlockSpec::Parse: "mx", "row", "col", "1x128", "128x128",
  // "RxC" with options). Parse(s.Name()) gives s back for every recipe the
  // names can express (integer scaling has a name but no parse: it comes
  // only from target files).
  static StatusOr<Scaling> Parse(const std::string& name);
  std::string Name() const;
  // Every setting spelled out, as `lpsim targets` and the target JSON show a
  // role's recipe: "current:margin=1:pow2:exp=-32..31", "delayed1024:max",
  // "mx", "1x128:fp32", "16x16:nvfp4", "int:per_channel:symmetric".
  std::string FullName() const;
  // The scale options of the recipe's kind: `scale` (kCurrent and the
  // others), `delayed.scale` (kDelayed), `block.scale` (kBlock).
  const ScaleOptions& scale_options() const;
  // One multiplier for the whole tensor (none, current, delayed, per-tensor
  // integer).
  bool per_tensor() const {
    return kind != Kind::kBlock && !(kind == Kind::kInteger && integer.per_channel);
  }
};

}  // namespace lpsim

#endif  // LPSIM_CORE_SCALING_H_
