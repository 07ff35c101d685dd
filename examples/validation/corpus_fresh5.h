// The fresh5 group of the validation corpus (validation.cc): 16 programs
// written after corpus.h and the fresh, fresh2, fresh3 and fresh4 groups,
// blind to the low-precision rules' predictions on them, so that a rule
// change can be judged on trainings nobody tuned anything against. Each was
// designed from what the hardware does to numbers (formats' ranges,
// resolution and integer exactness, scaling recipes, block scales), with
// only its fp32 training and its simulated truth looked at, never the
// prediction; no program was changed after its truth had been simulated. To
// tune against it would make it seen data too: write another group instead.
//
// Seven train fine in fp32 and, by design, on fp8 hardware: what
// practitioners train on small data (a tiny vision transformer over 4x4
// patches, an LSTM over trend sequences, a residual CNN with BatchNorm, a
// text CNN with max-over-time pooling over token motifs, a two-layer graph
// convolutional network classifying graph shapes, a Siamese pair model, a
// pre-RMSNorm residual SiLU MLP regression), with optimizer and schedule
// pairs among Adam with cosine, RMSprop with step decay, SGD momentum with
// warm-up, Adam with warm-up, AdamW with cosine, AdamW with warm-up+cosine
// and SGD momentum with step decay. Nine plant a breaker of a kind no other
// group has: a hand-written binary cross-entropy on probabilities clamped to
// [1e-7, 1 - 1e-7] (the clamp is lost where 1 - 1e-7 rounds to 1; log(0)),
// log-sum-exp pooling written as log(sum(exp(5 h))) without subtracting the
// max, an additive padding mask of -1e9 in the attention logits (the
// sentinel is the tensor's amax), naive-Bayes class log-likelihoods summed
// over 256-token documents (scores ~ -900 whose class differences are a few
// nats), sum pooling (not mean) of frame features of raw dB spectra over
// 1024 frames (sums past fp16's 65504), an unfused RMSNorm that stores the
// squares of strain readings of ~3e-4 (squares below fp16's normal range,
// flushed; eps 1e-12 then sets the norm), categorical item ids up to 999
// carried in a float input column and cast back to indices (bf16 holds
// integers exactly to 256, e4m3 to 16), box features read from a stored
// summed-area table (cumulative sums to ~500 differenced four at a time),
// and masked mean pooling whose token count is clamped at 1e-9 for empty
// histories (0 / 0 where 1e-9 flushes). Numerically some are kin to older
// kinds (the clamp to the gate near 1 of fresh4, the summed-area table's
// differences to fresh4's one-pass variance, the mask sentinel to the
// outlier channels), but the practice and the way they fail are new.
// Whether and where each breaks is for the simulation to say, not for its
// label.
//
//   for (const Program& p : Fresh5Programs()) { Data d = p.data(); auto m = p.model(); ... }
#ifndef LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH5_H_
#define LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH5_H_

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "examples/validation/corpus.h"
#include "examples/validation/corpus_fresh4.h"

namespace lpsim::validation {

// --- data -----------------------------------------------------------------------

// Token sequences (20 tokens of a 64-token vocabulary, stored as floats):
// class (of 4) = which of four 3-token motifs is planted at a random place
// among uniform tokens.
inline Data MotifTokens(int64_t n = 1024, int64_t len = 20, int64_t vocab = 64) {
  torch::Tensor motifs = torch::randint(0, vocab, {4, 3}, torch::kLong);
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = torch::randint(0, vocab, {n, len}, torch::kLong);
  torch::Tensor at = torch::randint(0, len - 2, {n}, torch::kLong);
  auto ya = y.accessor<int64_t, 1>();
  auto aa = at.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) x[i].slice(0, aa[i], aa[i] + 3).copy_(motifs[ya[i]]);
  return {x.to(torch::kFloat), y};
}

// Graphs of 10 nodes, one of four shapes (class): a ring, a star, two
// 5-cliques joined by one edge, an Erdos-Renyi graph (p = 0.3); nodes
// relabelled at random. x: [n, 10, 10 + 2], the symmetrically normalised
// adjacency with self loops D^-1/2 (A + I) D^-1/2, then per node a constant
// 1 and its degree / 10.
inline Data GraphShapes(int64_t n = 1024, int64_t k = 10) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = torch::zeros({n, k, k + 2});
  auto ya = y.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    torch::Tensor a = torch::zeros({k, k});
    if (ya[i] == 0) {
      for (int64_t j = 0; j < k; ++j) a[j][(j + 1) % k] = 1;
    } else if (ya[i] == 1) {
      for (int64_t j = 1; j < k; ++j) a[0][j] = 1;
    } else if (ya[i] == 2) {
      for (int64_t u = 0; u < k; ++u) {
        for (int64_t v = u + 1; v < k; ++v) {
          if ((u < k / 2) == (v < k / 2)) a[u][v] = 1;
        }
      }
      a[0][k - 1] = 1;
    } else {
      a = (torch::rand({k, k}) < 0.3).to(torch::kFloat).triu(1);
    }
    a = a + a.t();
    torch::Tensor perm = torch::randperm(k, torch::kLong);
    a = a.index_select(0, perm).index_select(1, perm);
    torch::Tensor deg = a.sum(1);
    torch::Tensor ahat = a + torch::eye(k);
    torch::Tensor dinv = torch::rsqrt(ahat.sum(1));
    x[i].slice(1, 0, k).copy_(dinv.unsqueeze(1) * ahat * dinv.unsqueeze(0));
    x[i].select(1, k).fill_(1.0);
    x[i].select(1, k + 1).copy_(deg / 10.0);
  }
  return {x, y};
}

// Pairs of points from 8 Gaussian clusters in 16-d (noise 0.7): x [n, 2,
// 16], y = 1 when both come from the same cluster (half the pairs).
inline Data ClusterPairs(int64_t n = 1024) {
  torch::Tensor centers = torch::randn({8, 16});
  torch::Tensor a = torch::randint(0, 8, {n}, torch::kLong);
  torch::Tensor same = (torch::rand({n}) < 0.5).to(torch::kLong);
  torch::Tensor other = torch::remainder(a + torch::randint(1, 8, {n}, torch::kLong), 8);
  torch::Tensor b = torch::where(same == 1, a, other);
  torch::Tensor x = torch::stack({centers.index_select(0, a) + 0.7 * torch::randn({n, 16}),
                                  centers.index_select(0, b) + 0.7 * torch::randn({n, 16})},
                                 1);
  return {x, same};
}

