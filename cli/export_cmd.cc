// `lpsim export RUN --format tandv|csv|json OUT`: a stored run in another
// layout (docs/store.md). OUT "-" writes to stdout.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "core/output.h"
#include "store/export.h"
#include "store/run_db.h"

namespace lpsim::cli {
namespace {

struct ExportArgs {
  std::string run;
  std::string kind = "tandv";
  std::string out;
  ExportOptions options;
};

int RunExport(const ExportArgs& a) {
  auto fail = [](const std::string& m, int code) { return PrintError("export", m, code); };
  StatusOr<ExportKind> kind = ParseExportKind(a.kind);
  if (!kind.ok()) return fail(kind.status().message(), kExitBadInput);
  if (a.options.tandv_min_exp > a.options.tandv_max_exp) {
    return fail("--min-exp must not exceed --max-exp", kExitBadInput);
  }
  // The run's own files are never an output (writing run.db would destroy
  // the run it is reading).
  Status s = CheckOutput(a.out, {}, RunFiles(a.run), "OUT");
  if (!s.ok()) return PrintError("export", s);
  StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(a.run);
  if (!reader.ok()) return fail(reader.status().message(), kExitBadInput);
  // A corrupt run is bad input (2) and a failed write a failure (1): the
  // status says which. For "-" the whole export is made first, so a corrupt
  // run prints nothing, and then written through WriteOutput, which reports
  // a closed or full stdout.
  if (a.out == "-") {
    std::ostringstream text;
    s = ExportTo(**reader, *kind, text, a.options);
    if (s.ok()) s = WriteOutput("-", text.str());
  } else {
    s = Export(**reader, *kind, a.out, a.options);
  }
  if (!s.ok()) return PrintError("export", s);
  return kExitOk;
}

}  // namespace

void AddExportCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app->add_subcommand("export", "Export a stored run as tandv, CSV or JSON");
  cmd->add_option("RUN", args->run, "run directory or its run.db")->required();
  cmd->add_option("OUT", args->out, "output file, or - for stdout")->required();
  cmd->add_option("--format", args->kind, "tandv | csv | json")->capture_default_str();
  cmd->add_option("--min-exp", args->options.tandv_min_exp,
                  "tandv: smallest exponent column (frexp convention)")
      ->capture_default_str();
  cmd->add_option("--max-exp", args->options.tandv_max_exp, "tandv: largest exponent column")
      ->capture_default_str();
  cmd->callback([selected, args] { *selected = [args] { return RunExport(*args); }; });
}

}  // namespace lpsim::cli
