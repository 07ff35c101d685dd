// Exports: tandv's two header rows and exponent-column mapping, CSV and JSON
// contents, and atomic writes that leave nothing behind on failure.
#include "store/export.h"
#include "tests/common/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::json;

using Table = std::vector<std::vector<std::string>>;

// RFC 4180 CSV, enough for our own output (quoted fields, doubled quotes).
Table ParseCsv(const std::string& text) {
  Table rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n') {
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
    } else {
      field += c;
    }
  }
  return rows;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr int kBin(int e) { return e - TensorStats::kMinExponent; }

// A run with one record whose exponent histogram is known: 3 values at 2^-20,
// 5 at 1.5, 2 at 2^16, one +Inf, 4 zeros and 2 NaNs.
TensorRecord KnownRecord() {
  TensorRecord r;
  r.step = 7;
  r.name = "fc1";
  r.role = Role::kActivation;
  r.module_type = "Linear";
  r.shape = {17};
  TensorStats& s = r.stats;
  s.count = 17;
  s.zeros = 4;
  s.nans = 2;
  s.pos_infs = 1;
  s.exponent_hist[kBin(-20)] = 3;
  s.exponent_hist[kBin(0)] = 5;
  s.exponent_hist[kBin(16)] = 2;
  s.mean = 0.125;
  s.std = 2.5;
  s.rms = 3.0;
  s.min = 0;
  s.max = 65536;
  s.min_abs = static_cast<float>(std::ldexp(1.0, -20));
  s.max_abs = 65536;
  return r;
}

class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StatusOr<std::unique_ptr<RunWriter>> w =
        RunWriter::Open(dir_.path(), "export-run", R"({"model": "mlp", "lr": 0.5})");
    ASSERT_TRUE(w.ok()) << w.status().message();
    TensorRecord a = KnownRecord();
    a.formats.push_back({"e4m3fn", "none", 1.0f, {}});
    a.formats[0].counts.numel = 17;
    a.formats[0].counts.underflow = 3;
    a.formats[0].counts.overflow = 2;
    a.formats[0].counts.sq_error = 1;
    a.formats[0].counts.sq_signal = 1000;
    a.formats.push_back({"e5m2", "delayed16", 0.5f, {}});
    a.formats[1].counts.numel = 17;
    a.formats[1].counts.sq_signal = 1000;  // sq_error 0: SNR +Inf
    ASSERT_TRUE((*w)->Add(a).ok());
    TensorRecord b = KnownRecord();
    b.name = "fc1.weight,odd \"name\"";  // CSV quoting
    b.role = Role::kWeight;
    b.module_type = "";
    ASSERT_TRUE((*w)->Add(b).ok());
    TensorRecord c = KnownRecord();
    c.name = "fc1.weight.exp_avg";
    c.role = Role::kOptimizerState;
    c.stats.mean = std::nan("");
    ASSERT_TRUE((*w)->Add(c).ok());
    ASSERT_TRUE((*w)->Add(ScalarRecord{7, "loss", 0.75}).ok());
    Finding f;
    f.rule = "overflow";
    f.step = 7;
    f.tensor = "fc1";
    f.message = "fc1 overflows e4m3fn";
    f.evidence = {{"fraction", 2.0 / 17}, {"limit", HUGE_VAL}};
    ASSERT_TRUE((*w)->Add(f).ok());
    ASSERT_TRUE((*w)->AddCapture(7, "cap/7", "why").ok());
    ASSERT_TRUE((*w)->EndStep(7).ok());
    ASSERT_TRUE((*w)->Close(Status()).ok());
    StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open(dir_.path());
    ASSERT_TRUE(r.ok()) << r.status().message();
    reader_ = std::move(r).value();
  }

  Table ExportTable(ExportKind kind, const ExportOptions& opt = {}) {
    const std::string out = dir_ / (std::string("out.") + ToString(kind));
    Status s = Export(*reader_, kind, out, opt);
    EXPECT_TRUE(s.ok()) << s.message();
    return ParseCsv(ReadFile(out));
  }

  // Column index of (group, name) in a tandv table; -1 if absent.
  static int Col(const Table& t, const std::string& group, const std::string& name) {
    for (size_t i = 0; i < t[0].size(); ++i) {
      if (t[0][i] == group && t[1][i] == name) return static_cast<int>(i);
    }
    return -1;
  }

  std::vector<std::string> LeftoverTempFiles(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().filename().string().find(".tmp.") != std::string::npos) {
        out.push_back(e.path().string());
      }
    }
    return out;
  }

  TempDir dir_;
  std::unique_ptr<RunReader> reader_;
};

