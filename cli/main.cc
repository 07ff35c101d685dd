// `lpsim`: the command-line entry point; dispatches to one subcommand per
// file (commands.h).
//
//   lpsim formats [--json]
//   lpsim targets [--target NAME] [--json]
//   lpsim quantize --format e4m3fn IN.npy OUT.npy [--json]
//   lpsim demo [--formats e4m3fn,e5m2] [--json]
//   lpsim gemm --unit h100 A.npy B.npy D.npy [--json]
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/torch_half.h"

#ifndef LPSIM_VERSION
#error "LPSIM_VERSION must be defined by the build (cli/CMakeLists.txt)"
#endif

int main(int argc, char** argv) {
  using namespace lpsim::cli;
  // demo and replay are lpsim_torch's (cli/torch_half.h).
  if (argc > 1 && IsTorchCommand(argv[1])) return ForwardToTorchHalf(argc, argv);
  CLI::App app("lpsim: simulate low-precision float formats (fp8, fp6, fp4, bf16, ...)", "lpsim");
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
  AddWatchCommand(&app, &run);
  AddJobsCommand(&app, &run);
  AddValidateCommand(&app, &run);
  AddTorchHalfCommands(&app);
  return RunApp(&app, run, argc, argv, LPSIM_VERSION);
}
