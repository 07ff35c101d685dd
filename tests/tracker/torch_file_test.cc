// LibTorch files at rest: ReadTorchFile and the real `lpsim analyze` on files
// written by torch::save (a module, one tensor, a vector of tensors) and by
// torch::pickle_save (Python torch.save's format). Every tensor's counts
// equal simd::Analyze on the same data with per-tensor current scaling;
// non-float tensors are skipped with a note; a corrupt file exits 2 and
// writes nothing.
#include "tracker/torch_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <torch/torch.h>
#include <vector>

#include "simd/analyze.h"
#include "simd/scaling.h"
#include "tests/common/run_command.h"

#if !defined(LPSIM_BIN) || !defined(LPSIM_SOURCE_DIR)
#error "LPSIM_BIN and LPSIM_SOURCE_DIR must be defined (tests/tracker/CMakeLists.txt)"
#endif

namespace lpsim {
namespace {

namespace fs = std::filesystem;

using Result = CommandResult;

// stdout only.
Result Lpsim(const std::string& args) { return RunCommand(std::string(LPSIM_BIN) + " " + args + " 2>/dev/null"); }

struct Block : torch::nn::Module {
  Block() {
    fc = register_module("fc", torch::nn::Linear(6, 3));
    steps = register_buffer("steps", torch::arange(4, torch::kLong));
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor steps;
};

struct Net : torch::nn::Module {
  Net() {
    fc1 = register_module("fc1", torch::nn::Linear(8, 16));
    inner = register_module("inner", std::make_shared<Block>());
    // Values spread over many binades, so the counts are not trivial.
    scale = register_parameter("scale", torch::exp2(torch::linspace(-30, 10, 64)));
  }
  torch::nn::Linear fc1{nullptr};
  std::shared_ptr<Block> inner;
  torch::Tensor scale;
};

class TorchFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(7);
    std::string tmpl = ::testing::TempDir() + "lpsim_torch_file_XXXXXX";
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `lpsim analyze FILE --json` agrees with simd::Analyze on `expected`.
  void ExpectAnalyzeMatches(const std::string& file,
                            const std::map<std::string, torch::Tensor>& expected) {
    const std::string formats = "e4m3fn,e5m2,e2m1fn,bf16";
    Result r = Lpsim("analyze " + file + " --json --formats " + formats);
    ASSERT_EQ(r.code, 0) << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["tensors"].size(), expected.size()) << r.out;
    std::vector<Format> fmts;
    for (const char* f : {"e4m3fn", "e5m2", "e2m1fn", "bf16"}) fmts.push_back(ParseFormat(f).value());
    for (const nlohmann::json& t : j["tensors"]) {
      const std::string name = t["name"];
      SCOPED_TRACE(name);
      ASSERT_TRUE(expected.count(name)) << name;
      torch::Tensor x = expected.at(name).detach().to(torch::kFloat).contiguous();
      const float* d = x.data_ptr<float>();
      const size_t n = static_cast<size_t>(x.numel());
      const AnalyzeResult pre = simd::Analyze(d, n, {});
      std::vector<FormatSlot> slots;
      for (const Format& f : fmts) slots.push_back({f, CurrentScale(f, pre.stats.max_abs)});
      const AnalyzeResult a = simd::Analyze(d, n, slots);
      EXPECT_EQ(t["shape"].get<std::vector<int64_t>>(), x.sizes().vec());
      EXPECT_EQ(t["max_abs"].get<float>(), a.stats.max_abs);
      EXPECT_EQ(t["min_abs"].get<float>(), a.stats.min_abs);
      for (size_t i = 0; i < fmts.size(); ++i) {
        const nlohmann::json& c = t["formats"][fmts[i].name()];
        EXPECT_EQ(c["scale"].get<float>(), slots[i].scale) << fmts[i].name();
        EXPECT_EQ(c["numel"].get<uint64_t>(), a.formats[i].numel);
        EXPECT_EQ(c["underflow"].get<uint64_t>(), a.formats[i].underflow) << fmts[i].name();
        EXPECT_EQ(c["overflow"].get<uint64_t>(), a.formats[i].overflow) << fmts[i].name();
        EXPECT_EQ(c["subnormal"].get<uint64_t>(), a.formats[i].subnormal) << fmts[i].name();
        EXPECT_EQ(c["zero_in"].get<uint64_t>(), a.formats[i].zero_in);
        EXPECT_EQ(c["nan_in"].get<uint64_t>(), a.formats[i].nan_in);
      }
    }
  }