TEST_F(ExportTest, TandvHasTwoHeaderRowsInTandvsLayout) {
  const Table t = ExportTable(ExportKind::kTandv);
  ASSERT_EQ(t.size(), 2u + 3u);
  for (const auto& row : t) ASSERT_EQ(row.size(), t[0].size());

  // metadata: exactly tandv's five columns, in its order.
  std::vector<std::string> meta;
  for (size_t i = 0; i < t[0].size(); ++i) {
    if (t[0][i] == "metadata") meta.push_back(t[1][i]);
  }
  EXPECT_THAT(meta, ElementsAre("name", "type", "tensor_type", "step", "dtype"));
  for (const char* c : {"mean", "std", "max_abs", "min_abs", "rm2", "count", "zeros", "nans", "p50",
                        "p99", "e4m3fn/none/underflow", "e5m2/delayed16/snr_db"}) {
    EXPECT_GE(Col(t, "scalar_stats", c), 0) << c;
  }
  EXPECT_EQ(Col(t, "scalar_stats", "mean_abs"), -1) << "not derivable from our stats";
  // exponent_counts: -inf, -16..16, +inf, contiguous and in order.
  const int first = Col(t, "exponent_counts", "-inf");
  ASSERT_GE(first, 0);
  for (int k = -16; k <= 16; ++k) {
    EXPECT_EQ(Col(t, "exponent_counts", std::to_string(k)), first + 1 + (k + 16)) << k;
  }
  EXPECT_EQ(Col(t, "exponent_counts", "+inf"), first + 34);
  EXPECT_EQ(static_cast<int>(t[0].size()), first + 35) << "exponent_counts come last";

  const auto& row = t[2];
  EXPECT_EQ(row[Col(t, "metadata", "name")], "fc1");
  EXPECT_EQ(row[Col(t, "metadata", "type")], "Linear");
  EXPECT_EQ(row[Col(t, "metadata", "tensor_type")], "Activation");
  EXPECT_EQ(row[Col(t, "metadata", "step")], "7");
  EXPECT_EQ(row[Col(t, "metadata", "dtype")], "float32");
  EXPECT_EQ(row[Col(t, "scalar_stats", "mean")], "0.125");
  EXPECT_EQ(row[Col(t, "scalar_stats", "rm2")], "3") << "rm2 is the RMS";
  EXPECT_EQ(row[Col(t, "scalar_stats", "max_abs")], "65536");
  EXPECT_EQ(row[Col(t, "scalar_stats", "e4m3fn/none/underflow")], "3");
  EXPECT_EQ(row[Col(t, "scalar_stats", "e4m3fn/none/snr_db")], "30");
  EXPECT_EQ(row[Col(t, "scalar_stats", "e5m2/delayed16/snr_db")], "inf");

  // 2^-20 has frexp exponent -19: below the default window, so in -inf.
  // 1.5 = 0.75 * 2^1: column 1. 2^16 = 0.5 * 2^17: above, so +inf, with the
  // +Inf value. Zeros are in no column (tandv would put them in 0).
  EXPECT_EQ(row[Col(t, "exponent_counts", "-inf")], "3");
  EXPECT_EQ(row[Col(t, "exponent_counts", "0")], "0");
  EXPECT_EQ(row[Col(t, "exponent_counts", "1")], "5");
  EXPECT_EQ(row[Col(t, "exponent_counts", "16")], "0");
  EXPECT_EQ(row[Col(t, "exponent_counts", "+inf")], "3");

  // Parameters: tandv's names, and no per-format values where none ran.
  EXPECT_EQ(t[3][Col(t, "metadata", "name")], "fc1.weight,odd \"name\"");
  EXPECT_EQ(t[3][Col(t, "metadata", "tensor_type")], "Weights");
  EXPECT_EQ(t[3][Col(t, "metadata", "type")], "");
  EXPECT_EQ(t[3][Col(t, "scalar_stats", "e4m3fn/none/underflow")], "");
  EXPECT_EQ(t[4][Col(t, "metadata", "name")], "fc1");
  EXPECT_EQ(t[4][Col(t, "metadata", "tensor_type")], "Optimiser_State.exp_avg");
  EXPECT_EQ(t[4][Col(t, "scalar_stats", "mean")], "nan");
}

