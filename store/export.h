// Exports of a stored run: tandv's LogFrame layout, flat CSV, and JSON.
//
// Every export is written to a temporary file beside the target and renamed
// over it when complete, so a reader (or a crash, or an error half way) never
// sees a partial file, and a failed export leaves an existing target as it was.
// The layouts are documented in docs/store.md.
//
//   StatusOr<std::unique_ptr<RunReader>> r = RunReader::Open("runs/a");
//   Status s = Export(**r, ExportKind::kTandv, "runs/a/tandv.csv");
//   // Python: pd.read_csv("runs/a/tandv.csv", header=[0, 1])
#ifndef LPSIM_STORE_EXPORT_H_
#define LPSIM_STORE_EXPORT_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "core/status.h"
#include "store/run_db.h"

namespace lpsim {

enum class ExportKind : uint8_t {
  kTandv,  // tandv LogFrame as CSV with two header rows (group, column)
  kCsv,    // one row per (tensor record, format), flat columns
  kJson,   // one document: run, tensors, records, scalars, findings, captures
};
const char* ToString(ExportKind k);  // "tandv", "csv", "json"
StatusOr<ExportKind> ParseExportKind(const std::string& s);

struct ExportOptions {
  // tandv exponent_counts window, in tandv's (frexp) exponents: column k
  // counts |x| in [2^(k-1), 2^k) for k in [min, max]; column -inf counts
  // smaller nonzero |x|, +inf larger |x| and infinities.
  int tandv_min_exp = -16;
  int tandv_max_exp = 16;
};

// Writes the export of `reader`'s run to out_path atomically (see above).
// Errors name the path and leave nothing behind.
Status Export(const RunReader& reader, ExportKind kind, const std::string& out_path,
              const ExportOptions& options = {});

// The same bytes into a stream (stdout, a test's string). On an error the
// stream holds a partial document: use Export for files.
Status ExportTo(const RunReader& reader, ExportKind kind, std::ostream& out,
                const ExportOptions& options = {});

// tandv's names for a record: metadata `name` and `tensor_type`.
// "fc1.weight" as a weight -> ("fc1", "Weights") (tandv drops ".weight");
// "fc1.weight.exp_avg" as optimizer state -> ("fc1", "Optimiser_State.exp_avg").
struct TandvNames {
  std::string name;
  std::string tensor_type;
};
TandvNames ToTandvNames(const std::string& name, Role role);

}  // namespace lpsim

#endif  // LPSIM_STORE_EXPORT_H_
