// lpsim::Linear and lpsim::Conv2d (tracker/layers.h): without a unit they are
// torch's layers bit for bit; on a unit their forward product and both
// backward products are mmu::Gemm's bit for bit; the tracker sets the unit
// from TrackerOptions or the target and rejects what cannot run; the demo
// models built from them train on every fp8 unit close to fp32.
//
// LayersTrain.* trains the MLP demo for a short run on each fp8 unit (the
// default suite); LayersLong.* (label simulate_long) trains both demo models
// for 200 steps on each.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/target.h"
#include "tracker/demo.h"
#include "tracker/layers.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;
namespace F = torch::nn::functional;

// Formats of the operands, as simulate mode's defaults.
constexpr const char* kAct = "e4m3fn";
constexpr const char* kGrad = "e5m2";
// Largest magnitudes that keep each operand's power-of-two scale at 1:
// e4m3fn's max is 448, e5m2's 57344 (scale 1 while amax is in (max/2, max]).
constexpr float kActAmax = 300.0f;
constexpr float kGradAmax = 40000.0f;

bool BitEqual(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.defined() || !b.defined() || a.sizes() != b.sizes()) return false;
  const torch::Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data_ptr<float>(), y.data_ptr<float>(), x.numel() * sizeof(float)) == 0;
}

// Uniform values in [-amax, amax) with one element exactly amax.
torch::Tensor Random(std::vector<int64_t> shape, float amax) {
  torch::Tensor t = (torch::rand(shape) * 2 - 1) * amax;
  t.view({-1})[0] = amax;
  return t;
}

mmu::GemmConfig Config(const std::string& unit, const std::string& a, const std::string& b) {
  StatusOr<mmu::GemmConfig> c = mmu::MakeGemmConfig(unit, a, b, "fp32");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.value();
}

// d[m,n] = a[m,k] b[k,n] on cfg's unit.
torch::Tensor Gemm(const mmu::GemmConfig& cfg, const torch::Tensor& a, const torch::Tensor& b) {
  const torch::Tensor ac = a.contiguous(), bc = b.contiguous();
  torch::Tensor d = torch::empty({a.size(0), b.size(1)});
  mmu::Gemm(cfg, a.size(0), b.size(1), a.size(1), ac.data_ptr<float>(), bc.data_ptr<float>(),
            nullptr, d.data_ptr<float>(), nullptr);
  return d;
}

c10::intrusive_ptr<UnitGemms> Gemms(const std::string& unit) {
  StatusOr<c10::intrusive_ptr<UnitGemms>> g = MakeUnitGemms(unit, kAct, kAct, kGrad);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.value();
}

const char* const kFp8Units[] = {"h100", "h200", "b200", "mi300", "h100-promote128", "l40s"};

TEST(Layers, LinearWithoutUnitIsTorchLinear) {
  torch::manual_seed(7);
  torch::nn::Linear ref(torch::nn::LinearOptions(19, 6));
  torch::manual_seed(7);
  Linear lin(torch::nn::LinearOptions(19, 6));
  ASSERT_TRUE(BitEqual(ref->weight, lin->weight));
  ASSERT_TRUE(BitEqual(ref->bias, lin->bias));
  const torch::Tensor x = torch::randn({2, 5, 19});
  const torch::Tensor xr = x.clone().requires_grad_(), xl = x.clone().requires_grad_();
  const torch::Tensor yr = ref->forward(xr), yl = lin->forward(xl);
  EXPECT_TRUE(BitEqual(yr, yl));
  const torch::Tensor g = torch::randn(yr.sizes());
  yr.backward(g);
  yl.backward(g);
  EXPECT_TRUE(BitEqual(xr.grad(), xl.grad()));
  EXPECT_TRUE(BitEqual(ref->weight.grad(), lin->weight.grad()));
  EXPECT_TRUE(BitEqual(ref->bias.grad(), lin->bias.grad()));
  EXPECT_EQ(ModuleTypeName(*lin), "Linear");
}

TEST(Layers, Conv2dWithoutUnitIsTorchConv2d) {
  const auto opts = torch::nn::Conv2dOptions(3, 4, 3).padding(1).stride(2);
  torch::manual_seed(9);
  torch::nn::Conv2d ref(opts);
  torch::manual_seed(9);
  Conv2d conv(opts);
  ASSERT_TRUE(BitEqual(ref->weight, conv->weight));
  const torch::Tensor x = torch::randn({2, 3, 7, 7});
  const torch::Tensor xr = x.clone().requires_grad_(), xc = x.clone().requires_grad_();
  const torch::Tensor yr = ref->forward(xr), yc = conv->forward(xc);
  EXPECT_TRUE(BitEqual(yr, yc));
  const torch::Tensor g = torch::randn(yr.sizes());
  yr.backward(g);
  yc.backward(g);
  EXPECT_TRUE(BitEqual(xr.grad(), xc.grad()));
  EXPECT_TRUE(BitEqual(ref->weight.grad(), conv->weight.grad()));
  EXPECT_TRUE(BitEqual(ref->bias.grad(), conv->bias.grad()));
}

