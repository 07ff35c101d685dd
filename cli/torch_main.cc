// `lpsim_torch`: lpsim's LibTorch half (cli/torch_half.h). `lpsim demo` and
// `lpsim replay` run here; `lpsim analyze` has it read LibTorch files.
//
//   lpsim_torch demo [--model cnn] ...      (what `lpsim demo` execs)
//   lpsim_torch _read-torch-file FILE       (tensors on stdout, for lpsim analyze)
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "tracker/torch_file.h"

#ifndef LPSIM_VERSION
#error "LPSIM_VERSION must be defined by the build (cli/CMakeLists.txt)"
#endif

namespace lpsim::cli {

void AddReadTorchFileCommand(CLI::App* app, Command* selected) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app->add_subcommand("_read-torch-file", "(internal) the tensors of a LibTorch file, for lpsim analyze");
  cmd->group("");  // not listed in --help
  cmd->add_option("FILE", *path)->required();
  cmd->callback([path, selected] {
    *selected = [path] {
      // The answer goes to the original stdout; anything LibTorch prints
      // goes to stderr instead of into the answer.
      const int answer = ::dup(STDOUT_FILENO);
      if (answer < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return kExitFailure;
      const bool sent = SendTorchFile(answer, LoadTorchFile(*path));
      ::close(answer);
      return sent ? kExitOk : kExitFailure;
    };
  });
}

}  // namespace lpsim::cli

int main(int argc, char** argv) {
  using namespace lpsim::cli;
  CLI::App app("lpsim: the commands that run LibTorch", "lpsim");
  Command run;
  AddDemoCommand(&app, &run);
  AddReplayCommand(&app, &run);
  AddReadTorchFileCommand(&app, &run);
  return RunApp(&app, run, argc, argv, LPSIM_VERSION);
}