// Binary labels from a smooth boundary in 16-d, 5% of them flipped (label
// noise, as real annotations have).
inline Data NoisyBoundary(int64_t n = 1024) {
  torch::Tensor a = torch::randn({16}), b = torch::randn({16}) * 0.5;
  torch::Tensor x = torch::randn({n, 16});
  torch::Tensor clean = (x.matmul(a) + 1.5 * torch::sin(x.matmul(b)) > 0).to(torch::kLong);
  torch::Tensor flip = (torch::rand({n}) < 0.05).to(torch::kLong);
  return {x, torch::remainder(clean + flip, 2)};
}

// Multiple-instance sequences: 32 frames of 8 features (noise 1); one frame
// at a random place carries 2.5 x the class's prototype (of 4, unit rms).
// Shape: [n, 32, 8].
inline Data BurstFrames(int64_t n = 1024, int64_t len = 32) {
  torch::Tensor protos = torch::randn({4, 8});
  protos = protos / protos.pow(2).mean(1, true).sqrt();
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = torch::randn({n, len, 8});
  torch::Tensor at = torch::randint(0, len, {n}, torch::kLong);
  auto ya = y.accessor<int64_t, 1>();
  auto aa = at.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) x[i][aa[i]].add_(2.5 * protos[ya[i]]);
  return {x, y};
}

// Padded token sequences for attention pooling: [n, 16, 2 + 12], per token
// a validity flag (1 real, 0 padding), a mark, 12 content features. Each
// sequence has 4..16 real tokens, each the prototype (x1.5) of a random
// class (of 4) plus noise 0.5; exactly one real token is marked, and its
// class is the label. Padding tokens are all zeros.
inline Data MarkedTokens(int64_t n = 1024, int64_t len = 16) {
  torch::Tensor protos = torch::randn({4, 12}) * 1.5;
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor lengths = torch::randint(4, len + 1, {n}, torch::kLong);
  torch::Tensor x = torch::zeros({n, len, 14});
  auto ya = y.accessor<int64_t, 1>();
  auto la = lengths.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t l = la[i];
    torch::Tensor cls = torch::randint(0, 4, {l}, torch::kLong);
    const int64_t mark = torch::randint(0, l, {1}, torch::kLong).item<int64_t>();
    cls[mark] = ya[i];
    x[i].slice(0, 0, l).select(1, 0).fill_(1.0);
    x[i][mark][1] = 1.0;
    x[i].slice(0, 0, l).slice(1, 2, 14).copy_(protos.index_select(0, cls) + 0.5 * torch::randn({l, 12}));
  }
  return {x, y};
}

// Documents of 256 tokens (a 32-token vocabulary, stored as floats) drawn
// from one of 3 class unigram distributions: softmax of a shared Gaussian
// logit vector plus a class perturbation of 0.15 per token (~6 nats of
// evidence per document).
inline Data UnigramDocs(int64_t n = 1024, int64_t len = 256, int64_t vocab = 32) {
  torch::Tensor base = torch::randn({vocab});
  torch::Tensor probs = torch::softmax(base.unsqueeze(0) + 0.15 * torch::randn({3, vocab}), 1);
  torch::Tensor y = torch::randint(0, 3, {n}, torch::kLong);
  torch::Tensor x = torch::multinomial(probs.index_select(0, y), len, /*replacement=*/true);
  return {x.to(torch::kFloat), y};
}

// Spectrogram frames in raw dB: 1024 frames of 8 bands at ~60 dB, the
// class (of 4) a spectral tilt/shape of +-8 dB across the bands, noise 3 dB
// per value and a recording level of +-5 dB per sample; batches of 32.
// Shape: [n, 1024, 8].
inline Data DbFrames(int64_t n = 512, int64_t frames = 1024) {
  torch::Tensor shapes = 8 * torch::tanh(torch::randn({4, 8}));
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor level = 60 + 5 * (2 * torch::rand({n, 1, 1}) - 1);
  Data d{level + shapes.index_select(0, y).unsqueeze(1) + 3 * torch::randn({n, frames, 8}), y};
  d.batch = 32;
  return d;
}

// Strain gauge readings: 6 clusters in 24-d (noise 0.8) in strain units,
// x 3e-4, with a per-recording gain log-uniform over 0.25..4.
inline Data StrainReadings(int64_t n = 1024) {
  Data d = Clusters(24, 6, 0.8, n);
  d.x = d.x * 3e-4 * torch::pow(2.0, 4 * torch::rand({n, 1}) - 2);
  return d;
}

// Item events: column 0 an item id in 0..999 (as a float, as a data frame
// exported to one float tensor holds it), columns 1..6 Gaussian context;
// the class (of 4) is the item's category.
inline Data ItemEvents(int64_t n = 4096, int64_t items = 1000) {
  torch::Tensor category = torch::randint(0, 4, {items}, torch::kLong);
  torch::Tensor id = torch::randint(0, items, {n}, torch::kLong);
  torch::Tensor x = torch::cat({id.to(torch::kFloat).unsqueeze(1), torch::randn({n, 6})}, 1);
  return {x, category.index_select(0, id)};
}

// 1x32x32 images on a grey background (0.5, noise 0.1) with a brighter
// 8x8 square (+0.3) in one quadrant (class, of 4), jittered within it.
inline Data QuadrantSquares(int64_t n = 768) {
  torch::Tensor y = torch::randint(0, 4, {n}, torch::kLong);
  torch::Tensor x = 0.5 + 0.1 * torch::randn({n, 1, 32, 32});
  auto ya = y.accessor<int64_t, 1>();
  torch::Tensor jitter = torch::randint(0, 9, {n, 2}, torch::kLong);
  auto ja = jitter.accessor<int64_t, 2>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = 16 * (ya[i] / 2) + ja[i][0], c = 16 * (ya[i] % 2) + ja[i][1];
    x[i][0].slice(0, r, r + 8).slice(1, c, c + 8).add_(0.3);
  }
  return {x, y};
}

