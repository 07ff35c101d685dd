// fp32 bit-pattern sweeps: simd::Encode (every compiled target, every
// rounding) against EncodeRef for each format. Built with
// LPSIM_SWEEP_STRIDE = 4099 as a unit test (about 2^20 patterns per format),
// and with stride 1 -- all 2^32 patterns -- as the `exhaustive` label
// (run on demand: ctest -L exhaustive).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <vector>

#include "formats/reference.h"
#include "formats/stochastic.h"
#include "simd/quantize.h"
#include "simd/targets.h"
#include "tests/simd/test_util.h"

#ifndef LPSIM_SWEEP_STRIDE
#define LPSIM_SWEEP_STRIDE 4099
#endif

// The two builds need distinct suite names: ctest test properties (labels)
// are set by name.
#if LPSIM_SWEEP_STRIDE == 1
#define LPSIM_SWEEP_SUITE SimdExhaustive
#else
#define LPSIM_SWEEP_SUITE SimdSweep
#endif
#define LPSIM_TEST_P(suite, name) TEST_P(suite, name)
#define LPSIM_INSTANTIATE(prefix, suite, ...) INSTANTIATE_TEST_SUITE_P(prefix, suite, __VA_ARGS__)

namespace lpsim {
namespace {

using testing_simd::FromBits;

constexpr uint64_t kStride = LPSIM_SWEEP_STRIDE;
constexpr size_t kBlock = size_t{1} << 20;

struct Param {
  Format format;
  Rounding rounding;
};

// Readable and stable ctest names ("... # GetParam() = e4m3fn rne").
void PrintTo(const Param& p, std::ostream* os) {
  *os << p.format.name() << " " << ToString(p.rounding);
}

std::vector<Param> Params() {
  std::vector<Param> out;
  const std::vector<Format>& formats =
      kStride == 1 ? BuiltinFormats() : testing_simd::TestFormats();
  for (const Format& f : formats) {
    for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
      out.push_back({f, r});
    }
  }
  return out;
}

class LPSIM_SWEEP_SUITE : public ::testing::TestWithParam<Param> {};

uint32_t CodeAt(const std::vector<uint8_t>& codes, size_t bytes, size_t i) {
  uint32_t c = 0;
  std::memcpy(&c, codes.data() + i * bytes, bytes);
  return c;
}

LPSIM_TEST_P(LPSIM_SWEEP_SUITE, EncodeEqualsReference) {
  const Format& f = GetParam().format;
  const Rounding r = GetParam().rounding;
  const size_t bytes = simd::CodeBytes(f);
  const std::vector<int64_t> targets = simd::AvailableTargets();
  QuantizeOptions opt;
  opt.rounding = r;
  opt.seed = 0x5eed;
  const uint32_t key = StochasticKey(opt.seed);
  std::vector<float> x(kBlock);
  std::vector<uint32_t> want(kBlock);
  std::vector<uint8_t> got(kBlock * bytes);
  uint64_t pattern = 0;
  const uint64_t end = uint64_t{1} << 32;
  while (pattern < end) {
    size_t n = 0;
    CastCounts want_c;
    opt.index_offset = pattern;  // stochastic index of the block's first element
    for (; n < kBlock && pattern < end; ++n, pattern += kStride) {
      x[n] = FromBits(static_cast<uint32_t>(pattern));
    }
    for (size_t i = 0; i < n; ++i) {
      const uint32_t rb = r == Rounding::kStochastic ? StochasticBits(key, opt.index_offset + i) : 0;
      const Encoded e = EncodeRef(f, x[i], r, rb);
      want[i] = e.code;
      want_c.underflow += (e.flags & kCastUnderflow) != 0;
      want_c.flushed += (e.flags & kCastFlushed) != 0;
      want_c.subnormal += (e.flags & kCastSubnormal) != 0;
      want_c.overflow += (e.flags & kCastOverflow) != 0;
      want_c.nan_in += (e.flags & kCastNanIn) != 0;
      want_c.inf_in += (e.flags & kCastInfIn) != 0;
      want_c.zero_in += (e.flags & kCastZeroIn) != 0;
    }
    for (int64_t t : targets) {
      simd::ScopedTarget force(t);
      CastCounts c;
      simd::Encode(f, x.data(), n, opt, got.data(), &c);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(CodeAt(got, bytes, i), want[i])
            << f.name() << " " << ToString(r) << " " << simd::TargetName(t) << " x=0x" << std::hex
            << testing_simd::Bits(x[i]);
      }
      ASSERT_EQ(c.underflow, want_c.underflow) << simd::TargetName(t);
      ASSERT_EQ(c.flushed, want_c.flushed) << simd::TargetName(t);
      ASSERT_EQ(c.subnormal, want_c.subnormal) << simd::TargetName(t);
      ASSERT_EQ(c.overflow, want_c.overflow) << simd::TargetName(t);
      ASSERT_EQ(c.nan_in, want_c.nan_in) << simd::TargetName(t);
      ASSERT_EQ(c.inf_in, want_c.inf_in) << simd::TargetName(t);
      ASSERT_EQ(c.zero_in, want_c.zero_in) << simd::TargetName(t);
    }
  }
}

LPSIM_INSTANTIATE(Formats, LPSIM_SWEEP_SUITE, ::testing::ValuesIn(Params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return testing_simd::SafeName(info.param.format.name()) + "_" +
                                  ToString(info.param.rounding);
                         });

}  // namespace
}  // namespace lpsim
