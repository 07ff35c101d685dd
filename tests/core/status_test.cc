#include "core/status.h"

#include <gtest/gtest.h>

#include <string>

#include "core/bits.h"

namespace lpsim {
namespace {

TEST(StatusTest, CodesDecideTheExitCode) {
  EXPECT_EQ(ExitCode(Status()), 0);
  EXPECT_EQ(ExitCode(Status::Error("bad flag")), 2);
  EXPECT_EQ(ExitCode(Status::Failed("disk full")), 1);
  EXPECT_EQ(Status::Error("x").code(), StatusCode::kInvalidInput);
  EXPECT_EQ(Status::Failed("x").code(), StatusCode::kFailed);
  EXPECT_EQ(Status().message(), "ok");
}

TEST(StatusTest, PrefixedKeepsTheCode) {
  const Status s = Status::Failed("no space left").Prefixed("writing out.npy: ");
  EXPECT_EQ(s.code(), StatusCode::kFailed);
  EXPECT_EQ(s.message(), "writing out.npy: no space left");
  EXPECT_TRUE(Status().Prefixed("ignored: ").ok());
}

TEST(StatusOrTest, HoldsAValueOrAnError) {
  StatusOr<int> v = 3;
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 3);
  StatusOr<std::string> e = Status::Error("no such format 'e9m9'");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "no such format 'e9m9'");
  EXPECT_EQ(ExitCode(e.status()), 2);
}

TEST(StatusOrDeathTest, ValueOfAnErrorAbortsWithItsMessage) {
  StatusOr<int> e = Status::Error("the spec is wrong");
  EXPECT_DEATH((void)e.value(), "value\\(\\) of a failed StatusOr: the spec is wrong");
}

TEST(StatusOrTest, AnOkStatusIsNotAValue) {
  StatusOr<int> e = Status();
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kFailed);
}

TEST(BitsTest, ViewsRoundTrip) {
  EXPECT_EQ(BitsOf(1.0f), 0x3f800000u);
  EXPECT_EQ(BitsOf(-0.0f), 0x80000000u);
  EXPECT_EQ(AbsBitsOf(-2.0f), 0x40000000u);
  EXPECT_EQ(FloatOf(0x40490fdbu), 3.14159274f);
  for (uint32_t b : {0u, 1u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0x7f800000u, 0xff800000u}) {
    EXPECT_EQ(BitsOf(FloatOf(b)), b);
  }
}

}  // namespace
}  // namespace lpsim
