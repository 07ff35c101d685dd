// The subcommands of the `lpsim` executable and what they share.
//
// Each command lives in its own file and adds itself to the CLI11 app; when
// the command line selects it, it stores the function main() runs:
//
//   CLI::App app("lpsim");
//   Command run;
//   AddFormatsCommand(&app, &run);
//   app.parse(argc, argv);
//   return run();  // an exit code (kExitOk, kExitBadInput, ...)
#ifndef LPSIM_CLI_COMMANDS_H_
#define LPSIM_CLI_COMMANDS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/target.h"
#include "report/html.h"
#include "formats/format.h"
#include "formats/reference.h"

namespace lpsim {
struct BreakPrediction;  // checks/prediction.h
}  // namespace lpsim

namespace CLI {
class App;
}  // namespace CLI

namespace lpsim::cli {

// Exit codes: 2 means "your input is wrong" (a flag, a format spec, an
// unreadable or malformed file), so scripts can tell it from a failure of the
// run itself (1: e.g. the output could not be written).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

using Command = std::function<int()>;

// Prints "lpsim COMMAND: error: MESSAGE" on one line of stderr, control
// characters escaped (core/printable.h), and returns `code`. Every error the
// CLI prints goes through here.
int PrintError(const std::string& command, const std::string& message, int code);
// The same with the status's own exit code (2 bad input, 1 failure).
int PrintError(const std::string& command, const Status& status);

// --seed as the commands take it: a whole number in 0..2^64-1 (no sign, no
// exponent); the error names the flag and the range.
StatusOr<uint64_t> ParseSeed(const std::string& s);

// The files of a run that no output may replace: its database and journals.
// `run` is a run directory or its run.db, as the readers take it.
std::vector<std::string> RunFiles(const std::string& run);

// Parses the command line (one subcommand; --version prints `version`),
// runs the selected command and returns its exit code; --help, usage errors
// and anything a command lets escape (bad_alloc, filesystem and JSON errors,
// LibTorch's) become one line on stderr. The main() of lpsim and of
// lpsim_torch.
int RunApp(CLI::App* app, const Command& run, int argc, char** argv, const std::string& version);

void AddFormatsCommand(CLI::App* app, Command* selected);
void AddQuantizeCommand(CLI::App* app, Command* selected);
void AddDemoCommand(CLI::App* app, Command* selected);
void AddExportCommand(CLI::App* app, Command* selected);
void AddBenchCommand(CLI::App* app, Command* selected);
void AddRecommendCommand(CLI::App* app, Command* selected);
void AddReportCommand(CLI::App* app, Command* selected);
void AddAnalyzeCommand(CLI::App* app, Command* selected);
void AddCheckCommand(CLI::App* app, Command* selected);
void AddGemmCommand(CLI::App* app, Command* selected);
void AddReplayCommand(CLI::App* app, Command* selected);  // needs the tracker (torch)
void AddTargetsCommand(CLI::App* app, Command* selected);
void AddWatchCommand(CLI::App* app, Command* selected);  // live/ (lpsim watch)
void AddJobsCommand(CLI::App* app, Command* selected);   // live/ (lpsim jobs)
void AddValidateCommand(CLI::App* app, Command* selected);  // runs lpsim_validation
void AddReadTorchFileCommand(CLI::App* app, Command* selected);  // lpsim_torch's, for analyze

// The formats table (`lpsim formats`), shared with `lpsim demo`.
std::string FormatsTable(const std::vector<Format>& formats);
nlohmann::ordered_json FormatsJson(const std::vector<Format>& formats);

// Targets by name or path (core/target.h), in order; the first error.
StatusOr<std::vector<Target>> LoadTargets(const std::vector<std::string>& names);
// A target and its roles as `lpsim targets --json` prints them.
nlohmann::ordered_json TargetJson(const Target& t);

// The ranges of a target's float storage formats, per role, for the HTML
// report's histograms (integer and block floating-point roles are left out:
// their range depends on per-channel or per-block values a record lacks).
std::vector<ExtraRange> TargetRanges(const Target& t);

// The one place the CLI casts a tensor (fake quantization plus counts); every
// command goes through it so the kernel behind it can change in one line.
void FakeQuantize(const Format& format, const float* in, size_t n, const QuantizeOptions& opt,
                  float* out, CastCounts* counts);

// The counts as JSON: numel, underflow, flushed, subnormal, overflow,
// overflow_result, nan_in, inf_in, zero_in, sq_error, sq_signal and snr_db
// (null when infinite: JSON has no Inf).
nlohmann::ordered_json CountsJson(const Format& format, const CastCounts& c);

}  // namespace lpsim::cli

#endif  // LPSIM_CLI_COMMANDS_H_
