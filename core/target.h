// Hardware targets: what an accelerator does to each tensor, as data.
//
// A target is one JSON file (docs/targets.md has the schema; the built-ins
// live in the repo's targets/ folder, installed to share/lpsim/targets). For
// each role of a training step it names the storage format, the scaling
// recipe and its granularity, the rounding, subnormal handling, saturation and
// the matrix-multiply unit, and every one of those cites its source (a vendor
// document or paper) or says "assumed". Loading validates everything and
// names the bad field.
//
//   StatusOr<Target> t = FindTarget("h100-fp8-delayed");   // a built-in, or a path
//   const RoleSpec& w = t->role(TargetRole::kWeight);
//   RoleQuantizer q(w);  // simd/role_quantizer.h: simulates the role on tensors
#ifndef LPSIM_CORE_TARGET_H_
#define LPSIM_CORE_TARGET_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/records.h"
#include "core/scaling.h"
#include "core/status.h"
#include "formats/block_fp.h"
#include "formats/format.h"
#include "formats/integer.h"
#include "formats/reference.h"

namespace lpsim {

// The tensors of a training step a target says something about.
enum class TargetRole : uint8_t {
  kActivation,
  kWeight,
  kActivationGrad,
  kWeightGrad,
  kOptimizerState,
  kMasterWeights,
};
constexpr size_t kNumTargetRoles = 6;
// "activation", "weight", "activation_grad", "weight_grad",
// "optimizer_state", "master_weights".
const char* ToString(TargetRole r);
StatusOr<TargetRole> ParseTargetRole(const std::string& s);
const std::array<TargetRole, kNumTargetRoles>& AllTargetRoles();
// The target role a record's role is stored as (master weights have no
// record role; kNone and kAll map to kWeight).
TargetRole ToTargetRole(Role r);

// What one role's tensor goes through.
struct RoleSpec {
  enum class Storage : uint8_t { kFloat, kInteger, kBlockFp };
  std::string storage_spec;  // as written: "e4m3fn", "int8", "bfp8"
  Storage storage = Storage::kFloat;
  Format format;             // kFloat: with the role's saturation and FTZ applied
  IntFormat int_format;      // kInteger
  BfpFormat bfp_format;      // kBlockFp
  Scaling scaling;           // its recipe and granularity (kInteger for integer storage)
  Rounding rounding = Rounding::kNearestEven;  // kFloat, kBlockFp
  IntRounding int_rounding = IntRounding::kHalfAway;  // kInteger
  bool subnormals_in = true;   // false: subnormal inputs read as zero (DAZ)
  bool subnormals_out = true;  // false: subnormal results flush to zero (FTZ)
  bool saturate = false;       // finite overflow clamps to +-max
  std::string matmul_unit;     // name of the matrix-multiply unit ("" = none)
  // field -> citation ("assumed" where no source was found), one per field.
  std::map<std::string, std::string> sources;

  // Largest finite magnitude the stored values take before scaling, and the
  // smallest positive one (for range plots): for integers in units of the
  // scale, for block fp relative to 2^E.
  double MaxValue() const;
  double MinPositive() const;
  // "e4m3fn", "int8", "bfp8" plus ":sat", ":ftz" as applied.
  std::string StorageName() const;
};

struct Target {
  std::string name;
  std::string description;
  std::string vendor;
  std::string origin;  // the file it came from
  // Runs inference only ("inference_only": true): no training happens on
  // it, so the break prediction reads its forward pass alone (probes and
  // the records of the roles it stores), never rollouts (which the tracker
  // skips on it), and `lpsim validate` does not train on it.
  bool inference_only = false;
  // Named references the role sources may point to ("te": "NVIDIA
  // Transformer Engine ..."); a role source is one of these keys, "assumed"
  // or a citation of its own.
  std::map<std::string, std::string> references;
  std::array<RoleSpec, kNumTargetRoles> roles;

  const RoleSpec& role(TargetRole r) const { return roles[static_cast<size_t>(r)]; }
  // A role's citation for `field`, with reference keys expanded.
  std::string Source(TargetRole r, const std::string& field) const;
};

// Parses and validates a target file's text. `origin` (the file name) starts
// every error: "targets/x.json: roles.weight.scaling.history: must be an
// integer >= 1".
StatusOr<Target> ParseTarget(const std::string& json_text, const std::string& origin);
StatusOr<Target> LoadTarget(const std::string& path);

// Where built-in targets are looked for, in order: $LPSIM_TARGETS_DIR, the
// installed share/lpsim/targets next to the executable (../share/lpsim/targets
// from bin/), the source tree's targets/ (a build). Only existing folders.
std::vector<std::string> TargetDirs();
// Every *.json in the first folder of TargetDirs(), sorted by name.
StatusOr<std::vector<Target>> BuiltinTargets();
// A path (contains '/' or ends in .json) is loaded; anything else is a
// built-in name. The error lists the built-in names.
StatusOr<Target> FindTarget(const std::string& name_or_path);

// How a tensor of `shape` is seen as [rows x cols] for `role`: per-channel
// integer scaling takes rows = shape[0] (the output channel of a weight);
// everything else rows = numel / last dim, cols = last dim (blocks run along
// the last dimension). A scalar or empty shape is [1 x numel].
std::pair<size_t, size_t> RoleMatrixShape(const RoleSpec& role, const std::vector<int64_t>& shape);

}  // namespace lpsim

#endif  // LPSIM_CORE_TARGET_H_
