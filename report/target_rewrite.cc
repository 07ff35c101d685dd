#include "report/target_rewrite.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "report/recommend.h"

namespace lpsim {

void TargetRewrite::operator()(TensorRecord* r) {
  r->formats.clear();
  const RoleSpec& spec = target_.role(ToTargetRole(r->role));
  if (spec.storage == RoleSpec::Storage::kInteger) return;
  FormatRecord fr;
  float scale = 1.0f;
  CastEstimate e;
  if (spec.storage == RoleSpec::Storage::kBlockFp) {
    // A shared exponent per 1 x block values: a block recipe.
    e = EstimateBfpCast(r->stats, spec.bfp_format, r->shape);
    fr.format = spec.bfp_format.name;
    fr.recipe = "1x" + std::to_string(spec.bfp_format.block);
    Fill(e, scale, r, &fr);
    return;
  }
  const Format& f = spec.format;
  const Scaling& s = spec.scaling;
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
  fr.format = f.name();
  fr.recipe = s.kind == Scaling::Kind::kDelayed ? "delayed" + std::to_string(s.delayed.history)
                                                        : s.FullName();
  Fill(e, scale, r, &fr);
}

// The record's counts are the estimate's model (its expected counts), not
// its worst-case bounds: the rules judge the best guess of what the target
// does.
void TargetRewrite::Fill(const CastEstimate& e, float scale, TensorRecord* r, FormatRecord* fr) {
  auto count = [](double expected) { return static_cast<uint64_t>(std::llround(std::max(expected, 0.0))); };
  fr->scale = scale;
  fr->counts.numel = e.numel;
  fr->counts.underflow = count(e.underflow.expected);
  fr->counts.overflow = count(e.overflow.expected);
  fr->counts.flushed = count(e.flushed);
  fr->counts.zero_in = r->stats.zeros;
  fr->counts.nan_in = r->stats.nans;
  fr->counts.inf_in = r->stats.pos_infs + r->stats.neg_infs;
  fr->counts.sq_error = e.sq_error;
  fr->counts.sq_signal = e.sq_signal;
  r->formats.push_back(*fr);
}

}  // namespace lpsim
