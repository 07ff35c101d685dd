// benchmarks/report.h: the JSON contract between lpsim_bench and `lpsim bench`.
#include "benchmarks/report.h"
#include "tests/common/run_command.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

namespace lpsim {
namespace {

const char* kJson = R"({
  "context": {"date": "x", "lpsim_targets": "AVX2,SSE4"},
  "benchmarks": [
    {"name": "read_bw/AVX2/t1/268435456/real_time", "run_name": "read_bw/AVX2/t1/268435456/real_time",
     "run_type": "iteration", "bytes_per_second": 10.0e9},
    {"name": "read_bw/SSE4/t1/268435456/real_time", "run_type": "iteration", "bytes_per_second": 9.0e9},
    {"name": "memcpy/-/t1/268435456/real_time", "run_type": "iteration", "bytes_per_second": 4.0e9},
    {"name": "copy_bw/AVX2/t1/268435456/real_time", "run_type": "iteration", "bytes_per_second": 5.0e9},
    {"name": "analyze_1fmt/AVX2/t1/268435456/real_time_mean", "run_name": "analyze_1fmt/AVX2/t1/268435456/real_time",
     "run_type": "aggregate", "aggregate_name": "mean", "bytes_per_second": 6.0e9},
    {"name": "analyze_1fmt/AVX2/t1/268435456/real_time_stddev", "run_name": "analyze_1fmt/AVX2/t1/268435456/real_time",
     "run_type": "aggregate", "aggregate_name": "stddev", "bytes_per_second": 1.0e6},
    {"name": "torch_analyze_1fmt/-/t1/268435456/real_time", "run_type": "iteration", "bytes_per_second": 0.06e9},
    {"name": "ref_analyze_1fmt/-/t1/268435456/real_time", "run_type": "iteration", "bytes_per_second": 0.03e9},
    {"name": "torch_analyze_4fmt/-/t2/268435456/real_time", "error_occurred": true, "error_message": "no torch"},
    {"name": "quantize_fp8/AVX2/t2/268435456/real_time", "run_type": "iteration", "bytes_per_second": 3.0e9}
  ]
})";

TEST(SimdBenchReport, ParsesRowsAndRatios) {
  StatusOr<std::vector<bench::Row>> rows = bench::ParseReport(kJson);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 8u);
  const bench::Row& a = (*rows)[4];
  EXPECT_EQ(a.kernel, "analyze_1fmt");
  EXPECT_EQ(a.target, "AVX2");
  EXPECT_EQ(a.threads, 1);
  EXPECT_EQ(a.bytes, 268435456u);
  EXPECT_DOUBLE_EQ(a.gb_per_s, 6.0);
  EXPECT_DOUBLE_EQ(a.ns_per_elem, 4.0 / 6.0);  // 4 bytes per fp32 element
  EXPECT_DOUBLE_EQ(a.vs_read, 0.6);    // best read_bw over targets: 10
  EXPECT_DOUBLE_EQ(a.vs_copy, 1.2);    // best copy: copy_bw 5 > memcpy 4
  EXPECT_DOUBLE_EQ(a.vs_torch, 100.0);
  EXPECT_DOUBLE_EQ(a.vs_ref, 200.0);
  const bench::Row& q = (*rows)[7];
  EXPECT_EQ(q.threads, 2);
  EXPECT_DOUBLE_EQ(q.ns_per_elem, 2 * 4.0 / 3.0);  // CPU time: two threads
  EXPECT_EQ(q.vs_read, 0.0);  // no 2-thread baseline in this run
  EXPECT_EQ((*rows)[5].vs_torch, 0.0);  // a baseline has no ratio to itself
  const std::string table = bench::FormatTable(*rows);
  EXPECT_NE(table.find("analyze_1fmt"), std::string::npos);
  EXPECT_NE(table.find("256MiB"), std::string::npos);
  EXPECT_NE(table.find("100x"), std::string::npos);
  EXPECT_NE(bench::ToJson(*rows).find("\"vs_torch\": 100.0"), std::string::npos);
}

