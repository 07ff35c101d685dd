#include "mmu/gemm.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "mmu/internal/kernel.h"
#include "simd/parallel.h"
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

namespace {

// Float lanes: products exact in float (fp8 and fp16 inputs: at most 22
// significand bits, magnitudes in [2^-48, 2^32]) and aligned sums of at most
// 24 bits; not floor, whose -0 from an underflowed tiny term would be wrong.
bool FloatLanes(const GemmConfig& cfg) {
  if (cfg.unit->kind != UnitKind::kBlockFma) return false;
  auto narrow = [](const Format& f) {
    const std::string n = BaseName(f.name());
    return n == "e4m3fn" || n == "e5m2" || n == "fp16";
  };
  const BlockFmaParams& p = cfg.mode->params;
  return narrow(cfg.formats.a) && narrow(cfg.formats.b) &&
         p.align_rounding != AlignRounding::kFloor &&
         p.alignment_bits + 1 + CeilLog2(p.group + 2) <= 24;
}

template <typename T>
std::vector<T> Widen(const float* x, size_t n) {
  return std::vector<T>(x, x + n);
}

// The kernel columns of D = A B + C in lane type T; the rest (tails, special
// lanes) from the reference.
template <typename T>
void GemmKernel(const GemmConfig& cfg, const internal::KernelParams& kp, const Prepared& in,
                size_t m, size_t n, size_t k, bool has_c, float* d, int threads) {
  const size_t lanes = HWY_DYNAMIC_DISPATCH(PanelLanes)(sizeof(T) == 4);
  const bool pack = !kp.fp32_fma;
  const std::vector<T> a = Widen<T>(in.a.data(), in.a.size());
  const std::vector<T> c = Widen<T>(in.c.data(), in.c.size());
  // Block-FMA kernels read B in column panels of `lanes` columns, k rows
  // each, contiguous (Eigen's block copy); fp32-fma reads B as it is.
  const size_t panels = pack ? n / lanes : 0;
  std::vector<T> packed(panels * lanes * k);
  if (pack) {
    using TMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<const RowMajor> bm(in.b.data(), static_cast<Eigen::Index>(k),
                                  static_cast<Eigen::Index>(n));
    for (size_t p = 0; p < panels; ++p) {
      Eigen::Map<TMat>(packed.data() + p * lanes * k, static_cast<Eigen::Index>(k),
                       static_cast<Eigen::Index>(lanes)) =
          bm.middleCols(static_cast<Eigen::Index>(p * lanes), static_cast<Eigen::Index>(lanes))
              .template cast<T>();
    }
  }
  const size_t workers =
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), m));
  simd::ForEachRange(m, workers, [&](size_t, size_t r0, size_t r1) {
    std::vector<uint8_t> special(n, 0);
    std::vector<T> row(n);
    for (size_t i = r0; i < r1; ++i) {
      const T* ai = a.data() + i * k;
      const T* ci = has_c ? c.data() + i * n : nullptr;
      size_t done = 0;
      if (pack) {
        for (size_t p = 0; p < panels; ++p) {
          internal::Panel panel{ai, 1, 0, packed.data() + p * lanes * k, lanes, k,
                                ci ? ci + p * lanes : nullptr, row.data() + p * lanes, lanes};
          HWY_DYNAMIC_DISPATCH(RunPanel)(kp, panel, special.data() + p * lanes);
        }
        done = panels * lanes;
      } else {
        internal::Panel panel{ai, 1, 0, in.b.data(), n, k, ci, row.data(), n};
        done = HWY_DYNAMIC_DISPATCH(RunPanel)(kp, panel, special.data());
      }
      float* di = d + i * n;
      const float* qci = has_c ? in.c.data() + i * n : nullptr;
      for (size_t j = 0; j < n; ++j) {
        if (j < done && !special[j]) {
          di[j] = static_cast<float>(row[j]);  // an fp32 value already
        } else {
          di[j] = RefAt(cfg, in.a.data() + i * k, 1, in.b.data() + j, n, k, qci ? qci[j] : 0.0f);
        }
      }
    }
  });
}

