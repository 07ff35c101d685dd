#include "analysis/step_analyzer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "formats/format.h"
#include "simd/analyze.h"
#include "simd/scaling.h"
#include "store/run_db.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;

std::vector<Format> Formats(std::initializer_list<const char*> specs) {
  std::vector<Format> out;
  for (const char* s : specs) out.push_back(ParseFormat(s).value());
  return out;
}

// A tensor whose amax grows with the step, so delayed scaling lags it.
std::vector<float> Values(int64_t step, size_t n, uint32_t seed) {
  std::mt19937 rng(seed + static_cast<uint32_t>(step));
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  const float growth = std::ldexp(1.0f, static_cast<int>(step));
  for (float& x : v) x = d(rng) * growth * 1e-3f;
  return v;
}

// Feeds `steps` steps of two tensors and a loss; returns the run directory.
struct Fed {
  std::vector<TensorRecord> last;
  std::vector<Finding> findings;
};

Fed Feed(StepAnalyzer& a, int steps, bool own, bool poison_last = false, int64_t first = 0) {
  for (int64_t step = first; step < first + steps; ++step) {
    for (const char* name : {"fc1", "fc2"}) {
      std::vector<float> v = Values(step, 96, name[2] == '1' ? 1 : 2);
      if (poison_last && step == first + steps - 1) v[5] = std::numeric_limits<float>::quiet_NaN();
      TensorSnapshot s;
      s.step = step;
      s.name = name;
      s.role = Role::kActivationGrad;
      s.module_type = "Linear";
      s.shape = {8, 12};
      s.dtype = "float32";
      std::vector<float> keep;
      if (own) {
        FloatBuffer b = a.Buffer(v.size());
        std::memcpy(b.data.get(), v.data(), v.size() * sizeof(float));
        s.Own(std::move(b), v.size());
        a.Add(std::move(s));
      } else {
        s.Borrow(v.data(), v.size());
        a.Add(std::move(s));  // inline: done before returning
      }
    }
    a.Add(ScalarRecord{step, "loss", 1.0 / static_cast<double>(step + 1)});
    a.EndStep(step, /*tracked=*/true);
  }
  return {a.last_records(), a.findings()};
}

class StepAnalyzerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("lpsim_step_analyzer_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

StepAnalyzerOptions Options(bool background) {
  StepAnalyzerOptions o;
  o.formats = Formats({"e4m3fn", "e5m2"});
  o.scaling = Scaling::Delayed(4);
  o.background = background;
  return o;
}

// The rules judge every format when judge_formats is unset, per role only the
// named one when it is set, and none when the map is empty; the records keep
// every format either way. Gradients of ~1e-6 flush to zero in e4m3fn and in
// e5m2 (below half of 2^-16), so lp_underflow fires in each judged format.
TEST_F(StepAnalyzerTest, JudgeFormatsPicksTheFormatsTheRulesSee) {
  using Judge = std::optional<std::map<Role, std::string>>;
  const std::vector<std::pair<Judge, std::set<std::string>>> cases = {
      {std::nullopt, {"e4m3fn", "e5m2"}},
      {std::map<Role, std::string>{{Role::kActivationGrad, "e5m2"}}, {"e5m2"}},
      {std::map<Role, std::string>{{Role::kWeight, "e4m3fn"}}, {}},  // another role
      {std::map<Role, std::string>{}, {}},
  };
  int run = 0;
  for (const auto& [judge, expected] : cases) {
    StepAnalyzerOptions o = Options(false);
    o.scaling = Scaling::None();
    o.judge_formats = judge;
    // The rules run where the records are written (rank 0).
    auto writer = RunWriter::Open((root_ / ("run" + std::to_string(run++))).string(), "t", "{}").value();
    StepAnalyzer a(o, writer.get());
    std::vector<float> v(96);
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1e-6f * (1.0f + static_cast<float>(i) / 96.0f);
    for (int64_t step = 0; step < 2; ++step) {  // lp_underflow asks for two steps in a row
      TensorSnapshot t;
      t.step = step;
      t.name = "fc1";
      t.role = Role::kActivationGrad;
      t.module_type = "Linear";
      t.shape = {8, 12};
      t.dtype = "float32";
      t.Borrow(v.data(), v.size());
      a.Add(std::move(t));
      a.EndStep(step, /*tracked=*/true);
    }
    std::set<std::string> judged;
    for (const Finding& f : a.findings()) {
      if (f.rule != "lp_underflow") continue;
      for (const char* fmt : {"e4m3fn", "e5m2"}) {
        if (f.message.find(std::string("[") + fmt + ",") != std::string::npos) judged.insert(fmt);
      }
    }
    EXPECT_EQ(judged, expected) << (judge ? judge->size() : 99);
    ASSERT_EQ(a.last_records().size(), 1u);
    EXPECT_EQ(a.last_records()[0].formats.size(), 2u);
  }
}

// The delayed scale of each step comes from the amax of earlier steps only:
// replaying DelayedScaler over the recorded amaxes gives the recorded scales.
TEST_F(StepAnalyzerTest, DelayedScalesFollowTheAmaxHistory) {
  StepAnalyzerOptions o = Options(false);
  o.checks = false;
  auto writer = RunWriter::Open((root_ / "run").string(), "t", "{}").value();
  {
    StepAnalyzer a(o, writer.get());
    Feed(a, 8, /*own=*/false);
  }
  ASSERT_TRUE(writer->Close(Status()).ok());
  auto reader = RunReader::Open((root_ / "run").string()).value();
  RecordFilter f;
  f.name = "fc1";
  const std::vector<TensorRecord> recs = reader->Records(f).value();
  ASSERT_EQ(recs.size(), 8u);
  for (size_t fi = 0; fi < o.formats.size(); ++fi) {
    DelayedScaler replay(o.formats[fi], o.scaling.delayed);
    for (const TensorRecord& r : recs) {
      ASSERT_EQ(r.formats.size(), 2u);
      EXPECT_EQ(r.formats[fi].recipe, "delayed4");
      EXPECT_EQ(r.formats[fi].scale, replay.Scale()) << "step " << r.step;
      // The counts are those of one cast at that scale.
      const std::vector<float> v = Values(r.step, 96, 1);
      const AnalyzeResult exact =
          simd::AnalyzeRef(v.data(), v.size(), {FormatSlot{o.formats[fi], replay.Scale()}});
      EXPECT_TRUE(r.formats[fi].counts == exact.formats[0]) << "step " << r.step;
      replay.Update(r.stats.max_abs);
    }
  }
}

// Block recipes: each format's counts are one block cast of the tensor as a
// [numel / last_dim, last_dim] matrix, and the statistics those of the plain
// analysis (the slots of simd::Analyze are not used for them).
TEST_F(StepAnalyzerTest, BlockRecipeCountsAreTheBlockCasts) {
  StepAnalyzerOptions o;
  o.formats = Formats({"e4m3fn", "e2m1fn", "bf16"});
  o.scaling = Scaling::Mx();
  o.checks = false;
  auto writer = RunWriter::Open((root_ / "run").string(), "t", "{}").value();
  {
    StepAnalyzer a(o, writer.get());
    Feed(a, 2, /*own=*/false);
  }
  ASSERT_TRUE(writer->Close(Status()).ok());
  auto reader = RunReader::Open((root_ / "run").string()).value();
  const std::vector<TensorRecord> recs = reader->Records().value();
  ASSERT_EQ(recs.size(), 4u);
  for (const TensorRecord& r : recs) {
    const std::vector<float> v = Values(r.step, 96, r.name == "fc1" ? 1 : 2);
    const TensorStats want = simd::AnalyzeRef(v.data(), v.size(), {}).stats;
    EXPECT_EQ(r.stats.max_abs, want.max_abs);
    EXPECT_EQ(r.stats.exponent_hist, want.exponent_hist);
    ASSERT_EQ(r.formats.size(), o.formats.size());
    for (size_t fi = 0; fi < o.formats.size(); ++fi) {
      CastCounts c;
      std::vector<float> out(v.size()), scales(v.size());
      simd::BlockQuantizeRef(o.formats[fi], v.data(), 8, 12, BlockSpec::Mx(), {}, out.data(),
                             scales.data(), &c);
      EXPECT_EQ(r.formats[fi].recipe, "mx");
      EXPECT_TRUE(r.formats[fi].counts == c) << r.name << " step " << r.step << " "
                                             << o.formats[fi].name();
    }
  }
}

// Background analysis (owned buffers, a worker thread, a tiny queue bound
// that forces the producer to wait) stores exactly what inline analysis does.
TEST_F(StepAnalyzerTest, BackgroundStoresWhatInlineStores) {
  auto run = [&](bool background, const std::string& dir) {
    StepAnalyzerOptions o = Options(background);
    o.max_queued_bytes = 200;  // smaller than one tensor: at most one queued
    auto writer = RunWriter::Open((root_ / dir).string(), "t", "{}").value();
    Fed fed;
    {
      StepAnalyzer a(o, writer.get());
      fed = Feed(a, 12, /*own=*/background, /*poison_last=*/true);
    }
    EXPECT_TRUE(writer->Close(Status()).ok());
    return fed;
  };
  const Fed inl = run(false, "inline");
  const Fed bg = run(true, "background");
  auto in_reader = RunReader::Open((root_ / "inline").string()).value();
  auto bg_reader = RunReader::Open((root_ / "background").string()).value();
  const auto a = in_reader->Records().value();
  const auto b = bg_reader->Records().value();
  ASSERT_EQ(a.size(), 24u);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].step, b[i].step);
    EXPECT_EQ(a[i].stats.max_abs, b[i].stats.max_abs);
    EXPECT_EQ(a[i].stats.exponent_hist, b[i].stats.exponent_hist);
    ASSERT_EQ(a[i].formats.size(), b[i].formats.size());
    for (size_t f = 0; f < a[i].formats.size(); ++f) {
      EXPECT_EQ(a[i].formats[f].scale, b[i].formats[f].scale);
      EXPECT_TRUE(a[i].formats[f].counts == b[i].formats[f].counts);
    }
  }
  EXPECT_EQ(in_reader->Scalars("loss").value().size(), 12u);
  EXPECT_EQ(bg_reader->Scalars("loss").value().size(), 12u);
  // The NaN planted in the last step is found by both, at that step.
  auto rules = [](const std::vector<Finding>& fs) {
    std::vector<std::string> out;
    for (const Finding& f : fs) out.push_back(f.rule + "@" + std::to_string(f.step) + ":" + f.tensor);
    return out;
  };
  EXPECT_EQ(rules(inl.findings), rules(bg.findings));
  bool nonfinite = false;
  for (const Finding& f : bg.findings) nonfinite |= f.rule == "nonfinite" && f.step == 11;
  EXPECT_TRUE(nonfinite);
  const auto stored = bg_reader->Findings().value();
  EXPECT_EQ(stored.size(), bg.findings.size());
  // last_records() is the last tracked step's records, in call order.
  ASSERT_EQ(bg.last.size(), 2u);
  EXPECT_EQ(bg.last[0].name, "fc1");
  EXPECT_EQ(bg.last[1].step, 11);
}

