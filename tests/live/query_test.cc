// Live queries (live/query.h): parsing, the malformed-query corpus, a seeded
// mutation fuzz, and the evaluator's events and reduction windows, checked
// against values worked out by hand.
#include "live/query.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

namespace lpsim::live {
namespace {

using Json = nlohmann::json;

TensorRecord Rec(int64_t step, const std::string& name, Role role, uint64_t under_e4m3, uint64_t over_e5m2) {
  TensorRecord r;
  r.step = step;
  r.name = name;
  r.role = role;
  r.shape = {2, 2};
  r.stats.count = 4;
  r.stats.max_abs = 2.0f * static_cast<float>(step + 1);
  CastCounts a, b;
  a.numel = b.numel = 4;
  a.underflow = under_e4m3;
  b.overflow = over_e5m2;
  r.formats.push_back({"e4m3fn", "delayed16", 1.0f, a});
  r.formats.push_back({"e5m2", "delayed16", 0.5f, b});
  return r;
}

std::vector<Json> Parse(const std::vector<std::string>& events) {
  std::vector<Json> out;
  for (const std::string& e : events) out.push_back(Json::parse(e));
  return out;
}

Stream Make(const std::string& q) {
  StatusOr<Query> parsed = ParseQuery(q);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return Stream(std::move(parsed).value());
}

TEST(LiveQuery, DefaultsAndCanonicalText) {
  StatusOr<Query> q = ParseQuery("{}");
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->kind, EventKind::kStep);
  EXPECT_EQ(q->fields, (std::vector<std::string>{"max_abs", "underflow_pct", "overflow_pct", "snr_db"}));
  EXPECT_TRUE(q->per_format);
  EXPECT_EQ(Json::parse(q->text)["kind"], "step");
  StatusOr<Query> s = ParseQuery(R"({"kind": "scalar", "name": "^loss$", "reduce": {"op": "mean", "seconds": 2}})");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->op, ReduceOp::kMean);
  EXPECT_EQ(s->window_seconds, 2.0);
  EXPECT_EQ(s->fields, std::vector<std::string>{"value"});
}

// Every line of the corpus is refused, with a message naming what is wrong.
TEST(LiveQuery, MalformedCorpusIsRefusedWithTheReason) {
  std::ifstream in(LPSIM_LIVE_TEST_DIR "/bad_queries.jsonl");
  ASSERT_TRUE(in) << "missing corpus";
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    const Json c = Json::parse(line);
    const std::string q = c["query"], want = c["error"];
    StatusOr<Query> r = ParseQuery(q);
    ASSERT_FALSE(r.ok()) << "accepted: " << q;
    EXPECT_NE(r.status().message().find(want), std::string::npos)
        << "query " << q << "\n  got: " << r.status().message() << "\n  want a message with: " << want;
    ++n;
  }
  EXPECT_GE(n, 30);
}

// Random byte edits of valid queries never crash the parser, and whatever
// it accepts re-parses from its canonical text to the same query.
TEST(LiveQuery, MutationFuzzNeverCrashes) {
  const std::vector<std::string> seeds = {
      R"({"kind": "step", "tensor": "^fc", "role": "activation", "format": "e4m3fn", "fields": ["underflow_pct"]})",
      R"({"kind": "scalar", "name": "loss", "reduce": {"op": "mean", "steps": 10}})",
      R"({"kind": "finding", "severity": "warning", "reduce": {"op": "count", "seconds": 1.5}})",
  };
  std::mt19937 rng(1234);
  const std::string alphabet = "{}[]\":,.0123456789-+eE \\aksteprolfimnuxdwcg()|^$*";
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string q = seeds[i % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !q.empty(); ++k) {
      const size_t pos = rng() % q.size();
      switch (rng() % 3) {
        case 0: q[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: q.erase(pos, 1); break;
        default: q.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    StatusOr<Query> r = ParseQuery(q);
    if (!r.ok()) {
      EXPECT_FALSE(r.status().message().empty()) << q;
      continue;
    }
    ++accepted;
    StatusOr<Query> again = ParseQuery(r->text);
    ASSERT_TRUE(again.ok()) << r->text << ": " << again.status().message();
    EXPECT_EQ(again->text, r->text);
  }
  EXPECT_GT(accepted, 0);  // the fuzz reaches the evaluator's inputs too
}

TEST(LiveStream, PerFormatEventsCarryExactPercentages) {
  Stream s = Make(R"({"kind": "step", "tensor": "^fc1$", "fields": ["underflow_pct", "overflow_pct", "max_abs"]})");
  std::vector<std::string> out;
  s.OnRecord(Rec(3, "fc1", Role::kActivation, 1, 3), 0, &out);
  s.OnRecord(Rec(3, "fc10", Role::kActivation, 1, 3), 0, &out);  // regex is anchored by the query
  const std::vector<Json> ev = Parse(out);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0]["format"], "e4m3fn");
  EXPECT_EQ(ev[0]["recipe"], "delayed16");
  EXPECT_EQ(ev[0]["step"], 3);
  EXPECT_EQ(ev[0]["underflow_pct"].get<double>(), 25.0);  // 1 of 4
  EXPECT_EQ(ev[0]["overflow_pct"].get<double>(), 0.0);
  EXPECT_EQ(ev[0]["max_abs"].get<double>(), 8.0);
  EXPECT_EQ(ev[1]["format"], "e5m2");
  EXPECT_EQ(ev[1]["overflow_pct"].get<double>(), 75.0);   // 3 of 4
}

