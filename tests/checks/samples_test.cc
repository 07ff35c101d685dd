// SummarizeSamples: per-row and per-position quantiles checked against a
// plain reference; lp_dynamic_range and lp_centred_snr on constructed
// activations whose answer is known from the format's range and step.
#include "checks/samples.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "checks/checker.h"
#include "formats/format.h"
#include "simd/analyze.h"
#include "store/run_db.h"

namespace lpsim {
namespace {

// Nearest-rank quantiles at levels k / 32, computed from their definition.
std::vector<float> RefQuantiles(std::vector<float> v) {
  std::vector<float> q;
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  for (int k = 0; k <= SampleSummary::kQuantiles; ++k) {
    size_t rank = 1;  // the smallest rank r with r / n >= k / 32
    while (rank < v.size() && static_cast<double>(rank) * SampleSummary::kQuantiles < static_cast<double>(k) * v.size()) ++rank;
    q.push_back(v[rank - 1]);
  }
  return q;
}

TEST(SummarizeSamples, MatchesThePlainDefinition) {
  std::mt19937 rng(5);
  std::normal_distribution<float> d(0, 1);
  const int64_t rows = 7, a = 3, b = 5;
  std::vector<float> x(rows * a * b);
  for (size_t i = 0; i < x.size(); ++i) x[i] = d(rng) * (1 + static_cast<float>(i % 4)) + static_cast<float>(i % 3);
  // One position all zero (not counted), one constant (no variation: no offset).
  for (int64_t r = 0; r < rows; ++r) x[r * a * b + 2] = 0, x[r * a * b + 4] = 3.5f;
  // One row all zero.
  for (int64_t j = 0; j < a * b; ++j) x[2 * a * b + j] = 0;
  std::optional<SampleSummary> s = SummarizeSamples(x.data(), {rows, a, b});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rows, rows);
  EXPECT_EQ(s->positions, a * b);
  std::vector<float> row, pos, off;
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t j = 0; j < a * b; ++j) ss += double{x[r * a * b + j]} * x[r * a * b + j];
    if (ss > 0) row.push_back(static_cast<float>(0.5 * std::log2(ss / (a * b))));
  }
  for (int64_t j = 0; j < a * b; ++j) {
    double sum = 0, ss = 0;
    for (int64_t r = 0; r < rows; ++r) sum += x[r * a * b + j], ss += double{x[r * a * b + j]} * x[r * a * b + j];
    if (ss == 0) continue;
    const double mean = sum / rows, ms = ss / rows;
    pos.push_back(static_cast<float>(0.5 * std::log2(ms)));
    if (ms - mean * mean > ms * 0x1p-50) {
      off.push_back(static_cast<float>(std::log2(std::fabs(mean)) - 0.5 * std::log2(ms - mean * mean)));
    }
  }
  EXPECT_EQ(row.size(), 6u);
  EXPECT_EQ(pos.size(), 14u);
  EXPECT_EQ(off.size(), 14u);  // the constant position varies: row 2 is 0 there
  EXPECT_EQ(s->row_log2_rms, RefQuantiles(row));
  EXPECT_EQ(s->position_log2_rms, RefQuantiles(pos));
  EXPECT_EQ(s->position_log2_offset, RefQuantiles(off));
  // A position that does not vary between samples has no offset to judge:
  // [[1, 5], [1, 7]] leaves position 1 alone, |mean| 6 over std 1.
  const std::vector<float> two = {1, 5, 1, 7};
  std::optional<SampleSummary> t = SummarizeSamples(two.data(), {2, 2});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->position_log2_offset, std::vector<float>(SampleSummary::kQuantiles + 1, static_cast<float>(std::log2(6.0))));
  // Not a batch: a vector, or a single sample.
  EXPECT_FALSE(SummarizeSamples(x.data(), {rows * a * b}));
  EXPECT_FALSE(SummarizeSamples(x.data(), {1, a * b}));
  EXPECT_FALSE(SummarizeSamples(x.data(), {rows, 0}));
}