// Without a writer (ranks other than 0) nothing is recorded or judged, and
// the analyzer still keeps its scaling state.
TEST_F(StepAnalyzerTest, NoWriterNoRecords) {
  StepAnalyzerOptions o = Options(false);
  o.recording = false;
  StepAnalyzer a(o, nullptr);
  const Fed fed = Feed(a, 3, false, true);
  EXPECT_TRUE(fed.last.empty());
  EXPECT_TRUE(fed.findings.empty());
}

// Buffers come back to the pool once analyzed and are reused.
TEST_F(StepAnalyzerTest, BuffersAreReused) {
  StepAnalyzerOptions o = Options(false);
  o.checks = false;
  StepAnalyzer a(o, nullptr);
  FloatBuffer b = a.Buffer(100);
  const float* first = b.data.get();
  TensorSnapshot s;
  s.shape = {100};
  s.Own(std::move(b), 100);
  std::fill(s.mutable_data(), s.mutable_data() + 100, 1.0f);
  a.Add(std::move(s));
  FloatBuffer again = a.Buffer(64);
  EXPECT_EQ(again.data.get(), first);
  EXPECT_GE(again.capacity, 100u);
}

// What the hooks of a watcher (the live agent) see, in order: each step's
// records, scalars and findings, then its end; the same scalars and findings
// the store gets, inline and in the background mode.
TEST_F(StepAnalyzerTest, HooksSeeEachStepBeforeItsEnd) {
  for (bool background : {false, true}) {
    SCOPED_TRACE(background ? "background" : "inline");
    const std::string dir = background ? "background" : "inline";
    StepAnalyzerOptions o = Options(background);
    std::vector<std::string> log;  // only the analyzing thread appends
    std::vector<ScalarRecord> scalars;
    std::vector<Finding> found;
    o.on_record = [&](const TensorRecord& r) { log.push_back("record " + std::to_string(r.step) + " " + r.name); };
    o.on_scalar = [&](const ScalarRecord& r) {
      log.push_back("scalar " + std::to_string(r.step) + " " + r.name);
      scalars.push_back(r);
    };
    o.on_finding = [&](const Finding& f) {
      log.push_back("finding " + std::to_string(f.step) + " " + f.rule);
      found.push_back(f);
    };
    o.on_step_end = [&](int64_t step) { log.push_back("end " + std::to_string(step)); };
    auto writer = RunWriter::Open((root_ / dir).string(), "t", "{}").value();
    {
      StepAnalyzer a(o, writer.get());
      Finding note;
      note.rule = "tracker_note";
      note.severity = Severity::kInfo;
      note.step = 0;
      note.message = "outside the rules";
      a.Add(note, /*listed=*/false);
      Feed(a, 4, /*own=*/background, /*poison_last=*/true);
    }
    ASSERT_TRUE(writer->Close(Status()).ok());
    auto reader = RunReader::Open((root_ / dir).string()).value();

    // Step 0 in call order; the rules' findings of the step come before its end.
    const std::vector<std::string> head = {"finding 0 tracker_note", "record 0 fc1", "record 0 fc2", "scalar 0 loss"};
    ASSERT_GE(log.size(), head.size() + 1);
    EXPECT_EQ(std::vector<std::string>(log.begin(), log.begin() + 4), head);
    size_t i = head.size();
    while (i < log.size() && log[i].rfind("finding 0 ", 0) == 0) ++i;
    ASSERT_LT(i, log.size());
    EXPECT_EQ(log[i], "end 0");
    // Nothing of a step comes after its end; the ends come once, in order.
    int64_t ended = -1;
    for (const std::string& line : log) {
      const size_t sp = line.find(' ');
      const int64_t step = std::stoll(line.substr(sp + 1));
      if (line.rfind("end ", 0) == 0) {
        EXPECT_EQ(step, ended + 1) << line;
        ended = step;
      } else {
        EXPECT_GT(step, ended) << line;
      }
    }
    EXPECT_EQ(ended, 3);
    // The hooks saw what the store holds.
    const std::vector<ScalarRecord> stored = reader->Scalars("loss").value();
    ASSERT_EQ(scalars.size(), stored.size());
    for (size_t i = 0; i < stored.size(); ++i) {
      EXPECT_EQ(scalars[i].step, stored[i].step);
      EXPECT_EQ(scalars[i].value, stored[i].value);
    }
    const std::vector<Finding> stored_findings = reader->Findings().value();
    ASSERT_EQ(found.size(), stored_findings.size());
    bool nonfinite = false;
    for (size_t i = 0; i < found.size(); ++i) {
      EXPECT_EQ(found[i].rule, stored_findings[i].rule);
      EXPECT_EQ(found[i].step, stored_findings[i].step);
      EXPECT_EQ(found[i].tensor, stored_findings[i].tensor);
      nonfinite |= found[i].rule == "nonfinite" && found[i].step == 3;
    }
    EXPECT_TRUE(nonfinite);
  }
}

