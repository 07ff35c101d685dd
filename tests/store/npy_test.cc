// Tests of store/npy: files are built byte by byte here, so the reader is
// checked against the .npy format itself and not against our own writer.
#include "store/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "core/output.h"
#include "formats/format.h"
#include "formats/reference.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Little-endian bytes of an integer of `n` bytes.
std::string Le(uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

std::string F32Bytes(const std::vector<float>& v) {
  std::string s;
  for (float f : v) s += Le(Bits(f), 4);
  return s;
}

// A .npy file: magic, version major.0, the header length (2 bytes in 1.0, 4
// after), `dict` padded with spaces and a '\n' to 64 bytes, then `data`.
std::string NpyFile(const std::string& dict, const std::string& data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string s = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  s += Le(header.size(), major == 1 ? 2 : 4);
  return s + header + data;
}

std::string Dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

StatusOr<NpyArray> Parse(const std::string& bytes) { return ParseNpy(bytes.data(), bytes.size()); }

// The error message of parsing `bytes`, or a failure if it parsed.
std::string ParseError(const std::string& bytes) {
  StatusOr<NpyArray> a = Parse(bytes);
  EXPECT_FALSE(a.ok()) << "expected an error";
  return a.ok() ? std::string() : a.status().message();
}

void ExpectSameBits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(Bits(got[i]), Bits(want[i])) << "element " << i;
  }
}

class NpyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("lpsim_npy_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  void WriteFile(const std::string& name, const std::string& bytes) const {
    std::ofstream(Path(name), std::ios::binary) << bytes;
  }
  std::string ReadFile(const std::string& name) const {
    std::ifstream in(Path(name), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    return names;
  }

  fs::path dir_;
};

// ---- Reading hand-built files.

TEST(NpyTest, ReadsFloat32OfEveryShape) {
  struct Case {
    std::string shape_text;
    std::vector<size_t> shape;
  };
  for (const Case& c : std::vector<Case>{{"()", {}},
                                         {"(0,)", {0}},
                                         {"(3,)", {3}},
                                         {"(2, 3, 4)", {2, 3, 4}},
                                         {"(2, 0, 5)", {2, 0, 5}}}) {
    SCOPED_TRACE(c.shape_text);
    const size_t n = NumElements(c.shape);
    std::vector<float> v;
    for (size_t i = 0; i < n; ++i) v.push_back(static_cast<float>(i) * 0.5f - 3.0f);
    StatusOr<NpyArray> a = Parse(NpyFile(Dict("<f4", c.shape_text), F32Bytes(v)));
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_EQ(a->shape, c.shape);
    EXPECT_EQ(a->source_dtype, NpyDtype::kFloat32);
    ExpectSameBits(a->data, v);
  }
}

TEST(NpyTest, KeepsSpecialFloat32ValuesBitForBit) {
  const std::vector<float> v = {FromBits(0x80000000u), FromBits(0x7f800000u), FromBits(0xff800000u),
                                FromBits(0x7fc00001u), FromBits(0xffa00000u), FromBits(0x00000001u),
                                FromBits(0x7f7fffffu)};
  StatusOr<NpyArray> a = Parse(NpyFile(Dict("<f4", "(7,)"), F32Bytes(v)));
  ASSERT_TRUE(a.ok()) << a.status().message();
  ExpectSameBits(a->data, v);
}

TEST(NpyTest, ReadsVersions2And3) {
  for (int major : {2, 3}) {
    StatusOr<NpyArray> a = Parse(NpyFile(Dict("<f4", "(2,)"), F32Bytes({1.5f, -2.0f}), major));
    ASSERT_TRUE(a.ok()) << a.status().message();
    ExpectSameBits(a->data, {1.5f, -2.0f});
  }
}

TEST(NpyTest, AcceptsTheHeaderSpellingsPythonAllows) {
  // Any key order, double quotes, no trailing comma, a trailing comma inside
  // the shape, Python 2 long ints, no padding at all.
  for (const std::string& dict : {
           std::string("{'shape': (2, 1), 'fortran_order': False, 'descr': '<f4'}"),
           std::string("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 1,)}"),
           std::string("{'descr':'<f4','fortran_order':False,'shape':(2L, 1L)}"),
       }) {
    SCOPED_TRACE(dict);
    StatusOr<NpyArray> a = Parse(NpyFile(dict, F32Bytes({1.0f, 2.0f})));
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_EQ(a->shape, (std::vector<size_t>{2, 1}));
  }
  const std::string dict = Dict("<f4", "(1,)");
  std::string unpadded = std::string("\x93NUMPY\x01\x00", 8) + Le(dict.size(), 2) + dict;
  StatusOr<NpyArray> a = Parse(unpadded + F32Bytes({7.0f}));
  ASSERT_TRUE(a.ok()) << a.status().message();
  ExpectSameBits(a->data, {7.0f});
}