// Forward and both gradients against mmu::Gemm on the same inputs, with
// operands whose scale is 1 (so the unit sees them as given).
TEST(Layers, LinearOnUnitIsTheUnitsGemm) {
  for (const char* unit : kFp8Units) {
    SCOPED_TRACE(unit);
    torch::manual_seed(3);
    Linear lin(torch::nn::LinearOptions(40, 6).bias(false));
    ASSERT_TRUE(lin->set_unit(Gemms(unit)).ok());
    {
      torch::NoGradGuard no_grad;
      lin->weight.copy_(Random({6, 40}, kActAmax));
    }
    const torch::Tensor x = Random({5, 40}, kActAmax).requires_grad_();
    const torch::Tensor y = lin->forward(x);
    const torch::Tensor w = lin->weight.detach();
    EXPECT_TRUE(BitEqual(y, Gemm(Config(unit, kAct, kAct), x.detach(), w.t())));
    // The inputs are off the fp8 grid: the unit's products are not fp32's.
    EXPECT_FALSE(BitEqual(y, torch::mm(x.detach(), w.t())));

    const torch::Tensor gy = Random({5, 6}, kGradAmax);
    y.backward(gy);
    EXPECT_TRUE(BitEqual(x.grad(), Gemm(Config(unit, kGrad, kAct), gy, w)));
    EXPECT_TRUE(BitEqual(lin->weight.grad(), Gemm(Config(unit, kGrad, kAct), gy.t(), x.detach())));
  }
}

// An operand of small magnitude is scaled up by a power of two before the
// unit and the result scaled back: amax 2.5 in e4m3fn (max 448) takes 2^7.
TEST(Layers, SmallOperandsAreScaledByAPowerOfTwo) {
  const torch::Tensor x = Random({4, 33}, 2.5f);
  const torch::Tensor w = Random({3, 33}, kActAmax);
  const torch::Tensor y = UnitMatmul(x, w, Gemms("h100"));
  const torch::Tensor expected = Gemm(Config("h100", kAct, kAct), x * 128.0f, w.t()) / 128.0f;
  EXPECT_TRUE(BitEqual(y, expected));
}

TEST(Layers, Conv2dOnUnitIsTheUnitsGemmOnUnfoldedInput) {
  for (const char* unit : {"h100", "b200"}) {
    SCOPED_TRACE(unit);
    const auto unfold = F::UnfoldFuncOptions(3).padding(1).stride(1);
    Conv2d conv(torch::nn::Conv2dOptions(3, 4, 3).padding(1).bias(false));
    ASSERT_TRUE(conv->set_unit(Gemms(unit)).ok());
    {
      torch::NoGradGuard no_grad;
      conv->weight.copy_(Random({4, 3, 3, 3}, kActAmax));
    }
    const torch::Tensor x = Random({2, 3, 5, 5}, kActAmax).requires_grad_();
    const torch::Tensor y = conv->forward(x);
    ASSERT_EQ(y.sizes(), (std::vector<int64_t>{2, 4, 5, 5}));

    // im2col: one row of 27 per output position, 2 x 25 rows.
    const torch::Tensor rows = F::unfold(x.detach(), unfold).transpose(1, 2).reshape({50, 27});
    const torch::Tensor w2 = conv->weight.detach().reshape({4, 27});
    const torch::Tensor y_rows = Gemm(Config(unit, kAct, kAct), rows, w2.t());
    EXPECT_TRUE(BitEqual(y, y_rows.view({2, 25, 4}).transpose(1, 2).reshape({2, 4, 5, 5})));

    const torch::Tensor gy = Random({2, 4, 5, 5}, kGradAmax);
    y.backward(gy);
    const torch::Tensor gy_rows = gy.reshape({2, 4, 25}).transpose(1, 2).reshape({50, 4});
    const torch::Tensor dw = Gemm(Config(unit, kGrad, kAct), gy_rows.t(), rows);
    EXPECT_TRUE(BitEqual(conv->weight.grad(), dw.view({4, 3, 3, 3})));
    // The input gradient: the unit's dX rows folded back (col2im, fp32 sums).
    const torch::Tensor dcols = Gemm(Config(unit, kGrad, kAct), gy_rows, w2);
    const torch::Tensor dx = F::fold(dcols.view({2, 25, 27}).transpose(1, 2),
                                     F::FoldFuncOptions({5, 5}, 3).padding(1).stride(1));
    EXPECT_TRUE(BitEqual(x.grad(), dx));
  }
}

