// Hardware targets (core/target.h): every built-in loads and pins its
// semantics per role; every kind of bad input names its field; each role
// simulates as the formats/ and simd/ primitives it names.
#include "core/target.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "simd/scaling.h"
#include "simd/role_quantizer.h"

namespace lpsim {
namespace {

using Kind = Scaling::Kind;

Target Get(const std::string& name) {
  StatusOr<Target> t = LoadTarget(std::string(LPSIM_TEST_TARGETS_DIR) + "/" + name + ".json");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? t.value() : Target{};
}

TEST(Target, BuiltinsLoadAndCiteEveryField) {
  setenv("LPSIM_TARGETS_DIR", LPSIM_TEST_TARGETS_DIR, 1);
  StatusOr<std::vector<Target>> all = BuiltinTargets();
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_GE(all->size(), 12u);
  std::set<std::string> names;
  for (const Target& t : *all) {
    names.insert(t.name);
    EXPECT_FALSE(t.description.empty()) << t.name;
    for (TargetRole r : AllTargetRoles()) {
      for (const char* field : {"format", "scaling", "rounding", "saturate"}) {
        const std::string s = t.Source(r, field);
        EXPECT_FALSE(s.empty()) << t.name << " " << ToString(r) << " " << field;
        EXPECT_NE(s, "default") << t.name << " " << ToString(r) << " " << field;
      }
    }
  }
  for (const char* n : {"h100-fp8-delayed", "h100-fp8-current", "b200-mxfp8", "b200-nvfp4",
                        "deepseek-v3-fp8", "mi300-fp8", "gaudi2-fp8", "ipu-fp8",
                        "tenstorrent-bfp8", "tenstorrent-bfp4", "int8-npu", "fp16-npu-ftz",
                        "bf16-accelerator"}) {
    EXPECT_EQ(names.count(n), 1u) << n;
  }
  StatusOr<Target> found = FindTarget("int8-npu");
  ASSERT_TRUE(found.ok()) << found.status().message();
  StatusOr<Target> missing = FindTarget("tpu-v9");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("h100-fp8-delayed"), std::string::npos);
}

TEST(Target, BuiltinSemanticsPerRole) {
  const Target h = Get("h100-fp8-delayed");
  const RoleSpec& ha = h.role(TargetRole::kActivation);
  EXPECT_EQ(ha.format.name(), "e4m3fn:sat");
  EXPECT_EQ(ha.scaling.kind, Kind::kDelayed);
  EXPECT_EQ(ha.scaling.delayed.history, 1024u);
  EXPECT_EQ(ha.scaling.delayed.algo, DelayedScaler::Algo::kMax);
  EXPECT_EQ(ha.scaling.amax_reduction, "data_parallel");
  EXPECT_EQ(h.role(TargetRole::kActivationGrad).format.name(), "e5m2:sat");
  EXPECT_EQ(h.role(TargetRole::kMasterWeights).format.name(), "fp32");
  EXPECT_NE(h.Source(TargetRole::kActivation, "format").find("Transformer Engine"),
            std::string::npos);
  EXPECT_EQ(Get("h100-fp8-current").role(TargetRole::kWeight).scaling.kind, Kind::kCurrent);
  // Only the int8 NPU runs inference only; a file without the field trains.
  EXPECT_TRUE(Get("int8-npu").inference_only);
  EXPECT_FALSE(h.inference_only);

  const Target nv = Get("b200-nvfp4");
  const RoleSpec& nw = nv.role(TargetRole::kWeight);
  EXPECT_EQ(nw.format.name(), "e2m1fn:sat");
  EXPECT_EQ(nw.scaling.kind, Kind::kBlock);
  EXPECT_EQ(nw.scaling.block.scale_type, BlockSpec::ScaleType::kNvfp4);
  EXPECT_EQ(nw.scaling.block.block_rows, 16u);
  EXPECT_EQ(nw.scaling.FullName(), "16x16:nvfp4");
  EXPECT_EQ(nv.role(TargetRole::kActivation).scaling.FullName(), "nvfp4");
  EXPECT_EQ(nv.role(TargetRole::kActivationGrad).rounding, Rounding::kStochastic);
  EXPECT_EQ(nv.role(TargetRole::kActivation).rounding, Rounding::kNearestEven);
  EXPECT_EQ(Get("b200-mxfp8").role(TargetRole::kActivationGrad).scaling.FullName(), "mx");

  const Target ds = Get("deepseek-v3-fp8");
  EXPECT_EQ(ds.role(TargetRole::kActivation).scaling.FullName(), "1x128:fp32");
  EXPECT_EQ(ds.role(TargetRole::kWeight).scaling.FullName(), "128x128:fp32");
  EXPECT_EQ(ds.role(TargetRole::kOptimizerState).format.name(), "bf16");

  EXPECT_EQ(Get("mi300-fp8").role(TargetRole::kActivationGrad).format.name(), "e5m2fnuz:sat");
  EXPECT_EQ(Get("gaudi2-fp8").role(TargetRole::kWeight).format.MaxValue(), 240.0f);

  const RoleSpec ipu = Get("ipu-fp8").role(TargetRole::kActivation);
  EXPECT_EQ(ipu.format.name(), "e4m3fnuz:sat");
  EXPECT_TRUE(ipu.scaling.scale.power_of_two);
  EXPECT_EQ(ipu.scaling.scale.min_exponent, -32);
  EXPECT_EQ(ipu.scaling.scale.max_exponent, 31);

  const Target tt = Get("tenstorrent-bfp4");
  EXPECT_EQ(tt.role(TargetRole::kWeight).storage, RoleSpec::Storage::kBlockFp);
  EXPECT_EQ(tt.role(TargetRole::kWeight).bfp_format.magnitude_bits, 3);
  EXPECT_EQ(tt.role(TargetRole::kActivation).bfp_format.magnitude_bits, 7);
  EXPECT_EQ(Get("tenstorrent-bfp8").role(TargetRole::kWeight).bfp_format.block, 16u);

  const Target npu = Get("int8-npu");
  const RoleSpec& w = npu.role(TargetRole::kWeight);
  EXPECT_EQ(w.storage, RoleSpec::Storage::kInteger);
  EXPECT_EQ(w.int_format.qmin(), -127);
  EXPECT_TRUE(w.scaling.integer.per_channel);
  EXPECT_TRUE(w.scaling.integer.symmetric);
  EXPECT_EQ(w.int_rounding, IntRounding::kHalfAway);
  EXPECT_TRUE(w.matmul_unit.empty());  // no integer unit is modelled (docs/mmu.md)
  EXPECT_EQ(Get("h100-fp8-current").role(TargetRole::kWeight).matmul_unit, "h100");
  const RoleSpec& a = npu.role(TargetRole::kActivation);
  EXPECT_EQ(a.int_format.qmin(), -128);
  EXPECT_FALSE(a.scaling.integer.per_channel);
  EXPECT_FALSE(a.scaling.integer.symmetric);

  const RoleSpec f16 = Get("fp16-npu-ftz").role(TargetRole::kActivationGrad);
  EXPECT_EQ(f16.format.name(), "fp16:ftz");
  EXPECT_FALSE(f16.subnormals_in);
  EXPECT_EQ(Get("bf16-accelerator").role(TargetRole::kWeightGrad).format.name(), "bf16");
}

// A minimal valid target; the bad-input cases edit one field of it.
std::string Minimal(const std::string& weight_role) {
  const std::string plain =
      R"({"format": "fp32", "sources": {"format": "assumed"}})";
  return R"({"name": "t", "description": "d", "roles": {"activation": )" + plain +
         R"(, "weight": )" + weight_role + R"(, "activation_grad": )" + plain +
         R"(, "weight_grad": )" + plain + R"(, "optimizer_state": )" + plain +
         R"(, "master_weights": )" + plain + "}}";
}

TEST(Target, BadInputNamesTheField) {
  StatusOr<Target> ok = ParseTarget(Minimal(R"({"format": "e4m3fn", "scaling": "mx",
      "sources": {"format": "x", "scaling": "y"}})"), "t.json");
  ASSERT_TRUE(ok.ok());
  EXPECT_FALSE(ok->inference_only);  // without the field a target trains
  struct Case {
    std::string json;
    std::string field;
  };
  const Case cases[] = {
      {"{", "t.json: not valid JSON"},
      // A number past double's range: nlohmann throws out_of_range, not parse_error.
      {R"({"name": 1e999})", "t.json: not valid JSON"},
      {R"({"description": "d", "roles": {}})", "t.json: name: missing"},
      {Minimal(R"({"format": "e9m3", "sources": {"format": "x"}})"), "roles.weight.format:"},
      {Minimal(R"({"format": "int17", "sources": {"format": "x"}})"), "roles.weight.format:"},
      {Minimal(R"({"format": "e4m3fn", "sources": {}})"), "roles.weight.sources.format: missing"},
      {Minimal(R"({"format": "e4m3fn"})"), "roles.weight.sources: missing"},
      {Minimal(R"({"format": "e4m3fn", "scaling": "2x", "sources": {"format": "x", "scaling": "x"}})"),
       "roles.weight.scaling:"},
      {Minimal(R"({"format": "e4m3fn", "scaling": {"kind": "delayed", "history": 0},
          "sources": {"format": "x", "scaling": "x"}})"),
       "roles.weight.scaling.history: must be an integer in 1.."},
      {Minimal(R"({"format": "e4m3fn", "scaling": {"kind": "delayed", "amax_compute": "mean"},
          "sources": {"format": "x", "scaling": "x"}})"),
       "roles.weight.scaling.amax_compute"},
      {Minimal(R"({"format": "e4m3fn", "scaling": {"kind": "current", "exponent_range": [3, 1],
          "power_of_two": true}, "sources": {"format": "x", "scaling": "x"}})"),
       "roles.weight.scaling.exponent_range"},
      {Minimal(R"({"format": "e4m3fn", "scaling": {"kind": "block", "block": "zz"},
          "sources": {"format": "x", "scaling": "x"}})"),
       "roles.weight.scaling.block"},
      {Minimal(R"({"format": "e4m3fn", "scaling": {"kind": "blocky"},
          "sources": {"format": "x", "scaling": "x"}})"),
       "roles.weight.scaling.kind"},
      {Minimal(R"({"format": "int8", "scaling": "mx", "sources": {"format": "x", "scaling": "x"}})"),
       "roles.weight.scaling: an integer format"},
      {Minimal(R"({"format": "e4m3fn", "scaling": "integer", "sources": {"format": "x", "scaling": "x"}})"),
       "roles.weight.scaling: integer scaling needs"},
      {Minimal(R"({"format": "bfp8", "scaling": "current", "sources": {"format": "x", "scaling": "x"}})"),
       "roles.weight.scaling: block floating point"},
      {Minimal(R"({"format": "e4m3fn", "rounding": "up", "sources": {"format": "x", "rounding": "x"}})"),
       "roles.weight.rounding:"},
      {Minimal(R"({"format": "int8", "rounding": "rtz", "sources": {"format": "x", "rounding": "x"}})"),
       "roles.weight.rounding:"},
      {Minimal(R"({"format": "int8", "saturate": false, "sources": {"format": "x", "saturate": "x"}})"),
       "roles.weight.saturate:"},
      {Minimal(R"({"format": "e4m3fn", "saturate": "yes", "sources": {"format": "x", "saturate": "x"}})"),
       "roles.weight.saturate: must be true or false"},
      {Minimal(R"({"format": "e4m3fn", "subnormals": {"in": true, "of": false},
          "sources": {"format": "x", "subnormals": "x"}})"),
       "roles.weight.subnormals.of: unknown field"},
      {Minimal(R"({"format": "e4m3fn", "colour": 1, "sources": {"format": "x"}})"),
       "roles.weight.colour: unknown field"},
      {Minimal(R"({"format": "e4m3fn", "sources": {"format": "x", "colour": "y"}})"),
       "roles.weight.sources.colour: not a field"},
      {Minimal(R"({"format": "e4m3fn", "matmul_unit": 3, "sources": {"format": "x", "matmul_unit": "y"}})"),
       "roles.weight.matmul_unit: must be a string"},
      {R"({"name": "t", "description": "d", "roles": {"activation": {}}})",
       "roles.activation.format: missing"},
      {R"({"name": "t", "description": "d", "roles": {"activation":
          {"format": "fp32", "sources": {"format": "x"}}}})",
       "roles.weight: missing"},
      {R"({"name": "t", "description": "d", "roles": {"gradient": {}}})",
       "roles.gradient: unknown role"},
      {R"({"name": "T!", "description": "d", "roles": {}})", "t.json: name: must be lower-case"},
      {R"({"name": "t", "description": "d", "inference_only": "yes", "roles": {}})",
       "t.json: inference_only: must be true or false"},
  };
  for (const Case& c : cases) {
    StatusOr<Target> t = ParseTarget(c.json, "t.json");
    ASSERT_FALSE(t.ok()) << c.json;
    EXPECT_NE(t.status().message().find(c.field), std::string::npos)
        << "want '" << c.field << "' in: " << t.status().message();
    EXPECT_EQ(t.status().message().find('\n'), std::string::npos) << t.status().message();
  }
  StatusOr<Target> none = LoadTarget("/nonexistent/t.json");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("/nonexistent/t.json"), std::string::npos);
}