TEST(NpyTest, Float16DecodesEveryCodeExactly) {
  // All 2^16 halves, checked against the scalar reference's fp16 decoder (an
  // independent implementation) and a few pinned literals.
  std::string data;
  for (uint32_t c = 0; c < 65536; ++c) data += Le(c, 2);
  StatusOr<NpyArray> a = Parse(NpyFile(Dict("<f2", "(256, 256)"), data));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->source_dtype, NpyDtype::kFloat16);
  ASSERT_EQ(a->data.size(), 65536u);
  const Format fp16 = *ParseFormat("fp16");
  for (uint32_t c = 0; c < 65536; ++c) {
    const float want = DecodeRef(fp16, c);
    const float got = a->data[c];
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "code " << c;
      EXPECT_EQ(std::signbit(got), std::signbit(want)) << "code " << c;
    } else {
      ASSERT_EQ(Bits(got), Bits(want)) << "code " << c;
    }
  }
  EXPECT_EQ(a->data[0x3c00], 1.0f);
  EXPECT_EQ(a->data[0x0001], std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(a->data[0x03ff], std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(a->data[0x0400], std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(a->data[0x7bff], 65504.0f);
  EXPECT_EQ(Bits(a->data[0x8000]), 0x80000000u);  // -0
  EXPECT_EQ(Bits(a->data[0xfc00]), 0xff800000u);  // -inf
}

TEST(NpyTest, Float64RoundsOnceToNearestEven) {
  const auto f64 = [](double d) {
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return Le(b, 8);
  };
  struct Case {
    double in;
    uint32_t want_bits;
  };
  const std::vector<Case> cases = {
      {1.0 + std::ldexp(1.0, -24), 0x3f800000u},                         // tie -> even (1.0)
      {1.0 + 3 * std::ldexp(1.0, -24), 0x3f800002u},                     // tie -> even (1 + 2^-22)
      {1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -40), 0x3f800001u},  // above the tie
      {0.1, 0x3dcccccdu},
      {-0.0, 0x80000000u},
      {1e300, 0x7f800000u},                  // overflows fp32
      {-1e-50, 0x80000000u},                 // underflows to -0
      {std::ldexp(1.0, -149), 0x00000001u},  // smallest fp32 subnormal
  };
  std::string data;
  for (const Case& c : cases) data += f64(c.in);
  data += f64(std::nan(""));
  StatusOr<NpyArray> a =
      Parse(NpyFile(Dict("<f8", "(" + std::to_string(cases.size() + 1) + ",)"), data));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->source_dtype, NpyDtype::kFloat64);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(Bits(a->data[i]), cases[i].want_bits) << "case " << i;
  }
  EXPECT_TRUE(std::isnan(a->data.back()));
}

// ---- Bad input: every message says what is wrong.

TEST(NpyTest, RejectsBadMagic) {
  EXPECT_THAT(ParseError("PK\x03\x04 this is a zip"), HasSubstr("bad magic"));
  EXPECT_THAT(ParseError("\x93NUM"), HasSubstr("bad magic"));
  EXPECT_THAT(ParseError(""), HasSubstr("empty"));
}

TEST(NpyTest, RejectsUnknownVersion) {
  std::string f = NpyFile(Dict("<f4", "(1,)"), F32Bytes({1.0f}));
  f[6] = 4;
  EXPECT_THAT(ParseError(f), HasSubstr("version 4.0"));
  f[6] = 1;
  f[7] = 1;
  EXPECT_THAT(ParseError(f), HasSubstr("version 1.1"));
}