// Ranks other than 0 (recording = false) call no hook.
TEST_F(StepAnalyzerTest, NoHooksWhenNotRecording) {
  StepAnalyzerOptions o = Options(false);
  o.recording = false;
  int calls = 0;
  o.on_record = [&](const TensorRecord&) { ++calls; };
  o.on_scalar = [&](const ScalarRecord&) { ++calls; };
  o.on_finding = [&](const Finding&) { ++calls; };
  o.on_step_end = [&](int64_t) { ++calls; };
  StepAnalyzer a(o, nullptr);
  Feed(a, 3, false, true);
  Finding f;
  f.rule = "x";
  a.Add(f);
  EXPECT_EQ(calls, 0);
}

// SetFormats changes the formats of the snapshots added after it, and their
// delayed scales start a new history; earlier snapshots keep the old ones.
TEST_F(StepAnalyzerTest, SetFormatsAppliesFromTheNextSnapshot) {
  for (bool background : {false, true}) {
    SCOPED_TRACE(background ? "background" : "inline");
    StepAnalyzerOptions o = Options(background);
    o.checks = false;
    const std::vector<Format> later = Formats({"bf16", "e3m2"});
    std::vector<TensorRecord> seen;
    o.on_record = [&](const TensorRecord& r) { seen.push_back(r); };
    {
      StepAnalyzer a(o, nullptr);
      Feed(a, 3, background);
      a.SetFormats(later);
      Feed(a, 3, background, false, /*first=*/3);
    }
    ASSERT_EQ(seen.size(), 12u);
    for (size_t fi = 0; fi < later.size(); ++fi) {
      DelayedScaler replay(later[fi], o.scaling.delayed);  // a fresh history at step 3
      for (const TensorRecord& r : seen) {
        if (r.name != "fc1") continue;
        if (r.step < 3) {
          ASSERT_EQ(r.formats.size(), 2u);
          EXPECT_EQ(r.formats[fi].format, o.formats[fi].name());
          continue;
        }
        ASSERT_EQ(r.formats.size(), 2u);
        EXPECT_EQ(r.formats[fi].format, later[fi].name());
        EXPECT_EQ(r.formats[fi].scale, replay.Scale()) << "step " << r.step;
        const std::vector<float> v = Values(r.step, 96, 1);
        const AnalyzeResult exact = simd::AnalyzeRef(v.data(), v.size(), {FormatSlot{later[fi], replay.Scale()}});
        EXPECT_TRUE(r.formats[fi].counts == exact.formats[0]) << "step " << r.step;
        replay.Update(r.stats.max_abs);
      }
    }
  }
}

}  // namespace
}  // namespace lpsim
