// simd::Quantize / Encode / Decode against the scalar reference, bit for bit,
// on every compiled SIMD target.
#include "simd/quantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "formats/fixed_sum.h"
#include "formats/stochastic.h"
#include "formats/reference.h"
#include "tests/simd/test_util.h"

namespace lpsim {
namespace {

using testing_simd::AdversarialData;
using testing_simd::Bits;
using testing_simd::SameBits;
using testing_simd::SameCounts;
using testing_simd::TestFormats;

// Sizes around every vector width in use (1, 4, 8, 16 lanes; steps of 8/16).
const size_t kSizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 100, 1001};
const float kScales[] = {1.0f, 0.75f, 3.0517578e-05f /* 2^-15 */, 1048576.0f, 1e-30f, 1e30f,
                         1e-39f /* subnormal: 1/scale is Inf */, 3e38f};

// Runs QuantizeRef and simd::Quantize on the same data and compares outputs
// and counts.
void ExpectQuantizeMatches(const Format& f, const std::vector<float>& data, size_t offset,
                           size_t n, const QuantizeOptions& opt, int threads) {
  const float* in = data.data() + offset;
  std::vector<float> want(n), got(n + 1, 12345.0f);
  CastCounts want_c, got_c;
  QuantizeRef(f, in, n, opt, want.data(), &want_c);
  simd::Quantize(f, in, n, opt, got.data(), &got_c, threads);
  ASSERT_TRUE(SameBits(got.data(), want.data(), n))
      << f.name() << " n=" << n << " offset=" << offset << " scale=" << opt.scale
      << " rounding=" << ToString(opt.rounding) << " target=" << simd::CurrentTargetName();
  ASSERT_EQ(Bits(got[n]), Bits(12345.0f)) << "wrote past the end";
  ASSERT_TRUE(SameCounts(got_c, want_c))
      << f.name() << " n=" << n << " offset=" << offset << " scale=" << opt.scale
      << " rounding=" << ToString(opt.rounding);
  // Without counts the outputs are the same.
  std::vector<float> got2(n);
  simd::Quantize(f, in, n, opt, got2.data(), nullptr, threads);
  ASSERT_TRUE(SameBits(got2.data(), want.data(), n)) << f.name() << " (no counts)";
}

class SimdQuantize : public testing_simd::PerTarget {};

TEST_P(SimdQuantize, AllFormatsSizesOffsetsRoundings) {
  for (const Format& f : TestFormats()) {
    for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
      const std::vector<float> data = AdversarialData(f, 1.0f, 1100, 7);
      for (size_t n : kSizes) {
        for (size_t offset = 0; offset < 4; ++offset) {
          QuantizeOptions opt;
          opt.rounding = r;
          opt.seed = 0x1234 + n;
          ExpectQuantizeMatches(f, data, offset, n, opt, 1);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST_P(SimdQuantize, Scales) {
  for (const Format& f : TestFormats()) {
    for (float scale : kScales) {
      for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
        const std::vector<float> data = AdversarialData(f, scale, 700, 11);
        QuantizeOptions opt;
        opt.rounding = r;
        opt.scale = scale;
        opt.seed = 99;
        ExpectQuantizeMatches(f, data, 1, 699, opt, 1);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_P(SimdQuantize, SeveralChunksAndIndexOffset) {
  const size_t n = 3 * kSumChunk + 17;
  for (const char* name : {"e4m3fn", "e5m2", "e2m1fn", "bf16", "e8m0fnu"}) {
    const Format f = *ParseFormat(name);
    const std::vector<float> data = AdversarialData(f, 0.5f, n + 3, 5);
    for (Rounding r : {Rounding::kNearestEven, Rounding::kStochastic}) {
      QuantizeOptions opt;
      opt.rounding = r;
      opt.scale = 0.5f;
      opt.seed = 0xfeedfacecafebeefull;
      opt.index_offset = 0xfffffff0ull;  // stochastic indices cross 2^32
      ExpectQuantizeMatches(f, data, 3, n, opt, 1);
      if (HasFatalFailure()) return;
    }
  }
}

TEST_P(SimdQuantize, ThreadCountDoesNotChangeResults) {
  const size_t n = 3 * (size_t{1} << 18) + 1001;  // enough for 3 workers
  const Format f = *ParseFormat("e4m3fn");
  const std::vector<float> data = AdversarialData(f, 1.0f, n, 3);
  QuantizeOptions opt;
  opt.rounding = Rounding::kStochastic;
  opt.seed = 42;
  std::vector<float> want(n);
  CastCounts want_c;
  QuantizeRef(f, data.data(), n, opt, want.data(), &want_c);
  for (int threads : {1, 2, 3}) {
    std::vector<float> got(n);
    CastCounts got_c;
    simd::Quantize(f, data.data(), n, opt, got.data(), &got_c, threads);
    ASSERT_TRUE(SameBits(got.data(), want.data(), n)) << threads << " threads";
    ASSERT_TRUE(SameCounts(got_c, want_c)) << threads << " threads";
  }
}

// Path A forms x - q in fp32, exact by Sterbenz when m >= 1; the worst
// ratios q / x come from values just below a binade boundary (truncation,
// stochastic rounding) seen through scales that are not powers of two.
TEST_P(SimdQuantize, FastPathDifferenceEdges) {
  for (const char* name : {"e2m1fn", "e3m2fn", "e2m3fn", "e4m3fn", "e5m2", "e3m1"}) {
    const Format f = *ParseFormat(name);
    for (float scale : {1.0f / 3, 0.7f, 1.1f, 3.3f, 1e-20f, 7e19f}) {
      std::vector<float> x;
      for (int e = f.min_normal_exponent(); e <= f.max_exponent() + 1; ++e) {
        for (int k = 0; k <= (1 << f.mantissa_bits()); ++k) {
          const float v = std::ldexp(1.0f + std::ldexp(static_cast<float>(k), -f.mantissa_bits()), e);
          for (float w : {v, std::nextafter(v, 0.0f), std::nextafter(v, 1e38f)}) {
            x.push_back(w / scale);
            x.push_back(-std::nextafter(w / scale, 0.0f));
          }
        }
      }
      for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
        QuantizeOptions opt;
        opt.rounding = r;
        opt.scale = scale;
        ExpectQuantizeMatches(f, x, 0, x.size(), opt, 1);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_P(SimdQuantize, InPlace) {
  const Format f = *ParseFormat("e5m2");
  std::vector<float> data = AdversarialData(f, 1.0f, 999, 8);
  std::vector<float> want(data.size());
  CastCounts want_c, got_c;
  QuantizeRef(f, data.data(), data.size(), {}, want.data(), &want_c);
  simd::Quantize(f, data.data(), data.size(), {}, data.data(), &got_c);
  EXPECT_TRUE(SameBits(data.data(), want.data(), data.size()));
  EXPECT_TRUE(SameCounts(got_c, want_c));
}

TEST_P(SimdQuantize, PiecesGiveTheWholeTensorsResult) {
  // PieceQuantizer over uneven pieces (multiples of kSumChunk, the last
  // not) equals the reference over the whole: outputs, counts and the sums'
  // fixed order, with stochastic indices continuing from opt.index_offset.
  const Format f = *ParseFormat("e4m3fn");
  std::vector<float> x = AdversarialData(f, 1.0f, 7 * kSumChunk + 333, 5);
  const size_t n = x.size();
  const size_t pieces[] = {kSumChunk, 3 * kSumChunk, 2 * kSumChunk};
  for (Rounding r : {Rounding::kNearestEven, Rounding::kStochastic}) {
    QuantizeOptions opt;
    opt.rounding = r;
    opt.seed = 9;
    opt.index_offset = 12345;
    opt.scale = 4.0f;
    std::vector<float> want(n);
    CastCounts want_c;
    QuantizeRef(f, x.data(), n, opt, want.data(), &want_c);
    for (int threads : {1, 2}) {
      std::vector<float> got = x;
      simd::PieceQuantizer q(f, opt, threads);
      size_t at = 0;
      for (size_t len : pieces) {
        q.Next(got.data() + at, len, got.data() + at);
        at += len;
      }
      q.Next(got.data() + at, n - at, got.data() + at);
      EXPECT_TRUE(SameBits(got.data(), want.data(), n)) << ToString(r);
      EXPECT_TRUE(SameCounts(q.Finish(), want_c)) << ToString(r) << " threads " << threads;
    }
  }
}

TEST_P(SimdQuantize, LargeOutputsAreStreamedExactly) {
  // Float outputs of 32 MiB and more take the non-temporal store path (on a
  // 16-byte-aligned output; one float off, the plain one): same bits.
  const size_t n = (size_t{32} << 20) / sizeof(float) + 1001;
  std::mt19937 rng(12);
  std::normal_distribution<float> nd;
  std::vector<float> x(n);
  for (float& v : x) v = nd(rng);
  x[n / 3] = std::numeric_limits<float>::quiet_NaN();
  x[n / 2] = 1e30f;
  const Format f = *ParseFormat("e4m3fn");
  QuantizeOptions opt;
  opt.scale = 64.0f;
  std::vector<float> want(n), got(n + 1);
  CastCounts want_c, got_c;
  QuantizeRef(f, x.data(), n, opt, want.data(), &want_c);
  for (size_t offset : {size_t{0}, size_t{1}}) {
    for (int threads : {1, 2}) {
      simd::Quantize(f, x.data(), n, opt, got.data() + offset, &got_c, threads);
      EXPECT_TRUE(SameBits(got.data() + offset, want.data(), n)) << "offset " << offset;
      EXPECT_TRUE(SameCounts(got_c, want_c)) << "offset " << offset;
    }
  }
}

template <typename T>
std::vector<uint32_t> Widen(const std::vector<uint8_t>& bytes, size_t n) {
  std::vector<uint32_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    out[i] = v;
  }
  return out;
}

std::vector<uint32_t> CodesOf(const Format& f, const std::vector<uint8_t>& bytes, size_t n) {
  switch (simd::CodeBytes(f)) {
    case 1: return Widen<uint8_t>(bytes, n);
    case 2: return Widen<uint16_t>(bytes, n);
    default: return Widen<uint32_t>(bytes, n);
  }
}

TEST_P(SimdQuantize, EncodeMatchesReferenceAndDecodeRoundTrips) {
  for (const Format& f : TestFormats()) {
    for (float scale : {1.0f, 0.125f, 1e30f}) {
      for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
        const size_t n = 1003;
        const std::vector<float> data = AdversarialData(f, scale, n + 2, 21);
        const float* in = data.data() + 2;
        QuantizeOptions opt;
        opt.rounding = r;
        opt.scale = scale;
        opt.seed = 7;
        opt.index_offset = 1000;
        const size_t bytes = simd::CodeBytes(f);
        std::vector<uint8_t> codes(n * bytes + 1, 0xAB);
        CastCounts got_c, want_c;
        simd::Encode(f, in, n, opt, codes.data(), &got_c);
        ASSERT_EQ(codes[n * bytes], 0xAB) << "wrote past the end";
        const std::vector<uint32_t> got = CodesOf(f, codes, n);
        const uint32_t key = StochasticKey(opt.seed);
        for (size_t i = 0; i < n; ++i) {
          const uint32_t rb = r == Rounding::kStochastic ? StochasticBits(key, 1000 + i) : 0;
          const Encoded e = EncodeScaledRef(f, in[i], scale, r, rb);
          ASSERT_EQ(got[i], e.code) << f.name() << " x=" << in[i] << " (0x" << std::hex
                                    << Bits(in[i]) << std::dec << ") i=" << i
                                    << " scale=" << scale << " " << ToString(r);
        }
        std::vector<float> qref(n);
        QuantizeRef(f, in, n, opt, qref.data(), &want_c);
        ASSERT_TRUE(SameCounts(got_c, want_c)) << f.name();
        // Encode -> Decode -> * (1 / scale) equals Quantize.
        std::vector<float> decoded(n);
        simd::Decode(f, codes.data(), n, decoded.data());
        const float inv = 1.0f / scale;
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(Bits(decoded[i]), Bits(DecodeRef(f, got[i]))) << f.name() << " code " << got[i];
          ASSERT_EQ(Bits(decoded[i] * inv), Bits(qref[i])) << f.name() << " i=" << i;
        }
      }
    }
  }
}

TEST_P(SimdQuantize, DecodeEveryCode) {
  for (const Format& f : TestFormats()) {
    if (f.total_bits() > 16) continue;
    const size_t n = size_t{1} << f.total_bits();
    const size_t bytes = simd::CodeBytes(f);
    std::vector<uint8_t> codes(n * bytes);
    for (size_t c = 0; c < n; ++c) {
      if (bytes == 1) codes[c] = static_cast<uint8_t>(c);
      else { const uint16_t v = static_cast<uint16_t>(c); std::memcpy(&codes[2 * c], &v, 2); }
    }
    for (size_t offset : {size_t{0}, size_t{1}}) {
      std::vector<float> out(n);
      simd::Decode(f, codes.data() + offset * bytes, n - offset, out.data());
      for (size_t c = offset; c < n; ++c) {
        ASSERT_EQ(Bits(out[c - offset]), Bits(DecodeRef(f, static_cast<uint32_t>(c))))
            << f.name() << " code 0x" << std::hex << c;
      }
    }
  }
}

TEST_P(SimdQuantize, TargetNameIsTheForcedOne) {
  EXPECT_STREQ(simd::CurrentTargetName(), simd::TargetName(GetParam()));
}

LPSIM_INSTANTIATE_PER_TARGET(SimdQuantize);

TEST(SimdQuantizeApi, CodeBytes) {
  EXPECT_EQ(simd::CodeBytes(*ParseFormat("e4m3fn")), 1u);
  EXPECT_EQ(simd::CodeBytes(*ParseFormat("e2m1fn")), 1u);
  EXPECT_EQ(simd::CodeBytes(*ParseFormat("bf16")), 2u);
  EXPECT_EQ(simd::CodeBytes(*ParseFormat("tf32")), 4u);
  EXPECT_EQ(simd::CodeBytes(*ParseFormat("fp32")), 4u);
}

}  // namespace
}  // namespace lpsim
