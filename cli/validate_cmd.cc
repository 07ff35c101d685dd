// lpsim validate: the ground-truth table of the low-precision rules.
//
//   lpsim validate                       # every program x every training target, a Markdown table
//   lpsim validate --json                # the same, every run included
//   lpsim validate --programs a,b --targets h100-fp8-current
//   lpsim validate tiny_grads_adam       # one program, per target in full
//   lpsim validate --list
//   lpsim validate --groups              # the corpus's groups: name, programs, planted breakers
//   lpsim validate --truth earlier.json  # predictions again, truths from an earlier --json
//   lpsim validate --truth examples/validation/truths.json   # the corpus's truths kept in the repository
//   lpsim validate --save-truths t.json  # also write the truths alone (the shape --truth reads)
//   lpsim validate --no-probe            # the records' rules alone (no lp_forward_loss)
//   lpsim validate --rules rules.json    # predict with these lp_* settings (as `lpsim check --rules`)
//   lpsim validate --truth t.json --rejudge --rules r.json   # judge the fp32 runs under --root again
//   lpsim validate --sim-seeds 1         # one simulated run per target (default 3, by majority)
//   lpsim validate --jobs 1              # judge each program's targets in one thread (default: the cores)
//   lpsim validate --jobs 8              # train the programs in 8 processes (default: one)
//
// The corpus is LibTorch code (examples/validation/validation.cc, built as
// lpsim_validation next to lpsim); this command runs it, so the CLI itself
// links no extra torch translation unit. $LPSIM_VALIDATION names another
// executable.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/torch_half.h"

