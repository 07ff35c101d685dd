#include "core/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace lpsim {
namespace {

TEST(PrintableTest, PlainTextAndUtf8PassUnchanged) {
  EXPECT_EQ(Printable("e4m3fn:sat"), "e4m3fn:sat");
  EXPECT_EQ(Printable("runs/\xc3\xa9t\xc3\xa9/a b.npy"), "runs/\xc3\xa9t\xc3\xa9/a b.npy");  // été
  EXPECT_EQ(Printable("\xe2\x82\xac"), "\xe2\x82\xac");  // the euro sign: 0x82 is a continuation
  EXPECT_EQ(Printable(""), "");
  EXPECT_EQ(Printable("a\\b"), "a\\b");
}

TEST(PrintableTest, ControlCharactersAreEscaped) {
  EXPECT_EQ(Printable("a\nb"), "a\\nb");
  EXPECT_EQ(Printable("a\rb\tc"), "a\\rb\\tc");
  EXPECT_EQ(Printable("\x1b[2J"), "\\x1b[2J");  // clear screen
  EXPECT_EQ(Printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(Printable("\x7f"), "\\x7f");
  EXPECT_EQ(Printable("x\xc2\x9b" "31m"), "x\\xc2\\x9b31m");  // U+009B, CSI
  EXPECT_EQ(Printable("\x9b"), "\\x9b");                     // a lone 8-bit CSI
  // Every C0 byte is escaped, so nothing below 0x20 survives.
  for (int c = 0; c < 0x20; ++c) {
    const std::string p = Printable(std::string(1, static_cast<char>(c)));
    for (char ch : p) EXPECT_GE(static_cast<unsigned char>(ch), 0x20) << c;
  }
}

TEST(PrintableTest, LinesKeepTheirBreaks) {
  EXPECT_EQ(PrintableLines("a\x1b[m\nb\tc\n"), "a\\x1b[m\nb\\tc\n");
  EXPECT_EQ(PrintableLines("one line"), "one line");
  EXPECT_EQ(PrintableLines(""), "");
  EXPECT_EQ(PrintableLines("\n\n"), "\n\n");
}

}  // namespace
}  // namespace lpsim
