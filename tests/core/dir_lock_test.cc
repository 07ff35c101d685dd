#include "core/dir_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class DirLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("lpsim_dir_lock_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(DirLockTest, CreatesTheDirectoryAndRefusesASecondHolderUntilReleased) {
  const std::string dir = (root_ / "a" / "b").string();
  StatusOr<DirLock> first = DirLock::Acquire(dir, "run directory");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->held());
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::is_empty(dir)) << "the lock adds no file";

  // A second lock in this process is refused too (locks are per open
  // directory), and the message names the holder: this process.
  StatusOr<DirLock> second = DirLock::Acquire(dir, "run directory");
  ASSERT_FALSE(second.ok());
  const std::string msg = second.status().message();
  EXPECT_THAT(msg, HasSubstr("run directory " + dir + " is in use by process " + std::to_string(::getpid())));
  EXPECT_THAT(msg, HasSubstr("choose another directory"));

  // Moving keeps the lock; releasing drops it.
  DirLock moved = std::move(first).value();
  EXPECT_TRUE(moved.held());
  EXPECT_FALSE(DirLock::Acquire(dir, "run directory").ok());
  moved.Release();
  EXPECT_FALSE(moved.held());
  StatusOr<DirLock> third = DirLock::Acquire(dir, "run directory");
  EXPECT_TRUE(third.ok()) << third.status().message();
}

TEST_F(DirLockTest, AnotherProcessHoldsItUntilItEndsEvenWithoutReleasing) {
  const std::string dir = root_.string();
  int ready[2], go[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(go), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    StatusOr<DirLock> lock = DirLock::Acquire(dir, "--root");
    const char ok = lock.ok() ? 'y' : 'n';
    (void)!::write(ready[1], &ok, 1);
    char c;
    (void)!::read(go[0], &c, 1);
    ::_exit(3);  // no release, no destructor: as a crash leaves it
  }
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  StatusOr<DirLock> refused = DirLock::Acquire(dir, "--root");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("--root " + dir + " is in use by process " + std::to_string(child)));
  ASSERT_EQ(::write(go[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_EQ(WEXITSTATUS(status), 3);
  StatusOr<DirLock> after = DirLock::Acquire(dir, "--root");
  EXPECT_TRUE(after.ok()) << after.status().message();
  for (int fd : {ready[0], ready[1], go[0], go[1]}) ::close(fd);
}

TEST_F(DirLockTest, AFileInTheWayIsAClearError) {
  fs::create_directories(root_);
  const fs::path file = root_ / "file";
  { std::FILE* f = std::fopen(file.c_str(), "w"); ASSERT_NE(f, nullptr); std::fclose(f); }
  StatusOr<DirLock> lock = DirLock::Acquire((file / "run").string(), "run directory");
  ASSERT_FALSE(lock.ok());
  EXPECT_THAT(lock.status().message(), HasSubstr("cannot create run directory " + (file / "run").string()));
  StatusOr<DirLock> on_file = DirLock::Acquire(file.string(), "run directory");
  ASSERT_FALSE(on_file.ok());
  EXPECT_THAT(on_file.status().message(), HasSubstr(file.string()));
}

}  // namespace
}  // namespace lpsim
