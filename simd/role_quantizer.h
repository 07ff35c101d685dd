// RoleQuantizer: simulates one role of a hardware target (core/target.h)
// on tensors, with the role's format, scaling (keeping delayed scaling's
// history across calls) and rounding, through the SIMD kernels.
//
//   const RoleSpec& w = FindTarget("int8-npu")->role(TargetRole::kWeight);
//   auto [rows, cols] = RoleMatrixShape(w, shape);
//   RoleQuantizer q(w);
//   q.Quantize(x, rows, cols, {}, y, &counts);
#ifndef LPSIM_SIMD_ROLE_QUANTIZER_H_
#define LPSIM_SIMD_ROLE_QUANTIZER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/cast_counts.h"
#include "core/target.h"
#include "simd/scaling.h"

namespace lpsim {

// Simulates one role on a [rows x cols] row-major tensor (rows = output
// channels for weights): fake quantization with the role's format, scaling
// and rounding; counts refer to the input (formats/reference.h). Keeps the
// amax history of delayed scaling across calls (Update after each call); its
// first call uses the tensor's own amax, as if the history held it.
class RoleQuantizer {
 public:
  explicit RoleQuantizer(const RoleSpec& spec);
  // A copy continues from the same history; the two then evolve apart (the
  // tracker's rollouts train on a copy of a probe target's casts).
  RoleQuantizer(const RoleQuantizer& other);
  RoleQuantizer& operator=(const RoleQuantizer&) = delete;
  struct Options {
    uint64_t seed = 0;
    uint64_t index_offset = 0;
    int threads = 1;
  };
  // The per-tensor scale that was used (1 for block and integer scalings),
  // for reports. `out` may equal `in`.
  float Quantize(const float* in, size_t rows, size_t cols, const Options& opt, float* out,
                 CastCounts* counts);
  // A delayed recipe's history takes `amax` (a tensor's largest magnitude)
  // as a cast of that tensor would (the first one sets the first scale);
  // nothing for other recipes. For a cast that is simulated less often than
  // the tensor is made (the tracker's probes), so the history still follows
  // every step.
  void Observe(float amax);
  bool delayed() const { return delayed_ != nullptr; }
  const RoleSpec& spec() const { return spec_; }

 private:
  RoleSpec spec_;
  std::unique_ptr<DelayedScaler> delayed_;
  bool first_ = true;
};

}  // namespace lpsim

#endif  // LPSIM_SIMD_ROLE_QUANTIZER_H_