TEST(NpyTest, RejectsTruncatedHeader) {
  const std::string f = NpyFile(Dict("<f4", "(1,)"), F32Bytes({1.0f}));
  EXPECT_THAT(ParseError(f.substr(0, 7)), HasSubstr("truncated header"));
  EXPECT_THAT(ParseError(f.substr(0, 9)), HasSubstr("truncated header"));
  EXPECT_THAT(ParseError(f.substr(0, 40)), HasSubstr("truncated header"));
  // A corrupt length of 4 GiB over a short file fails without allocating it.
  std::string big = std::string("\x93NUMPY\x02\x00", 8) + Le(0xfffffff0u, 4) + "{}";
  EXPECT_THAT(ParseError(big), HasSubstr("truncated header"));
}

TEST(NpyTest, RejectsTruncatedData) {
  const std::string f = NpyFile(Dict("<f4", "(3,)"), F32Bytes({1.0f, 2.0f}));
  const std::string msg = ParseError(f);
  EXPECT_THAT(msg, HasSubstr("truncated data"));
  EXPECT_THAT(msg, HasSubstr("(3,)"));
  EXPECT_THAT(msg, HasSubstr("12"));  // bytes needed
  EXPECT_THAT(msg, HasSubstr("8"));   // bytes present
  // A header claiming 2^40 elements over a few bytes: no huge allocation.
  EXPECT_THAT(ParseError(NpyFile(Dict("<f8", "(1048576, 1048576)"), "abcd")),
              HasSubstr("truncated data"));
}

TEST(NpyTest, RejectsTrailingBytes) {
  const std::string f = NpyFile(Dict("<f4", "(1,)"), F32Bytes({1.0f, 2.0f}));
  EXPECT_THAT(ParseError(f), HasSubstr("4 unexpected bytes after the data"));
}

TEST(NpyTest, RejectsMalformedHeaderDicts) {
  struct Case {
    std::string dict;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"descr: <f4", "does not start with '{'"},
      {"{'descr': '<f4', 'fortran_order': False}", "'shape' is missing"},
      {"{'fortran_order': False, 'shape': (1,)}", "'descr' is missing"},
      {"{'descr': '<f4', 'shape': (1,)}", "'fortran_order' is missing"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "unknown key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "twice"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (1,)}", "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1)}", "not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", "non-negative integers"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1 2)}", "expected ','"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", "must be a tuple"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}", "expected ':'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", "expected ',' or '}'"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': (1,)}", "quoted dtype"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", "after the closing"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
       "too large"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dict);
    const std::string msg = ParseError(NpyFile(c.dict, F32Bytes({1.0f})));
    EXPECT_THAT(msg, HasSubstr("malformed header"));
    EXPECT_THAT(msg, HasSubstr(c.says));
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line";
  }
}

TEST(NpyTest, RejectsBigEndian) {
  for (const std::string& descr : std::vector<std::string>{">f4", ">f2", ">f8"}) {
    const std::string msg = ParseError(NpyFile(Dict(descr, "(1,)"), "12345678"));
    EXPECT_THAT(msg, HasSubstr("big-endian"));
    EXPECT_THAT(msg, HasSubstr("astype('<" + descr.substr(1) + "')"));
  }
}

TEST(NpyTest, RejectsFortranOrder) {
  const std::string msg =
      ParseError(NpyFile(Dict("<f4", "(2, 2)", /*fortran=*/true), F32Bytes({1, 2, 3, 4})));
  EXPECT_THAT(msg, HasSubstr("Fortran"));
  EXPECT_THAT(msg, HasSubstr("ascontiguousarray"));
}

TEST(NpyTest, RejectsUnsupportedDtypesByName) {
  struct Case {
    std::string descr;
    std::string name;
  };
  for (const Case& c : std::vector<Case>{{"<i4", "int32"},
                                         {"|u1", "uint8"},
                                         {"|b1", "bool"},
                                         {"<c8", "complex64"},
                                         {"<f16", "longdouble"},
                                         {"|O", "Python objects"}}) {
    const std::string msg = ParseError(NpyFile(Dict(c.descr, "(1,)"), "1234"));
    EXPECT_THAT(msg, HasSubstr("unsupported dtype '" + c.descr + "' (" + c.name + ")"));
    EXPECT_THAT(msg, HasSubstr("'<f4'"));  // lists what is supported
    EXPECT_THAT(msg, HasSubstr("'<f2'"));
    EXPECT_THAT(msg, HasSubstr("'<f8'"));
  }
  EXPECT_THAT(ParseError(NpyFile("{'descr': [('x', '<f4')], 'fortran_order': False, "
                                 "'shape': (1,)}",
                                 "1234")),
              HasSubstr("structured"));
}

