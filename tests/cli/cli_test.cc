// End-to-end tests of the `lpsim` executable: each test runs the real binary
// (LPSIM_BIN, set by the build) in a fresh temporary directory and checks its
// exit code, stdout/stderr and the files it writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "formats/format.h"
#include "store/npy.h"
#include "store/run_db.h"
#include "tests/common/binary_test.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

class CliTest : public BinaryTest {
 protected:
  static nlohmann::json ParseJson(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << text;
    return j;
  }

  // A command that must fail as bad input: exit 2, one line on stderr that
  // starts with the command's prefix and mentions `says`, OUT not created.
  void ExpectBadInput(const std::string& args, const std::string& says,
                      const std::string& out_name = "out.npy") const {
    SCOPED_TRACE(args);
    ExpectOneErrorLine(Run(args), 2, "quantize", says);
    EXPECT_FALSE(fs::exists(Path(out_name)));
  }
};

// The .npy prefix with a hand-written header dict (for inputs the writer
// cannot produce).
std::string NpyWithDict(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string s("\x93NUMPY\x01\x00", 8);
  s += static_cast<char>(header.size() & 0xff);
  s += static_cast<char>(header.size() >> 8);
  return s + header + data;
}

// ---- lpsim --version, usage errors.

TEST_F(CliTest, PrintsVersion) {
  const BinaryResult r = Run("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, StartsWith("lpsim "));
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(Run("").code, 2);
  EXPECT_EQ(Run("nosuchcommand").code, 2);
  EXPECT_EQ(Run("formats --nosuchflag").code, 2);
  EXPECT_EQ(Run("quantize in.npy out.npy").code, 2);  // --format is required
  EXPECT_EQ(Run("--help").code, 0);
}

// ---- lpsim formats

TEST_F(CliTest, FormatsTableListsEveryBuiltin) {
  const BinaryResult r = Run("formats");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const Format& f : BuiltinFormats()) EXPECT_THAT(r.out, HasSubstr(f.name()));
  EXPECT_THAT(r.out, HasSubstr("448"));
  EXPECT_THAT(r.out, HasSubstr("0.001953125"));
  EXPECT_THAT(r.out, HasSubstr("max (always)"));
  // Aligned: every line of the table is no longer than the rule under the
  // header, and the header, rule and rows all start in column 0.
  std::vector<std::string> lines;
  for (size_t pos = 0, nl; (nl = r.out.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    lines.push_back(r.out.substr(pos, nl - pos));
  }
  // The floating-point table comes first, up to the first blank line; the
  // integer, block floating-point and block-scaled tables follow.
  const size_t blank = std::find(lines.begin(), lines.end(), "") - lines.begin();
  ASSERT_EQ(blank, BuiltinFormats().size() + 2);
  EXPECT_THAT(lines[1], StartsWith("----"));
  for (size_t i = 0; i < blank; ++i) EXPECT_LE(lines[i].size(), lines[1].size());
  for (const char* name : {"int8", "uint8", "int4", "bfp8", "bfp4", "mxfp4", "nvfp4"}) {
    EXPECT_THAT(r.out, HasSubstr(name));
  }
  EXPECT_THAT(r.out, HasSubstr("e4m3 per 1x16 + fp32 per tensor"));
}

TEST_F(CliTest, FormatsJsonHasTheLimits) {
  const BinaryResult r = Run("formats --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = ParseJson(r.out);
  ASSERT_TRUE(j.is_array());
  const std::set<std::string> keys = {"name", "kind", "exponent_bits", "mantissa_bits", "bias",
                                      "max",  "min_normal",    "min_subnormal", "has_inf",
                                      "nan",  "negative_zero", "overflow",      "total_bits"};
  nlohmann::json e4m3fn, e5m2, int4, bfp8;
  size_t floats = 0;
  for (const nlohmann::json& f : j) {
    if (f["name"] == "int4") int4 = f;
    if (f["name"] == "bfp8") bfp8 = f;
    if (f["kind"] != "float") continue;
    ++floats;
    std::set<std::string> got;
    for (const auto& item : f.items()) got.insert(item.key());
    EXPECT_EQ(got, keys);
    if (f["name"] == "e4m3fn") e4m3fn = f;
    if (f["name"] == "e5m2") e5m2 = f;
  }
  ASSERT_FALSE(e4m3fn.is_null());
  EXPECT_EQ(e4m3fn["max"].get<double>(), 448.0);
  EXPECT_EQ(e4m3fn["min_normal"].get<double>(), 0.015625);
  EXPECT_EQ(e4m3fn["min_subnormal"].get<double>(), 0.001953125);
  EXPECT_EQ(e4m3fn["nan"], "fn");
  EXPECT_EQ(e4m3fn["has_inf"], false);
  EXPECT_EQ(e4m3fn["overflow"], "nan");
  EXPECT_EQ(e4m3fn["total_bits"], 8);
  ASSERT_FALSE(e5m2.is_null());
  EXPECT_EQ(e5m2["has_inf"], true);
  EXPECT_EQ(e5m2["max"].get<double>(), 57344.0);
  EXPECT_EQ(e5m2["overflow"], "inf");
  EXPECT_EQ(floats, BuiltinFormats().size());
  ASSERT_FALSE(int4.is_null());
  EXPECT_EQ(int4["qmin"], -8);
  EXPECT_EQ(int4["qmax"], 7);
  ASSERT_FALSE(bfp8.is_null());
  EXPECT_EQ(bfp8["block"], 16);
  EXPECT_EQ(bfp8["magnitude_bits"], 7);
  const BinaryResult one = Run("formats --format int8:narrow --format bfp4 --json");
  ASSERT_EQ(one.code, 0) << one.err;
  const nlohmann::json o = ParseJson(one.out);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[0]["qmin"], -127);
  EXPECT_EQ(o[1]["magnitude_bits"], 3);
  const BinaryResult bad = Run("formats --format int17");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("int17"));
}