// Users: 8 dense features and a history of up to 12 items (ids 1..50 as
// floats, 0 = padding); 15% of the users have no history. Items belong to
// 4 topics; the class (of 4) is the history's majority topic, or, without
// a history, the argmax of 4 linear scores of the dense features. x:
// [n, 8 + 12].
inline Data UserHistories(int64_t n = 1024, int64_t len = 12) {
  torch::Tensor topic = torch::randint(0, 4, {51}, torch::kLong);
  torch::Tensor w = torch::randn({8, 4});
  torch::Tensor dense = torch::randn({n, 8});
  torch::Tensor dense_class = dense.matmul(w).argmax(1);
  torch::Tensor ids = torch::zeros({n, len});
  torch::Tensor y = dense_class.clone();
  torch::Tensor lengths = torch::randint(1, len + 1, {n}, torch::kLong);
  torch::Tensor empty = torch::rand({n}) < 0.15;
  auto la = lengths.accessor<int64_t, 1>();
  auto ea = empty.accessor<bool, 1>();
  auto ta = topic.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    if (ea[i]) continue;
    torch::Tensor items = torch::randint(1, 51, {la[i]}, torch::kLong);
    int64_t counts[4] = {0, 0, 0, 0};
    auto ia = items.accessor<int64_t, 1>();
    for (int64_t j = 0; j < la[i]; ++j) ++counts[ta[ia[j]]];
    int64_t best = 0;
    for (int64_t c = 1; c < 4; ++c) {
      if (counts[c] > counts[best]) best = c;
    }
    y[i] = best;
    ids[i].slice(0, 0, la[i]).copy_(items.to(torch::kFloat));
  }
  return {torch::cat({dense, ids}, 1), y};
}

// --- models ---------------------------------------------------------------------

// A tiny vision transformer over 1x12x12 images: 9 patches of 4x4 pixels,
// a linear patch embedding (tapped "patch") plus learned positions, one
// pre-LN transformer block (corpus.h's, mean-pooled into the classifier).
struct TinyVitImpl : nn::Module {
  TinyVitImpl(int64_t d, int64_t classes) {
    patch = register_module("patch", nn::Linear(16, d));
    pos = register_parameter("pos", torch::randn({9, d}) * 0.1);
    block = register_module("block", Transformer(d, classes, 1.0));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    // [N, 1, 12, 12] -> [N, 3, 3, 4, 4] -> [N, 9, 16]
    torch::Tensor p = x.reshape({x.size(0), 3, 4, 3, 4}).permute({0, 1, 3, 2, 4}).reshape({x.size(0), 9, 16});
    return block->forward(Tap("patch", patch->forward(p), "Linear") + pos);
  }
  nn::Linear patch{nullptr};
  torch::Tensor pos;
  Transformer block{nullptr};
};
TORCH_MODULE(TinyVit);