TEST(NpyTest, RejectsShapesTooLargeToCount) {
  EXPECT_THAT(ParseError(NpyFile(Dict("<f4", "(4294967296, 4294967296, 4294967296)"), "")),
              HasSubstr("too many elements"));
}

// ---- Writing.

TEST(NpyTest, EncodesAnAlignedVersion1Header) {
  const std::string f = EncodeNpy({2, 3}, std::vector<float>(6, 1.0f).data());
  ASSERT_GE(f.size(), 10u);
  EXPECT_EQ(f.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header_len = static_cast<uint8_t>(f[8]) | static_cast<uint8_t>(f[9]) << 8;
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string header = f.substr(10, header_len);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(f.size(), 10 + header_len + 6 * 4);
  EXPECT_EQ(f.substr(10 + header_len, 4), Le(0x3f800000u, 4));
}

TEST_F(NpyFileTest, RoundTripsFloat32OfEveryShape) {
  const std::vector<float> specials = {
      -0.0f, INFINITY, -INFINITY, FromBits(0x7fc00123u), FromBits(0x00000001u), 448.0f};
  for (const std::vector<size_t>& shape :
       std::vector<std::vector<size_t>>{{}, {0}, {3}, {2, 3, 4}, {6}}) {
    SCOPED_TRACE(ShapeToString(shape));
    const size_t n = NumElements(shape);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = shape == std::vector<size_t>{6} ? specials[i] : i * 0.25f;
    const std::string path = Path("a.npy");
    Status st = WriteNpy(path, shape, v.data());
    ASSERT_TRUE(st.ok()) << st.message();
    StatusOr<NpyArray> a = ReadNpy(path);
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_EQ(a->shape, shape);
    ExpectSameBits(a->data, v);
    EXPECT_EQ(ReadFile("a.npy"), EncodeNpy(shape, v.data()));
    EXPECT_EQ(Entries(), std::vector<std::string>{"a.npy"}) << "no temporary file left";
  }
}

TEST_F(NpyFileTest, ReadsInPiecesAndWritesThemBack) {
  // float32: pieces of 4 in order, the last shorter, each changeable in
  // place; written back through EncodeNpyHeader + WriteNpyFloats, the file
  // is EncodeNpy's of the changed array.
  std::vector<float> v(11);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) - 3.5f;
  WriteFile("a.npy", EncodeNpy({11}, v.data()));
  std::vector<std::pair<size_t, size_t>> seen;
  Status written = WriteOutput(Path("b.npy"), [&](OutputSink& out) -> Status {
    StatusOr<NpyArray> a = ReadNpy(
        Path("a.npy"), 4, [&](const std::vector<size_t>& shape, float* d, size_t b, size_t e) {
          EXPECT_EQ(shape, std::vector<size_t>{11});
          seen.emplace_back(b, e);
          if (b == 0) {
            const std::string h = EncodeNpyHeader(shape);
            Status s = out.Write(h.data(), h.size());
            if (!s.ok()) return s;
          }
          for (size_t i = b; i < e; ++i) d[i] *= 2.0f;
          return WriteNpyFloats(out, d + b, e - b);
        });
    return a.ok() ? Status() : a.status();
  });
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(seen, (std::vector<std::pair<size_t, size_t>>{{0, 4}, {4, 8}, {8, 11}}));
  for (float& x : v) x *= 2.0f;
  EXPECT_EQ(ReadFile("b.npy"), EncodeNpy({11}, v.data()));

  // A failing piece stops the read with its own status.
  int calls = 0;
  StatusOr<NpyArray> stopped =
      ReadNpy(Path("a.npy"), 4, [&](const std::vector<size_t>&, float*, size_t, size_t) {
        ++calls;
        return Status::Failed("disk full");
      });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().message(), "disk full");
  EXPECT_EQ(calls, 1);

  // Other dtypes arrive whole, once; an empty float32 array once, empty.
  std::string dict = "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }";
  dict += std::string(64 - (10 + dict.size() + 1) % 64, ' ') + "\n";
  const char f16_data[] = {0x00, 0x3c, 0x00, 0x40, 0x00, static_cast<char>(0xc0)};  // 1, 2, -2
  WriteFile("h.npy", std::string("\x93NUMPY\x01\x00", 8) +
                         std::string(1, static_cast<char>(dict.size())) + std::string(1, '\0') +
                         dict + std::string(f16_data, sizeof f16_data));
  seen.clear();
  auto record = [&](const std::vector<size_t>&, float*, size_t b, size_t e) {
    seen.emplace_back(b, e);
    return Status();
  };
  StatusOr<NpyArray> h = ReadNpy(Path("h.npy"), 2, record);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(seen, (std::vector<std::pair<size_t, size_t>>{{0, 3}}));
  EXPECT_EQ(h->data, (std::vector<float>{1.0f, 2.0f, -2.0f}));
  seen.clear();
  WriteFile("e.npy", EncodeNpy({0}, nullptr));
  ASSERT_TRUE(ReadNpy(Path("e.npy"), 2, record).ok());
  EXPECT_EQ(seen, (std::vector<std::pair<size_t, size_t>>{{0, 0}}));
}