TEST(SummarizeSamples, ShareBelowReadsTheQuantiles) {
  std::vector<float> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  const SampleSummary::Quantiles q = QuantilesOf(&v);
  ASSERT_EQ(q.size(), SampleSummary::kQuantiles + 1u);
  EXPECT_EQ(SampleSummary::ShareBelow(q, -1), 0);
  EXPECT_EQ(SampleSummary::ShareBelow(q, 2000), 1);
  // Within 1/32 of the true share anywhere in between.
  for (double t : {10.0, 250.0, 499.5, 800.0, 990.0}) {
    EXPECT_NEAR(SampleSummary::ShareBelow(q, t), t / 1000, 1.0 / SampleSummary::kQuantiles) << t;
  }
  EXPECT_TRUE(std::isnan(SampleSummary::ShareBelow({}, 0)));
}

// An activation record [rows, cols] with its stats, its samples summary and
// the counts of `format` at `scale` (0: the current scale max / amax).
TensorRecord Act(int64_t step, const std::vector<float>& x, int64_t rows, const std::string& format,
                 const std::string& recipe, float scale) {
  const Format fmt = ParseFormat(format).value();
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  const FormatSlot slot{fmt, scale > 0 ? scale : fmt.MaxValue() / amax};
  AnalyzeResult a = simd::AnalyzeRef(x.data(), x.size(), {slot});
  TensorRecord r;
  r.step = step;
  r.name = "act";
  r.role = Role::kActivation;
  r.shape = {rows, static_cast<int64_t>(x.size()) / rows};
  r.stats = a.stats;
  r.formats.push_back({format, recipe, slot.scale, a.formats[0]});
  r.samples = SummarizeSamples(x.data(), r.shape);
  return r;
}

std::vector<float> Gaussian(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

int Count(const std::vector<Finding>& fs, const std::string& rule) {
  return static_cast<int>(std::count_if(fs.begin(), fs.end(), [&](const Finding& f) { return f.rule == rule; }));
}

// A saturated softmax over `cols` classes: per row one probability near 1,
// the rest 1e-12.. (most values flush in e4m3fn under current scaling, but
// no row and no class loses its energy).
std::vector<float> SaturatedSoftmax(int64_t rows, int64_t cols) {
  std::vector<float> softmax(rows * cols);
  std::mt19937 rng(3);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t hot = static_cast<int64_t>(rng() % cols);
    for (int64_t c = 0; c < cols; ++c) softmax[r * cols + c] = c == hot ? 1.0f : 1e-12f * (1 + static_cast<float>(c % 7));
  }
  return softmax;
}

TEST(LowPrecisionGroups, DynamicRangeJudgesRowsAndPositionsNotValues) {
  const int64_t rows = 64, cols = 16;
  // Over more classes than the batch has samples, the classes cold in every
  // sample would flush as positions (docs/checks.md).
  const std::vector<float> softmax = SaturatedSoftmax(rows, cols);
  TensorRecord sm = Act(0, softmax, rows, "e4m3fn", "current", 0);
  EXPECT_GT(sm.formats[0].counts.underflow, sm.formats[0].counts.numel / 2);
  {
    Checker c;
    c.Add(sm);
    EXPECT_EQ(Count(c.EndStep(0), "lp_dynamic_range"), 0);
    // Without the summary (a stored run), the value count still fires.
    Checker old;
    sm.samples.reset();
    old.Add(sm);
    EXPECT_EQ(Count(old.EndStep(0), "lp_dynamic_range"), 1);
  }
  // Quiet samples: 40 of 64 rows at 1e-9 of the others: whole rows flush.
  // Read by a LayerNorm, which scales each sample back up, they are lost;
  // read by a Linear, they are as quiet in fp32.
  std::vector<float> quiet = Gaussian(rows * cols, 4);
  for (int64_t r = 0; r < 40; ++r) {
    for (int64_t c = 0; c < cols; ++c) quiet[r * cols + c] *= 1e-9f;
  }
  auto reader = [&](const std::string& type) {
    TensorRecord r;
    r.name = "next";
    r.role = Role::kActivation;
    r.shape = {rows, cols};
    r.module_type = type;
    return r;
  };
  Checker q, linear;
  q.Add(Act(0, quiet, rows, "e4m3fn", "current", 0));
  q.Add(reader("LayerNorm"));
  std::vector<Finding> fq = q.EndStep(0);
  ASSERT_EQ(Count(fq, "lp_dynamic_range"), 1);
  EXPECT_NE(fq[0].message.find("rows (samples)"), std::string::npos) << fq[0].message;
  EXPECT_NEAR(fq[0].evidence.at("groups_lost_share"), 40.0 / 64, 1.0 / 32);
  linear.Add(Act(0, quiet, rows, "e4m3fn", "current", 0));
  linear.Add(reader("Linear"));
  EXPECT_EQ(Count(linear.EndStep(0), "lp_dynamic_range"), 0);
  // An outlier channel x1e8 over 127 others: the other positions flush.
  std::vector<float> outlier = Gaussian(rows * cols, 5);
  for (int64_t r = 0; r < rows; ++r) outlier[r * cols] *= 1e8f;
  Checker o;
  o.Add(Act(0, outlier, rows, "e4m3fn", "current", 0));
  std::vector<Finding> fo = o.EndStep(0);
  ASSERT_EQ(Count(fo, "lp_dynamic_range"), 1);
  EXPECT_NE(fo[0].message.find("positions"), std::string::npos) << fo[0].message;
  // A level, not a range: the whole tensor at 1e-9, unscaled: every row is
  // below e4m3fn's minimum, but a scale would keep them all.
  std::vector<float> level = Gaussian(rows * cols, 6);
  for (float& v : level) v *= 1e-9f;
  Checker l;
  l.Add(Act(0, level, rows, "e4m3fn", "none", 1));
  EXPECT_EQ(Count(l.EndStep(0), "lp_dynamic_range"), 0);
}

