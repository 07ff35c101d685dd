// SmallSampleFit: a model that can fit a few examples is clean; models that
// cannot (softmax applied twice, a loss that cancels itself, a linear model
// on XOR) get a cannot_fit_small_sample finding with its evidence; the
// caller's RNG stream and model are untouched; bad input is a Status.
// Also: per-neuron summaries of real activations (dead ReLU, saturated tanh)
// drive the per-neuron rules.
#include "tracker/small_sample.h"

#include <gtest/gtest.h>

#include "checks/checker.h"
#include "checks/neurons.h"
#include "simd/analyze.h"
#include "tracker/demo.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

// 4 well-separated clusters in 8-D, 16 examples each.
std::pair<torch::Tensor, torch::Tensor> Clusters() {
  torch::manual_seed(7);
  torch::Tensor centers = 3 * torch::randn({4, 8});
  torch::Tensor y = torch::arange(64, torch::kLong) % 4;
  torch::Tensor x = centers.index_select(0, y) + 0.3 * torch::randn({64, 8});
  return {x, y};
}

TrackedSequential Mlp(bool relu = true) {
  TrackedSequential m;
  m->push_back("fc1", nn::Linear(8, 32));
  if (relu) m->push_back("act1", nn::ReLU());
  m->push_back("out", nn::Linear(32, 4));
  return m;
}

torch::Tensor Ce(const torch::Tensor& out, const torch::Tensor& y) { return F::cross_entropy(out, y); }

TEST(SmallSample, HealthyModelFits) {
  auto [x, y] = Clusters();
  StatusOr<SmallSampleResult> r = SmallSampleFit<TrackedSequential>([] { return Mlp(); }, Ce, x, y);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->fits);
  EXPECT_FALSE(r->finding.has_value());
  EXPECT_TRUE(r->classification);
  EXPECT_EQ(r->examples, 16);  // 4 per class, 4 classes
  EXPECT_EQ(r->classes, 4);
  EXPECT_GE(r->accuracy, 0.95);
  EXPECT_LE(r->min_loss, 0.1 * r->initial_loss);
  EXPECT_LT(r->steps, 300);  // stops as soon as it fits
}

TEST(SmallSample, SoftmaxTwiceCannotFit) {
  // cross_entropy over probabilities: the loss cannot go below ~0.74 for 4
  // classes (softmax of values in [0, 1]), so it never falls to 10%.
  auto [x, y] = Clusters();
  auto make = [] {
    TrackedSequential m = Mlp();
    m->push_back("softmax", nn::Softmax(1));
    return m;
  };
  StatusOr<SmallSampleResult> r = SmallSampleFit<TrackedSequential>(make, Ce, x, y);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->fits);
  ASSERT_TRUE(r->finding.has_value());
  const Finding& f = *r->finding;
  EXPECT_EQ(f.rule, "cannot_fit_small_sample");
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(r->steps, 300);
  EXPECT_GT(f.evidence.at("min_loss"), 0.1 * f.evidence.at("initial_loss"));
  for (const char* k : {"initial_loss", "final_loss", "accuracy", "steps", "examples"}) {
    EXPECT_TRUE(f.evidence.count(k)) << k;
  }
  EXPECT_NE(f.message.find("softmax applied twice"), std::string::npos) << f.message;
}

TEST(SmallSample, LossThatCancelsCannotFit) {
  auto [x, y] = Clusters();
  StatusOr<SmallSampleResult> r = SmallSampleFit<TrackedSequential>(
      [] { return Mlp(); }, [](const torch::Tensor& o, const torch::Tensor& t) { return Ce(o, t) - Ce(o, t); },
      x, y);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->finding.has_value());
  EXPECT_LT(r->accuracy, 0.95);
  EXPECT_NE(r->finding->message.find("accuracy"), std::string::npos);
}

TEST(SmallSample, LinearModelCannotFitXor) {
  torch::manual_seed(3);
  torch::Tensor x = torch::rand({256, 2}) * 2 - 1;
  torch::Tensor y = (x.select(1, 0) * x.select(1, 1) > 0).to(torch::kLong);
  SmallSampleOptions o;
  o.per_class = 16;
  auto linear = [] {
    TrackedSequential m;
    m->push_back("fc1", nn::Linear(2, 16));
    m->push_back("out", nn::Linear(16, 2));
    return m;
  };
  StatusOr<SmallSampleResult> r = SmallSampleFit<TrackedSequential>(linear, Ce, x, y, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->examples, 32);
  EXPECT_TRUE(r->finding.has_value());
  // With the activation it fits.
  auto mlp = [] {
    TrackedSequential m;
    m->push_back("fc1", nn::Linear(2, 32));
    m->push_back("act1", nn::Tanh());
    m->push_back("out", nn::Linear(32, 2));
    return m;
  };
  o.max_steps = 1000;
  r = SmallSampleFit<TrackedSequential>(mlp, Ce, x, y, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->fits) << r->finding->message;
}