TEST_F(ExportTest, TandvWindowIsConfigurable) {
  ExportOptions opt;
  opt.tandv_min_exp = -24;
  opt.tandv_max_exp = 24;
  const Table t = ExportTable(ExportKind::kTandv, opt);
  const auto& row = t[2];
  EXPECT_EQ(row[Col(t, "exponent_counts", "-inf")], "0");
  EXPECT_EQ(row[Col(t, "exponent_counts", "-19")], "3") << "2^-20 is in [2^-20, 2^-19)";
  EXPECT_EQ(row[Col(t, "exponent_counts", "-20")], "0");
  EXPECT_EQ(row[Col(t, "exponent_counts", "17")], "2");
  EXPECT_EQ(row[Col(t, "exponent_counts", "+inf")], "1") << "the +Inf value";
  EXPECT_EQ(Col(t, "exponent_counts", "-25"), -1);
  EXPECT_GE(Col(t, "exponent_counts", "24"), 0);

  opt.tandv_min_exp = 5;
  opt.tandv_max_exp = 4;
  Status s = Export(*reader_, ExportKind::kTandv, dir_ / "bad.csv", opt);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("window [5, 4] is invalid"));
  EXPECT_FALSE(fs::exists(dir_ / "bad.csv"));
}

TEST(ExportNamesTest, TandvNames) {
  struct Case {
    std::string name;
    Role role;
    std::string tandv_name, tensor_type;
  } const cases[] = {
      {"fc1", Role::kActivation, "fc1", "Activation"},
      {"fc1", Role::kActivationGrad, "fc1", "Gradient"},
      {"fc1.weight", Role::kWeight, "fc1", "Weights"},
      {"fc1.bias", Role::kWeight, "fc1.bias", "Weights"},
      {"fc1.weight", Role::kWeightGrad, "fc1", "Weight_Gradients"},
      {"fc1.weight.exp_avg", Role::kOptimizerState, "fc1", "Optimiser_State.exp_avg"},
      {"fc1.bias.exp_avg_sq", Role::kOptimizerState, "fc1.bias", "Optimiser_State.exp_avg_sq"},
      {"momentum", Role::kOptimizerState, "momentum", "Optimiser_State.state"},
  };
  for (const Case& c : cases) {
    const TandvNames n = ToTandvNames(c.name, c.role);
    EXPECT_EQ(n.name, c.tandv_name) << c.name;
    EXPECT_EQ(n.tensor_type, c.tensor_type) << c.name;
  }
}

TEST_F(ExportTest, CsvHasOneRowPerRecordAndFormat) {
  const Table t = ExportTable(ExportKind::kCsv);
  ASSERT_EQ(t.size(), 1u + 2u + 1u + 1u);
  const auto& h = t[0];
  auto col = [&](const std::string& name) {
    const auto it = std::find(h.begin(), h.end(), name);
    EXPECT_NE(it, h.end()) << name;
    return static_cast<size_t>(it - h.begin());
  };
  for (const auto& row : t) ASSERT_EQ(row.size(), h.size());
  EXPECT_EQ(t[1][col("name")], "fc1");
  EXPECT_EQ(t[1][col("role")], "activation");
  EXPECT_EQ(t[1][col("shape")], "[17]");
  EXPECT_EQ(t[1][col("format")], "e4m3fn");
  EXPECT_EQ(t[1][col("underflow")], "3");
  EXPECT_EQ(t[1][col("overflow")], "2");
  EXPECT_EQ(t[1][col("snr_db")], "30");
  EXPECT_EQ(t[2][col("format")], "e5m2");
  EXPECT_EQ(t[2][col("recipe")], "delayed16");
  EXPECT_EQ(t[2][col("scale")], "0.5");
  EXPECT_EQ(t[2][col("snr_db")], "inf");
  EXPECT_EQ(t[2][col("count")], "17");
  // Floats are written as the shortest text that reads back as that float.
  EXPECT_EQ(std::strtof(t[2][col("min_abs")].c_str(), nullptr), std::ldexp(1.0f, -20));
  // A record without formats still has its row, with empty format columns.
  EXPECT_EQ(t[3][col("name")], "fc1.weight,odd \"name\"");
  EXPECT_EQ(t[3][col("role")], "weight");
  EXPECT_EQ(t[3][col("format")], "");
  EXPECT_EQ(t[3][col("snr_db")], "");
  EXPECT_EQ(t[4][col("mean")], "nan");
}

