#include "mmu/gemm.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "mmu/internal/kernel.h"
#include "simd/internal/parallel.h"
#include "simd/quantize.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "mmu/gemm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "mmu/gemm-inl.h"

#if HWY_ONCE
namespace lpsim {
namespace mmu {

HWY_EXPORT(RunPanel);
HWY_EXPORT(PanelLanes);

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::string BaseName(const std::string& name) { return name.substr(0, name.find(':')); }

// ceil(log2(x)) for x >= 1.
int CeilLog2(int x) {
  int bits = 0;
  while ((1 << bits) < x) ++bits;
  return bits;
}

internal::KernelParams MakeKernelParams(const GemmConfig& cfg) {
  internal::KernelParams kp;
  const BlockFmaParams& p = cfg.mode->params;
  kp.fp32_fma = cfg.unit->kind == UnitKind::kFp32Fma;
  kp.group = p.group;
  kp.subgroups = p.subgroups;
  kp.bits = p.alignment_bits;
  kp.align_rounding = static_cast<int>(p.align_rounding);
  kp.toward_zero = cfg.formats.rounding == Rounding::kTowardZero;
  kp.flush_output = !p.subnormal_output;
  kp.promote_every = p.promote_every;
  return kp;
}

// Rounds n values into f (to nearest even) into `out`; returns how many
// changed. With flush, subnormals of f become zero (counted in *flushed).
size_t RoundInto(const Format& f, const float* in, size_t n, bool flush, std::vector<float>* out,
                 size_t* flushed, int threads) {
  out->resize(n);
  if (n == 0) return 0;
  simd::Quantize(f, in, n, QuantizeOptions{}, out->data(), nullptr, threads);
  size_t changed = 0;
  const float min_normal = f.MinNormal();
  for (size_t i = 0; i < n; ++i) {
    float& y = (*out)[i];
    changed += std::memcmp(&y, &in[i], sizeof(float)) != 0 && !(std::isnan(y) && std::isnan(in[i]));
    if (flush && y != 0 && std::fabs(y) < min_normal) {
      y = std::copysign(0.0f, y);
      ++*flushed;
    }
  }
  return changed;
}

struct Prepared {
  std::vector<float> a, b, c;
};

Prepared Prepare(const GemmConfig& cfg, size_t na, size_t nb, size_t nc, const float* a,
                 const float* b, const float* c, GemmNotes* notes, int threads) {
  Prepared p;
  GemmNotes local;
  const bool flush = cfg.unit->kind == UnitKind::kBlockFma && !cfg.mode->params.subnormal_inputs;
  local.a_rounded = RoundInto(cfg.formats.a, a, na, flush, &p.a, &local.flushed, threads);
  local.b_rounded = RoundInto(cfg.formats.b, b, nb, flush, &p.b, &local.flushed, threads);
  if (c) local.c_rounded = RoundInto(cfg.formats.out, c, nc, false, &p.c, &local.flushed, threads);
  if (notes) *notes = local;
  return p;
}

float RefAt(const GemmConfig& cfg, const float* a, size_t sa, const float* b, size_t sb, size_t k,
            float c) {
  return DotRef(cfg.unit->kind, cfg.mode->params, cfg.formats, a, sa, b, sb, k, c);
}

}  // namespace

StatusOr<GemmConfig> MakeGemmConfig(const std::string& unit, const std::string& in_a,
                                    const std::string& in_b, const std::string& out) {
  StatusOr<const Unit*> u = FindUnit(unit);
  if (!u.ok()) return u.status();
  StatusOr<Format> fa = ParseFormat(in_a);
  if (!fa.ok()) return fa.status();
  StatusOr<Format> fb = ParseFormat(in_b);
  if (!fb.ok()) return fb.status();
  StatusOr<const UnitMode*> mode = (*u)->ModeFor(*fa, *fb);
  if (!mode.ok()) return mode.status();
  const std::string out_name = out.empty() ? (*mode)->outputs.front().format : out;
  StatusOr<Format> fo = ParseFormat(out_name);
  if (!fo.ok()) return fo.status();
  StatusOr<Rounding> r = (*mode)->RoundingFor(*fo);
  if (!r.ok()) return Status::Error("unit '" + (*u)->name + "': " + r.status().message());
  GemmConfig cfg{*u, *mode, DotFormats{*fa, *fb, *fo, *r}};
  return cfg;
}

bool UsesKernel(const GemmConfig& cfg) {
  if (BaseName(cfg.formats.out.name()) != "fp32") return false;
  if (cfg.unit->kind == UnitKind::kFp32Fma) return true;
  if (cfg.unit->kind != UnitKind::kBlockFma) return false;
  const BlockFmaParams& p = cfg.mode->params;
  const int terms = p.group + 1;
  return p.alignment_bits != kUnlimitedAlignment && p.alignment_bits >= 0 && p.group >= 1 &&
         p.group <= internal::kMaxKernelGroup && p.subgroups >= 1 && p.subgroups <= p.group &&
         p.alignment_bits + 1 + CeilLog2(terms + 1) <= 53 &&
         (p.carry_bits >= 31 || (int64_t{1} << p.carry_bits) > terms) &&
         (p.promote_every == 0 || p.promote_every % p.group == 0);
}

void Gemm(const GemmConfig& cfg, size_t m, size_t n, size_t k, const float* a, const float* b,
          const float* c, float* d, GemmNotes* notes, int threads) {
  const Prepared in = Prepare(cfg, m * k, k * n, c ? m * n : 0, a, b, c, notes, threads);
  const bool kernel = UsesKernel(cfg);
  const internal::KernelParams kp = MakeKernelParams(cfg);
  const size_t lanes = HWY_DYNAMIC_DISPATCH(PanelLanes)();
  // Block-FMA kernels read B in column panels of `lanes` columns, k rows
  // each, packed contiguously (Eigen's block copy); fp32-fma reads B as is.
  const bool pack = kernel && !kp.fp32_fma;
  const size_t panels = pack ? n / lanes : 0;
  std::vector<float> packed(panels * lanes * k);
  if (pack) {
    Eigen::Map<const RowMajor> bm(in.b.data(), static_cast<Eigen::Index>(k),
                                  static_cast<Eigen::Index>(n));
    for (size_t p = 0; p < panels; ++p) {
      Eigen::Map<RowMajor>(packed.data() + p * lanes * k, static_cast<Eigen::Index>(k),
                           static_cast<Eigen::Index>(lanes)) =
          bm.middleCols(static_cast<Eigen::Index>(p * lanes), static_cast<Eigen::Index>(lanes));
    }
  }
  const float* qc = c ? in.c.data() : nullptr;
  const size_t workers =
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), m));
  simd::internal::ForEachRange(m, workers, [&](size_t, size_t r0, size_t r1) {
    std::vector<uint8_t> special(n, 0);
    for (size_t i = r0; i < r1; ++i) {
      const float* ai = in.a.data() + i * k;
      const float* ci = qc ? qc + i * n : nullptr;
      float* di = d + i * n;
      size_t done = 0;
      if (kernel && pack) {
        for (size_t p = 0; p < panels; ++p) {
          internal::Panel panel{ai, 1, 0, packed.data() + p * lanes * k, lanes, k,
                                ci ? ci + p * lanes : nullptr, di + p * lanes, lanes};
          HWY_DYNAMIC_DISPATCH(RunPanel)(kp, panel, special.data() + p * lanes);
        }
        done = panels * lanes;
      } else if (kernel) {
        internal::Panel panel{ai, 1, 0, in.b.data(), n, k, ci, di, n};
        done = HWY_DYNAMIC_DISPATCH(RunPanel)(kp, panel, special.data());
      }
      for (size_t j = 0; j < n; ++j) {
        if (j < done && !special[j]) continue;
        di[j] = RefAt(cfg, ai, 1, in.b.data() + j, n, k, ci ? ci[j] : 0.0f);
      }
    }
  });
}