  std::string dir_;
};

TEST_F(TorchFileTest, ModuleParametersNamedByKey) {
  auto net = std::make_shared<Net>();
  const std::string path = dir_ + "/net.pt";
  torch::save(net, path);

  StatusOr<TorchFile> f = ReadTorchFile(path);
  ASSERT_TRUE(f.ok()) << f.status().message();
  std::map<std::string, torch::Tensor> expected;
  for (const auto& p : net->named_parameters()) expected[p.key()] = p.value();
  std::vector<std::string> names;
  for (const TorchTensor& t : f->tensors) {
    names.push_back(t.name);
    ASSERT_TRUE(expected.count(t.name)) << t.name;
    const torch::Tensor want = expected[t.name].contiguous();
    ASSERT_EQ(t.data.size(), static_cast<size_t>(want.numel()));
    EXPECT_EQ(std::memcmp(t.data.data(), want.data_ptr<float>(), t.data.size() * 4), 0) << t.name;
    EXPECT_EQ(t.dtype, "float32");
  }
  EXPECT_EQ(names.size(), expected.size());
  // The int64 buffer is skipped with a note that names it.
  ASSERT_EQ(f->notes.size(), 1u);
  EXPECT_NE(f->notes[0].find("inner.steps"), std::string::npos) << f->notes[0];

  ExpectAnalyzeMatches(path, expected);
  Result text = Lpsim("analyze " + path);
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("inner.fc.weight"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Note: "), std::string::npos) << text.out;
}

TEST_F(TorchFileTest, SingleTensorAndVectorOfTensors) {
  const torch::Tensor t = torch::randn({5, 7}) * 1e-3;
  const std::string one = dir_ + "/tensor.pt";
  torch::save(t, one);
  ExpectAnalyzeMatches(one, {{"0", t}});

  // bf16 and fp16 widen exactly; fp64 is rounded once; int64 is skipped.
  std::vector<torch::Tensor> v = {torch::randn({33}), torch::randn({4, 4}).to(torch::kBFloat16),
                                  torch::randn({9}).mul(1e4).to(torch::kHalf),
                                  torch::randn({3, 3}, torch::kDouble).mul(1e-20),
                                  torch::arange(5, torch::kLong)};
  const std::string many = dir_ + "/tensors.bin";  // told by content, not name
  torch::save(v, many);
  ExpectAnalyzeMatches(many, {{"0", v[0]}, {"1", v[1]}, {"2", v[2]}, {"3", v[3]}});
  StatusOr<TorchFile> f = ReadTorchFile(many);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->tensors[1].dtype, "bfloat16");
  EXPECT_EQ(f->tensors[2].dtype, "float16");
  EXPECT_EQ(f->tensors[3].dtype, "float64");
  ASSERT_EQ(f->notes.size(), 1u);
  EXPECT_NE(f->notes[0].find("Long"), std::string::npos) << f->notes[0];
}

TEST_F(TorchFileTest, PickledStateDict) {
  // torch::pickle_save writes what Python's torch.save writes.
  c10::Dict<std::string, torch::Tensor> sd;
  const torch::Tensor w = torch::randn({6, 2}), b = torch::randn({6}).mul(1e-6);
  sd.insert("layer.weight", w);
  sd.insert("layer.bias", b);
  const std::vector<char> bytes = torch::pickle_save(sd);
  const std::string path = dir_ + "/state_dict.pth";
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ExpectAnalyzeMatches(path, {{"layer.weight", w}, {"layer.bias", b}});

  // The key's string length made 1.75 GB: LibTorch would allocate it before
  // finding the file too short; lpsim refuses the file before LibTorch reads it.
  std::string lie(bytes.begin(), bytes.end());
  const size_t key = lie.find("layer.weight");
  ASSERT_NE(key, std::string::npos);
  ASSERT_EQ(lie[key - 5], 'X');  // BINUNICODE, then a 4-byte little-endian length
  lie.replace(key - 4, 4, std::string("\0\0\0\x70", 4));
  std::ofstream(dir_ + "/lie.pth", std::ios::binary) << lie;
  const StatusOr<TorchFile> f = ReadTorchFile(dir_ + "/lie.pth");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("data.pkl' claims 1879048192 bytes"), std::string::npos)
      << f.status().message();
}

