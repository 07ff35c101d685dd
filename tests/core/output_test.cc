#include "core/output.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace lpsim {
namespace {

namespace fs = std::filesystem;

class OutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("lpsim_output_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Only the named files: no temporary file left behind.
  size_t Entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

TEST_F(OutputTest, WritesANewFileAndReplacesAnOldOne) {
  const std::string p = Path("out.txt");
  ASSERT_TRUE(WriteOutput(p, std::string("first")).ok());
  EXPECT_EQ(Read(p), "first");
  ASSERT_TRUE(WriteOutput(p, [](OutputSink& o) {
                o.stream() << "second " << 2;
                return o.Write("!", 1);
              }).ok());
  EXPECT_EQ(Read(p), "second 2!");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(OutputTest, LargeWritesPassThroughTheBuffer) {
  const std::string big(3 << 20, 'x');
  const std::string p = Path("big.bin");
  ASSERT_TRUE(WriteOutput(p, [&](OutputSink& o) {
                o.stream() << "head";
                Status s = o.Write(big.data(), big.size());
                o.stream() << "tail";
                return s;
              }).ok());
  EXPECT_EQ(Read(p), "head" + big + "tail");
}

TEST_F(OutputTest, AFailingBodyLeavesTheOldFileAndNoTemporary) {
  const std::string p = Path("keep.txt");
  ASSERT_TRUE(WriteOutput(p, std::string("old")).ok());
  const Status s = WriteOutput(p, [](OutputSink& o) {
    o.stream() << "half";
    return Status::Error("the input ended early");
  });
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(s.message(), "the input ended early");
  EXPECT_EQ(Read(p), "old");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(OutputTest, AFailedRenameLeavesNoTemporary) {
  // The name turns into a directory while the data is written: the rename
  // fails after the write, and the temporary file must go.
  const std::string p = Path("racy.bin");
  const Status s = WriteOutput(p, [&](OutputSink& o) {
    fs::create_directories(fs::path(p) / "inside");
    return o.Write("data", 4);
  });
  EXPECT_EQ(s.code(), StatusCode::kFailed);
  EXPECT_NE(s.message().find("cannot rename"), std::string::npos) << s.message();
  EXPECT_TRUE(fs::is_directory(fs::path(p) / "inside"));
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(OutputTest, AMissingDirectoryIsAFailureThatSaysWhy) {
  const Status s = WriteOutput(Path("no/such/dir/out.txt"), std::string("x"));
  EXPECT_EQ(s.code(), StatusCode::kFailed);
  EXPECT_NE(s.message().find("No such file or directory"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("does not exist"), std::string::npos) << s.message();
}

TEST_F(OutputTest, CheckOutputRefusesAFileWhoseFolderCannotTakeIt) {
  // Refused before the command's work, not when WriteOutput fails at its end.
  Status s = CheckOutput(Path("no/such/out.txt"), {}, {}, "--report");
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(s.message(), "--report " + Path("no/such/out.txt") + ": its folder " + Path("no/such") +
                             " cannot be used (No such file or directory); create the folder or name a "
                             "file in one that exists");
  ASSERT_TRUE(WriteOutput(Path("plain"), std::string("x")).ok());
  s = CheckOutput(Path("plain/out.txt"), {});
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.message().find(Path("plain") + " is not a folder"), std::string::npos) << s.message();
  s = CheckOutput(Path("plain/sub/out.txt"), {});
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.message().find("cannot be used (Not a directory)"), std::string::npos) << s.message();
  // An existing regular file is replaced through a temporary file beside it,
  // so its folder is checked too; a bare name is in the working folder.
  EXPECT_TRUE(CheckOutput(Path("plain"), {}).ok());
  EXPECT_TRUE(CheckOutput("relative_name.txt", {}).ok());
  EXPECT_FALSE(fs::exists("relative_name.txt"));
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(OutputTest, ADirectoryIsRefused) {
  const Status s = WriteOutput(dir_.string(), std::string("x"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s.message();
  EXPECT_FALSE(CheckOutput(dir_.string(), {}).ok());
}

TEST_F(OutputTest, DevicesAreWrittenInPlaceNeverReplaced) {
  ASSERT_TRUE(WriteOutput("/dev/null", std::string("discarded")).ok());
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  if (::access("/dev/full", W_OK) == 0) {
    const Status s = WriteOutput("/dev/full", std::string(1 << 20, 'x'));
    EXPECT_EQ(s.code(), StatusCode::kFailed);
    EXPECT_NE(s.message().find("No space left"), std::string::npos) << s.message();
    ASSERT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));  // still the device
  }
}

TEST_F(OutputTest, APipeIsWrittenInPlace) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::ifstream in(fifo, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    ::_exit(ss.str() == "through the pipe" ? 0 : 1);
  }
  EXPECT_TRUE(WriteOutput(fifo, std::string("through the pipe")).ok());
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(OutputTest, CheckOutputRefusesInputsUnderAnyName) {
  const std::string in = Path("in.npy");
  ASSERT_TRUE(WriteOutput(in, std::string("data")).ok());
  const std::string via_dots = (dir_ / "." / "in.npy").string();
  const std::string link = Path("link.npy");
  fs::create_symlink(in, link);
  const std::string hard = Path("hard.npy");
  fs::create_hard_link(in, hard);
  for (const std::string& out : {in, via_dots, link, hard}) {
    const Status s = CheckOutput(out, {in}, {}, "OUT");
    EXPECT_EQ(s.code(), StatusCode::kInvalidInput) << out;
    EXPECT_NE(s.message().find("would destroy the input"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(CheckOutput(Path("other.npy"), {in}).ok());
  EXPECT_TRUE(CheckOutput("-", {in}).ok());
  EXPECT_TRUE(CheckOutput("/dev/null", {in}).ok());
}

TEST_F(OutputTest, CheckOutputRefusesProtectedNamesEvenBeforeTheyExist) {
  const std::string db = Path("run.db");
  ASSERT_TRUE(WriteOutput(db, std::string("sqlite")).ok());
  const std::vector<std::string> run_files = {db, db + "-wal", db + "-shm"};
  EXPECT_FALSE(CheckOutput(db, {}, run_files).ok());
  EXPECT_FALSE(CheckOutput(Path("./run.db-wal"), {}, run_files).ok());  // not there yet
  EXPECT_TRUE(CheckOutput(Path("run.csv"), {}, run_files).ok());
}

}  // namespace
}  // namespace lpsim