// An LSTM cell unrolled over [N, T, in] (hidden and cell state tapped per
// step, "h3" and "c3"), classifier on the last hidden state.
struct LstmNetImpl : nn::Module {
  LstmNetImpl(int64_t in, int64_t hidden, int64_t classes) : hidden_(hidden) {
    cell = register_module("cell", nn::LSTMCell(in, hidden));
    head = register_module("head", nn::Linear(hidden, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = torch::zeros({x.size(0), hidden_}), c = torch::zeros({x.size(0), hidden_});
    for (int64_t t = 0; t < x.size(1); ++t) {
      std::tie(h, c) = cell->forward(x.select(1, t), std::make_tuple(h, c));
      h = Tap("h" + std::to_string(t), h, "LSTMCell");
      c = Tap("c" + std::to_string(t), c, "LSTMCell");
    }
    return head->forward(h);
  }
  int64_t hidden_;
  nn::LSTMCell cell{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(LstmNet);

// A residual CNN: conv stem (8) + BatchNorm + ReLU, one basic block (conv-
// BN-ReLU-conv-BN plus the identity, ReLU), max pool, a second stage (16)
// with BatchNorm, global average pooling, classifier.
struct ResCnnImpl : nn::Module {
  ResCnnImpl(int64_t width, int64_t classes) {
    stem = register_module("stem", nn::Conv2d(nn::Conv2dOptions(1, width, 3).padding(1)));
    bn0 = register_module("bn0", nn::BatchNorm2d(width));
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(width, width, 3).padding(1)));
    bn1 = register_module("bn1", nn::BatchNorm2d(width));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(width, width, 3).padding(1)));
    bn2 = register_module("bn2", nn::BatchNorm2d(width));
    conv3 = register_module("conv3", nn::Conv2d(nn::Conv2dOptions(width, 2 * width, 3).padding(1)));
    bn3 = register_module("bn3", nn::BatchNorm2d(2 * width));
    head = register_module("head", nn::Linear(2 * width, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("stem", stem->forward(x), "Conv2d");
    h = Tap("act0", torch::relu(Tap("bn0", bn0->forward(h), "BatchNorm2d")), "ReLU");
    torch::Tensor r = Tap("conv1", conv1->forward(h), "Conv2d");
    r = Tap("act1", torch::relu(Tap("bn1", bn1->forward(r), "BatchNorm2d")), "ReLU");
    r = Tap("bn2", bn2->forward(Tap("conv2", conv2->forward(r), "Conv2d")), "BatchNorm2d");
    h = Tap("act2", torch::relu(h + r), "ReLU");
    h = torch::max_pool2d(h, 2);
    h = Tap("bn3", bn3->forward(Tap("conv3", conv3->forward(h), "Conv2d")), "BatchNorm2d");
    h = Tap("act3", torch::relu(h), "ReLU");
    return head->forward(Tap("gap", h.mean({2, 3}), "Mean"));
  }
  nn::Conv2d stem{nullptr}, conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  nn::BatchNorm2d bn0{nullptr}, bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(ResCnn);

// A text CNN (Kim 2014) over token ids: Embedding(vocab, dim), Conv1d of
// width 3 (filters), ReLU, max over time, classifier.
struct TextCnnImpl : nn::Module {
  TextCnnImpl(int64_t vocab, int64_t dim, int64_t filters, int64_t classes) {
    embed = register_module("embed", nn::Embedding(vocab, dim));
    conv = register_module("conv", nn::Conv1d(nn::Conv1dOptions(dim, filters, 3)));
    head = register_module("head", nn::Linear(filters, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor e = Tap("embed", embed->forward(x.to(torch::kLong)), "Embedding");  // [N, L, D]
    torch::Tensor h = Tap("conv", conv->forward(e.transpose(1, 2)), "Conv1d");
    h = Tap("act", torch::relu(h), "ReLU");
    return head->forward(Tap("maxpool", std::get<0>(h.max(2)), "MaxPool"));
  }
  nn::Embedding embed{nullptr};
  nn::Conv1d conv{nullptr};
  nn::Linear head{nullptr};
};
TORCH_MODULE(TextCnn);

// A graph convolutional network (Kipf & Welling) over GraphShapes rows: two
// layers H' = ReLU(A_hat H W), mean readout over nodes, MLP classifier.
struct GcnImpl : nn::Module {
  GcnImpl(int64_t nodes, int64_t features, int64_t hidden, int64_t classes) : nodes_(nodes) {
    w1 = register_module("w1", nn::Linear(features, hidden));
    w2 = register_module("w2", nn::Linear(hidden, hidden));
    fc = register_module("fc", nn::Linear(hidden, hidden));
    head = register_module("head", nn::Linear(hidden, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor a = x.slice(2, 0, nodes_), f = x.slice(2, nodes_, x.size(2));
    torch::Tensor h = Tap("gcn1", torch::relu(torch::matmul(a, Tap("w1", w1->forward(f), "Linear"))), "ReLU");
    h = Tap("gcn2", torch::relu(torch::matmul(a, Tap("w2", w2->forward(h), "Linear"))), "ReLU");
    torch::Tensor g = Tap("readout", h.mean(1), "Mean");
    return head->forward(Tap("fc", torch::relu(fc->forward(g)), "ReLU"));
  }
  int64_t nodes_;
  nn::Linear w1{nullptr}, w2{nullptr}, fc{nullptr}, head{nullptr};
};
TORCH_MODULE(Gcn);

// A Siamese pair classifier: one encoder (in -> 64 GELU -> 32) for both
// points, the pair's |e1 - e2| and e1 * e2 into a ReLU layer, 2 classes.
struct SiameseImpl : nn::Module {
  SiameseImpl(int64_t in, int64_t hidden, int64_t dim) {
    enc1 = register_module("enc1", nn::Linear(in, hidden));
    enc2 = register_module("enc2", nn::Linear(hidden, dim));
    fc = register_module("fc", nn::Linear(2 * dim, hidden));
    head = register_module("head", nn::Linear(hidden, 2));
  }
  torch::Tensor Encode(const torch::Tensor& v, const std::string& n) {
    torch::Tensor h = Tap(n + ".gelu", torch::gelu(Tap(n + ".enc1", enc1->forward(v), "Linear")), "GELU");
    return Tap(n + ".enc2", enc2->forward(h), "Linear");
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor e1 = Encode(x.select(1, 0), "a"), e2 = Encode(x.select(1, 1), "b");
    torch::Tensor pair = torch::cat({torch::abs(e1 - e2), e1 * e2}, 1);
    return head->forward(Tap("relu", torch::relu(Tap("fc", fc->forward(pair), "Linear")), "ReLU"));
  }
  nn::Linear enc1{nullptr}, enc2{nullptr}, fc{nullptr}, head{nullptr};
};
TORCH_MODULE(Siamese);

// RMSNorm with a learned gain, as one fused kernel computes it (only the
// output is stored).
struct RmsNormImpl : nn::Module {
  explicit RmsNormImpl(int64_t d) { gain = register_parameter("gain", torch::ones({d})); }
  torch::Tensor forward(const torch::Tensor& x) { return x * torch::rsqrt(x.pow(2).mean(-1, true) + 1e-6) * gain; }
  torch::Tensor gain;
};
TORCH_MODULE(RmsNorm);

// A pre-RMSNorm residual MLP: stem in -> d, `blocks` blocks x + W2 silu(W1
// rmsnorm(x)) (hidden 2d), a final RMSNorm, a linear head.
struct RmsResMlpImpl : nn::Module {
  RmsResMlpImpl(int64_t in, int64_t d, int64_t out, int blocks) {
    stem = register_module("stem", nn::Linear(in, d));
    for (int b = 0; b < blocks; ++b) {
      const std::string n = std::to_string(b + 1);
      norms.push_back(register_module("norm" + n, RmsNorm(d)));
      up.push_back(register_module("up" + n, nn::Linear(d, 2 * d)));
      down.push_back(register_module("down" + n, nn::Linear(2 * d, d)));
    }
    final_norm = register_module("final_norm", RmsNorm(d));
    head = register_module("head", nn::Linear(d, out));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("stem", stem->forward(x), "Linear");
    for (size_t b = 0; b < norms.size(); ++b) {
      const std::string n = std::to_string(b + 1);
      torch::Tensor r = Tap("norm" + n, norms[b]->forward(h), "RMSNorm");
      r = Tap("silu" + n, torch::silu(Tap("up" + n, up[b]->forward(r), "Linear")), "SiLU");
      h = h + Tap("down" + n, down[b]->forward(r), "Linear");
    }
    return head->forward(Tap("final_norm", final_norm->forward(h), "RMSNorm"));
  }
  std::vector<RmsNorm> norms;
  std::vector<nn::Linear> up, down;
  RmsNorm final_norm{nullptr};
  nn::Linear stem{nullptr}, head{nullptr};
};
TORCH_MODULE(RmsResMlp);

// Binary classification with a hand-written cross-entropy: MLP in -> 64 ->
// 64 (GELU) -> 1 logit, p = sigmoid (stored), clamped to [eps, 1 - eps]
// (stored: the clamped probabilities are a tensor of their own), the
// output [log(1 - p), log(p)]: cross-entropy on it is -y log p - (1 - y)
// log(1 - p), the binary cross-entropy of Keras' backend (eps 1e-7).
struct ClampedBceNetImpl : nn::Module {
  ClampedBceNetImpl(int64_t in, int64_t hidden, double eps) : eps_(eps) {
    fc1 = register_module("fc1", nn::Linear(in, hidden));
    fc2 = register_module("fc2", nn::Linear(hidden, hidden));
    out = register_module("out", nn::Linear(hidden, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("act1", torch::gelu(Tap("fc1", fc1->forward(x), "Linear")), "GELU");
    h = Tap("act2", torch::gelu(Tap("fc2", fc2->forward(h), "Linear")), "GELU");
    torch::Tensor p = Tap("sigmoid", torch::sigmoid(Tap("out", out->forward(h), "Linear")), "Sigmoid");
    p = Tap("clamp", torch::clamp(p, eps_, 1 - eps_), "Clamp");
    return torch::cat({torch::log(1 - p), torch::log(p)}, 1);
  }
  double eps_;
  nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};
TORCH_MODULE(ClampedBceNet);

// Multiple-instance classifier with log-sum-exp pooling over frames
// (Pinheiro & Collobert's smooth max), written as the formula reads:
// (1 / r) log(sum_t exp(r h_t)), no max subtracted. Frame encoder in -> 32
// GELU -> 16 (tapped "score"), exp(r h) tapped "exp", the pooled "lse",
// then 16 -> 32 GELU -> classes.
struct LsePoolNetImpl : nn::Module {
  LsePoolNetImpl(int64_t in, int64_t classes, double r) : r_(r) {
    fc1 = register_module("fc1", nn::Linear(in, 32));
    fc2 = register_module("fc2", nn::Linear(32, 16));
    fc3 = register_module("fc3", nn::Linear(16, 32));
    head = register_module("head", nn::Linear(32, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("act1", torch::gelu(Tap("fc1", fc1->forward(x), "Linear")), "GELU");
    h = Tap("score", fc2->forward(h), "Linear");                  // [N, T, 16]
    torch::Tensor e = Tap("exp", torch::exp(r_ * h), "Exp");
    torch::Tensor pooled = Tap("lse", torch::log(e.sum(1)) / r_, "Log");  // [N, 16]
    return head->forward(Tap("act3", torch::gelu(Tap("fc3", fc3->forward(pooled), "Linear")), "GELU"));
  }
  double r_;
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr}, head{nullptr};
};
TORCH_MODULE(LsePoolNet);

// Attention pooling over padded MarkedTokens rows: keys and values linear
// in the tokens, one learned query, logits k.q / sqrt(d) plus an additive
// padding mask (0 on real tokens, `mask_value` on padding) as BERT-style
// code builds it (tapped "attn.logits"), softmax, the pooled value through
// a GELU layer to the classifier.
struct MaskedAttnPoolImpl : nn::Module {
  MaskedAttnPoolImpl(int64_t in, int64_t d, int64_t classes, double mask_value) : d_(d), mask_(mask_value) {
    key = register_module("key", nn::Linear(in, d));
    value = register_module("value", nn::Linear(in, d));
    query = register_parameter("query", torch::randn({d}) * 0.1);
    fc = register_module("fc", nn::Linear(d, d));
    head = register_module("head", nn::Linear(d, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor valid = x.select(2, 0);  // [N, L]
    torch::Tensor k = Tap("key", key->forward(x), "Linear"), v = Tap("value", value->forward(x), "Linear");
    torch::Tensor logits = k.matmul(query) / std::sqrt(double(d_)) + (1 - valid) * mask_;
    logits = Tap("attn.logits", logits, "MatMul");
    torch::Tensor attn = Tap("attn.softmax", torch::softmax(logits, -1), "Softmax");
    torch::Tensor pooled = Tap("pooled", (attn.unsqueeze(2) * v).sum(1), "MatMul");
    return head->forward(Tap("gelu", torch::gelu(Tap("fc", fc->forward(pooled), "Linear")), "GELU"));
  }
  int64_t d_;
  double mask_;
  nn::Linear key{nullptr}, value{nullptr}, fc{nullptr}, head{nullptr};
  torch::Tensor query;
};
TORCH_MODULE(MaskedAttnPool);

// Multinomial naive Bayes trained discriminatively, in log space: learned
// class emission logits [C, V] -> log_softmax (tapped), the document's
// token counts times them: class log-likelihoods sum_t log p_c(x_t)
// (tapped "loglik", ~ -900 over 256 tokens) plus a learned log prior; the
// softmax over them is the posterior.
struct NaiveBayesImpl : nn::Module {
  NaiveBayesImpl(int64_t classes, int64_t vocab) : vocab_(vocab) {
    emit = register_parameter("emit", torch::randn({classes, vocab}) * 0.01);
    prior = register_parameter("prior", torch::zeros({classes}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor counts = nn::functional::one_hot(x.to(torch::kLong), vocab_).sum(1).to(torch::kFloat);  // [N, V]
    torch::Tensor logp = Tap("log_softmax", torch::log_softmax(emit, 1), "LogSoftmax");
    torch::Tensor loglik = Tap("loglik", counts.matmul(logp.t()), "MatMul");
    return loglik + prior;
  }
  int64_t vocab_;
  torch::Tensor emit, prior;
};
TORCH_MODULE(NaiveBayes);

// Bag of frames with sum pooling: each frame in -> 16 (ReLU, tapped
// "frame"), summed over the frames (tapped "sum": not divided by their
// number), LayerNorm, 16 -> 32 GELU -> classes.
struct SumPoolNetImpl : nn::Module {
  SumPoolNetImpl(int64_t in, int64_t width, int64_t classes) {
    frame = register_module("frame", nn::Linear(in, width));
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({width})));
    fc = register_module("fc", nn::Linear(width, 32));
    head = register_module("head", nn::Linear(32, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = Tap("frame", torch::relu(Tap("frame_fc", frame->forward(x), "Linear")), "ReLU");
    torch::Tensor s = Tap("sum", h.sum(1), "Sum");
    torch::Tensor n = Tap("ln", ln->forward(s), "LayerNorm");
    return head->forward(Tap("gelu", torch::gelu(Tap("fc", fc->forward(n), "Linear")), "GELU"));
  }
  nn::Linear frame{nullptr}, fc{nullptr}, head{nullptr};
  nn::LayerNorm ln{nullptr};
};
TORCH_MODULE(SumPoolNet);

// An RMSNorm written out unfused over the raw features, as eager code runs
// it: the squares (tapped "square"), their mean (tapped "mean_sq"), x
// rsqrt(mean_sq + eps) with a learned gain (tapped "rmsnorm"); then an MLP
// in -> 64 -> 64 (tanh) -> classes.
struct UnfusedRmsMlpImpl : nn::Module {
  UnfusedRmsMlpImpl(int64_t in, int64_t hidden, int64_t classes, double eps) : eps_(eps) {
    gain = register_parameter("gain", torch::ones({in}));
    fc1 = register_module("fc1", nn::Linear(in, hidden));
    fc2 = register_module("fc2", nn::Linear(hidden, hidden));
    head = register_module("head", nn::Linear(hidden, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor sq = Tap("square", x * x, "Mul");
    torch::Tensor ms = Tap("mean_sq", sq.mean(1, true), "Mean");
    torch::Tensor n = Tap("rmsnorm", x * torch::rsqrt(ms + eps_) * gain, "RMSNorm");
    torch::Tensor h = Tap("act1", torch::tanh(Tap("fc1", fc1->forward(n), "Linear")), "Tanh");
    h = Tap("act2", torch::tanh(Tap("fc2", fc2->forward(h), "Linear")), "Tanh");
    return head->forward(h);
  }
  double eps_;
  torch::Tensor gain;
  nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(UnfusedRmsMlp);

// A categorical-plus-context model over ItemEvents rows, which arrive as
// one float tensor (stored as the device stores activations, tapped
// "input"): column 0 rounded back to an item index for Embedding(items,
// 16), columns 1..6 through Linear(6, 16); concatenated, MLP 32 -> 64 ReLU
// -> classes.
struct ItemIdNetImpl : nn::Module {
  ItemIdNetImpl(int64_t items, int64_t classes) : items_(items) {
    embed = register_module("embed", nn::Embedding(items, 16));
    context = register_module("context", nn::Linear(6, 16));
    fc = register_module("fc", nn::Linear(32, 64));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor in = Tap("input", x, "Input");
    torch::Tensor id = torch::round(in.select(1, 0)).clamp(0, items_ - 1).to(torch::kLong);
    torch::Tensor e = Tap("embed", embed->forward(id), "Embedding");
    torch::Tensor c = Tap("context", context->forward(in.slice(1, 1, 7)), "Linear");
    torch::Tensor h = Tap("act", torch::relu(Tap("fc", fc->forward(torch::cat({e, c}, 1)), "Linear")), "ReLU");
    return head->forward(h);
  }
  int64_t items_;
  nn::Embedding embed{nullptr};
  nn::Linear context{nullptr}, fc{nullptr}, head{nullptr};
};
TORCH_MODULE(ItemIdNet);

// Box features from an integral image (Viola-Jones): the summed-area table
// S = cumsum over rows and columns of the 1x32x32 image (tapped
// "integral"), each 4x4 box of an 8x8 grid summed as S[y2, x2] - S[y1, x2]
// - S[y2, x1] + S[y1, x1] (zero-padded table), divided by its 16 pixels
// (tapped "boxes"); MLP 64 -> 64 ReLU -> classes.
struct IntegralBoxNetImpl : nn::Module {
  explicit IntegralBoxNetImpl(int64_t classes) {
    fc = register_module("fc", nn::Linear(64, 64));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor s = Tap("integral", x.squeeze(1).cumsum(1).cumsum(2), "CumSum");  // [N, 32, 32]
    s = nn::functional::pad(s, nn::functional::PadFuncOptions({1, 0, 1, 0}));     // [N, 33, 33]
    torch::Tensor idx = torch::arange(0, 33, 4, torch::kLong);                       // 0, 4, ..., 32
    torch::Tensor c = s.index_select(1, idx).index_select(2, idx);                    // [N, 9, 9]
    torch::Tensor box = c.slice(1, 1, 9).slice(2, 1, 9) - c.slice(1, 0, 8).slice(2, 1, 9) -
                        c.slice(1, 1, 9).slice(2, 0, 8) + c.slice(1, 0, 8).slice(2, 0, 8);
    torch::Tensor f = Tap("boxes", box.reshape({x.size(0), 64}) / 16.0, "Sub");
    return head->forward(Tap("act", torch::relu(Tap("fc", fc->forward(f), "Linear")), "ReLU"));
  }
  nn::Linear fc{nullptr}, head{nullptr};
};
TORCH_MODULE(IntegralBoxNet);

// UserHistories rows: dense features and a padded history of item ids;
// Embedding(51, 16) of the history, masked mean pooling as
// sentence-transformers writes it: sum(e * mask) / clamp(sum(mask), min =
// 1e-9) per dimension (the count tapped "count", the mean "mean_pool");
// concatenated with the dense features, MLP 24 -> 64 GELU -> classes.
struct MaskedMeanNetImpl : nn::Module {
  MaskedMeanNetImpl(int64_t dense, int64_t classes) : dense_(dense) {
    embed = register_module("embed", nn::Embedding(51, 16));
    fc = register_module("fc", nn::Linear(dense + 16, 64));
    head = register_module("head", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor ids = x.slice(1, dense_, x.size(1)).to(torch::kLong);                 // [N, L]
    torch::Tensor mask = (ids > 0).to(torch::kFloat).unsqueeze(2).expand({-1, -1, 16});  // [N, L, 16]
    torch::Tensor e = Tap("embed", embed->forward(ids), "Embedding");
    torch::Tensor count = Tap("count", torch::clamp_min(mask.sum(1), 1e-9), "Sum");
    torch::Tensor pooled = Tap("mean_pool", (e * mask).sum(1) / count, "Div");
    torch::Tensor h = torch::cat({x.slice(1, 0, dense_), pooled}, 1);
    return head->forward(Tap("gelu", torch::gelu(Tap("fc", fc->forward(h), "Linear")), "GELU"));
  }
  int64_t dense_;
  nn::Embedding embed{nullptr};
  nn::Linear fc{nullptr}, head{nullptr};
};
TORCH_MODULE(MaskedMeanNet);

// --- programs -------------------------------------------------------------------

inline std::vector<Program> Fresh5Programs() {
  std::vector<Program> v;
  const ProgramAdder add{&v};

  // Train fine in fp32; by design, fine on fp8 hardware too.
  add(Make<TinyVit>("tiny_vit_patches_bars_adam_cosine", "tiny vision transformer: 9 patches of 4x4 on the 12x12 "
                    "bars, linear patch embedding + learned positions, one pre-LN block d=24, Adam 2e-3 cosine",
                    std::function<TinyVit()>([] { return TinyVit(24, 4); }), [] { return Bars(); }),
      "adam", 2e-3, "cosine", 100);
  add(Make<LstmNet>("lstm_trends_rmsprop_step", "LSTM cell (32) unrolled over 12 steps of rising/falling/flat/"
                    "alternating sequences, RMSprop 3e-3 step decay",
                    std::function<LstmNet()>([] { return LstmNet(3, 32, 4); }), [] { return Trends(1024, 12); }),
      "rmsprop", 3e-3, "step", 120);
  add(Make<ResCnn>("residual_cnn_batchnorm_dots_momentum_warmup", "residual CNN (stem 8 + BatchNorm, one basic "
                   "block, stage 16) with global average pooling counting 1..4 dots, SGD 0.05 momentum warm-up",
                   std::function<ResCnn()>([] { return ResCnn(8, 4); }), [] { return DotCount(); }),
      "momentum", 0.05, "warmup", 80);
  add(Make<TextCnn>("text_cnn_motifs_adam_warmup", "text CNN: Embedding(64, 16), Conv1d width 3 (32 filters), ReLU, "
                    "max over time, on 20-token sequences with one of 4 planted trigrams, Adam 3e-3 warm-up",
                    std::function<TextCnn()>([] { return TextCnn(64, 16, 32, 4); }), [] { return MotifTokens(); }),
      "adam", 3e-3, "warmup", 100);
  add(Make<Gcn>("gcn_graph_shapes_adamw_cosine", "two-layer graph convolutional network (32) with mean readout "
                "classifying 10-node rings, stars, joined cliques and random graphs, AdamW 5e-3 cosine",
                std::function<Gcn()>([] { return Gcn(10, 2, 32, 4); }), [] { return GraphShapes(); }),
      "adamw", 5e-3, "cosine", 120);
  add(Make<Siamese>("siamese_cluster_pairs_adamw_warmup_cosine", "Siamese encoder 16-64-32 GELU on pairs, "
                    "|e1 - e2| and e1 * e2 into ReLU 64, same cluster or not, AdamW 2e-3 warm-up+cosine",
                    std::function<Siamese()>([] { return Siamese(16, 64, 32); }), [] { return ClusterPairs(); }),
      "adamw", 2e-3, "warmup_cosine", 150);
  add(Make<RmsResMlp>("rmsnorm_residual_silu_regression_momentum_step", "pre-RMSNorm residual MLP (stem 16 -> 48, "
                      "2 SiLU blocks, final RMSNorm), MSE regression, SGD 0.02 momentum step decay",
                      std::function<RmsResMlp()>([] { return RmsResMlp(16, 48, 1, 2); }),
                      [] { return Regression(); }), "momentum", 0.02, "step", 150)->loss = Loss::kMse;

  // Planted breakers: fine in fp32, each stresses one limit of low-precision
  // hardware, of a kind no other group has.
  // The clamp's upper end 1 - 1e-7 is 1 in fp16, bf16 and every fp8 format
  // (e4m3 holds 0.9375 and 1 there): a stored probability above ~0.97
  // (e4m3), 0.998 (bf16) or 0.9998 (fp16) is 1, log(1 - p) is -inf, and
  // its gradient 0 * inf is NaN; probabilities below ~4e-6 of the amax
  // flush to 0 under a per-tensor fp8 scale the same way. fp32 keeps the
  // clamp (the loss of a confident error is ~16).
  Program* p = add(Make<ClampedBceNet>("bce_clamp_eps_1e7_noisy_labels", "hand-written binary cross-entropy on "
                                       "sigmoid probabilities clamped to [1e-7, 1 - 1e-7], MLP 16-64-64-1 GELU, "
                                       "5% flipped labels, Adam 3e-3",
                                       std::function<ClampedBceNet()>([] { return ClampedBceNet(16, 64, 1e-7); }),
                                       [] { return NoisyBoundary(); }), "adam", 3e-3, "constant", 150);
  p->planted = true;
  // exp(5 h) over frame scores h of a few units spans e^-20..e^20 in one
  // tensor: past fp16's 65504 at h > 2.2, and wider than e4m3's ~2e5
  // (amax to smallest subnormal) under one per-tensor scale, so whole
  // (sample, channel) columns of a smaller max flush and log(0) = -inf.
  // fp32 holds e^+-88.
  p = add(Make<LsePoolNet>("lse_pooling_naive_exp_r5", "log-sum-exp pooling (sharpness 5) over 32 frames written "
                           "as log(sum(exp(5 h))) / 5 without subtracting the max, frame MLP 8-32-16 GELU, "
                           "Adam 2e-3", std::function<LsePoolNet()>([] { return LsePoolNet(8, 4, 5.0); }),
                           [] { return BurstFrames(); }), "adam", 2e-3, "constant", 120);
  p->planted = true;
  // The mask value -1e9 is the amax of the logits tensor: under a
  // per-tensor (or 16/32-block) scale the real logits (a few units) are
  // ~1e-9 of it, below e4m3's smallest subnormal, so attention is uniform
  // over the real tokens; keys and values are linear in the tokens, so the
  // uniform mean cannot tell the marked token's class. fp16 saturates the
  // mask, bf16 holds both.
  p = add(Make<MaskedAttnPool>("attention_padding_mask_minus_1e9", "attention pooling (learned query, linear keys "
                               "and values, d=32) over 4..16 real tokens padded to 16, additive padding mask -1e9 "
                               "in the logits, class of the marked token, Adam 3e-3",
                               std::function<MaskedAttnPool()>([] { return MaskedAttnPool(14, 32, 4, -1e9); }),
                               [] { return MarkedTokens(); }), "adam", 3e-3, "constant", 150);
  p->planted = true;
  // Class log-likelihoods ~ -900 (256 tokens x log 32) whose differences
  // are ~6 nats: e4m3 keeps steps of 64..128 at 512..1024 under any scale,
  // bf16 steps of 4, fp16 of 0.5; the per-token log-probabilities (~ -3.5)
  // differ between classes by ~0.15, e4m3's step there is 0.25.
  p = add(Make<NaiveBayes>("naive_bayes_loglik_256_tokens", "multinomial naive Bayes in log space trained by "
                           "cross-entropy: learned emission logits (3 classes x 32 tokens), class log-likelihoods "
                           "summed over 256-token documents (~ -900), Adam 2e-2",
                           std::function<NaiveBayes()>([] { return NaiveBayes(3, 32); }),
                           [] { return UnigramDocs(); }), "adam", 2e-2, "constant", 120);
  p->planted = true;
  // Frame features of raw dB spectra (~60 dB) are tens of units; summed over
  // 1024 frames they reach ~1e4..1e5, past fp16's 65504 in the larger
  // channels. The per-tensor fp8 scales follow the range; the LayerNorm
  // after the sum makes fp32 indifferent to it.
  p = add(Make<SumPoolNet>("sum_pooling_1024_frames_raw_db", "bag of frames with sum pooling (not mean) over 1024 "
                           "frames of 8 raw dB bands (~60 dB), frame layer 8 -> 16 ReLU, LayerNorm after the sum, "
                           "batch 32, Adam 2e-3", std::function<SumPoolNet()>([] { return SumPoolNet(8, 16, 4); }),
                           [] { return DbFrames(); }), "adam", 2e-3, "constant", 100);
  p->planted = true;
  // Readings of ~3e-4 (gains 0.25..4) square to ~1e-8..1e-6, below fp16's
  // smallest normal 6.1e-5: a flush-to-zero fp16 unit stores zeros, the
  // norm divides by sqrt(1e-12) and the tanh layers see x * 1e6 (~100s,
  // gain not removed). Per-tensor fp8 scales and bf16 hold the squares.
  p = add(Make<UnfusedRmsMlp>("unfused_rmsnorm_strain_squares_3e4", "unfused RMSNorm (squares and their mean "
                              "stored, eps 1e-12) over strain readings of ~3e-4 with gains 0.25..4, MLP 24-64-64-6 "
                              "tanh, Adam 2e-3",
                              std::function<UnfusedRmsMlp()>([] { return UnfusedRmsMlp(24, 64, 6, 1e-12); }),
                              [] { return StrainReadings(); }), "adam", 2e-3, "constant", 120);
  p->planted = true;
  // Item ids up to 999 in the stored input: bf16 holds integers exactly to
  // 256 (steps of 2 to 512, of 4 to 1024), e4m3 to 16 (steps of 32..64 at
  // 512..999 under a per-tensor scale), block formats by their block's
  // largest value; fp16 holds them to 2048. Neighbouring ids then share an
  // embedding, and their categories are independent.
  p = add(Make<ItemIdNet>("item_ids_999_float_input_column", "item ids 0..999 carried as a float column of the "
                          "stored input and rounded back to indices for Embedding(1000, 16), plus 6 context "
                          "features, category of the item, MLP 32-64-4 ReLU, batch 64 of 4096 rows, Adam 1e-2",
                          std::function<ItemIdNet()>([] { return ItemIdNet(1000, 4); }),
                          [] { return ItemEvents(); }), "adam", 1e-2, "constant", 300);
  p->planted = true;
  // The summed-area table of a grey image grows to ~512 at the far corner;
  // a 4x4 box is the difference of four entries, ~8 with a signal of +4.8:
  // e4m3 keeps steps of 16..32 at 128..512, bf16 of 1..2, fp16 of
  // 0.125..0.25. fp32 keeps 3e-5.
  p = add(Make<IntegralBoxNet>("integral_image_box_features_32x32", "box features (8x8 grid of 4x4 boxes) read "
                               "from a stored summed-area table (cumsum over rows and columns) of 32x32 grey "
                               "images, bright square's quadrant, MLP 64-64-4 ReLU, Adam 2e-3",
                               std::function<IntegralBoxNet()>([] { return IntegralBoxNet(4); }),
                               [] { return QuadrantSquares(); }), "adam", 2e-3, "constant", 100);
  p->planted = true;
  // Empty histories have a count of 1e-9 beside counts of 1..12 in the same
  // tensor: flushed by fp16's FTZ and by a per-tensor or mixed-block fp8
  // scale, then 0 / 0 = NaN in the pooled mean. bf16 holds 1e-9; fp32
  // gives the empty histories a mean of 0.
  p = add(Make<MaskedMeanNet>("masked_mean_pool_clamp_1e9_empty_histories", "masked mean pooling of item "
                              "embeddings with the count clamped at 1e-9 (sentence-transformers' pooling), 15% "
                              "empty histories, 8 dense features, MLP 24-64-4 GELU, AdamW 3e-3",
                              std::function<MaskedMeanNet()>([] { return MaskedMeanNet(8, 4); }),
                              [] { return UserHistories(); }), "adamw", 3e-3, "constant", 120);
  p->planted = true;
  return v;
}

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_CORPUS_FRESH5_H_
