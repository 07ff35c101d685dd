// A test fixture for tests that drive the real `lpsim` binary (LPSIM_BIN, a
// compile definition the test's CMakeLists sets): each test runs in a fresh
// directory of its own, removed afterwards, and Run() returns the exit code,
// stdout and stderr of one command.
//
//   class MyCliTest : public BinaryTest {};
//   TEST_F(MyCliTest, Refuses) {
//     const BinaryResult r = Run("quantize " + Path("in.npy"));
//     ExpectOneErrorLine(r, 2, "quantize", "no format");
//   }
#ifndef LPSIM_TESTS_COMMON_BINARY_TEST_H_
#define LPSIM_TESTS_COMMON_BINARY_TEST_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "store/npy.h"

#ifndef LPSIM_BIN
#error "LPSIM_BIN must name the lpsim binary (see tests/cli/CMakeLists.txt)"
#endif

namespace lpsim {

struct BinaryResult {
  int code = -1;  // -1: killed by a signal
  std::string out;
  std::string err;
};

class BinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("lpsim_" + std::string(info->test_suite_name()) + "_" + std::to_string(::getpid()) +
            "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs `lpsim args` through /bin/sh (args are shell words; the paths here
  // have no spaces). stdout and stderr go through files in the test's
  // directory, removed before it returns.
  BinaryResult Run(const std::string& args) const {
    const std::string out = Path(".stdout"), err = Path(".stderr");
    const std::string cmd =
        std::string("'") + LPSIM_BIN + "' " + args + " >'" + out + "' 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    BinaryResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = ReadFile(out);
    r.err = ReadFile(err);
    std::filesystem::remove(out);
    std::filesystem::remove(err);
    return r;
  }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void WriteFile(const std::string& name, const std::string& bytes) const {
    std::ofstream(Path(name), std::ios::binary) << bytes;
  }
  void WriteArray(const std::string& name, const std::vector<float>& v) const {
    WriteArray(name, {v.size()}, v);
  }
  void WriteArray(const std::string& name, const std::vector<size_t>& shape,
                  const std::vector<float>& v) const {
    ASSERT_TRUE(WriteNpy(Path(name), shape, v.data()).ok());
  }
  std::vector<float> ReadArray(const std::string& name) const {
    StatusOr<NpyArray> a = ReadNpy(Path(name));
    EXPECT_TRUE(a.ok()) << a.status().message();
    return a.ok() ? a->data : std::vector<float>();
  }

  // A refusal as every command makes it: exit `code`, and one line on
  // stderr that starts "lpsim COMMAND: error: " and says `says`.
  static void ExpectOneErrorLine(const BinaryResult& r, int code, const std::string& command,
                                 const std::string& says) {
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_THAT(r.err, ::testing::StartsWith("lpsim " + command + ": error: "));
    EXPECT_THAT(r.err, ::testing::HasSubstr(says));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }

  std::filesystem::path dir_;
};

}  // namespace lpsim

#endif  // LPSIM_TESTS_COMMON_BINARY_TEST_H_