TEST(Target, DefaultsMergeUnderRoles) {
  const std::string json = R"({"name": "t", "description": "d",
    "defaults": {"format": "bf16", "rounding": "stochastic",
                 "sources": {"format": "ref", "rounding": "assumed"}},
    "references": {"ref": "A Paper, 2025"},
    "roles": {"activation": {}, "weight": {"format": "e4m3fn", "sources": {"format": "w"}},
              "activation_grad": {}, "weight_grad": {}, "optimizer_state": {},
              "master_weights": {"format": "fp32", "rounding": "rne"}}})";
  StatusOr<Target> t = ParseTarget(json, "t.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->role(TargetRole::kActivation).format.name(), "bf16");
  EXPECT_EQ(t->role(TargetRole::kActivation).rounding, Rounding::kStochastic);
  EXPECT_EQ(t->Source(TargetRole::kActivation, "format"), "A Paper, 2025");
  EXPECT_EQ(t->role(TargetRole::kWeight).format.name(), "e4m3fn");
  EXPECT_EQ(t->Source(TargetRole::kWeight, "format"), "w");
  EXPECT_EQ(t->Source(TargetRole::kWeight, "rounding"), "assumed");
  EXPECT_EQ(t->role(TargetRole::kMasterWeights).rounding, Rounding::kNearestEven);
}

