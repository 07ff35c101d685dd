// What the SIMD GEMM kernel (mmu/gemm-inl.h) needs to know about a unit:
// plain values, no SIMD types, set up once per GEMM by mmu/gemm.cc.
#ifndef LPSIM_MMU_INTERNAL_KERNEL_H_
#define LPSIM_MMU_INTERNAL_KERNEL_H_

#include <cstddef>
#include <cstdint>

namespace lpsim {
namespace mmu {
namespace internal {

struct KernelParams {
  bool fp32_fma = false;  // sequential fmaf instead of block FMAs
  bool f32 = false;       // block FMAs on float lanes (else double lanes)
  int group = 1;
  int subgroups = 1;
  int bits = 23;          // alignment bits; the kernel needs bits + 1 + log2(group + 1) <= 53
  int align_rounding = 0;  // AlignRounding as int
  bool toward_zero = true;  // final rounding into fp32
  bool flush_output = false;
  int promote_every = 0;
};

// The columns of one panel: d[j] = c[j] + sum_kk a(kk, j) * b[kk * sb + j]
// for j < n, with a(kk, j) = a[kk * sa + j * saj] (saj = 0: one a per kk,
// broadcast; saj = 1: a row of lanes). c may be null (zeros). Every array
// holds the kernel's lane type: float for fp32_fma and f32, else double.
struct Panel {
  const void* a;
  size_t sa;
  size_t saj;
  const void* b;
  size_t sb;
  size_t k;
  const void* c;
  void* d;
  size_t n;
};

// Upper bound of `group` the kernel's stack buffers hold.
constexpr int kMaxKernelGroup = 64;

}  // namespace internal
}  // namespace mmu
}  // namespace lpsim

#endif  // LPSIM_MMU_INTERNAL_KERNEL_H_
