// The CLI's one way to print an error (commands.h).
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/printable.h"

namespace lpsim::cli {

int PrintError(const std::string& command, const std::string& message, int code) {
  std::cerr << "lpsim " << command << ": error: " << Printable(message) << "\n";
  return code;
}

int PrintError(const std::string& command, const Status& status) {
  return PrintError(command, status.message(), ExitCode(status));
}

StatusOr<uint64_t> ParseSeed(const std::string& s) {
  const bool digits =
      !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE) {
    return Status::Error("--seed '" + s + "' is not an integer in 0..2^64-1");
  }
  return static_cast<uint64_t>(v);
}

std::vector<std::string> RunFiles(const std::string& run) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(run);
  const std::string db = (fs::is_directory(p, ec) ? p / "run.db" : p).string();
  return {db, db + "-wal", db + "-shm", db + "-journal"};
}

int RunApp(CLI::App* app, const Command& run, int argc, char** argv, const std::string& version) {
  app->set_version_flag("--version", "lpsim " + version);
  app->require_subcommand(1);
  try {
    app->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version come through here too, with code 0; every real
    // usage error is "bad input", whatever CLI11's own code for it.
    return app->exit(e) == 0 ? kExitOk : kExitBadInput;
  }
  // The last line of defence: commands turn their errors into messages
  // themselves; anything that still escapes is one line here, never a
  // stack trace. A malformed JSON file is bad input; a file system error,
  // no memory or an error inside LibTorch is a failure of the run.
  const std::string name = app->get_subcommands().empty() ? std::string("lpsim")
                                                         : "lpsim " + app->get_subcommands()[0]->get_name();
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

}  // namespace lpsim::cli
