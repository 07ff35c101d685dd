#include "tracker/distributed.h"

#include <cmath>
#include <limits>
#include <vector>

namespace lpsim {
namespace {

void Wait(const c10::intrusive_ptr<c10d::Work>& work) { work->wait(); }

void AllReduce(c10d::ProcessGroup& pg, torch::Tensor& t, c10d::ReduceOp op) {
  std::vector<torch::Tensor> v = {t};
  c10d::AllreduceOptions opts;
  opts.reduceOp = op;
  Wait(pg.allreduce(v, opts));
}

}  // namespace

float MaxAcrossRanks(c10d::ProcessGroup& pg, float value) {
  torch::Tensor t = torch::full({1}, value, torch::kFloat);
  AllReduce(pg, t, c10d::ReduceOp::MAX);
  return t.item<float>();
}

void ReduceAcrossRanks(c10d::ProcessGroup& pg, AnalyzeResult* r) {
  TensorStats& s = r->stats;
  const size_t nf = r->formats.size();

  // 1. Integer counts: one summed int64 vector.
  std::vector<int64_t> ints = {static_cast<int64_t>(s.count), static_cast<int64_t>(s.zeros),
                               static_cast<int64_t>(s.nans), static_cast<int64_t>(s.pos_infs),
                               static_cast<int64_t>(s.neg_infs)};
  for (uint64_t c : s.exponent_hist) ints.push_back(static_cast<int64_t>(c));
  for (uint64_t c : s.log_hist) ints.push_back(static_cast<int64_t>(c));
  for (const CastCounts& c : r->formats) {
    for (uint64_t v : {c.numel, c.underflow, c.flushed, c.subnormal, c.overflow, c.nan_in,
                       c.inf_in, c.zero_in}) {
      ints.push_back(static_cast<int64_t>(v));
    }
  }
  torch::Tensor ti = torch::from_blob(ints.data(), {static_cast<int64_t>(ints.size())},
                                      torch::kInt64).clone();
  AllReduce(pg, ti, c10d::ReduceOp::SUM);

  // 2. Per-rank moments, gathered so every rank combines them in rank order.
  const double n_local = static_cast<double>(s.finite());
  const double m2 = n_local > 0 ? s.std * s.std * n_local : 0.0;
  const double sumsq = n_local > 0 ? s.rms * s.rms * n_local : 0.0;
  const double inf = std::numeric_limits<double>::infinity();
  const bool any = n_local > 0;
  std::vector<double> mine = {n_local, any ? s.mean : 0.0, m2, sumsq,
                              any ? s.min : inf, any ? -s.max : inf,
                              s.min_abs > 0 ? s.min_abs : inf, any ? -s.max_abs : inf};
  for (const CastCounts& c : r->formats) {
    mine.push_back(c.sq_error);
    mine.push_back(c.sq_signal);
  }
  torch::Tensor tm = torch::from_blob(mine.data(), {static_cast<int64_t>(mine.size())},
                                      torch::kFloat64).clone();
  std::vector<std::vector<torch::Tensor>> gathered(1);
  for (int i = 0; i < pg.getSize(); ++i) gathered[0].push_back(torch::empty_like(tm));
  std::vector<torch::Tensor> input = {tm};
  Wait(pg.allgather(gathered, input));

  // 3. Unpack.
  // The counts travelled as int64 (torch has no uint64 sum); each is >= 0.
  const int64_t* pi = ti.data_ptr<int64_t>();
  size_t k = 0;
  auto next = [&] { return static_cast<uint64_t>(pi[k++]); };
  s.count = next();
  s.zeros = next();
  s.nans = next();
  s.pos_infs = next();
  s.neg_infs = next();
  for (uint64_t& c : s.exponent_hist) c = next();
  for (uint64_t& c : s.log_hist) c = next();
  for (CastCounts& c : r->formats) {
    for (uint64_t* v : {&c.numel, &c.underflow, &c.flushed, &c.subnormal, &c.overflow, &c.nan_in,
                        &c.inf_in, &c.zero_in}) {
      *v = next();
    }
    c.sq_error = 0;
    c.sq_signal = 0;
  }

  double n = 0, mean = 0, M2 = 0, total_sq = 0;
  double mn = inf, neg_mx = inf, mn_abs = inf, neg_mx_abs = inf;
  for (const torch::Tensor& g : gathered[0]) {
    const double* p = g.data_ptr<double>();
    const double nb = p[0];
    if (nb > 0) {
      // Chan et al.: exact pairwise combination of (n, mean, M2).
      const double delta = p[1] - mean;
      const double nn = n + nb;
      mean += delta * nb / nn;
      M2 += p[2] + delta * delta * n * nb / nn;
      n = nn;
      total_sq += p[3];
    }
    mn = std::min(mn, p[4]);
    neg_mx = std::min(neg_mx, p[5]);
    mn_abs = std::min(mn_abs, p[6]);
    neg_mx_abs = std::min(neg_mx_abs, p[7]);
    for (size_t f = 0; f < nf; ++f) {
      r->formats[f].sq_error += p[8 + 2 * f];
      r->formats[f].sq_signal += p[9 + 2 * f];
    }
  }
  if (n > 0) {
    s.mean = mean;
    s.std = std::sqrt(M2 / n);
    s.rms = std::sqrt(total_sq / n);
    s.min = static_cast<float>(mn);
    s.max = static_cast<float>(-neg_mx);
    s.max_abs = static_cast<float>(-neg_mx_abs);
  }
  s.min_abs = std::isinf(mn_abs) ? 0.0f : static_cast<float>(mn_abs);
}

}  // namespace lpsim
