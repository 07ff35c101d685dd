// What tracking costs a training step: the demo MLP and CNN, a small
// transformer language model and a residual CNN, trained with no tracker,
// with every tensor of every role tracked in three formats plus a hardware
// target's every step and every 10 steps, and in simulate mode. The ratios
// to the untracked row of the same model in one run are the figures that
// matter (README "Tracking overhead"); peak_rss_mib is the process's peak
// resident set during that benchmark alone.
//
//   build/bin/lpsim_tracker_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "benchmarks/train_step.h"
#include "tracker/demo.h"
#include "tracker/tracker.h"

namespace lpsim {
namespace {

// ---- Models people train, at a size one core steps in about a second.

// Gives every block the tracker and its taps' prefix, "blockN.".
template <typename Blocks>
void TrackBlocks(Blocks& blocks, Tracker* t) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    blocks[i]->tracker = t;
    blocks[i]->prefix = "block" + std::to_string(i) + ".";
  }
}

// A pre-norm decoder block: causal self-attention and a 4x MLP, each tap
// named after the block.
struct BlockImpl : torch::nn::Module {
  BlockImpl(int64_t d, int64_t heads) : heads(heads) {
    ln1 = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
    ln2 = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
    qkv = register_module("qkv", torch::nn::Linear(d, 3 * d));
    proj = register_module("proj", torch::nn::Linear(d, d));
    fc1 = register_module("fc1", torch::nn::Linear(d, 4 * d));
    fc2 = register_module("fc2", torch::nn::Linear(4 * d, d));
  }
  torch::Tensor Tap(const std::string& name, const torch::Tensor& x, const std::string& type) {
    return tracker ? tracker->tap(prefix + name, x, type) : x;
  }
  torch::Tensor forward(torch::Tensor x, const torch::Tensor& mask) {
    const int64_t b = x.size(0), t = x.size(1), d = x.size(2), hd = d / heads;
    auto split = Tap("qkv", qkv(ln1(x)), "Linear").view({b, t, 3, heads, hd}).permute({2, 0, 3, 1, 4});
    torch::Tensor att = torch::matmul(split[0], split[1].transpose(-2, -1)) / std::sqrt(double(hd));
    att = Tap("attn", torch::softmax(att.masked_fill(mask, -1e9), -1), "Softmax");
    torch::Tensor y = torch::matmul(att, split[2]).transpose(1, 2).reshape({b, t, d});
    x = x + Tap("proj", proj(y), "Linear");
    torch::Tensor h = Tap("fc1", torch::gelu(fc1(ln2(x))), "GELU");
    return x + Tap("fc2", fc2(h), "Linear");
  }
  int64_t heads;
  torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  torch::nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
  Tracker* tracker = nullptr;
  std::string prefix;
};
TORCH_MODULE(Block);

// 4 layers, d = 256, 4 heads, sequences of 128 tokens over a 512-token vocabulary.
struct TinyLmImpl : torch::nn::Module {
  static constexpr int64_t kVocab = 512, kD = 256, kLayers = 4, kHeads = 4, kSeq = 128;
  TinyLmImpl() {
    tok = register_module("tok", torch::nn::Embedding(kVocab, kD));
    pos = register_parameter("pos", torch::randn({kSeq, kD}) * 0.02);
    for (int64_t i = 0; i < kLayers; ++i) {
      blocks.push_back(register_module("block" + std::to_string(i), Block(kD, kHeads)));
    }
    ln = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({kD})));
    head = register_module("head", torch::nn::Linear(kD, kVocab));
  }
  void SetTracker(Tracker* t) {
    tracker = t;
    TrackBlocks(blocks, t);
  }
  // tokens [B, T] -> logits [B * T, vocab]
  torch::Tensor forward(const torch::Tensor& tokens) {
    const int64_t t = tokens.size(1);
    torch::Tensor x = tok(tokens) + pos.slice(0, 0, t);
    const torch::Tensor mask = torch::ones({t, t}, torch::kBool).triu(1);
    for (Block& b : blocks) x = b->forward(x, mask);
    torch::Tensor logits = head(ln(x));
    if (tracker) logits = tracker->tap("head", logits, "Linear");
    return logits.reshape({-1, kVocab});
  }
  torch::nn::Embedding tok{nullptr};
  torch::Tensor pos;
  std::vector<Block> blocks;
  torch::nn::LayerNorm ln{nullptr};
  torch::nn::Linear head{nullptr};
  Tracker* tracker = nullptr;
};
TORCH_MODULE(TinyLm);