TEST_F(NpyFileTest, ReplacesAnExistingFile) {
  WriteFile("a.npy", "old contents");
  const float v = 2.5f;
  ASSERT_TRUE(WriteNpy(Path("a.npy"), {1}, &v).ok());
  StatusOr<NpyArray> a = ReadNpy(Path("a.npy"));
  ASSERT_TRUE(a.ok()) << a.status().message();
  ExpectSameBits(a->data, {2.5f});
}

TEST_F(NpyFileTest, FailedWriteIntoMissingDirectoryLeavesNothing) {
  const float v = 1.0f;
  Status st = WriteNpy(Path("missing/a.npy"), {1}, &v);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("missing/a.npy"));
  EXPECT_THAT(st.message(), HasSubstr("No such file or directory"));
  EXPECT_TRUE(Entries().empty());
}

TEST_F(NpyFileTest, ADirectoryTargetIsRefusedAndLeftAlone) {
  // (A rename that fails after the data was written: tests/core/output_test.)
  fs::create_directories(dir_ / "out.npy" / "inside");
  const float v = 1.0f;
  Status st = WriteNpy(Path("out.npy"), {1}, &v);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("is a directory"));
  EXPECT_TRUE(fs::is_directory(dir_ / "out.npy" / "inside"));
  EXPECT_EQ(Entries(), std::vector<std::string>{"out.npy"});
}

TEST_F(NpyFileTest, ReadErrorsNameTheFile) {
  StatusOr<NpyArray> a = ReadNpy(Path("nope.npy"));
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), HasSubstr("nope.npy"));
  EXPECT_THAT(a.status().message(), HasSubstr("cannot open"));

  WriteFile("t.npy", NpyFile(Dict("<f4", "(4,)"), F32Bytes({1, 2, 3})));
  a = ReadNpy(Path("t.npy"));
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), HasSubstr("t.npy: truncated data"));

  WriteFile("g.npy", NpyFile(Dict("<f4", "(1,)"), F32Bytes({1, 2})));
  a = ReadNpy(Path("g.npy"));
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), HasSubstr("unexpected bytes"));

  fs::create_directories(dir_ / "d.npy");
  a = ReadNpy(Path("d.npy"));
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), HasSubstr("d.npy"));
}

TEST_F(NpyFileTest, ReadsFromAPipe) {
  // A pipe has no size to check up front: the reader must find truncation
  // and trailing bytes while reading.
  struct Case {
    std::string bytes;
    std::string error;  // empty: must parse
  };
  const std::string dict = Dict("<f4", "(2,)");
  for (const Case& c :
       std::vector<Case>{{NpyFile(dict, F32Bytes({1, 2})), ""},
                         {NpyFile(dict, F32Bytes({1})), "truncated data"},
                         {NpyFile(dict, F32Bytes({1, 2, 3})), "unexpected bytes"}}) {
    const std::string fifo = Path("pipe");
    fs::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&] {
      std::FILE* f = std::fopen(fifo.c_str(), "wb");
      if (f) {
        std::fwrite(c.bytes.data(), 1, c.bytes.size(), f);
        std::fclose(f);
      }
    });
    StatusOr<NpyArray> a = ReadNpy(fifo);
    writer.join();
    if (c.error.empty()) {
      ASSERT_TRUE(a.ok()) << a.status().message();
      ExpectSameBits(a->data, {1.0f, 2.0f});
    } else {
      ASSERT_FALSE(a.ok());
      EXPECT_THAT(a.status().message(), HasSubstr(c.error));
    }
  }
}

}  // namespace
}  // namespace lpsim