TEST(Layers, Conv2dRefusesGroupsOnAUnit) {
  Conv2d conv(torch::nn::Conv2dOptions(4, 4, 3).groups(2));
  const Status s = conv->set_unit(Gemms("h100"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("groups"), std::string::npos) << s.message();
  EXPECT_TRUE(conv->set_unit({}).ok());  // plain torch is always possible
}

TEST(Layers, UnitMustTakeTheFormats) {
  StatusOr<c10::intrusive_ptr<UnitGemms>> g = MakeUnitGemms("h100", "e4m3fn", "e4m3fn", "fp32");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("input gradient"), std::string::npos) << g.status().message();
  EXPECT_FALSE(MakeUnitGemms("no-such-unit", kAct, kAct, kGrad).ok());
}

std::string TempDir(const std::string& tag) {
  const fs::path dir =
      fs::temp_directory_path() / ("lpsim_layers_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

struct Net {
  TrackedSequential seq;
  Linear fc;
  std::unique_ptr<torch::optim::SGD> opt;
};

Net MakeNet() {
  Net n{TrackedSequential(), Linear(8, 4), nullptr};
  n.seq->push_back("fc", n.fc);
  n.opt = std::make_unique<torch::optim::SGD>(n.seq->parameters(), torch::optim::SGDOptions(0.1));
  return n;
}

StatusOr<std::unique_ptr<Tracker>> Track(Net& n, TrackerOptions o, const std::string& tag) {
  o.run_dir = TempDir(tag);
  o.formats = {"e4m3fn"};
  return Tracker::Create(*n.seq, *n.opt, o);
}

TEST(LayersTracker, SetsTheUnitOfItsOptions) {
  Net n = MakeNet();
  TrackerOptions o;
  o.simulate = true;
  o.matmul_unit = "b200";
  StatusOr<std::unique_ptr<Tracker>> t = Track(n, o, "opt");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_TRUE(n.fc->unit());
  EXPECT_EQ(n.fc->unit()->unit, "b200");
  EXPECT_EQ(n.fc->unit()->grad_input.formats.a.name(), "e5m2");
  EXPECT_TRUE((*t)->Close().ok());
  EXPECT_TRUE(n.fc->unit());  // until the tracker is gone
  t.value().reset();
  EXPECT_FALSE(n.fc->unit());  // plain torch again
  fs::remove_all(TempDir("opt"));
}

TEST(LayersTracker, TakesTheTargetsUnitAndFormats) {
  Net n = MakeNet();
  TrackerOptions o;
  o.simulate = true;
  o.target = "mi300-fp8";
  StatusOr<std::unique_ptr<Tracker>> t = Track(n, o, "target");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_TRUE(n.fc->unit());
  EXPECT_EQ(n.fc->unit()->unit, "mi300");
  EXPECT_EQ(n.fc->unit()->forward.formats.a.name().substr(0, 8), "e4m3fnuz");
  EXPECT_TRUE((*t)->Close().ok());
  fs::remove_all(TempDir("target"));
}

// A layer that cannot take the unit fails the tracker, and the layers that
// took it before go back to plain torch.
TEST(LayersTracker, ALayerThatCannotRunFailsTheTracker) {
  TrackedSequential seq;
  Linear fc(27, 4);
  Conv2d grouped(torch::nn::Conv2dOptions(4, 4, 3).groups(2));
  seq->push_back("fc", fc);
  seq->push_back("grouped", grouped);
  torch::optim::SGD opt(seq->parameters(), torch::optim::SGDOptions(0.1));
  TrackerOptions o;
  o.simulate = true;
  o.matmul_unit = "h100";
  o.run_dir = TempDir("grouped");
  o.formats = {"e4m3fn"};
  StatusOr<std::unique_ptr<Tracker>> t = Tracker::Create(*seq, opt, o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("layer 'grouped'"), std::string::npos) << t.status().message();
  EXPECT_FALSE(fc->unit());
  EXPECT_FALSE(fs::exists(fs::path(o.run_dir) / "run.db"));  // nothing half-written
  fs::remove_all(o.run_dir);
}

TEST(LayersTracker, RejectsWhatCannotRun) {
  struct Case {
    std::string unit, target;
    bool simulate;
    std::string expect;
  };
  const Case cases[] = {
      {"no-such-unit", "", true, "TrackerOptions.matmul_unit"},
      {"h100", "", false, "simulate mode only"},
      {"h100", "int8-npu", true, "float formats only"},
      {"v100", "", true, "does not take inputs"},  // v100 has no fp8
  };
  for (const Case& c : cases) {
    Net n = MakeNet();
    TrackerOptions o;
    o.simulate = c.simulate;
    o.matmul_unit = c.unit;
    o.target = c.target;
    const std::string dir = TempDir("bad");
    StatusOr<std::unique_ptr<Tracker>> t = Track(n, o, "bad");
    ASSERT_FALSE(t.ok()) << c.unit << " " << c.target;
    EXPECT_NE(t.status().message().find(c.expect), std::string::npos) << t.status().message();
    EXPECT_FALSE(fs::exists(fs::path(dir) / "run.db"));  // nothing half-written
    EXPECT_FALSE(n.fc->unit());
  }
}

// Every built-in target names a unit of mmu/ that takes its role formats, or
// none.
TEST(LayersTracker, BuiltinTargetUnitsAreModelled) {
  StatusOr<std::vector<Target>> all = BuiltinTargets();
  ASSERT_TRUE(all.ok()) << all.status().message();
  int with_unit = 0;
  for (const Target& t : *all) {
    const std::string& unit = t.role(TargetRole::kActivation).matmul_unit;
    EXPECT_EQ(t.role(TargetRole::kWeight).matmul_unit, unit) << t.name;
    EXPECT_EQ(t.role(TargetRole::kActivationGrad).matmul_unit, unit) << t.name;
    if (unit.empty()) continue;
    ++with_unit;
    StatusOr<c10::intrusive_ptr<UnitGemms>> g =
        MakeUnitGemms(unit, t.role(TargetRole::kActivation).format.name(),
                      t.role(TargetRole::kWeight).format.name(),
                      t.role(TargetRole::kActivationGrad).format.name());
    EXPECT_TRUE(g.ok()) << t.name << ": " << g.status().message();
  }
  EXPECT_GE(with_unit, 5);  // h100 x2, b200, deepseek (h100-promote128), mi300
}

// Training: the final loss on a unit may exceed fp32's by this share of it
// plus the absolute slack (as tests/tracker/simulate_test.cc bounds simulate
// mode's fake quantization alone).
constexpr double kFinalLossRelTolerance = 0.5;
constexpr double kFinalLossAbsTolerance = 0.1;
// The mean training loss over the run (the area under the loss curve, which
// sees the whole trajectory and not only its end) within this share of
// fp32's.
constexpr double kMeanLossRelTolerance = 0.1;
constexpr int kShortSteps = 60;
constexpr int kLongSteps = 200;

DemoResult Train(const std::string& model, const std::string& unit, int steps) {
  DemoOptions o;
  o.model = model;
  o.steps = steps;
  o.simulate = !unit.empty();
  o.matmul_unit = unit;
  o.progress = false;
  o.formats = {"e4m3fn"};
  o.every = 50;
  o.run_dir = TempDir(model + "_" + (unit.empty() ? "fp32" : unit));
  StatusOr<DemoResult> r = RunDemo(o, nullptr);
  EXPECT_TRUE(r.ok()) << r.status().message();
  fs::remove_all(o.run_dir);
  return r.ok() ? r.value() : DemoResult{};
}

double MeanLoss(const DemoResult& r) {
  double sum = 0;
  for (double l : r.losses) sum += l;
  return r.losses.empty() ? 0.0 : sum / r.losses.size();
}

void ExpectTrainsOnEveryUnit(const std::string& model, int steps) {
  const DemoResult fp32 = Train(model, "", steps);
  ASSERT_TRUE(std::isfinite(fp32.final_loss));
  ASSERT_LT(fp32.final_loss, fp32.first_loss);
  for (const char* unit : kFp8Units) {
    const DemoResult r = Train(model, unit, steps);
    std::printf("%s %s: loss %.4f -> %.4f (fp32 %.4f), mean %.4f (fp32 %.4f), %.2f s\n",
                model.c_str(), unit, r.first_loss, r.final_loss, fp32.final_loss, MeanLoss(r),
                MeanLoss(fp32), r.seconds);
    ASSERT_EQ(r.losses.size(), static_cast<size_t>(steps)) << unit;
    EXPECT_NEAR(MeanLoss(r), MeanLoss(fp32), kMeanLossRelTolerance * MeanLoss(fp32)) << unit;
    EXPECT_EQ(r.skipped_steps, 0) << unit;
    EXPECT_LT(r.final_loss, r.first_loss) << unit;
    EXPECT_LE(r.final_loss,
              fp32.final_loss * (1 + kFinalLossRelTolerance) + kFinalLossAbsTolerance)
        << unit;
  }
}

TEST(LayersTrain, MlpShortRunOnEveryFp8Unit) { ExpectTrainsOnEveryUnit("mlp", kShortSteps); }

TEST(LayersLong, MlpOnEveryFp8Unit) { ExpectTrainsOnEveryUnit("mlp", kLongSteps); }
TEST(LayersLong, CnnOnEveryFp8Unit) { ExpectTrainsOnEveryUnit("cnn", kLongSteps); }

}  // namespace
}  // namespace lpsim
