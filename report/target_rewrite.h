// TargetRewrite: a stored record as a hardware target would see it.
//
// Each record's simulated formats are replaced by the target's format for the
// record's role, with counts estimated from the record's histograms
// (report/recommend.h: the estimates' expected counts; block recipes and
// block floating point under the model that values fall into blocks at
// random), so the format-aware rules (checks/) judge the target from one
// fp32 run. Integer roles get no format record. Used by `lpsim check RUN
// --target T` and `lpsim validate`.
//
//   TargetRewrite rewrite(FindTarget("h100-fp8-delayed").value());
//   for (TensorRecord r : records) { rewrite(&r); checker.Add(r); }   // in step order
#ifndef LPSIM_REPORT_TARGET_REWRITE_H_
#define LPSIM_REPORT_TARGET_REWRITE_H_

#include <map>
#include <string>

#include "core/records.h"
#include "core/target.h"
#include "report/recommend.h"
#include "simd/scaling.h"

namespace lpsim {

class TargetRewrite {
 public:
  explicit TargetRewrite(Target t) : target_(std::move(t)) {}
  // Records of one tensor must come in step order (delayed scaling keeps an
  // amax history per tensor, seeded by its first record's amax).
  void operator()(TensorRecord* r);
  const Target& target() const { return target_; }

 private:
  static void Fill(const CastEstimate& e, float scale, TensorRecord* r, FormatRecord* fr);

  Target target_;
  std::map<std::string, DelayedScaler> delayed_;
};

}  // namespace lpsim

#endif  // LPSIM_REPORT_TARGET_REWRITE_H_
