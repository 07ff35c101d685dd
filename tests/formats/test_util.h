// Helpers shared by the formats tests: bit casts, built-in lookup, and the
// parameter lists that split per-format sweeps into separate ctest entries.
//
//   const Format& f = Builtin("e4m3fn");
//   INSTANTIATE_TEST_SUITE_P(All, MyTest, testing::ValuesIn(SmallBuiltinNames()),
//                            NameParam);
#ifndef LPSIM_TESTS_FORMATS_TEST_UTIL_H_
#define LPSIM_TESTS_FORMATS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/bits.h"
#include "formats/format.h"

namespace lpsim {
namespace testing_util {

inline uint32_t FloatBits(float x) { return BitsOf(x); }
inline float BitsFloat(uint32_t b) { return FloatOf(b); }

// The built-in called `name`; aborts the test binary when it is missing, since
// every caller names a format of docs/formats.md "Built-in formats".
inline const Format& Builtin(const std::string& name) {
  for (const Format& f : BuiltinFormats()) {
    if (f.name() == name) return f;
  }
  ADD_FAILURE() << "no built-in format '" << name << "'";
  std::abort();
}

// Built-ins of at most 16 bits: small enough to enumerate every code.
inline std::vector<std::string> SmallBuiltinNames() {
  std::vector<std::string> names;
  for (const Format& f : BuiltinFormats()) {
    if (f.total_bits() <= 16) names.push_back(f.name());
  }
  return names;
}

// Every built-in except fp32, whose casts are the identity.
inline std::vector<std::string> RoundingBuiltinNames() {
  std::vector<std::string> names;
  for (const Format& f : BuiltinFormats()) {
    if (f.name() != "fp32") names.push_back(f.name());
  }
  return names;
}

// gtest parameter names allow only [A-Za-z0-9_].
inline std::string Sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

struct NameParam {
  std::string operator()(const ::testing::TestParamInfo<std::string>& info) const {
    return Sanitize(info.param);
  }
};

}  // namespace testing_util
}  // namespace lpsim

#endif  // LPSIM_TESTS_FORMATS_TEST_UTIL_H_
