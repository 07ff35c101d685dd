#include "examples/validation/processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>

namespace lpsim::validation {
namespace {

// The last `lines` lines of a file (a failed child's log).
std::string Tail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const std::string& l : last) out += "  " + l + "\n";
  return out;
}

std::string HowItEnded(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("signal ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

// Starts one child: its files opened and its argv laid out before fork(),
// so that the child, a copy of a process that may run other threads, only
// makes system calls before exec.
StatusOr<pid_t> Start(const Child& c) {
  const int out = ::open(c.out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) return Status::Failed("cannot write " + c.out_file + ": " + std::strerror(errno));
  const int log = ::open(c.log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) {
    const int e = errno;
    ::close(out);
    return Status::Failed("cannot write " + c.log_file + ": " + std::strerror(e));
  }
  std::vector<char*> argv;
  for (const std::string& a : c.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Dies with its parent; a parent that ended before this line leaves it
    // to init: then it stops at once.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    if (::dup2(out, STDOUT_FILENO) < 0 || ::dup2(log, STDERR_FILENO) < 0) ::_exit(127);
    ::execv(argv[0], argv.data());
    const char* why = "lpsim validate: cannot start a training process (exec failed)\n";
    (void)!::write(STDERR_FILENO, why, std::strlen(why));
    ::_exit(127);
  }
  const int e = errno;
  ::close(out);
  ::close(log);
  if (pid < 0) return Status::Failed(std::string("cannot start a training process: ") + std::strerror(e));
  return pid;
}

}  // namespace

Status RunChildren(const std::vector<Child>& children, int parallel, const std::function<void(size_t)>& done) {
  std::map<pid_t, size_t> running;
  size_t next = 0;
  Status failed;
  auto stop_all = [&] {
    for (const auto& [pid, i] : running) ::kill(pid, SIGTERM);
    for (const auto& [pid, i] : running) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    running.clear();
  };
  while (next < children.size() || !running.empty()) {
    while (failed.ok() && next < children.size() && static_cast<int>(running.size()) < parallel) {
      StatusOr<pid_t> pid = Start(children[next]);
      if (!pid.ok()) {
        failed = pid.status();
        break;
      }
      running[*pid] = next++;
    }
    if (!failed.ok()) {
      stop_all();
      return failed;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      stop_all();
      return Status::Failed(std::string("waiting for the training processes: ") + std::strerror(e));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;  // not one of ours
    const size_t i = it->second;
    running.erase(it);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      done(i);
      continue;
    }
    stop_all();
    const Child& c = children[i];
    return Status::Failed("the process training " + c.what + " ended with " + HowItEnded(status) +
                          "; its log, " + c.log_file + ", ends:\n" + Tail(c.log_file, 20));
  }
  return Status();
}

}  // namespace lpsim::validation
