// CheckTorchArchive on zip archives built here byte by byte (the layout
// PyTorch's writer uses: stored records, sizes in the central directory) and
// on bare pickles: sizes that fit pass, every size that points past the bytes
// that are there is refused with the record's name, before LibTorch would
// allocate it.
#include "store/torch_archive.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lpsim {
namespace {

void Put(std::string* s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

struct Record {
  std::string name, data;
  uint64_t method = 0;
  int64_t size_delta = 0;  // added to the central directory's stated sizes
  bool zip64 = false;      // sizes and offset in a zip64 extra field
};

// A zip archive: local headers and data, then the central directory and the
// end record.
std::string Zip(const std::vector<Record>& records) {
  std::string z, cd;
  for (const Record& r : records) {
    const uint64_t local = z.size();
    Put(&z, 0x04034b50, 4);
    Put(&z, 20, 2);
    Put(&z, 0, 2);
    Put(&z, r.method, 2);
    Put(&z, 0, 4);  // time, date
    Put(&z, 0, 4);  // crc
    Put(&z, r.data.size(), 4);
    Put(&z, r.data.size(), 4);
    Put(&z, r.name.size(), 2);
    Put(&z, 0, 2);
    z += r.name + r.data;
    const uint64_t size = r.data.size() + static_cast<uint64_t>(r.size_delta);
    std::string extra;
    if (r.zip64) {
      Put(&extra, 1, 2);
      Put(&extra, 24, 2);
      Put(&extra, size, 8);
      Put(&extra, size, 8);
      Put(&extra, local, 8);
    }
    Put(&cd, 0x02014b50, 4);
    Put(&cd, 45, 2);
    Put(&cd, 45, 2);
    Put(&cd, 0, 2);
    Put(&cd, r.method, 2);
    Put(&cd, 0, 4);
    Put(&cd, 0, 4);
    Put(&cd, r.zip64 ? 0xffffffffu : size, 4);
    Put(&cd, r.zip64 ? 0xffffffffu : size, 4);
    Put(&cd, r.name.size(), 2);
    Put(&cd, extra.size(), 2);
    Put(&cd, 0, 2);  // comment
    Put(&cd, 0, 2);  // disk
    Put(&cd, 0, 2);
    Put(&cd, 0, 4);
    Put(&cd, r.zip64 ? 0xffffffffu : local, 4);
    cd += r.name + extra;
  }
  const uint64_t cd_at = z.size();
  z += cd;
  Put(&z, 0x06054b50, 4);
  Put(&z, 0, 4);
  Put(&z, records.size(), 2);
  Put(&z, records.size(), 2);
  Put(&z, cd.size(), 4);
  Put(&z, cd_at, 4);
  Put(&z, 0, 2);
  return z;
}

// A protocol-2 pickle of {"key": 7}; `claim` replaces the string's length.
std::string Pickle(uint32_t claim = 3) {
  std::string p("\x80\x02}q\x00X", 6);
  Put(&p, claim, 4);
  p += "keyq\x01K\x07s.";
  return p;
}

TEST(TorchArchive, SniffTellsZipsAndPicklesFromOtherFiles) {
  EXPECT_EQ(SniffTorchFile(Zip({{"archive/data.pkl", Pickle()}})), TorchFileKind::kZip);
  EXPECT_EQ(SniffTorchFile(std::string("PK\x03\x04", 4)), TorchFileKind::kZip);
  EXPECT_EQ(SniffTorchFile(Pickle()), TorchFileKind::kPickle);
  for (char protocol : {'\x02', '\x03', '\x04', '\x05'}) {
    EXPECT_EQ(SniffTorchFile(std::string("\x80") + protocol), TorchFileKind::kPickle) << int(protocol);
  }
  // Pickle protocols LibTorch does not write, other zip records (the central
  // directory's and the empty archive's signatures), too few bytes, .npy.
  for (const std::string& other :
       {std::string("\x80\x01", 2), std::string("\x80\x06", 2), std::string("PK\x01\x02", 4),
        std::string("PK\x05\x06", 4), std::string("PK\x03", 3), std::string("\x80", 1),
        std::string(), std::string("\x93NUMPY\x01\x00", 8), std::string("hello")}) {
    EXPECT_EQ(SniffTorchFile(other), TorchFileKind::kOther) << other;
  }
  // A file's first kTorchSniffBytes bytes are enough to tell.
  EXPECT_EQ(SniffTorchFile(Zip({{"a", "b"}}).substr(0, kTorchSniffBytes)), TorchFileKind::kZip);
  EXPECT_EQ(SniffTorchFile(Pickle().substr(0, kTorchSniffBytes)), TorchFileKind::kPickle);
  // CheckTorchArchive leaves kOther bytes alone, even a pickle of another
  // protocol whose lengths do not fit (LibTorch refuses those files anyway).
  std::string p1 = Pickle(0x70000000);
  p1[1] = '\x01';
  EXPECT_TRUE(CheckTorchArchive(p1).ok());
}

TEST(TorchArchive, WellFormedArchivesPass) {
  EXPECT_TRUE(CheckTorchArchive(Zip({{"archive/data.pkl", Pickle()}, {"archive/data/0", std::string(64, 'x')},
                                     {"archive/version", "3\n"}}))
                  .ok());
  Record big{"archive/data.pkl", Pickle()};
  big.zip64 = true;
  EXPECT_TRUE(CheckTorchArchive(Zip({big})).ok());
  EXPECT_TRUE(CheckTorchArchive(Pickle()).ok());
  // Not a zip and not a pickle: left for LibTorch to refuse.
  EXPECT_TRUE(CheckTorchArchive("hello").ok());
}

TEST(TorchArchive, PickleLengthsPastTheRecordAreRefused) {
  const Status st = CheckTorchArchive(Zip({{"archive/data.pkl", Pickle(0x70000000)}}));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'archive/data.pkl' claims 1879048192 bytes"), std::string::npos) << st.message();
  EXPECT_FALSE(CheckTorchArchive(Pickle(0x70000000)).ok());
  // The length itself cut off, and the length one byte too long.
  EXPECT_FALSE(CheckPickleBounds(std::string("\x80\x02X\x01\x00", 5), "p").ok());
  EXPECT_FALSE(CheckPickleBounds(Pickle().substr(0, 10) + "ke", "p").ok());
  // An 8-byte length (BINUNICODE8), a frame, and a text line without its end.
  std::string u8 = "\x80\x04\x8d";
  Put(&u8, uint64_t{1} << 40, 8);
  EXPECT_FALSE(CheckPickleBounds(u8 + "abc.", "p").ok());
  std::string frame = "\x80\x04\x95";
  Put(&frame, 1000, 8);
  EXPECT_FALSE(CheckPickleBounds(frame + "N.", "p").ok());
  EXPECT_FALSE(CheckPickleBounds("\x80\x02" "ctorch\nFloatStorage", "p").ok());
  EXPECT_TRUE(CheckPickleBounds("\x80\x02" "ctorch\nFloatStorage\n.", "p").ok());
  // The scan ends at STOP: bytes after it are not read as opcodes.
  EXPECT_TRUE(CheckPickleBounds(Pickle() + "X\xff\xff\xff\xff", "p").ok());
}

TEST(TorchArchive, ZipSizesPastTheArchiveAreRefused) {
  Record grown{"archive/data/0", std::string(64, 'x')};
  grown.size_delta = 0x7000000;  // the central directory claims 112 MiB more
  std::string z = Zip({{"archive/data.pkl", Pickle()}, grown});
  Status st = CheckTorchArchive(z);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("archive/data/0"), std::string::npos) << st.message();

  // Deflated records: sizes within deflate's 1032:1 pass, larger are lies.
  Record deflated{"archive/code/__torch__.py", std::string(10, 'x')};
  deflated.method = 8;
  deflated.size_delta = 10 * 1032 - 10;
  std::string z8 = Zip({deflated});
  z8.replace(z8.size() - 22 - 46 - deflated.name.size() + 20, 4, std::string("\x0a\0\0\0", 4));  // compressed: 10
  EXPECT_TRUE(CheckTorchArchive(z8).ok());
  deflated.size_delta += 1032;
  z8 = Zip({deflated});
  z8.replace(z8.size() - 22 - 46 - deflated.name.size() + 20, 4, std::string("\x0a\0\0\0", 4));
  st = CheckTorchArchive(z8);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("deflated"), std::string::npos) << st.message();
  Record bzip{"archive/data.pkl", Pickle()};
  bzip.method = 12;
  st = CheckTorchArchive(Zip({bzip}));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("method 12"), std::string::npos) << st.message();

  // The archive cut anywhere in its central directory or end record.
  z = Zip({{"archive/data.pkl", Pickle()}});
  const size_t cd_at = z.size() - 22 - 46 - std::string("archive/data.pkl").size();
  for (size_t cut = cd_at; cut < z.size(); cut += 7) {
    SCOPED_TRACE(cut);
    EXPECT_FALSE(CheckTorchArchive(z.substr(0, cut)).ok());
  }
}

}  // namespace
}  // namespace lpsim