TEST_F(ExportTest, JsonHoldsTheWholeRun) {
  const std::string out = dir_ / "run.json";
  ASSERT_TRUE(Export(*reader_, ExportKind::kJson, out).ok());
  const Json j = Json::parse(ReadFile(out), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << ReadFile(out);
  EXPECT_EQ(j["run"]["name"], "export-run");
  EXPECT_EQ(j["run"]["status"], "ok");
  EXPECT_EQ(j["run"]["config"]["model"], "mlp");
  EXPECT_EQ(j["run"]["last_step"], 7);
  EXPECT_EQ(j["run"]["schema_version"], kRunDbSchemaVersion);
  ASSERT_EQ(j["tensors"].size(), 3u);
  ASSERT_EQ(j["records"].size(), 3u);
  const Json& r = j["records"][0];
  EXPECT_EQ(r["name"], "fc1");
  EXPECT_EQ(r["role"], "activation");
  EXPECT_EQ(r["step"], 7);
  EXPECT_EQ(r["shape"], Json::array({17}));
  EXPECT_EQ(r["stats"]["count"], 17);
  EXPECT_EQ(r["stats"]["exponent_hist"], Json({{"-20", 3}, {"0", 5}, {"16", 2}}));
  EXPECT_EQ(r["stats"]["mean"], 0.125);
  EXPECT_EQ(r["stats"]["min_abs"].get<double>(), std::ldexp(1.0, -20));
  ASSERT_EQ(r["formats"].size(), 2u);
  EXPECT_EQ(r["formats"][0]["format"], "e4m3fn");
  EXPECT_EQ(r["formats"][0]["underflow"], 3);
  EXPECT_EQ(r["formats"][1]["snr_db"], "inf");
  EXPECT_EQ(j["records"][2]["stats"]["mean"], "nan");
  ASSERT_EQ(j["scalars"].size(), 1u);
  EXPECT_EQ(j["scalars"][0]["value"], 0.75);
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["rule"], "overflow");
  EXPECT_EQ(j["findings"][0]["severity"], "warning");
  EXPECT_EQ(j["findings"][0]["evidence"]["limit"], "inf");
  ASSERT_EQ(j["captures"].size(), 1u);
  EXPECT_EQ(j["captures"][0]["path"], "cap/7");
}

TEST_F(ExportTest, ExportToStreamMatchesTheFile) {
  for (ExportKind kind : {ExportKind::kTandv, ExportKind::kCsv, ExportKind::kJson}) {
    std::ostringstream ss;
    ASSERT_TRUE(ExportTo(*reader_, kind, ss).ok());
    const std::string out = dir_ / "same";
    ASSERT_TRUE(Export(*reader_, kind, out).ok());
    EXPECT_EQ(ss.str(), ReadFile(out)) << ToString(kind);
  }
}

TEST_F(ExportTest, ReplacesAnExistingFile) {
  const std::string out = dir_ / "x.csv";
  std::ofstream(out) << "old";
  ASSERT_TRUE(Export(*reader_, ExportKind::kCsv, out).ok());
  EXPECT_THAT(ReadFile(out), HasSubstr("step,name,role"));
  EXPECT_TRUE(LeftoverTempFiles(dir_.path()).empty());
}

TEST_F(ExportTest, FailedWritesLeaveNothing) {
  // No such directory.
  Status s = Export(*reader_, ExportKind::kCsv, dir_ / "missing/out.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(dir_ / "missing/out.csv"));
  EXPECT_THAT(s.message(), HasSubstr("nothing was written"));
  EXPECT_FALSE(fs::exists(dir_ / "missing"));

  // The target is a directory: refused, and left alone.
  fs::create_directory(dir_ / "out_dir");
  s = Export(*reader_, ExportKind::kJson, dir_ / "out_dir");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("is a directory"));
  EXPECT_TRUE(fs::is_directory(dir_ / "out_dir"));
  EXPECT_TRUE(LeftoverTempFiles(dir_.path()).empty());
}

TEST_F(ExportTest, AnErrorHalfWayKeepsTheOldFile) {
  // Corrupt the last record, so the export fails after writing the others.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ / "run.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "UPDATE stats SET log_hist = X'00' WHERE id = (SELECT MAX(id) FROM stats)",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  for (ExportKind kind : {ExportKind::kTandv, ExportKind::kCsv, ExportKind::kJson}) {
    const std::string out = dir_ / (std::string("keep.") + ToString(kind));
    std::ofstream(out) << "previous export";
    Status s = Export(*reader_, kind, out);
    ASSERT_FALSE(s.ok()) << ToString(kind);
    EXPECT_THAT(s.message(), HasSubstr("log_hist"));
    EXPECT_EQ(ReadFile(out), "previous export");
    EXPECT_TRUE(LeftoverTempFiles(dir_.path()).empty());
  }
}

TEST(ExportKindTest, ParsesItsNames) {
  for (ExportKind k : {ExportKind::kTandv, ExportKind::kCsv, ExportKind::kJson}) {
    StatusOr<ExportKind> p = ParseExportKind(ToString(k));
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(*p, k);
  }
  StatusOr<ExportKind> bad = ParseExportKind("parquet");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("use tandv, csv or json"));
}

}  // namespace
}  // namespace lpsim
