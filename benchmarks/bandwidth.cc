#include "benchmarks/bandwidth.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "benchmarks/bandwidth.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float SumFloatsImpl(const float* HWY_RESTRICT x, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  // Four accumulators hide the add latency, so the loop is load-bound.
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    s0 = hn::Add(s0, hn::LoadU(d, x + i));
    s1 = hn::Add(s1, hn::LoadU(d, x + i + N));
    s2 = hn::Add(s2, hn::LoadU(d, x + i + 2 * N));
    s3 = hn::Add(s3, hn::LoadU(d, x + i + 3 * N));
  }
  float tail = 0;
  for (; i < n; ++i) tail += x[i];
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3)))) + tail;
}

void CopyFloatsImpl(const float* HWY_RESTRICT x, size_t n, float* HWY_RESTRICT y) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto a = hn::LoadU(d, x + i);
    const auto b = hn::LoadU(d, x + i + N);
    const auto c = hn::LoadU(d, x + i + 2 * N);
    const auto e = hn::LoadU(d, x + i + 3 * N);
    hn::StoreU(a, d, y + i);
    hn::StoreU(b, d, y + i + N);
    hn::StoreU(c, d, y + i + 2 * N);
    hn::StoreU(e, d, y + i + 3 * N);
  }
  for (; i < n; ++i) y[i] = x[i];
}

}  // namespace HWY_NAMESPACE
}  // namespace bench
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lpsim {
namespace bench {

HWY_EXPORT(SumFloatsImpl);
HWY_EXPORT(CopyFloatsImpl);

float SumFloats(const float* x, size_t n) { return HWY_DYNAMIC_DISPATCH(SumFloatsImpl)(x, n); }

void CopyFloats(const float* x, size_t n, float* y) {
  HWY_DYNAMIC_DISPATCH(CopyFloatsImpl)(x, n, y);
}

}  // namespace bench
}  // namespace lpsim
#endif
