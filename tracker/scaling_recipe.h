// Scaling: the recipe a tracker applies before each simulated cast.
//
// A recipe names what real low-precision training does to a tensor before
// casting it (DESIGN.md "Scaling recipes"): nothing, a per-tensor scale from
// the current amax or from an amax history (delayed), or per-block scales
// (MX, row-wise, 1x128, 128x128). Counts are recorded after scaling.
//
//   opt.scaling = Scaling::Delayed(16);
//   StatusOr<Scaling> s = Scaling::Parse("mx");
#ifndef LPSIM_TRACKER_SCALING_RECIPE_H_
#define LPSIM_TRACKER_SCALING_RECIPE_H_

#include <cstddef>
#include <string>

#include "formats/status.h"
#include "simd/scaling.h"

namespace lpsim {

struct Scaling {
  enum class Kind { kNone, kCurrent, kDelayed, kBlock };
  Kind kind = Kind::kNone;
  DelayedScaler::Options delayed;  // kDelayed
  ScaleOptions scale;              // kCurrent
  BlockSpec block;                 // kBlock

  static Scaling None() { return {}; }
  static Scaling Current(int margin = 0, bool power_of_two = false);
  static Scaling Delayed(size_t history = 16, int margin = 0,
                         DelayedScaler::Algo algo = DelayedScaler::Algo::kMax);
  static Scaling Block(const BlockSpec& spec);
  static Scaling Mx() { return Block(BlockSpec::Mx()); }

  // "none", "current", "delayed16" (history 16), "delayed" (= delayed16),
  // "mx", "row", "col", "1x128", "128x128".
  static StatusOr<Scaling> Parse(const std::string& name);
  std::string Name() const;
  bool per_tensor() const { return kind != Kind::kBlock; }
};

}  // namespace lpsim

#endif  // LPSIM_TRACKER_SCALING_RECIPE_H_