// ResNet-style for 32x32x3 inputs: a stem, three stages of two basic blocks
// (16, 32, 64 channels; stride 2 between stages), global pooling, 10 classes.
struct ResBlockImpl : torch::nn::Module {
  ResBlockImpl(int64_t in, int64_t out, int64_t stride) {
    c1 = register_module("c1", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
    b1 = register_module("b1", torch::nn::BatchNorm2d(out));
    c2 = register_module("c2", torch::nn::Conv2d(torch::nn::Conv2dOptions(out, out, 3).padding(1).bias(false)));
    b2 = register_module("b2", torch::nn::BatchNorm2d(out));
    if (stride != 1 || in != out) {
      down = register_module("down", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
    }
  }
  torch::Tensor Tap(const std::string& name, const torch::Tensor& x, const std::string& type) {
    return tracker ? tracker->tap(prefix + name, x, type) : x;
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("relu1", torch::relu(b1(c1(x))), "ReLU");
    h = Tap("bn2", b2(c2(h)), "BatchNorm2d");
    return Tap("out", torch::relu(h + (down ? down(x) : x)), "ReLU");
  }
  torch::nn::Conv2d c1{nullptr}, c2{nullptr}, down{nullptr};
  torch::nn::BatchNorm2d b1{nullptr}, b2{nullptr};
  Tracker* tracker = nullptr;
  std::string prefix;
};
TORCH_MODULE(ResBlock);

struct ResNetImpl : torch::nn::Module {
  ResNetImpl() {
    stem = register_module("stem", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).padding(1).bias(false)));
    bn = register_module("bn", torch::nn::BatchNorm2d(16));
    int64_t in = 16;
    for (int64_t stage = 0; stage < 3; ++stage) {
      const int64_t out = 16 << stage;
      for (int64_t i = 0; i < 2; ++i) {
        blocks.push_back(register_module("s" + std::to_string(stage) + "b" + std::to_string(i),
                                         ResBlock(in, out, stage > 0 && i == 0 ? 2 : 1)));
        in = out;
      }
    }
    fc = register_module("fc", torch::nn::Linear(64, 10));
  }
  void SetTracker(Tracker* t) {
    tracker = t;
    TrackBlocks(blocks, t);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = torch::relu(bn(stem(x)));
    if (tracker) h = tracker->tap("stem", h, "ReLU");
    for (ResBlock& b : blocks) h = b->forward(h);
    torch::Tensor logits = fc(h.mean({2, 3}));
    return tracker ? tracker->tap("fc", logits, "Linear") : logits;
  }
  torch::nn::Conv2d stem{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  std::vector<ResBlock> blocks;
  torch::nn::Linear fc{nullptr};
  Tracker* tracker = nullptr;
};
TORCH_MODULE(ResNet);

// ---- Peak resident set of one benchmark: the kernel's high-water mark is
// reset before it (clear_refs 5) and read after (VmHWM), in MiB; 0 where
// /proc does not offer that.
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

double PeakRssMib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      in >> kib;
      return kib / 1024;
    }
    in.ignore(1 << 10, '\n');
  }
  return 0;
}

// How a benchmark runs the model: mode 0 untracked, > 0 the tracking
// interval; simulate: fake-quantized training (tracked every 1000 steps, so
// nearly every step is the simulation alone).
struct Mode {
  int every = 0;
  bool simulate = false;
};

Mode ModeOf(const benchmark::State& state) {
  const int64_t a = state.range(0);
  return a < 0 ? Mode{1000, true} : Mode{static_cast<int>(a), false};
}

std::string Label(const Mode& m) {
  if (m.simulate) return "simulate";
  return m.every == 0 ? "untracked" : "every " + std::to_string(m.every);
}