TEST_F(CliTest, FormatsDescribesACustomSpec) {
  const BinaryResult r = Run("formats --format e4m3:bias=9:nan=fn:sat --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = ParseJson(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["bias"], 9);
  EXPECT_EQ(j[0]["nan"], "fn");
  EXPECT_EQ(j[0]["overflow"], "max");
  EXPECT_EQ(j[0]["max"].get<double>(), 112.0);  // 448 / 2^2

  const BinaryResult bad = Run("formats --format e4m3:bias=x");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, StartsWith("lpsim formats: error: "));
  EXPECT_THAT(bad.err, HasSubstr("bias=x"));
}

// ---- lpsim quantize

// ml_dtypes' E4M3FN cases: 464 is a tie that rounds to even 448, 465 rounds
// past max and becomes NaN; 1.0625 + 2^-13 is just above a tie; 1e-10
// underflows; -0 stays -0; NaN and Inf become NaN (no Inf in e4m3fn).
const std::vector<float> kEdgeInput = {
    464.0f, 465.0f, 1.0625f + std::ldexp(1.0f, -13), 1e-10f, -0.0f, NAN, INFINITY};

TEST_F(CliTest, QuantizesE4m3fnEdgeCases) {
  WriteArray("in.npy", kEdgeInput);
  const BinaryResult r = Run("quantize --format e4m3fn " + Path("in.npy") + " " + Path("out.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("underflow"));
  EXPECT_THAT(r.out, HasSubstr("overflow (-> nan)"));
  EXPECT_THAT(r.out, HasSubstr("14.286"));  // 1 of 7
  EXPECT_THAT(r.out, HasSubstr("SNR"));
  const std::vector<float> q = ReadArray("out.npy");
  ASSERT_EQ(q.size(), 7u);
  EXPECT_EQ(Bits(q[0]), Bits(448.0f));
  EXPECT_TRUE(std::isnan(q[1]));
  EXPECT_EQ(Bits(q[2]), Bits(1.125f));
  EXPECT_EQ(Bits(q[3]), Bits(0.0f));
  EXPECT_EQ(Bits(q[4]), Bits(-0.0f));
  EXPECT_TRUE(std::isnan(q[5]));
  EXPECT_TRUE(std::isnan(q[6]));
}

TEST_F(CliTest, QuantizeJsonHasTheCounts) {
  WriteArray("in.npy", kEdgeInput);
  const BinaryResult r =
      Run("quantize --format e4m3fn --json " + Path("in.npy") + " " + Path("out.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = ParseJson(r.out);
  EXPECT_EQ(j["format"], "e4m3fn");
  EXPECT_EQ(j["rounding"], "rne");
  EXPECT_EQ(j["scale"].get<double>(), 1.0);
  EXPECT_EQ(j["seed"], 0);
  EXPECT_EQ(j["numel"], 7);
  EXPECT_EQ(j["overflow"], 1);
  EXPECT_EQ(j["overflow_result"], "nan");
  EXPECT_EQ(j["underflow"], 1);
  EXPECT_EQ(j["flushed"], 0);
  EXPECT_EQ(j["subnormal"], 0);
  EXPECT_EQ(j["zero_in"], 1);
  EXPECT_EQ(j["nan_in"], 1);
  EXPECT_EQ(j["inf_in"], 1);
  EXPECT_TRUE(j["snr_db"].is_number());

  // No error at all: SNR is infinite, which JSON spells null.
  WriteArray("exact.npy", {1.0f, 2.0f, -0.5f});
  const BinaryResult exact =
      Run("quantize --format e4m3fn --json " + Path("exact.npy") + " " + Path("out2.npy"));
  ASSERT_EQ(exact.code, 0) << exact.err;
  EXPECT_TRUE(ParseJson(exact.out)["snr_db"].is_null());
}

TEST_F(CliTest, SaturateClampsOverflow) {
  WriteArray("in.npy", kEdgeInput);
  const BinaryResult r =
      Run("quantize --format e4m3fn --saturate --json " + Path("in.npy") + " " + Path("out.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ParseJson(r.out)["overflow_result"], "max");
  const std::vector<float> q = ReadArray("out.npy");
  ASSERT_EQ(q.size(), 7u);
  EXPECT_EQ(Bits(q[1]), Bits(448.0f));
  EXPECT_TRUE(std::isnan(q[6])) << "saturation does not change non-finite inputs";
}

TEST_F(CliTest, ScaleIsAppliedBeforeAndUndoneAfterTheCast) {
  // 1000 overflows e4m3fn; scaled by 1/4 it is 250, which rounds to 256, and
  // comes back as 1024.
  WriteArray("in.npy", {1000.0f});
  const BinaryResult r =
      Run("quantize --format e4m3fn --scale 0.25 --json " + Path("in.npy") + " " + Path("out.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = ParseJson(r.out);
  EXPECT_EQ(j["scale"].get<double>(), 0.25);
  EXPECT_EQ(j["overflow"], 0);
  const std::vector<float> q = ReadArray("out.npy");
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0], 1024.0f);
}

TEST_F(CliTest, StochasticRoundingIsSeeded) {
  std::mt19937 gen(7);
  std::vector<float> v(4096);
  for (float& x : v) x = static_cast<float>(gen() % 100000) / 1000.0f;  // 0..100, 3 decimals
  WriteArray("in.npy", v);
  auto run = [&](const std::string& seed, const std::string& out) {
    const BinaryResult r = Run("quantize --format e4m3fn --rounding stochastic --seed " + seed + " " +
                            Path("in.npy") + " " + Path(out));
    EXPECT_EQ(r.code, 0) << r.err;
    return ReadArray(out);
  };
  const std::vector<float> a = run("42", "a.npy");
  const std::vector<float> b = run("42", "b.npy");
  const std::vector<float> c = run("43", "c.npy");
  ASSERT_EQ(a.size(), v.size());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST_F(CliTest, ReadsFloat16AndFloat64Inputs) {
  // float16 1.5 and -2 (0x3e00, 0xc000); float64 464.0.
  WriteFile("h.npy", NpyWithDict("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }",
                                 std::string("\x00\x3e\x00\xc0", 4)));
  BinaryResult r = Run("quantize --format e4m3fn --json " + Path("h.npy") + " " + Path("h_out.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ParseJson(r.out)["input_dtype"], "float16");
  EXPECT_EQ(ReadArray("h_out.npy"), (std::vector<float>{1.5f, -2.0f}));

  double d = 464.0;
  std::string bytes(8, '\0');
  std::memcpy(&bytes[0], &d, 8);  // the test host is little-endian, like the file
  WriteFile("d.npy", NpyWithDict("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", bytes));
  r = Run("quantize --format e4m3fn " + Path("d.npy") + " " + Path("d_out.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  StatusOr<NpyArray> out = ReadNpy(Path("d_out.npy"));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->shape.empty()) << "0-d stays 0-d";
  EXPECT_EQ(out->data, std::vector<float>{448.0f});
}

TEST_F(CliTest, BadInputsExitTwoAndWriteNothing) {
  WriteArray("in.npy", {1.0f, 2.0f});
  const std::string io = " " + Path("in.npy") + " " + Path("out.npy");
  ExpectBadInput("quantize --format e4m3fn " + Path("missing.npy") + " " + Path("out.npy"),
                 "missing.npy: cannot open");

  const std::string good = NpyWithDict("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                                       std::string(8, '\0'));
  WriteFile("trunc.npy", good.substr(0, good.size() - 3));
  ExpectBadInput("quantize --format e4m3fn " + Path("trunc.npy") + " " + Path("out.npy"),
                 "truncated data");
  WriteFile("be.npy", NpyWithDict("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                                  std::string(8, '\0')));
  ExpectBadInput("quantize --format e4m3fn " + Path("be.npy") + " " + Path("out.npy"),
                 "big-endian");
  WriteFile("fo.npy", NpyWithDict("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }",
                                  std::string(8, '\0')));
  ExpectBadInput("quantize --format e4m3fn " + Path("fo.npy") + " " + Path("out.npy"), "Fortran");
  WriteFile("int.npy", NpyWithDict("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                                   std::string(8, '\0')));
  ExpectBadInput("quantize --format e4m3fn " + Path("int.npy") + " " + Path("out.npy"),
                 "unsupported dtype '<i4' (int32)");
  WriteFile("text.npy", "hello, world\n");
  ExpectBadInput("quantize --format e4m3fn " + Path("text.npy") + " " + Path("out.npy"),
                 "bad magic");

  ExpectBadInput("quantize --format e4m3:bias=zz" + io, "bias=zz");
  ExpectBadInput("quantize --format e9m9" + io, "exponent bits");
  ExpectBadInput("quantize --format nosuch" + io, "'nosuch'");
  ExpectBadInput("quantize --format e4m3fn --rounding up" + io, "unknown rounding 'up'");
  ExpectBadInput("quantize --format e4m3fn --scale 0" + io, "--scale '0'");
  ExpectBadInput("quantize --format e4m3fn --scale -1" + io, "--scale '-1'");
  ExpectBadInput("quantize --format e4m3fn --scale nan" + io, "--scale 'nan'");
  ExpectBadInput("quantize --format e4m3fn --scale inf" + io, "--scale 'inf'");
  ExpectBadInput("quantize --format e4m3fn --scale 1e-40" + io, "reciprocal");
  ExpectBadInput("quantize --format e4m3fn --scale 2x" + io, "not a number");
  ExpectBadInput("quantize --format e4m3fn --seed -3" + io, "--seed '-3'");
}

TEST_F(CliTest, FailedRunLeavesAnExistingOutputUntouched) {
  WriteFile("out.npy", "previous contents");
  WriteFile("bad.npy", "not an array");
  for (const std::string& args :
       {"quantize --format e4m3fn " + Path("bad.npy") + " " + Path("out.npy"),
        "quantize --format e4m3fn --scale 0 " + Path("bad.npy") + " " + Path("out.npy"),
        "quantize --format nope " + Path("bad.npy") + " " + Path("out.npy")}) {
    SCOPED_TRACE(args);
    EXPECT_EQ(Run(args).code, 2);
    EXPECT_EQ(ReadFile(Path("out.npy")), "previous contents");
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("out.npy", "bad.npy"));
}

TEST_F(CliTest, AnOutputInAMissingFolderIsRefusedBeforeTheWork) {
  WriteArray("in.npy", {1.0f});
  const BinaryResult r =
      Run("quantize --format e4m3fn " + Path("in.npy") + " " + Path("no/such/dir/out.npy"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith("lpsim quantize: error: "));
  EXPECT_THAT(r.err, HasSubstr("its folder " + Path("no/such/dir") + " cannot be used"));
  // Refused before quantizing: nothing about the cast was printed.
  EXPECT_THAT(r.out, Not(HasSubstr("e4m3fn")));
}

// ---- lpsim demo

TEST_F(CliTest, DemoTrainsWithTrackingAndWritesTheRun) {
  const std::string run = Path("demo_run");
  const BinaryResult r = Run("demo --steps 30 --quiet --run-dir " + run);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s : {"e4m3fn under%", "e5m2 under%", "bf16 under%", "fc1", "fc3",
                        "activation_grad", "weight_grad", "optimizer_state", "SNR dB"}) {
    EXPECT_THAT(r.out, HasSubstr(s));
  }
  EXPECT_THAT(r.out, HasSubstr("Run written to " + run + "/run.db"));
  EXPECT_TRUE(fs::exists(run + "/run.db"));
  EXPECT_THAT(r.out, Not(HasSubstr("Prediction:")));  // no --target, no prediction
}

// With --target (no --simulate) the demo ends with the break prediction on
// it, the one `lpsim check RUN --target T` makes on the run it wrote.
TEST_F(CliTest, DemoPredictsOnItsTarget) {
  const std::string run = Path("demo_probed");
  BinaryResult r = Run("demo --steps 40 --quiet --target fp16-npu-ftz --probe fp16-npu-ftz --json --run-dir " + run);
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json demo = ParseJson(r.out)["prediction"];
  ASSERT_TRUE(demo.is_object()) << r.out;
  EXPECT_EQ(demo["probed"], true);
  r = Run("check " + run + " --target fp16-npu-ftz --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(demo, ParseJson(r.out)["prediction"]);
  r = Run("demo --steps 20 --quiet --target b200-nvfp4 --run-dir " + Path("demo_unprobed"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Prediction: on b200-nvfp4 "));
  EXPECT_THAT(r.out, HasSubstr("; judged without probes of b200-nvfp4 (TrackerOptions::probe, lpsim demo --probe "
                               "b200-nvfp4)"));
  r = Run("check " + Path("demo_unprobed") + " --target b200-nvfp4 --json");
  EXPECT_EQ(ParseJson(r.out)["prediction"]["probed"], false) << r.out;
}

TEST_F(CliTest, DemoJsonCnnSimulateAndRecipe) {
  const std::string run = Path("demo_cnn");
  const BinaryResult r = Run("demo --model cnn --steps 12 --every 4 --recipe mx --simulate "
                          "--formats e4m3fn,e2m1fn --json --run-dir " + run);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = ParseJson(r.out);
  EXPECT_EQ(j["model"], "cnn");
  EXPECT_EQ(j["simulate"], true);
  ASSERT_FALSE(j["layers"].empty());
  for (const nlohmann::json& l : j["layers"]) {
    EXPECT_EQ(l["step"], 8);  // the last tracked step of 0..11 with --every 4
    EXPECT_EQ(l["formats"]["e4m3fn"]["recipe"], "mx");
    EXPECT_TRUE(l["formats"].contains("e2m1fn"));
  }
  EXPECT_TRUE(std::isfinite(j["final_loss"].get<double>()));
  EXPECT_TRUE(j["prediction"].is_null());  // simulate mode is the target, not a prediction of it
}

TEST_F(CliTest, DemoOnAMatrixUnit) {
  const BinaryResult r = Run("demo --steps 6 --every 3 --formats e4m3fn --matmul-unit b200 --json "
                          "--run-dir " + Path("demo_unit"));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = ParseJson(r.out);
  EXPECT_EQ(j["matmul_unit"], "b200");
  EXPECT_EQ(j["simulate"], true);  // --matmul-unit implies --simulate
  ASSERT_EQ(j["losses"].size(), 6u);
  EXPECT_EQ(j["losses"][5].get<double>(), j["final_loss"].get<double>());
}

// --probe: the loss's forward pass on each target every --probe-every
// steps, stored as scalars beside the loss.
TEST_F(CliTest, DemoProbesTargets) {
  const std::string run = Path("demo_probe");
  const BinaryResult r = Run("demo --steps 9 --every 4 --probe b200-nvfp4,tenstorrent-bfp4 --probe-every 4 "
                          "--rollout 2 --rollout-every 8 --json --run-dir " + run);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = ParseJson(r.out);
  StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(run);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  std::map<std::string, std::vector<int64_t>> steps;
  std::map<int64_t, double> fp32;
  StatusOr<std::vector<ScalarRecord>> scalars = (*reader)->Scalars();
  ASSERT_TRUE(scalars.ok()) << scalars.status().message();
  for (const ScalarRecord& s : *scalars) {
    if (s.name.rfind("probe_loss", 0) == 0 || s.name.rfind("rollout_loss", 0) == 0) steps[s.name].push_back(s.step);
    if (s.name == "probe_loss") fp32[s.step] = s.value;
  }
  const std::vector<int64_t> expected = {0, 4, 8}, rollouts = {0, 8};
  EXPECT_EQ(steps["probe_loss"], expected);
  EXPECT_EQ(steps["probe_loss:b200-nvfp4"], expected);
  EXPECT_EQ(steps["probe_loss:tenstorrent-bfp4"], expected);
  EXPECT_EQ(steps["rollout_loss"], rollouts);
  EXPECT_EQ(steps["rollout_loss:b200-nvfp4"], rollouts);
  EXPECT_EQ(steps["rollout_loss:tenstorrent-bfp4"], rollouts);
  EXPECT_EQ(steps.size(), 6u);
  // The fp32 probe is the training loss of its step (same weights, batch).
  EXPECT_EQ(fp32[4], j["losses"][4].get<double>());
  const BinaryResult bad = Run("demo --steps 4 --probe tpu-v9 --quiet --run-dir " + Path("bad_probe"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("TrackerOptions.probe_targets: unknown target 'tpu-v9'"));
  const BinaryResult off_beat = Run("demo --steps 4 --probe b200-nvfp4 --probe-every 4 --rollout 2 --rollout-every 6 "
                                 "--quiet --run-dir " + Path("bad_rollout"));
  EXPECT_EQ(off_beat.code, 2);
  EXPECT_THAT(off_beat.err, HasSubstr("probe_rollout_every must be a positive multiple of probe_every (4)"));
}

TEST_F(CliTest, DemoBadOptionsAreBadInput) {
  for (const char* args : {"demo --formats e4m3fn,bogus", "demo --model resnet",
                           "demo --recipe sometimes", "demo --steps 0",
                           "demo --matmul-unit nope", "demo --matmul-unit v100"}) {
    const BinaryResult bad = Run(std::string(args) + " --quiet --run-dir " + Path("bad_run"));
    EXPECT_EQ(bad.code, 2) << args;
    EXPECT_THAT(bad.err, StartsWith("lpsim demo: error: ")) << args;
  }
  EXPECT_THAT(Run("demo --formats e4m3fn,bogus --quiet --run-dir " + Path("b")).err,
              HasSubstr("bogus"));
}

// ---- lpsim targets, quantize --target

TEST_F(CliTest, TargetsListsEveryBuiltinWithItsRoles) {
  const BinaryResult r = Run("targets");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"h100-fp8-delayed", "b200-nvfp4", "int8-npu", "tenstorrent-bfp8",
                           "ipu-fp8", "fp16-npu-ftz"}) {
    EXPECT_THAT(r.out, HasSubstr(name));
  }
  EXPECT_THAT(r.out, HasSubstr("activation_grad"));
  EXPECT_THAT(r.out, HasSubstr("int8:narrow per-channel"));
  EXPECT_THAT(r.out, HasSubstr("e2m1fn 16x16:nvfp4"));

  const BinaryResult j = Run("targets --json");
  ASSERT_EQ(j.code, 0) << j.err;
  const nlohmann::json arr = ParseJson(j.out);
  ASSERT_TRUE(arr.is_array());
  EXPECT_GE(arr.size(), 12u);
  for (const nlohmann::json& t : arr) {
    for (const char* role : {"activation", "weight", "activation_grad", "weight_grad",
                             "optimizer_state", "master_weights"}) {
      ASSERT_TRUE(t["roles"].contains(role)) << t["name"] << " " << role;
      EXPECT_TRUE(t["roles"][role]["sources"].contains("format")) << t["name"] << " " << role;
    }
    if (t["name"] == "int8-npu") {
      EXPECT_EQ(t["roles"]["weight"]["format"], "int8:narrow");
      EXPECT_EQ(t["roles"]["weight"]["scaling"], "int:per_channel:symmetric");
      EXPECT_EQ(t["roles"]["activation"]["scaling"], "int:per_tensor:asymmetric");
      EXPECT_EQ(t["roles"]["weight"]["max"], 127);
    }
  }

  const BinaryResult one = Run("targets --target b200-nvfp4");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_THAT(one.out, HasSubstr("Sources"));
  EXPECT_THAT(one.out, HasSubstr("NVFP4BlockScaling"));
  EXPECT_THAT(one.out, HasSubstr("stochastic"));
}

TEST_F(CliTest, TargetsBadInputNamesTheField) {
  const BinaryResult unknown = Run("targets --target tpu-v9");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, StartsWith("lpsim targets: error: unknown target 'tpu-v9'"));
  WriteFile("bad.json", R"({"name": "bad", "description": "d", "roles": {}})");
  const BinaryResult bad = Run("targets --target " + Path("bad.json"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("bad.json: roles.activation: missing"));
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  // A user's own target, by path.
  std::string own = R"({"name": "mine", "description": "d", "roles": {)";
  const char* roles[] = {"activation", "weight", "activation_grad", "weight_grad",
                         "optimizer_state", "master_weights"};
  for (int i = 0; i < 6; ++i) {
    own += std::string(i ? ", " : "") + "\"" + roles[i] +
           R"(": {"format": "int4", "scaling": {"kind": "integer", "granularity": "per_channel"},
               "sources": {"format": "assumed", "scaling": "assumed"}})";
  }
  WriteFile("mine.json", own + "}}");
  const BinaryResult mine = Run("targets --json --target " + Path("mine.json"));
  ASSERT_EQ(mine.code, 0) << mine.err;
  EXPECT_EQ(ParseJson(mine.out)[0]["roles"]["weight"]["format"], "int4");
}

// The int8 NPU's weights: per output channel, symmetric [-127, 127], round
// half away from zero. Row 0 has amax 1.27 -> scale 0.01; row 1 amax 127 ->
// scale 1.
TEST_F(CliTest, QuantizeWithATargetRole) {
  const std::vector<float> w = {1.27f, 0.005f, -0.015f, 127.0f, 0.5f, -2.5f};
  ASSERT_TRUE(WriteNpy(Path("w.npy"), {2, 3}, w.data()).ok());
  const BinaryResult r = Run("quantize --target int8-npu --role weight --json " + Path("w.npy") +
                          " " + Path("q.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = ParseJson(r.out);
  EXPECT_EQ(j["format"], "int8:narrow");
  EXPECT_EQ(j["scaling"], "int:per_channel:symmetric");
  EXPECT_EQ(j["numel"], 6);
  const std::vector<float> q = ReadArray("q.npy");
  ASSERT_EQ(q.size(), 6u);
  const float s0 = 1.27f / 127.0f;
  EXPECT_EQ(q[0], s0 * 127.0f);
  EXPECT_EQ(q[1], s0 * static_cast<float>(std::round(0.005f / s0)));
  EXPECT_EQ(q[2], s0 * static_cast<float>(std::round(-0.015f / s0)));
  EXPECT_EQ(q[3], 127.0f);
  EXPECT_EQ(q[4], 1.0f);   // 0.5: a tie, away from zero
  EXPECT_EQ(q[5], -3.0f);  // -2.5: away from zero

  const BinaryResult nv = Run("quantize --target b200-nvfp4 --role activation " + Path("w.npy") +
                           " " + Path("q2.npy"));
  ASSERT_EQ(nv.code, 0) << nv.err;
  EXPECT_THAT(nv.out, HasSubstr("e2m1fn:sat with nvfp4 scaling"));

  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"--target int8-npu", "--target needs --role"},
           {"--target int8-npu --role gradient", "--role: unknown role 'gradient'"},
           {"--target nope --role weight", "--target: unknown target 'nope'"},
           {"--target int8-npu --role weight --format e4m3fn", "either --format or --target"},
           {"--target int8-npu --role weight --scale 2", "come from the target's role"},
           {"--format e4m3fn --role weight", "--role needs --target"}}) {
    ExpectBadInput("quantize " + args + " " + Path("w.npy") + " " + Path("out.npy"), says);
  }
}

// A weight on two targets: the int8 NPU scales each output channel on its
// own and keeps row 0's small values (only 0.004 -> 0.4 of a step is lost);
// NVFP4's 16x16 block holds both rows, its E4M3 scale is set by 127, and
// everything but 127 falls below half of e2m1's smallest step.
TEST_F(CliTest, AnalyzeOnTargetsShowsClippingAndRounding) {
  const std::vector<float> w = {1.27f, 0.004f, -0.015f, 127.0f, 0.5f, -2.5f};
  ASSERT_TRUE(WriteNpy(Path("w.npy"), {2, 3}, w.data()).ok());
  const BinaryResult r = Run("analyze " + Path("w.npy") + " --target int8-npu,b200-nvfp4 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = ParseJson(r.out);
  const nlohmann::json& t = j["tensors"][0]["targets"];
  EXPECT_EQ(t["int8-npu"]["format"], "int8:narrow");
  EXPECT_EQ(t["int8-npu"]["overflow"], 0);
  EXPECT_EQ(t["int8-npu"]["underflow"], 1);
  EXPECT_EQ(t["b200-nvfp4"]["scaling"], "16x16:nvfp4");
  EXPECT_EQ(t["b200-nvfp4"]["underflow"], 5);
  EXPECT_LT(t["b200-nvfp4"]["snr_db"].get<double>(), t["int8-npu"]["snr_db"].get<double>());

  const BinaryResult text = Run("analyze " + Path("w.npy") + " --target int8-npu --role activation");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("int8-npu clip%"));
  EXPECT_THAT(text.out, HasSubstr("int8-npu: int8, int:per_tensor:asymmetric scaling"));

  const BinaryResult bad = Run("analyze " + Path("w.npy") + " --target int8-npu --role grads");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--role: unknown role 'grads'"));
  const BinaryResult bad_t = Run("analyze " + Path("w.npy") + " --target nope");
  EXPECT_EQ(bad_t.code, 2);
  EXPECT_THAT(bad_t.err, HasSubstr("--target: unknown target 'nope'"));
}

}  // namespace
}  // namespace lpsim