// Batched dot products: lanes run across rows, over A and B transposed.
template <typename T>
void RowwiseKernel(const GemmConfig& cfg, const internal::KernelParams& kp, const Prepared& in,
                   size_t m, size_t k, bool has_c, float* d, int threads) {
  using TMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const TMat at = Eigen::Map<const RowMajor>(in.a.data(), static_cast<Eigen::Index>(m),
                                             static_cast<Eigen::Index>(k)).transpose().template cast<T>();
  const TMat bt = Eigen::Map<const RowMajor>(in.b.data(), static_cast<Eigen::Index>(m),
                                             static_cast<Eigen::Index>(k)).transpose().template cast<T>();
  const std::vector<T> c = Widen<T>(in.c.data(), in.c.size());
  const size_t lanes = HWY_DYNAMIC_DISPATCH(PanelLanes)(sizeof(T) == 4);
  const size_t block = 64 * lanes;  // rows per work item
  const size_t blocks = (m + block - 1) / block;
  const size_t workers =
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), blocks));
  simd::ForEachRange(blocks, workers, [&](size_t, size_t b0, size_t b1) {
    std::vector<uint8_t> special(block, 0);
    std::vector<T> out(block);
    for (size_t blk = b0; blk < b1; ++blk) {
      const size_t i0 = blk * block;
      const size_t rows = std::min(block, m - i0);
      internal::Panel panel{at.data() + i0, m, 1, bt.data() + i0, m, k,
                            has_c ? c.data() + i0 : nullptr, out.data(), rows};
      const size_t done = HWY_DYNAMIC_DISPATCH(RunPanel)(kp, panel, special.data());
      for (size_t r = 0; r < rows; ++r) {
        const size_t i = i0 + r;
        if (r < done && !special[r]) {
          d[i] = static_cast<float>(out[r]);
        } else {
          d[i] = RefAt(cfg, in.a.data() + i * k, 1, in.b.data() + i * k, 1, k,
                       has_c ? in.c[i] : 0.0f);
        }
      }
    }
  });
}

internal::KernelParams KernelFor(const GemmConfig& cfg) {
  internal::KernelParams kp = MakeKernelParams(cfg);
  kp.f32 = kp.fp32_fma || FloatLanes(cfg);
  return kp;
}

}  // namespace

void Gemm(const GemmConfig& cfg, size_t m, size_t n, size_t k, const float* a, const float* b,
          const float* c, float* d, GemmNotes* notes, int threads) {
  const Prepared in = Prepare(cfg, m * k, k * n, c ? m * n : 0, a, b, c, notes, threads);
  if (!UsesKernel(cfg)) {
    const size_t workers =
        std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), m));
    simd::ForEachRange(m, workers, [&](size_t, size_t r0, size_t r1) {
      for (size_t i = r0; i < r1; ++i) {
        for (size_t j = 0; j < n; ++j) {
          d[i * n + j] = RefAt(cfg, in.a.data() + i * k, 1, in.b.data() + j, n, k,
                               c ? in.c[i * n + j] : 0.0f);
        }
      }
    });
    return;
  }
  const internal::KernelParams kp = KernelFor(cfg);
  if (kp.f32) {
    GemmKernel<float>(cfg, kp, in, m, n, k, c != nullptr, d, threads);
  } else {
    GemmKernel<double>(cfg, kp, in, m, n, k, c != nullptr, d, threads);
  }
}

void RowwiseDot(const GemmConfig& cfg, size_t m, size_t k, const float* a, const float* b,
                const float* c, float* d, GemmNotes* notes, int threads) {
  const Prepared in = Prepare(cfg, m * k, m * k, c ? m : 0, a, b, c, notes, threads);
  if (!UsesKernel(cfg)) {
    const size_t workers =
        std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), m));
    simd::ForEachRange(m, workers, [&](size_t, size_t r0, size_t r1) {
      for (size_t i = r0; i < r1; ++i) {
        d[i] = RefAt(cfg, in.a.data() + i * k, 1, in.b.data() + i * k, 1, k, c ? in.c[i] : 0.0f);
      }
    });
    return;
  }
  const internal::KernelParams kp = KernelFor(cfg);
  if (kp.f32) {
    RowwiseKernel<float>(cfg, kp, in, m, k, c != nullptr, d, threads);
  } else {
    RowwiseKernel<double>(cfg, kp, in, m, k, c != nullptr, d, threads);
  }
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
