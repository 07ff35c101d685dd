// A fresh directory under the test's temporary directory, removed with all it
// holds when the object goes (after giving its owner all permissions back, so
// that a test that made it read-only leaves nothing behind).
//
//   TempDir dir;  // or TempDir dir("lpsim_export"): the name's prefix
//   const std::string db = dir / "run.db";
#ifndef LPSIM_TESTS_COMMON_TEMP_DIR_H_
#define LPSIM_TESTS_COMMON_TEMP_DIR_H_

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <string>
#include <system_error>

namespace lpsim {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "lpsim_test") {
    std::string tmpl = ::testing::TempDir() + prefix + "_XXXXXX";
    EXPECT_NE(::mkdtemp(tmpl.data()), nullptr) << tmpl;
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace lpsim

#endif  // LPSIM_TESTS_COMMON_TEMP_DIR_H_
