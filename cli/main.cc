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
#include <filesystem>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "core/printable.h"

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
  AddWatchCommand(&app, &run);
  AddJobsCommand(&app, &run);
  AddValidateCommand(&app, &run);
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
  // The last line of defence: commands turn their errors into messages
  // themselves; anything that still escapes is one line here, never a
  // stack trace. A malformed JSON file is bad input; a file system error,
  // no memory or an error inside LibTorch is a failure of the run.
  const std::string name = app.get_subcommands().empty() ? std::string("lpsim")
                                                         : "lpsim " + app.get_subcommands()[0]->get_name();
  auto first_line = [](const char* what) {
    const std::string s = what;
    return s.substr(0, s.find('\n'));
  };
  try {
    return run();
  } catch (const std::bad_alloc&) {
    std::cerr << name << ": error: out of memory: try a smaller input or fewer, smaller sizes\n";
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << name << ": error: " << lpsim::Printable(e.path1().string()) << ": "
              << lpsim::Printable(e.code().message()) << "\n";
  } catch (const nlohmann::json::exception& e) {
    std::cerr << name << ": error: malformed JSON: " << lpsim::Printable(first_line(e.what())) << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {  // LibTorch's c10::Error among them
    std::cerr << name << ": error: " << lpsim::Printable(first_line(e.what())) << "\n";
  }
  return kExitFailure;
}