TEST(LowPrecisionGroups, CentredSnrJudgesTheVariationBetweenSamples) {
  const int64_t rows = 64, cols = 32;
  // Per position an offset of 2^9..2^10 with variation ~1 between samples:
  // r ~ 9.5 binades. bf16 (7 fraction bits) keeps 6.02 (7 - 9.5) + 13.6 =
  // -1.5 dB of it, e4m3fn (3) less; fp16 (10) keeps 16.6 dB.
  std::mt19937 rng(9);
  std::vector<float> offset(cols);
  for (float& o : offset) o = std::exp2(9.0f + static_cast<float>(rng() % 1000) / 1000.0f);
  auto make = [&](uint32_t seed, bool with_offset) {
    std::vector<float> x = Gaussian(rows * cols, seed);
    if (with_offset) {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) x[r * cols + c] += offset[c];
      }
    }
    return x;
  };
  // The reader of the tensor: a BatchNorm removes each position's mean over
  // the batch and reads the variation; a Linear reads the whole value.
  auto reader = [](int64_t step, const std::string& type) {
    TensorRecord r;
    r.step = step;
    r.name = "next";
    r.role = Role::kActivation;
    r.shape = {64, 32};
    r.module_type = type;
    return r;
  };
  for (const char* fmt : {"bf16", "e4m3fn", "fp16"}) {
    const bool lossy = std::string(fmt) != "fp16";
    Checker c, plain, linear;
    for (int64_t step = 0; step < 6; ++step) {
      // e4m3fn under current scaling (its max, 448, is below the offset);
      // the 16-bit formats unscaled.
      const bool fp8 = std::string(fmt) == "e4m3fn";
      const TensorRecord offset_act =
          Act(step, make(static_cast<uint32_t>(step), true), rows, fmt, fp8 ? "current" : "none", fp8 ? 0 : 1);
      c.Add(offset_act);
      c.Add(reader(step, "BatchNorm1d"));
      const std::vector<Finding> f = c.EndStep(step);
      // `records` (5) consecutive records: the finding at the fifth.
      EXPECT_EQ(Count(f, "lp_centred_snr"), lossy && step == 4 ? 1 : 0) << fmt << " " << step;
      for (const Finding& g : f) {
        if (g.rule != "lp_centred_snr") continue;
        EXPECT_GT(g.evidence.at("share"), 0.9);
        EXPECT_NEAR(g.evidence.at("median_offset_binades"), 9.5, 0.5);
      }
      // The same variation without the offset keeps its SNR.
      plain.Add(Act(step, make(static_cast<uint32_t>(step), false), rows, fmt, fp8 ? "current" : "none", fp8 ? 0 : 1));
      plain.Add(reader(step, "BatchNorm1d"));
      EXPECT_EQ(Count(plain.EndStep(step), "lp_centred_snr"), 0) << fmt << " " << step;
      // Read by a Linear, the offset is signal too: not judged.
      linear.Add(offset_act);
      linear.Add(reader(step, "Linear"));
      EXPECT_EQ(Count(linear.EndStep(step), "lp_centred_snr"), 0) << fmt << " " << step;
    }
  }
}

