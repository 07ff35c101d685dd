// lpsim's LibTorch half: the commands that train or read LibTorch files run
// in a second executable, lpsim_torch, so that every other command starts
// without loading LibTorch (about 1.5 s of dynamic linking per run).
//
//   lpsim demo ...            -> exec lpsim_torch demo ...        (ForwardToTorchHalf)
//   lpsim analyze model.pt    -> lpsim_torch _read-torch-file model.pt, tensors on a pipe
//   lpsim validate            -> exec lpsim_validation (the corpus)
//
// Helpers are found beside the running lpsim, then in ../libexec/lpsim/; an
// environment variable names another path (LPSIM_TORCH, LPSIM_VALIDATION).
#ifndef LPSIM_CLI_TORCH_HALF_H_
#define LPSIM_CLI_TORCH_HALF_H_

#include <string>

#include "core/status.h"
#include "store/torch_tensors.h"

namespace CLI {
class App;
}  // namespace CLI

namespace lpsim::cli {

// The helper executable `name`, or $env when set; "" when not found.
std::string FindHelper(const std::string& name, const char* env);

// Whether lpsim_torch runs this subcommand (demo, replay).
bool IsTorchCommand(const std::string& subcommand);

// Replaces this process with lpsim_torch and the same arguments; returns
// only on failure, with the error printed and the exit code to use.
int ForwardToTorchHalf(int argc, char** argv);

// Lists the forwarded commands in `lpsim --help` (their options are
// lpsim_torch's: `lpsim demo --help`).
void AddTorchHalfCommands(CLI::App* app);

// The tensors of a LibTorch file, read by lpsim_torch in a child process
// (tracker/torch_file.h has the checks; a crash inside LibTorch is an error
// about the file).
StatusOr<TorchFile> ReadTorchFileWithHelper(const std::string& path);

}  // namespace lpsim::cli

#endif  // LPSIM_CLI_TORCH_HALF_H_
