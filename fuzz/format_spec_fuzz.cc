// Fuzzes format specs (formats/format.h, ParseFormat). Every spec is either
// refused with a message or gives a format whose name parses back to the
// same format; for an accepted format, every decoded code encodes back to
// itself (a representable value is exact), and the SIMD kernel
// (simd::Quantize) agrees bit for bit with the scalar reference on edge
// values of that format.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "formats/format.h"
#include "formats/reference.h"
#include "fuzz/fuzz_util.h"
#include "simd/quantize.h"

namespace {

using namespace lpsim;

// Longer specs only repeat options; they add time, not coverage.
constexpr size_t kMaxSpecBytes = 256;
// Codes decoded and re-encoded per format (all of them up to this many).
constexpr uint32_t kMaxCodesChecked = 1u << 12;

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

bool SameValue(float a, float b) { return (std::isnan(a) && std::isnan(b)) || Bits(a) == Bits(b); }

void CheckRoundTrip(const Format& f) {
  if (f.ftz()) return;  // a decoded subnormal flushes to zero when encoded again
  const uint64_t total = uint64_t{1} << f.total_bits();  // up to 2^32 (e8m23)
  const uint64_t step = total > kMaxCodesChecked ? total / kMaxCodesChecked : 1;
  for (uint64_t c = 0; c < total; c += step) {
    const float v = DecodeRef(f, static_cast<uint32_t>(c));
    const Encoded e = EncodeRef(f, v, Rounding::kNearestEven, 0);
    FUZZ_CHECK(SameValue(DecodeRef(f, e.code), v));
  }
}

void CheckKernelAgainstReference(const Format& f) {
  const float max = f.MaxValue(), mn = f.MinNormal(), sub = f.MinSubnormal();
  std::vector<float> x = {0.0f, -0.0f, 1.0f, -1.0f, NAN, -NAN, INFINITY, -INFINITY,
                          max, -max, std::nextafter(max, INFINITY), max * 1.5f, -max * 2.0f,
                          mn, -mn, sub, -sub, sub * 0.5f, sub * 0.75f, -sub * 0.25f,
                          std::nextafter(mn, 0.0f), 3.0e38f, 1.0e-45f, 0.1f, 1.0f / 3.0f};
  for (size_t i = 0, n = x.size(); i < n; ++i) x.push_back(x[i] * 1.0009765625f);  // off-grid
  for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
    QuantizeOptions opt;
    opt.rounding = r;
    opt.seed = 7;
    std::vector<float> ref(x.size()), simd(x.size());
    CastCounts ref_counts, simd_counts;
    QuantizeRef(f, x.data(), x.size(), opt, ref.data(), &ref_counts);
    simd::Quantize(f, x.data(), x.size(), opt, simd.data(), &simd_counts);
    for (size_t i = 0; i < x.size(); ++i) FUZZ_CHECK(SameValue(ref[i], simd[i]));
    FUZZ_CHECK(ref_counts == simd_counts);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxSpecBytes) return 0;
  const std::string spec(reinterpret_cast<const char*>(data), size);
  StatusOr<Format> f = ParseFormat(spec);
  if (!f.ok()) {
    FUZZ_CHECK(!f.status().message().empty());
    return 0;
  }
  StatusOr<Format> again = ParseFormat(f->name());
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *f);
  FUZZ_CHECK(f->MaxValue() > 0 && std::isfinite(f->MaxValue()));
  FUZZ_CHECK(f->MinSubnormal() > 0 && f->MinSubnormal() <= f->MinNormal());
  CheckRoundTrip(*f);
  CheckKernelAgainstReference(*f);
  return 0;
}
