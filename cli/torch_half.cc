#include "cli/torch_half.h"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"

extern char** environ;

namespace lpsim::cli {

namespace {

constexpr const char* kTorchHalf = "lpsim_torch";

std::string MissingTorchHalf() {
  return std::string(kTorchHalf) +
         " (lpsim's LibTorch half), which was not found next to lpsim: build with LibTorch "
         "(-DLPSIM_WITH_TORCH=ON, the default), or set LPSIM_TORCH to its path";
}

}  // namespace

std::string FindHelper(const std::string& name, const char* env) {
  if (const char* e = std::getenv(env); e && *e) return e;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (const std::filesystem::path& p :
       {self.parent_path() / name, self.parent_path().parent_path() / "libexec" / "lpsim" / name}) {
    if (std::filesystem::exists(p, ec)) return p.string();
  }
  return "";
}

bool IsTorchCommand(const std::string& subcommand) { return subcommand == "demo" || subcommand == "replay"; }

int ForwardToTorchHalf(int argc, char** argv) {
  const std::string command = argv[1];
  const std::string exe = FindHelper(kTorchHalf, "LPSIM_TORCH");
  if (exe.empty()) return PrintError(command, "lpsim " + command + " runs in " + MissingTorchHalf(), kExitBadInput);
  std::vector<char*> args(argv, argv + argc);
  args[0] = const_cast<char*>(exe.c_str());
  args.push_back(nullptr);
  ::execv(exe.c_str(), args.data());
  return PrintError(command, "cannot run " + exe + ": " + std::strerror(errno), kExitFailure);
}

void AddTorchHalfCommands(CLI::App* app) {
  const std::pair<const char*, const char*> commands[] = {
      {"demo", "Train a built-in model on built-in data with tracking (the main job)"},
      {"replay", "Re-run a captured non-finite step of a built-in model and name the first non-finite tensor"},
  };
  for (const auto& [name, help] : commands) {
    // Reached only when lpsim_torch is missing (main forwards these first).
    CLI::App* cmd = app->add_subcommand(name, help);
    cmd->allow_extras();
  }
}

StatusOr<TorchFile> ReadTorchFileWithHelper(const std::string& path) {
  const std::string exe = FindHelper(kTorchHalf, "LPSIM_TORCH");
  if (exe.empty()) {
    return Status::Error(path + " is a LibTorch file, read by " + MissingTorchHalf() +
                         "; or save the tensors with numpy.save and analyze the .npy files");
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Status::Failed(path + ": cannot create a pipe: " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);  // the answer comes on its stdout
  std::string cmd = "_read-torch-file", file = path;
  char* argv[] = {const_cast<char*>(exe.c_str()), cmd.data(), file.data(), nullptr};
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (err != 0) {
    ::close(fds[0]);
    return Status::Failed("cannot run " + exe + ": " + std::strerror(err));
  }
  return ReceiveTorchFile(fds[0], pid, path);
}

}  // namespace lpsim::cli