TEST(SmallSample, KeepsTheCallersRngStream) {
  auto [x, y] = Clusters();
  torch::manual_seed(11);
  const torch::Tensor expected = torch::randn({4});
  torch::manual_seed(11);
  ASSERT_TRUE(SmallSampleFit<TrackedSequential>([] { return Mlp(); }, Ce, x, y).ok());
  EXPECT_TRUE(torch::equal(torch::randn({4}), expected));
}

TEST(SmallSample, GenericFactoryAndRegressionTargets) {
  torch::manual_seed(5);
  torch::Tensor x = torch::randn({40, 3});
  torch::Tensor y = x.matmul(torch::tensor({1.0f, -2.0f, 0.5f})).unsqueeze(1);
  auto make = []() -> std::shared_ptr<nn::Module> { return nn::Linear(3, 1).ptr(); };
  auto fwd = [](nn::Module& m, const torch::Tensor& in) { return dynamic_cast<nn::LinearImpl&>(m).forward(in); };
  SmallSampleOptions o;
  o.max_steps = 1000;
  StatusOr<SmallSampleResult> r = SmallSampleFit(
      make, fwd, [](const torch::Tensor& out, const torch::Tensor& t) { return F::mse_loss(out, t); }, x, y, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->classification);
  EXPECT_EQ(r->examples, 16);
  EXPECT_TRUE(r->fits);
}

TEST(SmallSample, BadInputIsAStatus) {
  auto [x, y] = Clusters();
  EXPECT_FALSE(SmallSampleFit<TrackedSequential>([] { return Mlp(); }, Ce, x, y.slice(0, 0, 10)).ok());
  // A model that does not match the inputs: LibTorch's error, as a Status.
  auto wrong = [] {
    TrackedSequential m;
    m->push_back("fc1", nn::Linear(5, 4));
    return m;
  };
  StatusOr<SmallSampleResult> r = SmallSampleFit<TrackedSequential>(wrong, Ce, x, y);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("LibTorch"), std::string::npos);
}

TEST(SmallSample, OptionsFromConfigMatchTheDefaults) {
  const SmallSampleOptions d;
  const SmallSampleOptions c = SmallSampleOptions::FromConfig(CheckConfig::Defaults());
  EXPECT_EQ(c.per_class, d.per_class);
  EXPECT_EQ(c.max_examples, d.max_examples);
  EXPECT_EQ(c.max_steps, d.max_steps);
  EXPECT_EQ(c.min_accuracy, d.min_accuracy);
  EXPECT_EQ(c.max_loss_ratio, d.max_loss_ratio);
  EXPECT_EQ(c.severity, d.severity);
}

// Per-neuron summaries of real activations: a ReLU layer with half its
// neurons pushed dead by their bias, and a tanh layer driven into its flat
// ends, judged by the rules over a window of 10 batches.
TEST(NeuronRules, RealActivationsDeadAndSaturated) {
  torch::manual_seed(2);
  nn::Linear fc(8, 16);
  {
    torch::NoGradGuard g;
    fc->bias.slice(0, 0, 12).fill_(-100);  // 12 of 16 neurons dead
  }
  Checker c;
  for (int64_t s = 0; s < 10; ++s) {
    torch::NoGradGuard g;
    torch::Tensor x = torch::randn({32, 8});
    torch::Tensor relu = torch::relu(fc->forward(x)).contiguous();
    torch::Tensor conv_like = torch::tanh(20 * torch::randn({4, 6, 5, 5})).contiguous();  // [N, C, H, W]
    for (auto [name, t, type] : {std::make_tuple("relu", relu, "ReLU"), std::make_tuple("tanh", conv_like, "Tanh")}) {
      TensorRecord r;
      r.step = s;
      r.name = name;
      r.role = Role::kActivation;
      r.shape = t.sizes().vec();
      r.module_type = type;
      r.stats.count = static_cast<uint64_t>(t.numel());
      r.stats.min = t.min().item<float>();
      r.stats.max = t.max().item<float>();
      r.neurons = SummarizeNeurons(t.data_ptr<float>(), r.shape, type, 1e-5);
      ASSERT_TRUE(r.neurons.has_value());
      c.Add(r);
    }
    c.EndStep(s);
  }
  ASSERT_EQ(c.findings().size(), 2u);
  for (const Finding& f : c.findings()) {
    EXPECT_EQ(f.step, 9);
    EXPECT_EQ(f.evidence.at("per_neuron"), 1);
    if (f.rule == "dead_relu") {
      EXPECT_EQ(f.evidence.at("dead_neurons"), 12);
      EXPECT_EQ(f.evidence.at("neurons"), 16);
    } else {
      EXPECT_EQ(f.rule, "activation_saturation");
      EXPECT_EQ(f.evidence.at("neurons"), 6);  // channels of [N, C, H, W]
      EXPECT_EQ(f.evidence.at("saturated_neurons"), 6);
    }
  }
}