TEST(LiveStream, FiltersRoleFormatAndTarget) {
  Stream s = Make(R"({"role": "weight_grad", "target": "e5m2/delayed16", "fields": ["scale", "range"]})");
  std::vector<std::string> out;
  s.OnRecord(Rec(0, "fc1", Role::kActivation, 0, 0), 0, &out);
  EXPECT_TRUE(out.empty());
  s.OnRecord(Rec(0, "fc1.weight", Role::kWeightGrad, 0, 0), 0, &out);
  const std::vector<Json> ev = Parse(out);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0]["format"], "e5m2");
  EXPECT_EQ(ev[0]["scale"].get<double>(), 0.5);
  // e5m2: min subnormal 2^-16 (underflow below half of it), min normal
  // 2^-14, max 57344 = 1.75 * 2^15; seen through scale 0.5 all move up by 1.
  ASSERT_EQ(ev[0]["range"].size(), 3u);
  EXPECT_EQ(ev[0]["range"][0].get<double>(), -17.0 + 1.0);
  EXPECT_EQ(ev[0]["range"][1].get<double>(), -14.0 + 1.0);
  EXPECT_DOUBLE_EQ(ev[0]["range"][2].get<double>(), std::log2(57344.0) + 1.0);
}

TEST(LiveStream, TensorFieldsWithoutFormatsGiveOneEventPerRecord) {
  Stream s = Make(R"({"fields": ["numel", "exp_hist", "shape"]})");
  TensorRecord r = Rec(1, "fc2", Role::kWeight, 0, 0);
  r.stats.exponent_hist[0 - TensorStats::kMinExponent] = 3;  // [1, 2)
  r.stats.exponent_hist[-2 - TensorStats::kMinExponent] = 1;  // [0.25, 0.5)
  std::vector<std::string> out;
  s.OnRecord(r, 0, &out);
  const std::vector<Json> ev = Parse(out);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_FALSE(ev[0].contains("format"));
  EXPECT_EQ(ev[0]["numel"].get<double>(), 4.0);
  EXPECT_EQ(ev[0]["exp_hist"]["e"], Json::array({-2, 0}));
  EXPECT_EQ(ev[0]["exp_hist"]["c"], Json::array({1, 3}));
  EXPECT_EQ(ev[0]["shape"], Json::array({2, 2}));
}

// Op last reduces any field, numbers or not (a dashboard's histogram at a
// bounded rate): a seconds window emits the fields of its latest record. The
// record at 1.2 s finds the window [0 s, 1 s) due: it closes it and opens the
// next.
TEST(LiveStream, LastKeepsEveryFieldOfTheWindowsLatestRecord) {
  Stream s = Make(R"({"fields": ["exp_hist", "max_abs"], "reduce": {"op": "last", "seconds": 1}})");
  std::vector<std::string> out;
  const double times[] = {0.0, 0.5, 1.2};
  for (int step = 0; step < 3; ++step) {
    TensorRecord r = Rec(step, "fc2", Role::kWeight, 0, 0);
    r.stats.exponent_hist[step - TensorStats::kMinExponent] = 4;  // [2^step, 2^(step+1))
    r.stats.max_abs = static_cast<float>(1 << step);
    s.OnRecord(r, times[step], &out);
    s.OnStepEnd(step, times[step], &out);
    if (step == 1) {
      EXPECT_TRUE(out.empty()) << "the 1 s window is still open at 0.5 s";
    }
  }
  const std::vector<Json> ev = Parse(out);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0]["op"], "last");
  EXPECT_EQ(ev[0]["from_step"], 0);
  EXPECT_EQ(ev[0]["to_step"], 1);
  EXPECT_EQ(ev[0]["n"], 2);
  EXPECT_EQ(ev[0]["exp_hist"]["e"], Json::array({1}));
  EXPECT_EQ(ev[0]["exp_hist"]["c"], Json::array({4}));
  EXPECT_EQ(ev[0]["max_abs"].get<double>(), 2.0);
  // Other ops still refuse a field that is not a number.
  EXPECT_FALSE(ParseQuery(R"({"fields": ["exp_hist"], "reduce": {"op": "max", "seconds": 1}})").ok());
}