namespace lpsim::cli {
namespace {

struct ValidateArgs {
  bool json = false;
  bool list = false;
  bool groups = false;
  std::string programs, targets, root, truth, save_truths, rules;
  bool no_probe = false;
  bool rejudge = false;
  int probe_every = 0;  // 0: lpsim_validation's default
  int rollout = -1;        // -1: lpsim_validation's default
  int rollout_every = 0;   // 0: lpsim_validation's default
  int fp32_seeds = 0;      // 0: lpsim_validation's default
  int sim_seeds = 0;       // 0: lpsim_validation's default
  int jobs = 0;            // 0: lpsim_validation's default (the cores)
  std::string program;
};

int Run(const ValidateArgs& a) {
  const std::string exe = FindHelper("lpsim_validation", "LPSIM_VALIDATION");
  if (exe.empty()) {
    return PrintError("validate",
                      "lpsim_validation was not found next to lpsim: build it (`cmake --build build --target "
                      "lpsim_validation`, needs LibTorch) or set LPSIM_VALIDATION to its path",
                      kExitBadInput);
  }
  std::vector<std::string> args = {exe};
  if (a.list) args.push_back("--list");
  if (a.groups) args.push_back("--groups");
  if (a.json) args.push_back("--json");
  if (!a.programs.empty()) args.insert(args.end(), {"--programs", a.programs});
  if (!a.targets.empty()) args.insert(args.end(), {"--targets", a.targets});
  if (!a.root.empty()) args.insert(args.end(), {"--root", a.root});
  if (!a.truth.empty()) args.insert(args.end(), {"--truth", a.truth});
  if (!a.save_truths.empty()) args.insert(args.end(), {"--save-truths", a.save_truths});
  if (!a.rules.empty()) args.insert(args.end(), {"--rules", a.rules});
  if (a.no_probe) args.push_back("--no-probe");
  if (a.rejudge) args.push_back("--rejudge");
  if (a.jobs > 0) args.insert(args.end(), {"--jobs", std::to_string(a.jobs)});
  if (a.probe_every > 0) args.insert(args.end(), {"--probe-every", std::to_string(a.probe_every)});
  if (a.rollout >= 0) args.insert(args.end(), {"--rollout", std::to_string(a.rollout)});
  if (a.rollout_every > 0) args.insert(args.end(), {"--rollout-every", std::to_string(a.rollout_every)});
  if (a.fp32_seeds > 0) args.insert(args.end(), {"--fp32-seeds", std::to_string(a.fp32_seeds)});
  if (a.sim_seeds > 0) args.insert(args.end(), {"--sim-seeds", std::to_string(a.sim_seeds)});
  if (!a.program.empty()) args.push_back(a.program);
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  execv(exe.c_str(), argv.data());
  return PrintError("validate", "cannot run " + exe + ": " + std::strerror(errno), kExitFailure);
}

}  // namespace

void AddValidateCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app->add_subcommand(
      "validate",
      "ground truth of the low-precision rules: a corpus of small trainings, each predicted from one fp32 run "
      "and simulated on every built-in training target; per target the confusion matrix, precision, recall "
      "and median lead time");
  cmd->add_flag("--json", args->json, "JSON: per target and group (tune / holdout / fresh), and every run");
  cmd->add_flag("--list", args->list, "list the programs, their group (tune / holdout / fresh) and what they plant");
  cmd->add_flag("--groups", args->groups,
                "list the corpus's groups in order, one per line: name, programs, planted breakers");
  cmd->add_option("--programs", args->programs, "comma-separated program names (default: all)");
  cmd->add_option("--targets", args->targets, "comma-separated targets (default: every built-in training target)");
  cmd->add_option("--root", args->root, "folder for the runs (default /tmp/lpsim_validation)");
  cmd->add_option("--truth", args->truth,
                  "reuse the simulated truths of earlier `--json` outputs (FILE, or FILE1,FILE2 merged) instead of "
                  "simulating again: only the fp32 runs and the predictions are redone (for tuning rules); "
                  "examples/validation/truths.json holds the whole corpus's; with --list, checks that they cover "
                  "every program on every target");
  cmd->add_option("--save-truths", args->save_truths,
                  "also write the truths of the runs (simulated, or read by --truth) to FILE, one run per line, "
                  "in the shape --truth reads; refused before anything trains if FILE is an input or unwritable");
  cmd->add_option("--rules", args->rules,
                  "predict with this rules file (JSON, as `lpsim check --rules` reads): its lp_* rules' thresholds "
                  "and on/off; the truths do not depend on it (combine with --truth to judge a rule change)");
  cmd->add_flag("--rejudge", args->rejudge,
                "train nothing: judge again the fp32 runs an earlier run recorded under --root (with the same "
                "probes; each run's note ROOT/PROGRAM/fp32.validation.json says how it was probed), with --truth "
                "for the truths: a rule change (--rules) costs the checks alone; the table equals a full run's");
  cmd->add_option("--jobs", args->jobs,
                  "when training (not --rejudge): processes that each train and judge a batch of the programs "
                  "(default 1; each takes a core and LibTorch's memory); with --rejudge: threads that judge each "
                  "program's targets (default: the machine's cores). The table and the JSON are those of one "
                  "process and one thread, in the same order")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--no-probe", args->no_probe,
                 "predict from the records alone: no probes of each target's forward pass (lp_forward_loss)");
  cmd->add_option("--probe-every", args->probe_every, "steps between the fp32 run's probes (default 8)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--rollout", args->rollout,
                  "steps of each rollout of the fp32 run (lp_rollout; default 8, 0: none)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--rollout-every", args->rollout_every,
                  "steps between the fp32 run's rollouts, a multiple of --probe-every (default 16)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--fp32-seeds", args->fp32_seeds,
                  "fp32 runs per program, differing in the model's seed; a target's run is broken only beyond "
                  "the worst of them (default 3; 1: the tracked run alone)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--sim-seeds", args->sim_seeds,
                  "simulated runs per target, with the fp32 runs' seeds; the training breaks on the target when "
                  "most of them break (default 3; 1: the tracked run's seed alone)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("program", args->program, "one program, printed per target in full");
  cmd->callback([args, selected] { *selected = [args] { return Run(*args); }; });
}

}  // namespace lpsim::cli