void RowwiseDot(const GemmConfig& cfg, size_t m, size_t k, const float* a, const float* b,
                const float* c, float* d, GemmNotes* notes, int threads) {
  const Prepared in = Prepare(cfg, m * k, m * k, c ? m : 0, a, b, c, notes, threads);
  const float* qc = c ? in.c.data() : nullptr;
  // Lanes run across rows: the kernel reads A and B transposed (k x m).
  const RowMajor at = Eigen::Map<const RowMajor>(in.a.data(), static_cast<Eigen::Index>(m),
                                                 static_cast<Eigen::Index>(k)).transpose();
  const RowMajor bt = Eigen::Map<const RowMajor>(in.b.data(), static_cast<Eigen::Index>(m),
                                                 static_cast<Eigen::Index>(k)).transpose();
  const bool kernel = UsesKernel(cfg);
  const internal::KernelParams kp = MakeKernelParams(cfg);
  const size_t lanes = HWY_DYNAMIC_DISPATCH(PanelLanes)();
  const size_t block = 64 * lanes;  // rows per work item
  const size_t blocks = (m + block - 1) / block;
  const size_t workers =
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), blocks));
  simd::internal::ForEachRange(blocks, workers, [&](size_t, size_t b0, size_t b1) {
    std::vector<uint8_t> special(block, 0);
    for (size_t blk = b0; blk < b1; ++blk) {
      const size_t i0 = blk * block;
      const size_t rows = std::min(block, m - i0);
      size_t done = 0;
      if (kernel) {
        internal::Panel panel{at.data() + i0, m, 1, bt.data() + i0, m, k,
                              qc ? qc + i0 : nullptr, d + i0, rows};
        done = HWY_DYNAMIC_DISPATCH(RunPanel)(kp, panel, special.data());
      }
      for (size_t r = 0; r < rows; ++r) {
        if (r < done && !special[r]) continue;
        const size_t i = i0 + r;
        d[i] = RefAt(cfg, in.a.data() + i * k, 1, in.b.data() + i * k, 1, k, qc ? qc[i] : 0.0f);
      }
    }
  });
}

void GemmRef(const GemmConfig& cfg, size_t m, size_t n, size_t k, const float* a, const float* b,
             const float* c, float* d) {
  const Prepared in = Prepare(cfg, m * k, k * n, c ? m * n : 0, a, b, c, nullptr, 1);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      d[i * n + j] = RefAt(cfg, in.a.data() + i * k, 1, in.b.data() + j, n, k,
                           c ? in.c[i * n + j] : 0.0f);
    }
  }
}

void RowwiseDotRef(const GemmConfig& cfg, size_t m, size_t k, const float* a, const float* b,
                   const float* c, float* d) {
  const Prepared in = Prepare(cfg, m * k, m * k, c ? m : 0, a, b, c, nullptr, 1);
  for (size_t i = 0; i < m; ++i) {
    d[i] = RefAt(cfg, in.a.data() + i * k, 1, in.b.data() + i * k, 1, k, c ? in.c[i] : 0.0f);
  }
}

}  // namespace mmu
}  // namespace lpsim
#endif  // HWY_ONCE
