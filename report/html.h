// The HTML report of a run: one self-contained file a person opens offline.
//
// The page holds the run's data (downsampled for big runs) as JSON, the
// chart libraries vega, vega-lite and vega-embed inlined (read from npm's
// node_modules at report time, see WebAssetsDir), and declarative Vega-Lite
// specs: exponent histograms with each candidate format's range, layer x step
// heatmaps, scalar lines with a shared crosshair, the break prediction on
// each target asked for, the findings and the recommendation table
// (docs/report.md).
//
//   StatusOr<std::unique_ptr<RunReader>> run = RunReader::Open("runs/demo");
//   Status s = WriteReport(**run, ReportOptions{}, "runs/demo/report.html");
#ifndef LPSIM_REPORT_HTML_H_
#define LPSIM_REPORT_HTML_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/records.h"
#include "core/status.h"
#include "formats/format.h"
#include "report/recommend.h"
#include "report/stored_check.h"
#include "simd/scaling.h"

namespace lpsim {

class RunReader;

// A range drawn on the histograms of one role's tensors: `format` seen
// through a per-tensor current scale from each record's amax (for block
// recipes: the block that holds the tensor's amax), e.g. a hardware
// target's storage format for that role (`lpsim report --target`).
struct ExtraRange {
  std::string label;
  Role role = Role::kActivation;
  Format format;
  ScaleOptions scale;
  bool scaled = true;  // false: drawn unscaled (the role stores as is)
};

struct ReportOptions {
  RecommendOptions recommend;
  std::vector<ExtraRange> extra_ranges;
  // Tensor records of at most this many steps are embedded (evenly spaced,
  // first and last kept); scalars keep every step up to 20 times as many.
  size_t max_steps = 60;
  std::string title;  // default: "lpsim report: <run name>"
  // Break predictions (target name, report/stored_check.h PredictBreak),
  // shown above the findings as `lpsim check RUN --target T` words them.
  std::vector<std::pair<std::string, BreakPrediction>> predictions;
};

// The folders that may hold vega/, vega-lite/ and vega-embed/ (npm's
// node_modules layout), in the order they are tried: $LPSIM_WEB_ASSETS alone
// if set; else share/lpsim/web of an installed lpsim (found relative to the
// running executable: <exe dir>/../share/lpsim/web), then
// report/web/node_modules of the source tree this lpsim was built from.
std::vector<std::string> WebAssetsDirs();
// The first of WebAssetsDirs() holding all three bundles (else the last).
std::string WebAssetsDir();

// The page as a string. Errors: unreadable run, missing chart libraries (the
// message says to run scripts/setup.sh).
StatusOr<std::string> RenderReport(const RunReader& run, const ReportOptions& options);

// Tensors at rest (lpsim analyze): records without steps or scalars.
StatusOr<std::string> RenderRecordsReport(const std::string& title,
                                          const std::vector<TensorRecord>& records,
                                          const ReportOptions& options);


// RenderReport then WriteOutput (core/output.h).
Status WriteReport(const RunReader& run, const ReportOptions& options, const std::string& path);

}  // namespace lpsim

#endif  // LPSIM_REPORT_HTML_H_