std::vector<float> Data(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<float> ln(-2.0f, 2.0f);
  std::vector<float> x(n);
  for (float& v : x) v = (rng() % 2 ? -1.0f : 1.0f) * ln(rng);
  return x;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Each role simulates as the primitive it names, bit for bit.
TEST(Target, RolesSimulateAsTheirPrimitives) {
  const size_t rows = 40, cols = 300;
  const std::vector<float> x = Data(rows * cols, 1);
  std::vector<float> got(x.size()), want(x.size());
  CastCounts gc, wc;

  // int8 NPU weights: per-channel symmetric int8 [-127, 127], half away.
  RoleQuantizer npu_w(Get("int8-npu").role(TargetRole::kWeight));
  npu_w.Quantize(x.data(), rows, cols, {}, got.data(), &gc);
  IntQuantizeOptions io;
  io.per_row = true;
  std::vector<IntQuantParams> params;
  IntQuantizeRef(*ParseIntFormat("int8:narrow"), x.data(), rows, cols, io, want.data(), &params,
                 &wc);
  EXPECT_TRUE(SameBits(got, want));
  EXPECT_EQ(gc, wc);
  EXPECT_EQ(params.size(), rows);

  // NVFP4 weights: 16x16 blocks.
  RoleQuantizer nv_w(Get("b200-nvfp4").role(TargetRole::kWeight));
  nv_w.Quantize(x.data(), rows, cols, {}, got.data(), &gc);
  simd::BlockQuantizeRef(*ParseFormat("e2m1fn:sat"), x.data(), rows, cols,
                         BlockSpec::Nvfp4Weight(), {}, want.data(), nullptr, &wc);
  EXPECT_TRUE(SameBits(got, want));
  EXPECT_EQ(gc, wc);

  // Tenstorrent bfp4 weights.
  RoleQuantizer tt_w(Get("tenstorrent-bfp4").role(TargetRole::kWeight));
  tt_w.Quantize(x.data(), rows, cols, {}, got.data(), &gc);
  BfpQuantizeRef(*ParseBfpFormat("bfp4"), x.data(), rows, cols, {}, want.data(), nullptr, &wc);
  EXPECT_TRUE(SameBits(got, want));

  // IPU activations: the scale is 2^k with k clamped to [-32, 31].
  RoleQuantizer ipu(Get("ipu-fp8").role(TargetRole::kActivation));
  std::vector<float> tiny(x);
  for (float& v : tiny) v *= 1e-15f;
  const float s = ipu.Quantize(tiny.data(), rows, cols, {}, got.data(), &gc);
  EXPECT_EQ(s, std::ldexp(1.0f, 31));
}

// Delayed scaling: the first call uses the tensor's own amax; later calls
// the history of earlier ones (TE: amax history, max over 1024).
TEST(Target, DelayedRoleKeepsHistory) {
  RoleQuantizer q(Get("h100-fp8-delayed").role(TargetRole::kActivation));
  std::vector<float> a(64, 1.0f), b(64, 8.0f), c(64, 2.0f), out(64);
  EXPECT_EQ(q.Quantize(a.data(), 1, 64, {}, out.data(), nullptr), 448.0f);      // own amax 1
  EXPECT_EQ(q.Quantize(b.data(), 1, 64, {}, out.data(), nullptr), 448.0f);      // history {1}
  // 8 * 448 = 3584 would overflow e4m3fn; it saturates (the role's :sat).
  EXPECT_EQ(out[0], 448.0f * (1.0f / 448.0f));
  EXPECT_EQ(q.Quantize(c.data(), 1, 64, {}, out.data(), nullptr), 448.0f / 8.0f);  // max {1, 8}
}

// Observe feeds the history as a cast would, without casting: the tracker's
// probes cast every few steps and observe the steps between.
TEST(Target, DelayedRoleObservesWithoutCasting) {
  RoleQuantizer q(Get("h100-fp8-delayed").role(TargetRole::kActivation));
  std::vector<float> a(64, 1.0f), b(64, 8.0f), c(64, 2.0f), out(64);
  EXPECT_TRUE(q.delayed());
  q.Observe(1.0f);  // a's amax
  q.Observe(8.0f);  // b's
  EXPECT_EQ(q.Quantize(c.data(), 1, 64, {}, out.data(), nullptr), 448.0f / 8.0f);  // max {1, 8}
  RoleQuantizer current(Get("h100-fp8-current").role(TargetRole::kActivation));
  EXPECT_FALSE(current.delayed());
  current.Observe(8.0f);  // nothing to keep
  EXPECT_EQ(current.Quantize(c.data(), 1, 64, {}, out.data(), nullptr), 448.0f / 2.0f);
}

TEST(Target, CopiedRoleQuantizerContinuesItsOwnHistory) {
  RoleQuantizer q(Get("h100-fp8-delayed").role(TargetRole::kActivation));
  std::vector<float> c(64, 2.0f), out(64);
  q.Observe(8.0f);
  RoleQuantizer copy(q);
  copy.Observe(64.0f);  // only the copy's history holds 64
  EXPECT_EQ(copy.Quantize(c.data(), 1, 64, {}, out.data(), nullptr), 448.0f / 64.0f);
  EXPECT_EQ(q.Quantize(c.data(), 1, 64, {}, out.data(), nullptr), 448.0f / 8.0f);
}

TEST(Target, RecordRolesMapToTargetRoles) {
  EXPECT_EQ(ToTargetRole(Role::kActivation), TargetRole::kActivation);
  EXPECT_EQ(ToTargetRole(Role::kActivationGrad), TargetRole::kActivationGrad);
  EXPECT_EQ(ToTargetRole(Role::kWeight), TargetRole::kWeight);
  EXPECT_EQ(ToTargetRole(Role::kWeightGrad), TargetRole::kWeightGrad);
  EXPECT_EQ(ToTargetRole(Role::kOptimizerState), TargetRole::kOptimizerState);
}

}  // namespace
}  // namespace lpsim
