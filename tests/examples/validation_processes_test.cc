// The validation harness's training processes (examples/validation/
// processes.h), with /bin/sh standing in for the harness: every child runs,
// at most `parallel` at a time, its output and errors in its files; the
// first that fails stops the others and is named with its log's end.
#include "examples/validation/processes.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace lpsim::validation {
namespace {

namespace fs = std::filesystem;

class ValidationProcesses : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lpsim_processes_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Child Shell(const std::string& name, const std::string& script) const {
    return {{"/bin/sh", "-c", script}, (dir_ / (name + ".out")).string(), (dir_ / (name + ".log")).string(), name};
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path dir_;
};

TEST_F(ValidationProcesses, RunsEveryChildWithItsOwnOutputAndLog) {
  std::vector<Child> children;
  for (int i = 0; i < 5; ++i) {
    children.push_back(Shell("c" + std::to_string(i), "echo out" + std::to_string(i) + "; echo log" +
                                                          std::to_string(i) + " >&2"));
  }
  std::vector<size_t> done;
  const Status s = RunChildren(children, 2, [&](size_t i) { done.push_back(i); });
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(done.size(), 5u);
  std::vector<bool> seen(5, false);
  for (size_t i : done) seen.at(i) = true;
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(seen[i]) << i;
    EXPECT_EQ(Read("c" + std::to_string(i) + ".out"), "out" + std::to_string(i) + "\n");
    EXPECT_EQ(Read("c" + std::to_string(i) + ".log"), "log" + std::to_string(i) + "\n");
  }
}

TEST_F(ValidationProcesses, NeverRunsMoreThanParallelAtOnce) {
  // Each child adds a line to a shared file when it starts and when it
  // ends; counting along the file gives how many ran at once.
  const std::string trace = (dir_ / "trace").string();
  std::vector<Child> children;
  for (int i = 0; i < 6; ++i) {
    children.push_back(Shell("p" + std::to_string(i),
                             "echo start >> " + trace + "; sleep 0.2; echo end >> " + trace));
  }
  ASSERT_TRUE(RunChildren(children, 2, [](size_t) {}).ok());
  std::ifstream in(trace);
  int now = 0, most = 0, starts = 0;
  for (std::string line; std::getline(in, line);) {
    if (line == "start") ++starts, most = std::max(most, ++now);
    if (line == "end") --now;
  }
  EXPECT_EQ(starts, 6);
  EXPECT_EQ(most, 2);
}

TEST_F(ValidationProcesses, TheFirstFailureStopsTheOthersAndIsNamedWithItsLog) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Child> children = {Shell("slow", "sleep 30"),
                                 Shell("broken", "echo 'reading the corpus' >&2; echo 'no such program' >&2; exit 3"),
                                 Shell("never", "echo ran > " + (dir_ / "never.ran").string())};
  std::vector<size_t> done;
  const Status s = RunChildren(children, 2, [&](size_t i) { done.push_back(i); });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the process training broken ended with exit 3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find((dir_ / "broken.log").string()), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("reading the corpus\n  no such program"), std::string::npos) << s.message();
  EXPECT_TRUE(done.empty());
  // The slow one was stopped, not waited for, and none started after it.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20.0);
  EXPECT_FALSE(fs::exists(dir_ / "never.ran"));
}

TEST_F(ValidationProcesses, AChildKilledBySignalIsAFailure) {
  const Status s = RunChildren({Shell("killed", "kill -9 $$")}, 1, [](size_t) {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ended with signal"), std::string::npos) << s.message();
}

TEST_F(ValidationProcesses, AnOutputThatCannotBeWrittenIsRefusedBeforeStarting) {
  Child c = Shell("c", "true");
  c.out_file = (dir_ / "missing" / "c.out").string();
  const Status s = RunChildren({c}, 1, [](size_t) {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot write " + c.out_file), std::string::npos) << s.message();
}

}  // namespace
}  // namespace lpsim::validation
