#include "report/target_rewrite.h"

#include <string>

#include "report/recommend.h"

namespace lpsim {

void TargetRewrite::operator()(TensorRecord* r) {
  r->formats.clear();
  const RoleSpec& spec = target_.role(ToTargetRole(r->role));
  if (spec.storage != RoleSpec::Storage::kFloat) return;
  const Format& f = spec.format;
  const Scaling& s = spec.scaling;
  float scale = 1.0f;
  CastEstimate e;
  if (s.kind == Scaling::Kind::kBlock) {
    e = EstimateBlockCast(r->stats, f, s.block, r->shape);
  } else {
    if (s.kind == Scaling::Kind::kCurrent) {
      scale = CurrentScale(f, r->stats.max_abs, s.scale);
    } else if (s.kind == Scaling::Kind::kDelayed) {
      auto [it, fresh] = delayed_.try_emplace(std::string(ToString(r->role)) + "|" + r->name,
                                              f, s.delayed);
      scale = fresh ? CurrentScale(f, r->stats.max_abs, s.delayed.scale) : it->second.Scale();
      it->second.Update(r->stats.max_abs);
    }
    e = EstimateCast(r->stats, f, scale);
  }
  FormatRecord fr;
  fr.format = f.name();
  fr.recipe = s.kind == Scaling::Kind::kDelayed ? "delayed" + std::to_string(s.delayed.history)
                                                        : s.FullName();
  fr.scale = scale;
  fr.counts.numel = e.numel;
  fr.counts.underflow = e.underflow.upper;
  fr.counts.overflow = e.overflow.upper;
  fr.counts.zero_in = r->stats.zeros;
  fr.counts.nan_in = r->stats.nans;
  fr.counts.inf_in = r->stats.pos_infs + r->stats.neg_infs;
  fr.counts.sq_error = e.sq_error;
  fr.counts.sq_signal = e.sq_signal;
  r->formats.push_back(fr);
}

}  // namespace lpsim