TEST(SimdBenchReport, Errors) {
  EXPECT_FALSE(bench::ParseReport("not json").ok());
  EXPECT_FALSE(bench::ParseReport("{\"benchmarks\": 3}").ok());
  StatusOr<std::vector<bench::Row>> bad =
      bench::ParseReport(R"({"benchmarks": [{"name": "foo/bar", "bytes_per_second": 1}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("<kernel>/<target>/t<threads>/<bytes>"), std::string::npos);
}

// The sizes of lpsim_bench --lpsim_sizes and lpsim bench --sizes.
TEST(SimdBenchReport, SizeLists) {
  StatusOr<std::vector<uint64_t>> s = bench::ParseSizeList("16K,4m,1G,8192,1T");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(*s, (std::vector<uint64_t>{16384, 4194304, 1073741824, 8192, uint64_t{1} << 40}));
  const std::pair<const char*, const char*> bad[] = {
      {"", "bad size ''"},          {"16K,", "bad size ''"},     {"12x", "bad size '12x'"},
      {"0", "bad size '0'"},        {"-4K", "bad size '-4K'"},   {"4KB", "bad size '4KB'"},
      {"1000", "multiple of 4K"},   {"2T", "over 1T"},           {"1025G", "over 1T"},
      {"99999999999999999999999G", "bad size"},                  {"4K 8K", "bad size"}};
  for (const auto& [list, says] : bad) {
    StatusOr<std::vector<uint64_t>> r = bench::ParseSizeList(list);
    ASSERT_FALSE(r.ok()) << list;
    EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().message();
  }
}

// The tracker benchmark's rows: ms per step, ratio to the model's untracked
// row of the same run, time units converted.
TEST(SimdBenchReport, TrackerRows) {
  const char* json = R"({"benchmarks": [
    {"name": "BM_TrainStep/mlp/every:0/real_time", "run_type": "iteration", "real_time": 500.0,
     "time_unit": "us", "label": "untracked", "peak_rss_mib": 100.5},
    {"name": "BM_TrainStep/mlp/every:1/real_time", "run_type": "iteration", "real_time": 1500.0,
     "time_unit": "us", "label": "every 1", "peak_rss_mib": 120.0},
    {"name": "BM_ResNet/every:-1/iterations:20/real_time", "run_type": "iteration",
     "real_time": 0.9, "time_unit": "s", "label": "simulate", "peak_rss_mib": 600},
    {"name": "BM_ResNet/every:0/iterations:20/real_time", "run_type": "iteration",
     "real_time": 600.0, "time_unit": "ms", "label": "untracked"},
    {"name": "BM_TinyLm/every:1/iterations:20/real_time", "run_type": "iteration",
     "real_time": 2000.0, "time_unit": "ms", "label": "every 1"}
  ]})";
  StatusOr<std::vector<bench::TrackerRow>> rows = bench::ParseTrackerReport(json);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 5u);
  EXPECT_EQ((*rows)[1].model, "demo_mlp");
  EXPECT_EQ((*rows)[1].mode, "every 1");
  EXPECT_DOUBLE_EQ((*rows)[1].ms_per_step, 1.5);
  EXPECT_DOUBLE_EQ((*rows)[1].vs_untracked, 3.0);
  EXPECT_DOUBLE_EQ((*rows)[1].peak_rss_mib, 120.0);
  EXPECT_EQ((*rows)[2].model, "resnet");
  EXPECT_DOUBLE_EQ((*rows)[2].ms_per_step, 900.0);
  EXPECT_DOUBLE_EQ((*rows)[2].vs_untracked, 1.5);  // the untracked row comes later
  EXPECT_EQ((*rows)[4].model, "transformer_lm");
  EXPECT_EQ((*rows)[4].vs_untracked, 0.0);  // no untracked row for it
  const std::string table = bench::FormatTrackerTable(*rows);
  EXPECT_NE(table.find("3.00x"), std::string::npos);
  EXPECT_NE(bench::TrackerToJson(*rows).find("\"vs_untracked\": 1.5"), std::string::npos);
  EXPECT_FALSE(bench::ParseTrackerReport("[]").ok());
  EXPECT_FALSE(bench::ParseTrackerReport(R"({"benchmarks": [{"name": "BM_ResNet/every:0"}]})").ok());
  EXPECT_FALSE(bench::ParseTrackerReport(
                   R"({"benchmarks": [{"name": "x", "label": "untracked", "real_time": 1, "time_unit": "h"}]})")
                   .ok());
}

#ifdef LPSIM_BENCH_BINARY
// The real binary's JSON through the parser: names and ratios line up.
TEST(SimdBenchReport, RealBinaryRoundTrip) {
  const std::string cmd = std::string(LPSIM_BENCH_BINARY) +
                          " --lpsim_sizes=16K --lpsim_best_target --benchmark_min_time=0.01"
                          " --benchmark_filter='^(read_bw|copy_bw|memcpy|analyze_1fmt)/.*/t1/'"
                          " --benchmark_format=json 2>/dev/null";
  const CommandResult run = RunCommand(cmd);
  ASSERT_EQ(run.code, 0);
  const std::string& out = run.out;
  StatusOr<std::vector<bench::Row>> rows = bench::ParseReport(out);
  ASSERT_TRUE(rows.ok()) << rows.status().message() << "\n" << out.substr(0, 500);
  bool saw_analyze = false;
  for (const bench::Row& r : *rows) {
    EXPECT_GT(r.gb_per_s, 0) << r.kernel;
    if (r.kernel == "analyze_1fmt") {
      saw_analyze = true;
      EXPECT_GT(r.vs_read, 0);
      EXPECT_GT(r.vs_copy, 0);
      EXPECT_EQ(r.bytes, 16384u);
    }
  }
  EXPECT_TRUE(saw_analyze);
}
#endif

}  // namespace
}  // namespace lpsim