TEST_F(TorchFileTest, DirectoryOfFilesPrefixesTheStem) {
  const torch::Tensor t = torch::randn({10});
  fs::create_directory(dir_ + "/ckpt");
  torch::save(std::vector<torch::Tensor>{t, t * 2}, dir_ + "/ckpt/a.pt");
  Result r = Lpsim("analyze " + dir_ + "/ckpt --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["tensors"].size(), 2u);
  EXPECT_EQ(j["tensors"][0]["name"], "a/0");
  EXPECT_EQ(j["tensors"][1]["name"], "a/1");
}

TEST_F(TorchFileTest, CorruptFileExitsTwoAndWritesNothing) {
  torch::save(torch::randn({64, 64}), dir_ + "/good.pt");
  std::ifstream in(dir_ + "/good.pt", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Truncated zip, and a zip magic followed by garbage.
  std::ofstream(dir_ + "/cut.pt", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::ofstream(dir_ + "/junk.pt", std::ios::binary) << "PK\x03\x04 not really a zip";
  std::ofstream(dir_ + "/text.pt", std::ios::binary) << "hello";
  for (const char* name : {"cut.pt", "junk.pt", "text.pt"}) {
    SCOPED_TRACE(name);
    const std::string report = dir_ + "/" + name + ".html";
    const std::string cmd = std::string(LPSIM_BIN) + " analyze " + dir_ + "/" + name +
                            " --report " + report + " 2>&1";
    const Result r = RunCommand(cmd);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(name), std::string::npos) << r.out;  // names the file
    EXPECT_EQ(r.out.find("Traceback"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(report));
    EXPECT_FALSE(ReadTorchFile(dir_ + "/" + name).ok());
  }
}

// Inputs the fuzzer found (fuzz/corpus/torch_file/), each refused with what
// is wrong: a pickle string of 1.75 GB in a 1.8 KB file (LibTorch allocated
// it), a tensor whose shape reaches past its storage (LibTorch rebuilt it
// and reading it read out of bounds), and TorchScript source on which
// LibTorch's compiler reads out of bounds (refused or, where it crashes, a
// crash of the child that loads it, not of lpsim).
TEST_F(TorchFileTest, FuzzerFindingsAreRefused) {
  const std::string dir = std::string(LPSIM_SOURCE_DIR) + "/fuzz/corpus/torch_file/";
  const std::pair<const char*, const char*> cases[] = {
      {"pickle_string_1p75gb.pt", "claims 1879048195 bytes"},
      {"storage_overrun.pt", "reaches past its stored data"},
      {"libtorch_compiler_segv.pt", "corrupt or unsupported LibTorch file"},
  };
  for (const auto& [file, why] : cases) {
    SCOPED_TRACE(file);
    const StatusOr<TorchFile> f = ReadTorchFile(dir + file);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.status().message().find(why), std::string::npos) << f.status().message();
    const Result r = RunCommand(std::string(LPSIM_BIN) + " analyze " + dir + file + " 2>&1");
    EXPECT_EQ(r.code, 2) << r.out;
  }
}

}  // namespace
}  // namespace lpsim