// Trains `model` (no tracker) with Adam and, every step, gives the output of
// each ReLU/Sigmoid/Tanh child with its per-neuron summary to a Checker that
// has only the per-neuron rules on: what the tracker's records carry.
std::vector<Finding> TrainWithNeuronRules(TrackedSequential model,
                                          std::function<std::pair<torch::Tensor, torch::Tensor>()> data,
                                          double lr, int steps) {
  CheckConfig cfg = CheckConfig::Defaults();
  for (auto& [name, rule] : cfg.rules) rule.enabled = name == "dead_relu" || name == "activation_saturation";
  Checker checker(cfg);
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr));
  const auto children = model->named_children();
  for (int s = 0; s < steps; ++s) {
    auto [x, y] = data();
    opt.zero_grad();
    torch::Tensor h = x;
    size_t i = 0;
    for (auto it = model->begin(); it != model->end(); ++it, ++i) {
      h = it->forward(h);
      const std::string type = ModuleTypeName(*children[i].value());
      if (!NeuronRuleFor(type)) continue;
      const torch::Tensor d = h.detach().contiguous();
      TensorRecord r;
      r.step = s;
      r.name = children[i].key();
      r.role = Role::kActivation;
      r.shape = d.sizes().vec();
      r.module_type = type;
      r.stats = simd::Analyze(d.data_ptr<float>(), static_cast<size_t>(d.numel()), {}).stats;
      r.neurons = SummarizeNeurons(d.data_ptr<float>(), r.shape, type, cfg.activations.dead_relu.zero_threshold);
      checker.Add(r);
    }
    F::cross_entropy(h, y).backward();
    opt.step();
    checker.EndStep(s);
  }
  return checker.findings();
}

std::string Dump(const std::vector<Finding>& fs) {
  std::string out;
  for (const Finding& f : fs) out += f.rule + "@" + std::to_string(f.step) + " " + f.tensor + ": " + f.message + "\n";
  return out;
}

TrackedSequential DemoMlp(int64_t in, int64_t hidden, int64_t out, const char* act, int layers = 1) {
  TrackedSequential m;
  int64_t width = in;
  for (int i = 1; i <= layers; ++i) {
    m->push_back("fc" + std::to_string(i), nn::Linear(width, hidden));
    if (std::string(act) == "relu") m->push_back("act" + std::to_string(i), nn::ReLU());
    if (std::string(act) == "tanh") m->push_back("act" + std::to_string(i), nn::Tanh());
    if (std::string(act) == "sigmoid") m->push_back("act" + std::to_string(i), nn::Sigmoid());
    width = hidden;
  }
  m->push_back("out", nn::Linear(width, out));
  return m;
}

// The healthy programs of the fault suite (examples/faults/), judged per
// neuron: no false alarm; the negative-bias program's first layer is dead.
TEST(NeuronRules, SilentOnHealthyTrainingAndFireOnADeadLayer) {
  torch::manual_seed(1);
  auto clusters = std::make_shared<DemoTask>("mlp");
  auto batch = [clusters] { return clusters->Batch(64); };
  EXPECT_TRUE(TrainWithNeuronRules(DemoMlp(32, 64, 10, "relu"), batch, 1e-3, 120).empty());
  const std::vector<Finding> tanh = TrainWithNeuronRules(DemoMlp(32, 64, 10, "tanh", 2), batch, 1e-3, 120);
  EXPECT_TRUE(tanh.empty()) << Dump(tanh);
  const std::vector<Finding> sig = TrainWithNeuronRules(DemoMlp(32, 64, 10, "sigmoid"), batch, 3e-3, 120);
  EXPECT_TRUE(sig.empty()) << Dump(sig);
  auto xor_batch = [] {
    torch::Tensor x = torch::rand({128, 2}) * 2 - 1;
    return std::make_pair(x, (x.select(1, 0) * x.select(1, 1) > 0).to(torch::kLong));
  };
  const std::vector<Finding> xr = TrainWithNeuronRules(DemoMlp(2, 32, 2, "relu", 2), xor_batch, 3e-3, 150);
  EXPECT_TRUE(xr.empty()) << Dump(xr);
  auto images = std::make_shared<DemoTask>("cnn");
  const std::vector<Finding> cnn =
      TrainWithNeuronRules(images->MakeModel(), [images] { return images->Batch(32); }, 3e-3, 80);
  EXPECT_TRUE(cnn.empty()) << Dump(cnn);

  TrackedSequential dead = DemoMlp(32, 64, 10, "relu");
  {
    torch::NoGradGuard g;
    for (const auto& p : dead->named_parameters()) {
      if (p.key() == "fc1.bias") p.value().fill_(-100);
    }
  }
  const std::vector<Finding> d = TrainWithNeuronRules(dead, batch, 1e-3, 60);
  ASSERT_EQ(d.size(), 1u) << Dump(d);
  EXPECT_EQ(d[0].rule, "dead_relu");
  EXPECT_EQ(d[0].tensor, "act1");
  EXPECT_EQ(d[0].step, 9);
  EXPECT_EQ(d[0].evidence.at("dead_neurons"), 64);
}

}  // namespace
}  // namespace lpsim
