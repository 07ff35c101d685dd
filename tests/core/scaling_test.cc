#include "core/scaling.h"

#include <gtest/gtest.h>

#include <string>

namespace lpsim {
namespace {

TEST(ScalingTest, ParsesEveryRecipeKind) {
  EXPECT_EQ(Scaling::Parse("none")->kind, Scaling::Kind::kNone);
  EXPECT_EQ(Scaling::Parse("current")->kind, Scaling::Kind::kCurrent);
  const Scaling d = Scaling::Parse("delayed4").value();
  EXPECT_EQ(d.kind, Scaling::Kind::kDelayed);
  EXPECT_EQ(d.delayed.history, 4u);
  EXPECT_EQ(Scaling::Parse("delayed")->delayed.history, 16u);
  const Scaling mx = Scaling::Parse("mx").value();
  EXPECT_EQ(mx.kind, Scaling::Kind::kBlock);
  EXPECT_EQ(mx.block.block_rows, 1u);
  EXPECT_EQ(mx.block.block_cols, 32u);
  EXPECT_EQ(mx.block.scale_type, BlockSpec::ScaleType::kE8m0);
  EXPECT_FALSE(mx.per_tensor());
  EXPECT_TRUE(d.per_tensor());
}

TEST(ScalingTest, NamesAreCanonical) {
  EXPECT_EQ(Scaling::Parse("delayed")->Name(), "delayed16");
  EXPECT_EQ(Scaling::Parse("rowwise")->Name(), "row");
  EXPECT_EQ(Scaling::Parse("columnwise")->Name(), "col");
  EXPECT_EQ(Scaling::Parse("1x128")->Name(), "1x128");
  EXPECT_EQ(Scaling::Parse("128x128")->Name(), "128x128");
  // Options the base name already implies are dropped; others are kept.
  EXPECT_EQ(Scaling::Parse("1x32:fp32")->Name(), "1x32");
  EXPECT_EQ(Scaling::Parse("1x32:fp32:nopow2")->Name(), "1x32:nopow2");
  EXPECT_EQ(Scaling::Parse("mx:fp32")->Name(), "1x32:nopow2");
  EXPECT_EQ(Scaling::Parse("allx16:margin=2")->Name(), "allx16:margin=2");
  EXPECT_EQ(Scaling::Parse("4x4:e8m0")->Name(), "4x4:e8m0");
}

TEST(ScalingTest, ParseOfNameGivesTheSameRecipe) {
  for (const char* name : {"none", "current", "delayed1", "delayed1024", "mx", "row", "col",
                           "1x128", "128x128", "1x32:nopow2", "8x8:e8m0", "allx16:margin=-3",
                           "2xall:fp32:margin=5"}) {
    const Scaling s = Scaling::Parse(name).value();
    const Scaling t = Scaling::Parse(s.Name()).value();
    EXPECT_EQ(t.Name(), s.Name()) << name;
    EXPECT_EQ(t.kind, s.kind) << name;
    EXPECT_EQ(t.delayed.history, s.delayed.history) << name;
    EXPECT_EQ(t.block.block_rows, s.block.block_rows) << name;
    EXPECT_EQ(t.block.block_cols, s.block.block_cols) << name;
    EXPECT_EQ(t.block.scale_type, s.block.scale_type) << name;
    EXPECT_EQ(t.block.scale.power_of_two, s.block.scale.power_of_two) << name;
    EXPECT_EQ(t.block.scale.margin, s.block.scale.margin) << name;
  }
}

// What FullName writes (a stored record's recipe, `lpsim check --target`)
// parses back to the same recipe, options included.
TEST(ScalingTest, ParseOfFullNameGivesTheSameRecipe) {
  Scaling ipu = Scaling::Current(2, true);
  ipu.scale = ScaleOptions::IpuExponentBias(2);
  Scaling recent = Scaling::Delayed(1024, -1, AmaxReduction::kMostRecent);
  for (const Scaling& s : {Scaling::None(), Scaling::Current(), Scaling::Current(3, false), ipu,
                           Scaling::Delayed(16), recent, Scaling::Block(BlockSpec::Mx())}) {
    const StatusOr<Scaling> t = Scaling::Parse(s.FullName());
    ASSERT_TRUE(t.ok()) << s.FullName() << ": " << t.status().message();
    EXPECT_EQ(t->FullName(), s.FullName());
    EXPECT_EQ(t->kind, s.kind) << s.FullName();
    const ScaleOptions& a = t->scale_options();
    const ScaleOptions& b = s.scale_options();
    EXPECT_EQ(a.margin, b.margin) << s.FullName();
    EXPECT_EQ(a.power_of_two, b.power_of_two) << s.FullName();
    EXPECT_EQ(a.min_exponent, b.min_exponent) << s.FullName();
    EXPECT_EQ(a.max_exponent, b.max_exponent) << s.FullName();
    EXPECT_EQ(t->delayed.history, s.delayed.history) << s.FullName();
    EXPECT_EQ(t->delayed.algo, s.delayed.algo) << s.FullName();
  }
  EXPECT_EQ(Scaling::Parse("current:pow2:exp=-32..31")->scale.min_exponent, -32);
}

TEST(ScalingTest, BadNamesSayWhatIsAccepted) {
  for (const char* bad : {"delayedx", "delayed0", "tiles", "", "1x128:bogus", "0x4", "mx:margin=99",
                          "current:bogus", "current:margin=", "current:exp=5..1", "current:exp=-200..0",
                          "current:exp=1", "delayed16:pow2", "current:max", "delayed8:margin=x"}) {
    StatusOr<Scaling> s = Scaling::Parse(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidInput) << bad;
    EXPECT_NE(s.status().message().find("use"), std::string::npos) << s.status().message();
  }
}

TEST(ScalingTest, FullNameSpellsEverySetting) {
  EXPECT_EQ(Scaling::None().FullName(), "none");
  EXPECT_EQ(Scaling::Current().FullName(), "current");
  Scaling ipu = Scaling::Current(1, true);
  ipu.scale = ScaleOptions::IpuExponentBias(1);
  EXPECT_EQ(ipu.FullName(), "current:margin=1:pow2:exp=-32..31");
  EXPECT_EQ(Scaling::Delayed(1024).FullName(), "delayed1024:max");
  EXPECT_EQ(Scaling::Delayed(4, -2, AmaxReduction::kMostRecent).FullName(),
            "delayed4:most_recent:margin=-2");
  EXPECT_EQ(Scaling::Mx().FullName(), "mx");
  EXPECT_EQ(Scaling::Block(BlockSpec::Nvfp4()).FullName(), "nvfp4");
  EXPECT_EQ(Scaling::Block(BlockSpec::Nvfp4Weight()).FullName(), "16x16:nvfp4");
  EXPECT_EQ(Scaling::Parse("4x4:e8m0")->FullName(), "4x4:e8m0");
  EXPECT_EQ(Scaling::Parse("1x128")->FullName(), "1x128:fp32:pow2");
  EXPECT_EQ(Scaling::Parse("1x128:nopow2")->FullName(), "1x128:fp32");
  EXPECT_EQ(Scaling::Block(BlockSpec::Rowwise()).FullName(), "1xall:fp32");
  EXPECT_EQ(Scaling::Integer(true, true).FullName(), "int:per_channel:symmetric");
  EXPECT_EQ(Scaling::Integer(false, false).FullName(), "int:per_tensor:asymmetric");
  // Integer recipes have one name; Parse does not take it (targets only).
  EXPECT_EQ(Scaling::Integer(true, false).Name(), "int:per_channel:asymmetric");
  EXPECT_FALSE(Scaling::Parse("int:per_channel:symmetric").ok());
}

TEST(ScalingTest, IntegerGranularityAndScaleOptions) {
  EXPECT_TRUE(Scaling::Integer(false, true).per_tensor());
  EXPECT_FALSE(Scaling::Integer(true, true).per_tensor());
  const Scaling d = Scaling::Delayed(8, 3);
  EXPECT_EQ(&d.scale_options(), &d.delayed.scale);
  EXPECT_EQ(d.scale_options().margin, 3);
  const Scaling c = Scaling::Current(2);
  EXPECT_EQ(&c.scale_options(), &c.scale);
  const Scaling b = Scaling::Parse("1x128").value();
  EXPECT_EQ(&b.scale_options(), &b.block.scale);
  EXPECT_TRUE(b.scale_options().power_of_two);
}

TEST(BlockSpecTest, CountsBlocks) {
  const BlockSpec t = BlockSpec::Tile128x128();
  EXPECT_EQ(t.BlocksPerRow(300), 3u);
  EXPECT_EQ(t.BlocksPerCol(128), 1u);
  EXPECT_EQ(t.BlocksPerCol(0), 0u);
  EXPECT_EQ(BlockSpec::Rowwise().BlocksPerRow(1000), 1u);
}

}  // namespace
}  // namespace lpsim
