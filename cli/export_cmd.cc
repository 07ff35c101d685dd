// `lpsim export RUN --format tandv|csv|json OUT`: a stored run in another
// layout (docs/store.md). OUT "-" writes to stdout.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
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
  auto fail = [](const std::string& m, int code) {
    std::cerr << "lpsim export: error: " << m << "\n";
    return code;
  };
  StatusOr<ExportKind> kind = ParseExportKind(a.kind);
  if (!kind.ok()) return fail(kind.status().message(), kExitBadInput);
  if (a.options.tandv_min_exp > a.options.tandv_max_exp) {
    return fail("--min-exp must not exceed --max-exp", kExitBadInput);
  }
  StatusOr<std::unique_ptr<RunReader>> reader = RunReader::Open(a.run);
  if (!reader.ok()) return fail(reader.status().message(), kExitBadInput);
  const Status s = a.out == "-" ? ExportTo(**reader, *kind, std::cout, a.options)
                                : Export(**reader, *kind, a.out, a.options);
  if (!s.ok()) return fail(s.message(), kExitFailure);
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
