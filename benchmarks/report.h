// Turning the benchmark suite's JSON output into the table `lpsim bench`
// prints. No torch and no benchmark library needed: cli/ links this alone.
//
//   $ lpsim_bench --benchmark_format=json > out.json
//   StatusOr<std::vector<bench::Row>> rows = bench::ParseReport(json_text);
//   std::cout << bench::FormatTable(*rows);
//
// JSON contract (Google Benchmark's --benchmark_format=json): an object with
// a "benchmarks" array; each entry has "name", "bytes_per_second" and, for
// aggregates, "aggregate_name" (only "mean" rows and plain iterations rows
// are used; error and skipped entries are dropped). lpsim_bench names every
// benchmark `<kernel>/<target>/t<threads>/<bytes>`, e.g.
// `analyze_4fmt/AVX2/t1/268435456`: <kernel> from the list in
// benchmarks/kernels_bench.cc, <target> a Highway target name ("-" for
// memcpy and the LibTorch and scalar-reference baselines), <bytes> the fp32
// input size; bytes_per_second counts input bytes.
//
// Ratios, for the row's size and thread count: vs_read = rate / best
// `read_bw` rate over targets (the plain SIMD read loop); vs_copy = rate /
// the best copy baseline (`memcpy`, or `copy_bw`, a plain SIMD load/store
// loop: glibc's memcpy has slow strategies for some sizes and alignments on
// some machines); vs_torch = rate / the `torch_<kernel>` row if the suite has
// one (torch_analyze_1fmt for analyze_1fmt, ...), and vs_ref likewise for
// `ref_<kernel>`. A ratio is 0 when its baseline is missing.
#ifndef LPSIM_BENCHMARKS_REPORT_H_
#define LPSIM_BENCHMARKS_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace lpsim {
namespace bench {

struct Row {
  std::string kernel;   // "analyze_4fmt"
  std::string target;   // "AVX2", or "-"
  int threads = 1;
  uint64_t bytes = 0;   // input size
  double gb_per_s = 0;  // input bytes per second / 1e9
  // Wall time per fp32 input element, times the thread count (CPU time per
  // element for a kernel that keeps its threads busy).
  double ns_per_elem = 0;
  double vs_read = 0, vs_copy = 0, vs_torch = 0, vs_ref = 0;
};

// Rows in the order of the JSON; an error names what is malformed.
StatusOr<std::vector<Row>> ParseReport(const std::string& json);

// A fixed-width text table, one line per row.
std::string FormatTable(const std::vector<Row>& rows);

// The rows as a JSON array of objects with the Row field names.
std::string ToJson(const std::vector<Row>& rows);

// Rows of the tracker benchmark (lpsim_tracker_bench, `lpsim bench
// --tracker`): one per model and mode, wall time per training step and its
// ratio to the same model's untracked row of the same run. JSON contract:
// entries named `BM_TrainStep/<demo model>/every:<k>/...`, `BM_TinyLm/...`
// or `BM_ResNet/...`, with "real_time" and "time_unit", the mode in "label"
// ("untracked", "every N", "simulate") and the counter "peak_rss_mib".
struct TrackerRow {
  std::string model;        // "demo_mlp", "demo_cnn", "transformer_lm", "resnet"
  std::string mode;         // "untracked", "every 1", "every 10", "simulate"
  double ms_per_step = 0;   // wall time
  double vs_untracked = 0;  // 0 when the run has no untracked row for the model
  double peak_rss_mib = 0;  // the process's high-water mark during the row
};
StatusOr<std::vector<TrackerRow>> ParseTrackerReport(const std::string& json);
std::string FormatTrackerTable(const std::vector<TrackerRow>& rows);
std::string TrackerToJson(const std::vector<TrackerRow>& rows);

// A size list of lpsim_bench --lpsim_sizes and lpsim bench --sizes:
// comma-separated byte counts with an optional K, M or G suffix (binary
// units), each a multiple of 4 KiB and at most 1 TiB, e.g. "16K,4M,256M".
// An error names the item and what is wrong with it.
StatusOr<std::vector<uint64_t>> ParseSizeList(const std::string& list);

}  // namespace bench
}  // namespace lpsim

#endif  // LPSIM_BENCHMARKS_REPORT_H_