// Windows of 3 steps are aligned ([0, 3), [3, 6)) and close at the end of
// their last step.
TEST(LiveStream, StepWindowsReduceExactly) {
  for (const auto& [op, want0, want1] :
       std::vector<std::tuple<std::string, double, double>>{{"mean", 50.0, 25.0},
                                                            {"min", 25.0, 0.0},
                                                            {"max", 75.0, 50.0},
                                                            {"sum", 150.0, 75.0},
                                                            {"last", 75.0, 50.0}}) {
    Stream s = Make(R"({"tensor": "fc1", "format": "e4m3fn", "fields": ["underflow_pct"], "reduce": {"op": ")" + op +
                    R"(", "steps": 3}})");
    const uint64_t under[] = {1, 2, 3, 0, 1, 2};  // of 4: 25 50 75 | 0 25 50
    std::vector<std::string> out;
    for (int step = 0; step < 6; ++step) {
      s.OnRecord(Rec(step, "fc1", Role::kActivation, under[step], 0), 0, &out);
      s.OnStepEnd(step, 0, &out);
      if (step == 1) {
        EXPECT_TRUE(out.empty()) << op << ": the window [0, 3) is still open";
      }
    }
    const std::vector<Json> ev = Parse(out);
    ASSERT_EQ(ev.size(), 2u) << op;
    EXPECT_EQ(ev[0]["op"], op);
    EXPECT_EQ(ev[0]["from_step"], 0);
    EXPECT_EQ(ev[0]["to_step"], 2);
    EXPECT_EQ(ev[0]["n"], 3);
    EXPECT_EQ(ev[0]["underflow_pct"].get<double>(), want0) << op;
    EXPECT_EQ(ev[1]["from_step"], 3);
    EXPECT_EQ(ev[1]["underflow_pct"].get<double>(), want1) << op;
  }
}

// A record past its window's end closes the window even without a step end
// (tracking every k steps: no record at the window's last step).
TEST(LiveStream, WindowClosesOnALaterRecord) {
  Stream s = Make(R"({"kind": "scalar", "reduce": {"op": "count", "steps": 10}})");
  std::vector<std::string> out;
  s.OnScalar({2, "loss", 1.0}, 0, &out);
  s.OnScalar({7, "loss", 1.0}, 0, &out);
  EXPECT_TRUE(out.empty());
  s.OnScalar({12, "loss", 1.0}, 0, &out);
  const std::vector<Json> ev = Parse(out);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0]["count"], 2);
  EXPECT_EQ(ev[0]["from_step"], 2);
  EXPECT_EQ(ev[0]["to_step"], 7);
}

TEST(LiveStream, SecondWindowsUseTheClockGiven) {
  Stream s = Make(R"({"kind": "scalar", "name": "^loss$", "reduce": {"op": "mean", "seconds": 2}})");
  std::vector<std::string> out;
  s.OnScalar({0, "loss", 1.0}, 10.0, &out);
  s.OnScalar({1, "loss", 2.0}, 11.0, &out);
  s.OnScalar({1, "lr", 9.0}, 11.0, &out);  // not selected
  s.OnStepEnd(1, 11.5, &out);
  EXPECT_TRUE(out.empty());
  s.OnScalar({2, "loss", 6.0}, 11.9, &out);
  s.OnStepEnd(2, 12.0, &out);  // 2 s after the first value
  const std::vector<Json> ev = Parse(out);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0]["name"], "loss");
  EXPECT_EQ(ev[0]["value"].get<double>(), 3.0);  // (1 + 2 + 6) / 3
}

TEST(LiveStream, NonFiniteValuesStayOutOfMeans) {
  Stream s = Make(R"({"kind": "scalar", "reduce": {"op": "mean", "steps": 2}})");
  std::vector<std::string> out;
  s.OnScalar({0, "loss", std::numeric_limits<double>::infinity()}, 0, &out);
  s.OnScalar({1, "loss", 4.0}, 0, &out);
  s.OnStepEnd(1, 0, &out);
  const std::vector<Json> ev = Parse(out);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0]["value"].get<double>(), 4.0);
  EXPECT_EQ(ev[0]["n"], 2);
}

TEST(LiveStream, FindingsBySeverityAndRule) {
  Stream s = Make(R"({"kind": "finding", "severity": "warning", "rule": "under", "fields": ["rule", "severity"]})");
  std::vector<std::string> out;
  Finding f;
  f.rule = "underflow";
  f.step = 4;
  f.severity = Severity::kInfo;
  s.OnFinding(f, 0, &out);
  EXPECT_TRUE(out.empty());
  f.severity = Severity::kError;
  s.OnFinding(f, 0, &out);
  f.rule = "overflow";
  s.OnFinding(f, 0, &out);
  const std::vector<Json> ev = Parse(out);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0], (Json{{"kind", "finding"}, {"step", 4}, {"rule", "underflow"}, {"severity", "error"}}));
}

}  // namespace
}  // namespace lpsim::live
