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
  enum class ScaleType { kFp32, kE8m0 };
  size_t block_rows = 1;   // 0 = all rows
  size_t block_cols = 32;  // 0 = all columns
  ScaleType scale_type = ScaleType::kE8m0;
  ScaleOptions scale;      // for kFp32 scales

  static BlockSpec Mx() { return {1, 32, ScaleType::kE8m0, {}}; }
  static BlockSpec Rowwise() { return {1, 0, ScaleType::kFp32, {}}; }
  static BlockSpec Columnwise() { return {0, 1, ScaleType::kFp32, {}}; }
  static BlockSpec Tile1x128() { return {1, 128, ScaleType::kFp32, {0, true}}; }
  static BlockSpec Tile128x128() { return {128, 128, ScaleType::kFp32, {0, true}}; }
  // "mx", "row", "col", "1x128", "128x128", or "RxC" (R, C a count or
  // "all"; fp32 power-of-two scales), then options ":e8m0", ":fp32", ":pow2",
  // ":nopow2", ":margin=N". Example: "1x32:fp32:nopow2".
  static StatusOr<BlockSpec> Parse(const std::string& name);

  // Blocks along a row / a column; 0 for an empty dimension.
  size_t BlocksPerRow(size_t cols) const;
  size_t BlocksPerCol(size_t rows) const;
};

struct Scaling {
  enum class Kind { kNone, kCurrent, kDelayed, kBlock };
  Kind kind = Kind::kNone;
  DelayedOptions delayed;  // kDelayed
  ScaleOptions scale;      // kCurrent
  BlockSpec block;         // kBlock

  static Scaling None() { return {}; }
  static Scaling Current(int margin = 0, bool power_of_two = false);
  static Scaling Delayed(size_t history = 16, int margin = 0,
                         AmaxReduction algo = AmaxReduction::kMax);
  static Scaling Block(const BlockSpec& spec);
  static Scaling Mx() { return Block(BlockSpec::Mx()); }

  // "none", "current", "delayed16" (history 16), "delayed" (= delayed16), or
  // a block spec (BlockSpec::Parse: "mx", "row", "col", "1x128", "128x128",
  // "RxC" with options). Parse(s.Name()) gives s back for every recipe the
  // names can express.
  static StatusOr<Scaling> Parse(const std::string& name);
  std::string Name() const;
  // One multiplier for the whole tensor (none, current, delayed).
  bool per_tensor() const { return kind != Kind::kBlock; }
};

}  // namespace lpsim

#endif  // LPSIM_CORE_SCALING_H_