std::unique_ptr<Tracker> MakeTracker(torch::nn::Module& model, torch::optim::Optimizer& opt,
                                     const Mode& m, const std::string& dir, bool target) {
  if (m.every == 0) return nullptr;
  TrackerOptions o;
  o.formats = {"e4m3fn", "e5m2", "bf16"};
  if (target) o.target = "b200-mxfp8";
  o.scaling = Scaling::Delayed(16);
  o.every = m.every;
  o.simulate = m.simulate;
  o.run_dir = dir;
  o.overwrite = true;
  return std::make_unique<Tracker>(model, opt, o);
}

std::string RunDir(const std::string& model) { return BenchRunDir("lpsim_bench", model); }

template <typename Model, typename Batch>
void TrainLoop(benchmark::State& state, Model& model, const Mode& mode, const std::string& name,
               int64_t batch_size, const Batch& make_batch) {
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
  const std::string dir = RunDir(name);
  ResetPeakRss();
  std::unique_ptr<Tracker> tracker = MakeTracker(*model, optimizer, mode, dir, /*target=*/true);
  model->SetTracker(tracker.get());
  Batches batches(4, make_batch);
  for (auto _ : state) TrainStep(model, optimizer, tracker.get(), batches.Next());
  model->SetTracker(nullptr);
  tracker.reset();  // the queued analysis finishes inside the measurement's RSS
  state.counters["peak_rss_mib"] = PeakRssMib();
  state.SetItemsProcessed(state.iterations() * batch_size);
  state.SetLabel(Label(mode));
  std::filesystem::remove_all(dir);
}

void BM_TinyLm(benchmark::State& state) {
  torch::manual_seed(0);
  TinyLm model;
  constexpr int64_t kBatch = 16;
  TrainLoop(state, model, ModeOf(state), "lm", kBatch, [] {
    torch::Tensor tokens = torch::randint(TinyLmImpl::kVocab, {kBatch, TinyLmImpl::kSeq + 1});
    return std::make_pair(tokens.slice(1, 0, TinyLmImpl::kSeq),
                          tokens.slice(1, 1).reshape({-1}));
  });
}

void BM_ResNet(benchmark::State& state) {
  torch::manual_seed(0);
  ResNet model;
  constexpr int64_t kBatch = 64;
  TrainLoop(state, model, ModeOf(state), "resnet", kBatch, [] {
    return std::make_pair(torch::randn({kBatch, 3, 32, 32}), torch::randint(10, {kBatch}));
  });
}

// ---- The demo models (tracker/demo.h), three formats without a target.

constexpr int64_t kDemoBatch = 64;

void BM_TrainStep(benchmark::State& state, const std::string& model_name) {
  const Mode mode = ModeOf(state);
  DemoTraining t(model_name);
  const std::string dir = RunDir(model_name);
  ResetPeakRss();
  std::unique_ptr<Tracker> tracker = MakeTracker(*t.model, t.optimizer, mode, dir, /*target=*/false);
  Batches batches(16, [&] { return t.task.Batch(kDemoBatch); });
  for (auto _ : state) TrainStep(t.model, t.optimizer, tracker.get(), batches.Next());
  tracker.reset();
  state.counters["peak_rss_mib"] = PeakRssMib();
  state.SetItemsProcessed(state.iterations() * kDemoBatch);
  state.SetLabel(Label(mode));
  std::filesystem::remove_all(dir);
}

// Arguments: 0 untracked, 1 and 10 tracking intervals, -1 simulate mode.
// Wall time (the tracker's analysis runs on its own threads); the big models
// take 20 steps each so "every 10" holds two tracked steps.
BENCHMARK_CAPTURE(BM_TrainStep, mlp, std::string("mlp"))->ArgName("every")->Arg(0)->Arg(1)->Arg(10)
    ->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_TrainStep, cnn, std::string("cnn"))->ArgName("every")->Arg(0)->Arg(1)->Arg(10)
    ->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TinyLm)->ArgName("every")->Arg(0)->Arg(1)->Arg(10)->Arg(-1)
    ->Iterations(20)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResNet)->ArgName("every")->Arg(0)->Arg(1)->Arg(10)->Arg(-1)
    ->Iterations(20)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lpsim

BENCHMARK_MAIN();