TEST(LowPrecisionGroups, CentredSnrBeforeALayerNormJudgesRows) {
  // Each sample rides on its own level 2^10..2^11 (a sensor's DC level)
  // with variation ~1 across its 48 values; a LayerNorm reads the
  // variation. Over the batch each position varies with the levels, so
  // per position there is no offset: only the rows show it.
  const int64_t rows = 32, cols = 48;
  std::mt19937 rng(2);
  auto make = [&](uint32_t seed) {
    std::vector<float> x = Gaussian(rows * cols, seed);
    for (int64_t r = 0; r < rows; ++r) {
      const float level = std::exp2(10.0f + static_cast<float>(rng() % 1000) / 1000.0f);
      for (int64_t c = 0; c < cols; ++c) x[r * cols + c] += level;
    }
    return x;
  };
  // A LayerNorm of another shape tapped next read something else (after an
  // attention's product with V, say): a normalization keeps its input's
  // shape, so it is not this tensor's reader and nothing is judged.
  Checker ln, bn, other;
  int fired_ln = 0, fired_bn = 0, fired_other = 0;
  for (int64_t step = 0; step < 5; ++step) {
    const TensorRecord a = Act(step, make(static_cast<uint32_t>(step)), rows, "bf16", "none", 1);
    EXPECT_LT(SampleSummary::ShareBelow(a.samples->row_log2_offset, 9), 0.1);
    TensorRecord next = a;
    next.name = "norm";
    next.formats.clear();
    next.module_type = "LayerNorm";
    ln.Add(a), ln.Add(next);
    fired_ln += Count(ln.EndStep(step), "lp_centred_snr");
    TensorRecord elsewhere = next;
    elsewhere.shape = {rows, 16};
    other.Add(a), other.Add(elsewhere);
    fired_other += Count(other.EndStep(step), "lp_centred_snr");
    next.module_type = "BatchNorm1d";
    bn.Add(a), bn.Add(next);
    fired_bn += Count(bn.EndStep(step), "lp_centred_snr");
  }
  EXPECT_EQ(fired_ln, 1);
  EXPECT_EQ(fired_bn, 0);
  EXPECT_EQ(fired_other, 0);
}

// A stored run keeps the summaries (stats.samples), so `lpsim check` on it
// judges as the live run did: the saturated softmax that only the value
// count flags is spared after a round trip through the run database.
TEST(LowPrecisionGroups, StoredRunJudgesAsTheLiveRun) {
  const TensorRecord live = Act(0, SaturatedSoftmax(64, 16), 64, "e4m3fn", "current", 0);
  std::string dir = ::testing::TempDir() + "lpsim_samples_XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  {
    StatusOr<std::unique_ptr<RunWriter>> w = RunWriter::Open(dir, "stored", "{}");
    ASSERT_TRUE(w.ok()) << w.status().message();
    ASSERT_TRUE((*w)->Add(live).ok());
    ASSERT_TRUE((*w)->Close(Status()).ok());
  }
  StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(dir);
  ASSERT_TRUE(r.ok()) << r.status().message();
  StatusOr<std::vector<TensorRecord>> stored = (*r)->Records();
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  ASSERT_EQ(stored->size(), 1u);
  ASSERT_TRUE((*stored)[0].samples.has_value());
  std::filesystem::remove_all(dir);
  auto judge = [](const TensorRecord& rec) {
    Checker c;
    c.Add(rec);
    return Count(c.EndStep(0), "lp_dynamic_range");
  };
  EXPECT_EQ(judge((*stored)[0]), judge(live));
  EXPECT_EQ(judge((*stored)[0]), 0);
  TensorRecord bare = (*stored)[0];
  bare.samples.reset();
  EXPECT_EQ(judge(bare), 1) << "without the summary the value count fires: the stored one was used";
}

}  // namespace
}  // namespace lpsim
