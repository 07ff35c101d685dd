// `lpsim gemm` end to end: the real binary (LPSIM_BIN) on .npy files in a
// fresh directory, its output against the library's reference GEMM bit for
// bit, its JSON report, and bad input (exit 2, one line, OUT untouched).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "mmu/gemm.h"
#include "store/npy.h"
#include "tests/common/binary_test.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class GemmCliTest : public BinaryTest {
 protected:
  // `lpsim gemm args`.
  BinaryResult Run(const std::string& args) const { return BinaryTest::Run("gemm " + args); }
  void ExpectBadInput(const std::string& args, const std::string& says) {
    SCOPED_TRACE(args);
    ExpectOneErrorLine(Run(args), 2, "gemm", says);
    EXPECT_FALSE(fs::exists(Path("d.npy")));
  }
};

std::vector<float> Random(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = g(rng);
  return x;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST_F(GemmCliTest, ProductMatchesTheReferenceAndNotesRoundedInputs) {
  const size_t m = 5, k = 40, n = 11;
  const std::vector<float> a = Random(m * k, 1), b = Random(k * n, 2), c = Random(m * n, 3);
  WriteArray("a.npy", {m, k}, a);
  WriteArray("b.npy", {k, n}, b);
  WriteArray("c.npy", {m, n}, c);
  const BinaryResult r = Run("--unit h100 --in e4m3fn --in-b e5m2 " + Path("a.npy") + " " +
                              Path("b.npy") + " --c " + Path("c.npy") + " " + Path("d.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  StatusOr<mmu::GemmConfig> cfg = mmu::MakeGemmConfig("h100", "e4m3fn", "e5m2", "");
  ASSERT_TRUE(cfg.ok());
  std::vector<float> want(m * n);
  mmu::GemmRef(*cfg, m, n, k, a.data(), b.data(), c.data(), want.data());
  EXPECT_TRUE(SameBits(ReadArray("d.npy"), want));
  // Random normals are not fp8 values: the command says it rounded them.
  EXPECT_THAT(r.err, HasSubstr("values of A are not e4m3fn values"));
  EXPECT_THAT(r.err, HasSubstr("values of B are not e5m2 values"));
}

TEST_F(GemmCliTest, RowwiseMatchesTheReference) {
  const size_t m = 13, k = 100;
  const std::vector<float> a = Random(m * k, 4), b = Random(m * k, 5);
  WriteArray("a.npy", {m, k}, a);
  WriteArray("b.npy", {m, k}, b);
  const BinaryResult r =
      Run("--unit b200 --rowwise " + Path("a.npy") + " " + Path("b.npy") + " " + Path("d.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  StatusOr<mmu::GemmConfig> cfg = mmu::MakeGemmConfig("b200", "e4m3fn", "e4m3fn", "");
  std::vector<float> want(m);
  mmu::RowwiseDotRef(*cfg, m, k, a.data(), b.data(), nullptr, want.data());
  EXPECT_TRUE(SameBits(ReadArray("d.npy"), want));
  StatusOr<NpyArray> d = ReadNpy(Path("d.npy"));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->shape, std::vector<size_t>{m});
}

TEST_F(GemmCliTest, JsonReportsErrorAgainstExact) {
  const size_t m = 4, k = 64, n = 8;
  WriteArray("a.npy", {m, k}, Random(m * k, 6));
  WriteArray("b.npy", {k, n}, Random(k * n, 7));
  const BinaryResult h100 = Run("--unit h100 --json " + Path("a.npy") + " " + Path("b.npy") +
                                 " " + Path("d.npy"));
  ASSERT_EQ(h100.code, 0) << h100.err;
  const nlohmann::json j = nlohmann::json::parse(h100.out);
  EXPECT_EQ(j["unit"], "h100");
  EXPECT_EQ(j["final_rounding"], "rtz");
  const auto ks = j["error_by_k"];
  ASSERT_EQ(ks.size(), 4u);  // 8, 16, 32, 64
  EXPECT_EQ(ks.back()["k"], 64);
  EXPECT_GT(j["error_vs_exact"]["max_ulp"].get<double>(), 0.0);  // 13 bits truncate
  // The exact unit has no error against itself.
  const BinaryResult exact = Run("--unit exact --in e4m3fn --json " + Path("a.npy") + " " +
                                  Path("b.npy") + " " + Path("d.npy"));
  ASSERT_EQ(exact.code, 0) << exact.err;
  EXPECT_EQ(nlohmann::json::parse(exact.out)["error_vs_exact"]["max_ulp"].get<double>(), 0.0);
}

TEST_F(GemmCliTest, SweepKPrintsEveryFp8Unit) {
  const BinaryResult r = Run("--sweep-k --kmax 256 --rows 16 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  std::vector<std::string> units;
  for (const auto& u : j["units"]) units.push_back(u["unit"]);
  EXPECT_THAT(units, ::testing::IsSupersetOf({"h100", "h100-promote128", "b200", "l40s", "mi300",
                                              "fp32-fma"}));
  EXPECT_EQ(j["k"], nlohmann::json::array({16, 64, 256}));
}

TEST_F(GemmCliTest, BadInputExitsTwoAndWritesNothing) {
  WriteArray("a.npy", {3, 4}, Random(12, 8));
  WriteArray("b.npy", {5, 2}, Random(10, 9));
  WriteArray("v.npy", {4}, Random(4, 10));
  const std::string a = Path("a.npy"), b = Path("b.npy"), d = Path("d.npy");
  ExpectBadInput("--unit tpu9 " + a + " " + b + " " + d, "unknown matrix-multiply unit 'tpu9'");
  ExpectBadInput("--unit h100 " + a + " " + b + " " + d, "B must have as many rows as A has columns");
  ExpectBadInput("--unit h100 --rowwise " + a + " " + b + " " + d, "same shape");
  ExpectBadInput("--unit h100 " + Path("v.npy") + " " + b + " " + d, "A must be 2-D");
  ExpectBadInput("--unit v100 --in e4m3fn " + a + " " + b + " " + d, "does not take inputs");
  ExpectBadInput("--unit h100 --out bf16 " + a + " " + b + " " + d, "use fp32, fp16");
  ExpectBadInput("--unit h100 " + Path("missing.npy") + " " + b + " " + d, "missing.npy");
  ExpectBadInput("--unit h100", "give A.npy B.npy OUT.npy");
  ExpectBadInput("--sweep-k --kmax 3", "--kmax");
}

}  // namespace
}  // namespace lpsim
