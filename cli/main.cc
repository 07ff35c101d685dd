// `lpsim`: the command-line entry point; dispatches to one subcommand per
// file (commands.h).
//
//   lpsim formats [--json]
//   lpsim targets [--target NAME] [--json]
//   lpsim quantize --format e4m3fn IN.npy OUT.npy [--json]
//   lpsim demo [--formats e4m3fn,e5m2] [--json]
//   lpsim gemm --unit h100 A.npy B.npy D.npy [--json]
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "cli/commands.h"

#ifndef LPSIM_VERSION
#error "LPSIM_VERSION must be defined by the build (cli/CMakeLists.txt)"
#endif

int main(int argc, char** argv) {
  using namespace lpsim::cli;
  CLI::App app("lpsim: simulate low-precision float formats (fp8, fp6, fp4, bf16, ...)", "lpsim");
  app.set_version_flag("--version", "lpsim " LPSIM_VERSION);
  app.require_subcommand(1);
  Command run;
  AddFormatsCommand(&app, &run);
  AddQuantizeCommand(&app, &run);
  AddExportCommand(&app, &run);
  AddBenchCommand(&app, &run);
  AddRecommendCommand(&app, &run);
  AddReportCommand(&app, &run);
  AddAnalyzeCommand(&app, &run);
  AddCheckCommand(&app, &run);
  AddGemmCommand(&app, &run);
  AddTargetsCommand(&app, &run);
#ifdef LPSIM_HAVE_TRACKER
  AddDemoCommand(&app, &run);
  AddReplayCommand(&app, &run);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version come through here too, with code 0; every real
    // usage error is "bad input", whatever CLI11's own code for it.
    return app.exit(e) == 0 ? kExitOk : kExitBadInput;
  }
  try {
    return run();
  } catch (const std::exception& e) {  // e.g. out of memory on a huge tensor
    std::cerr << "lpsim: error: " << e.what() << "\n";
    return kExitFailure;
  }
}
